"""The public API: argument checking and conversion, result types, no aliasing."""

from __future__ import annotations

import numpy as np
import pytest
from soac.interpreter import SoacInterpreter, SoacRuntimeError, run_function

IDENTITY = """
func.func @main(%xs: tensor<?xf64>, %i: i16, %b: i1, %h: f16, %n: index) -> (tensor<?xf64>, i16, i1, f16, index) {
  func.return %xs, %i, %b, %h, %n : tensor<?xf64>, i16, i1, f16, index
}
"""


def test_results_are_fresh_arrays_and_numpy_scalars(run):
    xs = np.arange(3.0)
    out, i, b, h, n = run(IDENTITY, xs, 7, True, 0.5, np.int32(4))
    assert out is not xs
    assert not np.shares_memory(out, xs)
    out[0] = 42.0  # writeable, and the caller's array is unchanged
    assert xs[0] == 0.0
    assert type(i) is np.int16
    assert type(b) is np.bool_
    assert type(h) is np.float16
    assert type(n) is np.int64
    assert (i, b, h, n) == (7, True, 0.5, 4)


def test_lossless_widening_is_accepted(run):
    out, *_ = run(IDENTITY, np.arange(3, dtype=np.float32), np.int8(3), 1, np.float16(2), 5)
    assert out.dtype == np.float64
    out, *_ = run(IDENTITY, [1.0, 2.0], 1, False, 1, 0)
    np.testing.assert_array_equal(out, [1.0, 2.0])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((np.arange(3), 1, True, 0.5, 1), r"argument #0 of @main: expected tensor<\?xf64>, got int64 array of shape \(3,\)"),
        ((np.zeros(3), 70000, True, 0.5, 1), r"argument #1 of @main: expected i16, got int 70000"),
        ((np.zeros(3), 1.5, True, 0.5, 1), r"argument #1 of @main: expected i16, got float 1.5"),
        ((np.zeros(3), 1, 2, 0.5, 1), r"argument #2 of @main: expected i1, got int 2"),
        ((np.zeros(3), 1, True, 0.5, np.uint64(2**64 - 1)), r"argument #4 of @main: expected index"),
        ((np.zeros(3), 1, True, "x", 1), r"argument #3 of @main: expected f16"),
    ],
)
def test_argument_mismatches(run, args, message):
    with pytest.raises(SoacRuntimeError, match=message):
        run(IDENTITY, *args)


STATIC = """
func.func @main(%m: tensor<2x3xi32>) -> tensor<2x3xi32> {
  func.return %m : tensor<2x3xi32>
}
"""


def test_static_shapes_are_checked(run):
    run(STATIC, np.zeros((2, 3), np.int32))
    with pytest.raises(
        SoacRuntimeError, match=r"argument #0 of @main: expected tensor<2x3xi32>, got int32 array of shape \(3, 2\)"
    ):
        run(STATIC, np.zeros((3, 2), np.int32))


def test_interpreter_class_and_thresholds(module):
    prog = module("""
func.func @main(%p: index) -> i1 {
  %t = soac.threshold "t0" %p default 10
  func.return %t : i1
}
""")
    interp = SoacInterpreter(prog, {"t0": 3})
    assert interp.call("main", [3]) == (True,)
    assert interp.call("main", [2]) == (False,)
    assert run_function(prog, "main", [9]) == (False,)
    assert run_function(prog, "main", [9], thresholds={"other": 1}) == (False,)


def test_inputs_are_never_mutated(run):
    src = """
func.func @main(%n: index, %xs: tensor<?xi32>, %is: tensor<?xindex>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %v = arith.constant 9 : i32
  %u = tensor.insert %v into %xs[%c0] : tensor<?xi32>
  %s = soac.scatter %n (%is : tensor<?xindex>) into(%u : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index) {
    %w = arith.constant 5 : i32
    soac.yield %i, %w : index, i32
  }
  func.return %s : tensor<?xi32>
}
"""
    xs = np.array([1, 2, 3], np.int32)
    (s,) = run(src, 2, xs, np.array([1, 2]))
    np.testing.assert_array_equal(xs, [1, 2, 3])
    np.testing.assert_array_equal(s, [9, 5, 5])
