"""Check unsigned integers (u8 u16 u32 u64) on a device against numpy, at sizes that use every kernel strategy.

    python bench/check_unsigned.py [--device nvidia] [--small]

For each type: the operators, comparisons, min/max, divisions and shifts on every pair of edge values (0, 1,
the high bit and its neighbours, the largest value and its neighbour), casts to and from floats and signed types,
sums, max, min, prefix sums and running maxima (several work-groups, look-back on GPUs), histograms with u8 bins
(hardware atomics for 32- and 64-bit adds and unsigned max, compare-and-swap for the narrow types); then a radix
sort of u32 keys and the histogram equalisation of examples/python/histeq.py on an np.uint8 image. Prints one
line per check and exits with the number of failures. `--small` runs at sizes for a CPU device (PoCL).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
UNSIGNED = (np.uint8, np.uint16, np.uint32, np.uint64)


def edges(dtype: Any) -> np.ndarray:
    info = np.iinfo(dtype)
    high = 1 << (info.bits - 1)
    return np.array([0, 1, 2, 3, high - 1, high, high + 1, int(info.max) - 1, int(info.max), 0x5A], dtype)


def operators(xs: Any, ys: Any) -> Any:
    import soac.lang as sl

    return sl.map(
        lambda x, y: (
            x + y, x - y, x * y, x & y, x | y, x ^ y, sl.maximum(x, y), sl.minimum(x, y),
            x < y, x <= y, x > y, x >= y, x == y, x != y,
            x // sl.maximum(y, 1), x % sl.maximum(y, 1), x << (y & 7), x >> (y & 7),
        ),
        xs,
        ys,
    )  # fmt: skip


def expected_operators(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    one = a.dtype.type(1)
    d = np.maximum(b, one)
    s = b & a.dtype.type(7)
    with np.errstate(over="ignore"):
        return (
            a + b, a - b, a * b, a & b, a | b, a ^ b, np.maximum(a, b), np.minimum(a, b),
            a < b, a <= b, a > b, a >= b, a == b, a != b,
            a // d, a % d, a << s, a >> s,
        )  # fmt: skip


def casts(xs: Any, fs: Any) -> Any:
    import soac.lang as sl

    return (
        *sl.map(lambda x: (sl.f32(x), sl.f64(x), sl.i8(x), sl.i64(x), sl.u8(x), sl.u64(x)), xs),
        *sl.map(lambda f: (sl.u8(f), sl.u16(f), sl.u32(f), sl.u64(f)), fs),
    )


def folds(xs: Any) -> Any:
    import soac.lang as sl

    return sl.sum(xs), sl.max(xs), sl.min(xs), sl.cumsum(xs), sl.scan(sl.maximum, 0, xs)


def histograms(bins: Any, values: Any) -> Any:
    import soac.lang as sl

    zero = values[0] - values[0]
    sums = sl.hist(sl.replicate(256, zero), lambda a, b: a + b, 0, bins, values)
    highest = sl.hist(sl.replicate(256, zero), sl.maximum, 0, bins, values)
    return sums, highest


def lowest_per_bin(bins: Any, values: Any) -> Any:
    """Apart from `histograms`, which soac-fuse would merge it with: the unsigned minimum's own update (an atomic
    umin, or compare-and-swap for the narrow types) rather than a packed update of the merged destinations."""
    import soac.lang as sl

    top = ~(values[0] - values[0])
    return sl.hist(sl.replicate(256, top), sl.minimum, top, bins, values)


def negated_min_rows(xss: Any, yss: Any) -> Any:
    """tests/stanzas/negated_min_reduction.mlir's shape (which NVIDIA's compiler got wrong for signed min as C
    ternaries) with unsigned min and max, which print as ternaries on every target."""
    import soac.lang as sl

    return (
        sl.map(lambda xs, ys: sl.min(sl.map(lambda x, y: sl.minimum(-x, y), xs, ys)), xss, yss),
        sl.map(lambda xs, ys: sl.max(sl.map(lambda x, y: sl.maximum(-x, y), xs, ys)), xss, yss),
    )


def radix_sort(keys: Any) -> Any:
    import soac.lang as sl

    def step(xs: Any, bit: Any) -> Any:
        bits = sl.map(lambda x: (x >> bit) & 1, xs)
        zeros = sl.map(lambda b: 1 - b, bits)
        before_zero = sl.scan(lambda a, b: a + b, 0, zeros)
        before_one = sl.scan(lambda a, b: a + b, 0, bits)
        count_zero = sl.sum(zeros)
        positions = sl.map(lambda b, z, o: sl.where(b == 0, z - 1, count_zero + o - 1), bits, before_zero, before_one)
        return sl.scatter(sl.copy(xs), positions, xs)

    return sl.loop(32, keys, lambda i, xs: step(xs, sl.u32(i)))


def same(got: Any, want: Any, what: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    if not np.array_equal(got, want):
        where = np.argwhere(got != want)[0] if got.ndim else ()
        raise AssertionError(f"{what}: at {tuple(where)} got {got[tuple(where)]}, expected {want[tuple(where)]}")


def main() -> int:  # noqa: C901
    import soac.lang as sl
    from soac.lowering.runtime import choose_device

    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    parser.add_argument("--small", action="store_true", help="sizes for a CPU device")
    options = parser.parse_args()
    print(f"device {choose_device(options.device).name}")
    sizes = [1, 7, 4097, 65536 * 3 + 5] if options.small else [1, 7, 4097, 65536 * 3 + 5, 2**22 + 3, 2**24 + 5]
    rng = np.random.default_rng(0)
    failures = 0

    def jit(fn: Callable[..., Any]) -> Any:
        return sl.jit(fn, device=options.device)

    def check(label: str, run: Callable[[], None]) -> None:
        nonlocal failures
        try:
            run()
            print(f"ok   {label}", flush=True)
        except Exception:
            failures += 1
            print(f"FAIL {label}\n{traceback.format_exc()}", flush=True)

    for dtype in UNSIGNED:
        name = dtype.__name__
        info = np.iinfo(dtype)

        def run_operators(dtype: Any = dtype) -> None:
            a, b = (np.array(v, dtype) for v in zip(*itertools.product(edges(dtype), repeat=2)))
            for k, (g, e) in enumerate(zip(jit(operators)(a, b), expected_operators(a, b), strict=True)):
                same(g, e, f"result {k}")

        def run_casts(dtype: Any = dtype, info: Any = info) -> None:
            x = edges(dtype)
            fs = np.array([0.0, 0.5, 1.0, 127.9, 128.0, 200.5, 255.0], np.float64)
            got = jit(casts)(x, fs)
            targets = (np.float32, np.float64, np.int8, np.int64, np.uint8, np.uint64)
            for k, (g, t) in enumerate(zip(got[:6], targets)):
                same(g, x.astype(t), f"cast {k}")
            for k, (g, t) in enumerate(zip(got[6:], UNSIGNED)):
                same(g, fs.astype(t), f"float cast {k}")

        def run_folds(dtype: Any = dtype, info: Any = info) -> None:
            f = jit(folds)
            for n in sizes:
                xs = rng.integers(0, info.max, n, dtype=dtype, endpoint=True)
                xs[: min(n, 10)] = edges(dtype)[: min(n, 10)]
                total, largest, smallest, prefix, running = f(xs)
                same(total, xs.sum(dtype=dtype), f"n={n} sum")
                same(largest, xs.max(), f"n={n} max")
                same(smallest, xs.min(), f"n={n} min")
                same(prefix, np.cumsum(xs, dtype=dtype), f"n={n} cumsum")
                same(running, np.maximum.accumulate(xs), f"n={n} running max")

        def run_hists(dtype: Any = dtype, info: Any = info) -> None:
            f, g = jit(histograms), jit(lowest_per_bin)
            for n in sizes[1:]:
                bins = rng.integers(0, 256, n, dtype=np.uint8)
                values = rng.integers(0, info.max, n, dtype=dtype, endpoint=True)
                values[: min(n, 10)] = edges(dtype)[: min(n, 10)]
                sums, highest = f(bins, values)
                lowest = g(bins, values)
                want_sums, want_max, want_min = np.zeros(256, dtype), np.zeros(256, dtype), np.full(256, info.max, dtype)
                np.add.at(want_sums, bins, values)
                np.maximum.at(want_max, bins, values)
                np.minimum.at(want_min, bins, values)
                same(lowest, want_min, f"n={n} hist min")
                same(sums, want_sums, f"n={n} hist +")
                same(highest, want_max, f"n={n} hist max")

        def run_negated(dtype: Any = dtype, info: Any = info) -> None:
            xss = rng.integers(0, info.max, (1000, 37), dtype=dtype, endpoint=True)
            yss = rng.integers(0, info.max, (1000, 37), dtype=dtype, endpoint=True)
            lows, highs = jit(negated_min_rows)(xss, yss)
            with np.errstate(over="ignore"):
                same(lows, np.minimum(-xss, yss).min(axis=1), "min of rows")
                same(highs, np.maximum(-xss, yss).max(axis=1), "max of rows")

        check(f"{name} operators on edge values", run_operators)
        check(f"{name} min (-x) y and max (-x) y reduced by rows", run_negated)
        check(f"{name} casts", run_casts)
        check(f"{name} sum, max, min, cumsum, running max", run_folds)
        check(f"{name} hist (+, max, min) with u8 bins", run_hists)

    def run_sort() -> None:
        f = jit(radix_sort)
        for n in sizes[:4]:
            keys = rng.integers(0, 2**32, n, dtype=np.uint32)
            keys[: min(n, 10)] = edges(np.uint32)[: min(n, 10)]
            same(f(keys), np.sort(keys), f"n={n}")

    def run_histeq() -> None:
        spec = importlib.util.spec_from_file_location("histeq_example", ROOT / "examples" / "python" / "histeq.py")
        assert spec is not None
        assert spec.loader is not None
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)
        f = jit(example.histeq)
        for shape in [(1, 1), (480, 640)] + ([] if options.small else [(4096, 4096)]):
            image = np.clip(rng.normal(100, 30, shape), 0, 255).astype(np.uint8)
            same(f(image), example.reference(image), f"image {shape}")

    check("u32 radix sort", run_sort)
    check("histeq of an np.uint8 image (examples/python/histeq.py)", run_histeq)
    print(f"{failures} failure(s)")
    return failures


if __name__ == "__main__":
    sys.exit(main())
