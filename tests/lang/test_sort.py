"""`sl.sort`, `sl.argsort`, `sl.sort_by_key` and `sl.partition` against numpy's stable sorts: every key type (i32,
u32, i64, u64, f32, f64: signed and negative keys, -0.0 beside 0.0), sizes 0 and 1, all keys equal, already sorted,
reversed; digit widths that do and do not divide the key's bits; on the interpreter and (fewer, each a compile) on
OpenCL; mistakes reported at the user's line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soac.lang as sl

HERE = Path(__file__)
DTYPES = [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]


def line_of(marker: str) -> str:
    lines = HERE.read_text().splitlines()
    (number,) = [k + 1 for k, line in enumerate(lines) if line.rstrip().endswith(f"# {marker}")]
    return f"{HERE}:{number}"


def keys(dtype: type, kind: str, n: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        xs = (rng.standard_normal(n) * 1e3).astype(dt)
        xs[rng.random(n) < 0.1] = 0.0
        xs[rng.random(n) < 0.1] = -0.0
    else:
        info = np.iinfo(dt)
        xs = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        xs[rng.random(n) < 0.2] = info.max
    if kind == "equal":
        xs[:] = xs[0] if n else xs
    elif kind == "sorted":
        xs = np.sort(xs)
    elif kind == "reversed":
        xs = np.sort(xs)[::-1].copy()
    elif kind == "few":
        xs = rng.choice(xs[:3], n) if n >= 3 else xs
    return xs


def sorts(backend: str, digit_bits: int = 8, lowering: dict | None = None):
    @sl.jit(backend=backend, lowering=lowering)
    def sort(xs):
        return sl.sort(xs, digit_bits=digit_bits)

    @sl.jit(backend=backend, lowering=lowering)
    def argsort(xs):
        return sl.argsort(xs, digit_bits=digit_bits)

    @sl.jit(backend=backend, lowering=lowering)
    def by_key(ks, vs):
        return sl.sort_by_key(ks, vs, digit_bits=digit_bits)

    return sort, argsort, by_key


def check(functions, xs: np.ndarray) -> None:
    sort, argsort, by_key = functions
    order = np.argsort(xs, kind="stable")
    np.testing.assert_array_equal(sort(xs), np.sort(xs, kind="stable"))
    np.testing.assert_array_equal(argsort(xs), order)
    vs = np.arange(len(xs), dtype=np.float32) * 0.5
    ks, moved = by_key(xs, vs)
    np.testing.assert_array_equal(ks, xs[order])
    np.testing.assert_array_equal(moved, vs[order])


INTERP = sorts("interp")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(("kind", "n"), [("random", 0), ("random", 1), ("random", 1000), ("equal", 50), ("few", 300)])
def test_interpreter_sorts(dtype: type, kind: str, n: int):
    check(INTERP, keys(dtype, kind, n))


@pytest.mark.parametrize("digit_bits", [3, 11])
def test_digit_widths(digit_bits: int):
    check(sorts("interp", digit_bits), keys(np.int32, "random", 500))


def test_opencl_sorts_i32():
    """Sizes around the default tile (4096 rows)."""
    functions = sorts("opencl")
    for kind, n in [("random", 0), ("random", 1), ("random", 4095), ("random", 4096), ("random", 4097), ("sorted", 5000)]:
        check(functions, keys(np.int32, kind, n))
    check(functions, keys(np.int32, "reversed", 3001))


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.uint32, np.int64, np.uint64, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_opencl_sorts_other_keys(dtype: type):
    functions = sorts("opencl")
    for kind, n in [("random", 1), ("random", 9001), ("equal", 4096), ("few", 4097)]:
        check(functions, keys(dtype, kind, n))


def test_a_histogram_per_place_and_partitions_given_their_counts():
    sort, _, _ = sorts("interp")
    sort(keys(np.int32, "random", 10))
    ir = str(sort.ir(optimized=True))
    assert ir.count("soac.hist") == 4
    assert ir.count("soac.partition") == 4
    assert ir.count("buckets 256 counts(") == 4


EMULATED_WARPS = {"target": "emulated-warps", "group_size": 32, "scan_group": 32, "scan_items": 8, "max_groups": 8}


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.int32, np.float64], ids=lambda d: np.dtype(d).name)
def test_opencl_onesweep_on_emulated_warps(dtype: type):
    """The NVIDIA kernels (ballots and shuffles through local memory) with the look-back scan: the histograms of the
    places and one pass per digit place."""
    functions = sorts("opencl", lowering=EMULATED_WARPS)
    for kind, n in [("random", 0), ("random", 1), ("random", 4097), ("few", 3000), ("sorted", 2000)]:
        check(functions, keys(dtype, kind, n))
    assert "partition_onesweep" in functions[0].opencl()


def test_partition_as_a_filter():
    @sl.jit(backend="opencl")
    def positives(xs):
        counts, moved = sl.partition(1, lambda x: sl.where(x > 0, 0, 1), xs)
        return counts, moved

    xs = np.random.default_rng(3).integers(-100, 100, 5000).astype(np.int32)
    counts, moved = positives(xs)
    kept = xs[xs > 0]
    assert counts.tolist() == [len(kept)]
    np.testing.assert_array_equal(moved, np.concatenate([kept, xs[xs <= 0]]))


def test_unsortable_keys_are_refused_at_the_line():
    @sl.jit(backend="interp")
    def f(xs):
        return sl.sort(xs)  # SORT_I16

    with pytest.raises(sl.SoacTypeError) as error:
        f(np.arange(4, dtype=np.int16))
    assert str(error.value).startswith(line_of("SORT_I16") + ": sl.sort sorts keys of i32, u32, i64, u64, f32, f64, not i16")


def test_bad_digit_width_and_rank():
    @sl.jit(backend="interp")
    def wide(xs):
        return sl.argsort(xs, digit_bits=17)  # WIDE

    @sl.jit(backend="interp")
    def flat(xs):
        return sl.sort(xs)  # RANK

    with pytest.raises(sl.SoacTypeError, match="digit_bits must be an int from 1 to 11, not 17") as error:
        wide(np.arange(4, dtype=np.int32))
    assert str(error.value).startswith(line_of("WIDE"))
    with pytest.raises(sl.SoacTypeError, match=r"sl\.sort sorts a 1-D array, not a 2-D i32 array") as error:
        flat(np.zeros((2, 2), np.int32))
    assert str(error.value).startswith(line_of("RANK"))


def test_partition_bucket_must_be_an_integer():
    @sl.jit(backend="interp")
    def f(xs):
        return sl.partition(2, lambda x: x * 0.5, xs)  # FLOAT_BUCKET

    with pytest.raises(sl.SoacTypeError, match="must give an integer, not a f32 scalar") as error:
        f(np.ones(3, np.float32))
    assert str(error.value).startswith(line_of("FLOAT_BUCKET"))


def test_filters_of_1d_arrays_are_partitions():
    """`sl.filter` and `sl.compress` of a 1-D array are one partition into one bucket (no scan, no scatter) and the
    kept elements' slice; of rows, a scan and a scatter still. Both against numpy, around the tile."""

    @sl.jit(backend="opencl")
    def positives(xs):
        return sl.filter(lambda x: x > 0, xs)

    @sl.jit(backend="opencl")
    def even_rows(m, xss):
        return sl.compress(m, xss)

    rng = np.random.default_rng(8)
    for n in (0, 1, 4095, 4097, 20011):
        xs = rng.integers(-100, 100, n).astype(np.int32)
        np.testing.assert_array_equal(positives(xs), xs[xs > 0])
        xss = rng.standard_normal((n, 3)).astype(np.float32)
        mask = np.arange(n) % 2 == 0
        np.testing.assert_array_equal(even_rows(mask, xss), xss[mask])
    flat = str(positives.ir(optimized=True))
    assert flat.count("soac.partition") == 1
    assert "soac.scatter" not in flat
    assert "soac.scan" not in flat
    assert "soac.scatter" in str(even_rows.ir(optimized=True))
