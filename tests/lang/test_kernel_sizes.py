"""Programs whose arrays inside a kernel have sizes known before the launch only through what they are built from
(issue 30): on PoCL they give the interpreter's results and numpy's."""

from __future__ import annotations

import numpy as np
import pytest
import soac.lang as sl
from soac.interpreter import SoacRuntimeError

SIZES = [(1, 1), (7, 5), (40, 3), (3, 0)]


def both_backends(fn, *args):
    """`fn`'s results on OpenCL, after checking that they are the interpreter's."""
    got = sl.jit(fn)(*args)
    want = sl.jit(fn, backend="interp")(*args)
    for g, w in zip(got if isinstance(got, tuple) else [got], want if isinstance(want, tuple) else [want]):
        np.testing.assert_array_equal(g, w)
    return got


def branch_on_each(bs, xs):
    return sl.map(lambda b: sl.cond(b, lambda: sl.map(lambda a: a + 1, xs), lambda: xs), bs)


def loop_in_branch(bs, xs):
    step = lambda i, acc: sl.map(lambda a: a * 2 - i.astype(sl.i32), acc)  # noqa: E731
    return sl.map(lambda b: sl.cond(b, lambda: xs, lambda: sl.loop(3, xs, step)), bs)


@pytest.mark.parametrize(("n", "m"), SIZES)
def test_a_branch_yields_an_outside_array_or_a_map_of_it(n: int, m: int) -> None:
    rng = np.random.default_rng(n * 100 + m)
    bs, xs = rng.random(n) < 0.5, rng.integers(-99, 99, m).astype(np.int32)
    got = both_backends(branch_on_each, bs, xs)
    np.testing.assert_array_equal(got, np.where(bs[:, None], xs + 1, xs))


@pytest.mark.parametrize(("n", "m"), SIZES)
def test_a_branch_yields_a_loop_that_keeps_its_array_size(n: int, m: int) -> None:
    rng = np.random.default_rng(n * 100 + m + 1)
    bs, xs = rng.random(n) < 0.5, rng.integers(-99, 99, m).astype(np.int32)
    stepped = xs.copy()
    for i in range(3):
        stepped = stepped * 2 - i
    got = both_backends(loop_in_branch, bs, xs)
    np.testing.assert_array_equal(got, np.where(bs[:, None], xs, stepped))


def sums_of_iotas(a):
    return sl.map(lambda i: sl.sum(sl.iota(i, dtype=sl.i32)), a)


def sums_of_squares(a):
    return sl.map(lambda i: sl.sum(sl.map(lambda j: j * j, sl.iota(i))), a)


def triangle_rows(a, ws):
    """Per element `i` and weight `w`: the largest of `i` copies of `w` (or -1), and `sum (map (* w) (iota i))`."""
    tops = sl.map(lambda i, w: sl.max(sl.replicate(i, w) * 1), a, ws)
    weighted = sl.map(lambda i, w: sl.sum(sl.map(lambda j: sl.f32(j) * w, sl.iota(i))), a, ws)
    return tops, weighted


@pytest.mark.parametrize("n", [1, 6, 50, 0])
def test_reductions_over_iotas_of_each_elements_size(n: int) -> None:
    a = np.random.default_rng(n).integers(0, 40, n).astype(np.int64)
    np.testing.assert_array_equal(both_backends(sums_of_iotas, a), (a * (a - 1) // 2).astype(np.int32))
    np.testing.assert_array_equal(both_backends(sums_of_squares, a), (a - 1) * a * (2 * a - 1) // 6)


@pytest.mark.parametrize("n", [1, 6, 50])
def test_reductions_over_replicates_and_maps_of_iotas(n: int) -> None:
    rng = np.random.default_rng(n + 1)
    a, ws = rng.integers(1, 30, n).astype(np.int64), rng.random(n, np.float32)
    tops, weighted = sl.jit(triangle_rows)(a, ws)
    want_tops, want_weighted = sl.jit(triangle_rows, backend="interp")(a, ws)
    np.testing.assert_array_equal(tops, want_tops)
    np.testing.assert_allclose(weighted, want_weighted, rtol=1e-5)
    np.testing.assert_array_equal(tops, ws)
    np.testing.assert_allclose(weighted, ws * (a * (a - 1) / 2), rtol=1e-4)


def test_a_negative_iota_size_fails_as_on_the_interpreter() -> None:
    a = np.array([4, -3, 2], np.int64)
    message = r"test_kernel_sizes.py:\d+:\d+: 'soac.iota': negative size -3"
    with pytest.raises(SoacRuntimeError, match=message):
        sl.jit(sums_of_iotas, backend="interp")(a)
    with pytest.raises(SoacRuntimeError, match=message):
        sl.jit(sums_of_iotas)(a)
