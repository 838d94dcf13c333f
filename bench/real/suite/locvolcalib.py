"""A LocVolCalib-like nest (FinPar's LocVolCalib, in Futhark's benchmarks; examples/locvolcalib.mlir): a time loop
around a map over rows whose lambda runs a scan of affine maps (the forward sweep of a bidiagonal solve) and a
running-maximum scan that normalises the row."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program, fori, is_jax


def locvolcalib(grid, a, steps):
    def row(r):
        compose = lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1])  # noqa: E731
        _, ys = sl.scan(compose, (sl.f32(1), sl.f32(0)), a, r)
        peaks = sl.scan(sl.maximum, sl.f32(1), abs(ys))
        return ys / peaks

    return sl.loop(steps, grid, lambda _, u: sl.map(row, u))


def peer(xp: Any):
    if not is_jax(xp):
        return None  # the recurrence is a loop over columns in numpy and CuPy: the reference, not a peer
    from jax import lax

    def locvolcalib(grid, a, steps):
        def step(_, u):
            compose = lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1])  # noqa: E731
            _, ys = lax.associative_scan(compose, (xp.broadcast_to(a, u.shape), u), axis=1)
            return ys / lax.cummax(xp.maximum(np.float32(1), xp.abs(ys)), axis=1)

        return fori(xp, steps, step, grid)

    return locvolcalib


def reference(grid: np.ndarray, a: np.ndarray, steps: int) -> np.ndarray:
    u = grid.copy()
    for _ in range(int(steps)):
        ys = np.empty_like(u)
        ys[:, 0] = u[:, 0]
        for j in range(1, u.shape[1]):
            ys[:, j] = u[:, j] + a[j] * ys[:, j - 1]
        u = ys / np.maximum.accumulate(np.maximum(np.float32(1), np.abs(ys)), axis=1)
    return u


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    grid = rng.standard_normal((size["rows"], size["cols"]), dtype=np.float32)
    return grid, rng.uniform(-1, 1, size["cols"]).astype(np.float32), np.int64(size["steps"])


PROGRAM = Program(
    "locvolcalib",
    "FinPar LocVolCalib (Futhark benchmarks), as examples/locvolcalib.mlir: a time loop of row-wise scans",
    locvolcalib,
    reference,
    inputs,
    {"gpu": {"rows": 4096, "cols": 256, "steps": 16}, "small": {"rows": 64, "cols": 50, "steps": 3}},
    peer,
    static=(2,),
    rtol=1e-4,
)
