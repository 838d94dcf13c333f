"""Gathers, filters, searches and counts on symbolic arrays: `take` (and `xs[idx]`, `.at[i].get`) with numpy's and
JAX's modes for positions outside, `compress` / `filter` (and `xs[mask]`), `searchsorted` and `bincount`.

A gather is a map with indexing; a guarded read (`mode='fill'`) is a branch (`scf.if`), so that nothing is read
outside; a filter is a scan of the flags and a scatter; `searchsorted` a binary search (`scf.while`) per value;
`bincount` a `soac.hist`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from soac.lang import dtypes
from soac.lang.construction import _zeros_like_rows, full
from soac.lang.control import cond, maximum, minimum, where
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTypeError, located
from soac.lang.operators import convert_scalar, elementwise
from soac.lang.reductions import _max_1d, _sum_1d
from soac.lang.soacs import cumsum, map_, reshape, scatter, slice_rows
from soac.lang.values import Array, Scalar, as_array, as_scalar

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


def bincount(xs: Any, weights: Any = None, minlength: Any = 0, length: Any = None) -> Array:
    """numpy's bincount: how often each value 0, 1, ... occurs in the 1-D integer array `xs` (i64), or the sum of
    its `weights` (of their type, as JAX); `length` bins (JAX's), else max(xs) + 1 but at least `minlength`.
    Values outside the bins are skipped (numpy refuses negative ones): a `soac.hist`."""
    from soac.lang.soacs import hist

    values = as_array(xs, "the array of sl.bincount")
    if values.rank != 1 or not values.dtype.is_integer:
        raise SoacTypeError(located(f"sl.bincount counts a 1-D integer array, not a {values.describe()}"))
    if length is None:
        length = maximum(convert_scalar(_max_1d(values), dtypes.int64) + 1, minlength)  # 256 bins of a u8 array
    if weights is None:
        added = full(values.dim(0), 1, dtypes.int64)
    else:
        added = as_array(weights, "the weights of sl.bincount")
    zero = False if added.dtype.kind == "b" else 0
    return hist(full(length, zero, added.dtype), lambda a, b: a + b, 0, values, added)
