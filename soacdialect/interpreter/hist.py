"""`soac.hist`: the generalised histogram, vectorised over the rows and the lanes.

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
from soac.interpreter.frame import Frame
from soac.interpreter.indexing import grids
from soac.interpreter.registry import implements
from soac.interpreter.soac_ops import full, rows, run_lambda, width
from soac.interpreter.values import Val, own


@implements("soac.hist")
def hist(interp: SoacInterpreter, frame: Frame, op: soac.HistOp) -> list[Val]:
    n = width(frame, op, op.inputs)
    ys = run_lambda(interp, frame, op.body, rows(frame, op, op.inputs, n), (n,))
    batch, rank = frame.batch, frame.rank
    index, *values = full(frame, ys, (n,))
    index = index.astype(np.int64)
    outs = [own(frame.lookup(d), batch, rank)[0] for d in op.dests]
    bins = outs[0].shape[rank]
    inside = (index >= 0) & (index < bins)
    lanes = [np.broadcast_to(g, index.shape) for g in grids((*batch, n), rank, rank + 1)]
    if (names := recognise(interp, op.combine)) is not None:
        where = (*(g[inside] for g in lanes), index[inside])
        for name, out, value in zip(names, outs, values):
            ufunc, data, _ = _ufunc(name, value)
            ufunc.at(out.view(data.dtype), where, data[inside])
    elif n and bins and inside.any():
        _combine_by_bin(interp, frame, op, outs, lanes, np.where(inside, index, bins), values)
    return [(out, rank) for out in outs]


def _combine_by_bin(
    interp: SoacInterpreter,
    frame: Frame,
    op: soac.HistOp,
    outs: list[np.ndarray],
    lanes: list[np.ndarray],
    key: np.ndarray,
    values: list[np.ndarray],
) -> None:
    """`out[bin] = combine(out[bin], combine of the rows of bin)` for every bin that has rows (key < bins)."""
    batch, rank, n, bins = frame.batch, frame.rank, key.shape[-1], outs[0].shape[-1]
    order = np.argsort(key, axis=-1, kind="stable")
    key = np.take_along_axis(key, order, axis=-1)
    values = [np.take_along_axis(v, order, axis=-1) for v in values]
    step = 1
    while step < n:
        same = key[..., step:] == key[..., : n - step]
        args = [(v[..., : n - step], rank + 1) for v in values] + [(v[..., step:], rank + 1) for v in values]
        combined = apply(interp, frame, op.combine, args, (*batch, n - step))
        values = [np.concatenate([v[..., :step], np.where(same, c, v[..., step:])], axis=-1) for v, c in zip(values, combined)]
        step *= 2
    last = np.ones(key.shape, np.bool_)
    last[..., :-1] = key[..., 1:] != key[..., :-1]
    last &= key < bins
    at = (*lanes, np.minimum(key, bins - 1))
    current = [(out[at], rank + 1) for out in outs]
    totals = apply(interp, frame, op.combine, [*current, *((v, rank + 1) for v in values)], (*batch, n))
    where = (*(g[last] for g in lanes), key[last])
    for out, total in zip(outs, totals):
        out[where] = total[last]
