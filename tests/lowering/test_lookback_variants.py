"""The NVIDIA look-back scan and its variants (`SOAC_LOOKBACK_VARIANT`) on PoCL, against the interpreter.

PoCL has no sub-groups: the `emulated-warps` target prints the kernels' shuffles and ballots as exchanges
through local memory, which is right when a work-group is one warp, so these tests make the NVIDIA kernel's
work-groups 32 work-items, with 8 items each (tiles of 256 elements; PoCL builds a kernel with many barriers
slowly, and every emulated shuffle is two).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from soac import dialect as soac
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.runtime import lower_module
from soac.lowering.strategies import lookback_scan
from soac.lowering.strategies.lookback_bodies import commutative_combine
from soac.passes.soac_fuse import SoacFusePass
from xdsl.context import Context

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ["base", "early", "groupid", "reqd", "early,groupid,reqd"]
SIZES = [1, 255, 257, 256 * 40 + 5]  # part of a tile, one and a bit, many tiles with a partial last one


def bench_program(parse, name: str):
    module = parse((ROOT / "bench" / "programs" / f"{name}.mlir").read_text().replace("LEVEL", "group"), f"{name}.mlir")
    SoacFusePass().apply(Context(), module)
    return module


@pytest.fixture
def one_warp_groups(monkeypatch) -> None:
    monkeypatch.setattr(lookback_scan, "NVIDIA_GROUP", 32)
    monkeypatch.setattr(lookback_scan, "ITEMS_PER_THREAD", 8)


def set_variant(monkeypatch, variant: str) -> None:
    monkeypatch.setattr(lookback_scan, "VARIANT", frozenset(variant.split(",")))


def run_variant(differential, parse, rng, name: str, sizes: list[int]) -> None:
    text = (ROOT / "bench" / "programs" / f"{name}.mlir").read_text()
    for n in sizes:
        xs = rng.integers(-100, 100, n).astype(np.int32)
        differential(text, "main", [xs], device="pocl", scan="lookback", target="emulated-warps")  # pyright: ignore[reportCallIssue]


@pytest.mark.parametrize("variant", VARIANTS)
def test_map_scan_variants(differential, parse, rng, monkeypatch, one_warp_groups, variant: str) -> None:
    """The unfused map->scan: a look-back scan of one value (the map is its own kernel)."""
    set_variant(monkeypatch, variant)
    run_variant(differential, parse, rng, "map_scan", SIZES)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_fused_variants(parse, rng, monkeypatch, one_warp_groups, variant: str) -> None:
    """The fused map->scan (one value) and the horizontally fused scan_scan ((+) and max: two status words)."""
    from soac.lowering.runtime import compile_module

    set_variant(monkeypatch, variant)
    map_scan = compile_module(bench_program(parse, "map_scan"), "pocl", scan="lookback", target="emulated-warps")
    scan_scan = compile_module(bench_program(parse, "scan_scan"), "pocl", scan="lookback", target="emulated-warps")
    for n in SIZES:
        xs = rng.integers(-100, 100, n).astype(np.int32)
        (got,) = map_scan.call("main", [xs])
        np.testing.assert_array_equal(got, np.cumsum(3 * xs + 1, dtype=np.int32))
        sums, maxs = scan_scan.call("main", [xs])
        np.testing.assert_array_equal(sums, np.cumsum(xs * xs, dtype=np.int32))
        np.testing.assert_array_equal(maxs, np.maximum.accumulate(xs))


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["base", "early,groupid,reqd"])
def test_segscan_variants(differential, rng, monkeypatch, one_warp_groups, variant: str) -> None:
    """A segmented scan (not commutative: `early` keeps the scan's own aggregate) with rows shorter than a tile,
    rows over several tiles, and 64 rows of 260 over 256-element tiles (the row-major kernel)."""
    set_variant(monkeypatch, variant)
    text = (ROOT / "bench" / "programs" / "segscan.mlir").read_text().replace("LEVEL", "group")
    for m, n in ((3, 5), (5, 1000), (64, 260)):
        xss = rng.integers(-100, 100, (m, n)).astype(np.int32)
        differential(text, "main", [xss], device="pocl", scan="lookback", target="emulated-warps")  # pyright: ignore[reportCallIssue]


def test_emulated_warps_source(parse, one_warp_groups) -> None:
    """The emulated target prints no inline PTX: shuffles and ballots go through a local array between barriers."""
    text = opencl_source(lower_module(bench_program(parse, "map_scan"), 32, 8, "lookback", target="emulated-warps"))
    assert "asm" not in text
    assert "__local int lanes[32];" in text
    assert "lanes[((int)get_local_id(0) & 31)] = " in text


def test_early_variant_reduces_before_the_look_back(parse, monkeypatch) -> None:
    """`early`: the butterfly reduction (shfl.sync.bfly) and the ballot of the look-back come before the vectors'
    warp scans (shfl.sync.up); `base` has no butterfly and scans first."""
    set_variant(monkeypatch, "early")
    early = opencl_source(lower_module(bench_program(parse, "map_scan"), 256, 1024, "lookback", target="nvidia"))
    assert early.index("shfl.sync.bfly") < early.index("vote.sync.ballot") < early.index("shfl.sync.up")
    set_variant(monkeypatch, "base")
    base = opencl_source(lower_module(bench_program(parse, "map_scan"), 256, 1024, "lookback", target="nvidia"))
    assert "shfl.sync.bfly" not in base
    assert base.index("shfl.sync.up") < base.index("vote.sync.ballot")
    set_variant(monkeypatch, "groupid")
    by_group = opencl_source(lower_module(bench_program(parse, "map_scan"), 256, 1024, "lookback", target="nvidia"))
    assert "atomic_add" not in by_group
    assert "reqd_work_group_size" not in by_group
    set_variant(monkeypatch, "reqd")
    declared = opencl_source(lower_module(bench_program(parse, "map_scan"), 256, 1024, "lookback", target="nvidia"))
    assert "__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void main_scan_lookback_0(" in declared


COMBINES = {
    "(+)": ("%s = arith.addi %a, %b : i32", True),
    "(max), swapped": ("%s = arith.maxsi %b, %a : i32", True),
    "(-)": ("%s = arith.subi %a, %b : i32", False),
    "a + a": ("%s = arith.addi %a, %a : i32", False),
    "(+.) on f32": ("%s = arith.addf %a, %b : f32", False),
}


@pytest.mark.parametrize("name", COMBINES)
def test_commutative_combine(parse, name: str) -> None:
    line, expected = COMBINES[name]
    t = "f32" if "f32" in line else "i32"
    zero = "0.0" if t == "f32" else "0"
    text = f"""
    func.func @main(%xs: tensor<?x{t}>) -> tensor<?x{t}> {{
      %c0 = arith.constant 0 : index
      %n = tensor.dim %xs, %c0 : tensor<?x{t}>
      %z = arith.constant {zero} : {t}
      %r = soac.scan %n (%xs : tensor<?x{t}>) neutral(%z : {t}) -> tensor<?x{t}> combine(%a: {t}, %b: {t}) {{
        {line}
        soac.yield %s : {t}
      }}
      func.return %r : tensor<?x{t}>
    }}
    """
    scan = next(op for op in parse(text).walk() if isinstance(op, soac.ScanOp))
    assert commutative_combine(scan.combine, 1) == expected
