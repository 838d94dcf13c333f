"""`soac.partition`: the stable multi-way partition, vectorised over the lanes.

Each row's bucket (rows outside `[0, k)` take bucket `k`, after all others) is the key of a stable argsort along the
rows, which orders every yielded value; the counts are the rows per bucket, `k` of them.
"""

from __future__ import annotations

import numpy as np
from soac import dialect as soac
from soac.interpreter.core import SoacInterpreter
from soac.interpreter.errors import fail
from soac.interpreter.frame import Frame
from soac.interpreter.registry import implements
from soac.interpreter.soac_ops import full, rows, run_lambda, width
from soac.interpreter.values import Val


def stable_order(buckets: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The stable order of the rows (last axis) by bucket, out-of-range buckets last, and the counts of the `k`
    buckets (shape `batch + (k,)`)."""
    key = np.where((buckets >= 0) & (buckets < k), buckets, k).astype(np.int64)
    order = np.argsort(key, axis=-1, kind="stable")
    lanes = int(np.prod(key.shape[:-1], dtype=np.int64))
    flat = key.reshape(lanes, key.shape[-1])
    offsets = (np.arange(lanes, dtype=np.int64) * (k + 1))[:, None]
    counts = np.bincount((flat + offsets).ravel(), minlength=lanes * (k + 1)).reshape(lanes, k + 1)[:, :k]
    return order, counts.reshape((*key.shape[:-1], k)).astype(np.int32)


@implements("soac.partition")
def partition(interp: SoacInterpreter, frame: Frame, op: soac.PartitionOp) -> list[Val]:
    n = width(frame, op, op.inputs)
    ys = run_lambda(interp, frame, op.body, rows(frame, op, op.inputs, n), (n,))
    bucket, *values = full(frame, ys, (n,))
    order, counts = stable_order(np.asarray(bucket), op.bucket_count)
    if op.known is not None:
        known, rank = frame.lookup(op.known)
        given = np.broadcast_to(known, (*frame.batch[:rank], *known.shape[rank:]))
        if given.shape[-1:] != counts.shape[-1:] or not np.array_equal(np.broadcast_to(given, counts.shape), counts):
            shown = np.asarray(given).ravel()[:8].tolist()
            raise fail(op, f"the known bucket counts {shown} differ from the rows' {counts.ravel()[:8].tolist()}")
    moved = [np.take_along_axis(np.asarray(v), order, axis=-1) for v in values]
    return [(counts, frame.rank), *((m, frame.rank) for m in moved)]
