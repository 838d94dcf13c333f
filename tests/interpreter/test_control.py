"""`scf` and `func` control flow, on the host and per lane inside lambdas."""

from __future__ import annotations

import numpy as np
import pytest

GUARDED = """
func.func @main(%n: index, %is: tensor<?xindex>, %xs: tensor<?xf32>, %m: index) -> tensor<?xf32> {
  %r = soac.map %n (%is : tensor<?xindex>) -> tensor<?xf32> lambda(%i: index) {
    %ok = arith.cmpi ult, %i, %m : index
    %v = scf.if %ok -> (f32) {
      %x = soac.index %xs[%i] : tensor<?xf32> -> f32
      scf.yield %x : f32
    } else {
      %d = arith.constant -1.0 : f32
      scf.yield %d : f32
    }
    soac.yield %v : f32
  }
  func.return %r : tensor<?xf32>
}
"""


def test_if_never_runs_a_branch_on_lanes_that_do_not_take_it(run):
    xs = np.array([10, 20, 30], np.float32)
    is_ = np.array([2, 7, 0, -1 % 2**63, 1, 3])
    (r,) = run(GUARDED, len(is_), is_, xs, 3)
    np.testing.assert_array_equal(r, [30, -1, 10, -1, 20, -1])
    (r,) = run(GUARDED, 2, np.array([0, 1]), xs, 3)  # uniform condition
    np.testing.assert_array_equal(r, [10, 20])
    (r,) = run(GUARDED, 2, np.array([5, 6]), xs, 3)
    np.testing.assert_array_equal(r, [-1, -1])
    (r,) = run(GUARDED, 0, np.zeros(0, np.int64), xs, 3)
    assert r.shape == (0,)
    assert r.dtype == np.float32


HOST_IF = """
func.func @main(%c: i1, %x: i32) -> (i32, tensor<?xi32>) {
  %r, %t = scf.if %c -> (i32, tensor<?xi32>) {
    %y = arith.addi %x, %x : i32
    %n = arith.constant 2 : index
    %t = tensor.splat %y[%n] : tensor<?xi32>
    scf.yield %y, %t : i32, tensor<?xi32>
  } else {
    %n = arith.constant 3 : index
    %t = tensor.splat %x[%n] : tensor<?xi32>
    scf.yield %x, %t : i32, tensor<?xi32>
  }
  func.return %r, %t : i32, tensor<?xi32>
}
"""


def test_host_if(run):
    r, t = run(HOST_IF, True, 5)
    assert r == 10
    np.testing.assert_array_equal(t, [10, 10])
    r, t = run(HOST_IF, False, 5)
    np.testing.assert_array_equal(t, [5, 5, 5])


IRREGULAR_IF = (
    HOST_IF.replace("@main(%c: i1, %x: i32) -> (i32, tensor<?xi32>)", "@inner(%c: i1, %x: i32) -> (i32, tensor<?xi32>)")
    + """
func.func @main(%n: index, %cs: tensor<?xi1>, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %r = soac.map %n (%cs, %xs : tensor<?xi1>, tensor<?xi32>) -> tensor<?xi32> lambda(%c: i1, %x: i32) {
    %a, %t = func.call @inner(%c, %x) : (i1, i32) -> (i32, tensor<?xi32>)
    soac.yield %a : i32
  }
  func.return %r : tensor<?xi32>
}
"""
)


def test_if_per_lane_with_array_results_of_different_sizes(run, module):
    from soac.interpreter import SoacRuntimeError

    with pytest.raises(SoacRuntimeError, match=r"test.mlir:\d+:\d+: 'scf.if': result #1 is an irregular array"):
        run(IRREGULAR_IF, 2, np.array([True, False]), np.array([1, 2], np.int32))
    (r,) = run(IRREGULAR_IF, 2, np.array([True, True]), np.array([1, 2], np.int32))
    np.testing.assert_array_equal(r, [2, 4])


IF_WITHOUT_ELSE = """
func.func @main(%n: index, %is: tensor<?xindex>, %xs: tensor<?xf32>) -> tensor<?xindex> {
  %r = soac.map %n (%is : tensor<?xindex>) -> tensor<?xindex> lambda(%i: index) {
    %c0 = arith.constant 0 : index
    %big = arith.cmpi sgt, %i, %c0 : index
    scf.if %big {
      %x = soac.index %xs[%i] : tensor<?xf32> -> f32
    }
    soac.yield %i : index
  }
  func.return %r : tensor<?xindex>
}
"""


def test_if_without_else_checks_only_taking_lanes(run):
    from soac.interpreter import SoacRuntimeError

    (r,) = run(IF_WITHOUT_ELSE, 3, np.array([-5, 1, 0]), np.zeros(2, np.float32))
    np.testing.assert_array_equal(r, [-5, 1, 0])
    with pytest.raises(SoacRuntimeError, match=r"'soac.index': index 4 is out of bounds"):
        run(IF_WITHOUT_ELSE, 3, np.array([-5, 4, 0]), np.zeros(2, np.float32))


LOOPS = """
func.func @main(%n: index, %xs: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %tri = soac.map %n (%xs : tensor<?xi64>) -> tensor<?xi64> lambda(%x: i64) {
    %ub = arith.index_cast %x : i64 to index
    %s = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %z) -> (i64) {
      %iv = arith.index_cast %i : index to i64
      %a = arith.addi %acc, %iv : i64
      scf.yield %a : i64
    }
    soac.yield %s : i64
  }
  %steps = soac.map %n (%xs : tensor<?xi64>) -> tensor<?xi64> lambda(%x: i64) {
    %r:2 = scf.while (%v = %x, %k = %z) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi sgt, %v, %one : i64
      scf.condition(%more) %v, %k : i64, i64
    } do {
    ^bb0(%v2: i64, %k2: i64):
      %two = arith.constant 2 : i64
      %r = arith.remsi %v2, %two : i64
      %even = arith.cmpi eq, %r, %z : i64
      %next = scf.if %even -> (i64) {
        %h = arith.divsi %v2, %two : i64
        scf.yield %h : i64
      } else {
        %three = arith.constant 3 : i64
        %t = arith.muli %v2, %three : i64
        %t1 = arith.addi %t, %one : i64
        scf.yield %t1 : i64
      }
      %k3 = arith.addi %k2, %one : i64
      scf.yield %next, %k3 : i64, i64
    }
    soac.yield %r#1 : i64
  }
  %ten = arith.constant 10 : index
  %host = scf.for %i = %c0 to %ten step %c1 iter_args(%acc = %one) -> (i64) {
    %d = arith.addi %acc, %acc : i64
    scf.yield %d : i64
  }
  func.return %tri, %steps, %host : tensor<?xi64>, tensor<?xi64>, i64
}
"""


def _collatz(x: int) -> int:
    k = 0
    while x > 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        k += 1
    return k


@pytest.mark.parametrize("xs", [[0, 1, 5, 3, 9, 27, 2], [4, 4, 4], [], [7]])
def test_per_lane_for_and_while(run, xs):
    arr = np.array(xs, np.int64)
    tri, steps, host = run(LOOPS, len(xs), arr)
    np.testing.assert_array_equal(tri, [x * (x - 1) // 2 for x in xs])
    np.testing.assert_array_equal(steps, [_collatz(x) for x in xs])
    assert host == 1024


FOR_WITH_ARRAY = """
func.func @main(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %xs) -> (tensor<?xf32>) {
    %x = soac.index %acc[%i] : tensor<?xf32> -> f32
    %y = arith.mulf %x, %x : f32
    %u = soac.update %acc[%i] = %y : tensor<?xf32>, f32
    scf.yield %u : tensor<?xf32>
  }
  func.return %r : tensor<?xf32>
}
"""


def test_host_loop_with_updates(run):
    xs = np.arange(6, dtype=np.float32)
    (r,) = run(FOR_WITH_ARRAY, 6, xs)
    np.testing.assert_array_equal(r, xs * xs)
    np.testing.assert_array_equal(xs, np.arange(6))


STEPPED = """
func.func @main(%n: index, %ls: tensor<?xindex>, %us: tensor<?xindex>, %ss: tensor<?xindex>) -> tensor<?xindex> {
  %r = soac.map %n (%ls, %us, %ss : tensor<?xindex>, tensor<?xindex>, tensor<?xindex>) -> tensor<?xindex>
      lambda(%l: index, %u: index, %s: index) {
    %c0 = arith.constant 0 : index
    %t = scf.for %i = %l to %u step %s iter_args(%acc = %c0) -> (index) {
      %a = arith.addi %acc, %i : index
      scf.yield %a : index
    }
    soac.yield %t : index
  }
  func.return %r : tensor<?xindex>
}
"""


def test_per_lane_bounds_and_steps(run):
    ls, us, ss = np.array([0, 3, 5, -4, 2]), np.array([10, 4, 5, 4, 1]), np.array([3, 1, 2, 3, 1])
    (r,) = run(STEPPED, 5, ls, us, ss)
    np.testing.assert_array_equal(r, [sum(range(a, b, c)) for a, b, c in zip(ls, us, ss)])


SWITCH = """
func.func @main(%n: index, %ks: tensor<?xindex>) -> tensor<?xi32> {
  %r = soac.map %n (%ks : tensor<?xindex>) -> tensor<?xi32> lambda(%k: index) {
    %v = scf.index_switch %k -> i32
    case 0 {
      %a = arith.constant 100 : i32
      scf.yield %a : i32
    }
    case 2 {
      %b = arith.constant 200 : i32
      scf.yield %b : i32
    }
    default {
      %c = arith.constant -1 : i32
      scf.yield %c : i32
    }
    soac.yield %v : i32
  }
  func.return %r : tensor<?xi32>
}
"""


def test_index_switch(run):
    (r,) = run(SWITCH, 5, np.array([0, 1, 2, 3, 0]))
    np.testing.assert_array_equal(r, [100, -1, 200, -1, 100])
    (r,) = run(SWITCH, 2, np.array([2, 2]))
    np.testing.assert_array_equal(r, [200, 200])


FIB = """
func.func @fib(%n: i64) -> i64 {
  %two = arith.constant 2 : i64
  %small = arith.cmpi slt, %n, %two : i64
  %r = scf.if %small -> (i64) {
    scf.yield %n : i64
  } else {
    %one = arith.constant 1 : i64
    %a = arith.subi %n, %one : i64
    %b = arith.subi %n, %two : i64
    %fa = func.call @fib(%a) : (i64) -> i64
    %fb = func.call @fib(%b) : (i64) -> i64
    %s = arith.addi %fa, %fb : i64
    scf.yield %s : i64
  }
  func.return %r : i64
}
func.func @main(%n: index, %xs: tensor<?xi64>) -> (tensor<?xi64>, i64) {
  %r = soac.map %n (%xs : tensor<?xi64>) -> tensor<?xi64> lambda(%x: i64) {
    %f = func.call @fib(%x) : (i64) -> i64
    soac.yield %f : i64
  }
  %ten = arith.constant 10 : i64
  %h = func.call @fib(%ten) : (i64) -> i64
  func.return %r, %h : tensor<?xi64>, i64
}
"""


def test_recursion_on_host_and_per_lane(run):
    xs = np.array([0, 1, 2, 7, 12, 3], np.int64)
    r, h = run(FIB, len(xs), xs)
    fib = [0, 1]
    for _ in range(20):
        fib.append(fib[-1] + fib[-2])
    np.testing.assert_array_equal(r, [fib[x] for x in xs])
    assert h == 55
    assert run(FIB, np.int64(15), name="fib") == (610,)


EXECUTE = """
func.func @main(%x: i32) -> i32 {
  %r = scf.execute_region -> (i32) {
    %y = arith.muli %x, %x : i32
    scf.yield %y : i32
  }
  func.return %r : i32
}
"""


def test_execute_region(run):
    assert run(EXECUTE, 7) == (49,)
