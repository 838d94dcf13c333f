"""Matrix-vector product as a map of dot products (Futhark's and Accelerate's `mvmul`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program, is_jax


def matvec(a, v):
    return sl.map(lambda row: sl.sum(row * v), a)


def peer(xp: Any):
    if is_jax(xp):
        return lambda a, v: xp.matmul(a, v, precision="highest")
    return lambda a, v: a @ v


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    rows, cols = size["rows"], size["cols"]
    return rng.standard_normal((rows, cols), dtype=np.float32), rng.standard_normal(cols, dtype=np.float32)


PROGRAM = Program(
    "matvec",
    "Accelerate examples (SMVM's dense cousin), Futhark benchmarks: map of dot products",
    matvec,
    lambda a, v: (a.astype(np.float64) @ v).astype(np.float32),
    inputs,
    {"gpu": {"rows": 65536, "cols": 1024}, "small": {"rows": 500, "cols": 301}},
    peer,
    rtol=1e-4,
)
