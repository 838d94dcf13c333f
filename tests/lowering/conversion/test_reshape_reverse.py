# ruff: noqa: E501  (the programs are MLIR text, one op per line)
"""`soac.reshape` and `soac.reverse` on OpenCL (PoCL in CI) give the interpreter's results: at function level, inside
lambdas (kernels), and in map nests after every soac-flatten mode and version; a reshape to sizes of another element
count fails on both backends with the interpreter's message at the op."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import SoacRuntimeError
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import ProgramError, compile_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_fuse import SoacFusePass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from xdsl.dialects.builtin import ModuleOp

TOP = """
func.func @main(%m: tensor<?x?xi32>, %a: index, %b: index) -> (tensor<?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %m, %c0 : tensor<?x?xi32>
  %k = tensor.dim %m, %c1 : tensor<?x?xi32>
  %nk = arith.muli %n, %k : index
  %flat = soac.reshape %m (%nk) : tensor<?x?xi32> -> tensor<?xi32>
  %back = soac.reshape %flat (%a, %b) : tensor<?xi32> -> tensor<?x?xi32>
  %rows = soac.reverse %m [0] : tensor<?x?xi32>
  %cols = soac.reverse %m [1] : tensor<?x?xi32>
  %both = soac.reverse %back [0, 1] : tensor<?x?xi32>
  %three = soac.reshape %rows (%n, %c1, %k) : tensor<?x?xi32> -> tensor<?x?x?xi32>
  func.return %flat, %back, %rows, %cols, %both, %three : tensor<?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?x?xi32>
}
"""

NESTED = """
func.func @main(%xss: tensor<?x?xi32>, %a: index, %b: index) -> (tensor<?x?xi32>, tensor<?x?x?xi32>, tensor<?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %r, %u, %s, %w = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?x?xi32>, tensor<?xi32>, tensor<?x?xi32>) lambda(%row: tensor<?xi32>) {
    %rr = soac.reverse %row [0] : tensor<?xi32>
    %u = soac.reshape %rr (%a, %b) : tensor<?xi32> -> tensor<?x?xi32>
    %cs = soac.reverse %u [1] : tensor<?x?xi32>
    %first = soac.index %cs[%c0] : tensor<?x?xi32> -> tensor<?xi32>
    %t = soac.reduce %b (%first : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%x: i32, %y: i32) {
      %q = arith.addi %x, %y : i32
      soac.yield %q : i32
    }
    %ps = soac.scan %m (%rr : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%x: i32, %y: i32) {
      %q = arith.addi %x, %y : i32
      soac.yield %q : i32
    }
    %back = soac.reverse %ps [0] : tensor<?xi32>
    soac.yield %back, %u, %t, %rr : tensor<?xi32>, tensor<?x?xi32>, i32, tensor<?xi32>
  }
  func.return %r, %u, %s, %w : tensor<?x?xi32>, tensor<?x?x?xi32>, tensor<?xi32>, tensor<?x?xi32>
}
"""

IN_KERNEL = """
func.func @main(%xss: tensor<?x?xf32>, %a: index, %b: index) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %s, %v = soac.map %n (%xss : tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) lambda(%row: tensor<?xf32>) {
    %u = soac.reshape %row (%a, %b) : tensor<?xf32> -> tensor<?x?xf32>
    %ru = soac.reverse %u [0] : tensor<?x?xf32>
    %last = soac.index %ru[%c0] : tensor<?x?xf32> -> tensor<?xf32>
    %t = soac.reduce %b (%last : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%x: f32, %y: f32) {
      %q = arith.addf %x, %y : f32
      soac.yield %q : f32
    }
    %flat = soac.reshape %ru (%a, %b) : tensor<?x?xf32> -> tensor<?x?xf32>
    %rf = soac.reverse %flat [1] : tensor<?x?xf32>
    %one = soac.reshape %rf (%b, %a) : tensor<?x?xf32> -> tensor<?x?xf32>
    %rows = soac.index %one[%c0] : tensor<?x?xf32> -> tensor<?xf32>
    soac.yield %t, %rows : f32, tensor<?xf32>
  }
  func.return %s, %v : tensor<?xf32>, tensor<?x?xf32>
}
"""

SHAPES = [(0, 6, 2, 3), (1, 6, 3, 2), (5, 6, 6, 1), (7, 12, 3, 4), (130, 20, 4, 5)]


def _module(text: str, passes: Sequence[Any] = ()) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, text, "prog.mlir")
    for p in passes:
        p.apply(ctx, module)
    module.verify()
    return module


def _args(shape: tuple[int, int, int, int], dtype: Any) -> list[Any]:
    n, m, a, b = shape
    rng = np.random.default_rng(n * 100 + m)
    return [rng.integers(-50, 50, (n, m)).astype(dtype), np.int64(a), np.int64(b)]


def _versions(module: ModuleOp) -> list[dict[str, int]]:
    names = [t.name for t in list_thresholds(module)]
    return [dict(zip(names, values)) for values in itertools.product([0, MAX_THRESHOLD], repeat=len(names))]


PIPELINES: dict[str, Callable[[], list[Any]]] = {
    "as-written": list,
    "fuse": lambda: [SoacFusePass()],
    "flatten-incremental": lambda: [SoacFlattenPass(mode="incremental")],
    "flatten-moderate": lambda: [SoacFlattenPass(mode="moderate")],
    "flatten-full": lambda: [SoacFlattenPass(mode="full")],
    "fuse-flatten": lambda: [SoacFusePass(), SoacFlattenPass(mode="incremental")],
}


def test_top_level_values():
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    flat, back, rows, cols, both, three = compile_module(_module(TOP)).call("main", [m, np.int64(3), np.int64(2)])
    np.testing.assert_array_equal(flat, m.reshape(6))
    np.testing.assert_array_equal(back, m.reshape(3, 2))
    np.testing.assert_array_equal(rows, m[::-1])
    np.testing.assert_array_equal(cols, m[:, ::-1])
    np.testing.assert_array_equal(both, m.reshape(3, 2)[::-1, ::-1])
    np.testing.assert_array_equal(three, m[::-1].reshape(2, 1, 3))


@pytest.mark.parametrize("text", [TOP, NESTED, IN_KERNEL], ids=["top", "nested", "in-kernel"])
@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_every_pipeline_and_version(text: str, pipeline: str, assert_same: Callable[..., None]) -> None:
    """The program as written on the interpreter, against every version of the transformed program on both."""
    reference = _module(text)
    module = _module(text, PIPELINES[pipeline]())
    program = compile_module(module)
    dtype = np.float32 if text is IN_KERNEL else np.int32
    for shape in SHAPES:
        args = _args(shape, dtype)
        if text is TOP:
            args[1], args[2] = np.int64(shape[0] * shape[1] // shape[3]), np.int64(shape[3])
        expected = interpret(reference, "main", args)
        for thresholds in _versions(module):
            assert_same(expected, interpret(module, "main", args, thresholds))
            assert_same(expected, program.call("main", args, thresholds))


def _at(text: str, needle: str) -> str:
    """`prog.mlir:line:col` of the op on the first line of `text` that contains `needle`."""
    number, line = next((k, line) for k, line in enumerate(text.split("\n"), start=1) if needle in line)
    return f"prog.mlir:{number}:{len(line) - len(line.lstrip()) + 1}"


def _both_fail(module: ModuleOp, reference: ModuleOp, args: list[Any], thresholds: dict[str, int]) -> str:
    with pytest.raises(SoacRuntimeError) as expected:
        interpret(reference, "main", args)
    with pytest.raises(SoacRuntimeError) as transformed:
        interpret(module, "main", args, thresholds)
    with pytest.raises(ProgramError) as got:
        compile_module(module).call("main", args, thresholds)
    assert str(transformed.value) == str(expected.value)
    assert str(got.value) == str(expected.value)
    return str(expected.value)


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
@pytest.mark.parametrize(
    ("a", "b", "problem"), [(4, 2, "cannot reshape an array of 6 elements to sizes (4, 2)"), (-2, -3, "negative size -2")]
)
def test_a_bad_reshape_fails_as_the_interpreter(pipeline: str, a: int, b: int, problem: str) -> None:
    for text in [NESTED, IN_KERNEL]:
        reference, module = _module(text), _module(text, PIPELINES[pipeline]())
        args = _args((3, 6, a, b), np.float32 if text is IN_KERNEL else np.int32)
        for thresholds in _versions(module):
            assert _both_fail(module, reference, args, thresholds) == f"{_at(text, 'soac.reshape')}: 'soac.reshape': {problem}"


ROWS = """
func.func @main(%xss: tensor<?x?xi32>, %a: index, %b: index) -> tensor<?x?x?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?x?xi32> lambda(%row: tensor<?xi32>) {
    %u = soac.reshape %row (%a, %b) : tensor<?xi32> -> tensor<?x?xi32>
    soac.yield %u : tensor<?x?xi32>
  }
  func.return %r : tensor<?x?x?xi32>
}
"""


@pytest.mark.parametrize(("a", "b"), [(4, -2), (-2, 3), (4, 2)])
def test_a_reshape_in_an_empty_nest_does_not_fail(a: int, b: int, assert_same: Callable[..., None]) -> None:
    args = _args((0, 6, a, b), np.int32)
    expected = interpret(_module(ROWS), "main", args)
    assert np.asarray(expected[0]).shape == (0, max(a, 0), max(b, 0))
    for pipeline in PIPELINES.values():
        module = _module(ROWS, pipeline())
        for thresholds in _versions(module):
            assert_same(expected, compile_module(module).call("main", args, thresholds))


@pytest.mark.parametrize(
    ("a", "b", "problem"),
    [(-2, 3, "negative size -2"), (3, -3, "negative size -3"), (4, 2, "cannot reshape an array of 6 elements to sizes (4, 2)")],
)
def test_a_bad_reshape_of_rows(a: int, b: int, problem: str) -> None:
    for pipeline in PIPELINES.values():
        module = _module(ROWS, pipeline())
        for thresholds in _versions(module):
            assert (
                _both_fail(module, _module(ROWS), _args((3, 6, a, b), np.int32), thresholds)
                == f"{_at(ROWS, 'soac.reshape')}: 'soac.reshape': {problem}"
            )


def test_a_bad_reshape_at_function_level():
    args = [np.zeros((2, 3), np.int32), np.int64(4), np.int64(2)]
    problem = "'soac.reshape': cannot reshape an array of 6 elements to sizes (4, 2)"
    assert _both_fail(_module(TOP), _module(TOP), args, {}) == f"{_at(TOP, '%back = soac.reshape')}: {problem}"
