"""Every combinator and operator of soac.lang against numpy, on the reference interpreter (after the pass
pipeline), with random inputs from hypothesis where the input space matters; tests/lang/test_opencl.py runs
programs of them on PoCL."""

from __future__ import annotations

import numpy as np
import pytest
import soac.lang as sl
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


def interp(fn):
    return sl.jit(fn, backend="interp")


int32s = hnp.arrays(np.int32, st.integers(0, 40), elements=st.integers(-1000, 1000))
float32s = hnp.arrays(np.float32, st.integers(0, 40), elements=st.floats(-100, 100, width=32))
FAST = settings(max_examples=25, deadline=None)

# One compiled function per test: hypothesis calls it with new data of the same types (cache hits).
map_affine = interp(lambda xs: sl.map(lambda x: 3 * x - 7, xs))
zip_map = interp(lambda xs, ys: sl.map(lambda x, y: (x * y, x - y), xs, ys))
total = interp(lambda xs: sl.reduce(lambda a, b: a + b, 0, xs))
maximum = interp(lambda xs: sl.max(xs))
prefix = interp(lambda xs: sl.scan(lambda a, b: a + b, 0, xs))
running_max = interp(lambda xs: sl.scan(sl.maximum, np.int32(-(2**31)), xs))


@FAST
@given(int32s)
def test_map(xs: np.ndarray) -> None:
    np.testing.assert_array_equal(map_affine(xs), 3 * xs - 7)


@FAST
@given(int32s)
def test_map_of_two_arrays_with_two_results(xs: np.ndarray) -> None:
    ys = xs[::-1].copy()
    products, differences = zip_map(xs, ys)
    np.testing.assert_array_equal(products, xs * ys)
    np.testing.assert_array_equal(differences, xs - ys)


@FAST
@given(int32s)
def test_reduce_and_max(xs: np.ndarray) -> None:
    assert total(xs) == np.sum(xs, dtype=np.int32)
    assert maximum(xs) == (xs.max() if xs.size else np.iinfo(np.int32).min)


@FAST
@given(int32s)
def test_scans(xs: np.ndarray) -> None:
    np.testing.assert_array_equal(prefix(xs), np.cumsum(xs, dtype=np.int32))
    np.testing.assert_array_equal(running_max(xs), np.maximum.accumulate(xs) if xs.size else xs)


def test_reduce_of_a_pair_with_a_tuple_operator() -> None:
    """argmax as a reduce over (value, index) pairs: the operator takes and returns tuples."""

    @interp
    def argmax(xs):
        def better(a, b):
            return sl.where(b[0] > a[0], b[0], a[0]), sl.where(b[0] > a[0], b[1], a[1])

        return sl.reduce(better, (np.float32(-np.inf), -1), xs, sl.iota(xs.shape[0]))[1]

    xs = np.random.default_rng(1).random(50).astype(np.float32)
    assert argmax(xs) == np.argmax(xs)


@FAST
@given(float32s)
def test_float_arithmetic_and_math(xs: np.ndarray) -> None:
    @interp
    def f(xs):
        return sl.map(lambda x: (x * 2.5 - 1) / 4 + sl.sqrt(abs(x)) + sl.exp(-(x * x)) + sl.floor(x) + x % 3 + x // 2, xs)

    expected = (xs * np.float32(2.5) - 1) / 4 + np.sqrt(np.abs(xs)) + np.exp(-(xs * xs)) + np.floor(xs)
    expected = expected + np.mod(xs, np.float32(3)) + np.floor_divide(xs, np.float32(2))
    np.testing.assert_allclose(f(xs), expected, rtol=1e-5, atol=1e-4)


@FAST
@given(int32s, st.integers(1, 9))
def test_integer_operators_follow_python(xs: np.ndarray, k: int) -> None:
    """//, % round towards minus infinity as in Python and numpy; shifts, bit operations, comparisons."""

    @interp
    def f(xs, k):
        return sl.map(lambda x: (x // k, x % k, (x << 2) ^ (x >> 1), x & 12 | 3, sl.i32(x < k) + sl.i32(x == 4), -x), xs)

    k32 = np.int32(k)
    got = f(xs, k32)
    for g, e in zip(got, (xs // k32, xs % k32, (xs << 2) ^ (xs >> 1), xs & 12 | 3, (xs < k32).astype(np.int32) + (xs == 4), -xs)):
        np.testing.assert_array_equal(g, e.astype(np.int32))


def test_conversions() -> None:
    @interp
    def f(xs):
        return sl.map(lambda x: (sl.f64(x) / 2, sl.i8(x), sl.bool_(x), sl.i32(sl.f32(x) * 1.5)), xs)

    xs = np.array([-300, -3, 0, 5, 200], np.int32)
    halves, bytes_, flags, scaled = f(xs)
    np.testing.assert_array_equal(halves, xs / 2)
    np.testing.assert_array_equal(bytes_, xs.astype(np.int8))
    np.testing.assert_array_equal(flags, xs != 0)
    np.testing.assert_array_equal(scaled, (xs.astype(np.float32) * 1.5).astype(np.int32))


def test_elementwise_operators_on_arrays_and_sums() -> None:
    @interp
    def f(a, b, s):
        return sl.sum(a * b), a + s, sl.cumsum(a - b), sl.min(a), -a, a.astype(sl.i64) * 2

    a = np.array([4.0, 1.5, -2.0], np.float32)
    b = np.array([1.0, 2.0, 3.0], np.float32)
    dot, shifted, csum, smallest, neg, doubled = f(a, b, np.float32(10))
    assert dot == pytest.approx(float(a @ b))
    np.testing.assert_array_equal(shifted, a + 10)
    np.testing.assert_allclose(csum, np.cumsum(a - b))
    assert smallest == a.min()
    np.testing.assert_array_equal(neg, -a)
    np.testing.assert_array_equal(doubled, a.astype(np.int64) * 2)


def test_iota_replicate_transpose_indexing_slicing() -> None:
    @interp
    def f(m, i):
        n = m.shape[0]
        return (
            sl.iota(n, sl.i32),
            sl.replicate(3, m[0]),
            m.T,
            sl.transpose(m, [1, 0])[1],
            m[i, 1],
            m[-1],
            m[1:3],
            m[i, 1:],
            m[:-1],
        )

    m = np.arange(12, dtype=np.int64).reshape(4, 3)
    got = f(m, 2)
    expected = (np.arange(4), np.stack([m[0]] * 3), m.T, m.T[1], m[2, 1], m[-1], m[1:3], m[2, 1:], m[:-1])
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def test_scatter_drops_out_of_bounds_indices_and_copy_keeps_the_original() -> None:
    @interp
    def f(dest, idx, vals):
        return sl.scatter(sl.copy(dest), idx, vals), dest

    dest = np.zeros(5, np.float64)
    idx = np.array([4, -1, 0, 9], np.int32)
    vals = np.array([1.0, 2.0, 3.0, 4.0])
    scattered, original = f(dest, idx, vals)
    np.testing.assert_array_equal(scattered, [3.0, 0, 0, 0, 1.0])
    np.testing.assert_array_equal(original, dest)


@FAST
@given(hnp.arrays(np.int64, st.integers(0, 60), elements=st.integers(-2, 12)))
def test_hist_against_bincount(bins: np.ndarray) -> None:
    @interp
    def f(bins):
        weights = sl.map(lambda b: sl.f32(b) + 0.5, bins)
        return sl.hist(sl.replicate(10, sl.f32(0)), lambda a, b: a + b, 0, bins, weights)

    inside = (bins >= 0) & (bins < 10)
    expected = np.bincount(bins[inside], weights=bins[inside] + 0.5, minlength=10)
    np.testing.assert_allclose(f(bins), expected, rtol=1e-6)


def test_nested_parallelism_row_sums_and_prefix_sums_per_row() -> None:
    @interp
    def f(m):
        return sl.map(lambda row: sl.sum(row), m), sl.map(lambda row: sl.scan(lambda a, b: a + b, 0, row * row), m)

    m = np.random.default_rng(2).integers(-9, 9, (5, 7)).astype(np.int32)
    sums, squares = f(m)
    np.testing.assert_array_equal(sums, m.sum(axis=1))
    np.testing.assert_array_equal(squares, np.cumsum(m * m, axis=1))


def test_loop_with_scalar_and_array_state() -> None:
    @interp
    def f(xs, n):
        def step(i, acc, ys):
            return acc + sl.sum(ys), sl.map(lambda y: y * 2 + sl.i32(i), ys)

        return sl.loop(n, (sl.i32(0), xs), step)

    xs = np.array([1, 2, 3], np.int32)
    acc, ys = f(xs, 3)
    expected_acc, expected = 0, xs.copy()
    for i in range(3):
        expected_acc += expected.sum()
        expected = expected * 2 + i
    assert acc == expected_acc
    np.testing.assert_array_equal(ys, expected)


def test_while_loop_collatz_steps() -> None:
    @interp
    def steps(xs):
        def count(x):
            def body(v, k):
                return sl.where(v % 2 == 0, v // 2, 3 * v + 1), k + 1

            return sl.while_loop(lambda v, k: v != 1, body, (x, sl.i32(0)))[1]

        return sl.map(count, xs)

    def collatz(v: int) -> int:
        k = 0
        while v != 1:
            v, k = (v // 2 if v % 2 == 0 else 3 * v + 1), k + 1
        return k

    xs = np.array([1, 6, 7, 27], np.int64)
    np.testing.assert_array_equal(steps(xs), [collatz(int(v)) for v in xs])


def test_cond_per_element_and_on_a_scalar() -> None:
    @interp
    def f(xs, flag):
        clipped = sl.map(lambda x: sl.cond(x > 10, lambda: sl.f32(10), lambda: x * 2), xs)
        total = sl.cond(flag, lambda: sl.sum(xs), lambda: sl.f32(-1))
        return clipped, total

    xs = np.array([1.0, 20.0, 5.0, 11.0], np.float32)
    clipped, total = f(xs, True)
    np.testing.assert_array_equal(clipped, np.where(xs > 10, 10, xs * 2))
    assert total == xs.sum()
    assert f(xs, False)[1] == -1


def test_python_control_flow_on_python_values_unrolls() -> None:
    """Python's own `for` and `if` run while tracing: on Python values they are fine (here: unrolled)."""

    @interp
    def poly(xs):
        coefficients = [1.0, -2.0, 0.5]
        return sl.map(lambda x: sum(c * x**k for k, c in enumerate(coefficients) if c != 0), xs)

    xs = np.linspace(-1, 1, 5)
    np.testing.assert_allclose(poly(xs), 1 - 2 * xs + 0.5 * xs**2)


def test_scatter_into_an_argument_leaves_the_callers_array() -> None:
    f = interp(lambda dest, idx, vals: sl.scatter(dest, idx, vals))
    dest = np.zeros(4, np.float32)
    np.testing.assert_array_equal(f(dest, np.array([1, 3], np.int32), np.array([5, 6], np.float32)), [0, 5, 0, 6])
    np.testing.assert_array_equal(dest, np.zeros(4))


def test_a_jitted_function_called_while_tracing_another_is_inlined() -> None:
    square = sl.jit(lambda xs: sl.map(lambda x: x * x, xs), backend="interp")

    @interp
    def sum_of_squares(xs):
        return sl.sum(square(xs))

    xs = np.arange(5, dtype=np.int32)
    assert sum_of_squares(xs) == 30
    assert sum_of_squares.ir(xs).count("soac.map") == 1
    np.testing.assert_array_equal(square(xs), xs * xs)


def test_values_made_of_python_constants_take_the_type_they_meet() -> None:
    @interp
    def f(xs):
        signs = sl.map(lambda x: sl.where(x < 0, 1, -1) * x + sl.maximum(2, 3), xs)
        total = sl.reduce(lambda a, b: a + b + sl.where(a > b, 0, 0), 0, signs)
        return signs, total

    xs = np.array([-4, 0, 7], np.int32)
    signs, total = f(xs)
    assert signs.dtype == np.int32
    np.testing.assert_array_equal(signs, np.where(xs < 0, 1, -1) * xs + 3)
    assert total == signs.sum()
    assert "-> i64" not in f.ir(xs)  # the reduce is over i32s


def test_float_floor_division_and_modulo_round_as_numpy() -> None:
    """On f32 both are bit for bit numpy's, also where x / y underflows (a tiny x)."""
    f = interp(lambda xs, ys: sl.map(lambda x, y: (x // y, x % y), xs, ys))
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-100, 100, 500), [-1e-45, 1e-45, -0.0, 5.0, -5.0, 7.5]]).astype(np.float32)
    y = np.concatenate([rng.uniform(-10, 10, 500), [2, 3, -2, 2.5, 2.5, -2.5]]).astype(np.float32)
    quotients, remainders = f(x, y)
    np.testing.assert_array_equal(quotients, x // y)
    np.testing.assert_array_equal(remainders, x % y)


SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.7, -0.7, 3.0, 2.5, -2.5, 1e17, -1e17, 1e30, 1e-30, 5e-324, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_floor_division_and_modulo_are_numpys_for_large_quotients_and_special_divisors(dtype) -> None:
    """An exact fmod, as numpy's: `1e17 % 3.0` is 1 (was 0, from x - floor(x / y) * y), `np.float32(1e30) % 0.7`
    is below 0.7 (was -1.4e14), and `x // 0.0` is x / 0.0 (was NaN)."""
    f = interp(lambda xs, ys: sl.map(lambda x, y: (x // y, x % y), xs, ys))
    x, y = (grid.ravel().astype(dtype) for grid in np.meshgrid(SPECIAL_FLOATS, SPECIAL_FLOATS))
    quotients, remainders = f(x, y)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(quotients, x // y)
        np.testing.assert_array_equal(remainders, x % y)


def test_numpy_integers_index_from_the_end_and_python_builtins_translate() -> None:
    """`xs[np.int64(-1)]` counts from the end as `xs[-1]` does (was out of bounds); `divmod`, `ndim` and `size` are
    numpy's (were TypeError and AttributeError)."""

    @interp
    def f(m, xs):
        quotients, remainders = divmod(xs, 4)
        q, r = divmod(100, xs[0])
        return m[np.int32(-1), np.int64(-2)], xs[np.int8(-2) :], quotients, remainders, q, r, m.ndim, m.size

    m = np.arange(12, dtype=np.int32).reshape(3, 4)
    xs = np.array([-7, 5, 9], np.int32)
    corner, tail, quotients, remainders, q, r, ndim, size = f(m, xs)
    assert corner == m[-1, -2]
    np.testing.assert_array_equal(tail, xs[-2:])
    np.testing.assert_array_equal(quotients, xs // 4)
    np.testing.assert_array_equal(remainders, xs % 4)
    assert (q, r) == divmod(100, -7)
    assert (ndim, size) == (2, 12)


def test_soac_jit_is_the_embeddings_decorator() -> None:
    import soac

    assert soac.jit is sl.jit

    @soac.jit(backend="interp")
    def double(xs):
        return xs * 2

    np.testing.assert_array_equal(double(np.arange(3)), [0, 2, 4])


def test_scatter_of_rows_and_the_sizes_of_its_result() -> None:
    @interp
    def f(m, idx, rows):
        scattered = sl.scatter(sl.copy(m), idx, rows)
        return scattered, scattered.shape[1] * 10 + scattered.shape[0]

    m = np.zeros((4, 3), np.int32)
    rows = np.arange(6, dtype=np.int32).reshape(2, 3) + 1
    scattered, sizes = f(m, np.array([2, 0], np.int64), rows)
    expected = m.copy()
    expected[[2, 0]] = rows
    np.testing.assert_array_equal(scattered, expected)
    assert sizes == 34


def test_the_sizes_of_derived_arrays() -> None:
    """Sizes come from where an array was made (its source's sizes) or from tensor.dim; each is checked here."""

    @interp
    def f(m):
        rep = sl.replicate(5, m[0])
        rows = sl.map(lambda row: row * 2, m)
        inner = sl.map(lambda row: sl.sum(row) + row.shape[0], m)
        return (*rep.shape, *m.T.shape, *m[1:3].shape, *m[1].shape, *rows.shape, inner[0], *sl.iota(7).shape)

    m = np.ones((4, 3), np.int32)
    assert [int(v) for v in f(m)] == [5, 3, 3, 4, 2, 3, 3, 4, 3, 6, 7]
