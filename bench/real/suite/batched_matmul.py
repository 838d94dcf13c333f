"""Many small matrix products (a batch of 16 x 16 matmuls, as in Futhark's and JAX's batched `matmul`): a map over
the batch of a map over rows of a map over columns of a dot product."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program, is_jax


def batched_matmul(a, b):
    def matmul(x, y):
        return sl.map(lambda row: sl.map(lambda col: sl.sum(row * col), y.T), x)

    return sl.map(matmul, a, b)


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
