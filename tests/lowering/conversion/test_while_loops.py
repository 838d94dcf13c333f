"""scf.while on the host and inside a lambda runs on OpenCL with the interpreter's results."""

from __future__ import annotations

import numpy as np
import pytest

# Collatz step counts: a data-dependent while loop in every lane, and one on the host that halves n.
WHILE = """
func.func @f(%n: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, index) {
  %steps = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %three = arith.constant 3 : i32
    %r:2 = scf.while (%v = %x, %k = %zero) : (i32, i32) -> (i32, i32) {
      %more = arith.cmpi sgt, %v, %one : i32
      scf.condition(%more) %v, %k : i32, i32
    } do {
    ^bb0(%v2: i32, %k2: i32):
      %rem = arith.remsi %v2, %two : i32
      %odd = arith.cmpi ne, %rem, %zero : i32
      %up = arith.muli %v2, %three : i32
      %up1 = arith.addi %up, %one : i32
      %down = arith.divsi %v2, %two : i32
      %next = arith.select %odd, %up1, %down : i32
      %k3 = arith.addi %k2, %one : i32
      scf.yield %next, %k3 : i32, i32
    }
    soac.yield %r#1 : i32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %halvings:2 = scf.while (%m = %n, %h = %c0) : (index, index) -> (index, index) {
    %more = arith.cmpi ugt, %m, %c1 : index
    scf.condition(%more) %m, %h : index, index
  } do {
  ^bb0(%m2: index, %h2: index):
    %half = arith.divui %m2, %c2 : index
    %h3 = arith.addi %h2, %c1 : index
    scf.yield %half, %h3 : index, index
  }
  func.return %steps, %halvings#1 : tensor<?xi32>, index
}
"""


@pytest.mark.parametrize("n", [0, 1, 37])
def test_while(differential, rng, n):
    differential(WHILE, "f", [np.int64(n), rng.integers(1, 1000, n).astype(np.int32)])
