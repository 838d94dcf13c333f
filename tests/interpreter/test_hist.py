"""`soac.hist` in the interpreter against numpy: known operators (ufunc.at), any operator (the sorted segmented
scan), several destinations, out-of-bounds and duplicate bins, empty inputs, and histograms in every row of a map."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hist_programs import ABS_SUM, ARGMAX, ROWS, hist_program  # pyright: ignore[reportMissingImports]

REFERENCE = {
    "arith.addi": np.add,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
    "arith.xori": np.bitwise_xor,
    "arith.addf": np.add,
    "arith.maximumf": np.maximum,
}


def reference(op: str, bins: np.ndarray, is_: np.ndarray, ws: np.ndarray) -> np.ndarray:
    out = bins.copy()
    inside = (is_ >= 0) & (is_ < len(bins))
    REFERENCE[op].at(out, is_[inside], ws[inside])
    return out


@pytest.mark.parametrize(
    ("element", "op"),
    [("i32", "arith.addi"), ("i64", "arith.maxsi"), ("i32", "arith.minsi"), ("i32", "arith.xori"), ("f64", "arith.maximumf")],
)
@pytest.mark.parametrize("n", [0, 1, 1000])
def test_known_operators(run, element: str, op: str, n: int) -> None:
    rng = np.random.default_rng(n)
    dtype = {"i32": np.int32, "i64": np.int64, "f64": np.float64}[element]
    is_ = rng.integers(-3, 20, n)
    ws = rng.integers(-50, 50, n).astype(dtype)
    bins = rng.integers(-5, 5, 17).astype(dtype)
    (h,) = run(hist_program(element, op), is_, ws, bins, dtype(0))
    np.testing.assert_array_equal(h, reference(op, bins, is_, ws))
    assert h.dtype == dtype


def test_integer_sums_wrap(run) -> None:
    big = np.iinfo(np.int32).max
    (h,) = run(hist_program("i32", "arith.addi"), np.array([0, 0, 1]), np.array([big, 2, 5], np.int32), np.zeros(2, np.int32), 0)
    np.testing.assert_array_equal(h, [np.int32(-(2**31) + 1), 5])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 64, 1001])
def test_any_operator(run, n: int) -> None:
    rng = np.random.default_rng(n)
    is_ = rng.integers(-2, 9, n).astype(np.int32)
    ws = rng.integers(-9, 9, n).astype(np.int32)
    bins = rng.integers(-3, 3, 7).astype(np.int32)
    (h,) = run(ABS_SUM, is_, ws, bins)
    expected = bins.copy()
    for b, w in zip(is_, ws):
        if 0 <= b < 7:
            expected[b] = abs(expected[b]) + abs(w)
    np.testing.assert_array_equal(h, expected)


def argmax_reference(is_: np.ndarray, ws: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    best, arg = np.full(bins, -np.inf, np.float32), np.full(bins, -1, np.int32)
    for row, (b, w) in enumerate(zip(is_, ws)):
        if 0 <= b < bins and w > best[b]:
            best[b], arg[b] = w, row
    return best, arg


def test_max_and_argmax_pairs(run) -> None:
    rng = np.random.default_rng(3)
    is_ = rng.integers(-1, 12, 500).astype(np.int32)
    ws = rng.integers(0, 30, 500).astype(np.float32)
    best, arg = run(ARGMAX, is_, ws, np.full(10, -np.inf, np.float32), np.full(10, -1, np.int32))
    expected_best, expected_arg = argmax_reference(is_, ws, 10)
    np.testing.assert_array_equal(best, expected_best)
    np.testing.assert_array_equal(arg, expected_arg)


def rows_reference(iss: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    counts = np.zeros((len(iss), bins), np.int32)
    spread = np.zeros((len(iss), bins), np.int32)
    for r, row in enumerate(iss):
        for i in row:
            if 0 <= i < bins:
                counts[r, i] += 1
                spread[r, i] = abs(spread[r, i]) + abs(i)
    return counts, spread


@pytest.mark.parametrize("shape", [(4, 30), (0, 5), (3, 0), (1, 1)])
def test_a_histogram_per_row_of_a_map(run, shape: tuple[int, int]) -> None:
    iss = np.random.default_rng(5).integers(-2, 8, shape).astype(np.int32)
    counts, spread = run(ROWS, iss, 6)
    expected_counts, expected_spread = rows_reference(iss, 6)
    np.testing.assert_array_equal(counts, expected_counts)
    np.testing.assert_array_equal(spread, expected_spread)
