"""`soac.hist` in the interpreter against numpy: known operators (ufunc.at), any operator (the sorted segmented
scan), several destinations, out-of-bounds and duplicate bins, empty inputs, and histograms in every row of a map."""

from __future__ import annotations

import numpy as np
import pytest


def hist_program(element: str, op: str, index: str = "index") -> str:
    cast = "" if index == "index" else f"%j = arith.index_cast %i : {index} to index\n    "
    bin_ = "%i" if index == "index" else "%j"
    return f"""
func.func @main(%is: tensor<?x{index}>, %ws: tensor<?x{element}>, %bins: tensor<?x{element}>, %ne: {element})
    -> tensor<?x{element}> {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?x{index}>
  %h = soac.hist %n (%is, %ws : tensor<?x{index}>, tensor<?x{element}>) into(%bins : tensor<?x{element}>)
      neutral(%ne : {element}) -> tensor<?x{element}> combine(%a: {element}, %b: {element}) {{
    %s = {op} %a, %b : {element}
    soac.yield %s : {element}
  }} lambda(%i: {index}, %w: {element}) {{
    {cast}soac.yield {bin_}, %w : index, {element}
  }}
  func.return %h : tensor<?x{element}>
}}
"""


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


# An operator that is no single op: the sum of absolute values, |a| + |b|; commutative and associative on the
# non-negative values it builds, so every order of combining a bin's rows gives one result.
ABS_SUM = """
func.func @main(%is: tensor<?xi32>, %ws: tensor<?xi32>, %bins: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %h = soac.hist %n (%is, %ws : tensor<?xi32>, tensor<?xi32>) into(%bins : tensor<?xi32>) neutral(%z : i32)
      -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %x = math.absi %a : i32
    %y = math.absi %b : i32
    %s = arith.addi %x, %y : i32
    soac.yield %s : i32
  } lambda(%i: i32, %w: i32) {
    %j = arith.index_cast %i : i32 to index
    soac.yield %j, %w : index, i32
  }
  func.return %h : tensor<?xi32>
}
"""


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


# (max, argmax) over two destinations: the largest weight of each bin and the first row that has it.
ARGMAX = """
func.func @main(%is: tensor<?xi32>, %ws: tensor<?xf32>, %best: tensor<?xf32>, %arg: tensor<?xi32>)
    -> (tensor<?xf32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %lowest = arith.constant 0xFF800000 : f32
  %none = arith.constant -1 : i32
  %iota = soac.iota %n : tensor<?xi32>
  %h, %a = soac.hist %n (%is, %ws, %iota : tensor<?xi32>, tensor<?xf32>, tensor<?xi32>)
      into(%best, %arg : tensor<?xf32>, tensor<?xi32>) neutral(%lowest, %none : f32, i32)
      -> (tensor<?xf32>, tensor<?xi32>) combine(%x: f32, %i: i32, %y: f32, %j: i32) {
    %gt = arith.cmpf ogt, %y, %x : f32
    %eq = arith.cmpf oeq, %y, %x : f32
    %first = arith.cmpi ult, %j, %i : i32
    %tie = arith.andi %eq, %first : i1
    %take = arith.ori %gt, %tie : i1
    %v = arith.select %take, %y, %x : f32
    %k = arith.select %take, %j, %i : i32
    soac.yield %v, %k : f32, i32
  } lambda(%b: i32, %w: f32, %row: i32) {
    %bin = arith.index_cast %b : i32 to index
    soac.yield %bin, %w, %row : index, f32, i32
  }
  func.return %h, %a : tensor<?xf32>, tensor<?xi32>
}
"""


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


ROWS = """
func.func @main(%iss: tensor<?x?xi32>, %bins: index) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %iss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %iss, %c1 : tensor<?x?xi32>
  %counts, %spread = soac.map %n (%iss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) lambda(%is: tensor<?xi32>) {
    %z = arith.constant 0 : i32
    %empty = soac.replicate %bins, %z : i32 -> tensor<?xi32>
    %empty2 = soac.replicate %bins, %z : i32 -> tensor<?xi32>
    %c = soac.hist %m (%is : tensor<?xi32>) into(%empty : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%i: i32) {
      %j = arith.index_cast %i : i32 to index
      %one = arith.constant 1 : i32
      soac.yield %j, %one : index, i32
    }
    %d = soac.hist %m (%is : tensor<?xi32>) into(%empty2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) {
      %x = math.absi %a : i32
      %y = math.absi %b : i32
      %s = arith.addi %x, %y : i32
      soac.yield %s : i32
    } lambda(%i: i32) {
      %j = arith.index_cast %i : i32 to index
      soac.yield %j, %i : index, i32
    }
    soac.yield %c, %d : tensor<?xi32>, tensor<?xi32>
  }
  func.return %counts, %spread : tensor<?x?xi32>, tensor<?x?xi32>
}
"""


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
