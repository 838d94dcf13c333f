# ruff: noqa: E501  (the programs are MLIR text, one op per line)
"""Scanomaps with a reduction part on OpenCL (PoCL in CI) give the interpreter's results.

soac-to-kernel splits them into a scanomap and a redomap first (`passes/split_scan_reduce.py`);
these tests cover the split on top-level ops, post lambdas and map-outs, non-commutative
reductions, ops nested in a map's lambda, and programs that soac-fuse turned into such ops.
"""

from __future__ import annotations

import numpy as np
import pytest
from soac.context import make_context
from soac.dialect import ScanomapOp
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.passes.soac_fuse import SoacFusePass

SIZES = [0, 1, 37, 3001]

SCAN_REDUCE = """
func.func @f(%n: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, i32, tensor<?xi32>) {
  %z = arith.constant 0 : i32
  %lo = arith.constant -2147483648 : i32
  %s, %mx, %sq = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) reduce commutative(%lo : i32) -> (tensor<?xi32>, i32, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } reduce_combine(%a: i32, %b: i32) {
    %c = arith.maxsi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %q = arith.muli %x, %x : i32
    %y = arith.subi %q, %x : i32
    soac.yield %x, %y, %q : i32, i32, i32
  }
  func.return %s, %mx, %sq : tensor<?xi32>, i32, tensor<?xi32>
}
"""


@pytest.mark.parametrize("n", SIZES)
def test_scan_reduce(differential, rng, n):
    differential(SCAN_REDUCE, "f", [np.int64(n), rng.integers(-50, 50, n).astype(np.int32)])


# Two scans with a post lambda, two reductions (one of them non-commutative: the last non-zero element).
POST_NONCOMMUTATIVE = """
func.func @f(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi1>, f32, i32, tensor<?xi32>) {
  %z = arith.constant 0.0 : f32
  %zi = arith.constant 0 : i32
  %d, %p, %sum, %last, %mo = soac.scanomap %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) neutral(%z, %zi : f32, i32) reduce(%z, %zi : f32, i32) -> (tensor<?xf32>, tensor<?xi1>, f32, i32, tensor<?xi32>) combine(%a: f32, %ai: i32, %b: f32, %bi: i32) {
    %c = arith.addf %a, %b : f32
    %ci = arith.maxsi %ai, %bi : i32
    soac.yield %c, %ci : f32, i32
  } reduce_combine(%a: f32, %ai: i32, %b: f32, %bi: i32) {
    %c = arith.addf %a, %b : f32
    %nz = arith.cmpi ne, %bi, %zi : i32
    %ci = arith.select %nz, %bi, %ai : i32
    soac.yield %c, %ci : f32, i32
  } lambda(%x: f32, %i: i32) {
    %x2 = arith.mulf %x, %x : f32
    %i2 = arith.addi %i, %i : i32
    soac.yield %x, %i, %x2, %i, %i2 : f32, i32, f32, i32, i32
  } post(%s: f32, %m: i32, %x: f32, %i: i32) {
    %diff = arith.subf %s, %x : f32
    %gt = arith.cmpi sgt, %m, %i : i32
    soac.yield %diff, %gt : f32, i1
  }
  func.return %d, %p, %sum, %last, %mo : tensor<?xf32>, tensor<?xi1>, f32, i32, tensor<?xi32>
}
"""


@pytest.mark.parametrize("n", SIZES)
def test_post_and_non_commutative(differential, rng, n):
    xs = rng.uniform(-1, 1, n).astype(np.float32)
    is_ = np.where(rng.random(n) < 0.3, 0, rng.integers(-9, 9, n)).astype(np.int32)
    differential(POST_NONCOMMUTATIVE, "f", [np.int64(n), xs, is_])


NESTED = """
func.func @f(%n: index, %m: index, %xss: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) {
  %ss, %ms = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) lambda(%row: tensor<?xi32>) {
    %z = arith.constant 0 : i32
    %lo = arith.constant -2147483648 : i32
    %s, %mx = soac.scanomap %m (%row : tensor<?xi32>) neutral(%z : i32) reduce(%lo : i32) -> (tensor<?xi32>, i32) combine(%a: i32, %b: i32) {
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


@pytest.mark.parametrize(("n", "m"), [(0, 3), (3, 0), (5, 7), (40, 33)])
def test_nested_in_map(differential, rng, n, m):
    differential(NESTED, "f", [np.int64(n), np.int64(m), rng.integers(-50, 50, (n, m)).astype(np.int32)])


# FU-23 and FU-21 (futhark-cases.md) after soac-fuse: each gets a scanomap with a reduction part.
FUSED = """
func.func @fu23(%n: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
    %c = arith.addi %p, %q : i32
    soac.yield %c : i32
  }
  %t = soac.reduce %n (%xs : tensor<?xi32>) neutral(%one : i32) -> i32 combine(%p: i32, %q: i32) {
    %c = arith.muli %p, %q : i32
    soac.yield %c : i32
  }
  func.return %s, %t : tensor<?xi32>, i32
}
func.func @fu21(%n: index, %arr: tensor<?xf64>) -> (f64, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %five = arith.constant 5.0 : f64
  %sa = soac.scan %n (%arr : tensor<?xf64>) neutral(%zero : f64) -> tensor<?xf64> combine(%p: f64, %q: f64) {
    %s = arith.addf %p, %q : f64
    soac.yield %s : f64
  }
  %b = soac.map %n (%sa : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.mulf %x, %two : f64
    soac.yield %y : f64
  }
  %sb = soac.scan %n (%b : tensor<?xf64>) neutral(%zero : f64) -> tensor<?xf64> combine(%p: f64, %q: f64) {
    %s = arith.addf %p, %q : f64
    soac.yield %s : f64
  }
  %c = soac.map %n (%sb : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.addf %x, %five : f64
    soac.yield %y : f64
  }
  %r = soac.reduce %n (%b : tensor<?xf64>) neutral(%one : f64) -> f64 combine(%p: f64, %q: f64) {
    %s = arith.mulf %p, %q : f64
    soac.yield %s : f64
  }
  func.return %r, %sa, %b, %sb, %c : f64, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
}
"""


def test_futhark_cases_after_fusion(parse, assert_same):
    module = parse(FUSED)
    SoacFusePass().apply(make_context(), module)
    module.verify()
    assert sum(isinstance(op, ScanomapOp) and op.reduce_combine is not None for op in module.walk()) == 2
    program = compile_module(module)
    ints = np.array([1, 2, 3, 4], np.int32)
    got = program.call("fu23", [np.int64(4), ints])
    np.testing.assert_array_equal(got[0], [1, 3, 6, 10])
    assert got[1] == 24
    arr = np.array([1.0, -4.0, -2.4])
    r, sa, b, sb, c = program.call("fu21", [np.int64(3), arr])
    np.testing.assert_allclose(r, 129.6)
    np.testing.assert_allclose(sa, [1.0, -3.0, -5.4])
    np.testing.assert_allclose(b, [2.0, -6.0, -10.8])
    np.testing.assert_allclose(sb, [2.0, -4.0, -14.8])
    np.testing.assert_allclose(c, [7.0, 1.0, -9.8])
    rng = np.random.default_rng(5)
    for n in (0, 1, 37, 3001):
        args = [np.int64(n), rng.integers(-3, 4, n).astype(np.int32)]
        assert_same(interpret(module, "fu23", args), program.call("fu23", args))
        args = [np.int64(n), rng.uniform(0.9, 1.1, n)]
        assert_same(interpret(module, "fu21", args), program.call("fu21", args), rtol=1e-9, atol=1e-9)


def test_size_errors_name_the_source_op(parse):
    """The ops of the split keep the source location: run-time checks point at the scanomap."""
    program = compile_module(parse(SCAN_REDUCE))
    with pytest.raises(Exception, match=r"^test.mlir:5:3: 'soac.scanomap': width 5 does not match the outer size 3 of input #0$"):
        program.call("f", [np.int64(5), np.arange(3, dtype=np.int32)])
