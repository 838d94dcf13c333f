"""`soac.hist` in the interpreter against numpy: known operators (ufunc.at), any operator (the sorted segmented
scan), several destinations, out-of-bounds and duplicate bins, empty inputs, histograms in every row of a map, and
bins that are rows (an element-wise operator, and one that is not)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hist_programs import (  # pyright: ignore[reportMissingImports]
    ABS_SUM,
    ARGMAX,
    ROWS,
    ROWS_BY_POSITION,
    ROWS_PER_BATCH,
    hist_program,
    rows_program,
)
from hist_programs import rows_reference as row_bins_reference  # pyright: ignore[reportMissingImports]

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


@pytest.mark.parametrize(("element", "op", "ufunc"), [("f32", "arith.addf", np.add), ("i32", "arith.maxsi", np.maximum)])
@pytest.mark.parametrize(("n", "k", "d"), [(0, 3, 2), (1, 1, 1), (200, 1, 3), (200, 6, 1), (300, 5, 4), (40, 3, 0)])
def test_bins_that_are_rows(run, element: str, op: str, ufunc: np.ufunc, n: int, k: int, d: int) -> None:
    rng = np.random.default_rng(n + 10 * k + d)
    dtype = {"f32": np.float32, "i32": np.int32}[element]
    cs = rng.integers(-1, k + 2, n).astype(np.int32)  # some bins outside, dropped
    ps = rng.integers(-50, 50, (n, d)).astype(dtype)
    dest = rng.integers(-5, 5, (k, d)).astype(dtype)
    (h,) = run(rows_program(element, op), cs, ps, dest, dtype(0))
    np.testing.assert_array_equal(h, row_bins_reference(ufunc, dest, cs, ps))
    assert h.dtype == dtype


def test_bins_that_are_rows_computed_by_the_lambda(run) -> None:
    rng = np.random.default_rng(3)
    cs = rng.integers(-1, 6, 100).astype(np.int32)
    ps = rng.integers(-9, 9, (100, 3)).astype(np.int32)
    dest = np.zeros((4, 3), np.int32)
    (h,) = run(rows_program("i32", "arith.addi", computed=True), cs, ps, dest, np.int32(0))
    np.testing.assert_array_equal(h, row_bins_reference(np.add, dest, cs - 1, ps * ps))


def test_any_operator_on_rows(run) -> None:
    """An operator on rows that is not a map over them (it reads both rows by position) runs too."""
    rng = np.random.default_rng(4)
    cs = rng.integers(-1, 5, 64).astype(np.int32)
    ps = rng.integers(-99, 99, (64, 3)).astype(np.int32)
    dest = rng.integers(-9, 9, (4, 3)).astype(np.int32)
    (h,) = run(ROWS_BY_POSITION, cs, ps, dest)
    np.testing.assert_array_equal(h, row_bins_reference(np.maximum, dest, cs, ps))


def test_a_histogram_of_rows_per_row_of_a_map(run) -> None:
    rng = np.random.default_rng(6)
    css = rng.integers(-1, 4, (3, 40)).astype(np.int32)
    pss = rng.standard_normal((3, 40, 2)).astype(np.float32)
    dests = rng.standard_normal((3, 3, 2)).astype(np.float32)
    (h,) = run(ROWS_PER_BATCH, css, pss, dests)
    expected = np.stack([row_bins_reference(np.maximum, dests[i], css[i], pss[i]) for i in range(3)])
    np.testing.assert_array_equal(h, expected)
