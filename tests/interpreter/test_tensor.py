"""`tensor` ops, on the host and per lane."""

from __future__ import annotations

import numpy as np

TENSOR_OPS = """
func.func @main(%n: index, %xs: tensor<?xf32>, %i: index, %v: f32)
    -> (tensor<?x3xi32>, index, f32, tensor<?xf32>, tensor<2x2xf32>, tensor<?x2xf32>, tensor<4xf32>, tensor<?xf32>) {
  %e = tensor.empty(%n) : tensor<?x3xi32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %xs, %c0 : tensor<?xf32>
  %x = tensor.extract %xs[%i] : tensor<?xf32>
  %ins = tensor.insert %v into %xs[%i] : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %fe = tensor.from_elements %x, %v, %one, %x : tensor<2x2xf32>
  %sp = tensor.splat %v[%n] : tensor<?x2xf32>
  %st = tensor.cast %xs : tensor<?xf32> to tensor<4xf32>
  %sl = tensor.extract_slice %xs[1] [2] [2] : tensor<?xf32> to tensor<?xf32>
  func.return %e, %d, %x, %ins, %fe, %sp, %st, %sl
      : tensor<?x3xi32>, index, f32, tensor<?xf32>, tensor<2x2xf32>, tensor<?x2xf32>, tensor<4xf32>, tensor<?xf32>
}
"""


def test_tensor_ops_on_host(run):
    xs = np.array([1, 2, 3, 4], np.float32)
    e, d, x, ins, fe, sp, st, sl = run(TENSOR_OPS, 2, xs, 2, 9.0)
    assert e.shape == (2, 3)
    assert e.dtype == np.int32
    assert d == 4
    assert isinstance(d, np.int64)
    assert x == 3
    np.testing.assert_array_equal(ins, [1, 2, 9, 4])
    np.testing.assert_array_equal(xs, [1, 2, 3, 4])
    np.testing.assert_array_equal(fe, [[3, 9], [1, 3]])
    np.testing.assert_array_equal(sp, np.full((2, 2), 9, np.float32))
    np.testing.assert_array_equal(st, xs)
    np.testing.assert_array_equal(sl, [2, 4])


PER_LANE = """
func.func @main(%n: index, %xss: tensor<?x?xi32>, %is: tensor<?xindex>)
    -> (tensor<?xi32>, tensor<?x?xi32>, tensor<?x2xi32>, tensor<?xindex>) {
  %a, %b, %c, %d = soac.map %n (%xss, %is : tensor<?x?xi32>, tensor<?xindex>)
      -> (tensor<?xi32>, tensor<?x?xi32>, tensor<?x2xi32>, tensor<?xindex>)
      lambda(%xs: tensor<?xi32>, %i: index) {
    %x = tensor.extract %xs[%i] : tensor<?xi32>
    %z = arith.constant 0 : index
    %y = tensor.extract %xss[%i, %z] : tensor<?x?xi32>
    %s = arith.addi %x, %y : i32
    %u = tensor.insert %s into %xs[%i] : tensor<?xi32>
    %p = tensor.from_elements %x, %y : tensor<2xi32>
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %xs, %c0 : tensor<?xi32>
    soac.yield %s, %u, %p, %dim : i32, tensor<?xi32>, tensor<2xi32>, index
  }
  func.return %a, %b, %c, %d : tensor<?xi32>, tensor<?x?xi32>, tensor<?x2xi32>, tensor<?xindex>
}
"""


def test_tensor_ops_per_lane(run):
    xss = np.arange(12, dtype=np.int32).reshape(3, 4)
    is_ = np.array([2, 0, 1])
    a, b, c, d = run(PER_LANE, 3, xss, is_)
    x = xss[np.arange(3), is_]
    y = xss[is_, 0]
    np.testing.assert_array_equal(a, x + y)
    expected = xss.copy()
    expected[np.arange(3), is_] = x + y
    np.testing.assert_array_equal(b, expected)
    np.testing.assert_array_equal(c, np.stack([x, y], axis=1))
    np.testing.assert_array_equal(d, [4, 4, 4])
