"""Row softmax and log-sum-exp, as in a transformer's attention (JAX's `jax.nn.softmax`, `logsumexp`): a map over
rows of two reductions and an element-wise map."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program


def softmax(x):
    def row(r):
        m = sl.max(r)
        e = sl.exp(r - m)
        s = sl.sum(e)
        return e / s, m + sl.log(s)

    return sl.map(row, x)


def peer(xp: Any):
    def softmax(x):
        m = x.max(axis=1, keepdims=True)
        e = xp.exp(x - m)
        s = e.sum(axis=1, keepdims=True)
        return e / s, (m + xp.log(s))[:, 0]

    return softmax


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    return (rng.standard_normal((size["rows"], size["cols"]), dtype=np.float32),)


PROGRAM = Program(
    "softmax",
    "JAX (jax.nn.softmax, logsumexp), Futhark's attention-style benchmarks: row softmax + logsumexp",
    softmax,
    peer(np),
    inputs,
    {"gpu": {"rows": 65536, "cols": 1024}, "small": {"rows": 300, "cols": 257}},
    peer,
)
