"""A scanomap's post lambda reads values its pre-lambda computed (issue 30): `map f -> scan -> map2 g` over the scan
and f's results, written as a soac.lang user writes it, fuses into one scanomap whose lambda forwards f's values to
the post lambda; the results match numpy on the interpreter and on OpenCL (PoCL)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import soac.lang as sl

BACKENDS = ["interp", "opencl"]
RNG = np.random.default_rng(302)


def exclusive_sums(xs):
    ys = sl.map(lambda x: 3 * x + 1, xs)
    sums = sl.scan(lambda a, b: a + b, 0, ys)
    return sl.map(lambda s, y: s - y, sums, ys)


def running_max_gap(xs):
    ys = sl.map(lambda x: x * x - 2 * x, xs)
    peaks = sl.scan(lambda a, b: sl.maximum(a, b), -1e30, ys)
    return sl.map(lambda p, y, x: (p - y) * x, peaks, ys, xs)


def forwarded_rows(xs):
    def powers(x):
        return sl.loop(3, sl.replicate(4, x), lambda i, acc: sl.map(lambda a: a * x + sl.i64(i), acc))

    rows = sl.map(powers, xs)
    firsts = sl.map(lambda r: r[0], rows)
    sums = sl.scan(lambda a, b: a + b, 0, firsts)
    return sl.map(lambda s, r: s + sl.sum(r), sums, rows)


def numpy_forwarded_rows(xs: np.ndarray) -> np.ndarray:
    rows = np.repeat(xs[:, None], 4, axis=1)
    for i in range(3):
        rows = rows * xs[:, None] + i
    return np.cumsum(rows[:, 0]) + rows.sum(1)


XS = RNG.integers(-20, 20, 37).astype(np.int64)
FS = RNG.random(29, dtype=np.float32)
SMALL = RNG.integers(-5, 5, 23).astype(np.int64)

CASES: dict[str, tuple[Callable[..., Any], Any, Any]] = {
    "exclusive sums": (exclusive_sums, XS, np.cumsum(3 * XS + 1) - (3 * XS + 1)),
    "running max gap": (running_max_gap, FS, (np.maximum.accumulate(FS * FS - 2 * FS) - (FS * FS - 2 * FS)) * FS),
    "forwarded rows": (forwarded_rows, SMALL, numpy_forwarded_rows(SMALL)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_map_scan_map2_matches_numpy(name: str, backend: str) -> None:
    f, xs, expected = CASES[name]
    np.testing.assert_allclose(sl.jit(f, backend=backend)(xs), expected, rtol=1e-5)


@pytest.mark.parametrize("name", list(CASES))
def test_map_scan_map2_is_one_scanomap(name: str) -> None:
    f, xs, _ = CASES[name]
    optimized = sl.jit(f, backend="interp").ir(xs, optimized=True)
    top = [line for line in optimized.splitlines() if line.startswith("    %") and "= soac." in line]
    assert len(top) == 1, optimized
    assert "soac.scanomap" in top[0], optimized
    assert "soac.scan " not in optimized, optimized
