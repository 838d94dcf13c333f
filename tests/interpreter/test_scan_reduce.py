"""`soac.scanomap` with a reduction part (Futhark's Screma with scans and reductions), against numpy."""

from __future__ import annotations

import numpy as np
import pytest

SCAN_REDUCE = """
func.func @main(%n: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, i32, tensor<?xi32>) {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %s, %p, %sq = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) reduce commutative(%one : i32)
      -> (tensor<?xi32>, i32, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } reduce_combine(%a: i32, %b: i32) {
    %c = arith.muli %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %q = arith.muli %x, %x : i32
    soac.yield %x, %x, %q : i32, i32, i32
  }
  func.return %s, %p, %sq : tensor<?xi32>, i32, tensor<?xi32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 2, 4, 7, 100])
def test_scan_reduce_fast_path(run, n):
    """FU-23: `(scan (+) 0 xs, reduce (*) 1 xs)`, with a map-out."""
    xs = (np.arange(n, dtype=np.int32) % 5) - 2
    s, p, sq = run(SCAN_REDUCE, n, xs)
    np.testing.assert_array_equal(s, np.cumsum(xs, dtype=np.int32))
    assert p == np.prod(xs, dtype=np.int32)
    assert isinstance(p, np.int32)
    np.testing.assert_array_equal(sq, xs * xs)


def test_futhark_example(run):
    s, p, _ = run(SCAN_REDUCE, 4, np.array([1, 2, 3, 4], np.int32))
    np.testing.assert_array_equal(s, [1, 3, 6, 10])
    assert p == 24


# A non-commutative reduction (the first and last element, as a pair) and a post lambda: the tree path.
FIRST_LAST = """
func.func @main(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>) -> (tensor<?xf32>, i32, i32, f32, tensor<?xi32>) {
  %z = arith.constant 0.0 : f32
  %none = arith.constant -1 : i32
  %ninf = arith.constant -1.0e30 : f32
  %d, %first, %last, %mx, %mo = soac.scanomap %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) neutral(%z : f32)
      reduce(%none, %none, %ninf : i32, i32, f32) -> (tensor<?xf32>, i32, i32, f32, tensor<?xi32>)
      combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } reduce_combine(%f1: i32, %l1: i32, %m1: f32, %f2: i32, %l2: i32, %m2: f32) {
    %c0 = arith.constant -1 : i32
    %e = arith.cmpi eq, %f1, %c0 : i32
    %f = arith.select %e, %f2, %f1 : i32
    %e2 = arith.cmpi eq, %l2, %c0 : i32
    %l = arith.select %e2, %l1, %l2 : i32
    %m = arith.maximumf %m1, %m2 : f32
    soac.yield %f, %l, %m : i32, i32, f32
  } lambda(%x: f32, %i: i32) {
    %i2 = arith.addi %i, %i : i32
    soac.yield %x, %i, %i, %x, %i2 : f32, i32, i32, f32, i32
  } post(%s: f32, %x: f32, %i: i32) {
    %diff = arith.subf %s, %x : f32
    soac.yield %diff : f32
  }
  func.return %d, %first, %last, %mx, %mo : tensor<?xf32>, i32, i32, f32, tensor<?xi32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 3, 8, 33])
def test_non_commutative_reduction_with_post(run, n):
    rng = np.random.default_rng(n)
    xs = rng.integers(-8, 8, n).astype(np.float32)
    is_ = rng.integers(0, 100, n).astype(np.int32)
    d, first, last, mx, mo = run(FIRST_LAST, n, xs, is_)
    np.testing.assert_allclose(d, np.cumsum(xs) - xs)
    assert first == (is_[0] if n else -1)
    assert last == (is_[-1] if n else -1)
    assert mx == (xs.max() if n else np.float32(-1.0e30))
    np.testing.assert_array_equal(mo, 2 * is_)


# The same scanomap in a map over rows: the reduction runs on every lane at once.
NESTED = """
func.func @main(%n: index, %m: index, %xss: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) {
  %ss, %ms = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) lambda(%row: tensor<?xi32>) {
    %z = arith.constant 0 : i32
    %lo = arith.constant -2147483648 : i32
    %s, %mx = soac.scanomap %m (%row : tensor<?xi32>) neutral(%z : i32) reduce(%lo : i32) -> (tensor<?xi32>, i32)
        combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    } reduce_combine(%a: i32, %b: i32) {
      %c = arith.maxsi %a, %b : i32
      soac.yield %c : i32
    } lambda(%x: i32) {
      soac.yield %x, %x : i32, i32
    }
    soac.yield %s, %mx : tensor<?xi32>, i32
  }
  func.return %ss, %ms : tensor<?x?xi32>, tensor<?xi32>
}
"""


@pytest.mark.parametrize(("n", "m"), [(3, 5), (1, 1), (4, 0)])
def test_nested_in_map(run, n, m):
    xss = np.random.default_rng(1).integers(-50, 50, (n, m)).astype(np.int32)
    ss, ms = run(NESTED, n, m, xss)
    np.testing.assert_array_equal(ss, np.cumsum(xss, axis=1, dtype=np.int32))
    expected = xss.max(axis=1) if m else np.full(n, np.iinfo(np.int32).min, np.int32)
    np.testing.assert_array_equal(ms, expected)
