# ruff: noqa: E501  (the programs are MLIR text, one op per line)
"""`soac.rotate` (Futhark's `rotate`) against numpy's `roll` on the interpreter and on OpenCL (PoCL in CI): at function
level, inside a lambda (a kernel's sequential loop, each row with its own amount), and in a map nest after soac-fuse
and every soac-flatten mode and version."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_fuse import SoacFusePass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from xdsl.dialects.builtin import ModuleOp

TOP = """
func.func @main(%m: tensor<?x?xi32>, %k: index) -> (tensor<?x?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %r = soac.rotate %m by %k : tensor<?x?xi32>
  %first = soac.index %r[%c0] : tensor<?x?xi32> -> tensor<?xi32>
  %back = soac.rotate %first by %k : tensor<?xi32>
  func.return %r, %back : tensor<?x?xi32>, tensor<?xi32>
}
"""

ONLY = """
func.func @main(%m: tensor<?x?xi32>, %k: index) -> tensor<?x?xi32> {
  %r = soac.rotate %m by %k : tensor<?x?xi32>
  func.return %r : tensor<?x?xi32>
}
"""

NESTED = """
func.func @main(%xss: tensor<?x?xi32>, %k: index) -> (tensor<?x?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %is = soac.iota %n : tensor<?xindex>
  %z = arith.constant 0 : i32
  %r, %s = soac.map %n (%xss, %is : tensor<?x?xi32>, tensor<?xindex>) -> (tensor<?x?xi32>, tensor<?xi32>) lambda(%row: tensor<?xi32>, %i: index) {
    %by = arith.subi %k, %i : index
    %rr = soac.rotate %row by %by : tensor<?xi32>
    %m = tensor.dim %rr, %c0 : tensor<?xi32>
    %t = soac.reduce %m (%rr : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%x: i32, %y: i32) {
      %q = arith.addi %x, %y : i32
      soac.yield %q : i32
    }
    %f = soac.index %rr[%c0] : tensor<?xi32> -> i32
    %d = arith.subi %t, %f : i32
    soac.yield %rr, %d : tensor<?xi32>, i32
  }
  func.return %r, %s : tensor<?x?xi32>, tensor<?xi32>
}
"""


def _module(text: str, passes: Sequence[Any] = ()) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, text, "prog.mlir")
    for p in passes:
        p.apply(ctx, module)
    module.verify()
    return module


def _numpy_top(m: np.ndarray, k: int) -> list[np.ndarray]:
    rotated = np.roll(m, -k, axis=0)
    first = rotated[0] if len(m) else np.zeros(0, m.dtype)
    return [rotated, np.roll(first, -k)]


def _numpy_nested(xss: np.ndarray, k: int) -> list[np.ndarray]:
    rows = [np.roll(row, -(k - i)) for i, row in enumerate(xss)]
    rotated = np.array(rows, dtype=xss.dtype).reshape(xss.shape)
    return [rotated, (rotated.sum(axis=1) - rotated[:, 0]).astype(np.int32) if xss.shape[1] else np.zeros(len(xss), np.int32)]


CASES = [((3, 4), 1), ((5, 3), -2), ((4, 6), 11), ((1, 5), 0), ((6, 1), -7), ((130, 9), 1000003)]


@pytest.mark.parametrize(("shape", "k"), CASES)
def test_top_level_is_numpy_roll(shape: tuple[int, int], k: int) -> None:
    m = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    expected = _numpy_top(m, k)
    args = [m, np.int64(k)]
    for got in (interpret(_module(TOP), "main", args), compile_module(_module(TOP)).call("main", args)):
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, e)


def test_an_empty_array_stays_empty() -> None:
    """No rows: nothing to rotate (and no remainder by zero rows is computed)."""
    m = np.zeros((0, 3), np.int32)
    module = _module(ONLY)
    for got in (interpret(module, "main", [m, np.int64(5)]), compile_module(module).call("main", [m, np.int64(5)])):
        assert np.asarray(got[0]).shape == (0, 3)


PIPELINES: dict[str, Any] = {
    "as-written": list,
    "fuse": lambda: [SoacFusePass()],
    "flatten-incremental": lambda: [SoacFlattenPass(mode="incremental")],
    "flatten-full": lambda: [SoacFlattenPass(mode="full")],
}


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_in_a_lambda_each_row_with_its_amount(pipeline: str) -> None:
    """`rotate (k - i) row_i` in a map: the interpreter's lanes each rotate by their own amount, and so does every
    version of the transformed program on OpenCL."""
    module = _module(NESTED, PIPELINES[pipeline]())
    program = compile_module(module)
    names = [t.name for t in list_thresholds(module)]
    versions = [dict(zip(names, values)) for values in itertools.product([0, MAX_THRESHOLD], repeat=len(names))]
    for (n, m), k in [((4, 5), 2), ((7, 3), -1), ((0, 4), 3)]:
        xss = np.arange(n * m, dtype=np.int32).reshape(n, m) * 7 % 11
        expected = _numpy_nested(xss, k)
        args = [xss, np.int64(k)]
        for thresholds in versions:
            for got in (interpret(module, "main", args, thresholds), program.call("main", args, thresholds)):
                for g, e in zip(got, expected, strict=True):
                    np.testing.assert_array_equal(g, e)
