"""Rodinia's pathfinder: the cheapest path down a grid, moving at most one column per row (dynamic programming: a
loop over rows of a map over columns reading three neighbours of the previous row)."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program, fori


def pathfinder(wall):
    cols = wall.shape[1]

    def step(t, previous):
        def cheapest(j):
            left = previous[sl.maximum(j - 1, 0)]
            right = previous[sl.minimum(j + 1, cols - 1)]
            return wall[t + 1, j] + sl.minimum(previous[j], sl.minimum(left, right))

        return sl.map(cheapest, sl.iota(cols))

    return sl.loop(wall.shape[0] - 1, wall[0], step)


def peer(xp: Any):
    def pathfinder(wall):
        def step(t, previous):
            left = xp.concatenate([previous[:1], previous[:-1]])
            right = xp.concatenate([previous[1:], previous[-1:]])
            return wall[t + 1] + xp.minimum(previous, xp.minimum(left, right))

        return fori(xp, wall.shape[0] - 1, step, wall[0])

    return pathfinder


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    return (rng.integers(0, 10, (size["rows"], size["cols"])).astype(np.int32),)


PROGRAM = Program(
    "pathfinder",
    "Rodinia pathfinder: dynamic programming over rows",
    pathfinder,
    peer(np),
    inputs,
    {"gpu": {"rows": 100, "cols": 1_000_000}, "small": {"rows": 20, "cols": 5000}},
    peer,
)
