"""Many small matrix products (a batch of 16 x 16 matmuls, as in Futhark's and JAX's batched `matmul`): a map over
the batch of a map over rows of a map over columns of a dot product; `batched_matmul_indexed` is the same written with
indices, `c[q,i,j] = Σ_k a[q,i,k]·b[q,k,j]` (issue 27: both forms reach soac-small-intra's staged version)."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program, is_jax


def batched_matmul(a, b):
    def matmul(x, y):
        return sl.map(lambda row: sl.map(lambda col: sl.sum(row * col), y.T), x)

    return sl.map(matmul, a, b)


def batched_matmul_indexed(a, b):
    q, n, k = a.shape
    m = b.shape[2]
    ks = sl.iota(k)

    def entry(p, i, j):
        return sl.sum(sl.map(lambda s: a[p, i, s] * b[p, s, j], ks))

    return sl.map(lambda p: sl.map(lambda i: sl.map(lambda j: entry(p, i, j), sl.iota(m)), sl.iota(n)), sl.iota(q))


def peer(xp: Any):
    if is_jax(xp):
        return lambda a, b: xp.matmul(a, b, precision="highest")
    return lambda a, b: xp.matmul(a, b)


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    shape = (size["batches"], size["n"], size["n"])
    return rng.standard_normal(shape, dtype=np.float32), rng.standard_normal(shape, dtype=np.float32)


PROGRAM = Program(
    "batched_matmul",
    "Futhark benchmarks / JAX: a batch of small (16 x 16) matrix products",
    batched_matmul,
    lambda a, b: np.matmul(a.astype(np.float64), b).astype(np.float32),
    inputs,
    {"gpu": {"batches": 65536, "n": 16}, "small": {"batches": 300, "n": 16}},
    peer,
    rtol=1e-4,
)

PROGRAM_INDEXED = Program(
    "batched_matmul_indexed",
    "the same, written with indices: c[q,i,j] = sum_k a[q,i,k] b[q,k,j]",
    batched_matmul_indexed,
    lambda a, b: np.matmul(a.astype(np.float64), b).astype(np.float32),
    inputs,
    {"gpu": {"batches": 65536, "n": 16}, "small": {"batches": 300, "n": 16}},
    peer,
    rtol=1e-4,
)
