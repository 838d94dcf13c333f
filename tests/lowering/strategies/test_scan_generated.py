"""Top-level scans and scanomaps (and the scatter in their kernel, or after them) compute an iota or a replicate of a
scalar among their inputs instead of reading it (`strategies/generated_inputs.py`), in every scan strategy: the
results stay the interpreter's around the tiles, and no iota or replicate kernel runs for them. A scanomap with a
reduction part that the strategy splits (all but the look-back scan) leaves the iota to a redomap too: then it is
stored, and the results are the same."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes import get_all_passes
from xdsl.passes import PassPipeline

# Two scans read one iota (one of them only the iota: its full tiles would be vector loads), the second also a
# replicate, and its post lambda reads all three rows again.
SCANS = """
func.func @f(%xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %seven = arith.constant 7 : i32
  %is = soac.iota %n : tensor<?xi32>
  %sevens = soac.replicate %n, %seven : i32 -> tensor<?xi32>
  %tri = soac.scan %n (%is : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  %w, %d = soac.scanomap %n (%xs, %is, %sevens : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) neutral(%zero : i32)
      -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32, %i: i32, %v: i32) {
    %p = arith.muli %x, %i : i32
    %q = arith.addi %p, %v : i32
    soac.yield %q : i32
  } post(%acc: i32, %x: i32, %i: i32, %v: i32) {
    %e = arith.subi %acc, %i : i32
    %g = arith.muli %x, %v : i32
    soac.yield %e, %g : i32, i32
  }
  func.return %tri, %w, %d : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}
"""

# A scanomap with a reduction part: the look-back kernel scans and reduces it whole, the other strategies split it.
SCAN_REDUCE = """
func.func @f(%xs: tensor<?xi32>) -> (tensor<?xi32>, i32, i32) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %lowest = arith.constant -2147483648 : i32
  %is = soac.iota %n : tensor<?xi32>
  %sums, %total, %top = soac.scanomap %n (%xs, %is : tensor<?xi32>, tensor<?xi32>) neutral(%zero : i32)
      reduce commutative(%zero, %lowest : i32, i32) -> (tensor<?xi32>, i32, i32) combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } reduce_combine(%a_1: i32, %a_2: i32, %b_1: i32, %b_2: i32) {
    %s_1 = arith.addi %a_1, %b_1 : i32
    %m = arith.maxsi %a_2, %b_2 : i32
    soac.yield %s_1, %m : i32, i32
  } lambda(%x: i32, %i: i32) {
    %three = arith.constant 3 : i32
    %x3 = arith.muli %x, %three : i32
    %y = arith.addi %x3, %i : i32
    %z = arith.subi %x, %i : i32
    soac.yield %y, %y, %z : i32, i32, i32
  }
  func.return %sums, %total, %top : tensor<?xi32>, i32, i32
}
"""

# A scatter whose indices come from an iota (reversing the scan's sums): in the scan's kernel (look-back, chunked) or a
# kernel of its own (reduce-then-scan).
SCAN_SCATTER = """
func.func @f(%xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %last = arith.subi %n, %c1 : index
  %zero = arith.constant 0 : i32
  %is = soac.iota %n : tensor<?xindex>
  %dest = soac.replicate %n, %zero : i32 -> tensor<?xi32>
  %sums = soac.scan %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  %out = soac.scatter %n (%sums, %is : tensor<?xi32>, tensor<?xindex>) into(%dest : tensor<?xi32>) -> tensor<?xi32>
      lambda(%s: i32, %i: index) {
    %j = arith.subi %last, %i : index
    soac.yield %j, %s : index, i32
  }
  func.return %out : tensor<?xi32>
}
"""

# sl.filter's compaction with its iota (the third program of bench/compaction_variants.py).
COMPACTION = (Path(__file__).resolve().parents[3] / "bench" / "programs" / "compaction_iota.mlir").read_text()

# (lowering, its tile or chunk): reduce-then-scan (groups of 64 on PoCL), the chunked scan of CPUs, the look-back scan
# without warps (64 x 16 items) and with emulated warps (the NVIDIA kernels, groups of 32: 32 x 8 items, and the
# default 32 x 64 for one scanned value, whose kernels take PoCL long to build).
LOWERINGS = [
    pytest.param({"target": "generic"}, 64, id="generic"),
    pytest.param({"target": "cpu"}, 4096, id="cpu"),
    pytest.param({"target": "generic", "scan": "lookback"}, 1024, id="generic-lookback"),
    pytest.param({"target": "emulated-warps", "scan_items": 8}, 256, id="emulated-warps"),
    pytest.param({"target": "emulated-warps"}, 2048, id="emulated-warps-64", marks=pytest.mark.slow),
]


def differential(text: str, lowering: dict[str, object], tile: int, stored: bool = False, replicates: int = 0) -> None:
    """Against the interpreter at sizes 0, 1 and around a tile; `stored`: the iota has a kernel of its own;
    `replicates`: the replicate kernels."""
    module = parse_module(make_context(), text, "scan_generated.mlir")
    compiled = compile_module(module, "pocl", **lowering)
    names = list(compiled.kernels)
    assert any("iota" in k for k in names) == stored, names
    assert sum("replicate" in k for k in names) == replicates, names
    rng = np.random.default_rng(tile)
    for n in (0, 1, tile - 1, tile, tile + 1, 3 * tile + 5):
        xs = rng.integers(-100, 100, n).astype(np.int32)
        for got, want in zip(compiled.call("f", [xs]), interpret(module, "f", [xs]), strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"n = {n}")


@pytest.mark.parametrize(("lowering", "tile"), LOWERINGS)
def test_scans_compute_their_iota_and_replicate(lowering: dict[str, object], tile: int) -> None:
    differential(SCANS, lowering, tile)


@pytest.mark.parametrize(("lowering", "tile"), LOWERINGS)
def test_scatter_indices_from_an_iota(lowering: dict[str, object], tile: int) -> None:
    differential(SCAN_SCATTER, lowering, tile, replicates=1)  # the destination's


@pytest.mark.parametrize(("lowering", "tile"), LOWERINGS)
def test_a_split_scan_reduce_stores_its_iota(lowering: dict[str, object], tile: int) -> None:
    lookback = lowering.get("scan") == "lookback" or lowering["target"] == "emulated-warps"
    differential(SCAN_REDUCE, lowering, tile, stored=not lookback)


@pytest.mark.parametrize(("lowering", "tile"), LOWERINGS)
def test_compaction_with_an_iota_after_fusion(lowering: dict[str, object], tile: int) -> None:
    """soac-simplify and soac-fuse move the predicate into the scanomap and leave the iota its input."""
    module = parse_module(make_context(), COMPACTION, "compaction_iota.mlir")
    PassPipeline.parse_spec(get_all_passes(), "soac-simplify,soac-fuse").apply(make_context(), module)
    text = str(module)
    assert "soac.map " not in text
    scan = next(line for line in text.splitlines() if "soac.scanomap" in line)
    assert "(%xs, %is : tensor<?xi32>, tensor<?xi32>)" in scan
    compiled = compile_module(module, "pocl", **lowering)
    names = list(compiled.kernels)
    assert not any("iota" in k for k in names), names
    assert any("scatter" in k for k in names) == (lowering["target"] == "generic" and "scan" not in lowering), names
    rng = np.random.default_rng(3)
    for n in (0, 1, tile - 1, tile, tile + 1):
        xs = rng.integers(-100, 100, n).astype(np.int32)
        out, counted = compiled.call("main", [xs])
        want_out, want_count = interpret(module, "main", [xs])
        kept = int(np.count_nonzero(xs > 0))
        assert int(counted[0]) == int(want_count[0]) == kept
        np.testing.assert_array_equal(out[:kept], xs[xs > 0])
        np.testing.assert_array_equal(want_out[:kept], xs[xs > 0])
