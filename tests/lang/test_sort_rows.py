"""`sl.map` of a function that partitions or sorts its row, through soac-flatten's segmented partitions
(`passes/flatten_partition.py`), against numpy on OpenCL (PoCL)."""

from __future__ import annotations

import numpy as np
import soac.lang as sl
from soac.context import make_context
from soac.dialect import PartitionOp, SegmapOp
from soac.parsing import parse_module


def test_partitions_and_sorts_of_rows_are_flattened():
    """`sl.map` of a function that partitions or sorts its row: soac-flatten makes partitions of the whole flat array
    by (row, bucket) (`passes/flatten_partition.py`), beside a partition per work-item for many rows. Against numpy,
    on OpenCL, the segmented version: no
    rows, one row, empty rows, rows around the tile, rows enough for two digit passes of the row id."""

    segmented = {"suff_outer_par_0": 2**62}  # not a partition per thread (PoCL's default for 2 rows or more)

    @sl.jit(backend="opencl", thresholds=segmented)
    def by_remainder(xss):
        return sl.map(lambda row: sl.partition(3, lambda x: x % 4, row), xss)

    @sl.jit(backend="opencl", thresholds=segmented)
    def sort_rows(xss):
        return sl.map(sl.sort, xss)

    rng = np.random.default_rng(11)
    for m, n in [(0, 4), (1, 0), (1, 1), (3, 4097), (300, 5)]:
        xss = rng.integers(-50, 50, (m, n)).astype(np.int32)
        counts, moved = by_remainder(xss)
        buckets = np.mod(xss, 4)  # numpy's % as Python's: 3 is outside the 3 buckets
        order = np.argsort(np.where(buckets < 3, buckets, 3), axis=1, kind="stable")
        np.testing.assert_array_equal(moved, np.take_along_axis(xss, order, axis=1))
        np.testing.assert_array_equal(
            counts, np.stack([np.count_nonzero(buckets == b, axis=1) for b in range(3)], -1).reshape(m, 3)
        )
        np.testing.assert_array_equal(sort_rows(xss), np.sort(xss, axis=1))
    for function in (by_remainder, sort_rows):
        flat = parse_module(make_context(), function.ir(optimized=True), "flat.mlir")
        per_thread = {p for op in flat.walk() if isinstance(op, SegmapOp) for p in op.walk() if isinstance(p, PartitionOp)}
        assert [op for op in flat.walk() if isinstance(op, PartitionOp) and op not in per_thread]
