"""Reading and writing array elements or rows with (possibly per-lane) indices."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from soac.interpreter.errors import fail
from soac.interpreter.frame import Frame
from soac.interpreter.values import Val, align, expand, own
from xdsl.ir import Operation


def grids(batch: tuple[int, ...], count: int, ndim: int) -> list[np.ndarray]:
    """Open index grids over the first `count` dimensions of `batch`, each with `ndim` dimensions."""
    return [np.arange(batch[i]).reshape((1,) * i + (batch[i],) + (1,) * (ndim - i - 1)) for i in range(count)]


def check_bounds(op: Operation, indices: Sequence[Val], shape: tuple[int, ...], what: str = "dimension") -> None:
    for j, (arr, _) in enumerate(indices):
        bad = (arr < 0) | (arr >= shape[j])
        if np.any(bad):
            raise fail(op, f"index {int(np.asarray(arr)[bad].flat[0])} is out of bounds for {what} {j} of size {shape[j]}")


def gather(frame: Frame, op: Operation, array: Val, indices: Sequence[Val]) -> Val:
    """`array[indices...]` in every lane (an element, or a row when fewer indices than dimensions)."""
    arr, ra = array
    check_bounds(op, indices, arr.shape[ra:])
    rank = max([ra, *(r for _, r in indices)])
    if rank == 0:
        return np.asarray(arr[tuple(int(i) for i, _ in indices)]), 0
    index = [align(i, r, rank) for i, r in indices]
    if ra == 0:
        return np.asarray(arr[tuple(index)]), rank
    full = expand(array, frame.batch, rank)
    return np.asarray(full[(*grids(frame.batch, rank, rank), *index)]), rank


def update(frame: Frame, op: Operation, array: Val, indices: Sequence[Val], value: Val) -> Val:
    """A copy of `array` with `array[indices...] = value` in every lane."""
    rank = max([array[1], value[1], *(r for _, r in indices)])
    out, _ = own(array, frame.batch, rank)
    shape = out.shape[rank:]
    check_bounds(op, indices, shape)
    varr, vrank = value
    if varr.shape[vrank:] != shape[len(indices) :]:
        raise fail(op, f"a value of shape {varr.shape[vrank:]} does not fit a row of shape {shape[len(indices) :]}")
    if rank == 0:
        out[tuple(int(i) for i, _ in indices)] = varr
    else:
        out[(*grids(frame.batch, rank, rank), *(align(i, r, rank) for i, r in indices))] = align(varr, vrank, rank)
    return out, rank
