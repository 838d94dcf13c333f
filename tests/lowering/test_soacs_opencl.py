# ruff: noqa: E501  (the programs are MLIR text, one op per line)
"""Every SOAC on OpenCL (PoCL in CI) gives the interpreter's results.

Sizes cover the empty array, one element, less than a work-group and several
work-groups with several elements per work-item (PoCL runs groups of 64).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

SIZES = [0, 1, 37, 3001]

MAP = """
func.func @f(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xi32>, %k: f32) -> (tensor<?xf32>, tensor<?xi1>) {
  %r, %p = soac.map %n (%xs, %ys : tensor<?xf32>, tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi1>) lambda(%x: f32, %y: i32) {
    %fy = arith.sitofp %y : i32 to f32
    %s = arith.mulf %x, %k : f32
    %t = arith.addf %s, %fy : f32
    %e = math.exp %x : f32
    %u = arith.addf %t, %e : f32
    %pos = arith.cmpf ogt, %u, %k : f32
    soac.yield %u, %pos : f32, i1
  }
  func.return %r, %p : tensor<?xf32>, tensor<?xi1>
}
"""


@pytest.mark.parametrize("n", SIZES)
def test_map(differential, rng, n):
    differential(
        MAP,
        "f",
        [np.int64(n), rng.uniform(-1, 1, n).astype(np.float32), rng.integers(-9, 9, n).astype(np.int32), np.float32(0.5)],
    )


REDUCE = """
func.func @f(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>) -> (f32, i32, i32, i32) {
  %z = arith.constant 0.0 : f32
  %zi = arith.constant 0 : i32
  %big = arith.constant 2147483647 : i32
  %sum = soac.reduce commutative %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  %first = soac.reduce %n (%is : tensor<?xi32>) neutral(%zi : i32) -> i32 combine(%a: i32, %b: i32) {
    %nz = arith.cmpi ne, %a, %zi : i32
    %c = arith.select %nz, %a, %b : i32
    soac.yield %c : i32
  }
  %mn, %arg = soac.reduce %n (%is, %is : tensor<?xi32>, tensor<?xi32>) neutral(%big, %zi : i32, i32) -> (i32, i32) combine(%a: i32, %ai: i32, %b: i32, %bi: i32) {
    %lt = arith.cmpi sle, %a, %b : i32
    %m = arith.select %lt, %a, %b : i32
    %mi = arith.select %lt, %ai, %bi : i32
    soac.yield %m, %mi : i32, i32
  }
  func.return %sum, %first, %mn, %arg : f32, i32, i32, i32
}
"""


@pytest.mark.parametrize("n", SIZES)
def test_reduce(differential, rng, n):
    differential(
        REDUCE, "f", [np.int64(n), rng.uniform(-1, 1, n).astype(np.float32), rng.integers(-1000, 1000, n).astype(np.int32)]
    )


REDOMAP = """
func.func @f(%n: index, %xs: tensor<?xi64>) -> (i64, tensor<?xi64>, i64) {
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %s, %sq = soac.redomap commutative %n (%xs : tensor<?xi64>) neutral(%z : i64) -> (i64, tensor<?xi64>) combine(%a: i64, %b: i64) {
    %c = arith.addi %a, %b : i64
    soac.yield %c : i64
  } lambda(%x: i64) {
    %y = arith.muli %x, %x : i64
    soac.yield %y, %y : i64, i64
  }
  %h = soac.redomap %n (%xs : tensor<?xi64>) neutral(%z : i64) -> i64 combine(%a: i64, %b: i64) {
    %c = arith.muli %a, %one : i64
    %d = arith.maxsi %c, %b : i64
    soac.yield %d : i64
  } lambda(%x: i64) {
    %y = arith.subi %x, %one : i64
    soac.yield %y : i64
  }
  func.return %s, %sq, %h : i64, tensor<?xi64>, i64
}
"""


@pytest.mark.parametrize("n", SIZES)
def test_redomap(differential, rng, n):
    differential(REDOMAP, "f", [np.int64(n), rng.integers(-100, 100, n).astype(np.int64)])


SCAN = """
func.func @f(%n: index, %xs: tensor<?xi32>, %as: tensor<?xi32>, %fs: tensor<?xf64>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xf64>) {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %zf = arith.constant 0.0 : f64
  %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  %ma, %mb = soac.scan %n (%as, %xs : tensor<?xi32>, tensor<?xi32>) neutral(%one, %z : i32, i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a1: i32, %b1: i32, %a2: i32, %b2: i32) {
    %aa = arith.muli %a1, %a2 : i32
    %t = arith.muli %b1, %a2 : i32
    %bb = arith.addi %t, %b2 : i32
    soac.yield %aa, %bb : i32, i32
  }
  %fsum = soac.scan %n (%fs : tensor<?xf64>) neutral(%zf : f64) -> tensor<?xf64> combine(%a: f64, %b: f64) {
    %c = arith.addf %a, %b : f64
    soac.yield %c : f64
  }
  func.return %s, %ma, %mb, %fsum : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xf64>
}
"""


@pytest.mark.parametrize("n", SIZES)
def test_scan(differential, rng, n):
    differential(
        SCAN,
        "f",
        [np.int64(n), rng.integers(-50, 50, n).astype(np.int32), rng.integers(-3, 4, n).astype(np.int32), rng.uniform(-1, 1, n)],
    )


SCANOMAP = """
func.func @f(%n: index, %xs: tensor<?xf32>) -> (tensor<?xi1>, tensor<?xf32>, tensor<?xf32>) {
  %z = arith.constant 0.0 : f32
  %p, %d = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (tensor<?xi1>, tensor<?xf32>) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
    %w = arith.addf %x, %x : f32
    soac.yield %y, %w : f32, f32
  } post(%s: f32, %x: f32) {
    %q = arith.cmpf ogt, %s, %x : f32
    soac.yield %q : i1
  }
  %m = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.maximumf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    %y = arith.negf %x : f32
    soac.yield %y : f32
  }
  func.return %p, %d, %m : tensor<?xi1>, tensor<?xf32>, tensor<?xf32>
}
"""


@pytest.mark.parametrize("n", SIZES)
def test_scanomap(differential, rng, n):
    differential(SCANOMAP, "f", [np.int64(n), rng.uniform(0.1, 1, n).astype(np.float32)])


ARRAYS = """
func.func @f(%n: index, %m: tensor<?x?xf32>, %i: index, %v: f32) -> (tensor<?xi32>, tensor<?x?xf32>, f32, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %io = soac.iota %n : tensor<?xi32>
  %rep = soac.replicate %n, %v : f32 -> tensor<?xf32>
  %row = soac.index %m[%i] : tensor<?x?xf32> -> tensor<?xf32>
  %reprow = soac.replicate %n, %row : tensor<?xf32> -> tensor<?x?xf32>
  %t = soac.transpose %m [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %e = soac.index %m[%i, %c0] : tensor<?x?xf32> -> f32
  %sl = soac.slice %row[%c1 : %n] : tensor<?xf32> -> tensor<?xf32>
  %trow = soac.index %t[%i] : tensor<?x?xf32> -> tensor<?xf32>
  %up = soac.update %reprow[%c0] = %trow : tensor<?x?xf32>, tensor<?xf32>
  %up2 = soac.update %rep[%i] = %e : tensor<?xf32>, f32
  func.return %io, %t, %e, %sl, %up, %up2 : tensor<?xi32>, tensor<?x?xf32>, f32, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>
}
"""


@pytest.mark.parametrize("n", [2, 37, 300])
def test_array_ops(differential, rng, n):
    differential(ARRAYS, "f", [np.int64(n), rng.uniform(-1, 1, (n, n)).astype(np.float32), np.int64(n // 2), np.float32(3)])


SCATTER = """
func.func @f(%n: index, %is: tensor<?xi32>, %vs: tensor<?xf32>, %dest: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.scatter %n (%is, %vs : tensor<?xi32>, tensor<?xf32>) into(%dest : tensor<?xf32>) -> tensor<?xf32> lambda(%i: i32, %v: f32) {
    %j = arith.index_cast %i : i32 to index
    soac.yield %j, %v : index, f32
  }
  func.return %r : tensor<?xf32>
}
"""


@pytest.mark.parametrize("n", SIZES)
def test_scatter(differential, rng, n):
    dest = rng.uniform(-1, 1, 2 * n + 1).astype(np.float32)
    indices = rng.permutation(2 * n + 1)[:n].astype(np.int32)  # unique
    differential(SCATTER, "f", [np.int64(n), indices, rng.uniform(-1, 1, n).astype(np.float32), dest])


SEGMENTED = """
func.func @f(%xss: tensor<?x?xi64>) -> (tensor<?x?xi64>, tensor<?xi64>, tensor<?x?xi64>, tensor<?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi64>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi64>
  %zero = arith.constant 0 : i64
  %doubled = soac.segmap LEVEL (%n, %m) -> tensor<?x?xi64> lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi64> -> i64
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  %sums, %sq = soac.segred LEVEL (%n, %m) neutral(%zero : i64) -> (tensor<?xi64>, tensor<?x?xi64>) combine(%a: i64, %b: i64) {
    %s = arith.addi %a, %b : i64
    soac.yield %s : i64
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi64> -> i64
    %x2 = arith.muli %x, %x : i64
    soac.yield %x, %x2 : i64, i64
  }
  %prefix = soac.segscan LEVEL (%n, %m) neutral(%zero : i64) -> tensor<?x?xi64> combine(%a: i64, %b: i64) {
    %s = arith.addi %a, %b : i64
    soac.yield %s : i64
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi64> -> i64
    soac.yield %x : i64
  }
  func.return %doubled, %sums, %sq, %sums, %prefix, %prefix : tensor<?x?xi64>, tensor<?xi64>, tensor<?x?xi64>, tensor<?xi64>, tensor<?x?xi64>, tensor<?x?xi64>
}
"""


@pytest.mark.parametrize("level", ["thread", "group"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 200), (70, 5), (4, 1000)])
def test_segmented(differential, rng, level, shape):
    differential(SEGMENTED.replace("LEVEL", level), "f", [rng.integers(-100, 100, shape).astype(np.int64)])


NESTED = """
func.func @f(%xss: tensor<?x?xf32>, %k: f32) -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %sums = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
    %s = soac.reduce commutative %m (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
    soac.yield %s : f32
  }
  %scaled = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
    %r = soac.map %m (%row : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.mulf %x, %k : f32
      soac.yield %y : f32
    }
    soac.yield %r : tensor<?xf32>
  }
  %lasts = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
    %sc = soac.scan %m (%row : tensor<?xf32>) neutral(%zero : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
    %mm = arith.subi %m, %c1 : index
    %l = soac.index %sc[%mm] : tensor<?xf32> -> f32
    %lp = scf.for %it = %c0 to %c4 step %c1 iter_args(%acc = %l) -> (f32) {
      %d = arith.mulf %acc, %k : f32
      scf.yield %d : f32
    }
    soac.yield %lp : f32
  }
  %fours = soac.map %n (%sums : tensor<?xf32>) -> tensor<?x4xf32> lambda(%s: f32) {
    %r = soac.replicate %c4, %s : f32 -> tensor<4xf32>
    soac.yield %r : tensor<4xf32>
  }
  func.return %sums, %scaled, %lasts, %fours : tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x4xf32>
}
"""


@pytest.mark.parametrize("shape", [(1, 1), (5, 17), (300, 9)])
def test_nested_soacs_run_sequentially(differential, rng, shape):
    differential(NESTED, "f", [rng.uniform(-1, 1, shape).astype(np.float32), np.float32(0.5)])


TRANSPOSED_IN_LAMBDAS = """
func.func @f(%xsss: tensor<?x?x?xi32>) -> (tensor<?x?x?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %xsss, %c0 : tensor<?x?x?xi32>
  %n = tensor.dim %xsss, %c1 : tensor<?x?x?xi32>
  %ts = soac.map %b (%xsss : tensor<?x?x?xi32>) -> tensor<?x?x?xi32> lambda(%xss: tensor<?x?xi32>) {
    %t = soac.transpose %xss [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
    soac.yield %t : tensor<?x?xi32>
  }
  %firsts = soac.map %b (%xsss : tensor<?x?x?xi32>) -> tensor<?xi32> lambda(%xss: tensor<?x?xi32>) {
    %t = soac.transpose %xss [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
    %last = arith.subi %n, %c1 : index
    %e = soac.index %t[%c0, %last] : tensor<?x?xi32> -> i32
    soac.yield %e : i32
  }
  func.return %ts, %firsts : tensor<?x?x?xi32>, tensor<?xi32>
}
"""


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 1, 5), (3, 7, 1)])
def test_transpose_in_lambdas(differential, rng, shape):
    """A transpose inside a lambda: a copy in each work-item's scratch memory, its sizes known before the launch."""
    differential(TRANSPOSED_IN_LAMBDAS, "f", [rng.integers(-50, 50, shape).astype(np.int32)])


VERSIONS = """
func.func @f(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %big = soac.threshold "suff_outer_par_0" %n default 32768
  %r = scf.if %big -> (tensor<?xf32>) {
    %a = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.addf %x, %x : f32
      soac.yield %y : f32
    }
    scf.yield %a : tensor<?xf32>
  } else {
    %zero = arith.constant 0.0 : f32
    %b = soac.scan %n (%xs : tensor<?xf32>) neutral(%zero : f32) -> tensor<?xf32> combine(%p: f32, %q: f32) {
      %c = arith.addf %p, %q : f32
      soac.yield %c : f32
    }
    scf.yield %b : tensor<?xf32>
  }
  func.return %r : tensor<?xf32>
}
"""


@pytest.mark.parametrize("threshold", [None, 1, 10**9])
def test_thresholds_choose_versions(differential, rng, threshold):
    thresholds = None if threshold is None else {"suff_outer_par_0": threshold}
    differential(VERSIONS, "f", [np.int64(50), rng.uniform(-1, 1, 50).astype(np.float32)], thresholds)


@pytest.mark.parametrize("group_size", [1, 2, 32])
def test_tiny_work_groups(differential, rng, group_size):
    n = 513
    args = [
        np.int64(n),
        rng.integers(-50, 50, n).astype(np.int32),
        rng.integers(-3, 4, n).astype(np.int32),
        rng.uniform(-1, 1, n),
    ]
    differential(SCAN, "f", args, group_size=group_size, max_groups=3)


SELF_MIN_MAX = """
func.func @f(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %r = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %a = arith.maxsi %x, %x : i32
    %b = arith.minui %a, %a : i32
    soac.yield %b : i32
  }
  func.return %r : tensor<?xi32>
}
"""


def test_min_max_of_a_value_with_itself(differential, parse, rng):
    """`max(x, x)` prints as `x`: the C compiler would warn about the self-comparison of `x > x ? x : x`."""
    from soac.lowering.opencl.emitter import opencl_source
    from soac.lowering.runtime import lower_module

    differential(SELF_MIN_MAX, "f", [np.int64(37), rng.integers(-100, 100, 37).astype(np.int32)])
    text = opencl_source(lower_module(parse(SELF_MIN_MAX), 64, 8))
    assert re.search(r"\b(\w+) [<>] (\(\w+\))?\1\b", text) is None


WRAPPING = """
func.func @f(%n: index, %xs: tensor<?xTYPE>) -> (tensor<?xTYPE>, tensor<?xTYPE>, tensor<?xTYPE>) {
  %r, %s, %p = soac.map %n (%xs : tensor<?xTYPE>) -> (tensor<?xTYPE>, tensor<?xTYPE>, tensor<?xTYPE>) lambda(%x: TYPE) {
    %c = arith.constant -3 : TYPE
    %k = arith.constant 100 : TYPE
    %up = arith.subi %x, %c : TYPE
    %low = arith.minsi %x, %up : TYPE
    %down = arith.addi %x, %c : TYPE
    %high = arith.maxsi %x, %down : TYPE
    %big = arith.muli %x, %k : TYPE
    soac.yield %low, %high, %big : TYPE, TYPE, TYPE
  }
  func.return %r, %s, %p : tensor<?xTYPE>, tensor<?xTYPE>, tensor<?xTYPE>
}
"""


@pytest.mark.parametrize("element", [np.int8, np.int16, np.int32, np.int64])
def test_integer_arithmetic_wraps(differential, element):
    """`min(x, x + 3)` at the type's maximum is `x + 3` wrapped: a C compiler that took signed overflow as
    undefined folded it to `x` (found by the nested program generator)."""
    info = np.iinfo(element)
    xs = np.array([info.max, info.max - 2, info.min, info.min + 1, 0, -1, 7], dtype=element)
    differential(WRAPPING.replace("TYPE", f"i{info.bits}"), "f", [np.int64(len(xs)), xs])


CANONICALIZE_CASES = Path(__file__).resolve().parents[1] / "filecheck" / "dialect" / "canonicalize.mlir"


@pytest.mark.parametrize(
    "name",
    [
        "fu59",
        "map_parts",
        "map_of_nothing",
        "coupled_parts",
        "three_parts",
        "redomap_parts",
        "three_parts_second_used",
        "scan_pair",
        "scanomap_parts",
        "scanomap_reduce_used",
        "fu49",
        "iota_of_another_width",
        "scanomap_map_out_used",
    ],
)
def test_canonicalized_soacs(parse, random_args, assert_same, name: str) -> None:
    """What `canonicalize` leaves of a SOAC (fewer results, inputs and operator parts; a map of no inputs) runs on
    OpenCL with the original program's results."""
    from soac.context import make_context
    from soac.interpreter import run_function as interpret
    from soac.lowering.runtime import compile_module
    from xdsl.transforms.canonicalize import CanonicalizePass

    original = parse(CANONICALIZE_CASES.read_text())
    simplified = parse(CANONICALIZE_CASES.read_text())
    CanonicalizePass().apply(make_context(), simplified)
    args = random_args(original, name, 37)
    assert_same(interpret(original, name, args), compile_module(simplified).call(name, args))


SCATTER_INTO_FRESH = """
func.func @f(%n: index, %m: index, %is: tensor<?xi32>, %vs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %fresh = soac.replicate %m, %zero : i32 -> tensor<?xi32>
  %once = soac.scatter %n (%is, %vs : tensor<?xi32>, tensor<?xi32>) into(%fresh : tensor<?xi32>) -> tensor<?xi32> lambda(%i: i32, %v: i32) {
    %j = arith.index_cast %i : i32 to index
    soac.yield %j, %v : index, i32
  }
  %outside = soac.replicate %m, %zero : i32 -> tensor<?xi32>
  %looped = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %once) -> (tensor<?xi32>) {
    %t32 = arith.index_cast %t : index to i32
    %next = soac.scatter %n (%is, %vs : tensor<?xi32>, tensor<?xi32>) into(%outside : tensor<?xi32>) -> tensor<?xi32> lambda(%i: i32, %v: i32) {
      %shifted = arith.addi %i, %t32 : i32
      %j = arith.index_cast %shifted : i32 to index
      soac.yield %j, %v : index, i32
    }
    scf.yield %next : tensor<?xi32>
  }
  %iota = soac.iota %m : tensor<?xi32>
  %into_iota = soac.scatter %n (%is, %vs : tensor<?xi32>, tensor<?xi32>) into(%iota : tensor<?xi32>) -> tensor<?xi32> lambda(%i: i32, %v: i32) {
    %j = arith.index_cast %i : i32 to index
    soac.yield %j, %v : index, i32
  }
  func.return %once, %looped, %into_iota : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}
"""


@pytest.mark.parametrize("n", [0, 5, 300])
def test_scatter_into_fresh_arrays(differential, rng, n):
    """A scatter writes in place into a replicate or iota made for it alone, and into a copy of one made outside the
    loop that runs it (each iteration starts from the replicate's zeros, not from the previous iteration's writes)."""
    m = 2 * n + 3
    indices = rng.permutation(m)[:n].astype(np.int32)
    differential(SCATTER_INTO_FRESH, "f", [np.int64(n), np.int64(m), indices, rng.integers(1, 99, n).astype(np.int32)])


def test_scatter_into_fresh_arrays_copies_only_in_the_loop():
    from soac.context import make_context
    from soac.lowering.conversion.soac_to_kernel import SoacToKernelPass
    from soac.lowering.kernel import CopyOp
    from soac.parsing import parse_module
    from xdsl.dialects import scf

    ctx = make_context()
    module = parse_module(ctx, SCATTER_INTO_FRESH, "scatter.mlir")
    SoacToKernelPass().apply(ctx, module)
    copies = [op for op in module.walk() if isinstance(op, CopyOp)]
    assert len(copies) == 1, copies
    assert isinstance(copies[0].parent_op(), scf.ForOp)
