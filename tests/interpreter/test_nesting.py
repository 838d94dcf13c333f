"""Nested parallelism: SOACs inside lambdas, per-lane control flow, irregular inner widths."""

from __future__ import annotations

import numpy as np

INNER_OPS = """
func.func @main(%n: index, %m: index, %xss: tensor<?x?xi32>, %ks: tensor<?xi32>)
    -> (tensor<?x?xi32>, tensor<?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?x?xi32>) {
  %z = arith.constant 0 : i32
  %a, %b, %c, %d, %e = soac.map %n (%xss, %ks : tensor<?x?xi32>, tensor<?xi32>)
      -> (tensor<?x?xi32>, tensor<?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?x?xi32>)
      lambda(%xs: tensor<?xi32>, %k: i32) {
    // a general (non-ufunc) scan whose operator uses the outer lane's %k
    %s = soac.scan %m (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
      %t = arith.addi %p, %q : i32
      %u = arith.addi %t, %z : i32
      soac.yield %u : i32
    }
    %r, %mo = soac.redomap %m (%xs : tensor<?xi32>) neutral(%z : i32) -> (i32, tensor<?xi32>) combine(%p: i32, %q: i32) {
      %t = arith.maxsi %p, %q : i32
      soac.yield %t : i32
    } lambda(%x: i32) {
      %y = arith.muli %x, %k : i32
      soac.yield %y, %y : i32, i32
    }
    %mu = arith.index_cast %k : i32 to index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %dst = soac.replicate %m, %z : i32 -> tensor<?xi32>
    %is = soac.iota %m : tensor<?xindex>
    %sc = soac.scatter %m (%is, %xs : tensor<?xindex>, tensor<?xi32>) into(%dst : tensor<?xi32>) -> tensor<?xi32>
        lambda(%i: index, %x: i32) {
      %last = arith.subi %m, %c1 : index
      %j = arith.subi %last, %i : index
      soac.yield %j, %x : index, i32
    }
    %g = soac.segmap thread (%m, %m) -> tensor<?x?xi32> lambda(%i: index, %j: index) {
      %x = soac.index %xs[%i] : tensor<?xi32> -> i32
      %y = soac.index %xs[%j] : tensor<?xi32> -> i32
      %p = arith.muli %x, %y : i32
      %q = arith.addi %p, %k : i32
      soac.yield %q : i32
    }
    soac.yield %s, %r, %mo, %sc, %g : tensor<?xi32>, i32, tensor<?xi32>, tensor<?xi32>, tensor<?x?xi32>
  }
  func.return %a, %b, %c, %d, %e : tensor<?x?xi32>, tensor<?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?x?xi32>
}
"""


def test_soacs_inside_a_map(run):
    rng = np.random.default_rng(7)
    for n, m in [(4, 5), (0, 3), (3, 0), (1, 1)]:
        xss = rng.integers(-9, 9, (n, m)).astype(np.int32)
        ks = rng.integers(-3, 4, n).astype(np.int32)
        a, b, c, d, e = run(INNER_OPS, n, m, xss, ks)
        np.testing.assert_array_equal(a, np.cumsum(xss, axis=1))
        prod = xss * ks[:, None]
        np.testing.assert_array_equal(b, np.maximum(prod.max(axis=1, initial=0), 0) if m else np.zeros(n))
        np.testing.assert_array_equal(c, prod)
        np.testing.assert_array_equal(d, xss[:, ::-1])
        np.testing.assert_array_equal(e, xss[:, :, None] * xss[:, None, :] + ks[:, None, None])


BRANCHY = """
func.func @main(%n: index, %m: index, %xs: tensor<?xf64>, %ws: tensor<?xf64>) -> tensor<?xf64> {
  %z = arith.constant 0.0 : f64
  %r = soac.map %n (%xs : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %pos = arith.cmpf ogt, %x, %z : f64
    %v = scf.if %pos -> (f64) {
      // only positive lanes: a dot product with the weights, scaled by x
      %d = soac.redomap %m (%ws : tensor<?xf64>) neutral(%z : f64) -> f64 combine(%a: f64, %b: f64) {
        %c = arith.addf %a, %b : f64
        soac.yield %c : f64
      } lambda(%w: f64) {
        %p = arith.mulf %w, %x : f64
        soac.yield %p : f64
      }
      scf.yield %d : f64
    } else {
      %neg = arith.negf %x : f64
      scf.yield %neg : f64
    }
    soac.yield %v : f64
  }
  func.return %r : tensor<?xf64>
}
"""


def test_soac_inside_per_lane_branch(run):
    xs = np.array([1.0, -2.0, 3.0, 0.0, 0.5])
    ws = np.array([1.0, 2.0, 4.0])
    (r,) = run(BRANCHY, 5, 3, xs, ws)
    np.testing.assert_allclose(r, np.where(xs > 0, xs * ws.sum(), -xs))


NESTED_IRREGULAR = """
func.func @main(%n: index, %ls: tensor<?xindex>, %xs: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %z = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %s, %t = soac.map %n (%ls : tensor<?xindex>) -> (tensor<?xi64>, tensor<?xi64>) lambda(%l: index) {
    // a prefix of per-lane length of xs, a per-lane loop over it, a map over it
    %pre = soac.slice %xs[%c0 : %l] : tensor<?xi64> -> tensor<?xi64>
    %sq = soac.map %l (%pre : tensor<?xi64>) -> tensor<?xi64> lambda(%x: i64) {
      %y = arith.muli %x, %x : i64
      soac.yield %y : i64
    }
    %sum = soac.reduce %l (%sq : tensor<?xi64>) neutral(%z : i64) -> i64 combine(%a: i64, %b: i64) {
      %c = arith.addi %a, %b : i64
      soac.yield %c : i64
    }
    %c1 = arith.constant 1 : index
    %alt = scf.for %i = %c0 to %l step %c1 iter_args(%acc = %z) -> (i64) {
      %x = soac.index %pre[%i] : tensor<?xi64> -> i64
      %d = arith.subi %x, %acc : i64
      scf.yield %d : i64
    }
    soac.yield %sum, %alt : i64, i64
  }
  func.return %s, %t : tensor<?xi64>, tensor<?xi64>
}
"""


def test_irregular_nested_widths(run):
    xs = np.array([3, -1, 4, 1, -5, 9], np.int64)
    ls = np.array([0, 6, 2, 2, 5, 1, 6])
    s, t = run(NESTED_IRREGULAR, len(ls), ls, xs)
    np.testing.assert_array_equal(s, [int((xs[:k] ** 2).sum()) for k in ls])

    def alternating(k: int) -> int:
        acc = 0
        for x in xs[:k]:
            acc = int(x) - acc
        return acc

    np.testing.assert_array_equal(t, [alternating(k) for k in ls])


MAP_MAP_IRREGULAR = """
func.func @main(%n: index) -> tensor<?x?xi64> {
  %is = soac.iota %n : tensor<?xindex>
  %z = arith.constant 0 : i64
  %r = soac.map %n (%is : tensor<?xindex>) -> tensor<?x?xi64> lambda(%i: index) {
    %row = soac.map %n (%is : tensor<?xindex>) -> tensor<?xi64> lambda(%j: index) {
      %w = arith.addi %i, %j : index
      %ks = soac.iota %w : tensor<?xi64>
      %s = soac.reduce %w (%ks : tensor<?xi64>) neutral(%z : i64) -> i64 combine(%a: i64, %b: i64) {
        %c = arith.addi %a, %b : i64
        soac.yield %c : i64
      }
      soac.yield %s : i64
    }
    soac.yield %row : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
"""


def test_irregular_width_depending_on_two_lane_indices(run):
    (r,) = run(MAP_MAP_IRREGULAR, 5)
    w = np.arange(5)[:, None] + np.arange(5)[None, :]
    np.testing.assert_array_equal(r, w * (w - 1) // 2)


WHILE_IN_MAP_OF_MAP = """
func.func @main(%n: index, %m: index, %xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>) {
    %ys = soac.map %m (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %one = arith.constant 1 : i32
      %c:2 = scf.while (%v = %x, %k = %one) : (i32, i32) -> (i32, i32) {
        %big = arith.cmpi slt, %k, %v : i32
        scf.condition(%big) %k, %v : i32, i32
      } do {
      ^bb0(%k2: i32, %v2: i32):
        %dbl = arith.addi %k2, %k2 : i32
        scf.yield %v2, %dbl : i32, i32
      }
      soac.yield %c#0 : i32
    }
    soac.yield %ys : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
"""


def test_while_in_map_of_map(run):
    xss = np.array([[1, 2, 3], [100, 0, 17]], np.int32)
    (r,) = run(WHILE_IN_MAP_OF_MAP, 2, 3, xss)

    def first_power(x: int) -> int:
        k = 1
        while k < x:
            k *= 2
        return k

    np.testing.assert_array_equal(r, [[first_power(int(x)) for x in row] for row in xss])
