"""Rodinia's nn: the record nearest to a target location (k = 1): a map of distances and an argmin reduction."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program


def nearest(latitude, longitude, target_latitude, target_longitude):
    def distance(a, b):
        return sl.sqrt((a - target_latitude) * (a - target_latitude) + (b - target_longitude) * (b - target_longitude))

    closer = lambda a, b: sl.cond(b[0] < a[0], lambda: b, lambda: a)  # noqa: E731
    distances = sl.map(distance, latitude, longitude)
    indices = sl.iota(latitude.shape[0], dtype=sl.i32)
    return sl.reduce(closer, (sl.f32(math.inf), sl.i32(-1)), distances, indices)


def peer(xp: Any):
    def nearest(latitude, longitude, target_latitude, target_longitude):
        distances = xp.sqrt((latitude - target_latitude) ** 2 + (longitude - target_longitude) ** 2)
        best = xp.argmin(distances)
        return distances[best], best.astype(np.int32)

    return nearest


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    n = size["n"]
    return rng.uniform(0, 90, n).astype(np.float32), rng.uniform(0, 180, n).astype(np.float32), np.float32(30), np.float32(90)


PROGRAM = Program(
    "nearest",
    "Rodinia nn: nearest neighbour of a location (k = 1)",
    nearest,
    peer(np),
    inputs,
    {"gpu": {"n": 10_000_000}, "small": {"n": 30_000}},
    peer,
    rtol=1e-6,
)
