"""Every version that soac-flatten makes lowers to OpenCL and gives the interpreter's results.

The examples are flattened (incremental mode), then each combination of their thresholds at 0 (always take
the guarded version) and at 2**62 (never) forces one of the versions: outer-parallel thread segmaps whose
lambdas run inner SOACs sequentially and yield whole rows, group-level segmaps with inner thread-level
segred/segscan/segmap (a work-group per outer element), and the fully flattened segmap/segred/segscan.
Each module compiles once; the shapes include 1 and small odd sizes.
"""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from soac.context import make_context
from soac.dialect import Level, SegmapOp
from soac.interpreter import run_function as interpret
from soac.lowering.conversion.kernel_builder import LoweringError
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from xdsl.dialects.builtin import ModuleOp

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

Args = Callable[[np.random.Generator, tuple[int, ...]], list[Any]]


def _matmul(rng: np.random.Generator, shape: tuple[int, ...]) -> list[Any]:
    n, k, m = shape
    return [rng.standard_normal((n, k)).astype(np.float32), rng.standard_normal((k, m)).astype(np.float32)]


def _sum_rows(rng: np.random.Generator, shape: tuple[int, ...]) -> list[Any]:
    return [rng.standard_normal(shape[:2]).astype(np.float32)]


def _locvolcalib(rng: np.random.Generator, shape: tuple[int, ...]) -> list[Any]:
    rows, cols, steps = shape
    return [rng.standard_normal((rows, cols)).astype(np.float32), rng.uniform(-0.9, 0.9, cols).astype(np.float32), steps]


EXAMPLE_ARGS: dict[str, tuple[Args, list[tuple[int, ...]]]] = {
    "matmul.mlir": (_matmul, [(1, 1, 1), (5, 3, 7), (13, 70, 9), (2, 1, 300)]),
    "sum_rows.mlir": (_sum_rows, [(1, 1), (7, 5), (3, 301), (130, 2)]),
    "locvolcalib.mlir": (_locvolcalib, [(1, 1, 1), (5, 7, 2), (3, 129, 1)]),
}


def flattened(text: str, name: str = "test.mlir") -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, text, name)
    SoacFlattenPass(mode="incremental").apply(ctx, module)
    module.verify()
    return module


def settings(module: ModuleOp) -> list[dict[str, int]]:
    """Every combination of the module's thresholds at 0 and at 2**62."""
    names = [t.name for t in list_thresholds(module)]
    return [dict(zip(names, values)) for values in itertools.product([0, MAX_THRESHOLD], repeat=len(names))]


def assert_every_version(assert_same: Callable[..., None], module: ModuleOp, argss: list[list[Any]], **options: int) -> None:
    """For each argument list, every version of `module` gives the interpreter's results on OpenCL."""
    program = compile_module(module, **options)  # pyright: ignore[reportArgumentType]
    for args in argss:
        for thresholds in settings(module):
            expected = interpret(module, "main", args, thresholds)
            assert_same(expected, program.call("main", args, thresholds))


@pytest.mark.parametrize("name", sorted(EXAMPLE_ARGS))
def test_example_versions(name: str, assert_same: Callable[..., None]) -> None:
    path = EXAMPLES / name
    module = flattened(path.read_text(), str(path))
    group = any(isinstance(op, SegmapOp) and op.level.data == Level.GROUP for op in module.walk())
    assert list_thresholds(module)
    assert group == (name == "locvolcalib.mlir")  # a map of one reduction makes no intra-group version
    make, shapes = EXAMPLE_ARGS[name]
    rng = np.random.default_rng(11)
    assert_every_version(assert_same, module, [make(rng, shape) for shape in shapes])


@pytest.mark.parametrize("name", ["matmul.mlir", "locvolcalib.mlir"])
def test_small_groups(name: str, assert_same: Callable[..., None]) -> None:
    """Work-groups smaller than the inner parallelism, and fewer of them than outer elements."""
    path = EXAMPLES / name
    module = flattened(path.read_text(), str(path))
    make, _ = EXAMPLE_ARGS[name]
    rng = np.random.default_rng(3)
    assert_every_version(assert_same, module, [make(rng, (3, 19, 2)), make(rng, (5, 4, 3))], group_size=4, max_groups=2)


ROW_SIZES = """
func.func @main(%xss: tensor<?x?xi32>, %k: index) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %w = arith.addi %k, %c1 : index
  %a, %b = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) lambda(%row: tensor<?xi32>) {
    %len = tensor.dim %row, %c0 : tensor<?xi32>
    %twice = arith.muli %len, %w : index
    %is = soac.iota %twice : tensor<?xi32>
    %ps = soac.scan %len (%row : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
      %s = arith.addi %p, %q : i32
      soac.yield %s : i32
    }
    soac.yield %is, %ps : tensor<?xi32>, tensor<?xi32>
  }
  func.return %a, %b : tensor<?x?xi32>, tensor<?x?xi32>
}
"""


@pytest.mark.parametrize("shape", [(1, 1), (4, 3), (9, 1)])
def test_row_sizes_on_the_host(shape: tuple[int, int], assert_same: Callable[..., None]) -> None:
    """Rows built from host sizes, `tensor.dim` of rows of host arrays and arithmetic on them, in every version."""
    xss = np.random.default_rng(5).integers(-9, 9, shape).astype(np.int32)
    assert_every_version(assert_same, flattened(ROW_SIZES), [[xss, np.int64(2)]])


IRREGULAR = """
func.func @main(%xs: tensor<?xi64>) -> tensor<?x?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi64>
  %r = soac.map %n (%xs : tensor<?xi64>) -> tensor<?x?xi64> lambda(%x: i64) {
    %len = arith.index_cast %x : i64 to index
    %is = soac.iota %len : tensor<?xi64>
    soac.yield %is : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
"""


def test_irregular_rows_are_rejected(parse: Callable[[str], ModuleOp]) -> None:
    """A row size that depends on the element is refused with a clear message (not mis-sized)."""
    with pytest.raises(LoweringError, match="irregular"):
        compile_module(parse(IRREGULAR))


def _nest_generator() -> Callable[[str, int], str]:
    """The random nests of tests/passes/test_soac_flatten.py: maps down to rows, then an inner SOAC per row."""
    path = Path(__file__).resolve().parents[2] / "passes" / "test_soac_flatten.py"
    spec = importlib.util.spec_from_file_location("soac_flatten_nests", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.program


@pytest.mark.parametrize("rank", [2, 3])
@pytest.mark.parametrize("inner", ["map", "redomap", "scanomap", "loop"])
def test_nest_versions(inner: str, rank: int, assert_same: Callable[..., None]) -> None:
    """Maps over rows around a map, a redomap with a map after it, a scanomap with a post lambda, and a loop carrying
    the row (its outer-parallel version runs an `scf.for` carrying an array inside a kernel)."""
    module = flattened(_nest_generator()(inner, rank))
    rng = np.random.default_rng(rank)
    shapes = [(1, 1), (3, 5), (2, 0), (0, 3)] if rank == 2 else [(1, 1, 1), (2, 3, 5), (3, 1, 4)]
    argss = [[rng.integers(-20, 20, shape, dtype=np.int32), np.int32(3), 2] for shape in shapes]
    assert_every_version(assert_same, module, argss, group_size=8, max_groups=3)
