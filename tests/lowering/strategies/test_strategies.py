"""Forcing each reduction and scan strategy on PoCL: look-back and chunked scans, segmented scans, team reductions."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.runtime import compile_module, lower_module, scan_strategy_for, target_for
from soac.lowering.strategies import group_code
from soac.passes.soac_fuse import SoacFusePass
from xdsl.context import Context

ROOT = Path(__file__).resolve().parents[3]
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


SMALL_TYPES_MAP_OUTS_AND_POST = """
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


def test_lookback_small_types_map_outs_and_post(differential, rng) -> None:
    """f32 and i8 values, a map-out and a post lambda go through the look-back kernel."""
    for n in (1, 333, 5000):
        xs = rng.uniform(-1, 1, n).astype(np.float32)
        bs = rng.integers(-100, 100, n).astype(np.int8)
        differential(SMALL_TYPES_MAP_OUTS_AND_POST, "main", [xs, bs], scan="lookback")  # pyright: ignore[reportCallIssue]


def test_lookback_falls_back_for_64_bit_values(parse) -> None:
    """i64 does not fit a packed status word: reduce-then-scan is used."""
    module = parse((ROOT / "examples" / "seg_ops.mlir").read_text())
    text = opencl_source(lower_module(module, 64, 8, "lookback"))
    assert "scan_lookback" not in text


def test_nvidia_source_uses_warp_intrinsics(parse) -> None:
    """The NVIDIA target's look-back scan cannot build on PoCL (inline PTX); check what it emits."""
    module = bench_program(parse, "map_scan", fuse=True)
    text = opencl_source(lower_module(module, 256, 1024, "lookback", target="nvidia"))
    for needle in ("shfl.sync.up.b32", "shfl.sync.down.b32", "vote.sync.ballot.b32", "atomic_add", "volatile __global long*"):
        assert needle in text, needle
    assert re.search(r"const int4 \w+ = \*\(const __global int4\*\)", text)


@pytest.mark.parametrize("name", ["map_scan", "scan_scan", "sum", "segred", "segscan", "radix_sort"])
def test_nvidia_lowering_of_bench_programs(parse, name: str) -> None:
    """Every benchmark program lowers for NVIDIA (which CI cannot build); segmented reductions of plain rows use
    butterfly shuffles and no barrier in `segred_vector`."""
    text = opencl_source(lower_module(bench_program(parse, name), 256, 1024, "lookback", target="nvidia"))
    if name == "segred":
        vector_kernel = text[text.index("segred_vector") :]
        vector_kernel = vector_kernel[: vector_kernel.index("\n}\n")]
        assert "shfl.sync.bfly.b32" in vector_kernel
        assert "barrier" not in vector_kernel


def test_strategy_by_device(monkeypatch) -> None:
    import pyopencl as cl

    nvidia = SimpleNamespace(platform=SimpleNamespace(name="NVIDIA CUDA"), type=cl.device_type.GPU)
    pocl = SimpleNamespace(platform=SimpleNamespace(name="Portable Computing Language"), type=cl.device_type.CPU)
    other_gpu = SimpleNamespace(platform=SimpleNamespace(name="AMD Accelerated Parallel Processing"), type=cl.device_type.GPU)
    monkeypatch.delenv("SOAC_SCAN", raising=False)
    monkeypatch.delenv("SOAC_TARGET", raising=False)
    assert target_for(nvidia).name == "nvidia"  # pyright: ignore[reportArgumentType]
    assert target_for(nvidia).subgroup_width == 32  # pyright: ignore[reportArgumentType]
    assert target_for(pocl).name == "cpu"  # pyright: ignore[reportArgumentType]
    assert target_for(other_gpu).name == "generic"  # pyright: ignore[reportArgumentType]
    assert scan_strategy_for(nvidia) == "lookback"  # pyright: ignore[reportArgumentType]
    assert scan_strategy_for(pocl) == "chunked"  # pyright: ignore[reportArgumentType]
    assert scan_strategy_for(other_gpu) == "reduce-then-scan"  # pyright: ignore[reportArgumentType]
    monkeypatch.setenv("SOAC_SCAN", "reduce-then-scan")
    assert scan_strategy_for(nvidia) == "reduce-then-scan"  # pyright: ignore[reportArgumentType]
    monkeypatch.setenv("SOAC_TARGET", "generic")
    assert target_for(nvidia).name == "generic"  # pyright: ignore[reportArgumentType]


@pytest.mark.parametrize(
    ("scan", "group", "aligned"),
    [("lookback", 256, True), ("lookback", 32, True), ("lookback", 32, False), ("reduce-then-scan", 256, True)],
)
def test_segscan_group(parse, rng, scan: str, group: int, aligned: bool) -> None:
    """With 32 work-items a look-back tile is 512 elements: segments that fill whole tiles (no tile looks back), that
    span several tiles, several segments per tile, and segments that start inside a tile (short look-backs); with
    64 rows or more, each longer than a tile, the row-major kernel; rows of whole tiles go to the kernel without
    segment flags unless soac-to-kernel's `segscan-aligned` is false."""
    program = compile_module(bench_program(parse, "segscan"), "pocl", scan=scan, group_size=group, segscan_aligned=aligned)
    assert ("scan_lookback" in program.source) == (scan == "lookback")
    assert ("scan_lookback_aligned" in program.source) == (scan == "lookback" and aligned)
    shapes = ((1, 1), (3, 5), (100, 16), (7, 4099), (2, 30000), (5, 512), (3, 2048), (9, 256), (4, 700), (40, 1000))
    shapes += ((70, 600), (64, 1024), (65, 2052), (64, 1026))  # 64 rows or more: row-major tiles (not 1026: odd rows)
    for m, n in shapes:
        xss = rng.integers(-100, 100, (m, n)).astype(np.int32)
        (got,) = program.call("main", [xss])
        np.testing.assert_array_equal(got, np.cumsum(xss, axis=1, dtype=np.int32))


@pytest.mark.parametrize("min_team", [1, 8])
def test_segred_teams(parse, rng, min_team: int) -> None:
    """Team sizes from 1 to the group size, and segments split over several groups (second stage)."""
    module = bench_program(parse, "segred")
    program = compile_module(module, "pocl", group_size=64, max_groups=8, segred="teams", seg_min_team=min_team)
    for m, n in ((1, 1), (3, 5), (100, 16), (7, 4099), (2, 300000), (500, 64)):
        xss = rng.integers(-100, 100, (m, n)).astype(np.int32)
        (got,) = program.call("main", [xss])
        np.testing.assert_array_equal(got, xss.sum(axis=1, dtype=np.int32))


VECTOR_SHAPES = (
    (0, 16),
    (1, 4),
    (4, 1024),
    (2, 2048),
    (3, 300000),
    (9, 8),
    (1000, 16),
    (33, 32),
    (7, 256),
    (5, 260),
    (17, 64),
    (5, 128),
    (3, 132),
    (2, 4100),
    (3, 12),
    (4, 6),
)


@pytest.mark.parametrize(("dtype", "target"), [(np.int32, "generic"), (np.float32, "generic"), (np.int32, "emulated-warps")])
@pytest.mark.slow
def test_segred_vector(parse, rng, dtype: type, target: str) -> None:
    """Rows of 4, 8, ... 128 and longer multiples of 4 go to `segred_vector`; rows of 12 and 6 to `segred_teams`.
    With 32-lane sub-groups (`emulated-warps`: one warp per work-group) rows of up to 32 vectors take a loop of their
    own, rows of 33 to 64 vectors the two-vector loop and longer rows the long-row loop."""
    text = (ROOT / "bench" / "programs" / "segred.mlir").read_text().replace("LEVEL", "group")
    if dtype is np.float32:
        text = text.replace("i32", "f32").replace("arith.addi", "arith.maximumf").replace("0 : f32", "-1.0e30 : f32")
    group_size = 32 if target == "emulated-warps" else 64
    program = compile_module(parse(text), "pocl", group_size=group_size, max_groups=8, target=target)
    assert "segred_vector" in program.source
    assert ("one_vector_rows" in program.source) == (target == "emulated-warps")
    for m, n in VECTOR_SHAPES:
        xss = rng.integers(-1000, 1000, (m, n)).astype(dtype)
        (got,) = program.call("main", [xss])
        expected = xss.max(axis=1, initial=-1.0e30) if dtype is np.float32 else xss.sum(axis=1, dtype=np.int32)
        np.testing.assert_array_equal(got, expected)


PLAIN_3D = """
func.func @main(%x: tensor<?x?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor.dim %x, %c0 : tensor<?x?x?xi32>
  %b = tensor.dim %x, %c1 : tensor<?x?x?xi32>
  %n = tensor.dim %x, %c2 : tensor<?x?x?xi32>
  %low = arith.constant -2147483648 : i32
  %zero = arith.constant 0 : i32
  %m = soac.segred group (%a, %b, %n) neutral(%low : i32) -> tensor<?x?xi32> combine(%p: i32, %q: i32) {
    %r = arith.maxsi %p, %q : i32
    soac.yield %r : i32
  } lambda(%i: index, %j: index, %k: index) {
    %v = soac.index %x[%i, %j, %k] : tensor<?x?x?xi32> -> i32
    soac.yield %v : i32
  }
  %s = soac.segscan group (%a, %b, %n) neutral(%zero : i32) -> tensor<?x?x?xi32> combine(%p: i32, %q: i32) {
    %r = arith.addi %p, %q : i32
    soac.yield %r : i32
  } lambda(%i: index, %j: index, %k: index) {
    %v = soac.index %x[%i, %j, %k] : tensor<?x?x?xi32> -> i32
    soac.yield %v : i32
  }
  func.return %m, %s : tensor<?x?xi32>, tensor<?x?x?xi32>
}
"""


@pytest.mark.parametrize("shape", [(3, 5, 16), (2, 7, 256), (4, 3, 1000), (2, 1, 40000), (3, 2, 7), (2, 3, 2048)])
@pytest.mark.slow
def test_plain_segmented_ops_over_3d_arrays(differential, rng, shape: tuple[int, int, int]) -> None:
    """The vector segred and the look-back segscan index rows of a 3-D array by their flattened outer indices."""
    xs = rng.integers(-1000, 1000, shape).astype(np.int32)
    differential(PLAIN_3D, "main", [xs], group_size=64, max_groups=8, scan="lookback")  # pyright: ignore[reportCallIssue]


SEGSCAN_PAIRS = """
func.func @main(%xss: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %three = arith.constant 3 : i32
  %sums, %lasts, %tripled = soac.segscan group (%m, %n) neutral(%zero, %zero : i32, i32)
      -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>) combine(%a: i32, %la: i32, %b: i32, %lb: i32) {
    %s = arith.addi %a, %b : i32
    %z = arith.cmpi eq, %lb, %zero : i32
    %l = arith.select %z, %la, %lb : i32
    soac.yield %s, %l : i32, i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
    %y = arith.muli %x, %three : i32
    soac.yield %y, %x, %y : i32, i32, i32
  }
  func.return %sums, %lasts, %tripled : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>
}
"""


@pytest.mark.parametrize("aligned", [True, False])
def test_segscan_of_whole_tiles_with_pairs_and_map_outs(differential, rng, aligned: bool) -> None:
    """Two scanned values (one operator not commutative) and a map-out, in rows of whole tiles (1024 elements with
    64 work-items on PoCL) and in other rows, with and without the kernel that drops the segment flags."""
    for m, n in ((3, 1024), (2, 3072), (70, 2048), (5, 1000), (1, 4096)):
        xss = rng.integers(-3, 3, (m, n)).astype(np.int32)
        options = {"group_size": 64, "scan": "lookback", "segscan_aligned": aligned}
        differential(SEGSCAN_PAIRS, "main", [xss], **options)  # pyright: ignore[reportCallIssue]


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
    assert not group_code.is_commutative(segred.combine)
    for m, n in ((3, 5), (4, 700), (1, 20000)):
        xss = rng.integers(-3, 3, (m, n)).astype(np.int32)
        differential(text, "main", [xss], group_size=64, max_groups=4)  # pyright: ignore[reportCallIssue]


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 4096 * 4 + 3])
def test_vectorised_sum(parse, rng, n: int) -> None:
    program = compile_module(bench_program(parse, "sum", fuse=True), "pocl", scan="reduce-then-scan")
    assert "int4" in program.source
    xs = rng.integers(-100, 100, n).astype(np.int32)
    (got,) = program.call("main", [xs])
    assert got == np.sum(3 * xs + 1, dtype=np.int32)


def test_items_per_thread_setting(parse) -> None:
    text = opencl_source(lower_module(bench_program(parse, "map_scan", fuse=True), 32, 8, "lookback", scan_items=8))
    assert "tile * 256L" in text  # 32 work-items x 8 elements


# ---------------------------------------------------------------------------
# chunked (the CPU default): one work-item per contiguous chunk
# ---------------------------------------------------------------------------


@pytest.fixture(params=[16, 4096], ids=["tiny_chunks", "default_chunks"])
def chunk_min(request) -> int:
    """soac-to-kernel's `chunk-min`: small chunks make several chunks (and empty ones: more chunks than elements / 16)
    at the small sizes too."""
    return request.param


@pytest.mark.parametrize("fuse", [False, True])
def test_chunked_map_scan(parse, rng, chunk_min: int, fuse: bool) -> None:
    module = bench_program(parse, "map_scan", fuse=fuse)
    program = compile_module(module, "pocl", max_groups=7, scan="chunked", chunk_min=chunk_min)
    assert "chunk_scan" in program.source
    assert "barrier" not in program.source
    for n in SIZES:
        xs = rng.integers(-100, 100, n).astype(np.int32)
        (got,) = program.call("main", [xs])
        np.testing.assert_array_equal(got, np.cumsum(3 * xs + 1, dtype=np.int32))


@pytest.mark.parametrize("fuse", [False, True])
def test_chunked_two_operators(parse, rng, chunk_min: int, fuse: bool) -> None:
    module = bench_program(parse, "scan_scan", fuse=fuse)
    program = compile_module(module, "pocl", max_groups=5, scan="chunked", chunk_min=chunk_min)
    for n in SIZES:
        xs = rng.integers(-100, 100, n).astype(np.int32)
        sums, maxs = program.call("main", [xs])
        np.testing.assert_array_equal(sums, np.cumsum(xs * xs, dtype=np.int32))
        np.testing.assert_array_equal(maxs, np.maximum.accumulate(xs) if n else xs)


def test_chunked_small_types_map_outs_and_post(differential, rng, chunk_min: int) -> None:
    for n in (0, 1, 333, 5000):
        xs = rng.uniform(-1, 1, n).astype(np.float32)
        bs = rng.integers(-100, 100, n).astype(np.int8)
        options = {"max_groups": 6, "scan": "chunked", "chunk_min": chunk_min}
        differential(SMALL_TYPES_MAP_OUTS_AND_POST, "main", [xs, bs], **options)  # pyright: ignore[reportCallIssue]


AFFINE_SCAN = """
func.func @main(%as: tensor<?xi64>, %bs: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %as, %c0 : tensor<?xi64>
  %one = arith.constant 1 : i64
  %zero = arith.constant 0 : i64
  %p, %q, %m = soac.scanomap %n (%as, %bs : tensor<?xi64>, tensor<?xi64>) neutral(%one, %zero : i64, i64)
      -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) combine(%a1: i64, %b1: i64, %a2: i64, %b2: i64) {
    %a = arith.muli %a1, %a2 : i64
    %t = arith.muli %b1, %a2 : i64
    %b = arith.addi %t, %b2 : i64
    soac.yield %a, %b : i64, i64
  } lambda(%x: i64, %y: i64) {
    %s = arith.subi %x, %y : i64
    soac.yield %x, %y, %s : i64, i64, i64
  }
  func.return %p, %q, %m : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
"""


def test_chunked_non_commutative_64_bit(differential, rng, chunk_min: int) -> None:
    """Composition of affine maps (order matters) over i64 pairs, with a map-out."""
    for n in (0, 1, 17, 1000, 20001):
        xs = rng.integers(-1, 2, n).astype(np.int64)
        ys = rng.integers(-5, 5, n).astype(np.int64)
        differential(AFFINE_SCAN, "main", [xs, ys], max_groups=8, scan="chunked", chunk_min=chunk_min)  # pyright: ignore[reportCallIssue]


REDOMAP_NON_COMMUTATIVE = """
func.func @main(%xs: tensor<?xi32>) -> (i32, i32, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %r, %c, %m = soac.redomap %n (%xs : tensor<?xi32>) neutral(%zero, %zero : i32, i32) -> (i32, i32, tensor<?xi32>)
      combine(%a: i32, %ca: i32, %b: i32, %cb: i32) {
    %z = arith.cmpi eq, %b, %zero : i32
    %s = arith.select %z, %a, %b : i32
    %c = arith.addi %ca, %cb : i32
    soac.yield %s, %c : i32, i32
  } lambda(%x: i32) {
    %one = arith.constant 1 : i32
    %d = arith.muli %x, %x : i32
    soac.yield %x, %one, %d : i32, i32, i32
  }
  func.return %r, %c, %m : i32, i32, tensor<?xi32>
}
"""


def test_chunked_redomap_non_commutative_map_out(differential, rng, chunk_min: int) -> None:
    """The last non-zero element (order matters), a count and a map-out."""
    for n in (0, 1, 5, 4099, 30000):
        xs = rng.integers(-2, 3, n).astype(np.int32)
        differential(REDOMAP_NON_COMMUTATIVE, "main", [xs], max_groups=8, scan="chunked", chunk_min=chunk_min)  # pyright: ignore[reportCallIssue]


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 4096 * 4 + 3])
def test_chunked_sum(parse, rng, chunk_min: int, n: int) -> None:
    program = compile_module(bench_program(parse, "sum", fuse=True), "pocl", scan="chunked", chunk_min=chunk_min)
    assert "chunk_reduce" in program.source
    assert "barrier" not in program.source
    xs = rng.integers(-100, 100, n).astype(np.int32)
    (got,) = program.call("main", [xs])
    assert got == np.sum(3 * xs + 1, dtype=np.int32)


def test_cpu_buffers_are_reused(parse, rng) -> None:
    """On a CPU device the buffers of dead arrays serve later allocations of the same size."""
    program = compile_module(bench_program(parse, "map_scan", fuse=False), "pocl")
    assert program.pool is not None
    xs = rng.integers(-100, 100, 5000).astype(np.int32)
    for _ in range(3):
        (got,) = program.call("main", [xs])
        np.testing.assert_array_equal(got, np.cumsum(3 * xs + 1, dtype=np.int32))
    assert program.pool.free.get(5000 * 4), "the map's and the scan's outputs went back to the pool"


GRID_STRIDE = """
func.func @main(%xs: tensor<?xi32>, %m: tensor<?x?xf32>, %is: tensor<?xi32>, %dest: tensor<?xi32>)
    -> (tensor<?xi32>, tensor<?xi32>, tensor<?x?xf32>, tensor<?xi32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %rows = tensor.dim %m, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %m, %c1 : tensor<?x?xf32>
  %k = arith.constant 3 : i32
  %r = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %a = arith.maxsi %x, %k : i32
    %b = arith.minsi %x, %k : i32
    %c = arith.maxui %x, %k : i32
    %d = arith.minui %x, %k : i32
    %ab = arith.muli %a, %b : i32
    %cd = arith.xori %c, %d : i32
    %y = arith.addi %ab, %cd : i32
    soac.yield %y : i32
  }
  %io = soac.iota %n : tensor<?xi32>
  %t = soac.transpose %m [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %s = soac.scatter %n (%is, %xs : tensor<?xi32>, tensor<?xi32>) into(%dest : tensor<?xi32>) -> tensor<?xi32>
      lambda(%i: i32, %v: i32) {
    %j = arith.index_cast %i : i32 to index
    soac.yield %j, %v : index, i32
  }
  %sm = soac.segmap thread (%rows, %cols) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
    %x = soac.index %m[%i, %j] : tensor<?x?xf32> -> f32
    %y = arith.addf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %r, %io, %t, %s, %sm : tensor<?xi32>, tensor<?xi32>, tensor<?x?xf32>, tensor<?xi32>, tensor<?x?xf32>
}
"""


@pytest.mark.parametrize("align", [1, 16])
@pytest.mark.parametrize("contiguous", [False, True])
def test_grid_stride_layouts(parse, rng, align: int, contiguous: bool) -> None:
    """Map, iota, transpose, scatter and segmap over contiguous ranges per work-item (the CPU layout, here with
    small work-groups, few of them and odd sizes) and over the grid-stride loop give the interpreter's results;
    the map's integer max/min print as conditionals (signed and unsigned)."""
    from soac.interpreter import run_function as interpret

    module = parse(GRID_STRIDE)
    program = compile_module(module, "pocl", group_size=4, max_groups=3, contiguous=contiguous, chunk_align=align)
    assert ("i < hi; i++" in program.source) == contiguous
    assert "max(" not in program.source
    assert "min(" not in program.source
    for n, shape in [(0, (0, 3)), (1, (1, 1)), (37, (5, 7)), (1001, (13, 77)), (4099, (61, 3))]:
        xs = rng.integers(-100, 100, n).astype(np.int32)
        m = rng.uniform(-1, 1, shape).astype(np.float32)
        indices = rng.permutation(2 * n + 1)[:n].astype(np.int32)
        dest = rng.integers(-9, 9, 2 * n + 1).astype(np.int32)
        args = [xs, m, indices, dest]
        expected = interpret(module, "main", args)
        got = program.call("main", args)
        for e, g in zip(expected, got, strict=True):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(e))


ROW_SUMS_BY_GROUP = """
func.func @main(%xss: tensor<?x?xi32>) -> (tensor<?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %sums, %scans = soac.segmap group (%n) -> (tensor<?xi32>, tensor<?x?xi32>) lambda(%i: index) {
    %row = soac.index %xss[%i] : tensor<?x?xi32> -> tensor<?xi32>
    %scan = soac.segscan thread (%m) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%j: index) {
      %x = soac.index %row[%j] : tensor<?xi32> -> i32
      soac.yield %x : i32
    }
    %sum = soac.segred thread (%m) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%j: index) {
      %x = soac.index %scan[%j] : tensor<?xi32> -> i32
      soac.yield %x : i32
    }
    soac.yield %sum, %scan : i32, tensor<?xi32>
  }
  func.return %sums, %scans : tensor<?xi32>, tensor<?x?xi32>
}
"""


@pytest.mark.parametrize("target", ["generic", "cpu"])
def test_group_segmaps_by_target(parse, rng, target: str) -> None:
    """GPU targets share a group-level segmap's segops out among a work-group; the cpu target runs each element on
    one work-item, with no barriers. Either way the same results."""
    program = compile_module(parse(ROW_SUMS_BY_GROUP), "pocl", target=target, group_size=32)
    assert ("segmap_group" in program.source) == (target == "generic")
    assert ("barrier" in program.source) == (target == "generic")
    for n, m in [(0, 3), (3, 0), (1, 1), (7, 45), (40, 33)]:
        xss = rng.integers(-100, 100, (n, m)).astype(np.int32)
        sums, scans = program.call("main", [xss])
        np.testing.assert_array_equal(scans, np.cumsum(xss, axis=1, dtype=np.int32))
        np.testing.assert_array_equal(sums, scans.sum(axis=1, dtype=np.int32))


def test_buffers_shared_by_work_items_are_not_restrict(parse) -> None:
    """A group's arrays are written by some work-items and read by others after a barrier: `restrict` would let the
    compiler keep their memory out of the barrier's reach. Buffers a kernel only reads or only writes keep it."""
    source = opencl_source(lower_module(parse(ROW_SUMS_BY_GROUP), 32, 8, target="generic"))
    kernel = source[source.index("__kernel void main_segmap_group") :]
    params = kernel[: kernel.index(")")]
    assert re.search(r"__global int \*restrict xss\b", params)
    assert re.search(r"__global int \*restrict sums\b", params)  # written only
    assert re.findall(r"__global int \*(group_\w+)", params), params  # written, then read by other work-items
    assert "restrict group" not in params
