# ruff: noqa: E501  (the programs are MLIR text, one op per line)
"""soac-flatten keeps the SOACs' size checks: mismatched inputs fail as in the interpreter, matching ones do not.

Each program zips arrays of their own lengths in a map nest whose SOACs flatten. On inputs whose sizes do not
fit, the original program fails in the interpreter; the flattened one (fully, and every version of the
incremental one) must fail with the same message, at the same place (its checks carry the SOACs' locations),
in the interpreter and on OpenCL (PoCL in CI). On inputs that fit, it gives the same results.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from soac.context import make_context
from soac.dialect import AssertOp
from soac.interpreter import SoacRuntimeError
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import ProgramError, compile_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from xdsl.dialects.builtin import ModuleOp

ZIPPED = """
func.func @main(%k: index, %xss: tensor<?x?xi32>, %ys: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %r = soac.map %n (%xss, %ys : tensor<?x?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%row: tensor<?xi32>, %y: i32) {
    %s = soac.reduce %k (%row : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    %t = arith.addi %s, %y : i32
    soac.yield %t : i32
  }
  func.return %r : tensor<?xi32>
}
"""

INNER_ZIP = """
func.func @main(%k: index, %xss: tensor<?x?xi32>, %zs: tensor<?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %r, %p = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) lambda(%row: tensor<?xi32>) {
    %ws = soac.map %k (%row, %zs : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %z: i32) {
      %w = arith.muli %x, %z : i32
      soac.yield %w : i32
    }
    %ps = soac.scan %k (%ws : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    soac.yield %ws, %ps : tensor<?xi32>, tensor<?xi32>
  }
  func.return %r, %p : tensor<?x?xi32>, tensor<?x?xi32>
}
"""

HIST = """
func.func @main(%k: index, %bins: index, %iss: tensor<?x?xindex>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %iss, %c0 : tensor<?x?xindex>
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = soac.map %n (%iss : tensor<?x?xindex>) -> tensor<?x?xi32> lambda(%is: tensor<?xindex>) {
    %empty = soac.replicate %bins, %z : i32 -> tensor<?xi32>
    %c = soac.hist %k (%is : tensor<?xindex>) into(%empty : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%i: index) {
      soac.yield %i, %one : index, i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
"""

WINDOWS = """
func.func @main(%n: index, %k: index, %m: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %zero = arith.constant 0 : i32
  %is = soac.iota %n : tensor<?xindex>
  %r = soac.map %n (%is : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
    %end = arith.addi %i, %m : index
    %window = soac.slice %xs[%i : %end] : tensor<?xi32> -> tensor<?xi32>
    %s = soac.reduce %k (%window : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}
"""

STENCILS = """
func.func @main(%b: index, %k: index, %xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = soac.map %b (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>) {
    %s = soac.stencil (%k) window [3] clamp (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%l: i32, %c: i32, %r: i32) {
      %t = arith.addi %l, %r : i32
      soac.yield %t : i32
    }
    soac.yield %s : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
"""


def _zipped(n: int, k: int, m: int, extra: int) -> list[Any]:
    rng = np.random.default_rng(n * 31 + m)
    return [np.int64(k), rng.integers(-9, 9, (n, m)).astype(np.int32), rng.integers(-9, 9, n + extra).astype(np.int32)]


def _inner_zip(n: int, k: int, m: int, extra: int) -> list[Any]:
    rng = np.random.default_rng(n * 31 + m)
    return [np.int64(k), rng.integers(-9, 9, (n, m)).astype(np.int32), rng.integers(-9, 9, m + extra).astype(np.int32)]


def _hist(n: int, k: int, m: int, extra: int) -> list[Any]:
    del extra
    rng = np.random.default_rng(n * 31 + m)
    return [np.int64(k), np.int64(5), rng.integers(0, 5, (n, m)).astype(np.int64)]


def _windows(n: int, k: int, m: int, extra: int) -> list[Any]:
    rng = np.random.default_rng(n * 31 + m)
    return [np.int64(n), np.int64(k), np.int64(m), rng.integers(-9, 9, max(n + m - 1 + extra, 0)).astype(np.int32)]


def _stencils(n: int, k: int, m: int, extra: int) -> list[Any]:
    rng = np.random.default_rng(n * 31 + m)
    return [np.int64(n + extra), np.int64(k), rng.integers(-9, 9, (n, m)).astype(np.int32)]


PROGRAMS = {
    "zipped": (ZIPPED, _zipped),
    "inner_zip": (INNER_ZIP, _inner_zip),
    "hist": (HIST, _hist),
    "windows": (WINDOWS, _windows),
    "stencils": (STENCILS, _stencils),
}

# (n, k, m, extra): n rows of m elements, inner width k, an extra input `extra` longer than it should be
FITTING = [(3, 4, 4, 0), (1, 2, 2, 0), (0, 3, 3, 0)]
MISFITTING = {
    "zipped": [(3, 4, 4, 1), (3, 5, 4, 0), (2, 3, 4, -1), (3, -1, 4, 0)],
    "inner_zip": [(3, 4, 4, 1), (3, 5, 4, 0), (2, 3, 4, -1)],
    "hist": [(3, 5, 4, 0), (2, 3, 4, 0), (3, -2, 4, 0)],
    "windows": [(3, 5, 4, 0), (4, 3, 4, 2), (3, 4, 4, -1)],
    "stencils": [(3, 4, 4, 1), (3, 4, 4, -1)],
}
EMPTY_NEST = (0, 5, 4, 0)
"""An empty map: its inner SOACs never run, so their widths are never checked (and the interpreter sizes the
inner dimensions of the empty results from the inputs, the flattened ops from the widths). A stencil checks its
sizes even there, in the interpreter too."""


def flattened(text: str, mode: str) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, text, "prog.mlir")
    SoacFlattenPass(mode=mode).apply(ctx, module)  # pyright: ignore[reportArgumentType]
    module.verify()
    return module


def assert_same(want: object, have: object, sizes: tuple[int, int, int, int]) -> None:
    want, have = np.asarray(want), np.asarray(have)
    if sizes == EMPTY_NEST:
        assert have.size == want.size == 0
        assert have.ndim == want.ndim
    else:
        np.testing.assert_array_equal(have, want)


def every_version(module: ModuleOp) -> list[dict[str, int]]:
    names = [t.name for t in list_thresholds(module)]
    return [dict(zip(names, values)) for values in itertools.product([0, MAX_THRESHOLD], repeat=len(names))]


def interpreter_error(text: str, args: list[Any]) -> str:
    with pytest.raises(SoacRuntimeError) as error:
        interpret(parse_module(make_context(), text, "prog.mlir"), "main", args)
    return str(error.value)


def cases(sizes: dict[str, list[tuple[int, int, int, int]]]) -> list[tuple[str, tuple[int, int, int, int]]]:
    return [(name, s) for name, shapes in sizes.items() for s in shapes]


@pytest.mark.parametrize("mode", ["full", "incremental"])
@pytest.mark.parametrize(("name", "sizes"), cases(MISFITTING))
def test_mismatch_fails_as_in_the_interpreter(name: str, sizes: tuple[int, int, int, int], mode: str) -> None:
    text, make_args = PROGRAMS[name]
    args = make_args(*sizes)
    expected = interpreter_error(text, args)
    module = flattened(text, mode)
    for thresholds in every_version(module):
        with pytest.raises(SoacRuntimeError) as got:
            interpret(module, "main", args, thresholds)
        assert str(got.value) == expected, thresholds


@pytest.mark.parametrize("mode", ["full", "incremental"])
@pytest.mark.parametrize(
    ("name", "sizes"), [(name, s) for name in PROGRAMS for s in [*FITTING, EMPTY_NEST] if (name, s) != ("stencils", EMPTY_NEST)]
)
def test_matching_sizes_keep_the_results(name: str, sizes: tuple[int, int, int, int], mode: str) -> None:
    text, make_args = PROGRAMS[name]
    args = make_args(*sizes)
    expected = interpret(parse_module(make_context(), text, "prog.mlir"), "main", args)
    module = flattened(text, mode)
    for thresholds in every_version(module):
        for want, have in zip(expected, interpret(module, "main", args, thresholds), strict=True):
            assert_same(want, have, sizes)


def test_the_checks_are_asserts_where_the_flattened_ops_no_longer_check() -> None:
    """zipped: the map's second input, the inner reduce's width and rows; the first input has the map's width."""
    messages = [op.message.data for op in flattened(ZIPPED, "full").walk() if isinstance(op, AssertOp)]
    assert messages == [
        "'soac.map': width {0} does not match the outer size {1} of input #1",
        "'soac.reduce': negative width {0}",
        "'soac.reduce': width {0} does not match the outer size {1} of input #0",
    ]


ROTATED = """
func.func @main(%xss: tensor<?x?xi32>, %s: index) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %rotated = soac.rotate %xss by %s : tensor<?x?xi32>
  %r = soac.map %n (%rotated : tensor<?x?xi32>) -> tensor<?xi32> lambda(%row: tensor<?xi32>) {
    %t = soac.reduce %m (%row : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    soac.yield %t : i32
  }
  func.return %r : tensor<?xi32>
}
"""


def test_an_input_has_the_sizes_its_op_says() -> None:
    """The sizes before the nest follow what the op that made an input says (`ResultDimsInterface`): a rotate has
    its operand's rows and row length, so the map's width (`tensor.dim %xss, 0`) and the reduce's (`tensor.dim %xss,
    1`) need no check (naming op classes, only iota, replicate, maps, scans, segmented ops, index, transpose, reverse
    and reshape were followed, and both checks were kept). The flattened program gives the interpreter's results."""
    module = flattened(ROTATED, "full")
    assert [op.message.data for op in module.walk() if isinstance(op, AssertOp)] == []
    xss = np.arange(12, dtype=np.int32).reshape(3, 4)
    expected = interpret(parse_module(make_context(), ROTATED, "prog.mlir"), "main", [xss, 1])
    for want, have in zip(expected, interpret(module, "main", [xss, 1]), strict=True):
        np.testing.assert_array_equal(have, want)


def opencl_cases() -> list[Any]:
    fast = {("zipped", "full")}
    return [
        pytest.param(name, mode, marks=() if (name, mode) in fast else pytest.mark.slow)
        for name in PROGRAMS
        for mode in ("full", "incremental")
    ]


@pytest.mark.parametrize(("name", "mode"), opencl_cases())
def test_opencl_fails_as_the_interpreter(name: str, mode: str) -> None:
    """On OpenCL, every version: the interpreter's message for misfitting inputs, its results for fitting ones."""
    text, make_args = PROGRAMS[name]
    module = flattened(text, mode)
    program = compile_module(module)
    original = parse_module(make_context(), text, "prog.mlir")
    for thresholds in every_version(module):
        for sizes in MISFITTING[name][:2]:
            args = make_args(*sizes)
            with pytest.raises(ProgramError) as got:
                program.call("main", args, thresholds)
            assert str(got.value) == interpreter_error(text, args), thresholds
        for sizes in (FITTING[0], EMPTY_NEST) if name != "stencils" else FITTING[:1]:
            args = make_args(*sizes)
            expected = interpret(original, "main", args)
            for want, have in zip(expected, program.call("main", args, thresholds), strict=True):
                assert_same(want, have, sizes)
