"""`soac.reshape` and `soac.reverse` in the interpreter, on the host and per lane (sizes that differ between lanes)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from soac.interpreter import SoacRuntimeError

HOST = """
func.func @main(%m: tensor<?x?xi32>, %a: index, %b: index) -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?xi32>) {
  %r = soac.reshape %m (%a, %b) : tensor<?x?xi32> -> tensor<?x?xi32>
  %rows = soac.reverse %m [0] : tensor<?x?xi32>
  %both = soac.reverse %r [0, 1] : tensor<?x?xi32>
  %ab = arith.muli %a, %b : index
  %flat = soac.reshape %rows (%ab) : tensor<?x?xi32> -> tensor<?xi32>
  func.return %r, %rows, %both, %flat : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?xi32>
}
"""

LANES = """
func.func @main(%xs: tensor<?xi64>, %k: index) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi64>
  %z = arith.constant 0 : i64
  %r = soac.map %n (%xs : tensor<?xi64>) -> tensor<?xi64> lambda(%x: i64) {
    %len = arith.index_cast %x : i64 to index
    %twice = arith.muli %len, %k : index
    %is = soac.iota %twice : tensor<?xi64>
    %m = soac.reshape %is (%k, %len) : tensor<?xi64> -> tensor<?x?xi64>
    %rm = soac.reverse %m [0, 1] : tensor<?x?xi64>
    %row = soac.index %rm[%c0] : tensor<?x?xi64> -> tensor<?xi64>
    %s = soac.reduce %len (%row : tensor<?xi64>) neutral(%z : i64) -> i64 combine(%p: i64, %q: i64) {
      %u = arith.addi %p, %q : i64
      soac.yield %u : i64
    }
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}
"""


def test_on_the_host(run):
    m = np.arange(12, dtype=np.int32).reshape(3, 4)
    r, rows, both, flat = run(HOST, m, 2, 6)
    np.testing.assert_array_equal(r, m.reshape(2, 6))
    np.testing.assert_array_equal(rows, m[::-1])
    np.testing.assert_array_equal(both, m.reshape(2, 6)[::-1, ::-1])
    np.testing.assert_array_equal(flat, m[::-1].reshape(12))


def test_per_lane_with_sizes_that_differ(run):
    xs = np.array([3, 1, 4, 0, 2], np.int64)
    (r,) = run(LANES, xs, 2)
    expected = [np.arange(2 * x).reshape(2, x)[::-1, ::-1][0].sum() for x in xs]
    np.testing.assert_array_equal(r, expected)


@pytest.mark.parametrize(
    ("a", "b", "problem"), [(5, 2, "cannot reshape an array of 12 elements to sizes (5, 2)"), (-3, -4, "negative size -3")]
)
def test_bad_sizes(run, a, b, problem):
    with pytest.raises(SoacRuntimeError, match=re.escape(problem)):
        run(HOST, np.zeros((3, 4), np.int32), a, b)
