# ruff: noqa: E501  (the programs are MLIR text, one op per line)
"""Reductions and scans whose operator combines rows run on OpenCL, or fail with a LoweringError that says why.

An element-wise operator (one map of a scalar operator over the two rows) becomes a map over the columns
(`soac-vectorised-operators`, which soac-to-kernel applies at top level and soac-flatten{mode=full} in map
nests); the results are the interpreter's, with and without flattening. Other operators on arrays outside a
lambda have no kernel: a LoweringError names the op and says what runs.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.conversion.kernel_builder import LoweringError
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass

SUM_ROWS = """
func.func @main(%xss: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %zeros = soac.replicate %m, %z : i32 -> tensor<?xi32>
  %s = soac.reduce %n (%xss : tensor<?x?xi32>) neutral(%zeros : tensor<?xi32>) -> tensor<?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    %c = soac.map %m (%a, %b : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
      %t = arith.addi %x, %y : i32
      soac.yield %t : i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %s : tensor<?xi32>
}
"""

MAX_SCAN = """
func.func @main(%xss: tensor<?x?xf32>, %ne: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %s = soac.scan %n (%xss : tensor<?x?xf32>) neutral(%ne : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %b: tensor<?xf32>) {
    %c = soac.map %m (%b, %a : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32, %x: f32) {
      %t = arith.maximumf %x, %y : f32
      soac.yield %t : f32
    }
    soac.yield %c : tensor<?xf32>
  }
  func.return %s : tensor<?x?xf32>
}
"""

SUMS_OF_MATRICES = """
func.func @main(%xsss: tensor<?x?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %xsss, %c0 : tensor<?x?x?xi32>
  %n = tensor.dim %xsss, %c1 : tensor<?x?x?xi32>
  %m = tensor.dim %xsss, %c2 : tensor<?x?x?xi32>
  %z = arith.constant 0 : i32
  %zeros = soac.replicate %m, %z : i32 -> tensor<?xi32>
  %r = soac.map %b (%xsss : tensor<?x?x?xi32>) -> tensor<?x?xi32> lambda(%xss: tensor<?x?xi32>) {
    %s = soac.reduce %n (%xss : tensor<?x?xi32>) neutral(%zeros : tensor<?xi32>) -> tensor<?xi32> combine(%a: tensor<?xi32>, %b2: tensor<?xi32>) {
      %c = soac.map %m (%a, %b2 : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
        %t = arith.addi %x, %y : i32
        soac.yield %t : i32
      }
      soac.yield %c : tensor<?xi32>
    }
    soac.yield %s : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
"""

NOT_ELEMENT_WISE = """
func.func @main(%xss: tensor<?x?xi32>, %ne: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %s = soac.reduce %n (%xss : tensor<?x?xi32>) neutral(%ne : tensor<?xi32>) -> tensor<?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    %c = soac.map %m (%a, %b : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
      %first = soac.index %a[%c0] : tensor<?xi32> -> i32
      %t = arith.addi %x, %first : i32
      %u = arith.addi %t, %y : i32
      soac.yield %u : i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %s : tensor<?xi32>
}
"""


def module_of(text: str, flatten: str | None):
    ctx = make_context()
    module = parse_module(ctx, text, "prog.mlir")
    if flatten is not None:
        SoacFlattenPass(mode=flatten).apply(ctx, module)  # pyright: ignore[reportArgumentType]
    return module


def same_as_interpreter(text: str, args: list[object], flatten: str | None) -> None:
    expected = interpret(module_of(text, None), "main", args)
    got = compile_module(module_of(text, flatten)).call("main", args)
    for want, have in zip(expected, got, strict=True):
        np.testing.assert_allclose(np.asarray(have), np.asarray(want))


def rng_ints(shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(sum(shape)).integers(-50, 50, shape).astype(np.int32)


@pytest.mark.parametrize("flatten", [None, "full", "incremental"])
@pytest.mark.parametrize("shape", [(5, 3), (1, 4), (0, 2), (300, 7)])
def test_sum_of_rows(shape: tuple[int, int], flatten: str | None) -> None:
    same_as_interpreter(SUM_ROWS, [rng_ints(shape)], flatten)


@pytest.mark.parametrize("flatten", [None, "full"])
@pytest.mark.parametrize("shape", [(6, 3), (257, 2)])
def test_running_maximum_of_rows(shape: tuple[int, int], flatten: str | None) -> None:
    rng = np.random.default_rng(3)
    xss = rng.standard_normal(shape).astype(np.float32)
    same_as_interpreter(MAX_SCAN, [xss, np.full(shape[1], -np.inf, np.float32)], flatten)


@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 1, 4)])
def test_map_of_sums_of_rows_flattened(shape: tuple[int, int, int]) -> None:
    """soac-flatten{mode=full}: a segred over (matrices, columns, rows) of the transposed matrices."""
    module = module_of(SUMS_OF_MATRICES, "full")
    assert "soac.segred thread (%b, %m, %n)" in str(module)
    same_as_interpreter(SUMS_OF_MATRICES, [rng_ints(shape)], "full")


@pytest.mark.parametrize("flatten", [None, "incremental", "moderate"])
@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 1, 4), (2, 0, 3)])
def test_map_of_sums_of_rows_in_every_version(shape: tuple[int, int, int], flatten: str | None) -> None:
    """Unflattened and in every version of incremental flattening: where the nest's body stays in a kernel, each
    work-item transposes its matrix into scratch memory and reduces its columns."""
    from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds

    module = module_of(SUMS_OF_MATRICES, flatten)
    names = [t.name for t in list_thresholds(module)]
    program = compile_module(module)
    xsss = rng_ints(shape)
    (expected,) = interpret(module_of(SUMS_OF_MATRICES, None), "main", [xsss])
    for values in itertools.product([0, MAX_THRESHOLD], repeat=len(names)):
        (got,) = program.call("main", [xsss], dict(zip(names, values)))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(expected), err_msg=str(values))


def test_operator_on_arrays_is_a_lowering_error() -> None:
    with pytest.raises(
        LoweringError,
        match=r"^'soac.reduce' at prog.mlir:7:3: its operator combines arrays \(tensor<\?xi32>\), which no kernel does outside a lambda; an element-wise operator",
    ):
        compile_module(module_of(NOT_ELEMENT_WISE, None))


def test_element_wise_operator_of_another_width_is_a_lowering_error() -> None:
    """A map over the columns would check their number against the operator's width even without rows, where the
    reduction does not (it gives the neutral row): only a width that is the rows' length is rewritten."""
    text = SUM_ROWS.replace("%m = tensor.dim %xss, %c1 : tensor<?x?xi32>", "%m = arith.constant 3 : index")
    assert list(interpret(module_of(text, None), "main", [np.zeros((0, 2), np.int32)])[0]) == [0, 0, 0]
    with pytest.raises(LoweringError, match=r"^'soac.reduce' at prog.mlir:\d+:3: its operator combines arrays"):
        compile_module(module_of(text, None))
