"""Sparse matrix-vector product of a CSR matrix (Accelerate's SMVM, Futhark's spmv, cuSPARSE's csrmv): a map over
rows of a dot product of the row's slice of values with the gathered vector."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program, bincount


def spmv(offsets, columns, values, x):
    def row(start, end):
        return sl.sum(sl.map(lambda v, c: v * x[c], values[start:end], columns[start:end]))

    return sl.map(row, offsets[:-1], offsets[1:])


def peer(xp: Any):
    def spmv(offsets, columns, values, x):
        rows = xp.searchsorted(offsets, xp.arange(values.shape[0]), side="right") - 1
        return bincount(xp, rows, offsets.shape[0] - 1, values * x[columns]).astype(np.float32)

    return spmv


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    rows, longest = size["rows"], size["longest"]
    offsets = np.concatenate([[0], np.cumsum(rng.integers(0, longest + 1, rows))]).astype(np.int64)
    nnz = int(offsets[-1])
    columns = rng.integers(0, size["cols"], nnz).astype(np.int32)
    return offsets, columns, rng.standard_normal(nnz, dtype=np.float32), rng.standard_normal(size["cols"], dtype=np.float32)


PROGRAM = Program(
    "spmv",
    "Accelerate examples (SMVM), Futhark benchmarks (spmv): CSR sparse matrix times vector",
    spmv,
    lambda offsets, columns, values, x: peer(np)(offsets, columns, values.astype(np.float64), x),
    inputs,
    {"gpu": {"rows": 1_000_000, "cols": 1_000_000, "longest": 32}, "small": {"rows": 2000, "cols": 3000, "longest": 20}},
    peer,
    rtol=1e-4,
    failed_forms=(
        (
            "a row as a sum over an iota of its length: "
            "sl.sum(sl.map(lambda k: values[start + k] * x[columns[start + k]], sl.iota(end - start)))",
            "LoweringError 'soac.iota' ...: the size of an array built inside a kernel must be known before the launch, "
            "but it depends on the element a work-item handles (an irregular array); ...",
        ),
    ),
)
