# ruff: noqa: E501  (the programs are MLIR text, one op per line)
"""A scanomap with a reduction part as one look-back kernel (`lowering/strategies/lookback_reduce.py`) on PoCL.

The look-back strategy is forced on the CPU device (`scan="lookback"`, serial look-back, local-memory trees). With
32 work-items a tile is 512 elements and a block 32 tiles, so the sizes below cover no element, one, a tile less
one, a tile, a tile and one, several tiles with a partial last one, one full block and a block and one, and
several blocks with a partial last one: the last tile of a block, and the last block, do the combining. Blocks of
2 tiles (soac-to-kernel's `scan-reduce-fan-in`) make more blocks than work-items at the largest size.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from soac.context import make_context
from soac.dialect import ScanomapOp
from soac.interpreter import run_function as interpret
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.runtime import compile_module, lower_module
from soac.lowering.strategies.choice import fuses_scan_reduce
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_fuse import SoacFusePass
from xdsl.context import Context

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from programs import Program, make_args, programs  # pyright: ignore[reportMissingImports]

ROOT = Path(__file__).resolve().parents[3]
GROUP = 32
TILE = GROUP * 16
SIZES = [0, 1, TILE - 1, TILE, TILE + 1, 3 * TILE + 7, 32 * TILE, 32 * TILE + 1, 70 * TILE + 300]


def fused_bench_program(parse):
    module = parse((ROOT / "bench" / "programs" / "scan_reduce.mlir").read_text(), "scan_reduce.mlir")
    SoacFusePass().apply(Context(), module)
    assert sum(isinstance(op, ScanomapOp) and op.has_reduction for op in module.walk()) == 1
    return module


def expected_bench(xs: np.ndarray) -> list[object]:
    ys = 3 * xs + 1
    return [np.cumsum(ys, dtype=np.int32), np.sum(ys, dtype=np.int32), ys.max() if ys.size else np.int32(-(2**31))]


@pytest.mark.parametrize("fan_in", [0, 2])
def test_bench_program_in_one_kernel(parse, rng, fan_in: int) -> None:
    """Prefix sums, sum and max of 3x+1 (FU-23 with a second reduction): the init and look-back kernels only."""
    module = fused_bench_program(parse)
    program = compile_module(module, "pocl", scan="lookback", group_size=GROUP, scan_reduce_fan_in=fan_in)
    kernels = [line for line in program.source.splitlines() if line.startswith("__kernel")]
    assert [k.split("(")[0].split()[-1] for k in kernels] == ["main_scan_init_0", "main_scan_lookback_0"]
    for n in SIZES:
        xs = rng.integers(-100, 100, n).astype(np.int32)
        for got, expected in zip(program.call("main", [xs]), expected_bench(xs), strict=True):
            np.testing.assert_array_equal(got, expected, err_msg=f"n={n}")


def test_split_on_request(parse, rng) -> None:
    """soac-to-kernel's `scan-reduce=split` gives the scanomap's and the redomap's kernels, with the same results."""
    program = compile_module(fused_bench_program(parse), "pocl", scan="lookback", group_size=GROUP, scan_reduce="split")
    assert "main_reduce_0" in program.source
    assert "main_scan_lookback_0" in program.source
    xs = rng.integers(-100, 100, 3 * TILE + 7).astype(np.int32)
    for got, expected in zip(program.call("main", [xs]), expected_bench(xs), strict=True):
        np.testing.assert_array_equal(got, expected)


def test_bad_mode_is_refused(parse) -> None:
    with pytest.raises(ValueError, match="scan-reduce must be one of fused, split, got 'both'"):
        lower_module(fused_bench_program(parse), 32, 8, "lookback", scan_reduce="both")


def test_other_strategies_split(parse) -> None:
    """Only the look-back strategy fuses: chunked and reduce-then-scan lower a scanomap and a redomap."""
    for scan, reduce_kernel in (("chunked", "chunk_reduce"), ("reduce-then-scan", "main_reduce_0")):
        text = opencl_source(lower_module(fused_bench_program(parse), 32, 8, scan))
        assert reduce_kernel in text, scan


def test_nvidia_kernel(parse) -> None:
    """On NVIDIA (which CI cannot build) the tile's values are combined with warp shuffles; partials are published
    behind a device-scope fence (`membar.gl`) before the ticket and read with volatile loads."""
    text = opencl_source(lower_module(fused_bench_program(parse), 256, 1024, "lookback", target="nvidia"))
    kernel = text[text.index("void main_scan_lookback_0") :]
    assert "main_reduce" not in text
    assert kernel.count('asm volatile("membar.gl;" ::: "memory");') >= 4
    assert "atomic_add(&reduce_tickets[" in kernel
    assert "*(volatile __global int*)&partials[" in kernel
    assert "*(volatile __global int*)&block_partials[" in kernel
    assert "shfl.sync.down.b32" in kernel


def test_flatten_leaves_top_level_ops_whole(parse) -> None:
    """soac-flatten splits only the scanomaps in lambdas; soac-to-kernel decides for the top-level ones."""
    module = fused_bench_program(parse)
    SoacFlattenPass().apply(make_context(), module)
    assert sum(isinstance(op, ScanomapOp) and op.has_reduction for op in module.walk()) == 1


# Non-commutative operators in both parts, f32 and i32 values, a post lambda and map-outs.
POST_NON_COMMUTATIVE = """
func.func @f(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi1>, f32, i32, tensor<?xi32>) {
  %z = arith.constant 0.0 : f32
  %zi = arith.constant 0 : i32
  %d, %p, %sum, %last, %mo = soac.scanomap %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) neutral(%z, %zi : f32, i32) reduce(%z, %zi : f32, i32) -> (tensor<?xf32>, tensor<?xi1>, f32, i32, tensor<?xi32>) combine(%a: f32, %ai: i32, %b: f32, %bi: i32) {
    %c = arith.addf %a, %b : f32
    %nz = arith.cmpi ne, %bi, %zi : i32
    %ci = arith.select %nz, %bi, %ai : i32
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

# Reduced values of 1 to 8 bytes (f64 sum, i64 product, i8 max, i1 or: the fused commutative operators) beside an i8
# scan, and a tuple operator that is not commutative: the composition of affine maps x -> a x + b over (i32, i32).
WIDE_AND_NARROW = """
func.func @f(%n: index, %xs: tensor<?xi32>, %bs: tensor<?xi8>) -> (tensor<?xi8>, f64, i64, i8, i1, i32, i32) {
  %zb = arith.constant 0 : i8
  %zf = arith.constant 0.0 : f64
  %one = arith.constant 1 : i64
  %lo = arith.constant -128 : i8
  %no = arith.constant false
  %a1 = arith.constant 1 : i32
  %b0 = arith.constant 0 : i32
  %s, %sf, %p, %mx, %any, %ca, %cb = soac.scanomap %n (%xs, %bs : tensor<?xi32>, tensor<?xi8>) neutral(%zb : i8) reduce(%zf, %one, %lo, %no, %a1, %b0 : f64, i64, i8, i1, i32, i32) -> (tensor<?xi8>, f64, i64, i8, i1, i32, i32) combine(%u: i8, %v: i8) {
    %w = arith.addi %u, %v : i8
    soac.yield %w : i8
  } reduce_combine(%f1: f64, %p1: i64, %m1: i8, %o1: i1, %x1: i32, %y1: i32, %f2: f64, %p2: i64, %m2: i8, %o2: i1, %x2: i32, %y2: i32) {
    %f = arith.addf %f1, %f2 : f64
    %p = arith.muli %p1, %p2 : i64
    %m = arith.maxsi %m1, %m2 : i8
    %o = arith.ori %o1, %o2 : i1
    %x = arith.muli %x1, %x2 : i32
    %t = arith.muli %y1, %x2 : i32
    %y = arith.addi %t, %y2 : i32
    soac.yield %f, %p, %m, %o, %x, %y : f64, i64, i8, i1, i32, i32
  } lambda(%x: i32, %b: i8) {
    %f = arith.sitofp %x : i32 to f64
    %q = arith.extsi %x : i32 to i64
    %three = arith.constant 3 : i64
    %r = arith.remsi %q, %three : i64
    %t = arith.constant 2 : i64
    %pr = arith.addi %r, %t : i64
    %c7 = arith.constant 7 : i32
    %big = arith.cmpi sgt, %x, %c7 : i32
    %c2 = arith.constant 2 : i32
    %ra = arith.remsi %x, %c2 : i32
    soac.yield %b, %f, %pr, %b, %big, %ra, %x : i8, f64, i64, i8, i1, i32, i32
  }
  func.return %s, %sf, %p, %mx, %any, %ca, %cb : tensor<?xi8>, f64, i64, i8, i1, i32, i32
}
"""


def _args(name: str, n: int, rng: np.random.Generator) -> list[object]:
    if name == "post":
        xs = rng.uniform(-1, 1, n).astype(np.float32)
        is_ = np.where(rng.random(n) < 0.3, 0, rng.integers(-9, 9, n)).astype(np.int32)
        return [np.int64(n), xs, is_]
    return [np.int64(n), rng.integers(-10, 9, n).astype(np.int32), rng.integers(-100, 100, n).astype(np.int8)]


@pytest.mark.parametrize(("name", "text"), [("post", POST_NON_COMMUTATIVE), ("types", WIDE_AND_NARROW)])
@pytest.mark.parametrize("fan_in", [0, 2])
@pytest.mark.slow
def test_operators_and_types(parse, assert_same, rng, name: str, text: str, fan_in: int) -> None:
    """With blocks of 2 tiles, the largest size makes 36 blocks: the last block's work-items fold two each."""
    module = parse(text)
    program = compile_module(module, "pocl", scan="lookback", group_size=GROUP, scan_reduce_fan_in=fan_in)
    assert "main_reduce" not in program.source
    assert "f_scan_lookback_0" in program.source
    for n in SIZES:
        args = _args(name, n, rng)
        assert_same(interpret(module, "f", args), program.call("f", args), rtol=1e-3, atol=1e-3)


def test_group_of_64(parse, assert_same, rng) -> None:
    """PoCL's default work-group (64 work-items, tiles of 1024) over several tiles."""
    module = parse(WIDE_AND_NARROW)
    program = compile_module(module, "pocl", scan="lookback")
    for n in (1, 1024, 5 * 1024 + 3):
        args = _args("types", n, rng)
        assert_same(interpret(module, "f", args), program.call("f", args))


BATCH = 10


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(batch=st.lists(programs(), min_size=BATCH, max_size=BATCH))
@pytest.mark.slow
def test_random_fused_programs(batch: list[Program]) -> None:
    """Random programs after soac-fuse (scan+reduce fusion makes reduction parts; batches without one that the look-back
    kernel takes are skipped) on the look-back strategy, over one tile and over two."""
    text = "\n".join(p.text.replace("func.func @main(", f"func.func @main_{k}(", 1) for k, p in enumerate(batch))
    module = parse_module(make_context(), text, "random.mlir")
    SoacFusePass().apply(Context(), module)
    assume(any(isinstance(op, ScanomapOp) and fuses_scan_reduce(op, "lookback") for op in module.walk()))
    program = compile_module(module, "pocl", scan="lookback", group_size=GROUP)
    for k, case in enumerate(batch):
        n = (5, TILE + 5)[k % 2]
        args = make_args(n, 3, len(case.args) - 3, k)
        expected = interpret(module, f"main_{k}", args)
        got = program.call(f"main_{k}", args)
        for j, (e, g) in enumerate(zip(expected, got, strict=True)):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(e), err_msg=f"result #{j}\n{case.text}")
