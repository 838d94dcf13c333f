"""`soac.index ... {staged}` in a group-level segmap: the work-group copies the row into local memory and its segops
read it there (soac-small-intra makes them). Against the interpreter, which reads it as any row; a row larger than
the local memory it is given is a run-time error at the read, never a write past the local array."""

from __future__ import annotations

import numpy as np
import pytest
from soac.context import make_context
from soac.dialect import STAGED_CAPACITY
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import ProgramError, compile_module
from soac.parsing import parse_module
from xdsl.utils.exceptions import VerifyException

ROW_PRODUCTS = """
func.func @main(%a: tensor<?x?x?xi32>) -> tensor<?x?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %q = tensor.dim %a, %c0 : tensor<?x?x?xi32>
  %n = tensor.dim %a, %c1 : tensor<?x?x?xi32>
  %m = tensor.dim %a, %c2 : tensor<?x?x?xi32>
  %r = soac.segmap group (%q) -> tensor<?x?x?xi32> lambda(%p: index) {
    %block = soac.index %a[%p] {staged} : tensor<?x?x?xi32> -> tensor<?x?xi32>
    %t = soac.segmap thread (%m, %n) -> tensor<?x?xi32> lambda(%i: index, %j: index) {
      %x = soac.index %block[%j, %i] : tensor<?x?xi32> -> i32
      %y = soac.index %block[%j, %c0] : tensor<?x?xi32> -> i32
      %z = arith.muli %x, %y : i32
      soac.yield %z : i32
    }
    soac.yield %t : tensor<?x?xi32>
  }
  func.return %r : tensor<?x?x?xi32>
}
"""


def test_staged_rows_against_the_interpreter() -> None:
    """Each block transposed and scaled by its first column: reads across the staged block, results in place; small
    blocks several to a work-group of 32 (packs of 5 of 2 x 3, the last partial; 2 of 4 x 4)."""
    module = parse_module(make_context(), ROW_PRODUCTS, "staged.mlir")
    program = compile_module(module, "pocl", target="generic", group_size=32)
    assert "block_local" in program.source
    rng = np.random.default_rng(1)
    for shape in [(1, 1, 1), (3, 5, 7), (4, 32, 32), (2, 1, STAGED_CAPACITY), (0, 3, 3), (11, 2, 3), (9, 4, 4)]:
        a = rng.integers(-50, 50, shape).astype(np.int32)
        (expected,) = interpret(module, "main", [a])
        (got,) = program.call("main", [a])
        np.testing.assert_array_equal(got, expected, err_msg=str(shape))
        np.testing.assert_array_equal(got, np.swapaxes(a, 1, 2) * a[:, None, :, 0])


def test_a_staged_row_over_the_capacity_is_an_error_at_the_read() -> None:
    module = parse_module(make_context(), ROW_PRODUCTS, "staged.mlir")
    program = compile_module(module, "pocl", target="generic", group_size=32)
    a = np.ones((2, 3, STAGED_CAPACITY // 3 + 1), np.int32)
    problem = rf"staged.mlir:10:\d+: .*a staged row of 1026 elements does not fit the {STAGED_CAPACITY}"
    with pytest.raises(ProgramError, match=problem):
        program.call("main", [a])


def test_staged_reads_a_row() -> None:
    text = ROW_PRODUCTS.replace("%block = soac.index %a[%p] {staged} : tensor<?x?x?xi32> -> tensor<?x?xi32>",
                                "%e = soac.index %a[%p, %p, %p] {staged} : tensor<?x?x?xi32> -> i32\n"
                                "    %block = soac.index %a[%p] : tensor<?x?x?xi32> -> tensor<?x?xi32>")
    with pytest.raises(VerifyException, match=r"'soac.index' \{staged\} must read a row, not an element"):
        parse_module(make_context(), text, "staged.mlir")
