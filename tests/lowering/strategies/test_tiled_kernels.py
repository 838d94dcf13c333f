"""soac.tiled_redomap on OpenCL (PoCL): the tiled kernel (targets with local tiles) and a result per work-item
(the cpu target) give the interpreter's results at every size and tile size, for f32, f64 and i32."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import SoacRuntimeError
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_tile import SoacTilePass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from xdsl.dialects.builtin import ModuleOp

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(ROOT / "bench"))
from check_tiled import retyped  # noqa: E402  # pyright: ignore[reportMissingImports]

TYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32}


def tiled(name: str, element: str, **sizes: int | bool) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, retyped((EXAMPLES / name).read_text(), element), name)
    SoacFlattenPass().apply(ctx, module)
    SoacTilePass(**sizes).apply(ctx, module)
    module.verify()
    return module


def random(rng: np.random.Generator, shape: tuple[int, ...], element: str) -> np.ndarray:
    if element == "i32":
        return rng.integers(-20, 20, shape).astype(np.int32)
    return rng.uniform(-1, 1, shape).astype(TYPES[element])


def every_version(module: ModuleOp) -> list[dict[str, int]]:
    names = [t.name for t in list_thresholds(module)]
    return [dict(zip(names, values)) for values in itertools.product([0, MAX_THRESHOLD], repeat=len(names))]


def check_every_version(module: ModuleOp, argss: list[list[Any]], target: str, exact: bool) -> None:
    program = compile_module(module, target=target)
    for args in argss:
        for thresholds in every_version(module):
            (expected,) = interpret(module, "main", args, thresholds)
            (got,) = program.call("main", args, thresholds)
            assert got.shape == expected.shape
            if exact:
                np.testing.assert_array_equal(got, expected)
            else:
                np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


MATMUL_SHAPES = [(1, 1, 1), (2, 3, 1), (7, 13, 5), (17, 9, 33), (65, 8, 64), (0, 3, 4), (3, 0, 4)]
SIZES = [{}, {"block": 6, "reg": 3, "chunk": 5}, {"block": 8, "reg": 4, "chunk": 4}, {"block": 4, "reg": 1, "chunk": 1}]


CASES = [(sizes, "generic") for sizes in SIZES] + [({}, "cpu")]
"""The cpu target runs a result per work-item whatever the tile sizes: its defaults case covers it."""


@pytest.mark.parametrize("element", sorted(TYPES))
@pytest.mark.parametrize(
    ("sizes", "target"), CASES, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()) if isinstance(c, dict) else c
)
@pytest.mark.slow
def test_matmul(element: str, sizes: dict[str, int], target: str) -> None:
    module = tiled("matmul.mlir", element, **sizes)
    rng = np.random.default_rng(7)
    argss = [[random(rng, (n, k), element), random(rng, (k, m), element)] for n, k, m in MATMUL_SHAPES]
    check_every_version(module, argss, target, exact=element == "i32")


@pytest.mark.parametrize("target", ["generic", "cpu"])
@pytest.mark.parametrize("element", sorted(TYPES))
def test_all_pairs(element: str, target: str) -> None:
    module = tiled("all_pairs.mlir", element, block=8, reg=2, chunk=3)
    rng = np.random.default_rng(8)
    check_every_version(module, [[random(rng, (n,), element)] for n in (0, 1, 2, 7, 8, 9, 31)], target, element == "i32")


UNTRANSPOSED = """
func.func @main(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>, %bias: tensor<?xi32>, %floor: i32) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %k = tensor.dim %a, %c1 : tensor<?x?xi32>
  %m = tensor.dim %b, %c1 : tensor<?x?xi32>
  %lowest = arith.constant -2147483648 : i32
  %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [8, 4] reg [2, 4] chunk 3
      reads(%a[d0, k], %b[k, d1], %bias[d1] : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?xi32>)
      neutral(%lowest : i32) -> tensor<?x?xi32> combine(%s: i32, %t: i32) {
    %u = arith.maxsi %s, %t : i32
    soac.yield %u : i32
  } lambda(%x: i32, %y: i32, %z: i32) {
    %p = arith.addi %x, %y : i32
    %q = arith.addi %p, %z : i32
    %r = arith.maxsi %q, %floor : i32
    soac.yield %r : i32
  }
  func.return %c : tensor<?x?xi32>
}
"""


@pytest.mark.parametrize("target", ["generic", "cpu"])
def test_tropical_product_of_untransposed_operands(target: str) -> None:
    """Reads along the rows of `b` (`[k, d1]`), a read without `k`, a captured scalar and a max-plus semiring."""
    module = parse_module(make_context(), UNTRANSPOSED, "untransposed.mlir")
    rng = np.random.default_rng(9)
    program = compile_module(module, target=target)
    for n, k, m in [(1, 1, 1), (9, 7, 5), (16, 3, 12), (5, 0, 3)]:
        a, b = rng.integers(-50, 50, (n, k)).astype(np.int32), rng.integers(-50, 50, (k, m)).astype(np.int32)
        bias = rng.integers(-5, 5, m).astype(np.int32)
        args = [a, b, bias, np.int32(-30)]
        (expected,) = interpret(module, "main", args)
        lowest = np.iinfo(np.int32).min
        by_hand = np.full((n, m), lowest, np.int64)
        for kk in range(k):
            by_hand = np.maximum(by_hand, np.maximum(a[:, kk, None] + b[kk, None, :] + bias[None, :], -30))
        np.testing.assert_array_equal(expected, by_hand)
        np.testing.assert_array_equal(program.call("main", args)[0], expected)


@pytest.mark.parametrize("target", ["generic", "cpu"])
def test_sizes_that_do_not_match_fail_as_in_the_interpreter(target: str) -> None:
    module = parse_module(make_context(), UNTRANSPOSED, "untransposed.mlir")
    a, b = np.zeros((3, 4), np.int32), np.zeros((5, 2), np.int32)
    args = [a, b, np.zeros(2, np.int32), np.int32(0)]
    with pytest.raises(SoacRuntimeError, match="read #1 has 5 elements in dimension 0, but the reduction has width 4"):
        interpret(module, "main", args)
    with pytest.raises(Exception, match=r"untransposed.mlir:\d+:\d+: 'soac.tiled_redomap': read #1 has 5 elements"):
        compile_module(module, target=target).call("main", args)
    short_bias = [np.zeros((3, 4), np.int32), np.zeros((4, 2), np.int32), np.zeros(1, np.int32), np.int32(0)]
    with pytest.raises(Exception, match="read #2: d1 of size 2 is out of bounds for dimension 0 of size 1"):
        compile_module(module, target=target).call("main", short_bias)
