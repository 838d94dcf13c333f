"""NumPy's reductions on symbolic arrays: `sum`, `min`, `max`, `mean`, `argmin`, `argmax` with `axis` and `keepdims`.

A reduction over all elements is one reduce of the flattened array; along an axis it is a map of reduces over the
other axes (axis 0 of a matrix reduces the rows of its transpose), and `keepdims` reshapes the result (free).
`argmin`/`argmax` reduce (value, index) pairs, the first position winning ties, NaN winning all as in numpy.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np
from soac.lang import dtypes
from soac.lang.control import isnan, maximum, minimum, sqrt, where
from soac.lang.conversions import convert_scalar
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTypeError, located
from soac.lang.soacs import _extreme, check_at_run_time, iota, map_, reduce, replicate, reshape, transpose
from soac.lang.values import Array, Scalar, as_array, as_scalar


def _axes(axis: Any, rank: int, what: str) -> list[int] | None:
    """numpy's `axis` (None, an int or a tuple of ints, negative ones counting from the end) as sorted axes."""
    if axis is None:
        return None
    given = list(axis) if isinstance(axis, tuple | list) else [axis]
    if not builtins.all(isinstance(k, int | np.integer) and not isinstance(k, bool) for k in given):
        raise SoacTypeError(located(f"{what}: axis must be a Python int or a tuple of ints, not {axis!r}"))
    axes = sorted(int(k) + rank if int(k) < 0 else int(k) for k in given)
    if len(set(axes)) != len(axes) or not builtins.all(0 <= k < rank for k in axes):
        raise SoacTypeError(located(f"{what}: axis {axis!r} names no distinct axes of an array of {rank} dimensions"))
    return axes


def _along(array: Array, k: int, reduce_1d: Callable[[Array], Any]) -> Any:
    """`reduce_1d` applied along axis `k`: a map over the other axes (axis 0 of a matrix through its transpose)."""
    if array.rank == 1:
        return reduce_1d(array)
    if k == 0:
        return _along(transpose(array, [*range(1, array.rank), 0]), array.rank - 1, reduce_1d)
    return map_(lambda row: _along(row, k - 1, reduce_1d), array)


def _keep(result: Any, rank: int, axes: list[int] | None) -> Array:
    """The reduction's result with the reduced axes kept as size 1 (numpy's keepdims)."""
    if isinstance(result, Scalar):
        result = replicate(1, result)
    assert isinstance(result, Array)
    kept = axes if axes is not None else list(range(rank))
    sizes: list[Any] = []
    rest = iter(range(result.rank))
    for k in range(rank):
        sizes.append(1 if k in kept else result.dim(next(rest)))
    return reshape(result, sizes)


def _reduction(xs: Any, axis: Any, keepdims: bool, what: str, reduce_1d: Callable[[Array], Any]) -> Any:
    a = as_array(xs, f"the array of {what}")
    axes = _axes(axis, a.rank, what)
    if axes is None or len(axes) == a.rank:
        result = reduce_1d(a if a.rank == 1 else reshape(a, [-1]))
    else:
        result = a
        for k in reversed(axes):
            result = _along(result, k, reduce_1d)
    return _keep(result, a.rank, axes) if keepdims else result


def _sum_1d(a: Array) -> Scalar:
    if a.dtype.kind == "b":
        a = a.astype(dtypes.int64)
    return reduce(lambda x, y: x + y, 0, a, commutative=True)


def _min_1d(a: Array) -> Scalar:
    return reduce(minimum, _extreme(a.dtype, True), a, commutative=True)


def _max_1d(a: Array) -> Scalar:
    return reduce(maximum, _extreme(a.dtype, False), a, commutative=True)


def sum(xs: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """numpy's sum: of all elements, or along `axis` (an int or a tuple); bools count as i64 (numpy's), other
    types keep theirs (Futhark's; numpy and JAX widen small integers)."""
    return _reduction(xs, axis, keepdims, "sl.sum", _sum_1d)


def min(xs: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """numpy's min (the type's highest value for an empty array, where numpy raises)."""
    return _reduction(xs, axis, keepdims, "sl.min", _min_1d)


def max(xs: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """numpy's max (the type's lowest value for an empty array, where numpy raises)."""
    return _reduction(xs, axis, keepdims, "sl.max", _max_1d)


def _prod_1d(a: Array) -> Scalar:
    if a.dtype.kind == "b":
        a = a.astype(dtypes.int64)
    return reduce(lambda x, y: x * y, 1, a, commutative=True)


def _any_1d(a: Array) -> Scalar:
    flags = a if a.dtype.kind == "b" else a.astype(dtypes.bool_)
    return reduce(lambda x, y: x | y, False, flags, commutative=True)


def _all_1d(a: Array) -> Scalar:
    flags = a if a.dtype.kind == "b" else a.astype(dtypes.bool_)
    return reduce(lambda x, y: x & y, True, flags, commutative=True)


def prod(xs: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """numpy's prod (1 for no elements), in the array's type as sl.sum."""
    return _reduction(xs, axis, keepdims, "sl.prod", _prod_1d)


def any(xs: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """numpy's any: whether some element is true (nonzero); False for no elements."""
    return _reduction(xs, axis, keepdims, "sl.any", _any_1d)


def all(xs: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """numpy's all: whether every element is true (nonzero); True for no elements."""
    return _reduction(xs, axis, keepdims, "sl.all", _all_1d)


def var(xs: Any, axis: Any = None, keepdims: bool = False, ddof: int = 0) -> Any:
    """numpy's var: the mean squared deviation from the mean over the axes (divided by count - ddof)."""
    a = as_array(xs, "the array of sl.var")
    dtype = _mean_type(a.dtype)
    values = a if a.dtype == dtype else a.astype(dtype)
    deviation = values - mean(values, axis=axis, keepdims=True)
    squares = sum(deviation * deviation, axis=axis, keepdims=keepdims)
    count: Any = 1
    axes = _axes(axis, a.rank, "sl.var")
    for k in axes if axes is not None else range(a.rank):
        count = count * a.dim(k)
    return squares / convert_scalar(as_scalar(count - ddof, dtypes.index), dtype)


def std(xs: Any, axis: Any = None, keepdims: bool = False, ddof: int = 0) -> Any:
    """numpy's std: the square root of `var`."""
    return sqrt(var(xs, axis=axis, keepdims=keepdims, ddof=ddof))


def _mean_type(dtype: DType) -> DType:
    return dtype if dtype.is_float else dtypes.float64


def mean(xs: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """numpy's mean: the sum over the axes over their element count (floats keep their type, others give f64;
    NaN for no elements)."""
    a = as_array(xs, "the array of sl.mean")
    dtype = _mean_type(a.dtype)
    values = a if a.dtype == dtype else a.astype(dtype)
    axes = _axes(axis, a.rank, "sl.mean")
    count: Any = 1
    for k in axes if axes is not None else range(a.rank):
        count = count * a.dim(k)
    total = sum(values, axis=axis, keepdims=keepdims)
    return total / convert_scalar(as_scalar(count, dtypes.index), dtype)


def _arg_extreme(largest: bool) -> Callable[[Array], Scalar]:
    """The position of the first largest (or smallest) element of a 1-D array: a reduce over (value, index) pairs
    where the better value wins and equal values go to the lower index; NaN beats all, as in numpy."""

    def reduce_1d(a: Array) -> Scalar:
        values = a.astype(dtypes.int8) if a.dtype.kind == "b" else a
        n = values.dim(0)
        check_at_run_time(n > 0, f"sl.{'argmax' if largest else 'argmin'} of an empty array")

        def better(left: tuple[Scalar, Scalar], right: tuple[Scalar, Scalar]) -> tuple[Scalar, Scalar]:
            (x, i), (y, j) = left, right
            wins = (y > x) if largest else (y < x)
            ties = y == x
            if values.dtype.is_float:
                x_nan, y_nan = isnan(x), isnan(y)
                wins = wins | (y_nan & ~x_nan)
                ties = ties | (y_nan & x_nan)
            take = wins | (ties & (j < i))
            return where(take, y, x), where(take, j, i)

        neutral = (_extreme(values.dtype, not largest), int(np.iinfo(np.int64).max))
        _, position = reduce(better, neutral, values, iota(n), commutative=True)
        return position

    return reduce_1d


def argmax(xs: Any, axis: Any = None) -> Any:
    """numpy's argmax: the i64 position of the first largest element (of the flattened array, or along `axis`);
    an empty array fails when the program runs."""
    a = as_array(xs, "the array of sl.argmax")
    return _argument(a, axis, "sl.argmax", _arg_extreme(True))


def argmin(xs: Any, axis: Any = None) -> Any:
    """numpy's argmin: the i64 position of the first smallest element (see argmax)."""
    a = as_array(xs, "the array of sl.argmin")
    return _argument(a, axis, "sl.argmin", _arg_extreme(False))


def _argument(a: Array, axis: Any, what: str, reduce_1d: Callable[[Array], Scalar]) -> Any:
    if isinstance(axis, tuple | list):
        raise SoacTypeError(located(f"{what} takes one axis (an int) or None, not {axis!r}"))
    axes = _axes(axis, a.rank, what)
    if axes is None:
        return reduce_1d(a if a.rank == 1 else reshape(a, [-1]))
    return _along(a, axes[0], reduce_1d)
