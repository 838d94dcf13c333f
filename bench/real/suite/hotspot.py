"""Rodinia's hotspot: a processor's temperature over time, a 5-point stencil with a power input, clamped at the
edges, in a loop over time steps (a map over rows of a map over columns)."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program, fori

CAP, RX, RY, RZ, AMBIENT = 0.1, 1.0, 1.0, 4.0, 80.0
"""CAP keeps the explicit step stable (every mode of the 5-point operator shrinks), so 100 steps stay finite."""


def hotspot(temperature, power, steps):
    rows, cols = temperature.shape[0], temperature.shape[1]

    def step(_, t):
        def cell(i, j):
            c = t[i, j]
            north, south = t[sl.maximum(i - 1, 0), j], t[sl.minimum(i + 1, rows - 1), j]
            west, east = t[i, sl.maximum(j - 1, 0)], t[i, sl.minimum(j + 1, cols - 1)]
            flow = (north + south - 2.0 * c) / RY + (east + west - 2.0 * c) / RX + (AMBIENT - c) / RZ
            return c + CAP * (power[i, j] + flow)

        return sl.map(lambda i: sl.map(lambda j: cell(i, j), sl.iota(cols)), sl.iota(rows))

    return sl.loop(steps, temperature, step)


def peer(xp: Any):
    f = np.float32

    def hotspot(temperature, power, steps):
        def step(_, t):
            p = xp.pad(t, 1, mode="edge")
            north, south, west, east = p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
            flow = (north + south - f(2) * t) / f(RY) + (east + west - f(2) * t) / f(RX) + (f(AMBIENT) - t) / f(RZ)
            return t + f(CAP) * (power + flow)

        return fori(xp, steps, step, temperature)

    return hotspot


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    shape = (size["rows"], size["cols"])
    return rng.uniform(320, 340, shape).astype(np.float32), rng.random(shape, dtype=np.float32), np.int64(size["steps"])


PROGRAM = Program(
    "hotspot",
    "Rodinia hotspot: a 5-point stencil with clamped edges, iterated",
    hotspot,
    peer(np),
    inputs,
    {"gpu": {"rows": 1024, "cols": 1024, "steps": 100}, "small": {"rows": 64, "cols": 80, "steps": 5}},
    peer,
    static=(2,),
    rtol=1e-5,
)
