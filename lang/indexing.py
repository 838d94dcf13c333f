"""numpy's indexing of symbolic arrays, and gathers with JAX's modes for positions outside.

`getitem` (`xs[key]`) follows numpy's basic and advanced indexing: integers and slices are `soac.index` and
`soac.slice`; strided and inner slices, index arrays, masks and new axes are maps and gathers over them. A gather
(`gather`, `xs[idx]`, `.at[i].get(mode=...)`) is a map with indexing, a guarded read (`mode='fill'`) a branch
(`scf.if`) so that nothing is read outside, and a mask (`compress`, `xs[mask]`) a scan of the flags and a scatter.

    xs[1:-1]        # soac.slice %xs[%c1, %n_minus_1]
    xs[idx]         # soac.map over idx of soac.index %xs[%i]
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
from soac import dialect as soac
from soac.lang import dtypes
from soac.lang.compaction import kept_in_order
from soac.lang.construction import _zeros_like_rows
from soac.lang.construction import array as literal
from soac.lang.control import cond, maximum, minimum, where
from soac.lang.conversions import as_index, convert_scalar
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTypeError, SourceLocation, located, user_location
from soac.lang.lambdas import emit_at
from soac.lang.operators import elementwise
from soac.lang.reductions import _sum_1d
from soac.lang.soacs import cumsum, iota, map_, reshape, reverse, scatter
from soac.lang.tracer import Tracer
from soac.lang.values import Array, Scalar, Value, as_array, as_scalar, use, wrap
from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType


def _position(array: Array, k: int, item: Any) -> Any:
    """An index into dimension k: negative constants (Python's or numpy's integers) count from the end, as in Python."""
    if isinstance(item, int | np.integer) and not isinstance(item, bool) and item < 0:
        return array.dim(k) + int(item)
    return item


def getitem(array: Array, key: Any) -> Any:
    """numpy's basic and advanced indexing on a symbolic array: integers (`xs[i, j]`: soac.index), slices
    (`xs[lo:hi]`: soac.slice; `xs[::s]`: a gather), slices before other indices (`m[:, j]`: a map over the rows),
    integer arrays (`xs[idx]`: a gather), bool arrays (`xs[mask]`: a filter), None (a new axis of size 1) and
    `...`."""
    where = user_location()
    use(array)
    items = list(key) if isinstance(key, tuple) else [key]
    if any(item is Ellipsis for item in items):
        k = next(k for k, item in enumerate(items) if item is Ellipsis)
        if any(item is Ellipsis for item in items[k + 1 :]):
            raise SoacTypeError(located("an index can have only one ..."))
        fill = array.rank - _counted(items[:k] + items[k + 1 :])
        items = items[:k] + [slice(None)] * builtins.max(fill, 0) + items[k + 1 :]
    if _counted(items) > array.rank:
        raise SoacTypeError(located(f"{_counted(items)} indices for a {array.describe()}"))
    if any(item is None for item in items):
        return _new_axes(array, items, where)
    return _index_items(array, items, where)


def _counted(items: Sequence[Any]) -> int:
    """The number of dimensions that `items` index (None adds one, a bool mask of rank r consumes r)."""
    return builtins.sum(
        item.rank if isinstance(item, Array) and item.dtype.kind == "b" else 1 for item in items if item is not None
    )


def _is_full(item: Any) -> bool:
    """`:`, a slice of all rows (compared by identity: a symbolic bound's `==` would build IR)."""
    return isinstance(item, slice) and item.start is None and item.stop is None and item.step is None


def _is_position(item: Any) -> bool:
    return (isinstance(item, int | np.integer) and not isinstance(item, bool | np.bool_)) or isinstance(item, Scalar)


def _index_items(array: Array, items: list[Any], where: SourceLocation) -> Any:
    positions: list[Any] = []
    while items and _is_position(items[0]):
        positions.append(as_index(_position(array, len(positions), items.pop(0)), "an index"))
    if positions:
        array = index_into(array, positions, where)
        if not items:
            return array
    item, rest = items[0], items[1:]
    if isinstance(item, slice):
        rows = array if _is_full(item) else slice_rows(array, item, where)
    elif isinstance(item, Array) and item.dtype.kind == "b":
        if item.rank != 1:
            raise SoacTypeError(
                located(
                    f"a mask indexes rows: a 1-D bool array, not a {item.describe()}; flatten both first, "
                    "xs.reshape(-1)[mask.reshape(-1)]",
                    where,
                )
            )
        rows = compress(item, array)
    elif isinstance(item, Array | list):
        indices = literal([_position(array, 0, k) for k in item]) if isinstance(item, list) else item
        rows = gather(array, indices)
        if rest and indices.rank != 1:
            raise SoacTypeError(
                located(
                    "an index array of several dimensions must be the last index; index the other dimensions "
                    "first (xs[:, j][idx]) or map over the rows",
                    where,
                )
            )
    elif isinstance(item, bool | np.bool_ | Scalar):
        as_index(item, "an index")  # a bool or a float: its own message
        raise AssertionError("as_index accepts no bool or float")
    else:
        got = item.describe() if isinstance(item, Value) else type(item).__name__
        raise SoacTypeError(located(f"an index is a {got}: use integers, slices, integer or bool arrays, None or ...", where))
    if all(_is_full(r) for r in rest):
        return rows
    # a slice of an inner dimension becomes its positions, computed here: the rows' slices then have a size known
    # outside the map (a map yielding soac.slice of each row is an irregular array to the lowering)
    rest = [slice_positions(rows, 1 + j, r) if isinstance(r, slice) and not _is_full(r) else r for j, r in enumerate(rest)]
    return map_(lambda row: _index_items(row, list(rest), where), rows)


def _new_axes(array: Array, items: list[Any], where: SourceLocation) -> Array:
    """`xs[:, None]`: the array (indexed by slices only) with a dimension of size 1 where each None is."""
    if not all(item is None or isinstance(item, slice) for item in items):
        raise SoacTypeError(
            located("None (a new axis) goes with slices only, e.g. v[:, None]; index first, then add the axis", where)
        )
    result = _index_items(array, [item for item in items if item is not None] or [slice(None)], where)
    sizes: list[Any] = []
    k = 0
    for item in items:
        if item is None:
            sizes.append(1)
        else:
            sizes.append(result.dim(k))
            k += 1
    sizes.extend(result.dim(d) for d in range(k, result.rank))
    return reshape(result, sizes)


def index_into(array: Array, indices: list[Any], where: SourceLocation) -> Any:
    op = soac.IndexOp(use(array), indices)
    emit_at(op, where)
    tracer = Tracer.current("")
    if isinstance(op.result.type, TensorType):
        value = wrap(op.result, tracer.scope, row_of=array)
        assert isinstance(value, Array)
        value._offset = len(indices)
        return value
    return wrap(op.result, tracer.scope)


def _step(item: slice) -> int:
    step = 1 if item.step is None else item.step
    if not isinstance(step, int | np.integer) or isinstance(step, bool) or step == 0:
        raise SoacTypeError(located(f"a slice's step must be a nonzero Python int, not {item.step!r}"))
    return int(step)


def slice_rows(array: Array, item: slice, where: SourceLocation | None) -> Array:
    where = where or user_location()
    step = _step(item)
    if step == -1 and item.start is None and item.stop is None:
        return reverse(array)
    if step != 1:
        return _strided(array, item, step)
    lo = as_index(_position(array, 0, item.start if item.start is not None else 0), "a slice bound")
    hi_value = _position(array, 0, item.stop) if item.stop is not None else array.dim(0)
    hi = as_index(hi_value, "a slice bound")
    tracer = Tracer.current("")
    length = tracer.emit(arith.SubiOp(hi, lo), where).results[0]
    op = soac.SliceOp(use(array), lo, hi)
    emit_at(op, where)
    value = wrap(op.result, tracer.scope, row_of=array)
    assert isinstance(value, Array)
    value._offset = 0
    value._dims[0] = Scalar(length, tracer.scope, dtypes.index)
    return value


def _strided(array: Array, item: slice, step: int) -> Array:
    """`xs[lo:hi:s]` with Python's meaning (bounds clamped to the array, negative ones from the end): a gather of
    the rows lo, lo + s, ... before hi."""
    return map_(lambda k: array[k], slice_positions(array, 0, item))


def slice_positions(array: Array, k: int, item: slice) -> Array:
    """The positions (i64) that the slice `item` picks along dimension `k` of `array`, as Python picks them."""
    step = _step(item)
    n = convert_scalar(array.dim(k), dtypes.int64)

    def bound(value: Any, default: Any) -> Any:
        if value is None:
            return default
        if not _is_position(value) or (isinstance(value, Scalar) and not value.dtype.is_integer):
            raise SoacTypeError(located(f"a slice bound must be an integer, not {value!r}"))
        position = convert_scalar(value, dtypes.int64) if isinstance(value, Scalar) else int(value)
        return minimum(maximum(where_negative(position, n), 0 if step > 0 else -1), n if step > 0 else n - 1)

    if step > 0:
        lo, hi = bound(item.start, 0), bound(item.stop, n)
        count = maximum((hi - lo + (step - 1)) // step, 0)
    else:
        lo, hi = bound(item.start, n - 1), bound(item.stop, -1)
        count = maximum((lo - hi + (-step - 1)) // -step, 0)
    return map_(lambda i: lo + i * step, iota(count))


def where_negative(position: Any, n: Scalar) -> Any:
    """`position + n` where `position` is negative (Python's indices from the end)."""
    if isinstance(position, int):
        return position + n if position < 0 else position
    return where(position < 0, position + n, position)


MODES = ("promise_in_bounds", "clip", "wrap", "fill")


def gather(xs: Array, index: Any, mode: str | None = None, fill_value: Any = None) -> Any:
    """`xs[index]` for an integer scalar or an integer array of positions (a map with indexing), with what a
    position outside the rows reads: an error when the program runs (`mode=None`, `'promise_in_bounds'`), the
    nearest row (`'clip'`), the position modulo the rows (`'wrap'`) or `fill_value` (`'fill'`, elements only)."""
    if mode is not None and mode not in MODES:
        raise SoacTypeError(located(f"mode {mode!r}: choose one of {', '.join(MODES)}"))
    if isinstance(index, Array):
        if not index.dtype.is_integer:
            raise SoacTypeError(located(f"the positions of a gather must be integers, not a {index.describe()}"))
        return elementwise(lambda i: gather(xs, i, mode, fill_value), [index])
    return gather_point(xs, [index], mode, fill_value)


def gather_point(xs: Array, indices: Sequence[Any], mode: str | None, fill_value: Any) -> Any:
    """`xs[i, j, ...]` for scalar positions, with `mode` as in `gather`."""
    if mode in (None, "promise_in_bounds"):
        return getitem(xs, tuple(indices))
    positions = [as_scalar(i, dtypes.int64, "a position") for i in indices]
    for p in positions:
        if not p.dtype.is_integer:
            raise SoacTypeError(located(f"a position must be an integer, not a {p.describe()}"))
    positions = [convert_scalar(p, dtypes.int64) for p in positions]  # sizes may not fit a narrower type
    sizes = [convert_scalar(xs.dim(k), p.dtype) for k, p in enumerate(positions)]
    if mode == "clip":
        positions = [minimum(maximum(p, 0), n - 1) for p, n in zip(positions, sizes)]
    elif mode == "wrap":
        positions = [p % n for p, n in zip(positions, sizes)]
    if mode in ("clip", "wrap"):
        return getitem(xs, tuple(positions))
    if len(positions) != xs.rank:
        raise SoacTypeError(
            located(f"mode='fill' reads elements: give {xs.rank} positions of the {xs.describe()}, or use mode='clip'")
        )
    inside: Any = True
    for p, n in zip(positions, sizes):
        inside = (p >= 0) & (p < n) & inside
    fill = as_scalar(fill_value if fill_value is not None else _default_fill(xs.dtype), xs.dtype, "the fill_value")
    return cond(inside, lambda: getitem(xs, tuple(positions)), lambda: fill)


def _default_fill(dtype: DType) -> Any:
    """JAX's fill for reads outside: NaN for floats, the type's lowest value for signed integers, True for bools."""
    if dtype.is_float:
        return float("nan")
    if dtype.kind == "b":
        return True
    return int(np.iinfo(dtype.numpy).min)


def compress(mask: Any, xs: Any) -> Array:
    """The rows of `xs` where `mask` (a 1-D bool array as long) is true, in order: numpy's `xs[mask]` and
    `np.compress`. Of a 1-D array, one scan of the flags whose kernel scatters the kept elements (`compaction.py`);
    of rows, a scan of the flags gives each kept row's place, a scatter puts it there."""
    flags = as_array(mask, "the mask")
    a = as_array(xs, "the array filtered by a mask")
    if flags.rank != 1 or flags.dtype.kind != "b":
        raise SoacTypeError(located(f"a mask must be a 1-D bool array, not a {flags.describe()}; flatten it with .reshape(-1)"))
    if a.rank == 1:
        counts, moved = kept_in_order(flags, a)
        return slice_rows(moved, slice(0, counts[0]), None)
    counts = flags.astype(dtypes.int64)
    places = cumsum(counts)
    kept = _sum_1d(counts)
    positions = map_(lambda keep, place: where(keep, place - 1, -1), flags, places)
    scattered = scatter(_zeros_like_rows(a, a.dim(0)), positions, a)
    return slice_rows(scattered, slice(0, kept), None)
