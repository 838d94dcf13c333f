"""The chunked (CPU) reduction folds a floating-point chunk in blocks (`chunked_scan.fold_blocked`), so its rounding
error grows with the block and the number of blocks, not with the chunk's length; integer reductions and the
operator's order are unchanged."""

from __future__ import annotations

import numpy as np
import soac.lang as sl


def test_a_long_f32_sum_stays_close_to_the_exact_sum() -> None:
    total = sl.jit(lambda xs: sl.reduce(lambda a, b: a + b, 0.0, xs), backend="opencl", lowering={"target": "cpu"})
    xs = np.random.default_rng(20).random(1 << 20, dtype=np.float32)
    exact = float(xs.astype(np.float64).sum())
    assert abs(float(total(xs)) - exact) / exact < 2e-7  # serially: 1.1e-6


def test_a_non_commutative_reduction_keeps_its_order() -> None:
    """Composing affine maps x -> a x + b in order: blocks fold from the neutral element, then in order."""

    def compose(p, q):
        (a1, b1), (a2, b2) = p, q
        return a1 * a2, b1 * a2 + b2

    fn = sl.jit(lambda a, b: sl.reduce(compose, (1.0, 0.0), a, b), backend="opencl", lowering={"target": "cpu"})
    rng = np.random.default_rng(3)
    n = 5000
    a = (1 + rng.standard_normal(n) * 1e-3).astype(np.float64)
    b = rng.standard_normal(n).astype(np.float64)
    want_a, want_b = 1.0, 0.0
    for x, y in zip(a, b):
        want_a, want_b = want_a * x, want_b * x + y
    got_a, got_b = fn(a, b)
    np.testing.assert_allclose([float(got_a), float(got_b)], [want_a, want_b], rtol=1e-9)


def test_integer_sums_are_exact() -> None:
    total = sl.jit(lambda xs: sl.reduce(lambda a, b: a + b, 0, xs), backend="opencl", lowering={"target": "cpu"})
    xs = np.random.default_rng(4).integers(-1000, 1000, 100_003).astype(np.int64)
    assert int(total(xs)) == int(xs.sum())
