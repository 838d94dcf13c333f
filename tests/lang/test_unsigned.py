"""Unsigned integers (numpy's uint8 ... uint64, soac.lang's u8 ... u64) against numpy's unsigned arithmetic, on the
interpreter and on OpenCL: every operator, comparison, min/max, division, shift and cast on the edges of each type
(0, 1, the largest value and its neighbour, the high bit alone and beside it), then reductions, scans, histograms,
scatters, a radix sort and scalars. soac's IR is signless; these check that the unsigned ops the front end picks
(`divui`, `cmpi ult`, `extui`, `uitofp`, `maxui`, ...) give numpy's results all the way through."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import soac.lang as sl
from soac.lang.errors import SoacTypeError

UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]
BACKENDS = ["interp", "opencl"]
TYPES_AND_BACKENDS = [
    pytest.param(dtype, backend, id=f"{dtype.__name__}-{backend}", marks=[pytest.mark.slow] if slow else [])
    for dtype in UNSIGNED
    for backend in BACKENDS
    for slow in [backend == "opencl" and dtype in (np.uint16, np.uint64)]
]
"""Every type on the interpreter; u8 and u32 on OpenCL in the quick tier, u16 and u64 in the slow one."""


def edges(dtype: type[np.unsignedinteger]) -> np.ndarray:
    """0, 1, 2, 3, the high bit alone and beside its neighbours, the largest value and its neighbour, a random one."""
    info = np.iinfo(dtype)
    high = 1 << (info.bits - 1)
    values = [0, 1, 2, 3, high - 1, high, high + 1, int(info.max) - 1, int(info.max), 0x5A & int(info.max)]
    return np.array(values, dtype)


def pairs(dtype: type[np.unsignedinteger]) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of edge values, as two arrays."""
    a, b = zip(*itertools.product(edges(dtype), repeat=2))
    return np.array(a, dtype), np.array(b, dtype)


def assert_same(got: object, want: object) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def arithmetic(xs, ys):
    return sl.map(
        lambda x, y: (x + y, x - y, x * y, x & y, x | y, x ^ y, sl.maximum(x, y), sl.minimum(x, y)),
        xs,
        ys,
    )


def comparisons(xs, ys):
    return sl.map(lambda x, y: (x < y, x <= y, x > y, x >= y, x == y, x != y), xs, ys)


def divisions(xs, ys):
    return sl.map(lambda x, y: (x // y, x % y), xs, ys)


def shifts(xs, amounts):
    return sl.map(lambda x, k: (x << k, x >> k), xs, amounts)


def unary_and_constants(xs):
    return sl.map(lambda x: (-x, ~x, abs(x), x + 1, x * 3, x // 2, x % 7, 255 - (x & 255), x**2), xs)


@pytest.mark.parametrize(("dtype", "backend"), TYPES_AND_BACKENDS)
def test_operators_against_numpy(dtype: type[np.unsignedinteger], backend: str) -> None:
    a, b = pairs(dtype)
    got = sl.jit(arithmetic, backend=backend)(a, b)
    with np.errstate(over="ignore"):
        want = (a + b, a - b, a * b, a & b, a | b, a ^ b, np.maximum(a, b), np.minimum(a, b))
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)
    got = sl.jit(comparisons, backend=backend)(a, b)
    for g, w in zip(got, (a < b, a <= b, a > b, a >= b, a == b, a != b), strict=True):
        assert_same(g, w)
    nonzero = b != 0
    got = sl.jit(divisions, backend=backend)(a[nonzero], b[nonzero])
    for g, w in zip(got, (a[nonzero] // b[nonzero], a[nonzero] % b[nonzero]), strict=True):
        assert_same(g, w)
    bits = np.iinfo(dtype).bits
    values = np.repeat(edges(dtype), 5)
    amounts = np.tile(np.array([0, 1, bits - 1, bits, bits + 1], dtype), len(edges(dtype)))
    got = sl.jit(shifts, backend=backend)(values, amounts)
    for g, w in zip(got, (values << amounts, values >> amounts), strict=True):  # numpy: 0 once the bits are shifted out
        assert_same(g, w)
    x = edges(dtype)
    got = sl.jit(unary_and_constants, backend=backend)(x)
    with np.errstate(over="ignore"):
        want = (-x, ~x, np.abs(x), x + dtype(1), x * dtype(3), x // dtype(2), x % dtype(7), dtype(255) - (x & dtype(255)), x**2)
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)


def casts(xs):
    return sl.map(
        lambda x: (
            sl.f32(x),
            sl.f64(x),
            sl.i8(x),
            sl.i16(x),
            sl.i32(x),
            sl.i64(x),
            sl.u8(x),
            sl.u16(x),
            sl.u32(x),
            sl.u64(x),
            sl.bool_(x),
        ),
        xs,
    )


CAST_TARGETS = [np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize(("dtype", "backend"), TYPES_AND_BACKENDS)
def test_casts_from_unsigned_against_numpy(dtype: type[np.unsignedinteger], backend: str) -> None:
    x = edges(dtype)
    got = sl.jit(casts, backend=backend)(x)
    for g, target in zip(got, CAST_TARGETS):
        assert_same(g, x.astype(target))
    assert_same(got[-1], x.astype(np.bool_))


def to_unsigned(fs, ints, flags):
    return (
        *sl.map(lambda f: (sl.u8(f), sl.u16(f), sl.u32(f), sl.u64(f)), fs),
        *sl.map(lambda i: (sl.u8(i), sl.u16(i), sl.u32(i), sl.u64(i)), ints),
        *sl.map(lambda b: (sl.u8(b), sl.u64(b)), flags),
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_casts_to_unsigned_against_numpy(backend: str) -> None:
    """Floats truncate towards zero (values in every target's range: out of range is undefined in numpy and C),
    signed integers wrap after sign extension (-1 is the largest value), booleans are 0 and 1."""
    fs = np.array([0.0, 0.9, 1.0, 1.5, 127.99, 128.5, 254.9, 255.0], np.float64)
    ints = np.array([-(2**63), -129, -128, -1, 0, 1, 127, 128, 255, 256, 2**31, 2**63 - 1], np.int64)
    flags = np.array([True, False])
    results = sl.jit(to_unsigned, backend=backend)(fs, ints, flags)
    floats_out, ints_out, flags_out = results[:4], results[4:8], results[8:]
    for g, target in zip(floats_out, UNSIGNED):
        assert_same(g, fs.astype(target))
    for g, target in zip(ints_out, UNSIGNED):
        assert_same(g, ints.astype(target))
    assert_same(flags_out[0], flags.astype(np.uint8))
    assert_same(flags_out[1], flags.astype(np.uint64))


def folds(xs):
    return sl.sum(xs), sl.max(xs), sl.min(xs), sl.cumsum(xs), sl.scan(sl.maximum, 0, xs)


@pytest.mark.parametrize(("dtype", "backend"), TYPES_AND_BACKENDS)
def test_reductions_and_scans_against_numpy(dtype: type[np.unsignedinteger], backend: str) -> None:
    """Sums wrap; max and min compare unsigned (the high bit is large, not negative); scans likewise."""
    rng = np.random.default_rng(3)
    xs = np.concatenate([edges(dtype), rng.integers(0, np.iinfo(dtype).max, 3000, dtype=dtype, endpoint=True)])
    total, largest, smallest, prefix, running_max = sl.jit(folds, backend=backend)(xs)
    assert_same(total, xs.sum(dtype=dtype))
    assert_same(largest, xs.max())
    assert_same(smallest, xs.min())
    assert_same(prefix, np.cumsum(xs, dtype=dtype))
    assert_same(running_max, np.maximum.accumulate(xs))
    empty = sl.jit(folds, backend=backend)(np.zeros(0, dtype))
    assert_same(empty[1], dtype(0))  # the max of nothing is the type's lowest value: 0
    assert_same(empty[2], dtype(np.iinfo(dtype).max))


def histograms(bins, values):
    n = 256
    counts = sl.hist(sl.replicate(n, sl.u32(0)), lambda a, b: a + b, 0, bins, sl.replicate(bins.shape[0], sl.u32(1)))
    sums = sl.hist(sl.replicate(n, values[0] - values[0]), lambda a, b: a + b, 0, bins, values)
    highest = sl.hist(sl.replicate(n, values[0] - values[0]), sl.maximum, 0, bins, values)
    return counts, sums, highest


def lowest_per_bin(bins, values):
    """Apart from `histograms`: soac-fuse would merge it with them, and four destinations of an i32 and three i16s
    are more than the 64 bits that one packed compare-and-swap updates (a limit of merged hists, signed too)."""
    top = ~(values[0] - values[0])
    return sl.hist(sl.replicate(256, top), sl.minimum, top, bins, values)


@pytest.mark.parametrize(("dtype", "backend"), TYPES_AND_BACKENDS)
def test_histograms_with_u8_bins_against_numpy(dtype: type[np.unsignedinteger], backend: str) -> None:
    """u8 pixel values as bins (128 and above are bins, not negative indices), the values of each unsigned type
    added (wrapping), maximised and minimised (unsigned atomics, or compare-and-swap for the narrow types)."""
    rng = np.random.default_rng(4)
    bins = rng.integers(0, 256, 5000, dtype=np.uint8)
    bins[:3] = (0, 128, 255)
    values = np.concatenate([edges(dtype), rng.integers(0, np.iinfo(dtype).max, 5000 - 10, dtype=dtype, endpoint=True)])
    counts, sums, highest = sl.jit(histograms, backend=backend)(bins, values)
    lowest = sl.jit(lowest_per_bin, backend=backend)(bins, values)
    assert_same(counts, np.bincount(bins, minlength=256).astype(np.uint32))
    want_sums = np.zeros(256, dtype)
    np.add.at(want_sums, bins, values)
    assert_same(sums, want_sums)
    want_max = np.zeros(256, dtype)
    np.maximum.at(want_max, bins, values)
    assert_same(highest, want_max)
    want_min = np.full(256, np.iinfo(dtype).max, dtype)
    np.minimum.at(want_min, bins, values)
    assert_same(lowest, want_min)


def reversed_by_u8_indices(xs, positions):
    return sl.scatter(sl.copy(xs), positions, xs), sl.map(lambda p: xs[p], positions)


@pytest.mark.parametrize("backend", BACKENDS)
def test_u8_indices_of_scatter_and_gather(backend: str) -> None:
    xs = np.arange(256, dtype=np.uint16) * np.uint16(257)
    positions = (np.uint8(255) - np.arange(256, dtype=np.uint8)).astype(np.uint8)
    scattered, gathered = sl.jit(reversed_by_u8_indices, backend=backend)(xs, positions)
    assert_same(scattered, xs[::-1].copy())
    assert_same(gathered, xs[positions])


def radix_sort(keys):
    def step(xs, bit):
        bits = sl.map(lambda x: (x >> bit) & 1, xs)
        zeros = sl.map(lambda b: 1 - b, bits)
        before_zero = sl.scan(lambda a, b: a + b, 0, zeros)
        before_one = sl.scan(lambda a, b: a + b, 0, bits)
        count_zero = sl.sum(zeros)
        positions = sl.map(lambda b, z, o: sl.where(b == 0, z - 1, count_zero + o - 1), bits, before_zero, before_one)
        return sl.scatter(sl.copy(xs), positions, xs)

    return sl.loop(32, keys, lambda i, xs: step(xs, sl.u32(i)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_radix_sort_of_u32_keys(backend: str) -> None:
    """A sort over unsigned keys: `>>` on u32 fills with zeros, positions are u32 indices."""
    rng = np.random.default_rng(5)
    keys = np.concatenate([edges(np.uint32), rng.integers(0, 2**32, 500, dtype=np.uint32)])
    assert_same(sl.jit(radix_sort, backend=backend)(keys), np.sort(keys))


def scalar_arithmetic(a, b):
    return a // b, a % b, a > b, sl.f64(a), a - b


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsigned_scalars_in_and_out(backend: str) -> None:
    f = sl.jit(scalar_arithmetic, backend=backend)
    for dtype in (np.uint8, np.uint64):
        top, low = dtype(np.iinfo(dtype).max), dtype(3)
        got = f(top, low)
        with np.errstate(over="ignore"):
            want = (top // low, top % low, top > low, np.float64(top), top - low)
        for g, w in zip(got, want, strict=True):
            assert type(g) is type(w), (g, w)
            assert g == w
        with np.errstate(over="ignore"):
            assert_same(f(low, top)[4], low - top)


def test_mixed_signedness_and_out_of_range_constants_are_refused() -> None:
    with pytest.raises(SoacTypeError, match=r"'\+' of u8 and i8: the types must agree"):
        sl.jit(lambda xs, ys: xs + ys, backend="interp")(np.zeros(2, np.uint8), np.zeros(2, np.int8))
    with pytest.raises(SoacTypeError, match="the constant -1 does not fit in u8"):
        sl.jit(lambda xs: xs + (-1), backend="interp")(np.zeros(2, np.uint8))
    with pytest.raises(SoacTypeError, match="the constant 256 does not fit in u8"):
        sl.jit(lambda xs: xs * 256, backend="interp")(np.zeros(2, np.uint8))


def test_the_traced_ir_is_signless_with_unsigned_ops() -> None:
    f = sl.jit(lambda xs, s: sl.map(lambda x: (x // s, x < s, sl.f32(x), x >> s), xs), backend="interp")
    text = f.ir(np.zeros(2, np.uint32), np.uint32(1))
    assert "ui32" not in text
    assert "bitcast" not in text
    for op in ("arith.divui", "arith.cmpi ult", "arith.uitofp", "arith.shrui"):
        assert op in text


def test_dask_chunks_of_unsigned_values() -> None:
    """soac.lang.dask runs the traced program (unsigned values typed ui8) chunk by chunk: maps give uint8 chunks,
    and the reduction's combine stage takes the uint8 partials with the unsigned operator (maxui, not maxsi)."""
    import dask.array as da
    import soac.lang.dask as sd

    xs = np.array([0, 1, 200, 255, 128, 7, 3], np.uint8)
    chunks = da.from_array(xs, chunks=3)
    mapped = sd.jit(lambda v: sl.map(lambda x: x // 3 + (x >> 1), v))(chunks).compute(scheduler="synchronous")
    assert_same(mapped, xs // np.uint8(3) + (xs >> np.uint8(1)))
    largest = sd.jit(sl.max)(chunks).compute(scheduler="synchronous")
    assert_same(largest, np.uint8(255))


def max_of_rows_by_bin(bins, rows):
    return sl.hist(sl.replicate(4, sl.replicate(3, sl.u32(0))), sl.maximum, 0, bins, rows)


@pytest.mark.parametrize("backend", BACKENDS)
def test_hist_of_unsigned_rows(backend: str) -> None:
    """A hist of rows (element-wise maxui over each row), u8 bins, one of them (200) out of the 4 bins."""
    bins = np.array([0, 1, 0, 3, 200], np.uint8)
    rows = np.array([[1, 2**31, 3], [4, 5, 6], [2**32 - 1, 0, 1], [7, 8, 9], [9, 9, 9]], np.uint32)
    want = np.zeros((4, 3), np.uint32)
    for b, row in zip(bins, rows):
        if b < 4:
            want[b] = np.maximum(want[b], row)
    assert_same(sl.jit(max_of_rows_by_bin, backend=backend)(bins, rows), want)
