"""A scan whose results only a scatter reads runs the scatter in its kernel (lowering/strategies/scan_scatter.py).

Each program runs on OpenCL (PoCL) with each scan strategy (the look-back and chunked scans take the scatter in,
reduce-then-scan does not) and is compared with the interpreter; the lowered module shows whether a separate scatter
kernel is left.
"""

from __future__ import annotations

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.conversion.soac_to_kernel import SoacToKernelPass
from soac.lowering.kernel import LaunchOp
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module

# Ranks of the positive elements among themselves: a stable filter whose places come from the scan's post lambda.
# DEST_BEFORE / DEST_AFTER place the destination before or after the scan; EXTRA_USE returns the places too.
FILTER = """
func.func @f(%xs: tensor<?xi32>, %m: index) -> (tensor<?xi32>RESULT_TYPES) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  DEST_BEFORE
  %places = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32) {
    %keep = arith.cmpi sgt, %x, %zero : i32
    %f = arith.extui %keep : i1 to i32
    soac.yield %f : i32
  } post(%s: i32, %y: i32) {
    %keep = arith.cmpi sgt, %y, %zero : i32
    %at = arith.subi %s, %one : i32
    %minus_one = arith.constant -1 : i32
    %place = arith.select %keep, %at, %minus_one : i32
    soac.yield %place : i32
  }
  DEST_AFTER
  %kept = soac.scatter %n (%places, %xs : tensor<?xi32>, tensor<?xi32>) into(%dest : tensor<?xi32>) -> tensor<?xi32>
      lambda(%p: i32, %x: i32) {
    %i = arith.index_cast %p : i32 to index
    soac.yield %i, %x : index, i32
  }
  func.return %kept RESULTS : tensor<?xi32>RESULT_TYPES
}
"""
DEST = "%dest = soac.replicate %m, %zero : i32 -> tensor<?xi32>"

# A plain two-value scan whose results are the scatter's values, at indices from an argument; the destination is an
# argument too (written in a copy).
PAIRS = """
func.func @f(%is: tensor<?xi32>, %xs: tensor<?xi32>, %dest: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %sums, %maxs = soac.scan %n (%xs, %xs : tensor<?xi32>, tensor<?xi32>) neutral(%zero, %zero : i32, i32)
      -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32, %c: i32, %d: i32) {
    %s = arith.addi %a, %c : i32
    %mx = arith.maxsi %b, %d : i32
    soac.yield %s, %mx : i32, i32
  }
  %out = soac.scatter %n (%is, %sums, %maxs : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) into(%dest : tensor<?xi32>)
      -> tensor<?xi32> lambda(%i: i32, %s: i32, %mx: i32) {
    %j = arith.index_cast %i : i32 to index
    %v = arith.subi %s, %mx : i32
    soac.yield %j, %v : index, i32
  }
  func.return %out : tensor<?xi32>
}
"""


def filter_program(dest_before: bool, extra_use: bool) -> str:
    text = FILTER.replace("DEST_BEFORE", DEST if dest_before else "").replace("DEST_AFTER", "" if dest_before else DEST)
    return text.replace("RESULT_TYPES", ", tensor<?xi32>" if extra_use else "").replace(
        "RESULTS", ", %places" if extra_use else ""
    )


SCANS = ["lookback", "chunked", "reduce-then-scan"]


def scatter_kernels(text: str, scan: str) -> int:
    ctx = make_context()
    module = parse_module(ctx, text, "scan_scatter.mlir")
    SoacToKernelPass(scan=scan).apply(ctx, module)
    return sum(1 for op in module.walk() if isinstance(op, LaunchOp) and "scatter" in op.kernel_name)


def differential(text: str, args: list[object], scan: str) -> None:
    module = parse_module(make_context(), text, "scan_scatter.mlir")
    expected = interpret(module, "f", args)
    got = compile_module(module, "pocl", scan=scan).call("f", args)
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("scan", SCANS)
@pytest.mark.parametrize(
    ("dest_before", "extra_use", "fusable"), [(True, False, True), (False, False, False), (True, True, False)]
)
def test_filter_scatters_in_the_scan_kernel_when_it_can(dest_before: bool, extra_use: bool, fusable: bool, scan: str):
    text = filter_program(dest_before, extra_use)
    assert scatter_kernels(text, scan) == (0 if fusable and scan != "reduce-then-scan" else 1)
    rng = np.random.default_rng(7)
    for n, m in [(0, 0), (1, 1), (3000, 2000), (5001, 700)]:  # m < kept rows: places beyond the destination are dropped
        differential(text, [rng.integers(-100, 100, n).astype(np.int32), np.int64(m)], scan)


@pytest.mark.parametrize("scan", SCANS)
def test_plain_scan_results_as_scatter_values(scan: str):
    assert scatter_kernels(PAIRS, scan) == (1 if scan == "reduce-then-scan" else 0)
    rng = np.random.default_rng(8)
    for n in (0, 5, 4099):
        indices = np.where(np.arange(n) % 3 == 0, -1, rng.permutation(n) + 2).astype(np.int32)  # some out of bounds
        xs = rng.integers(-50, 50, n).astype(np.int32)
        differential(PAIRS, [indices, xs, rng.integers(0, 9, n + 2).astype(np.int32)], scan)
