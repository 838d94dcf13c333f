"""`soac.hist` and `soac.seghist`: the generalised histogram, vectorised over the rows and the lanes (and segments).

An operator of one known op per destination (`arith.addi`, `arith.maxsi`, ...) updates the bins with
numpy's unbuffered `ufunc.at`. Any other operator combines the rows of each bin with a segmented scan
by doubling over the rows sorted by bin (a logarithmic number of operator runs, each over every row),
then each bin's total with the destination's element.
"""

from __future__ import annotations

import numpy as np
from soac import dialect as soac
from soac.interpreter.combine import _ufunc, apply, recognise  # pyright: ignore[reportPrivateUsage]
from soac.interpreter.core import SoacInterpreter
from soac.interpreter.errors import fail
from soac.interpreter.frame import Frame
from soac.interpreter.indexing import grids
from soac.interpreter.registry import implements
from soac.interpreter.soac_ops import full, index_space, rows, run_lambda, sizes, width
from soac.interpreter.values import Val, own
from xdsl.ir import Region


@implements("soac.hist")
def hist(interp: SoacInterpreter, frame: Frame, op: soac.HistOp) -> list[Val]:
    n = width(frame, op, op.inputs)
    ys = run_lambda(interp, frame, op.body, rows(frame, op, op.inputs, n), (n,))
    index, *values = full(frame, ys, (n,))
    outs = [own(frame.lookup(d), frame.batch, frame.rank)[0] for d in op.dests]
    update_bins(interp, frame, op.combine, outs, index, values)
    return [(out, frame.rank) for out in outs]


@implements("soac.seghist")
def seghist(interp: SoacInterpreter, frame: Frame, op: soac.SeghistOp) -> list[Val]:
    """A histogram per segment: the same update as `soac.hist`, on the lanes of `frame` times the segments."""
    extra = tuple(sizes(frame, op, op.dims, "dimension"))
    *segments, n = extra
    ys = run_lambda(interp, frame, op.body, index_space(frame, extra), extra)
    outs = [own(frame.lookup(d), frame.batch, frame.rank)[0] for d in op.dests]
    for k, out in enumerate(outs):
        found = out.shape[frame.rank : frame.rank + len(segments)]
        if found != tuple(segments) or out.shape[-1] != outs[0].shape[-1]:
            raise fail(
                op,
                f"destination #{k} has shape {list(out.shape[frame.rank :])}, expected {segments} segments of "
                f"{outs[0].shape[-1]} bins",
            )
    per_segment = frame.child(tuple(segments))
    index, *values = full(per_segment, ys, (n,))
    update_bins(interp, per_segment, op.combine, outs, index, values)
    return [(out, frame.rank) for out in outs]


def update_bins(
    interp: SoacInterpreter, frame: Frame, combine: Region, outs: list[np.ndarray], index: np.ndarray, values: list[np.ndarray]
) -> None:
    """`outs[lane][index[lane, row]] = combine(that bin, values[lane, row])` for every lane of `frame` and every row
    whose index is inside the bins (the last axis of `outs`, whose leading axes are `frame.batch`)."""
    batch, rank = frame.batch, frame.rank
    n = index.shape[rank]
    index = index.astype(np.int64)
    bins = outs[0].shape[rank]
    inside = (index >= 0) & (index < bins)
    lanes = [np.broadcast_to(g, index.shape) for g in grids((*batch, n), rank, rank + 1)]
    if (names := recognise(interp, combine)) is not None:
        where = (*(g[inside] for g in lanes), index[inside])
        for name, out, value in zip(names, outs, values):
            ufunc, data, _ = _ufunc(name, value)
            ufunc.at(out.view(data.dtype), where, data[inside])
    elif n and bins and inside.any():
        _combine_by_bin(interp, frame, combine, outs, lanes, np.where(inside, index, bins), values)


def _combine_by_bin(
    interp: SoacInterpreter,
    frame: Frame,
    combine: Region,
    outs: list[np.ndarray],
    lanes: list[np.ndarray],
    key: np.ndarray,
    values: list[np.ndarray],
) -> None:
    """`out[bin] = combine(out[bin], combine of the rows of bin)` for every bin that has rows (key < bins). The values
    (and bins) may be rows: their element axes follow the rows' axis `frame.rank`."""
    batch, rank, n, bins = frame.batch, frame.rank, key.shape[-1], outs[0].shape[frame.rank]
    order = np.argsort(key, axis=-1, kind="stable")
    key = np.take_along_axis(key, order, axis=-1)
    values = [np.take_along_axis(v, _like(order, v), axis=rank) for v in values]
    step = 1
    while step < n:
        same = key[..., step:] == key[..., : n - step]
        args = [(_rows(v, slice(None, n - step), rank), rank + 1) for v in values]
        args += [(_rows(v, slice(step, None), rank), rank + 1) for v in values]
        combined = apply(interp, frame, combine, args, (*batch, n - step))
        values = [
            np.concatenate(
                [_rows(v, slice(None, step), rank), np.where(_like(same, v), c, _rows(v, slice(step, None), rank))], axis=rank
            )
            for v, c in zip(values, combined)
        ]
        step *= 2
    last = np.ones(key.shape, np.bool_)
    last[..., :-1] = key[..., 1:] != key[..., :-1]
    last &= key < bins
    at = (*lanes, np.minimum(key, bins - 1))
    current = [(out[at], rank + 1) for out in outs]
    totals = apply(interp, frame, combine, [*current, *((v, rank + 1) for v in values)], (*batch, n))
    where = (*(g[last] for g in lanes), key[last])
    for out, total in zip(outs, totals):
        out[where] = total[last]


def _rows(v: np.ndarray, rows: slice, rank: int) -> np.ndarray:
    """`v[..., rows, <element axes>]`: a slice of the rows' axis `rank`."""
    return v[(slice(None),) * rank + (rows,)]


def _like(a: np.ndarray, v: np.ndarray) -> np.ndarray:
    """`a` (one entry per row) with an axis of length 1 for each element axis of `v`."""
    return a.reshape(a.shape + (1,) * (v.ndim - a.ndim))
