"""Gathers, filters, searches, counts and padding on symbolic arrays: `take` with numpy's and JAX's modes for
positions outside (the gathers of `soac.lang.indexing`), `filter`, `searchsorted`, `bincount` and `pad`.

A filter is a mask (`compress`: a scan of the flags and a scatter); `searchsorted` a binary search (`scf.while`) per
value; `bincount` a `soac.hist`; `pad` nested maps over the result's positions with guarded reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from soac.lang import dtypes
from soac.lang.construction import full
from soac.lang.control import maximum, where, while_loop
from soac.lang.conversions import convert_scalar
from soac.lang.errors import SoacTypeError, located
from soac.lang.indexing import compress, gather, gather_point
from soac.lang.operators import elementwise
from soac.lang.reductions import _max_1d
from soac.lang.soacs import hist, iota, map_, reshape
from soac.lang.values import Array, Scalar, as_array, as_scalar


def take(xs: Any, indices: Any, axis: int | None = None, mode: str | None = None, fill_value: Any = None) -> Any:
    """numpy's take: the elements of the flattened array at `indices` (axis None), or its rows (axis 0), with
    `mode` as in `gather` (`.at[i].get(mode=...)`)."""
    a = as_array(xs, "the array of sl.take")
    if axis is None:
        a = a if a.rank == 1 else reshape(a, [-1])
    elif axis not in (0, -a.rank):
        raise SoacTypeError(located(f"sl.take along axis {axis}: only None and 0; move the axis first (sl.transpose)"))
    return gather(a, indices, mode, fill_value)


def filter(fn: Callable[[Any], Any], xs: Any) -> Array:
    """Futhark's `filter p xs`: the rows for which `fn` is true, in order (`xs[sl.map(fn, xs)]`)."""
    a = as_array(xs, "the array of sl.filter")
    return compress(map_(fn, a), a)


def searchsorted(a: Any, v: Any, side: str = "left") -> Any:
    """numpy's searchsorted: where each value of `v` (a scalar or an array) goes in the sorted 1-D array `a` to keep
    it sorted (the first such place for side='left', the last for 'right'), as i64: a binary search per value (a
    `while_loop` in a map)."""
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


PAD_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")


def _pad_widths(pad_width: Any, rank: int) -> list[tuple[int, int]]:
    """numpy's pad_width (an int, a (before, after) pair, or a pair per axis) as a pair per axis of Python ints."""

    def is_width(w: Any) -> bool:
        return isinstance(w, int | np.integer) and not isinstance(w, bool) and w >= 0

    if is_width(pad_width):
        return [(int(pad_width), int(pad_width))] * rank
    items = list(pad_width) if isinstance(pad_width, tuple | list) else None
    if items is not None and len(items) == 2 and all(is_width(w) for w in items):
        return [(int(items[0]), int(items[1]))] * rank
    if items is not None and len(items) == rank:
        pairs = [list(p) if isinstance(p, tuple | list) else [p, p] for p in items]
        if all(len(p) == 2 and all(is_width(w) for w in p) for p in pairs):
            return [(int(p[0]), int(p[1])) for p in pairs]
    raise SoacTypeError(
        located(f"sl.pad: pad_width {pad_width!r} must be Python ints >= 0: n, (before, after) or one pair per axis")
    )


def _mirrored(position: Scalar, size: Scalar, mode: str) -> Scalar:
    """A position outside [0, size) reflected back, numpy's `reflect` (the edge not repeated, period 2(size-1)) or
    `symmetric` (the edge repeated, period 2 size)."""
    period = 2 * (size - 1) if mode == "reflect" else 2 * size
    folded = position % maximum(period, 1)
    return where(folded < size, folded, period - folded - (0 if mode == "reflect" else 1))


def pad(a: Any, pad_width: Any, mode: str = "constant", constant_values: Any = 0) -> Array:
    """numpy's pad: `a` with `pad_width` more elements before and after along each axis, read as `mode` says
    (`constant` reads `constant_values`, `edge` the nearest element, `wrap` the other end, `reflect` and
    `symmetric` a mirror image): nested maps over the result's positions with guarded reads (`.at[].get`)."""
    array = as_array(a, "the array of sl.pad")
    if mode not in PAD_MODES:
        raise SoacTypeError(located(f"sl.pad: mode {mode!r}: choose one of {', '.join(PAD_MODES)}"))
    widths = _pad_widths(pad_width, array.rank)
    sizes = [convert_scalar(array.dim(k), dtypes.int64) for k in range(array.rank)]

    def element(positions: list[Scalar]) -> Any:
        sources = [p - before for p, (before, _) in zip(positions, widths)]
        if mode in ("reflect", "symmetric"):
            return gather_point(array, [_mirrored(s, n, mode) for s, n in zip(sources, sizes)], None, None)
        gather_mode = {"edge": "clip", "wrap": "wrap", "constant": "fill"}[mode]
        return gather_point(array, sources, gather_mode, constant_values if mode == "constant" else None)

    ranges = [iota(n + (before + after)) for n, (before, after) in zip(sizes, widths)]  # sizes known outside

    def build(positions: list[Scalar]) -> Array:
        last = len(positions) == array.rank - 1
        return map_(lambda i: element([*positions, i]) if last else build([*positions, i]), ranges[len(positions)])

    return build([])
