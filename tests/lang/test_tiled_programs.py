"""Block tiling in soac.lang (issue 27): programs whose nests read invariant arrays, through the pipeline soac.lang
takes on GPUs (`TILED_PIPELINE`), lowered for the `generic` target (local-memory tiles) on PoCL, against numpy.

Sizes are awkward for the tiles (block 16, 2 bodies per work-item, chunks of 8, or the defaults: 128, 2, 128):
1, primes, chunk and block and 2 blocks plus and minus one. Every version soac-flatten makes is forced; both are
tiled. f32, f64 and i32, tuple accumulators, 1-D and 2-D index spaces, a 2-D array read by rows.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soac.lang as sl
from soac.passes import TILED_PIPELINE
from soac.passes.thresholds import MAX_THRESHOLD

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "real"))
from suite.nbody import EPSILON, nbody  # pyright: ignore[reportMissingImports]
from suite.nbody import inputs as nbody_inputs  # pyright: ignore[reportMissingImports]

GENERIC = {"target": "generic"}
SMALL = {"block": 16, "reg": 2, "chunk": 8}
AWKWARD = [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 61]
OUTER = "suff_outer_par_0"
VERSIONS = [{OUTER: 0}, {OUTER: MAX_THRESHOLD}]
"""The outer-parallel version (a work-item per body) and the fully flattened one (the segred over all pairs)."""


def tile_sizes(count: int, rank: int, sizes: dict[str, int]) -> dict[str, int]:
    """The tile sizes of `count` tiled ops of one rank as tuning parameters."""
    named: dict[str, int] = {}
    for t in range(count):
        named[f"tile_{t}_chunk"] = sizes["chunk"]
        for d in range(rank):
            named[f"tile_{t}_block_{d}"] = sizes["block"]
            named[f"tile_{t}_reg_{d}"] = sizes["reg"]
    return named


def run_every_version(f: Any, args: tuple[Any, ...], tiled: int) -> list[tuple[Any, ...]]:
    compiled = f.specialize(*args)
    assert compiled.optimized_text.count("soac.tiled_redomap") == tiled
    results = []
    for version in VERSIONS:
        got = compiled.run(args, version, False)
        results.append(got if isinstance(got, tuple) else (got,))
    return results


def reference(*args: Any) -> tuple[np.ndarray, ...]:
    """The step in numpy, in the inputs' precision (its softening constant too)."""
    xs, ys, zs, ms, vx, vy, vz, dt = args
    dx, dy, dz = xs[None, :] - xs[:, None], ys[None, :] - ys[:, None], zs[None, :] - zs[:, None]
    r2 = dx * dx + dy * dy + dz * dz + xs.dtype.type(EPSILON)
    s = ms[None, :] / (r2 * np.sqrt(r2))
    vx, vy, vz = vx + (dx * s).sum(1) * dt, vy + (dy * s).sum(1) * dt, vz + (dz * s).sum(1) * dt
    return xs + vx * dt, ys + vy * dt, zs + vz * dt, vx, vy, vz


def nbody_args(n: int, dtype: type) -> tuple[Any, ...]:
    args = nbody_inputs(np.random.default_rng(n), {"n": n})
    return (*(a.astype(dtype) for a in args[:-1]), dtype(args[-1]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nbody_at_awkward_sizes(dtype: type) -> None:
    f = sl.jit(nbody, lowering=GENERIC, pipeline=TILED_PIPELINE, thresholds=tile_sizes(2, 1, SMALL))
    tolerance = 1e-4 if dtype == np.float32 else 1e-12
    for n in AWKWARD:
        args = nbody_args(n, dtype)
        expected = reference(*args)
        for got in run_every_version(f, args, tiled=2):
            for g, e in zip(got, expected):
                assert g.dtype == dtype
                np.testing.assert_allclose(g, e, rtol=tolerance, atol=tolerance, err_msg=f"n = {n}")


@pytest.mark.slow
def test_nbody_at_the_default_tile_sizes() -> None:
    f = sl.jit(nbody, lowering=GENERIC, pipeline=TILED_PIPELINE)
    for n in (127, 128, 129, 257):
        args = nbody_args(n, np.float32)
        expected = reference(*args)
        for got in run_every_version(f, args, tiled=2):
            for g, e in zip(got, expected):
                np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5, err_msg=f"n = {n}")


LOWEST = np.iinfo(np.int32).min


def near(xs: Any, ys: Any, r: Any) -> Any:
    """For each x: how many ys lie within r of it, the largest of them, and the sum of their squared distances."""

    def around(x: Any) -> Any:
        def close(y: Any) -> Any:
            d = y - x
            inside = d * d <= r
            return sl.where(inside, 1, 0), sl.where(inside, y, LOWEST), sl.where(inside, d * d, 0)

        both = lambda a, b: (a[0] + b[0], sl.maximum(a[1], b[1]), a[2] + b[2])  # noqa: E731
        return sl.reduce(both, (0, LOWEST, 0), *sl.map(close, ys))

    return sl.map(around, xs)


def near_by_hand(xs: np.ndarray, ys: np.ndarray, r: int) -> tuple[np.ndarray, ...]:
    d = ys[None, :].astype(np.int64) - xs[:, None]
    inside = d * d <= r
    count = inside.sum(1).astype(np.int32)
    top = np.where(inside, ys[None, :], LOWEST).max(1, initial=LOWEST).astype(np.int32)
    return count, top, np.where(inside, d * d, 0).sum(1).astype(np.int32)


def test_i32_triple_accumulator_over_an_invariant_array() -> None:
    """Two arrays (the bodies and the points they count), a 3-tuple of sum, maximum and sum: exact."""
    f = sl.jit(near, lowering=GENERIC, pipeline=TILED_PIPELINE, thresholds=tile_sizes(2, 1, SMALL))
    rng = np.random.default_rng(5)
    for n, m in [(1, 1), (7, 9), (16, 8), (17, 33), (33, 16), (5, 0)]:
        xs, ys = rng.integers(-20, 20, n).astype(np.int32), rng.integers(-20, 20, m).astype(np.int32)
        expected = near_by_hand(xs, ys, 25)
        for got in run_every_version(f, (xs, ys, np.int32(25)), tiled=2):
            for g, e in zip(got, expected):
                np.testing.assert_array_equal(g, e, err_msg=f"n = {n}, m = {m}")


def weighted_rows(a: Any, w: Any) -> Any:
    """Rows of a 2-D array against a shared vector: the dot product and the largest product of each row."""

    def row(xs: Any) -> Any:
        both = lambda p, q: (p[0] + q[0], sl.maximum(p[1], q[1]))  # noqa: E731
        return sl.reduce(both, (0, LOWEST), *sl.map(lambda x, v: (x * v, x * v), xs, w))

    return sl.map(row, a)


def test_rows_of_a_2d_array_against_a_shared_vector() -> None:
    f = sl.jit(weighted_rows, lowering=GENERIC, pipeline=TILED_PIPELINE, thresholds=tile_sizes(1, 1, SMALL))
    rng = np.random.default_rng(6)
    for n, k in [(1, 1), (9, 8), (16, 17), (31, 7)]:
        a, w = rng.integers(-9, 9, (n, k)).astype(np.int32), rng.integers(-9, 9, k).astype(np.int32)
        products = a * w[None, :]
        expected = (products.sum(1).astype(np.int32), products.max(1))
        for got in run_every_version(f, (a, w), tiled=1):  # the segred version reads rows alone: not tiled
            for g, e in zip(got, expected):
                np.testing.assert_array_equal(g, e, err_msg=f"{n} x {k}")


def products(a: Any, bt: Any) -> Any:
    """A 2-D index space with a tuple: each row of a against each row of bt, the dot product and its largest term."""

    def row(xs: Any) -> Any:
        def column(ys: Any) -> Any:
            both = lambda p, q: (p[0] + q[0], sl.maximum(p[1], q[1]))  # noqa: E731
            return sl.reduce(both, (0.0, -np.inf), *sl.map(lambda x, y: (x * y, x * y), xs, ys))

        return sl.map(column, bt)

    return sl.map(row, a)


@pytest.mark.slow
def test_two_dimensional_index_space_with_a_tuple() -> None:
    sizes = {"block": 8, "reg": 2, "chunk": 4}
    f = sl.jit(products, lowering=GENERIC, pipeline=TILED_PIPELINE, thresholds=tile_sizes(1, 2, sizes))
    rng = np.random.default_rng(7)
    for n, k, m in [(1, 1, 1), (9, 5, 7), (8, 8, 8), (17, 3, 9)]:
        a, bt = rng.uniform(-1, 1, (n, k)), rng.uniform(-1, 1, (m, k))
        terms = a[:, None, :] * bt[None, :, :]
        compiled = f.specialize(a, bt)
        assert "soac.tiled_redomap" in compiled.optimized_text
        (dot, top) = compiled.run((a, bt), {}, False)
        np.testing.assert_allclose(dot, terms.sum(2), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(top, terms.max(2))


def potential(x, m, bx, bm, eps):
    """bench/dask_scaling.py's chunk program: bodies of a chunk against all bodies, summed (a redomap outside any
    lambda, split by soac-tile into a tiled segmap and a reduce)."""

    def body(xi, mi):
        return mi * sl.sum(sl.map(lambda xj, mj: mj / sl.sqrt((xi - xj) * (xi - xj) + eps), bx, bm))

    return sl.sum(sl.map(body, x, m))


def latest_pair(x, bx):
    """A non-commutative outer reduction: for each x the count of bx within 2 and the largest such bx, then the last
    x (in order) that has any, with its count."""

    def body(xi):
        inside = lambda xj: sl.where((xj - xi) * (xj - xi) <= 4, 1, 0)  # noqa: E731
        return sl.sum(sl.map(inside, bx)), xi

    later = lambda a, b: (sl.where(b[0] > 0, b[0], a[0]), sl.where(b[0] > 0, b[1], a[1]))  # noqa: E731
    return sl.reduce(later, (0, -1), *sl.map(body, x))


def test_reduced_nests_are_tiled_and_keep_their_order() -> None:
    """The chunk of bodies i against all bodies j, with an outer sum (commutative) or an outer "last with any"
    (not commutative), at awkward sizes: tiled, and equal to numpy."""
    f = sl.jit(potential, lowering=GENERIC, pipeline=TILED_PIPELINE, thresholds=tile_sizes(1, 1, SMALL))
    g = sl.jit(latest_pair, lowering=GENERIC, pipeline=TILED_PIPELINE, thresholds=tile_sizes(1, 1, SMALL))
    rng = np.random.default_rng(11)
    for n, m in [(1, 1), (9, 17), (33, 16), (17, 61), (0, 5)]:
        x, mass = rng.random(n), rng.random(n) + 0.5
        bx, bm = rng.random(m), rng.random(m) + 0.5
        args = (x, mass, bx, bm, 1e-3)
        assert f.specialize(*args).optimized_text.count("soac.tiled_redomap") == 1
        expected = (mass * (bm[None, :] / np.sqrt((x[:, None] - bx[None, :]) ** 2 + 1e-3)).sum(1)).sum()
        np.testing.assert_allclose(f(*args), expected, rtol=1e-12, err_msg=f"n = {n}, m = {m}")
        xi, bxi = rng.integers(-10, 10, n).astype(np.int32), rng.integers(-10, 10, m).astype(np.int32)
        assert g.specialize(xi, bxi).optimized_text.count("soac.tiled_redomap") == 1
        counts = ((bxi[None, :] - xi[:, None]) ** 2 <= 4).sum(1)
        last = np.flatnonzero(counts > 0)
        expected_pair = (counts[last[-1]], xi[last[-1]]) if len(last) else (0, -1)
        assert tuple(int(v) for v in g(xi, bxi)) == expected_pair, f"n = {n}, m = {m}"
