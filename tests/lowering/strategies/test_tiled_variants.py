"""The tiled kernel's variants on OpenCL (PoCL, the `generic` target, which has local tiles) against numpy: 32-bit
index versions (`tile-index=i32`), warp sub-tiles (`tile-warps`), alternating local tiles (`tile-buffers=2`), unrolled
folds (`tile-unroll`), rectangular register blocks (`soac-tile{reg-d1}`) and reads
of `b` for `transpose b` (`soac-tile{untranspose}`), at awkward sizes (1, primes, a block or a chunk plus or minus one)
for f32, f64 and i32; and that the host launches the 32-bit version where the sizes fit, the 64-bit one elsewhere."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from soac.context import make_context
from soac.lowering import kernel as kd
from soac.lowering.runtime import Program, compile_module
from soac.parsing import parse_module

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_tiled_kernels import random, tiled  # pyright: ignore[reportMissingImports]

SIZES = {"block": 32, "reg": 4, "chunk": 4}
"""8 x 8 work-items a group (two warps of 4 x 8 or 8 x 4), 4-wide vector copies along k and along b's rows."""
SHAPES = [(1, 1, 1), (31, 5, 33), (33, 13, 31), (32, 8, 32), (7, 3, 65), (0, 3, 4), (3, 0, 5)]
"""(n, k, m): a is n x k, b is k x m."""
VARIANTS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "i32-indices": ({}, {"tile_index": "i32"}),
    "warps-4x8": ({}, {"tile_warps": "4x8"}),
    "warps-8x4": ({}, {"tile_warps": "8x4"}),
    "two-buffers": ({}, {"tile_buffers": 2}),
    "unrolled": ({}, {"tile_unroll": True}),
    "rectangular": ({"block_d1": 64, "reg_d1": 8}, {"tile_warps": "4x8"}),
    "untransposed": ({"untranspose": True}, {}),
    "all": ({"untranspose": True}, {"tile_index": "i32", "tile_warps": "4x8", "tile_buffers": 2, "tile_unroll": True}),
}
"""Each variant's soac-tile options and lowering options."""


def expected(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    wide = np.int64 if a.dtype == np.int32 else np.float64
    return (a.astype(wide) @ b.astype(wide)).astype(a.dtype)


def check_variant(variant: str, element: str, sizes: dict[str, int]) -> None:
    tile_options, lowering_options = VARIANTS[variant]
    module = tiled("matmul.mlir", element, **sizes, **tile_options)
    program = compile_module(module, target="generic", **lowering_options)
    rng = np.random.default_rng(11)
    for n, k, m in SHAPES:
        a, b = random(rng, (n, k), element), random(rng, (k, m), element)
        (got,) = program.call("main", [a, b])
        assert got.shape == (n, m)
        if element == "i32":
            np.testing.assert_array_equal(got, expected(a, b))
        else:
            np.testing.assert_allclose(got, expected(a, b), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_variant_f32(variant: str) -> None:
    check_variant(variant, "f32", SIZES)


@pytest.mark.slow
@pytest.mark.parametrize("element", ["f64", "i32"])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_variant_other_types(variant: str, element: str) -> None:
    check_variant(variant, element, SIZES)


@pytest.mark.parametrize("variant", ["all", "untransposed"])
def test_variant_where_warps_do_not_fit(variant: str) -> None:
    """Odd sizes (2 x 2 work-items, chunks of 5 along k, b's rows in tiles of 6): the warp layout falls back to
    row-major, the copies to scalars."""
    check_variant(variant, "f32", {"block": 6, "reg": 3, "chunk": 5})


def index_bits(program: Program) -> dict[str, int]:
    return {op.kernel_name: op.index_bits for op in program.module.walk() if isinstance(op, kd.FuncOp)}


def recording(program: Program) -> list[str]:
    """The names of the kernels `program` launches from now on, in order (launches of no work-items are skipped)."""
    launched: list[str] = []

    def record(name: str, kernel: Any) -> Any:
        def launch(*args: Any) -> Any:
            launched.append(name)
            return kernel(*args)

        return launch

    program.kernels = {name: record(name, k) for name, k in program.kernels.items()}
    return launched


def test_the_32_bit_versions_run_where_the_sizes_fit() -> None:
    """`tile-index=i32` gives the tiled kernel and the transpose a 32-bit version each; small products launch
    those alone, an index space of 2^31 rows (and no columns) the 64-bit tiled kernel."""
    program = compile_module(tiled("matmul.mlir", "f32", **SIZES), target="generic", tile_index="i32")
    bits = index_bits(program)
    assert sorted(bits.values()).count(32) == sorted(bits.values()).count(64) >= 2
    assert "const int a_d0" in program.source
    launched = recording(program)
    rng = np.random.default_rng(12)
    a, b = random(rng, (33, 13), "f32"), random(rng, (13, 31), "f32")
    np.testing.assert_allclose(program.call("main", [a, b])[0], expected(a, b), rtol=1e-5, atol=1e-5)
    assert any(name.startswith("main_transpose_tiled_") for name in launched)
    assert any(name.startswith("main_tiled_") for name in launched)
    assert all(bits[name] == 32 for name in launched)

    launched.clear()
    (got,) = program.call("main", [np.zeros((2**31, 0), np.float32), np.zeros((0, 0), np.float32)])
    assert got.shape == (2**31, 0)
    assert launched
    assert all(bits[name] == 64 and name.startswith("main_tiled_") for name in launched)


def test_i64_keeps_the_64_bit_kernels_alone() -> None:
    program = compile_module(tiled("matmul.mlir", "f32", **SIZES), target="generic", tile_index="i64")
    assert set(index_bits(program).values()) == {64}
    launched = recording(program)
    rng = np.random.default_rng(13)
    a, b = random(rng, (9, 5), "f32"), random(rng, (5, 7), "f32")
    np.testing.assert_allclose(program.call("main", [a, b])[0], expected(a, b), rtol=1e-5, atol=1e-5)
    assert launched


BATCHED_TRANSPOSE = """
func.func @main(%x: tensor<?x?x?xi32>) -> tensor<?x?x?xi32> {
  %t = soac.transpose %x [0, 2, 1] : tensor<?x?x?xi32> -> tensor<?x?x?xi32>
  func.return %t : tensor<?x?x?xi32>
}
"""


@pytest.mark.parametrize("index", ["i32", "i64"])
def test_tiled_transpose_versions(index: str) -> None:
    """The tiled transpose of batches of matrices, in 32-bit and 64-bit versions, against numpy."""
    module = parse_module(make_context(), BATCHED_TRANSPOSE, "transpose.mlir")
    program = compile_module(module, target="generic", transpose="tiled", tile_index=index)
    assert (32 in index_bits(program).values()) == (index == "i32")
    rng = np.random.default_rng(14)
    for shape in [(1, 1, 1), (2, 33, 31), (3, 0, 5), (1, 64, 65)]:
        x = rng.integers(-1000, 1000, shape).astype(np.int32)
        np.testing.assert_array_equal(program.call("main", [x])[0], x.transpose(0, 2, 1))


@pytest.mark.parametrize("split_items", [1, 64])
def test_all_pairs_in_32_bits(split_items: int) -> None:
    """A 1-D tiled op in 32 bits, its reduction whole or split into slices (their partial results combined by a
    second kernel), with alternating tiles: `sum(xs) + n * xs[i]`."""
    module = tiled("all_pairs.mlir", "i32", block=8, reg=2, chunk=3)
    program = compile_module(module, target="generic", tile_index="i32", tile_buffers=2, tile_split_items=split_items)
    assert 32 in index_bits(program).values()
    rng = np.random.default_rng(15)
    for n in (1, 2, 7, 8, 9, 31, 100):
        xs = random(rng, (n,), "i32")
        np.testing.assert_array_equal(program.call("main", [xs])[0], xs.sum() + n * xs)
