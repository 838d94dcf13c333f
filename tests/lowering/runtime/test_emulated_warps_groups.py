"""`emulated-warps` on PoCL gets work-groups of one warp by default (issue: bugs38).

The target's shuffles and ballots go through one warp's local array between barriers
(`soac.lowering.opencl.target.OpenCLSpelling.emulated_subgroups`), so a work-group of two warps let the second
overwrite the first's lanes. With the runtime's CPU default of 64 work-items, the fully flattened batched matmul (a
4-D `soac.segred`, run by `segred_teams` with teams of a row's width) gave wrong sums, and the look-back scan of
`examples/map_scan.mlir` wrong prefixes or a crash. `options_for` now launches such a target in groups of one warp
(look-back tiles included) and refuses other group sizes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soac.lang as sl
from soac.context import make_context
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module

BATCHED_DOTS = """
func.func @main(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %q = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %k = tensor.dim %a, %c2 : tensor<?x?x?xf32>
  %m = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %zero = arith.constant 0.0 : f32
  %c = soac.segred thread (%q, %n, %m, %k) neutral(%zero : f32) -> tensor<?x?x?xf32> combine(%x: f32, %y: f32) {
    %s = arith.addf %x, %y : f32
    soac.yield %s : f32
  } lambda(%i: index, %j: index, %l: index, %p: index) {
    %u = soac.index %a[%i, %j, %p] : tensor<?x?x?xf32> -> f32
    %v = soac.index %b[%i, %l, %p] : tensor<?x?x?xf32> -> f32
    %w = arith.mulf %u, %v : f32
    soac.yield %w : f32
  }
  func.return %c : tensor<?x?x?xf32>
}
"""
"""The fully flattened batched matmul (`bench/real/suite/batched_matmul.py`, its `suff_outer_par_0` version not
taken), with the second matrices transposed: `c[q,i,j] = sum_p a[q,i,p] * b[q,j,p]`."""

MAP_SCAN = Path(__file__).resolve().parents[3] / "examples" / "map_scan.mlir"


def compiled(text: str, **options: object):
    return compile_module(parse_module(make_context(), text, "emulated.mlir"), "pocl", target="emulated-warps", **options)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (20, 16, 16, 16), (1, 1, 1, 1000)])
def test_flattened_batched_matmul(rng: np.random.Generator, shape: tuple[int, int, int, int]) -> None:
    q, n, m, k = shape
    a = rng.standard_normal((q, n, k), dtype=np.float32)
    b = rng.standard_normal((q, m, k), dtype=np.float32)
    (c,) = compiled(BATCHED_DOTS, segred="teams").call("main", [a, b])
    np.testing.assert_allclose(c, np.einsum("qnk,qmk->qnm", a.astype(np.float64), b), rtol=1e-4, atol=1e-4)


def test_lookback_scan(rng: np.random.Generator) -> None:
    xs = rng.integers(-9, 10, 5000).astype(np.int32)
    (ys,) = compiled(MAP_SCAN.read_text()).call("main", [xs])
    np.testing.assert_array_equal(ys, np.cumsum(3 * xs + 1, dtype=np.int32))


def batched_matmul(a, b):
    """As `bench/real/suite/batched_matmul.py` writes it."""
    return sl.map(lambda x, y: sl.map(lambda row: sl.map(lambda col: sl.sum(row * col), y.T), x), a, b)


def test_lang_batched_matmul_fully_flattened(rng: np.random.Generator) -> None:
    """The report's program: `sl.jit` with only the target named, the outer-parallel version never taken."""
    a, b = (rng.standard_normal((5, 16, 16), dtype=np.float32) for _ in range(2))
    f = sl.jit(batched_matmul, device="pocl", lowering={"target": "emulated-warps"}, thresholds={"suff_outer_par_0": 2**62})
    np.testing.assert_allclose(f(a, b), np.matmul(a.astype(np.float64), b), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("options", [{"group_size": 64}, {"scan_group": 128}])
def test_groups_of_several_warps_refused(options: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="runs each work-group as one warp"):
        compiled(BATCHED_DOTS, **options)


def test_lang_names_the_line_of_groups_of_several_warps() -> None:
    with pytest.raises(ValueError, match=r"test_emulated_warps_groups.py:\d+: sl.jit lowering options: .* not 64 and 32"):
        sl.jit(batched_matmul, lowering={"target": "emulated-warps", "group_size": 64})


def test_soac_to_kernel_refuses_groups_of_several_warps() -> None:
    """The pass itself (soac-opt's) refuses to print kernels that would compute wrong results, and names the fix."""
    from soac.lowering.conversion.soac_to_kernel import SoacToKernelPass

    module = parse_module(make_context(), MAP_SCAN.read_text(), "map_scan.mlir")
    with pytest.raises(ValueError, match=r"soac-to-kernel: target .emulated-warps. .* must be 32, not 256 and 0"):
        SoacToKernelPass(target="emulated-warps").apply(make_context(), module)
    SoacToKernelPass(target="emulated-warps", group_size=32, scan_group=32).apply(make_context(), module)
    assert "kernel.func" in str(module)
