"""Forcing each reduction and scan strategy on PoCL: look-back scans, segmented scans as flat scans, team reductions."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from soac.lowering import lookback_scan, reductions
from soac.lowering.opencl_emitter import opencl_source
from soac.lowering.runtime import compile_module, lower_module, scan_strategy_for
from soac.passes.soac_fuse import SoacFusePass
from xdsl.context import Context

ROOT = Path(__file__).resolve().parents[2]
SIZES = [0, 1, 5, 1023, 1024, 1025, 4096 * 3 + 7]


def bench_program(parse, name: str, level: str = "group", fuse: bool = False):
    module = parse((ROOT / "bench" / "programs" / f"{name}.mlir").read_text().replace("LEVEL", level), f"{name}.mlir")
    if fuse:
        SoacFusePass().apply(Context(), module)
    return module


@pytest.mark.parametrize("fuse", [False, True])
def test_lookback_map_scan(parse, rng, fuse: bool) -> None:
    program = compile_module(bench_program(parse, "map_scan", fuse=fuse), "pocl", scan="lookback")
    assert "scan_lookback" in program.source
    for n in SIZES:
        xs = rng.integers(-100, 100, n).astype(np.int32)
        (got,) = program.call("main", [xs])
        np.testing.assert_array_equal(got, np.cumsum(3 * xs + 1, dtype=np.int32))


@pytest.mark.parametrize("fuse", [False, True])
def test_lookback_two_operators(parse, rng, fuse: bool) -> None:
    """scan_scan fused horizontally scans a pair: two status words per tile that must agree."""
    program = compile_module(bench_program(parse, "scan_scan", fuse=fuse), "pocl", scan="lookback")
    for n in SIZES:
        xs = rng.integers(-100, 100, n).astype(np.int32)
        sums, maxs = program.call("main", [xs])
        np.testing.assert_array_equal(sums, np.cumsum(xs * xs, dtype=np.int32))
        np.testing.assert_array_equal(maxs, np.maximum.accumulate(xs) if n else xs)


def test_lookback_small_types_map_outs_and_post(differential, rng) -> None:
    """f32 and i8 values, a map-out and a post lambda go through the look-back kernel."""
    text = """
    func.func @main(%xs: tensor<?xf32>, %bs: tensor<?xi8>) -> (tensor<?xf32>, tensor<?xi8>, tensor<?xf32>) {
      %c0 = arith.constant 0 : index
      %n = tensor.dim %xs, %c0 : tensor<?xf32>
      %z = arith.constant 0.0 : f32
      %zb = arith.constant 0 : i8
      %s, %c, %m = soac.scanomap %n (%xs, %bs : tensor<?xf32>, tensor<?xi8>) neutral(%z, %zb : f32, i8)
          -> (tensor<?xf32>, tensor<?xi8>, tensor<?xf32>) combine(%a: f32, %b: i8, %x: f32, %y: i8) {
        %s1 = arith.addf %a, %x : f32
        %s2 = arith.maxsi %b, %y : i8
        soac.yield %s1, %s2 : f32, i8
      } lambda(%x: f32, %b: i8) {
        %d = arith.mulf %x, %x : f32
        soac.yield %x, %b, %d : f32, i8, f32
      } post(%s: f32, %t: i8, %x: f32, %b: i8) {
        %h = arith.addf %s, %x : f32
        soac.yield %h, %t : f32, i8
      }
      func.return %s, %c, %m : tensor<?xf32>, tensor<?xi8>, tensor<?xf32>
    }
    """
    for n in (1, 333, 5000):
        xs = rng.uniform(-1, 1, n).astype(np.float32)
        bs = rng.integers(-100, 100, n).astype(np.int8)
        differential(text, "main", [xs, bs], scan="lookback")  # pyright: ignore[reportCallIssue]


def test_lookback_falls_back_for_64_bit_values(parse) -> None:
    """i64 does not fit a packed status word: reduce-then-scan is used."""
    module = parse((ROOT / "examples" / "seg_ops.mlir").read_text())
    text = opencl_source(lower_module(module, 64, 8, "lookback"))
    assert "scan_lookback" not in text


def test_nvidia_source_uses_warp_intrinsics(parse) -> None:
    """`lookback-nvidia` cannot build on PoCL (inline PTX); check what it emits."""
    module = bench_program(parse, "map_scan", fuse=True)
    text = opencl_source(lower_module(module, 256, 1024, "lookback-nvidia"))
    for needle in ("shfl.sync.up.b32", "shfl.sync.down.b32", "vote.sync.ballot.b32", "atomic_inc", "volatile __global long*"):
        assert needle in text, needle
    assert "const int4 _v = *(const __global int4*)" in text


def test_strategy_by_device(monkeypatch) -> None:
    nvidia = SimpleNamespace(platform=SimpleNamespace(name="NVIDIA CUDA"))
    pocl = SimpleNamespace(platform=SimpleNamespace(name="Portable Computing Language"))
    monkeypatch.delenv("SOAC_SCAN", raising=False)
    assert scan_strategy_for(nvidia) == "lookback-nvidia"  # pyright: ignore[reportArgumentType]
    assert scan_strategy_for(pocl) == "reduce-then-scan"  # pyright: ignore[reportArgumentType]
    monkeypatch.setenv("SOAC_SCAN", "lookback")
    assert scan_strategy_for(nvidia) == "lookback"  # pyright: ignore[reportArgumentType]


@pytest.mark.parametrize("scan", ["lookback", "reduce-then-scan"])
def test_segscan_group(parse, rng, scan: str) -> None:
    program = compile_module(bench_program(parse, "segscan"), "pocl", scan=scan)
    assert ("scan_lookback" in program.source) == (scan == "lookback")
    for m, n in ((1, 1), (3, 5), (100, 16), (7, 4099), (2, 30000)):
        xss = rng.integers(-100, 100, (m, n)).astype(np.int32)
        (got,) = program.call("main", [xss])
        np.testing.assert_array_equal(got, np.cumsum(xss, axis=1, dtype=np.int32))


@pytest.mark.parametrize("min_team", [1, 8])
def test_segred_teams(parse, rng, monkeypatch, min_team: int) -> None:
    """Team sizes from 1 to the group size, and segments split over several groups (second stage)."""
    monkeypatch.setattr(reductions, "SEG_MIN_TEAM", min_team)
    program = compile_module(bench_program(parse, "segred"), "pocl", group_size=64, max_groups=8)
    for m, n in ((1, 1), (3, 5), (100, 16), (7, 4099), (2, 300000), (500, 64)):
        xss = rng.integers(-100, 100, (m, n)).astype(np.int32)
        (got,) = program.call("main", [xss])
        np.testing.assert_array_equal(got, xss.sum(axis=1, dtype=np.int32))


def test_segred_non_commutative(differential, parse, rng) -> None:
    """An operator the lowering cannot prove commutative: contiguous chunks per team member, order kept."""
    text = """
    func.func @main(%xss: tensor<?x?xi32>) -> tensor<?xi32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %m = tensor.dim %xss, %c0 : tensor<?x?xi32>
      %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
      %zero = arith.constant 0 : i32
      %r = soac.segred group (%m, %n) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
        %z = arith.cmpi eq, %b, %zero : i32
        %s = arith.select %z, %a, %b : i32
        soac.yield %s : i32
      } lambda(%i: index, %j: index) {
        %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
        soac.yield %x : i32
      }
      func.return %r : tensor<?xi32>
    }
    """
    from soac.dialect import SegredOp

    segred = next(op for op in parse(text).walk() if isinstance(op, SegredOp))
    assert not reductions.is_commutative(segred.combine)
    for m, n in ((3, 5), (4, 700), (1, 20000)):
        xss = rng.integers(-3, 3, (m, n)).astype(np.int32)
        differential(text, "main", [xss], group_size=64, max_groups=4)  # pyright: ignore[reportCallIssue]


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 4096 * 4 + 3])
def test_vectorised_sum(parse, rng, n: int) -> None:
    program = compile_module(bench_program(parse, "sum", fuse=True), "pocl")
    assert "int4" in program.source
    xs = rng.integers(-100, 100, n).astype(np.int32)
    (got,) = program.call("main", [xs])
    assert got == np.sum(3 * xs + 1, dtype=np.int32)


def test_items_per_thread_setting(parse, monkeypatch) -> None:
    monkeypatch.setattr(lookback_scan, "ITEMS_PER_THREAD", 8)
    text = opencl_source(lower_module(bench_program(parse, "map_scan", fuse=True), 32, 8, "lookback"))
    assert "tile * 256L" in text  # 32 work-items x 8 elements
