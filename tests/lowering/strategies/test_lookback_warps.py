"""The NVIDIA look-back scan (warp shuffles and ballots) on PoCL, against the interpreter, and its tile shapes.

PoCL has no sub-groups: the `emulated-warps` target prints the kernels' shuffles and ballots as exchanges
through local memory, which is right when a work-group is one warp, so these tests make the NVIDIA kernel's
work-groups 32 work-items, with 8 items each (tiles of 256 elements; PoCL builds a kernel with many barriers
slowly, and every emulated shuffle is two).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.runtime import compile_module, lower_module
from soac.passes.soac_fuse import SoacFusePass
from xdsl.context import Context

ROOT = Path(__file__).resolve().parents[3]
SIZES = [1, 255, 257, 256 * 40 + 5]  # part of a tile, one and a bit, many tiles with a partial last one


def program_text(name: str) -> str:
    return (ROOT / "bench" / "programs" / f"{name}.mlir").read_text().replace("LEVEL", "group")


def fused(parse, name: str):
    module = parse(program_text(name), f"{name}.mlir")
    SoacFusePass().apply(Context(), module)
    return module


@pytest.fixture
def one_warp_groups() -> dict[str, int]:
    """soac-to-kernel's options for look-back tiles of one warp (emulated warps need work-groups of one warp)."""
    return {"scan_group": 32, "scan_items": 8}


def test_map_scan(differential, rng, one_warp_groups: dict[str, int]) -> None:
    """The unfused map->scan: a look-back scan of one value (the map is its own kernel)."""
    for n in SIZES:
        xs = rng.integers(-100, 100, n).astype(np.int32)
        options = {"device": "pocl", "scan": "lookback", "target": "emulated-warps", **one_warp_groups}
        differential(program_text("map_scan"), "main", [xs], **options)  # pyright: ignore[reportCallIssue]


@pytest.mark.slow
def test_fused_one_and_two_values(parse, rng, one_warp_groups: dict[str, int]) -> None:
    """The fused map->scan (one value) and the horizontally fused scan_scan ((+) and max: two status words)."""
    map_scan = compile_module(fused(parse, "map_scan"), "pocl", scan="lookback", target="emulated-warps", **one_warp_groups)
    scan_scan = compile_module(fused(parse, "scan_scan"), "pocl", scan="lookback", target="emulated-warps", **one_warp_groups)
    for n in SIZES:
        xs = rng.integers(-100, 100, n).astype(np.int32)
        (got,) = map_scan.call("main", [xs])
        np.testing.assert_array_equal(got, np.cumsum(3 * xs + 1, dtype=np.int32))
        sums, maxs = scan_scan.call("main", [xs])
        np.testing.assert_array_equal(sums, np.cumsum(xs * xs, dtype=np.int32))
        np.testing.assert_array_equal(maxs, np.maximum.accumulate(xs))


@pytest.mark.slow
def test_segscan(differential, rng, one_warp_groups: dict[str, int]) -> None:
    """A segmented scan with rows shorter than a tile, rows over several tiles, 64 rows of 260 over 256-element
    tiles (the row-major kernel), and rows of whole tiles (the kernel without segment flags)."""
    for m, n in ((3, 5), (5, 1000), (64, 260), (3, 512), (64, 256)):
        xss = rng.integers(-100, 100, (m, n)).astype(np.int32)
        options = {"device": "pocl", "scan": "lookback", "target": "emulated-warps", **one_warp_groups}
        differential(program_text("segscan"), "main", [xss], **options)  # pyright: ignore[reportCallIssue]


def test_emulated_warps_source(parse, one_warp_groups: dict[str, int]) -> None:
    """The emulated target prints no inline PTX: shuffles and ballots go through a local array between barriers."""
    module = fused(parse, "map_scan")
    text = opencl_source(lower_module(module, 32, 8, "lookback", target="emulated-warps", **one_warp_groups))
    assert "asm" not in text
    assert "__local int lanes[32];" in text
    assert "lanes[((int)get_local_id(0) & 31)] = " in text


@pytest.mark.parametrize(
    ("name", "tile"),
    [("map_scan", 128 * 64), ("scan_scan", 128 * 96), ("segscan", 128 * 32)],
    ids=["one_value", "two_values", "segmented"],
)
def test_nvidia_tile_shapes(parse, name: str, tile: int) -> None:
    """NVIDIA tiles: 128 x 64 for one value, 128 x 96 for the two values of a plain scan, and a segmented scan's
    (flag, value) keeps 128 x 32 (its rows of up to 4096 fill whole tiles)."""
    module = fused(parse, name) if name != "segscan" else parse(program_text(name), f"{name}.mlir")
    text = opencl_source(lower_module(module, 256, 1024, "lookback", target="nvidia"))
    assert f"tile * {tile}L" in text


@pytest.mark.parametrize("target", ["nvidia", "generic"])
def test_two_values_publish_paired_status_words(parse, target: str) -> None:
    """Two published values: one array of word pairs, each pair written and polled with one volatile 16-byte access."""
    text = opencl_source(lower_module(fused(parse, "scan_scan"), 128, 8, "lookback", target=target))
    assert "status_0" not in text
    assert "status_1" not in text
    assert "*(volatile __global long2*)(status_pairs + " in text
    assert "*(const volatile __global long2*)(status_pairs + " in text


@pytest.mark.parametrize("paired", [True, False], ids=["paired", "split"])
@pytest.mark.parametrize("target", ["emulated-warps", "generic"])
def test_two_values_paired_or_split(parse, rng, one_warp_groups: dict[str, int], paired: bool, target: str) -> None:
    """scan_scan ((+) and max) is right with the status words paired and with one array per value."""
    status = "paired" if paired else "split"
    program = compile_module(
        fused(parse, "scan_scan"), "pocl", scan="lookback", target=target, scan_status=status, **one_warp_groups
    )
    assert ("status_pairs" in program.source) == paired
    for n in (1, 257, 256 * 40 + 5):
        xs = rng.integers(-100, 100, n).astype(np.int32)
        sums, maxs = program.call("main", [xs])
        np.testing.assert_array_equal(sums, np.cumsum(xs * xs, dtype=np.int32))
        np.testing.assert_array_equal(maxs, np.maximum.accumulate(xs))


THREE_VALUES = """
func.func @main(%xs: tensor<?xi32>, %fs: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %lowest = arith.constant -2147483648 : i32
  %fzero = arith.constant 0.0 : f32
  %s, %m, %f = soac.scan %n (%xs, %xs, %fs : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>)
      neutral(%zero, %lowest, %fzero : i32, i32, f32) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>)
      combine(%a: i32, %b: i32, %c: f32, %d: i32, %e: i32, %g: f32) {
    %sum = arith.addi %a, %d : i32
    %max = arith.maxsi %b, %e : i32
    %fsum = arith.addf %c, %g : f32
    soac.yield %sum, %max, %fsum : i32, i32, f32
  }
  func.return %s, %m, %f : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
}
"""


@pytest.mark.parametrize("target", ["emulated-warps", "generic"])
def test_three_values_pad_their_status_words_to_two_pairs(parse, rng, one_warp_groups: dict[str, int], target: str) -> None:
    """Three published values: four words per tile (the last carries only the flag), read and written as two pairs."""
    module = parse(THREE_VALUES)
    text = opencl_source(lower_module(parse(THREE_VALUES), 32, 8, "lookback", target=target, **one_warp_groups))
    assert text.count("*(const volatile __global long2*)(status_pairs + ") == 2
    program = compile_module(module, "pocl", scan="lookback", target=target, **one_warp_groups)
    for n in (1, 257, 256 * 40 + 5):
        xs = rng.integers(-100, 100, n).astype(np.int32)
        fs = rng.integers(-8, 8, n).astype(np.float32)
        sums, maxs, fsums = program.call("main", [xs, fs])
        np.testing.assert_array_equal(sums, np.cumsum(xs, dtype=np.int32))
        np.testing.assert_array_equal(maxs, np.maximum.accumulate(xs))
        np.testing.assert_array_equal(fsums, np.cumsum(fs, dtype=np.float32))
