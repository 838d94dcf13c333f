"""NumPy's array construction on symbolic values: `zeros`, `ones`, `full`, `array`, `arange`, `concatenate`, `stack`.

`full` is nested replicates (weak without a dtype: it takes the type of the typed arrays it meets); an array
literal and `arange` are maps over `iota`; `concatenate` along the rows is a map over the result's positions with
a branch (`scf.if`) per part, so that no part is read outside its bounds (rows of rows are concatenated flat and
reshaped, other axes go through transposes).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
from soac.lang import dtypes
from soac.lang.control import cond, maximum, where
from soac.lang.conversions import convert_scalar, retyped
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTypeError, located
from soac.lang.operators import known_size, unify_arrays
from soac.lang.reductions import _axes
from soac.lang.soacs import check_at_run_time, iota, map_, replicate, reshape, transpose
from soac.lang.values import Array, Scalar, as_array, as_scalar, as_value


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


def full_like(a: Any, value: Any, dtype: Any = None) -> Array:
    """numpy's full_like: an array of the shape of `a` filled with `value`, of `a`'s type unless `dtype`."""
    like = as_array(a, "the array of sl.full_like")
    return full(list(like.shape), value, dtype if dtype is not None else like.dtype)


def zeros_like(a: Any, dtype: Any = None) -> Array:
    """numpy's zeros_like."""
    like = as_array(a, "the array of sl.zeros_like")
    element = dtypes.element_type(dtype, "the dtype of sl.zeros_like") if dtype is not None else like.dtype
    return full_like(like, False if element.kind == "b" else 0, element)


def ones_like(a: Any, dtype: Any = None) -> Array:
    """numpy's ones_like."""
    like = as_array(a, "the array of sl.ones_like")
    element = dtypes.element_type(dtype, "the dtype of sl.ones_like") if dtype is not None else like.dtype
    return full_like(like, True if element.kind == "b" else 1, element)


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
            check_at_run_time(part.dim(d) == parts[0].dim(d), "sl.concatenate: the arrays' sizes differ beyond the first axis")
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
    start, stop = (int(b) if isinstance(b, np.integer) else b for b in (start, stop))  # numpy's ints: any width
    lo = as_scalar(start, dtypes.int64, "the start of sl.arange")
    hi = as_scalar(stop, dtypes.int64, "the stop of sl.arange")
    lo, hi = (convert_scalar(b, dtypes.int64) for b in (lo, hi))
    span = hi - lo if step > 0 else lo - hi
    count = maximum((span + (builtins.abs(step) - 1)) // builtins.abs(step), 0)
    return map_(lambda k: convert_scalar(lo + k * step, element), iota(count))


def expand_dims(a: Any, axis: int) -> Array:
    """numpy's expand_dims: `a` with a new dimension of size 1 at `axis` (a reshape, free)."""
    array = as_array(a, "the array of sl.expand_dims")
    rank = array.rank + 1
    if not isinstance(axis, int) or not -rank <= axis < rank:
        raise SoacTypeError(located(f"sl.expand_dims: axis {axis!r} is outside the {rank} dimensions of the result"))
    k = axis % rank
    sizes = [array.dim(d) for d in range(array.rank)]
    return reshape(array, [*sizes[:k], 1, *sizes[k:]])


def squeeze(a: Any, axis: Any = None) -> Array:
    """numpy's squeeze: `a` without its dimensions of size 1 (a reshape, free). Without `axis`, the dimensions
    known to be 1 while tracing (`keepdims`, None, literal sizes); a given axis is checked when the program runs."""
    array = as_array(a, "the array of sl.squeeze")
    given = _axes(axis, array.rank, "sl.squeeze")
    axes = given if given is not None else [k for k in range(array.rank) if known_size(array, k) == 1]
    for k in axes:
        if known_size(array, k) != 1:
            check_at_run_time(array.dim(k) == 1, f"sl.squeeze: axis {k} is not of size 1")
    kept = [array.dim(k) for k in range(array.rank) if k not in axes]
    if not kept:
        raise SoacTypeError(located("sl.squeeze of every dimension is a scalar: index it, e.g. a[0, 0]"))
    return reshape(array, kept)


def broadcast_to(a: Any, shape: Any) -> Array:
    """numpy's broadcast_to: `a` repeated to `shape` along new leading axes and along its axes of size 1 (a
    replicate where tracing knows the 1, else a gather of row 0 when the size is 1 as the program runs); other
    sizes must equal `shape`'s (checked when it runs)."""
    sizes = [int(s) if isinstance(s, np.integer) else s for s in (shape if isinstance(shape, tuple | list) else [shape])]
    if not isinstance(a, Array):
        return full(sizes, a)
    if a.rank > len(sizes):
        raise SoacTypeError(located(f"sl.broadcast_to: a {a.describe()} has more dimensions than the shape {tuple(sizes)}"))
    if a.rank < len(sizes):
        return replicate(sizes[0], broadcast_to(a, sizes[1:]))
    if known_size(a, 0) == 1 and not (isinstance(sizes[0], int) and sizes[0] == 1):
        row = a[0]
        return replicate(sizes[0], row) if a.rank == 1 else replicate(sizes[0], broadcast_to(row, sizes[1:]))
    if sizes[0] is a.dim(0):
        return a if a.rank == 1 else map_(lambda row: broadcast_to(row, sizes[1:]), a)
    n = a.dim(0)  # equal to the shape's size, or 1 when the program runs: each position reads row 0
    check_at_run_time((n == sizes[0]) | (n == 1), "sl.broadcast_to: a size is neither the shape's nor 1")
    single = n == 1

    def row(i: Scalar) -> Any:
        picked = a[where(single, 0, i)]
        return picked if a.rank == 1 else broadcast_to(picked, sizes[1:])

    return map_(row, iota(sizes[0]))
