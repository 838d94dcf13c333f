"""The SOACs and supporting array ops, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

SQUARE_SUM = """
func.func @main(%n: index, %xs: tensor<?xf32>) -> (tensor<?xf32>, f32, tensor<?xf32>) {
  %z = arith.constant 0.0 : f32
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
    soac.yield %y : f32
  }
  %s = soac.reduce commutative %n (%ys : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  %sc = soac.scan %n (%ys : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %ys, %s, %sc : tensor<?xf32>, f32, tensor<?xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 2, 7, 100])
def test_map_reduce_scan(run, n):
    xs = np.linspace(-3, 3, n).astype(np.float32)
    ys, s, sc = run(SQUARE_SUM, n, xs)
    assert ys.dtype == np.float32
    assert sc.dtype == np.float32
    assert isinstance(s, np.float32)
    np.testing.assert_array_equal(ys, xs * xs)
    np.testing.assert_allclose(s, np.sum(xs * xs), rtol=1e-5)
    np.testing.assert_allclose(sc, np.cumsum(xs * xs), rtol=1e-5)
    assert sc.shape == (n,)


def test_million_map_scan_completes(run):
    n = 10**6
    xs = np.random.default_rng(0).random(n, dtype=np.float32)
    ys, s, sc = run(SQUARE_SUM, n, xs)
    assert ys.shape == sc.shape == (n,)
    np.testing.assert_allclose(sc[-1], s, rtol=1e-3)


MULTI_MAP = """
func.func @main(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xf64>, %k: i32) -> (tensor<?xi32>, tensor<?xf64>, tensor<?xi1>) {
  %a, %b, %c = soac.map %n (%xs, %ys : tensor<?xi32>, tensor<?xf64>) -> (tensor<?xi32>, tensor<?xf64>, tensor<?xi1>)
      lambda(%x: i32, %y: f64) {
    %s = arith.addi %x, %k : i32
    %f = arith.sitofp %x : i32 to f64
    %g = arith.mulf %f, %y : f64
    %p = arith.cmpi slt, %x, %k : i32
    soac.yield %s, %g, %p : i32, f64, i1
  }
  func.return %a, %b, %c : tensor<?xi32>, tensor<?xf64>, tensor<?xi1>
}
"""


@pytest.mark.parametrize("n", [0, 5])
def test_map_several_inputs_and_outputs(run, n):
    xs = np.arange(n, dtype=np.int32) - 2
    ys = np.arange(n, dtype=np.float64) * 0.5
    a, b, c = run(MULTI_MAP, n, xs, ys, 1)
    np.testing.assert_array_equal(a, xs + 1)
    np.testing.assert_array_equal(b, xs * ys)
    np.testing.assert_array_equal(c, xs < 1)
    assert (a.dtype, b.dtype, c.dtype) == (np.int32, np.float64, np.bool_)


CONSTANT_MAP = """
func.func @main(%n: index) -> tensor<?xf32> {
  %r = soac.map %n () -> tensor<?xf32> lambda() {
    %c = arith.constant 2.5 : f32
    soac.yield %c : f32
  }
  func.return %r : tensor<?xf32>
}
"""


def test_map_without_inputs_yields_uniform_value(run):
    (r,) = run(CONSTANT_MAP, 4)
    np.testing.assert_array_equal(r, np.full(4, 2.5, np.float32))
    r.flags.writeable = True  # results belong to the caller


ROW_SUMS = """
func.func @main(%n: index, %m: index, %xss: tensor<?x?xi64>) -> tensor<?xi64> {
  %z = arith.constant 0 : i64
  %r = soac.map %n (%xss : tensor<?x?xi64>) -> tensor<?xi64> lambda(%xs: tensor<?xi64>) {
    %s = soac.reduce %m (%xs : tensor<?xi64>) neutral(%z : i64) -> i64 combine(%a: i64, %b: i64) {
      %c = arith.addi %a, %b : i64
      soac.yield %c : i64
    }
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}
"""


@pytest.mark.parametrize(("n", "m"), [(3, 4), (0, 4), (3, 0), (1, 1)])
def test_map_of_reduce_sums_rows(run, n, m):
    xss = np.arange(n * m, dtype=np.int64).reshape(n, m)
    (r,) = run(ROW_SUMS, n, m, xss)
    np.testing.assert_array_equal(r, xss.sum(axis=1))


MAP_MAP_SCAN = """
func.func @main(%n: index, %m: index, %xss: tensor<?x?xf64>, %w: tensor<?xf64>) -> (tensor<?x?xf64>, tensor<?x?xf64>) {
  %z = arith.constant 0.0 : f64
  %a, %b = soac.map %n (%xss : tensor<?x?xf64>) -> (tensor<?x?xf64>, tensor<?x?xf64>) lambda(%xs: tensor<?xf64>) {
    %p = soac.map %m (%xs, %w : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64, %v: f64) {
      %q = arith.mulf %x, %v : f64
      soac.yield %q : f64
    }
    %s = soac.scan %m (%p : tensor<?xf64>) neutral(%z : f64) -> tensor<?xf64> combine(%l: f64, %r: f64) {
      %c = arith.addf %l, %r : f64
      soac.yield %c : f64
    }
    soac.yield %p, %s : tensor<?xf64>, tensor<?xf64>
  }
  func.return %a, %b : tensor<?x?xf64>, tensor<?x?xf64>
}
"""


@pytest.mark.parametrize(("n", "m"), [(3, 5), (0, 2), (2, 0)])
def test_map_of_map_and_scan(run, n, m):
    rng = np.random.default_rng(1)
    xss, w = rng.random((n, m)), rng.random(m)
    a, b = run(MAP_MAP_SCAN, n, m, xss, w)
    np.testing.assert_allclose(a, xss * w)
    np.testing.assert_allclose(b, np.cumsum(xss * w, axis=1))


REDOMAP = """
func.func @main(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xi32>) -> (f32, i32, tensor<?xf32>) {
  %z = arith.constant 0.0 : f32
  %lo = arith.constant -2147483648 : i32
  %s, %mx, %mo = soac.redomap commutative %n (%xs, %ys : tensor<?xf32>, tensor<?xi32>) neutral(%z, %lo : f32, i32)
      -> (f32, i32, tensor<?xf32>) combine(%a: f32, %b: i32, %c: f32, %d: i32) {
    %e = arith.addf %a, %c : f32
    %f = arith.maxsi %d, %b : i32
    soac.yield %e, %f : f32, i32
  } lambda(%x: f32, %y: i32) {
    %sq = arith.mulf %x, %x : f32
    %neg = arith.negf %x : f32
    soac.yield %sq, %y, %neg : f32, i32, f32
  }
  func.return %s, %mx, %mo : f32, i32, tensor<?xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 6])
def test_redomap_with_map_out(run, n):
    xs = np.arange(n, dtype=np.float32) - 1.5
    ys = np.array([3, -7, 9, 1, 0, 4], np.int32)[:n]
    s, mx, mo = run(REDOMAP, n, xs, ys)
    assert s == np.float32(np.sum(xs * xs))
    assert isinstance(s, np.float32)
    assert mx == (ys.max() if n else np.iinfo(np.int32).min)
    assert isinstance(mx, np.int32)
    np.testing.assert_array_equal(mo, -xs)


SCANOMAP = """
func.func @main(%n: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi1>, tensor<?xi32>) {
  %z = arith.constant 0 : i32
  %a, %b = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>)
      combine(%l: i32, %r: i32) {
    %c = arith.addi %l, %r : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %d = arith.muli %x, %x : i32
    soac.yield %d, %x : i32, i32
  }
  %p = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi1> combine(%l: i32, %r: i32) {
    %c = arith.addi %l, %r : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    soac.yield %x : i32
  } post(%s: i32, %x: i32) {
    %g = arith.cmpi sgt, %s, %x : i32
    soac.yield %g : i1
  }
  func.return %a, %p, %b : tensor<?xi32>, tensor<?xi1>, tensor<?xi32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 9])
def test_scanomap_with_map_out_and_post(run, n):
    xs = (np.arange(n, dtype=np.int32) * 7 % 5) - 2
    a, p, b = run(SCANOMAP, n, xs)
    np.testing.assert_array_equal(a, np.cumsum(xs * xs).astype(np.int32))
    np.testing.assert_array_equal(p, np.cumsum(xs) > xs)
    np.testing.assert_array_equal(b, xs)
    assert a.dtype == np.int32
    assert p.dtype == np.bool_


# A non-commutative, associative operator: composition of affine maps x -> a*x + b,
# (a1, b1) then (a2, b2) = (a1*a2, b1*a2 + b2).
AFFINE = """
func.func @main(%n: index, %as: tensor<?xi64>, %bs: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, i64, i64) {
  %one = arith.constant 1 : i64
  %zero = arith.constant 0 : i64
  %sa, %sb = soac.scan %n (%as, %bs : tensor<?xi64>, tensor<?xi64>) neutral(%one, %zero : i64, i64)
      -> (tensor<?xi64>, tensor<?xi64>) combine(%a1: i64, %b1: i64, %a2: i64, %b2: i64) {
    %a = arith.muli %a1, %a2 : i64
    %t = arith.muli %b1, %a2 : i64
    %b = arith.addi %t, %b2 : i64
    soac.yield %a, %b : i64, i64
  }
  %ra, %rb = soac.reduce %n (%as, %bs : tensor<?xi64>, tensor<?xi64>) neutral(%one, %zero : i64, i64) -> (i64, i64)
      combine(%a1: i64, %b1: i64, %a2: i64, %b2: i64) {
    %a = arith.muli %a1, %a2 : i64
    %t = arith.muli %b1, %a2 : i64
    %b = arith.addi %t, %b2 : i64
    soac.yield %a, %b : i64, i64
  }
  func.return %sa, %sb, %ra, %rb : tensor<?xi64>, tensor<?xi64>, i64, i64
}
"""


def _affine_sequential(as_, bs):
    a, b, outs = 1, 0, []
    for x, y in zip(as_, bs):
        a, b = a * int(x), b * int(x) + int(y)
        outs.append((a, b))
    return a, b, outs


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 13, 33])
def test_non_commutative_scan_and_reduce(run, n):
    rng = np.random.default_rng(n)
    as_ = rng.integers(-2, 3, n).astype(np.int64)
    bs = rng.integers(-5, 6, n).astype(np.int64)
    sa, sb, ra, rb = run(AFFINE, n, as_, bs)
    a, b, outs = _affine_sequential(as_, bs)
    assert (ra, rb) == (a, b)
    assert [(int(x), int(y)) for x, y in zip(sa, sb)] == outs


LAST = """
func.func @main(%n: index, %xs: tensor<?xf32>) -> (tensor<?xf32>, f32) {
  %ne = arith.constant -1.0 : f32
  %s = soac.scan %n (%xs : tensor<?xf32>) neutral(%ne : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    soac.yield %b : f32
  }
  %r = soac.reduce %n (%xs : tensor<?xf32>) neutral(%ne : f32) -> f32 combine(%a: f32, %b: f32) {
    soac.yield %b : f32
  }
  func.return %s, %r : tensor<?xf32>, f32
}
"""


@pytest.mark.parametrize("n", [0, 1, 6, 7])
def test_last_operator(run, n):
    xs = np.arange(n, dtype=np.float32)
    s, r = run(LAST, n, xs)
    np.testing.assert_array_equal(s, xs)
    assert r == (xs[-1] if n else -1.0)


MATMUL_SCAN = """
func.func @main(%n: index, %a: tensor<?xi32>, %b: tensor<?xi32>, %c: tensor<?xi32>, %d: tensor<?xi32>)
    -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %ra, %rb, %rc, %rd = soac.scan %n (%a, %b, %c, %d : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>)
      neutral(%one, %zero, %zero, %one : i32, i32, i32, i32) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>)
      combine(%a1: i32, %b1: i32, %c1: i32, %d1: i32, %a2: i32, %b2: i32, %c2: i32, %d2: i32) {
    %p1 = arith.muli %a1, %a2 : i32
    %p2 = arith.muli %b1, %c2 : i32
    %na = arith.addi %p1, %p2 : i32
    %p3 = arith.muli %a1, %b2 : i32
    %p4 = arith.muli %b1, %d2 : i32
    %nb = arith.addi %p3, %p4 : i32
    %p5 = arith.muli %c1, %a2 : i32
    %p6 = arith.muli %d1, %c2 : i32
    %nc = arith.addi %p5, %p6 : i32
    %p7 = arith.muli %c1, %b2 : i32
    %p8 = arith.muli %d1, %d2 : i32
    %nd = arith.addi %p7, %p8 : i32
    soac.yield %na, %nb, %nc, %nd : i32, i32, i32, i32
  }
  func.return %ra, %rb, %rc, %rd : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}
"""


def test_matrix_product_scan(run):
    n = 11
    rng = np.random.default_rng(3)
    ms = rng.integers(-2, 3, (n, 2, 2)).astype(np.int32)
    ra, rb, rc, rd = run(MATMUL_SCAN, n, ms[:, 0, 0].copy(), ms[:, 0, 1].copy(), ms[:, 1, 0].copy(), ms[:, 1, 1].copy())
    acc = np.eye(2, dtype=np.int64)
    for i in range(n):
        acc = acc @ ms[i]
        assert [ra[i], rb[i], rc[i], rd[i]] == [acc[0, 0], acc[0, 1], acc[1, 0], acc[1, 1]]


SCATTER = """
func.func @main(%n: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %dest: tensor<?xf32>, %d2: tensor<?xi32>)
    -> (tensor<?xf32>, tensor<?xi32>) {
  %r, %r2 = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%dest, %d2 : tensor<?xf32>, tensor<?xi32>)
      -> (tensor<?xf32>, tensor<?xi32>) lambda(%i: index, %v: f32) {
    %c = arith.constant 0 : index
    %j = arith.index_cast %i : index to i32
    soac.yield %i, %c, %v, %j : index, index, f32, i32
  }
  func.return %r, %r2 : tensor<?xf32>, tensor<?xi32>
}
"""


def test_scatter_copies_dests_and_last_write_wins(run):
    dest = np.zeros(5, np.float32)
    d2 = np.full(3, 7, np.int32)
    r, r2 = run(SCATTER, 4, np.array([4, 0, 2, 0]), np.array([1, 2, 3, 4], np.float32), dest, d2)
    np.testing.assert_array_equal(r, [4, 0, 3, 0, 1])
    np.testing.assert_array_equal(r2, [0, 7, 7])
    np.testing.assert_array_equal(dest, 0)  # the caller's array is untouched
    r, r2 = run(SCATTER, 0, np.zeros(0, np.int64), np.zeros(0, np.float32), dest, d2)
    np.testing.assert_array_equal(r, dest)
    np.testing.assert_array_equal(r2, d2)


def test_scatter_skips_rows_whose_index_is_out_of_bounds(run):
    """Futhark's partial scatter: -1 (or any index outside the destination) drops the row, for each destination."""
    dest = np.zeros(5, np.float32)
    d2 = np.full(3, 7, np.int32)
    r, r2 = run(SCATTER, 5, np.array([4, -1, 7, 2, 5]), np.array([1, 2, 3, 4, 5], np.float32), dest, d2)
    np.testing.assert_array_equal(r, [0, 0, 4, 0, 1])
    np.testing.assert_array_equal(r2, [5, 7, 7])  # every row writes its index into d2[0]: the later row wins
    r, _ = run(SCATTER, 2, np.array([-1, -9]), np.ones(2, np.float32), dest, d2)
    np.testing.assert_array_equal(r, 0)


NESTED_SCATTER = """
func.func @main(%n: index, %k: index, %xs: tensor<?x4xi32>, %is: tensor<?x?xindex>) -> tensor<?x4xi32> {
  %ys = soac.map %n (%xs, %is : tensor<?x4xi32>, tensor<?x?xindex>) -> tensor<?x4xi32>
      lambda(%row: tensor<4xi32>, %idx: tensor<?xindex>) {
    %new = soac.scatter %k (%idx : tensor<?xindex>) into (%row : tensor<4xi32>) -> tensor<4xi32> lambda(%i: index) {
      %v = arith.constant 7 : i32
      soac.yield %i, %v : index, i32
    }
    soac.yield %new : tensor<4xi32>
  }
  func.return %ys : tensor<?x4xi32>
}
"""


def test_partial_scatter_in_every_row_of_a_map(run):
    xs = np.arange(12, dtype=np.int32).reshape(3, 4)
    is_ = np.array([[0, -1, 3], [4, 1, 100], [-5, -1, 2]])
    (r,) = run(NESTED_SCATTER, 3, 3, xs, is_)
    np.testing.assert_array_equal(r, [[7, 1, 2, 7], [4, 7, 6, 7], [8, 9, 7, 11]])


SCATTER_ROWS = """
func.func @main(%n: index, %m: index, %k: index, %is: tensor<?xindex>) -> tensor<?x?xf64> {
  %rows = soac.map %n (%is : tensor<?xindex>) -> tensor<?x?xf64> lambda(%i: index) {
    %f = arith.index_cast %i : index to i64
    %g = arith.sitofp %f : i64 to f64
    %row = soac.replicate %k, %g : f64 -> tensor<?xf64>
    soac.yield %row : tensor<?xf64>
  }
  %z = arith.constant -1.0 : f64
  %dest = tensor.splat %z[%m, %k] : tensor<?x?xf64>
  %r = soac.scatter %n (%is, %rows : tensor<?xindex>, tensor<?x?xf64>) into(%dest : tensor<?x?xf64>) -> tensor<?x?xf64>
      lambda(%i: index, %row: tensor<?xf64>) {
    soac.yield %i, %row : index, tensor<?xf64>
  }
  func.return %r : tensor<?x?xf64>
}
"""


def test_scatter_rows(run):
    (r,) = run(SCATTER_ROWS, 2, 4, 3, np.array([3, 1]))
    expected = np.full((4, 3), -1.0)
    expected[3], expected[1] = 3.0, 1.0
    np.testing.assert_array_equal(r, expected)
    (r,) = run(SCATTER_ROWS, 4, 4, 3, np.array([3, -1, 4, 1]))
    np.testing.assert_array_equal(r, expected)


SEG = """
func.func @main(%n: index, %m: index, %a: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %z = arith.constant 0.0 : f32
  %t = soac.segmap thread (%m, %n) -> tensor<?x?xf32> lambda(%j: index, %i: index) {
    %e = soac.index %a[%i, %j] : tensor<?x?xf32> -> f32
    soac.yield %e : f32
  }
  %s, %sq = soac.segred group (%n, %m) neutral(%z : f32) -> (tensor<?xf32>, tensor<?x?xf32>) combine(%x: f32, %y: f32) {
    %c = arith.addf %x, %y : f32
    soac.yield %c : f32
  } lambda(%i: index, %j: index) {
    %e = soac.index %a[%i, %j] : tensor<?x?xf32> -> f32
    %q = arith.mulf %e, %e : f32
    soac.yield %e, %q : f32, f32
  }
  %c = soac.segscan thread (%n, %m) neutral(%z : f32) -> tensor<?x?xf32> combine(%x: f32, %y: f32) {
    %c = arith.addf %x, %y : f32
    soac.yield %c : f32
  } lambda(%i: index, %j: index) {
    %e = soac.index %a[%i, %j] : tensor<?x?xf32> -> f32
    soac.yield %e : f32
  }
  func.return %t, %s, %sq, %c : tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
"""


@pytest.mark.parametrize(("n", "m"), [(3, 4), (0, 3), (2, 0), (1, 1)])
def test_segmented_ops_2d(run, n, m):
    a = np.arange(n * m, dtype=np.float32).reshape(n, m) - 3
    t, s, sq, c = run(SEG, n, m, a)
    np.testing.assert_array_equal(t, a.T)
    np.testing.assert_array_equal(s, a.sum(axis=1))
    np.testing.assert_array_equal(sq, a * a)
    np.testing.assert_array_equal(c, np.cumsum(a, axis=1))
    assert t.shape == (m, n)
    assert s.shape == (n,)
    assert c.shape == (n, m)


SEG3 = """
func.func @main(%p: index, %n: index, %m: index, %a: tensor<?x?x?xi32>)
    -> (tensor<?x?xi32>, tensor<?x?x?xi32>, tensor<?x?x?xi32>) {
  %z = arith.constant 0 : i32
  %s = soac.segred thread (%p, %n, %m) neutral(%z : i32) -> tensor<?x?xi32> combine(%x: i32, %y: i32) {
    %c = arith.addi %x, %y : i32
    soac.yield %c : i32
  } lambda(%i: index, %j: index, %k: index) {
    %e = soac.index %a[%i, %j, %k] : tensor<?x?x?xi32> -> i32
    soac.yield %e : i32
  }
  %lo = arith.constant 2147483647 : i32
  %c = soac.segscan thread (%p, %n, %m) neutral(%lo : i32) -> tensor<?x?x?xi32> combine(%x: i32, %y: i32) {
    %c = arith.minsi %x, %y : i32
    %d = arith.addi %c, %z : i32
    soac.yield %d : i32
  } lambda(%i: index, %j: index, %k: index) {
    %e = soac.index %a[%i, %j, %k] : tensor<?x?x?xi32> -> i32
    soac.yield %e : i32
  }
  %ids = soac.segmap thread (%p, %n, %m) -> tensor<?x?x?xi32> lambda(%i: index, %j: index, %k: index) {
    %x = arith.muli %i, %n : index
    %y = arith.addi %x, %j : index
    %w = arith.muli %y, %m : index
    %v = arith.addi %w, %k : index
    %r = arith.index_cast %v : index to i32
    soac.yield %r : i32
  }
  func.return %s, %c, %ids : tensor<?x?xi32>, tensor<?x?x?xi32>, tensor<?x?x?xi32>
}
"""


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 0, 2), (2, 2, 0)])
def test_segmented_ops_3d(run, shape):
    a = np.random.default_rng(4).integers(-9, 9, shape).astype(np.int32)
    s, c, ids = run(SEG3, *shape, a)
    np.testing.assert_array_equal(s, a.sum(axis=2))
    np.testing.assert_array_equal(c, np.minimum.accumulate(a, axis=2) if a.size else a)
    np.testing.assert_array_equal(ids, np.arange(a.size).reshape(shape))


ARRAY_OPS = """
func.func @main(%n: index, %i: index, %j: index, %m: tensor<?x?xf32>, %xs: tensor<?xf32>, %v: f32)
    -> (tensor<?xi32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, f32, tensor<?xf32>, tensor<?xf32>, tensor<?xi64>) {
  %io = soac.iota %n : tensor<?xi32>
  %row = soac.index %m[%i] : tensor<?x?xf32> -> tensor<?xf32>
  %rep = soac.replicate %n, %row : tensor<?xf32> -> tensor<?x?xf32>
  %t = soac.transpose %m [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %e = soac.index %m[%i, %j] : tensor<?x?xf32> -> f32
  %sl = soac.slice %xs[%i : %n] : tensor<?xf32> -> tensor<?xf32>
  %up = soac.update %xs[%j] = %v : tensor<?xf32>, f32
  %io64 = soac.iota %n : tensor<?xi64>
  func.return %io, %rep, %t, %row, %e, %sl, %up, %io64
      : tensor<?xi32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, f32, tensor<?xf32>, tensor<?xf32>, tensor<?xi64>
}
"""


def test_array_ops(run):
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    xs = np.arange(5, dtype=np.float32) * 10
    io, rep, t, row, e, sl, up, io64 = run(ARRAY_OPS, 5, 1, 2, m, xs, -1.0)
    np.testing.assert_array_equal(io, np.arange(5))
    assert io.dtype == np.int32
    assert io64.dtype == np.int64
    np.testing.assert_array_equal(rep, np.tile(m[1], (5, 1)))
    np.testing.assert_array_equal(t, m.T)
    np.testing.assert_array_equal(row, m[1])
    assert e == m[1, 2]
    np.testing.assert_array_equal(sl, xs[1:5])
    np.testing.assert_array_equal(up, [0, 10, -1, 30, 40])
    np.testing.assert_array_equal(xs, np.arange(5) * 10)  # copy-on-write


TRANSPOSE3 = """
func.func @main(%a: tensor<?x?x?xi32>) -> tensor<?x?x?xi32> {
  %t = soac.transpose %a [2, 0, 1] : tensor<?x?x?xi32> -> tensor<?x?x?xi32>
  func.return %t : tensor<?x?x?xi32>
}
"""


def test_transpose_rank3(run):
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    (t,) = run(TRANSPOSE3, a)
    np.testing.assert_array_equal(t, np.transpose(a, (2, 0, 1)))
    assert t.shape == (4, 2, 3)


THRESHOLD = """
func.func @main(%par: index) -> (i1, i1) {
  %a = soac.threshold "suff_outer_par_0" %par default 32768
  %b = soac.threshold "suff_intra_par_1" %par default 32
  func.return %a, %b : i1, i1
}
"""


def test_thresholds(run):
    assert run(THRESHOLD, 100) == (False, True)
    assert run(THRESHOLD, 32768) == (True, True)
    assert run(THRESHOLD, 100, thresholds={"suff_outer_par_0": 100, "suff_intra_par_1": 101}) == (True, False)
    a, _ = run(THRESHOLD, 1)
    assert isinstance(a, np.bool_)


PER_LANE = """
func.func @main(%n: index, %m: index, %xss: tensor<?x?xf32>, %is: tensor<?xindex>, %js: tensor<?xindex>)
    -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
  %e, %up, %tr, %sl = soac.map %n (%xss, %is, %js : tensor<?x?xf32>, tensor<?xindex>, tensor<?xindex>)
      -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>)
      lambda(%xs: tensor<?xf32>, %i: index, %j: index) {
    %x = soac.index %xs[%i] : tensor<?xf32> -> f32
    %y = soac.index %xss[%j, %i] : tensor<?x?xf32> -> f32
    %s = arith.addf %x, %y : f32
    %c2 = arith.constant 2 : index
    %end = arith.addi %i, %c2 : index
    %w = soac.slice %xs[%i : %end] : tensor<?xf32> -> tensor<?xf32>
    %u = soac.update %xs[%j] = %s : tensor<?xf32>, f32
    %row = soac.index %xss[%j] : tensor<?x?xf32> -> tensor<?xf32>
    soac.yield %s, %u, %x, %w : f32, tensor<?xf32>, f32, tensor<?xf32>
  }
  func.return %e, %up, %tr, %sl : tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>
}
"""


def test_per_lane_index_update_slice(run):
    xss = np.arange(20, dtype=np.float32).reshape(4, 5)
    is_ = np.array([0, 3, 1, 2])
    js = np.array([3, 0, 0, 2])
    e, up, tr, sl = run(PER_LANE, 4, 5, xss, is_, js)
    lanes = range(4)
    expected_e = [xss[k, is_[k]] + xss[js[k], is_[k]] for k in lanes]
    np.testing.assert_array_equal(e, expected_e)
    expected_up = xss.copy()
    for k in lanes:
        expected_up[k, js[k]] = expected_e[k]
    np.testing.assert_array_equal(up, expected_up)
    np.testing.assert_array_equal(tr, [xss[k, is_[k]] for k in lanes])
    np.testing.assert_array_equal(sl, [xss[k, is_[k] : is_[k] + 2] for k in lanes])


TRIANGLE = """
func.func @main(%n: index) -> (tensor<?xi64>, tensor<?xi64>) {
  %is = soac.iota %n : tensor<?xi64>
  %z = arith.constant 0 : i64
  %sums, %lens = soac.map %n (%is : tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) lambda(%i: i64) {
    %w = arith.index_cast %i : i64 to index
    %js = soac.iota %w : tensor<?xi64>
    %s = soac.reduce %w (%js : tensor<?xi64>) neutral(%z : i64) -> i64 combine(%a: i64, %b: i64) {
      %c = arith.addi %a, %b : i64
      soac.yield %c : i64
    }
    %d = tensor.dim %js, %c0 : tensor<?xi64>
    %c0 = arith.constant 0 : index
    %l = arith.index_cast %w : index to i64
    soac.yield %s, %l : i64, i64
  }
  func.return %sums, %lens : tensor<?xi64>, tensor<?xi64>
}
"""


def test_irregular_inner_widths(run):
    src = TRIANGLE.replace("    %d = tensor.dim %js, %c0 : tensor<?xi64>\n    %c0 = arith.constant 0 : index\n", "")
    sums, lens = run(src, 7)
    np.testing.assert_array_equal(sums, [i * (i - 1) // 2 for i in range(7)])
    np.testing.assert_array_equal(lens, np.arange(7))
