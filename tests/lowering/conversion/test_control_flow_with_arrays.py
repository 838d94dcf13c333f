"""`scf.for` loops that carry arrays and `scf.if` branches that yield them, inside kernels (PoCL in CI), give the
interpreter's results.

A carried array lives in the work-item's scratch memory: copied in before the
loop, copied back from what each iteration yields (unless it is the carried
array itself, updated in place), and checked to keep its sizes. A branch's array
is copied into scratch memory sized before the branch, and checked likewise.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from soac.lowering.runtime import ProgramError, compile_module

FRESH_ROWS = """
func.func @main(%xss: tensor<?x?xi32>, %steps: index) -> (tensor<?x?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %two = arith.constant 2 : i32
  %seven = arith.constant 7 : i32
  %zero = arith.constant 0 : i32
  %rows, %sums = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) lambda(%row: tensor<?xi32>) {
    %last, %total = scf.for %t = %c0 to %steps step %c1 iter_args(%acc = %row, %sum = %zero) -> (tensor<?xi32>, i32) {
      %next = soac.map %m (%acc : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
        %y = arith.muli %x, %two : i32
        %z = arith.remsi %y, %seven : i32
        soac.yield %z : i32
      }
      %s = soac.reduce %m (%next : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
        %c = arith.addi %a, %b : i32
        soac.yield %c : i32
      }
      %sum2 = arith.addi %sum, %s : i32
      scf.yield %next, %sum2 : tensor<?xi32>, i32
    }
    soac.yield %last, %total : tensor<?xi32>, i32
  }
  func.return %rows, %sums : tensor<?x?xi32>, tensor<?xi32>
}
"""

IN_PLACE = """
func.func @main(%xss: tensor<?x?xi32>, %steps: index) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %one = arith.constant 1 : i32
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%row: tensor<?xi32>) {
    %out = scf.for %t = %c0 to %steps step %c1 iter_args(%acc = %row) -> (tensor<?xi32>) {
      %j = arith.remui %t, %m : index
      %x = soac.index %acc[%j] : tensor<?xi32> -> i32
      %y = arith.addi %x, %one : i32
      %u = soac.update %acc[%j] = %y : tensor<?xi32>, i32
      scf.yield %u : tensor<?xi32>
    }
    soac.yield %out : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
"""

MATRIX = """
func.func @main(%x: tensor<?x?x?xi32>, %steps: index) -> tensor<?x?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?x?x?xi32>
  %a = tensor.dim %x, %c1 : tensor<?x?x?xi32>
  %b = tensor.dim %x, %c2 : tensor<?x?x?xi32>
  %three = arith.constant 3 : i32
  %r = soac.map %n (%x : tensor<?x?x?xi32>) -> tensor<?x?x?xi32> lambda(%mat: tensor<?x?xi32>) {
    %out = scf.for %t = %c0 to %steps step %c1 iter_args(%acc = %mat) -> (tensor<?x?xi32>) {
      %next = soac.map %a (%acc : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%row: tensor<?xi32>) {
        %scanned = soac.scan %b (%row : tensor<?xi32>) neutral(%three : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
          %s = arith.maxsi %p, %q : i32
          soac.yield %s : i32
        }
        soac.yield %scanned : tensor<?xi32>
      }
      scf.yield %next : tensor<?x?xi32>
    }
    soac.yield %out : tensor<?x?xi32>
  }
  func.return %r : tensor<?x?x?xi32>
}
"""

SHRINKING = """
func.func @main(%xss: tensor<?x?xi32>, %steps: index) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?xi32> lambda(%row: tensor<?xi32>) {
    %out = scf.for %t = %c0 to %steps step %c1 iter_args(%acc = %row) -> (tensor<?xi32>) {
      %k = tensor.dim %acc, %c0 : tensor<?xi32>
      %shorter = soac.slice %acc[%c1 : %k] : tensor<?xi32> -> tensor<?xi32>
      scf.yield %shorter : tensor<?xi32>
    }
    %k = tensor.dim %out, %c0 : tensor<?xi32>
    %s = soac.reduce %k (%out : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}
"""


@pytest.mark.parametrize("steps", [0, 1, 5])
@pytest.mark.parametrize("shape", [(1, 1), (3, 8), (70, 5), (0, 4)])
def test_fresh_array_each_iteration(differential, rng, shape: tuple[int, int], steps: int) -> None:
    differential(FRESH_ROWS, "main", [rng.integers(-50, 50, shape).astype(np.int32), np.int64(steps)], group_size=8, max_groups=3)


@pytest.mark.parametrize("steps", [0, 3, 11])
def test_update_in_place(differential, rng, steps: int) -> None:
    differential(IN_PLACE, "main", [rng.integers(-50, 50, (9, 4)).astype(np.int32), np.int64(steps)], group_size=8, max_groups=3)


@pytest.mark.parametrize("shape", [(2, 3, 4), (5, 1, 7)])
def test_carried_matrix(differential, rng, shape: tuple[int, int, int]) -> None:
    differential(MATRIX, "main", [rng.integers(-50, 50, shape).astype(np.int32), np.int64(3)], group_size=8, max_groups=3)


def test_an_array_that_changes_size_is_refused() -> None:
    """The interpreter lets a carried array shrink; a kernel keeps it in fixed storage and says so at the loop."""
    from soac.context import make_context
    from soac.interpreter import run_function as interpret
    from soac.parsing import parse_module

    module = parse_module(make_context(), SHRINKING, "prog.mlir")
    program = compile_module(module)
    xss = np.arange(12, dtype=np.int32).reshape(3, 4)
    (sums,) = program.call("main", [xss, np.int64(0)])
    np.testing.assert_array_equal(sums, xss.sum(axis=1, dtype=np.int32))
    np.testing.assert_array_equal(interpret(module, "main", [xss, np.int64(2)])[0], xss[:, 2:].sum(axis=1, dtype=np.int32))
    message = "prog.mlir:8:5: 'scf.for': a value of shape (3,) does not fit a row of shape (4,)"
    with pytest.raises(ProgramError, match=re.escape(message)):
        program.call("main", [xss, np.int64(2)])


BRANCHES = """
func.func @main(%xss: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %three = arith.constant 3 : i32
  %rows, %flags = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) lambda(%row: tensor<?xi32>) {
    %first = soac.index %row[%c0] : tensor<?xi32> -> i32
    %positive = arith.cmpi sgt, %first, %zero : i32
    %chosen, %flag = scf.if %positive -> (tensor<?xi32>, i32) {
      %tripled = soac.map %m (%row : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
        %y = arith.muli %x, %three : i32
        soac.yield %y : i32
      }
      scf.yield %tripled, %first : tensor<?xi32>, i32
    } else {
      scf.yield %row, %zero : tensor<?xi32>, i32
    }
    soac.yield %chosen, %flag : tensor<?xi32>, i32
  }
  func.return %rows, %flags : tensor<?x?xi32>, tensor<?xi32>
}
"""

UNEVEN_BRANCHES = """
func.func @main(%xss: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?xi32> lambda(%row: tensor<?xi32>) {
    %first = soac.index %row[%c0] : tensor<?xi32> -> i32
    %positive = arith.cmpi sgt, %first, %zero : i32
    %k = tensor.dim %row, %c0 : tensor<?xi32>
    %chosen = scf.if %positive -> (tensor<?xi32>) {
      scf.yield %row : tensor<?xi32>
    } else {
      %rest = soac.slice %row[%c1 : %k] : tensor<?xi32> -> tensor<?xi32>
      scf.yield %rest : tensor<?xi32>
    }
    %w = tensor.dim %chosen, %c0 : tensor<?xi32>
    %s = soac.reduce %w (%chosen : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}
"""


@pytest.mark.parametrize("shape", [(1, 1), (6, 5), (70, 3)])
def test_branches_yielding_arrays(differential, rng, shape: tuple[int, int]) -> None:
    differential(BRANCHES, "main", [rng.integers(-50, 50, shape).astype(np.int32)], group_size=8, max_groups=3)


def test_branches_of_other_sizes_are_refused() -> None:
    """Rows that take different branches of different sizes: the interpreter calls the array irregular, a kernel
    (which sizes the result before the branch) says the branch's array does not fit."""
    from soac.context import make_context
    from soac.interpreter import SoacRuntimeError
    from soac.interpreter import run_function as interpret
    from soac.parsing import parse_module

    module = parse_module(make_context(), UNEVEN_BRANCHES, "prog.mlir")
    program = compile_module(module)
    positive = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    np.testing.assert_array_equal(program.call("main", [positive])[0], positive.sum(axis=1, dtype=np.int32))
    mixed = np.array([[1, 2, 3], [-4, 5, 6]], dtype=np.int32)
    with pytest.raises(SoacRuntimeError, match=re.escape("prog.mlir:11:5: 'scf.if'")):
        interpret(module, "main", [mixed])
    message = "prog.mlir:11:5: 'scf.if': a value of shape (2,) does not fit a row of shape (3,)"
    with pytest.raises(ProgramError, match=re.escape(message)):
        program.call("main", [mixed])


WHILE_HALVING = """
func.func @main(%xss: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %rows, %counts = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) lambda(%row: tensor<?xi32>) {
    %out:2 = scf.while (%r = %row, %k = %zero) : (tensor<?xi32>, i32) -> (tensor<?xi32>, i32) {
      %big = soac.reduce %m (%r : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
        %c = arith.maxsi %a, %b : i32
        soac.yield %c : i32
      }
      %more = arith.cmpi sgt, %big, %one : i32
      scf.condition(%more) %r, %k : tensor<?xi32>, i32
    } do {
    ^bb0(%r2: tensor<?xi32>, %k2: i32):
      %halved = soac.map %m (%r2 : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
        %y = arith.divsi %x, %two : i32
        soac.yield %y : i32
      }
      %k3 = arith.addi %k2, %one : i32
      scf.yield %halved, %k3 : tensor<?xi32>, i32
    }
    soac.yield %out#0, %out#1 : tensor<?xi32>, i32
  }
  func.return %rows, %counts : tensor<?x?xi32>, tensor<?xi32>
}
"""


@pytest.mark.parametrize("shape", [(1, 1), (5, 4), (40, 3)])
def test_while_loop_carrying_arrays(differential, rng, shape: tuple[int, int]) -> None:
    """Each row is halved until its largest element is at most 1: the loop runs a different number of times per row."""
    differential(WHILE_HALVING, "main", [rng.integers(-5, 300, shape).astype(np.int32)], group_size=8, max_groups=3)


OUTSIDE_BRANCHES = """
func.func @main(%bs: tensor<?xi1>, %xs: tensor<?xi32>, %k: index) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %bs, %c0 : tensor<?xi1>
  %m = tensor.dim %xs, %c0 : tensor<?xi32>
  %one = arith.constant 1 : i32
  %picked = soac.segmap group (%n) -> tensor<?x?xi32> lambda(%i: index) {
    %b = soac.index %bs[%i] : tensor<?xi1> -> i1
    %row = scf.if %b -> (tensor<?xi32>) {
      scf.yield %xs : tensor<?xi32>
    } else {
      %inc = soac.segmap thread (%m) -> tensor<?xi32> lambda(%j: index) {
        %x = soac.index %xs[%j] : tensor<?xi32> -> i32
        %y = arith.muli %x, %x : i32
        soac.yield %y : i32
      }
      scf.yield %inc : tensor<?xi32>
    }
    soac.yield %row : tensor<?xi32>
  }
  %stepped = soac.map %n (%bs : tensor<?xi1>) -> tensor<?x?xi32> lambda(%b: i1) {
    %row = scf.if %b -> (tensor<?xi32>) {
      %last = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %xs) -> (tensor<?xi32>) {
        %next = soac.map %m (%acc : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
          %y = arith.addi %x, %one : i32
          soac.yield %y : i32
        }
        scf.yield %next : tensor<?xi32>
      }
      scf.yield %last : tensor<?xi32>
    } else {
      scf.yield %xs : tensor<?xi32>
    }
    soac.yield %row : tensor<?xi32>
  }
  func.return %picked, %stepped : tensor<?x?xi32>, tensor<?x?xi32>
}
"""


@pytest.mark.parametrize("target", ["generic", "cpu"])
@pytest.mark.parametrize("sizes", [(1, 1), (9, 5), (70, 3), (4, 0)])
def test_branches_yielding_arrays_from_outside_the_kernel(differential, rng, sizes: tuple[int, int], target: str) -> None:
    """A branch yields an array defined outside the kernel, the other a segmap (or a loop) over it: both have its
    size, which sizes the kernel's scratch row before the branch."""
    n, m = sizes
    args = [rng.random(n) < 0.5, rng.integers(-50, 50, m).astype(np.int32), np.int64(3)]
    differential(OUTSIDE_BRANCHES, "main", args, group_size=8, max_groups=3, target=target)
