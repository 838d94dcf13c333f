"""A top-level hist's iota and replicate-of-a-scalar inputs are computed in its kernel, not stored
(`strategies/generated_inputs.py`): the results stay the interpreter's, and no iota or replicate kernel runs for them;
an iota that something else also reads is still stored."""

from __future__ import annotations

import numpy as np
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module

DIGITS = """
func.func @main(%xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %m = arith.muli %n, %c4 : index
  %bins = arith.constant 1024 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %four = arith.constant 4 : i64
  %eight = arith.constant 8 : i64
  %mask = arith.constant 255 : i64
  %rows = soac.iota %m : tensor<?xi64>
  %ones = soac.replicate %m, %one : i32 -> tensor<?xi32>
  %dest = soac.replicate %bins, %zero : i32 -> tensor<?xi32>
  %h = soac.hist %m (%rows, %ones : tensor<?xi64>, tensor<?xi32>) into(%dest : tensor<?xi32>) neutral(%zero : i32)
      -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%r: i64, %w: i32) {
    %i = arith.divui %r, %four : i64
    %p = arith.remui %r, %four : i64
    %ii = arith.index_cast %i : i64 to index
    %x = soac.index %xs[%ii] : tensor<?xi32> -> i32
    %x64 = arith.extui %x : i32 to i64
    %shift = arith.muli %p, %eight : i64
    %shifted = arith.shrui %x64, %shift : i64
    %d = arith.andi %shifted, %mask : i64
    %base = arith.muli %p, %mask : i64
    %place = arith.addi %base, %p : i64
    %bin = arith.addi %place, %d : i64
    %b = arith.index_cast %bin : i64 to index
    soac.yield %b, %w : index, i32
  }
  func.return %h, %rows : tensor<?xi32>, tensor<?xi64>
}
"""
"""The histograms of the four byte places of every key (bin p * 256 + digit); also returning `%rows` keeps the iota
stored, in the second variant."""


def program(return_rows: bool) -> str:
    if return_rows:
        return DIGITS
    text = DIGITS.replace("-> (tensor<?xi32>, tensor<?xi64>)", "-> tensor<?xi32>")
    return text.replace("func.return %h, %rows : tensor<?xi32>, tensor<?xi64>", "func.return %h : tensor<?xi32>")


def test_generated_rows_are_not_stored():
    module = parse_module(make_context(), program(False), "digits.mlir")
    compiled = compile_module(module, "pocl")
    kernels = set(compiled.kernels)
    assert not any("iota" in k for k in kernels)
    assert sum("replicate" in k for k in kernels) == 1  # the destination's
    xs = np.random.default_rng(5).integers(-(2**31), 2**31, 5003).astype(np.int32)
    (want,) = interpret(module, "main", [xs])
    (got,) = compiled.call("main", [xs])
    np.testing.assert_array_equal(got, want)
    digits = xs.view(np.uint32)
    expected = np.concatenate([np.bincount((digits >> (8 * p)) & 255, minlength=256) for p in range(4)])
    np.testing.assert_array_equal(got, expected)


def test_an_iota_read_elsewhere_is_stored():
    module = parse_module(make_context(), program(True), "digits.mlir")
    compiled = compile_module(module, "pocl")
    assert any("iota" in k for k in compiled.kernels)
    xs = np.arange(100, dtype=np.int32)
    for got, want in zip(compiled.call("main", [xs]), interpret(module, "main", [xs]), strict=True):
        np.testing.assert_array_equal(got, want)
