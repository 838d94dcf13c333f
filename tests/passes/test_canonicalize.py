# ruff: noqa: E501  (the programs are MLIR text, one op per line)
"""Differential testing of the soac canonicalisation patterns: random programs (fused or not) give the same results
after `canonicalize`, which drops unused SOAC results, ignored inputs, unused map-outs and post results, and unused
operator parts.

CI runs a few hundred programs (`soac-fuzz --list`); `soac-fuzz canonicalize` runs thousands (or set SOAC_FUZZ_EXAMPLES).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from soac.context import make_context
from soac.dialect import IndexOp, MapOp, RedomapOp, ReduceOp, ScanomapOp, ScanOp, SliceOp
from soac.interpreter import SoacRuntimeError, run_function
from soac.parsing import parse_module
from soac.passes.soac_fuse import SoacFusePass
from soac.tools.soac_fuzz import ci_count
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block
from xdsl.transforms.canonicalize import CanonicalizePass

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from programs import Program, programs

EXAMPLES = ci_count("canonicalize", "SOAC_FUZZ_EXAMPLES")


def soac_parts(module: ModuleOp) -> int:
    """Results, inputs and operator values of the maps, reduces, scans, redomaps and scanomaps of `module`."""
    total = 0
    for op in module.walk():
        if isinstance(op, MapOp | ReduceOp | ScanOp | RedomapOp | ScanomapOp):
            total += len(op.results) + len(op.inputs)
        if isinstance(op, ReduceOp | ScanOp | RedomapOp | ScanomapOp):
            total += len(op.neutral)
        if isinstance(op, ScanomapOp):
            total += len(op.reduce_neutral)
    return total


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(program=programs(), fuse_first=st.booleans())
@pytest.mark.slow
def test_canonicalize_keeps_results(program: Program, fuse_first: bool) -> None:
    ctx = make_context()
    module = parse_module(ctx, program.text, "generated")
    expected = run_function(module, "main", program.args)
    if fuse_first:
        SoacFusePass().apply(ctx, module)
    before = soac_parts(module)
    CanonicalizePass().apply(ctx, module)
    module.verify()
    assert soac_parts(module) <= before
    got = run_function(module, "main", program.args)
    assert len(got) == len(expected)
    for want, have in zip(expected, got):
        np.testing.assert_array_equal(np.asarray(have), np.asarray(want))


IOTA_INDEXING = """
func.func @main(%n: index, %xs: tensor<?xi32>, %k: i32) -> (tensor<?xi32>, tensor<?xi32>) {
  %io = soac.iota %n : tensor<?xindex>
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %k : i32
    soac.yield %y : i32
  }
  %ss = soac.scan %n (%ys : tensor<?xi32>) neutral(%k : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.maxsi %a, %b : i32
    soac.yield %c : i32
  }
  %zs, %ws = soac.map %n (%io, %ys : tensor<?xindex>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%i: index, %y0: i32) {
    %y = soac.index %ys[%i] : tensor<?xi32> -> i32
    %s = soac.index %ss[%i] : tensor<?xi32> -> i32
    %again = soac.index %ys[%i] : tensor<?xi32> -> i32
    %x = soac.index %xs[%i] : tensor<?xi32> -> i32
    %a = arith.addi %y, %s : i32
    %b = arith.muli %again, %x : i32
    %c = arith.subi %b, %y0 : i32
    soac.yield %a, %c : i32, i32
  }
  func.return %zs, %ws : tensor<?xi32>, tensor<?xi32>
}
"""


@given(values=st.lists(st.integers(-1000, 1000), max_size=40), k=st.integers(-5, 5), fuse=st.booleans())
@settings(max_examples=50, deadline=None, derandomize=True)
def test_iota_indexing_becomes_inputs(values: list[int], k: int, fuse: bool) -> None:
    """Reads at the iota index of arrays made by SOACs of the map's width (a map's and a scan's result, one of them
    twice, one already an input) become inputs; the results stay the same, fused or not."""
    ctx = make_context()
    module = parse_module(ctx, IOTA_INDEXING, "iota.mlir")
    args = [np.int64(len(values)), np.array(values, dtype=np.int32), np.int32(k)]
    expected = run_function(module, "main", args)
    CanonicalizePass().apply(ctx, module)
    if fuse:
        SoacFusePass().apply(ctx, module)
    module.verify()
    reads = [op for op in module.walk() if isinstance(op, IndexOp)]
    assert [op.array.name_hint for op in reads] == ["xs"] * len(reads)
    for want, have in zip(expected, run_function(module, "main", args), strict=True):
        np.testing.assert_array_equal(np.asarray(have), np.asarray(want))


SLICE_OF_MAP = """
func.func @main(%lo: index, %hi: index, %xs: tensor<?xi32>, %k: i32) -> (tensor<?xi32>, i32) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %k : i32
    soac.yield %y : i32
  }
  %s = soac.slice %a[%lo : %hi] : tensor<?xi32> -> tensor<?xi32>
  %w = tensor.dim %s, %c0 : tensor<?xi32>
  %b = soac.map %w (%s : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %k : i32
    soac.yield %y : i32
  }
  %t = soac.reduce %w (%b : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%p: i32, %q: i32) {
    %r = arith.addi %p, %q : i32
    soac.yield %r : i32
  }
  func.return %b, %t : tensor<?xi32>, i32
}
"""


def outcome(module: ModuleOp, args: list[object]) -> tuple[object, ...] | None:
    """The results, or None for a run-time error (which op reports it may change: a slice of the input now)."""
    try:
        return run_function(module, "main", args)
    except SoacRuntimeError:
        return None


@given(
    values=st.lists(st.integers(-100, 100), max_size=20),
    lo=st.integers(0, 25),
    hi=st.integers(0, 25),
    k=st.integers(-3, 3),
    fuse=st.booleans(),
)
@settings(max_examples=100, deadline=None, derandomize=True)
def test_slices_of_maps_become_maps_of_slices(values: list[int], lo: int, hi: int, k: int, fuse: bool) -> None:
    """Same results, and an error exactly where the original program has one (bounds outside the array)."""
    ctx = make_context()
    module = parse_module(ctx, SLICE_OF_MAP, "slice.mlir")
    args = [np.int64(lo), np.int64(hi), np.array(values, dtype=np.int32), np.int32(k)]
    expected = outcome(module, args)
    CanonicalizePass().apply(ctx, module)
    if fuse:
        SoacFusePass().apply(ctx, module)
    module.verify()
    assert not [op for op in module.walk() if isinstance(op, SliceOp) and not isinstance(op.array.owner, Block)]
    got = outcome(module, args)
    assert (expected is None) == (got is None), (expected, got)
    for want, have in zip(expected or (), got or (), strict=True):
        np.testing.assert_array_equal(np.asarray(have), np.asarray(want))
