"""soac.lang's combinators on PoCL: programs using all of them give the interpreter's results (and numpy's)."""

from __future__ import annotations

import numpy as np
import soac.lang as sl


def everything(m, xs, bins, k):
    """Nested maps and reductions, scan, scatter, hist, iota, replicate, transpose, indexing, slicing, loop, cond,
    while_loop, where and math, in one program (one OpenCL build)."""
    n = xs.shape[0]
    col_sums = sl.map(lambda col: sl.sum(col), m.T)
    normalised = sl.map(lambda row: sl.map(lambda v: v / (sl.sum(row) + 1), row), m)
    prefix = sl.scan(lambda a, b: a + b, 0, sl.map(lambda x: sl.i64(x) * 2, xs))
    positions = sl.map(lambda i: n - 1 - i, sl.iota(n))
    reversed_xs = sl.scatter(sl.replicate(n, sl.i32(0)), positions, xs)
    counts = sl.hist(sl.replicate(k, sl.i32(0)), lambda a, b: a + b, 0, bins, sl.replicate(bins.shape[0], sl.i32(1)))
    tail = xs[1:]
    repeated = sl.loop(3, xs, lambda i, ys: sl.map(lambda y: sl.cond(y > 100, lambda: y, lambda: y * 2), ys))
    halvings = sl.map(lambda x: sl.while_loop(lambda v, c: v > 1, lambda v, c: (v // 2, c + 1), (x, sl.i32(0)))[1], xs)
    roots = sl.map(lambda row: sl.map(lambda v: sl.where(v > 0.5, sl.sqrt(v), -v), row), m)
    return col_sums, normalised, prefix, reversed_xs, counts, tail, repeated, halvings, roots, m[0, 1]


def test_all_combinators_on_opencl_match_the_interpreter_and_numpy() -> None:
    rng = np.random.default_rng(3)
    m = rng.random((6, 4), np.float32)
    xs = rng.integers(1, 300, 50).astype(np.int32)
    bins = rng.integers(-1, 9, 70).astype(np.int64)
    args = (m, xs, bins, 8)
    on_device = sl.jit(everything)(*args)
    interpreted = sl.jit(everything, backend="interp")(*args)
    for got, want in zip(on_device, interpreted):
        np.testing.assert_allclose(got, want, rtol=1e-5)
    col_sums, normalised, prefix, reversed_xs, counts, tail, repeated, halvings, roots, corner = on_device
    np.testing.assert_allclose(col_sums, m.sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(normalised, m / (m.sum(axis=1, keepdims=True) + 1), rtol=1e-5)
    np.testing.assert_array_equal(prefix, np.cumsum(xs.astype(np.int64) * 2))
    np.testing.assert_array_equal(reversed_xs, xs[::-1])
    np.testing.assert_array_equal(counts, np.bincount(bins[(bins >= 0) & (bins < 8)], minlength=8))
    np.testing.assert_array_equal(tail, xs[1:])
    expected = xs.copy()
    for _ in range(3):
        expected = np.where(expected > 100, expected, expected * 2)
    np.testing.assert_array_equal(repeated, expected)
    np.testing.assert_array_equal(halvings, np.floor(np.log2(xs)).astype(np.int32))
    np.testing.assert_allclose(roots, np.where(m > 0.5, np.sqrt(m), -m), rtol=1e-6)
    assert corner == m[0, 1]


def test_programs_without_soacs_on_opencl() -> None:
    """Returning an argument, a size and scalar arithmetic: the runtime lowers such programs too."""
    identity = sl.jit(lambda xs: xs)
    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(identity(xs), xs)
    sizes = sl.jit(lambda xs, a: (xs.shape[1] + 1, a * a + 1))
    assert sizes(xs, np.float32(3)) == (4, 10)


SPECIALS = ([1e17, -1e17, 2.5, -0.7, 0.0, np.inf, np.nan], [3.0, -0.7, 0.0, np.nan])


def test_float_extrema_on_opencl_propagate_nan_as_numpys() -> None:
    """sl.maximum, sl.minimum, sl.max and sl.min give NaN where an operand is NaN (were OpenCL's fmax/fmin, which
    return the other operand)."""

    @sl.jit
    def f(xs, ys):
        return sl.maximum(xs, ys), sl.minimum(xs, ys), sl.max(xs), sl.min(xs)

    x, y = (grid.ravel() for grid in np.meshgrid(*SPECIALS))
    for got, want in zip(f(x, y), (np.maximum(x, y), np.minimum(x, y), np.max(x), np.min(x))):
        np.testing.assert_array_equal(got, want)
    many = np.where(np.arange(5000) == 4321, np.nan, np.arange(5000.0))
    assert np.isnan(f(many, many)[2])


def test_float_floor_division_and_modulo_on_opencl_are_numpys() -> None:
    """An exact fmod (`arith.remf`, OpenCL's `fmod`): `1e17 % 3.0` is 1, not 0."""
    f = sl.jit(lambda xs, ys: (xs % ys, xs // ys))
    x, y = (grid.ravel() for grid in np.meshgrid(*SPECIALS))
    with np.errstate(all="ignore"):
        expected = (x % y, x // y)
    for got, want in zip(f(x, y), expected):
        np.testing.assert_array_equal(got, want)
