"""Layer normalisation of each row (as in JAX/Flax's `LayerNorm`): mean, variance, then a scaled, shifted row."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program

EPSILON = 1e-5


def layernorm(x, gamma, beta):
    def row(r):
        n = sl.f32(r.shape[0])
        d = r - sl.sum(r) / n
        variance = sl.sum(d * d) / n
        return d / sl.sqrt(variance + EPSILON) * gamma + beta

    return sl.map(row, x)


def peer(xp: Any):
    def layernorm(x, gamma, beta):
        d = x - x.mean(axis=1, keepdims=True)
        variance = (d * d).mean(axis=1, keepdims=True)
        return d / xp.sqrt(variance + np.float32(EPSILON)) * gamma + beta

    return layernorm


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    rows, cols = size["rows"], size["cols"]
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    return x, rng.uniform(0.5, 1.5, cols).astype(np.float32), rng.uniform(-1, 1, cols).astype(np.float32)


PROGRAM = Program(
    "layernorm",
    "JAX/Flax LayerNorm: per-row mean and variance, then an affine map",
    layernorm,
    peer(np),
    inputs,
    {"gpu": {"rows": 65536, "cols": 1024}, "small": {"rows": 300, "cols": 257}},
    peer,
    rtol=1e-3,
)
