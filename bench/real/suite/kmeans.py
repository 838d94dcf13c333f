"""One step of k-means clustering (Rodinia's kmeans, Futhark's kmeans benchmark): each point's nearest centre,
then each centre moves to the mean of its points. The sums are a map over coordinates of 1-D histograms
(`kmeans`), or, in Futhark's form, one histogram whose bins are rows (`kmeans_rows`: `reduce_by_index` of the
points with `map2 (+)`, issue 33)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program, bincount


def kmeans(points, centres):
    k = centres.shape[0]

    def nearest(p):
        distances = sl.map(lambda c: sl.sum((p - c) * (p - c)), centres)
        closer = lambda a, b: sl.cond(b[1] < a[1], lambda: b, lambda: a)  # noqa: E731
        best, _ = sl.reduce(closer, (sl.i32(0), sl.f32(math.inf)), sl.iota(k, dtype=sl.i32), distances)
        return best

    assignment = sl.map(nearest, points)
    add = lambda a, b: a + b  # noqa: E731
    counts = sl.hist(sl.replicate(k, sl.i32(0)), add, 0, assignment, sl.replicate(points.shape[0], sl.i32(1)))
    sums = sl.map(lambda coordinate: sl.hist(sl.replicate(k, sl.f32(0)), add, 0.0, assignment, coordinate), points.T)
    return sl.map(lambda row, count: row / sl.f32(sl.maximum(count, 1)), sums.T, counts)


def kmeans_rows(points, centres):
    k, d = centres.shape[0], centres.shape[1]

    def nearest(p):
        distances = sl.map(lambda c: sl.sum((p - c) * (p - c)), centres)
        closer = lambda a, b: sl.cond(b[1] < a[1], lambda: b, lambda: a)  # noqa: E731
        best, _ = sl.reduce(closer, (sl.i32(0), sl.f32(math.inf)), sl.iota(k, dtype=sl.i32), distances)
        return best

    assignment = sl.map(nearest, points)
    add = lambda a, b: a + b  # noqa: E731
    counts = sl.hist(sl.replicate(k, sl.i32(0)), add, 0, assignment, sl.replicate(points.shape[0], sl.i32(1)))
    sums = sl.hist(sl.replicate(k, sl.replicate(d, sl.f32(0))), add, sl.f32(0), assignment, points)
    return sl.map(lambda row, count: row / sl.f32(sl.maximum(count, 1)), sums, counts)


def assign(xp: Any, points: Any, centres: Any) -> Any:
    distances = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    return distances.argmin(axis=1)


def means(xp: Any, points: Any, assignment: Any, k: int) -> Any:
    counts = bincount(xp, assignment, k)
    sums = xp.stack([bincount(xp, assignment, k, points[:, j]) for j in range(points.shape[1])], axis=1)
    return (sums / xp.maximum(counts, 1)[:, None]).astype(np.float32)


def peer(xp: Any):
    def step(points, centres):
        return means(xp, points, assign(xp, points, centres), centres.shape[0])

    return step


def reference(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The peer's step on numpy, 65536 points at a time (the distances of 2M points to 16 centres are 1 GiB)."""
    parts = [assign(np, points[lo : lo + 65536], centres) for lo in range(0, len(points), 65536)]
    assignment = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return means(np, points.astype(np.float64), assignment, len(centres))


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    points = rng.random((size["n"], size["d"]), dtype=np.float32)
    return points, points[rng.choice(size["n"], size["k"], replace=False)].copy()


PROGRAM = Program(
    "kmeans",
    "Rodinia kmeans, Futhark benchmarks (kmeans): one step, nearest centres then new means",
    kmeans,
    reference,
    inputs,
    {"gpu": {"n": 2_000_000, "d": 8, "k": 16}, "small": {"n": 5000, "d": 8, "k": 16}},
    peer,
    rtol=1e-3,
    failed_forms=(
        (
            "the sums as a reduce of one-hot rows: sl.reduce(lambda x, y: x + y, "
            "sl.replicate(k, sl.replicate(d, sl.f32(0))), sl.map(one_hot_row, assignment, points))",
            "LoweringError 'soac.redomap' ...: its operator combines arrays "
            " (tensor<?x?xf32>), which no kernel does outside a lambda; ...",
        ),
    ),
)

PROGRAM_ROWS = Program(
    "kmeans_rows",
    "kmeans in Futhark's form: the sums as reduce_by_index over rows (a histogram of rows of d coordinates)",
    kmeans_rows,
    reference,
    inputs,
    PROGRAM.sizes,
    peer,
    rtol=1e-3,
)
