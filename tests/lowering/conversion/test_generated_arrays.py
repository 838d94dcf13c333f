"""Arrays inside kernels that are never stored (`conversion/generated.py`): an iota, a replicate, or a map of one,
read by rows by the nested SOACs beside it, give the interpreter's results on PoCL, whatever their sizes."""

from __future__ import annotations

import re

import numpy as np
import pytest
from soac.interpreter import SoacRuntimeError
from soac.interpreter import run_function as interpret
from soac.lowering.conversion.kernel_builder import LoweringError
from soac.lowering.runtime import ProgramError, compile_module

# Per element `x` of `a`, arrays of `x` elements read by rows: a sum of an iota, a sum of squares (a map of an
# iota), and the total of a scan with a reduction part (split in the kernel: the scan's array is never used).
FOLDS = """
func.func @main(%a: tensor<?xi64>) -> (tensor<?xi32>, tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi64>
  %zero = arith.constant 0 : i32
  %zero64 = arith.constant 0 : i64
  %sums, %squares, %totals = soac.map %n (%a : tensor<?xi64>) -> (tensor<?xi32>, tensor<?xi64>, tensor<?xi64>) lambda(%x: i64) {
    %k = arith.index_cast %x : i64 to index
    %is = soac.iota %k : tensor<?xi32>
    %s = soac.reduce commutative %k (%is : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%p: i32, %q: i32) {
      %t = arith.addi %p, %q : i32
      soac.yield %t : i32
    }
    %js = soac.iota %k : tensor<?xi64>
    %sq = soac.map %k (%js : tensor<?xi64>) -> tensor<?xi64> lambda(%j: i64) {
      %jj = arith.muli %j, %j : i64
      soac.yield %jj : i64
    }
    %ss = soac.reduce %k (%sq : tensor<?xi64>) neutral(%zero64 : i64) -> i64 combine(%p: i64, %q: i64) {
      %t = arith.addi %p, %q : i64
      soac.yield %t : i64
    }
    %scanned, %total = soac.scanomap %k (%js : tensor<?xi64>) neutral(%zero64 : i64) reduce(%zero64 : i64)
        -> (tensor<?xi64>, i64) combine(%p: i64, %q: i64) {
      %t = arith.addi %p, %q : i64
      soac.yield %t : i64
    } reduce_combine(%p2: i64, %q2: i64) {
      %t2 = arith.addi %p2, %q2 : i64
      soac.yield %t2 : i64
    } lambda(%j: i64) {
      soac.yield %j, %j : i64, i64
    }
    soac.yield %s, %ss, %total : i32, i64, i64
  }
  func.return %sums, %squares, %totals : tensor<?xi32>, tensor<?xi64>, tensor<?xi64>
}
"""

# The same arrays read by a hist (`j mod 4`), a scatter (`-j` to `j` of a row) and a reduce of a replicate of `x`.
WRITES = """
func.func @main(%a: tensor<?xi64>, %row: tensor<?xi32>) -> (tensor<?x4xi32>, tensor<?x?xi32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %a, %c0 : tensor<?xi64>
  %m = tensor.dim %row, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %four = arith.constant 4 : i64
  %low = arith.constant -1.0 : f32
  %bins, %placed, %tops = soac.map %n (%a : tensor<?xi64>) -> (tensor<?x4xi32>, tensor<?x?xi32>, tensor<?xf32>) lambda(%x: i64) {
    %k = arith.index_cast %x : i64 to index
    %is = soac.iota %k : tensor<?xi32>
    %js = soac.iota %k : tensor<?xi64>
    %dest = soac.replicate %c4, %zero : i32 -> tensor<4xi32>
    %h = soac.hist %k (%js : tensor<?xi64>) into(%dest : tensor<4xi32>) neutral(%zero : i32) -> tensor<4xi32>
        combine(%p: i32, %q: i32) {
      %t = arith.addi %p, %q : i32
      soac.yield %t : i32
    } lambda(%j: i64) {
      %bin = arith.remsi %j, %four : i64
      soac.yield %bin, %one : i64, i32
    }
    %copy = soac.map %m (%row : tensor<?xi32>) -> tensor<?xi32> lambda(%v: i32) {
      soac.yield %v : i32
    }
    %written = soac.scatter %k (%is : tensor<?xi32>) into(%copy : tensor<?xi32>) -> tensor<?xi32> lambda(%i: i32) {
      %neg = arith.subi %zero, %i : i32
      soac.yield %i, %neg : i32, i32
    }
    %xf = arith.sitofp %x : i64 to f32
    %reps = soac.replicate %k, %xf : f32 -> tensor<?xf32>
    %top = soac.reduce %k (%reps : tensor<?xf32>) neutral(%low : f32) -> f32 combine(%p: f32, %q: f32) {
      %t = arith.maximumf %p, %q : f32
      soac.yield %t : f32
    }
    soac.yield %h, %written, %top : tensor<4xi32>, tensor<?xi32>, f32
  }
  func.return %bins, %placed, %tops : tensor<?x4xi32>, tensor<?x?xi32>, tensor<?xf32>
}
"""


@pytest.mark.parametrize("target", ["generic", "cpu"])
@pytest.mark.parametrize(("n", "m"), [(1, 1), (9, 6), (70, 3), (0, 2)])
def test_irregular_arrays_read_by_rows(differential, n: int, m: int, target: str) -> None:
    rng = np.random.default_rng(n * 10 + m)
    a = rng.integers(0, 12, n).astype(np.int64)
    row = rng.integers(-50, 50, m).astype(np.int32)
    differential(FOLDS, "main", [a], group_size=8, max_groups=3, target=target)
    differential(WRITES, "main", [a, row], group_size=8, max_groups=3, target=target)


def test_a_negative_size_fails_as_on_the_interpreter(parse) -> None:
    module = parse(FOLDS, "prog.mlir")
    args = [np.array([3, -2, 1], np.int64)]
    message = "prog.mlir:9:5: 'soac.iota': negative size -2"
    with pytest.raises(SoacRuntimeError, match=re.escape(message)):
        interpret(module, "main", args)
    with pytest.raises(ProgramError, match=re.escape(message)):
        compile_module(module).call("main", args)


# A map over an iota read by two SOACs (so stored), and one read by a reduce inside a loop (so stored, not
# recomputed at each step): with a size known before the launch, both run.
STORED = """
func.func @main(%a: tensor<?xi64>, %k: index, %steps: index) -> (tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?xi64>
  %zero = arith.constant 0 : i64
  %twice, %looped = soac.map %n (%a : tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) lambda(%x: i64) {
    %js = soac.iota %k : tensor<?xi64>
    %shifted = soac.map %k (%js : tensor<?xi64>) -> tensor<?xi64> lambda(%j: i64) {
      %y = arith.addi %j, %x : i64
      soac.yield %y : i64
    }
    %s = soac.reduce %k (%shifted : tensor<?xi64>) neutral(%zero : i64) -> i64 combine(%p: i64, %q: i64) {
      %t = arith.addi %p, %q : i64
      soac.yield %t : i64
    }
    %big = soac.reduce %k (%shifted : tensor<?xi64>) neutral(%zero : i64) -> i64 combine(%p: i64, %q: i64) {
      %t = arith.maxsi %p, %q : i64
      soac.yield %t : i64
    }
    %both = arith.addi %s, %big : i64
    %scaled = soac.map %k (%js : tensor<?xi64>) -> tensor<?xi64> lambda(%j: i64) {
      %y = arith.muli %j, %x : i64
      soac.yield %y : i64
    }
    %acc = scf.for %t = %c0 to %steps step %c1 iter_args(%sum = %zero) -> (i64) {
      %r = soac.reduce %k (%scaled : tensor<?xi64>) neutral(%sum : i64) -> i64 combine(%p: i64, %q: i64) {
        %u = arith.addi %p, %q : i64
        soac.yield %u : i64
      }
      scf.yield %r : i64
    }
    soac.yield %both, %acc : i64, i64
  }
  func.return %twice, %looped : tensor<?xi64>, tensor<?xi64>
}
"""


@pytest.mark.parametrize(("n", "k"), [(1, 1), (13, 5), (4, 0)])
def test_a_map_read_twice_or_in_a_loop_is_stored(differential, n: int, k: int) -> None:
    rng = np.random.default_rng(n + k)
    differential(STORED, "main", [rng.integers(-9, 9, n).astype(np.int64), np.int64(k), np.int64(3)], group_size=8)


def irregular(use: str) -> str:
    """A map whose lambda builds an iota of the element's size and then `use`s it (`%is`, `%k` in scope)."""
    return f"""
func.func @main(%a: tensor<?xi64>) -> tensor<?xi64> {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi64>
  %zero = arith.constant 0 : i64
  %r = soac.map %n (%a : tensor<?xi64>) -> tensor<?xi64> lambda(%x: i64) {{
    %k = arith.index_cast %x : i64 to index
    %is = soac.iota %k : tensor<?xi64>
{use}
  }}
  func.return %r : tensor<?xi64>
}}
"""


INDEXED = """    %v = soac.index %is[%c0] : tensor<?xi64> -> i64
    soac.yield %v : i64"""

SCANNED = """    %ps = soac.scan %k (%is : tensor<?xi64>) neutral(%zero : i64) -> tensor<?xi64> combine(%p: i64, %q: i64) {
      %t = arith.addi %p, %q : i64
      soac.yield %t : i64
    }
    %v = soac.index %ps[%c0] : tensor<?xi64> -> i64
    soac.yield %v : i64"""

READ_TWICE = """    %sq = soac.map %k (%is : tensor<?xi64>) -> tensor<?xi64> lambda(%j: i64) {
      %jj = arith.muli %j, %j : i64
      soac.yield %jj : i64
    }
    %s = soac.reduce %k (%sq : tensor<?xi64>) neutral(%zero : i64) -> i64 combine(%p: i64, %q: i64) {
      %t = arith.addi %p, %q : i64
      soac.yield %t : i64
    }
    %u = soac.reduce %k (%sq : tensor<?xi64>) neutral(%s : i64) -> i64 combine(%p: i64, %q: i64) {
      %t = arith.addi %p, %q : i64
      soac.yield %t : i64
    }
    soac.yield %u : i64"""


@pytest.mark.parametrize(
    ("use", "builder"),
    [
        (INDEXED, "'soac.iota' at prog.mlir:8:5"),
        (SCANNED, "'soac.scan' at prog.mlir:9:5"),
        (READ_TWICE, "'soac.map' at prog.mlir:9:5"),
    ],
)
def test_an_irregular_array_that_must_be_stored_is_refused(parse, use: str, builder: str) -> None:
    """An array of the element's size that is indexed, built by a scan, or read twice needs memory sized before the
    launch: the lowering names the op that builds it."""
    module = parse(irregular(use), "prog.mlir")
    with pytest.raises(LoweringError, match=re.escape(builder) + ": the size of an array built inside a kernel must be known"):
        compile_module(module)


# Per row `i` of `x`, a map over an iota of the row's length reading `x[i, l]` (its size: no check in the kernel)
# and `y[l]` (a vector of its own size: checked), summed.
IOTA_READS = """
func.func @main(%x: tensor<?x?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %w = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %s = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
    %ls = soac.iota %w : tensor<?xindex>
    %row = soac.map %w (%ls : tensor<?xindex>) -> tensor<?xf32> lambda(%l: index) {
      %e = soac.index %x[%i, %l] : tensor<?x?xf32> -> f32
      %f = soac.index %y[%l] : tensor<?xf32> -> f32
      %p = arith.mulf %e, %f : f32
      soac.yield %p : f32
    }
    %t = soac.reduce %w (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %u = arith.addf %a, %b : f32
      soac.yield %u : f32
    }
    soac.yield %t : f32
  }
  func.return %s : tensor<?xf32>
}
"""


def test_reads_at_an_iota_of_the_arrays_own_size_are_not_checked(differential, parse) -> None:
    """The element of a generated iota of the map's width `%w` lies below `%w`: `x[i, l]` (x's rows are `%w` long)
    needs no check in the kernel, `y[l]` (its own length) keeps one, which reports a short `y` as the interpreter
    does."""
    rng = np.random.default_rng(1)
    for n, w in [(0, 3), (1, 1), (7, 13)]:
        x, y = rng.standard_normal((n, w)).astype(np.float32), rng.standard_normal(w).astype(np.float32)
        differential(IOTA_READS, "main", [x, y], group_size=8, max_groups=3, target="generic")
    module = parse(IOTA_READS, "prog.mlir")
    program = compile_module(module, target="generic")
    kernel = program.source[program.source.index("__kernel void main_segmap_0") :]
    assert kernel.count("const bool in_bounds") == 1, kernel  # y's only
    args = [np.ones((3, 5), np.float32), np.ones(4, np.float32)]
    message = "prog.mlir:12:7: 'soac.index': index 4 is out of bounds for dimension 0 of size 4"
    with pytest.raises(SoacRuntimeError, match=re.escape(message)):
        interpret(module, "main", args)
    with pytest.raises(ProgramError, match=re.escape(message)):
        program.call("main", args)
