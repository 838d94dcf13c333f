"""`sl.stencil`: `soac.stencil`, a map whose function sees a fixed window of neighbours of each element.

    @sl.jit
    def jacobi(u):
        return sl.stencil(lambda w: 0.25 * (w[-1, 0] + w[1, 0] + w[0, -1] + w[0, 1]), u, boundary="constant")

The function gets one `Window` per input array; `w[di, dj]` is the neighbour at that offset from the element
(`w[0, 0]` the element itself). A neighbour outside the array reads what `boundary` says: `clamp` (the nearest
element), `mirror`, `wrap` or `constant` (`fill`, 0 by default, one value or one per input).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from soac import dialect as soac
from soac.dialect import STENCIL_BOUNDARIES, STENCIL_MAX_RANK, stencil_offsets
from soac.lang.conversions import retyped
from soac.lang.errors import SoacTypeError, SourceLocation, located, user_location
from soac.lang.lambdas import emit_at, results_list, single, trace_lambda, wrap_results
from soac.lang.values import Array, Value, as_array, as_value, use
from soac.types import array_of_rank
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue


class Window:
    """The neighbours of one element of one input: `w[di, dj]` (offsets from the element, within the window)."""

    def __init__(self, values: Sequence[Value], offsets: Sequence[tuple[int, ...]], where: SourceLocation):
        self._by_offset = dict(zip(offsets, values))
        self._extents = tuple(2 * max(abs(o[k]) for o in offsets) + 1 for k in range(len(offsets[0])))
        self._where = where

    @property
    def center(self) -> Value:
        return self._by_offset[(0,) * len(self._extents)]

    def __getitem__(self, offset: Any) -> Value:
        key = tuple(offset) if isinstance(offset, tuple) else (offset,)
        found = self._by_offset.get(tuple(int(k) for k in key)) if all(isinstance(k, int) for k in key) else None
        if found is None:
            raise SoacTypeError(
                located(
                    f"a window of extents {list(self._extents)} has no neighbour {offset!r}: give {len(self._extents)} "
                    "constant offsets within it (a larger window= reaches further)"
                )
            )
        return found


def _inputs(arrays: Sequence[Any]) -> list[Array]:
    """The arrays of a stencil: at least one, all of one rank from 1 to 3."""
    if not arrays:
        raise SoacTypeError(located("sl.stencil needs at least one array: sl.stencil(fn, xs, boundary='clamp')"))
    inputs = [as_array(a, f"argument {k + 2} of sl.stencil") for k, a in enumerate(arrays)]
    first = inputs[0]
    if not 1 <= first.rank <= STENCIL_MAX_RANK:
        raise SoacTypeError(located(f"sl.stencil takes arrays of 1 to {STENCIL_MAX_RANK} dimensions, not a {first.describe()}"))
    for k, a in enumerate(inputs):
        if a.rank != first.rank:
            raise SoacTypeError(located(f"sl.stencil: array {k + 1} is a {a.describe()}, but array 1 a {first.describe()}"))
    return inputs


def _fills(fill: Any, inputs: Sequence[Array]) -> list[SSAValue]:
    """The values that neighbours outside the arrays read with boundary='constant': one for all, or one per array."""
    fills = results_list(fill)
    if len(fills) == 1:
        fills = fills * len(inputs)
    if len(fills) != len(inputs):
        raise SoacTypeError(located(f"sl.stencil: {len(fills)} fill values for {len(inputs)} arrays"))
    constants = []
    for value, a in zip(fills, inputs):
        constant = retyped(as_value(value, a.dtype, "the fill of sl.stencil"), a.dtype.ir)
        if constant.ir_type != a.dtype.ir:
            raise SoacTypeError(located(f"sl.stencil: the fill is a {constant.describe()} for a {a.describe()}"))
        constants.append(use(constant))
    return constants


def stencil(
    fn: Callable[..., Any],
    *arrays: Any,
    window: int | Sequence[int] = 3,
    boundary: str = "clamp",
    fill: Any = 0,
) -> Any:
    """`fn` applied to the window of neighbours of each element of the arrays (all of one shape, of 1 to 3
    dimensions), one `Window` per array; a tuple of results gives a tuple of arrays. `window` gives the odd extent
    of the window in each dimension (3: the 3x3 neighbourhood of a matrix)."""
    where = user_location()
    inputs = _inputs(arrays)
    rank = inputs[0].rank
    extents = [window] * rank if isinstance(window, int) else list(window)
    if len(extents) != rank or not all(isinstance(e, int) and e > 0 and e % 2 == 1 for e in extents):
        raise SoacTypeError(located(f"sl.stencil: window {window!r} must be {rank} odd positive extent(s), e.g. 3"))
    if boundary not in STENCIL_BOUNDARIES:
        raise SoacTypeError(located(f"sl.stencil: boundary {boundary!r}: choose one of {', '.join(STENCIL_BOUNDARIES)}"))
    offsets = stencil_offsets(extents)
    points = len(offsets)
    elements = [a.dtype.ir for a in inputs]

    def on_windows(*neighbours: Value) -> Any:
        windows = [Window(neighbours[k * points : (k + 1) * points], offsets, where) for k in range(len(inputs))]
        return fn(*windows)

    arg_types = [t for t in elements for _ in range(points)]
    region, yielded = trace_lambda(on_windows, arg_types, "the function of sl.stencil", where)
    for value in yielded:
        if isinstance(value.ir_type, TensorType):
            raise SoacTypeError(located(f"the function of sl.stencil must return scalars, not a {value.describe()}", where))
    constants = _fills(fill, inputs) if boundary == "constant" else []
    dims = [inputs[0].dim(k).ssa for k in range(rank)]
    op = soac.StencilOp(
        dims, extents, boundary, [use(a) for a in inputs], [array_of_rank(v.ir_type, rank) for v in yielded], region, constants
    )
    emit_at(op, where)
    results = wrap_results(op, inputs[0].dim(0))
    for result in results:
        assert isinstance(result, Array)
        result._dims = list(inputs[0]._dims)
    return single(results)
