"""The NumPy surface of soac.lang (issue 33): reductions over axes, broadcasting, argmin/argmax, mean, dot/matmul/@,
clip, rsqrt, zeros/ones/full/array/concatenate/stack, strided and column slices, gathers with modes, boolean masks,
`xs.at[...]`, `sl.stencil` and weak Python scalars give numpy's results on both backends, for empty arrays, single
elements and non-contiguous numpy inputs (slices, transposes, Fortran order). Each program compiles once per
backend; the shapes it runs on reuse the compiled program."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
import soac.lang as sl

HERE = Path(__file__)
BACKENDS = ["interp", "opencl"]


def line_of(marker: str) -> str:
    lines = HERE.read_text().splitlines()
    (number,) = [k + 1 for k, line in enumerate(lines) if line.rstrip().endswith(f"# {marker}")]
    return f"{HERE}:{number}"


def layouts(m: np.ndarray) -> Iterator[np.ndarray]:
    """`m` as numpy hands it over: contiguous, Fortran order, and as a strided view of a larger array."""
    yield m
    yield np.asfortranarray(m)
    wide = np.zeros((m.shape[0], 2 * m.shape[1], *m.shape[2:]), m.dtype)
    wide[:, ::2] = m
    yield wide[:, ::2]


def matrices(dtype: type = np.float32) -> Iterator[np.ndarray]:
    rng = np.random.default_rng(7)
    for shape in [(3, 4), (1, 1), (5, 2), (0, 3), (3, 0)]:
        m = (rng.standard_normal(shape) * 10).astype(dtype)
        yield from layouts(m)
    yield (rng.standard_normal((4, 3)) * 10).astype(dtype).T  # a transpose


def check(got: object, expected: object, name: str = "") -> None:
    got_items = got if isinstance(got, tuple) else (got,)
    want_items = expected if isinstance(expected, tuple) else (expected,)
    assert len(got_items) == len(want_items), name
    for k, (g, e) in enumerate(zip(got_items, want_items, strict=True)):
        g, e = np.asarray(g), np.asarray(e)
        assert g.shape == e.shape, f"{name} result #{k}: shape {g.shape} != {e.shape}"
        assert g.dtype == e.dtype, f"{name} result #{k}: dtype {g.dtype} != {e.dtype}"
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=2e-5, err_msg=f"{name} result #{k}")


def run_all(program: Callable, reference: Callable, backend: str, inputs: Iterator[tuple]) -> None:
    f = sl.jit(program, backend=backend)
    for args in inputs:
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's mean of no elements: NaN, as ours
            expected = reference(*args)
        check(f(*args), expected, f"shapes {[np.shape(a) for a in args]}")


# ---------------------------------------------------------------------------
# Reductions and broadcasting
# ---------------------------------------------------------------------------


def _reductions(m):
    return (
        sl.sum(m, axis=1),
        m.sum(axis=0),
        m.sum(),
        sl.sum(m, axis=(0, 1), keepdims=True),
        m.mean(axis=1),
        sl.mean(m),
        m - m.max(axis=1, keepdims=True),
        m.min(axis=0, keepdims=True) + m,
        sl.sum(m > 0, axis=1),
        m * 2 + m.sum(axis=0),
        sl.prod(m, axis=0),
        sl.any(m > 1, axis=1),
        (m > -100).all(),
        m.var(axis=0),
        sl.std(m, axis=1, keepdims=True),
        sl.zeros_like(m) + sl.ones_like(m, dtype=sl.i32).astype(sl.f32) + sl.square(m),
    )


def _reductions_numpy(m):
    return (
        m.sum(axis=1),
        m.sum(axis=0),
        m.sum(dtype=m.dtype),
        m.sum(axis=(0, 1), keepdims=True),
        m.mean(axis=1),
        m.mean(dtype=np.float32).astype(np.float32),
        m - (m.max(axis=1, keepdims=True) if m.shape[1] else m[:, :1]),
        (m.min(axis=0, keepdims=True) if m.shape[0] else np.full((1, m.shape[1]), np.inf, m.dtype)) + m,
        np.sum(m > 0, axis=1),
        m * 2 + m.sum(axis=0),
        np.prod(m, axis=0),
        np.any(m > 1, axis=1),
        np.all(m > -100),
        m.var(axis=0),
        np.std(m, axis=1, keepdims=True),
        np.zeros_like(m) + np.ones_like(m, dtype=np.int32).astype(np.float32) + np.square(m),
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions_over_axes_and_broadcasting(backend: str) -> None:
    run_all(_reductions, _reductions_numpy, backend, ((m,) for m in matrices()))


def _extremes(m, v):
    return sl.argmax(m), sl.argmin(m, axis=0), m.argmax(axis=1), sl.max(m, axis=0), m.min(), sl.argmax(v), m + v


def _extremes_numpy(m, v):
    return np.argmax(m), np.argmin(m, axis=0), m.argmax(axis=1), m.max(axis=0), m.min(), np.argmax(v), m + v


@pytest.mark.parametrize("backend", BACKENDS)
def test_argmin_argmax_min_max(backend: str) -> None:
    rng = np.random.default_rng(3)
    cases = []
    for shape in [(3, 4), (1, 1), (6, 5)]:
        m = rng.integers(-3, 3, shape).astype(np.float32)  # ties: the first position wins
        for layout in layouts(m):
            cases.append((layout, layout[0].copy()))
    nan = np.array([[1, np.nan, 3], [np.nan, 5, np.nan]], np.float32)
    cases.append((nan, np.array([2, np.nan, np.nan], np.float32)))  # the first NaN wins, as in numpy
    run_all(_extremes, _extremes_numpy, backend, iter(cases))


@pytest.mark.parametrize("backend", BACKENDS)
def test_argmax_of_an_empty_array_fails_when_it_runs(backend: str) -> None:
    f = sl.jit(lambda xs: sl.argmax(xs), backend=backend)
    assert f(np.array([1, 5, 5], np.int32)) == 1
    with pytest.raises(Exception, match=r"sl\.argmax of an empty array"):
        f(np.zeros(0, np.int32))


# ---------------------------------------------------------------------------
# Products and element-wise functions
# ---------------------------------------------------------------------------


def _products(a, b, v):
    return a @ b, sl.dot(a, v), sl.matmul(v, b), v @ v, a.dot(v), sl.clip(a, -5, 5), sl.rsqrt(v * v + 1), a.clip(None, 0)


def _products_numpy(a, b, v):
    return a @ b, a @ v, v @ b, np.dot(v, v), a @ v, np.clip(a, -5, 5), 1 / np.sqrt(v * v + 1), np.minimum(a, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_products_and_element_wise_functions(backend: str) -> None:
    rng = np.random.default_rng(5)
    cases = []
    for n, k, m in [(3, 4, 2), (1, 1, 1), (2, 0, 3), (0, 2, 2)]:
        a = rng.standard_normal((n, k)).astype(np.float32) * 4
        b = rng.standard_normal((k, m)).astype(np.float32)
        v = rng.standard_normal(k).astype(np.float32)
        for a_layout, b_layout in zip(layouts(a), layouts(b)):
            cases.append((a_layout, b_layout[:, : m - 1] if m > 1 else b_layout, v))
    run_all(_products, _products_numpy, backend, iter(cases))


@pytest.mark.parametrize("backend", BACKENDS)
def test_batched_matmul(backend: str) -> None:
    rng = np.random.default_rng(6)
    a = rng.standard_normal((2, 3, 4)).astype(np.float64)
    b = rng.standard_normal((2, 4, 5)).astype(np.float64)
    check(sl.jit(lambda a, b: a @ b, backend=backend)(a, b), a @ b)


# ---------------------------------------------------------------------------
# Construction
# ---------------------------------------------------------------------------


def _construction(xs, ys, m):
    n = xs.shape[0]
    return (
        sl.zeros(n) + xs,
        sl.ones((2, n), dtype=sl.i32),
        sl.full(3, 7, dtype=np.int16),
        sl.concatenate([xs, ys, xs]),
        sl.concatenate([m, m[:1]]),
        sl.concatenate([m, m], axis=1),
        sl.stack([xs, xs * 2]),
        sl.stack([xs, xs * 2], axis=1),
        sl.array([1.5, xs.shape[0], 2]),
        sl.array([[1, 2], [3, 4]], dtype=sl.i32),
    )


def _construction_numpy(xs, ys, m):
    n = xs.shape[0]
    return (
        np.zeros(n, np.float32) + xs,
        np.ones((2, n), np.int32),
        np.full(3, 7, np.int16),
        np.concatenate([xs, ys, xs]),
        np.concatenate([m, m[:1]]),
        np.concatenate([m, m], axis=1),
        np.stack([xs, xs * 2]),
        np.stack([xs, xs * 2], axis=1),
        np.array([1.5, n, 2], np.float32),
        np.array([[1, 2], [3, 4]], np.int32),
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_construction(backend: str) -> None:
    rng = np.random.default_rng(9)
    cases = []
    for n, k in [(4, 3), (1, 0), (0, 2), (3, 1)]:
        xs = rng.standard_normal(n).astype(np.float32)
        ys = rng.standard_normal(k).astype(np.float32)
        m = rng.standard_normal((max(n, 1), 3)).astype(np.float32)
        cases.append((xs, ys, m))
        cases.append((np.repeat(xs, 2)[::2], ys[::-1], m.T.copy().T))
    run_all(_construction, _construction_numpy, backend, iter(cases))


# ---------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------


def _indexing(m, xs, idx):
    return (
        m[:, 1],
        m[:, -1],
        m[1:, 0],
        xs[::2],
        xs[::-3],
        xs[1:-1:2],
        xs[5:0:-2],
        xs[idx],
        m[idx % m.shape[0]],
        xs[xs > 0],
        m[m[:, 0] > 0],
        xs[:, None] * xs[None, :],
        m[..., 0],
        sl.take(xs, idx, mode="clip"),
        sl.take(xs, idx - 2, mode="fill", fill_value=-1.0),
        sl.take(xs, idx, mode="wrap"),
        m.flatten(),
        m.T.ravel(),
        m.copy().transpose(),
        sl.expand_dims(xs, 1),
        m.sum(axis=1, keepdims=True).squeeze(),
        sl.squeeze(m[:1], 0),
        xs[[0, -1, 0]],
        m[:, 1:-1],
        m[1:, ::-2],
    )


def _indexing_numpy(m, xs, idx):
    n = xs.shape[0]
    return (
        m[:, 1],
        m[:, -1],
        m[1:, 0],
        xs[::2],
        xs[::-3],
        xs[1:-1:2],
        xs[5:0:-2],
        xs[idx],
        m[idx % m.shape[0]],
        xs[xs > 0],
        m[m[:, 0] > 0],
        xs[:, None] * xs[None, :],
        m[..., 0],
        np.take(xs, idx, mode="clip"),
        np.where((idx - 2 >= 0) & (idx - 2 < n), xs[np.clip(idx - 2, 0, n - 1)], -1).astype(np.float32),
        np.take(xs, idx, mode="wrap"),
        m.flatten(),
        m.T.ravel(),
        m.copy().transpose(),
        np.expand_dims(xs, 1),
        m.sum(axis=1, keepdims=True).squeeze(axis=1),
        np.squeeze(m[:1], 0),
        xs[[0, -1, 0]],
        m[:, 1:-1],
        m[1:, ::-2],
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_indexing(backend: str) -> None:
    rng = np.random.default_rng(11)
    cases = []
    for n in [7, 1, 2]:
        xs = rng.standard_normal(n).astype(np.float32)
        m = rng.standard_normal((n, 3)).astype(np.float32)
        idx = rng.integers(0, n, 5).astype(np.int64)
        for m_layout in layouts(m):
            cases.append((m_layout, np.repeat(xs, 3)[::3], idx))
    cases.append((np.zeros((3, 3), np.float32), np.array([-1, -2, -3], np.float32), np.zeros(0, np.int64)))
    run_all(_indexing, _indexing_numpy, backend, iter(cases))


def _updates(xs, idx, i):
    prev = sl.map(lambda k: xs.at[k - 1].get(mode="fill", fill_value=0.0), sl.iota(xs.shape[0]))
    counts = sl.zeros(4, dtype=sl.i32).at[idx].add(1)
    placed = sl.zeros(4).at[idx].set(2.0)
    largest = sl.full(4, -1.0).at[idx].max(xs[: idx.shape[0]])
    one = sl.copy(xs).at[i].set(9.0)
    added = sl.copy(xs).at[i].add(1.0)
    return prev, counts, placed, largest, one, added


def _updates_numpy(xs, idx, i):
    prev = np.concatenate([[0], xs[:-1]]).astype(np.float32) if len(xs) else xs
    counts = np.bincount(idx[idx < 4], minlength=4).astype(np.int32)
    placed = np.zeros(4, np.float32)
    placed[idx[idx < 4]] = 2
    largest = np.full(4, -1, np.float32)
    np.maximum.at(largest, idx[idx < 4], xs[: len(idx)][idx < 4])
    one, added = xs.copy(), xs.copy()
    one[i] = 9
    added[i] += 1
    return prev, counts, placed, largest, one, added


@pytest.mark.parametrize("backend", BACKENDS)
def test_at_updates_and_guarded_reads(backend: str) -> None:
    xs = np.array([3, -1, 4, 1, -5, 9], np.float32)
    cases = [
        (xs, np.array([0, 2, 2, 7, 3], np.int64), 2),  # 7 is outside: dropped, as JAX drops it
        (xs[::-1], np.zeros(0, np.int64), 0),
        (xs[:1], np.array([1], np.int64), 0),
    ]
    run_all(_updates, _updates_numpy, backend, iter(cases))


@pytest.mark.parametrize("backend", BACKENDS)
def test_at_updates_of_rows_and_narrow_positions(backend: str) -> None:
    def program(m, r, k):
        weak = sl.zeros(3).at[0].set(m[0, 0].astype(sl.f64))  # a weak array takes the value's type
        return sl.copy(m).at[1].set(r), sl.copy(m).at[np.int64(0)].add(r), m.at[k, 1].get(mode="clip"), weak

    m = np.arange(6, dtype=np.float32).reshape(3, 2)
    r = np.array([10, 20], np.float32)
    set_row, add_row = m.copy(), m.copy()
    set_row[1] = r
    add_row[0] += r
    got = sl.jit(program, backend=backend)(np.asfortranarray(m), r, np.int8(100))  # an i8 position past the rows
    check(got, (set_row, add_row, m[2, 1], np.array([m[0, 0], 0, 0], np.float64)))


# ---------------------------------------------------------------------------
# sl.stencil
# ---------------------------------------------------------------------------

_PAD_MODES = {"clamp": "edge", "mirror": "reflect", "wrap": "wrap", "constant": "constant"}


def _five_point_numpy(u: np.ndarray, boundary: str, fill: float) -> np.ndarray:
    extra = {"constant_values": fill} if boundary == "constant" else {}
    p = np.pad(u, 1, mode=_PAD_MODES[boundary], **extra)
    return (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u).astype(u.dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("boundary", ["clamp", "mirror", "wrap", "constant"])
def test_stencil_boundaries(backend: str, boundary: str) -> None:
    f = sl.jit(
        lambda u: sl.stencil(lambda w: w[-1, 0] + w[1, 0] + w[0, -1] + w[0, 1] - 4 * w.center, u, boundary=boundary, fill=2),
        backend=backend,
    )
    rng = np.random.default_rng(2)
    for shape in [(5, 6), (2, 3), (9, 4), (1, 1), (1, 4)]:
        for u in layouts(rng.standard_normal(shape).astype(np.float32)):
            check(f(u), _five_point_numpy(u, boundary, 2.0), f"{boundary} {shape}")
    check(f(np.zeros((0, 3), np.float32)), np.zeros((0, 3), np.float32))  # numpy's pad refuses an empty axis


@pytest.mark.parametrize("backend", BACKENDS)
def test_stencil_on_the_rows_of_a_map(backend: str) -> None:
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = sl.jit(lambda m: sl.map(lambda row: sl.stencil(lambda w: w[-1] - w[1], row, boundary="wrap"), m), backend=backend)(m)
    check(got, np.roll(m, 1, axis=1) - np.roll(m, -1, axis=1))


@pytest.mark.parametrize("backend", BACKENDS)
def test_stencil_1d_two_inputs_and_results(backend: str) -> None:
    def program(xs, ys):
        return sl.stencil(lambda a, b: (a[-2] + a[2] * b[0], b[1] > 0), xs, ys, window=5)

    xs = np.arange(8, dtype=np.float64)
    ys = np.linspace(-1, 1, 8)
    pa, pb = np.pad(xs, 2, mode="edge"), np.pad(ys, 2, mode="edge")
    check(sl.jit(program, backend=backend)(xs, ys), (pa[:-4] + pa[4:] * ys, pb[3:-1] > 0))


# ---------------------------------------------------------------------------
# Weak Python scalars and the small things
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_scalars_take_the_other_operands_type(backend: str) -> None:
    def program(xs, steps, scale):
        flags = sl.map(lambda x: sl.where(x > 0, 0.0, 1.0), xs)  # f32: the program's floats are f32
        scaled = xs * scale  # a Python float argument: f32 here
        ticks = sl.map(lambda i: i * steps, sl.iota(xs.shape[0], dtype=sl.i32))  # a Python int argument: i32 here
        counts = sl.scatter(sl.replicate(3, 0), sl.iota(2), sl.map(lambda x: sl.i32(x), xs[:2]))  # i32 destination
        return flags, scaled, ticks, counts, sl.zeros(2)

    xs = np.array([1.5, -2, 3], np.float32)
    f = sl.jit(program, backend=backend)
    got = f(xs, 4, 0.5)
    expected = (
        np.array([0, 1, 0], np.float32),
        xs * np.float32(0.5),
        np.array([0, 4, 8], np.int32),
        np.array([1, -2, 0], np.int32),
        np.zeros(2, np.float32),
    )
    check(got, expected)
    with pytest.raises(Exception, match=r"a Python int argument \(1099511627776\) does not fit in i32"):
        f(xs, 2**40, 0.5)  # an error, not a wrapped i32


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_weak_loop_state_takes_the_bodys_type(backend: str) -> None:
    def program(m, xs):
        rows = sl.loop(2, sl.replicate(m.shape[0], 0), lambda i, acc: acc + m[:, 0])  # an i32 accumulator
        total = sl.loop(xs.shape[0], 0, lambda i, acc: acc + xs[i])  # an i16 one
        _, count = sl.while_loop(lambda k, acc: k < xs.shape[0], lambda k, acc: (k + 1, acc + xs[k]), (0, 0))
        return rows, total, count

    m = np.arange(6, dtype=np.int32).reshape(3, 2)
    xs = np.arange(5, dtype=np.int16)
    check(sl.jit(program, backend=backend)(m, xs), (2 * m[:, 0], np.int16(10), np.int16(10)))


def test_small_integer_powers_are_products_and_no_warning() -> None:
    f = sl.jit(lambda xs: (xs**2, np.float32(2) * xs, xs**0.5, xs**-1), backend="interp")
    xs = np.array([1, 4, 9], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = f(xs)
    check(got, (xs**2, 2 * xs, np.sqrt(xs), 1 / xs))
    ir = f.ir()
    assert "math.powf" not in ir
    assert "math.sqrt" in ir
    assert sl.jit(lambda xs: xs**3, backend="interp").ir(xs).count("math.powf") == 1


def test_a_float_and_an_integer_suggest_converting_the_integer() -> None:
    @sl.jit(backend="interp")
    def f(xs, ks):
        return sl.map(lambda x, k: x + k, xs, ks)  # MIXED

    with pytest.raises(sl.SoacTypeError) as error:
        f(np.zeros(2, np.float32), np.zeros(2, np.int32))
    message = str(error.value)
    assert message.startswith(line_of("MIXED") + ": '+' of f32 and i32")
    assert "convert the right operand explicitly, e.g. sl.f32(x)" in message


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_error_after_fusion_names_a_combinators_line(backend: str) -> None:
    def program(xs, ys):
        doubled = sl.map(lambda x: x * 2, xs)  # FUSED
        return sl.sum(sl.map(lambda a, y: a + y, doubled, ys))

    f = sl.jit(program, backend=backend)
    assert f(np.ones(3, np.float32), np.ones(3, np.float32)) == 9
    with pytest.raises(Exception, match="does not match") as error:
        f(np.ones(3, np.float32), np.ones(2, np.float32))
    assert str(error.value).startswith(line_of("FUSED") + ":")


# ---------------------------------------------------------------------------
# Refusals name the line and the alternative
# ---------------------------------------------------------------------------


def _slice_update(xs):
    return xs.at[1:3].set(0.0)  # SLICE_UPDATE


def _fill_rows(m):
    return m.at[0].get(mode="fill")  # FILL_ROWS


def _outside_window(xs):
    return sl.stencil(lambda w: w[2], xs)  # OUTSIDE_WINDOW


def _mixed_ranks(xs, m):
    return sl.concatenate([xs, m])  # MIXED_RANKS


def _two_axes(m):
    return sl.argmax(m, axis=(0, 1))  # TWO_AXES


def _matrix_mask(m):
    return m[m > 0]  # MATRIX_MASK


def _numpy_scalar_of_a_size(xs):
    return np.float32(xs.shape[0]) * xs  # NUMPY_SCALAR


def _squeeze_a_long_axis(m):
    return sl.squeeze(m, 0)  # SQUEEZE


@pytest.mark.parametrize("backend", BACKENDS)
def test_squeeze_of_a_longer_axis_fails_when_it_runs(backend: str) -> None:
    f = sl.jit(_squeeze_a_long_axis, backend=backend)
    check(f(np.ones((1, 3), np.float32)), np.ones(3, np.float32))
    with pytest.raises(Exception, match=r"sl\.squeeze: axis 0 is not of size 1") as error:
        f(np.ones((2, 3), np.float32))
    assert str(error.value).startswith(line_of("SQUEEZE") + ":")


def _bad_mode(xs):
    return sl.take(xs, sl.iota(2), mode="nearest")  # BAD_MODE


@pytest.mark.parametrize(
    ("program", "marker", "message"),
    [
        (_slice_update, "SLICE_UPDATE", "for slices, update with sl.scatter over sl.iota"),
        (_fill_rows, "FILL_ROWS", "mode='fill' reads elements: give 2 positions of the 2-D f32 array, or use mode='clip'"),
        (_outside_window, "OUTSIDE_WINDOW", r"a window of extents \[3\] has no neighbour 2"),
        (_mixed_ranks, "MIXED_RANKS", "ranks and types must agree"),
        (_two_axes, "TWO_AXES", r"sl.argmax takes one axis \(an int\) or None"),
        (_bad_mode, "BAD_MODE", "choose one of promise_in_bounds, clip, wrap, fill"),
        (_numpy_scalar_of_a_size, "NUMPY_SCALAR", r"np\.float32\(x\), \.\.\.\): its value is only known .* sl\.f32\(x\)"),
        (_matrix_mask, "MATRIX_MASK", r"flatten both first, xs\.reshape\(-1\)\[mask\.reshape\(-1\)\]"),
    ],
)
def test_refusals_name_the_line_and_the_alternative(program: Callable, marker: str, message: str) -> None:
    xs = np.zeros(4, np.float32)
    args = {"_mixed_ranks": (xs, np.zeros((2, 2), np.float32))}.get(program.__name__)
    if args is None:
        args = (np.zeros((2, 2), np.float32),) if program in (_fill_rows, _two_axes, _matrix_mask) else (xs,)
    with pytest.raises(sl.SoacTypeError, match=message) as error:
        sl.jit(program, backend="interp")(*args)
    assert str(error.value).startswith(line_of(marker) + ":")


# ---------------------------------------------------------------------------
# Counting, ranges, prefix sums and filters
# ---------------------------------------------------------------------------


def _counting(xs, ks, m, edges):
    return (
        sl.searchsorted(edges, xs),
        sl.searchsorted(edges, ks.astype(sl.f32), side="right"),
        sl.searchsorted(edges, 0.5),
        sl.bincount(ks),
        sl.bincount(ks, weights=xs, minlength=6),
        sl.bincount(ks, length=3),
        sl.arange(ks.shape[0]),
        sl.arange(2, 11, 3, dtype=sl.i32),
        sl.arange(xs.shape[0], 0, -2),
        sl.cumsum(m, axis=0),
        sl.cumsum(m, axis=1, dtype=sl.f64),
        sl.cumsum(m),
        sl.abs(xs),
        sl.filter(lambda x: x > 0, xs),
        sl.compress(ks % 2 == 0, ks),
    )


def _counting_numpy(xs, ks, m, edges):
    n = len(xs)
    return (
        np.searchsorted(edges, xs),
        np.searchsorted(edges, ks.astype(np.float32), side="right"),
        np.searchsorted(edges, np.float32(0.5)),
        np.bincount(ks),
        np.bincount(ks, weights=xs, minlength=6).astype(np.float32),
        np.bincount(ks[ks < 3], minlength=3),
        np.arange(len(ks)),
        np.arange(2, 11, 3, dtype=np.int32),
        np.arange(n, 0, -2),
        np.cumsum(m, axis=0, dtype=m.dtype),  # sums keep the array's type (JAX's; numpy widens to i64)
        np.cumsum(m, axis=1, dtype=np.float64),
        np.cumsum(m, dtype=m.dtype),
        np.abs(xs),
        xs[xs > 0],
        ks[ks % 2 == 0],
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_counting_ranges_prefix_sums_and_filters(backend: str) -> None:
    rng = np.random.default_rng(13)
    cases = []
    for n in [9, 1, 0]:
        xs = rng.standard_normal(n).astype(np.float32)
        ks = rng.integers(0, 5, n).astype(np.int64)
        m = rng.integers(-9, 9, (n, 3)).astype(np.int32)
        edges = np.sort(np.concatenate([xs, xs[:2]]))  # repeated values: left and right differ
        cases.append((xs, ks, m, edges))
        cases.append((np.repeat(xs, 2)[1::2], ks[::-1], np.asfortranarray(m), edges[::-1][::-1]))
    run_all(_counting, _counting_numpy, backend, iter(cases))


def _padding(v, m, c):
    return (
        sl.pad(v, 2),
        sl.pad(v, (1, 3), mode="edge"),
        sl.pad(m, 1, mode="wrap"),
        sl.pad(m, ((1, 0), (2, 1)), mode="reflect"),
        sl.pad(m, ((0, 2), (3, 3)), mode="symmetric"),
        sl.pad(m, 1, mode="constant", constant_values=-1.5),
        sl.broadcast_to(v, (3, v.shape[0])),
        sl.broadcast_to(c, (c.shape[0], 4)),
        sl.broadcast_to(v[None, :], (2, v.shape[0])),
    )


def _padding_numpy(v, m, c):
    return (
        np.pad(v, 2),
        np.pad(v, (1, 3), mode="edge"),
        np.pad(m, 1, mode="wrap"),
        np.pad(m, ((1, 0), (2, 1)), mode="reflect"),
        np.pad(m, ((0, 2), (3, 3)), mode="symmetric"),
        np.pad(m, 1, mode="constant", constant_values=-1.5),
        np.broadcast_to(v, (3, len(v))),
        np.broadcast_to(c, (len(c), 4)),
        np.broadcast_to(v[None, :], (2, len(v))),
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_pad_and_broadcast_to(backend: str) -> None:
    rng = np.random.default_rng(17)
    cases = []
    for n, rows, cols in [(5, 3, 4), (1, 2, 2), (2, 4, 3)]:
        v = rng.standard_normal(n).astype(np.float32)
        m = rng.standard_normal((rows, cols)).astype(np.float32)
        c = rng.standard_normal((rows, 1)).astype(np.float32)
        for layout in layouts(m):
            cases.append((v, layout, np.asfortranarray(c)))
    run_all(_padding, _padding_numpy, backend, iter(cases))


# ---------------------------------------------------------------------------
# NumPy array code, run as written with soac.lang as its array module
# ---------------------------------------------------------------------------

PEERS = ["softmax", "layernorm", "backprop", "blackscholes", "batched_matmul", "matvec", "nbody", "nearest", "histeq", "spmv"]
PEERS += ["hotspot"]
"""The real-program suite's peers (bench/real/suite: array code for numpy, CuPy and JAX) that soac.lang runs with
`xp = soac.lang`, their static arguments (JAX's static_argnums: step counts) bound as Python ints; kmeans loops
in Python over a size, mandelbrot unrolls a hundred steps, pathfinder loops over a size."""


@pytest.mark.parametrize("backend", [pytest.param("interp"), pytest.param("opencl", marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", PEERS)
def test_numpy_array_code_of_the_real_suite_runs_as_written(name: str, backend: str) -> None:
    import importlib

    module = importlib.import_module(f"bench.real.suite.{name}")
    program = module.PROGRAM
    args = program.inputs(np.random.default_rng(1), program.sizes["small"])
    expected = program.peer(np)(*args)
    dynamic = [k for k in range(len(args)) if k not in program.static]

    def with_static_arguments(*given):
        bound = list(args)
        for k, value in zip(dynamic, given, strict=True):
            bound[k] = value
        return program.peer(sl)(*bound)

    got = sl.jit(with_static_arguments, backend=backend, name=name)(*(args[k] for k in dynamic))
    got_items = got if isinstance(got, tuple) else (got,)
    want_items = expected if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got_items, want_items, strict=True):
        assert g.dtype == np.asarray(e).dtype
        np.testing.assert_allclose(g, e, rtol=program.rtol, atol=program.rtol)


def _unsigned(m, k):
    return (
        m.max(axis=1),
        sl.argmax(m, axis=0),
        m.sum(axis=0),
        sl.concatenate([m[0], m[-1]]),
        sl.pad(m, 1, mode="edge"),
        m[:, ::-1],
        m[m[:, 0] > 100],
        sl.bincount(m.reshape(-1)),
        m + k,
        m.at[0, 5].get(mode="fill", fill_value=7),
    )


def _unsigned_numpy(m, k):
    return (
        m.max(axis=1),
        m.argmax(axis=0),
        m.sum(axis=0, dtype=m.dtype),
        np.concatenate([m[0], m[-1]]),
        np.pad(m, 1, mode="edge"),
        m[:, ::-1],
        m[m[:, 0] > 100],
        np.bincount(m.reshape(-1)),
        m + np.uint8(k),
        np.uint8(7),
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_surface_on_unsigned_arrays(backend: str) -> None:
    m = np.array([[3, 250, 7], [255, 0, 9]], np.uint8)
    run_all(_unsigned, _unsigned_numpy, backend, iter([(m, 1), (np.asfortranarray(m[::-1]), 4)]))
    with pytest.raises(Exception, match=r"a Python int argument \(-1\) does not fit in u8"):
        sl.jit(_unsigned, backend=backend)(m, -1)  # JAX refuses it too; numpy would wrap
