"""NumPy's functions on symbolic arrays, each a thin layer over the combinators of `soac.lang.soacs`.

Reductions take numpy's `axis` and `keepdims` (`sl.sum(m, axis=1)` is a map of sums over the rows; axis 0 of a
matrix reduces its transpose's rows); `argmin`/`argmax` reduce (value, index) pairs; `dot`, `matmul` and `@` are
maps of sums of products; `zeros`/`ones`/`full`/`array` are replicates and maps over `iota`; `concatenate` is a
map with a branch (`scf.if`) per part; `take` and `compress` are gathers (maps with indexing) and a filter (a scan
and a scatter).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from soac import dialect as soac
from soac.lang import dtypes
from soac.lang.control import cond, isnan, maximum, minimum, where
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTypeError, located
from soac.lang.operators import convert_scalar, elementwise, unary, unify_arrays
from soac.lang.soacs import _extreme, cumsum, iota, map_, reduce, replicate, reshape, scatter, slice_rows, transpose
from soac.lang.tracer import Tracer
from soac.lang.values import Array, Scalar, Value, as_array, as_scalar, as_value, retyped, use

# ---------------------------------------------------------------------------
# Reductions over axes
# ---------------------------------------------------------------------------


def _axes(axis: Any, rank: int, what: str) -> list[int] | None:
    """numpy's `axis` (None, an int or a tuple of ints, negative ones counting from the end) as sorted axes."""
    if axis is None:
        return None
    given = list(axis) if isinstance(axis, tuple | list) else [axis]
    if not all(isinstance(k, int | np.integer) and not isinstance(k, bool) for k in given):
        raise SoacTypeError(located(f"{what}: axis must be a Python int or a tuple of ints, not {axis!r}"))
    axes = sorted(int(k) + rank if int(k) < 0 else int(k) for k in given)
    if len(set(axes)) != len(axes) or not all(0 <= k < rank for k in axes):
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
    types keep theirs (JAX's, where numpy widens small integers)."""
    return _reduction(xs, axis, keepdims, "sl.sum", _sum_1d)


def min(xs: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """numpy's min (the type's highest value for an empty array, where numpy raises)."""
    return _reduction(xs, axis, keepdims, "sl.min", _min_1d)


def max(xs: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """numpy's max (the type's lowest value for an empty array, where numpy raises)."""
    return _reduction(xs, axis, keepdims, "sl.max", _max_1d)


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
        _check(n > 0, f"sl.{'argmax' if largest else 'argmin'} of an empty array")

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


def _check(ok: Any, message: str) -> None:
    """Fail the run with `message` (at the user's line) unless `ok` holds when the program runs."""
    Tracer.current("a check").emit(soac.AssertOp(use(as_scalar(ok, dtypes.bool_)), message))


# ---------------------------------------------------------------------------
# Element-wise functions
# ---------------------------------------------------------------------------


def clip(xs: Any, lo: Any = None, hi: Any = None) -> Any:
    """numpy's clip: `minimum(maximum(xs, lo), hi)` (either bound may be None), element-wise."""
    if lo is None and hi is None:
        raise SoacTypeError(located("sl.clip needs a lower or an upper bound (or both)"))
    result = xs if lo is None else maximum(xs, lo)
    return result if hi is None else minimum(result, hi)


def rsqrt(x: Any) -> Any:
    """`1 / sqrt(x)` (JAX's lax.rsqrt; OpenCL's rsqrt), element-wise on arrays."""
    return unary("rsqrt", x)


# ---------------------------------------------------------------------------
# Products
# ---------------------------------------------------------------------------


def _dot_1d(a: Array, b: Array) -> Scalar:
    return _sum_1d(a * b)


def dot(a: Any, b: Any) -> Any:
    """numpy's dot for scalars, vectors and matrices: a sum of products over the last axis of `a` and the first of
    `b` (maps of sums, which fusion makes redomaps)."""
    if not isinstance(a, Array) or not isinstance(b, Array):
        return a * b
    x, y = unify_arrays([a, b])
    if x.rank == 1 and y.rank == 1:
        return _dot_1d(x, y)
    if x.rank == 2 and y.rank == 1:
        return map_(lambda row: _dot_1d(row, y), x)
    if x.rank == 1 and y.rank == 2:
        return map_(lambda column: _dot_1d(x, column), transpose(y))
    if x.rank == 2 and y.rank == 2:
        columns = transpose(y)
        return map_(lambda row: map_(lambda column: _dot_1d(row, column), columns), x)
    raise SoacTypeError(
        located(f"sl.dot of a {x.describe()} and a {y.describe()}: only scalars, vectors and matrices; use sl.matmul")
    )


def matmul(a: Any, b: Any) -> Any:
    """numpy's matmul (`a @ b`): `dot` for vectors and matrices, mapped over the leading (batch) axes of arrays of
    one rank above 2."""
    x = as_array(a, "the left operand of '@'")
    y = as_array(b, "the right operand of '@'")
    if x.rank <= 2 and y.rank <= 2:
        return dot(x, y)
    if x.rank == y.rank:
        return map_(lambda p, q: matmul(p, q), x, y)
    raise SoacTypeError(located(f"'@' of a {x.describe()} and a {y.describe()}: batched products need equal ranks; use sl.map"))


# ---------------------------------------------------------------------------
# Construction
# ---------------------------------------------------------------------------


def _sizes(shape: Any) -> list[Any]:
    return list(shape) if isinstance(shape, tuple | list) else [shape]


def full(shape: Any, value: Any, dtype: Any = None) -> Array:
    """numpy's full: an array of sizes `shape` (ints or integer scalars) filled with `value` (replicates). A Python
    constant without `dtype` makes a weak array, which takes the type of the typed arrays it meets."""
    sizes = _sizes(shape)
    if not sizes:
        raise SoacTypeError(located("sl.full needs at least one size (a 0-D array is a scalar)"))
    element = dtypes.element_type(dtype, "the dtype of sl.full") if dtype is not None else None
    result: Any = as_value(value, element, "the value of sl.full")
    if not isinstance(result, Scalar):
        raise SoacTypeError(located(f"the value of sl.full must be a scalar, not a {result.describe()}"))
    if element is not None:
        result = retyped(result, element.ir)
    for size in reversed(sizes):
        result = replicate(size, result)
    return result


def zeros(shape: Any, dtype: Any = None) -> Array:
    """numpy's zeros (f64 by default, f32 in a program whose float arguments are f32; weak without a dtype)."""
    return full(shape, 0.0 if dtype is None else 0, dtype)


def ones(shape: Any, dtype: Any = None) -> Array:
    """numpy's ones (see zeros)."""
    return full(shape, 1.0 if dtype is None else 1, dtype)


def _zeros_like_rows(xs: Array, n: Any) -> Array:
    """`n` rows of zeros, each of the shape of a row of `xs`."""
    zero = False if xs.dtype.kind == "b" else 0
    return full([n, *(xs.dim(k) for k in range(1, xs.rank))], zero, xs.dtype)


def array(items: Any, dtype: Any = None) -> Array:
    """A small array literal, `sl.array([a, b, c])`, of scalars (symbolic or constants) or of arrays of one shape
    (nested lists too): a map over `iota` choosing each element (arrays are concatenated as rows)."""
    if not isinstance(items, list | tuple) or not items:
        raise SoacTypeError(located("sl.array takes a non-empty list of scalars or arrays, e.g. sl.array([a, b, c])"))
    element = dtypes.element_type(dtype, "the dtype of sl.array") if dtype is not None else None
    if any(isinstance(item, list | tuple | Array) for item in items):
        rows = [array(item, dtype) if isinstance(item, list | tuple) else as_array(item, "a row of sl.array") for item in items]
        return concatenate([reshape(r, [1, *r.shape]) for r in rows])
    values = [as_value(item, element, "an element of sl.array") for item in items]
    scalars = [as_scalar(v, None, "an element of sl.array") for v in values]
    like = element or _literal_type(scalars)
    scalars = [as_scalar(retyped(s, like.ir)) for s in scalars]
    if element is not None or any(s.dtype.kind == "x" for s in scalars):
        scalars = [convert_scalar(s, like) for s in scalars]
    if len({s.dtype for s in scalars}) != 1:
        kinds = ", ".join(str(s.dtype) for s in scalars)
        raise SoacTypeError(located(f"sl.array of elements of different types ({kinds}); convert them to one"))

    def choose(i: Scalar) -> Scalar:
        result = scalars[-1]
        for k in range(len(scalars) - 2, -1, -1):
            result = where(i == k, scalars[k], result)
        return result

    return map_(choose, iota(len(scalars)))


def _literal_type(scalars: Sequence[Scalar]) -> DType:
    """The type of an array literal's elements: that of its typed elements (sizes and Python constants follow
    them), else of its first float, else i64 (numpy's promotion of a list)."""
    typed = [s.dtype for s in scalars if not s.weak and s.dtype.kind != "x"]
    floats = [s.dtype for s in scalars if s.dtype.is_float]
    if typed:
        return typed[0]
    if floats:
        return floats[0]
    return next((s.dtype for s in scalars if s.dtype.kind != "x"), dtypes.int64)


def concatenate(arrays: Sequence[Any], axis: int = 0) -> Array:
    """numpy's concatenate: the arrays (of one rank and type; other sizes equal) one after another along `axis`. Along
    the rows, a map over the result's positions reads the part that holds each (a branch per part); rows of rows
    are concatenated flat, then reshaped; another axis goes through transposes."""
    if not isinstance(arrays, list | tuple) or not arrays:
        raise SoacTypeError(located("sl.concatenate takes a non-empty list of arrays, e.g. sl.concatenate([xs, ys])"))
    parts = unify_arrays([as_array(a, f"array {k + 1} of sl.concatenate") for k, a in enumerate(arrays)])
    rank = parts[0].rank
    for k, part in enumerate(parts):
        if part.rank != rank or part.dtype != parts[0].dtype:
            raise SoacTypeError(
                located(
                    f"sl.concatenate of a {parts[0].describe()} and a {part.describe()} (array {k + 1}): "
                    "ranks and types must agree; convert with .astype or reshape"
                )
            )
    (k,) = _axes(axis, rank, "sl.concatenate") or [0]
    if len(parts) == 1:
        return parts[0]
    if k != 0:
        order = [k, *(d for d in range(rank) if d != k)]
        back = [order.index(d) for d in range(rank)]
        return transpose(concatenate([transpose(p, order) for p in parts]), back)
    if rank == 1:
        return _concatenate_1d(parts)
    inner = [parts[0].dim(d) for d in range(1, rank)]
    for part in parts[1:]:
        for d in range(1, rank):
            _check(part.dim(d) == parts[0].dim(d), "sl.concatenate: the arrays' sizes differ beyond the first axis")
    rows: Any = parts[0].dim(0)
    for part in parts[1:]:
        rows = rows + part.dim(0)
    return reshape(_concatenate_1d([reshape(p, [-1]) for p in parts]), [rows, *inner])


def _concatenate_1d(parts: Sequence[Array]) -> Array:
    starts: list[Any] = [0]
    for part in parts:
        starts.append(starts[-1] + part.dim(0))
    total = starts[-1]

    def element(i: Scalar) -> Any:
        def read(k: int) -> Any:
            if k == len(parts) - 1:
                return parts[k][i - convert_scalar(starts[k], dtypes.int64)] if k else parts[k][i]
            start = convert_scalar(starts[k], dtypes.int64) if k else 0
            end = convert_scalar(starts[k + 1], dtypes.int64)
            return cond(i < end, lambda: parts[k][i - start], lambda: read(k + 1))

        return read(0)

    return map_(element, iota(total))


# ---------------------------------------------------------------------------
# Gathers and filters
# ---------------------------------------------------------------------------

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
    from soac.lang.soacs import getitem

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


def take(xs: Any, indices: Any, axis: int | None = None, mode: str | None = None, fill_value: Any = None) -> Any:
    """numpy's take: the elements of the flattened array at `indices` (axis None), or its rows (axis 0), with
    `mode` as in `gather` (`.at[i].get(mode=...)`)."""
    a = as_array(xs, "the array of sl.take")
    if axis is None:
        a = a if a.rank == 1 else reshape(a, [-1])
    elif axis not in (0, -a.rank):
        raise SoacTypeError(located(f"sl.take along axis {axis}: only None and 0; move the axis first (sl.transpose)"))
    return gather(a, indices, mode, fill_value)


def compress(mask: Any, xs: Any) -> Array:
    """The rows of `xs` where `mask` (a 1-D bool array as long) is true, in order: numpy's `xs[mask]` and
    `np.compress`. A scan of the flags gives each kept row's place, a scatter puts it there."""
    flags = as_array(mask, "the mask")
    a = as_array(xs, "the array filtered by a mask")
    if flags.rank != 1 or flags.dtype.kind != "b":
        raise SoacTypeError(located(f"a mask must be a 1-D bool array, not a {flags.describe()}; flatten it with .reshape(-1)"))
    counts = flags.astype(dtypes.int64)
    places = cumsum(counts)
    kept = _sum_1d(counts)
    positions = map_(lambda keep, place: where(keep, place - 1, -1), flags, places)
    scattered = scatter(_zeros_like_rows(a, a.dim(0)), positions, a)
    return slice_rows(scattered, slice(0, kept), None)


def filter(fn: Callable[[Any], Any], xs: Any) -> Array:
    """Futhark's `filter p xs`: the rows for which `fn` is true, in order (`xs[sl.map(fn, xs)]`)."""
    a = as_array(xs, "the array of sl.filter")
    return compress(map_(fn, a), a)


def stack(arrays: Sequence[Any], axis: int = 0) -> Array:
    """numpy's stack: arrays of one shape as the rows of a new array (along `axis`)."""
    if not isinstance(arrays, list | tuple) or not arrays:
        raise SoacTypeError(located("sl.stack takes a non-empty list of arrays"))
    parts = [as_array(a, f"array {k + 1} of sl.stack") for k, a in enumerate(arrays)]
    rank = parts[0].rank + 1
    k = int(axis) + rank if int(axis) < 0 else int(axis)
    if not 0 <= k < rank:
        raise SoacTypeError(located(f"sl.stack: axis {axis} is outside the {rank} dimensions of the result"))
    expanded = [reshape(p, [*(p.dim(d) for d in range(k)), 1, *(p.dim(d) for d in range(k, p.rank))]) for p in parts]
    return concatenate(expanded, axis=k)


def abs(x: Any) -> Any:
    """numpy's abs (`abs(x)`), element-wise on arrays."""
    return unary("abs", x) if isinstance(x, Value) else builtins.abs(x)


def arange(start: Any, stop: Any = None, step: int = 1, dtype: Any = None) -> Array:
    """numpy's arange for integer bounds (Python ints or integer scalars) and a Python int step: `start`, `start +
    step`, ... before `stop`, of `dtype` (i64 by default): a map over `iota`."""
    if stop is None:
        start, stop = 0, start
    for bound in (start, stop):
        if isinstance(bound, float) or (isinstance(bound, Scalar) and bound.dtype.is_float):
            raise SoacTypeError(located("sl.arange takes integer bounds; for floats write start + step * sl.iota(n, sl.f32)"))
    if not isinstance(step, int) or isinstance(step, bool) or step == 0:
        raise SoacTypeError(located(f"the step of sl.arange must be a nonzero Python int, not {step!r}"))
    element = dtypes.element_type(dtype, "the dtype of sl.arange") if dtype is not None else dtypes.int64
    lo = as_scalar(start, dtypes.int64, "the start of sl.arange")
    hi = as_scalar(stop, dtypes.int64, "the stop of sl.arange")
    lo, hi = (convert_scalar(b, dtypes.int64) for b in (lo, hi))
    span = hi - lo if step > 0 else lo - hi
    count = maximum((span + (builtins.abs(step) - 1)) // builtins.abs(step), 0)
    return map_(lambda k: convert_scalar(lo + k * step, element), iota(count))


def bincount(xs: Any, weights: Any = None, minlength: Any = 0, length: Any = None) -> Array:
    """numpy's bincount: how often each value 0, 1, ... occurs in the 1-D integer array `xs` (i64), or the sum of
    its `weights` (of their type, as JAX); `length` bins (JAX's), else max(xs) + 1 but at least `minlength`.
    Values outside the bins are skipped (numpy refuses negative ones): a `soac.hist`."""
    from soac.lang.soacs import hist

    values = as_array(xs, "the array of sl.bincount")
    if values.rank != 1 or not values.dtype.is_integer:
        raise SoacTypeError(located(f"sl.bincount counts a 1-D integer array, not a {values.describe()}"))
    if length is None:
        length = maximum(_max_1d(values) + 1, minlength)
    if weights is None:
        added = full(values.dim(0), 1, dtypes.int64)
    else:
        added = as_array(weights, "the weights of sl.bincount")
    zero = False if added.dtype.kind == "b" else 0
    return hist(full(length, zero, added.dtype), lambda a, b: a + b, 0, values, added)


def searchsorted(a: Any, v: Any, side: str = "left") -> Any:
    """numpy's searchsorted: where each value of `v` (a scalar or an array) goes in the sorted 1-D array `a` to keep
    it sorted (the first such place for side='left', the last for 'right'), as i64: a binary search per value (a
    `while_loop` in a map)."""
    from soac.lang.control import while_loop

    keys = as_array(a, "the sorted array of sl.searchsorted")
    if keys.rank != 1:
        raise SoacTypeError(located(f"sl.searchsorted searches a sorted 1-D array, not a {keys.describe()}"))
    if side not in ("left", "right"):
        raise SoacTypeError(located(f"sl.searchsorted: side {side!r}: choose 'left' or 'right'"))
    size = convert_scalar(keys.dim(0), dtypes.int64)

    def place(x: Any) -> Scalar:
        def halve(lo: Scalar, hi: Scalar) -> tuple[Scalar, Scalar]:
            middle = (lo + hi) // 2
            after = keys[middle] < x if side == "left" else keys[middle] <= x
            return where(after, middle + 1, lo), where(after, hi, middle)

        start = as_scalar(0, dtypes.int64)
        lo, _ = while_loop(lambda lo, hi: lo < hi, halve, (start, size))
        return lo

    return elementwise(place, [v])
