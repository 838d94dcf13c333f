"""Programs whose arrays inside a kernel have sizes known before the launch only through what they are built from
(issue 30): on PoCL they give the interpreter's results and numpy's."""

from __future__ import annotations

import numpy as np
import pytest
import soac.lang as sl

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
