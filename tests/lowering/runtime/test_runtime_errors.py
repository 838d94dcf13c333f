"""Run-time errors on OpenCL are the interpreter's: the same op, location and problem, never a wrong answer.

Kernels record their first failure in the call's error buffer (a compare, a
branch and a compare-and-swap) and skip the faulty access; host checks fail
before the launches that depend on them. Every case runs on the interpreter
and on OpenCL (PoCL in CI) and compares the two messages.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import SoacRuntimeError
from soac.interpreter import run_function as interpret
from soac.lowering import kernel as kd
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.runtime import OpenCLRuntimeError, Program, ProgramError, compile_module, lower_module
from soac.parsing import parse_module
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import VerifyException

LOCATED = re.compile(r"^prog\.mlir:(\d+):(\d+): '([a-z_.]+)': (.*)$")


def parse(text: str) -> ModuleOp:
    return parse_module(make_context(), text, "prog.mlir")


def both_fail(text: str, args: Sequence[object], name: str = "main", exact: bool = True, **options: int | str) -> str:
    """Both backends fail `@name` on `args` at the same op and place; gives the OpenCL message."""
    module = parse(text)
    with pytest.raises(SoacRuntimeError) as expected:
        interpret(module, name, args)
    with pytest.raises(ProgramError) as got:
        compile_module(module, **options).call(name, args)  # pyright: ignore[reportArgumentType]
    message, reference = str(got.value), str(expected.value)
    match, wanted = LOCATED.match(message), LOCATED.match(reference)
    assert match is not None, message
    assert wanted is not None, reference
    assert match.groups()[:3] == wanted.groups()[:3], f"{message!r} is not at {reference!r}"
    if exact:
        assert message == reference
    else:  # several elements fail: the problem is the same, its values may be another element's
        assert re.sub(r"-?\d+", "N", match.group(4)) == re.sub(r"-?\d+", "N", wanted.group(4)), (message, reference)
    return message


def at(text: str, needle: str) -> str:
    """`prog.mlir:line:col` of the op on the (first) line of `text` that contains `needle`."""
    for number, line in enumerate(text.split("\n"), start=1):
        if needle in line:
            return f"prog.mlir:{number}:{len(line) - len(line.lstrip()) + 1}"
    raise AssertionError(f"no {needle!r} in the program")


def same_results(text: str, args: Sequence[object], name: str = "main", **options: int) -> tuple[object, ...]:
    """The interpreter's results, after checking that OpenCL gives the same."""
    module = parse(text)
    expected = interpret(module, name, args)
    got = compile_module(module, **options).call(name, args)  # pyright: ignore[reportArgumentType]
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))
    return expected


# ---------------------------------------------------------------------------
# soac.index and tensor.extract inside kernels
# ---------------------------------------------------------------------------

GATHER = """
func.func @main(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi64>) -> tensor<?xf32> {
  %ys = soac.map %n (%is : tensor<?xi64>) -> tensor<?xf32> lambda(%i: i64) {
    %j = arith.index_cast %i : i64 to index
    %x = soac.index %xs[%j] : tensor<?xf32> -> f32
    soac.yield %x : f32
  }
  func.return %ys : tensor<?xf32>
}
"""


@pytest.mark.parametrize("bad", [7, 5, -1, -(2**62)])
def test_gather_out_of_bounds(bad):
    xs = np.arange(5, dtype=np.float32)
    indices = np.array([0, 4, bad, 1], np.int64)
    message = both_fail(GATHER, [np.int64(4), xs, indices])
    assert message == f"{at(GATHER, 'soac.index')}: 'soac.index': index {bad} is out of bounds for dimension 0 of size 5"


def test_gather_in_bounds_matches_the_interpreter():
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1, 1, 1000).astype(np.float32)
    same_results(GATHER, [np.int64(3000), xs, rng.integers(0, 1000, 3000)])


def test_many_failures_report_one_of_them():
    indices = np.arange(3000, dtype=np.int64)
    both_fail(GATHER, [np.int64(3000), np.zeros(10, np.float32), indices], exact=False)


def test_the_error_buffer_is_cleared_for_the_next_call():
    program = compile_module(parse(GATHER))
    xs = np.arange(5, dtype=np.float32)
    with pytest.raises(ProgramError):
        program.call("main", [np.int64(2), xs, np.array([0, 9], np.int64)])
    (ys,) = program.call("main", [np.int64(2), xs, np.array([4, 1], np.int64)])
    np.testing.assert_array_equal(ys, [4, 1])


def test_the_error_is_both_backends_error_class():
    assert issubclass(ProgramError, SoacRuntimeError)
    assert issubclass(ProgramError, OpenCLRuntimeError)


ROWS = """
func.func @main(%n: index, %xss: tensor<?x?xi32>, %is: tensor<?xindex>, %js: tensor<?xindex>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %a, %b = soac.map %n (%is, %js : tensor<?xindex>, tensor<?xindex>) -> (tensor<?xi32>, tensor<?xi32>)
      lambda(%i: index, %j: index) {
    %x = tensor.extract %xss[%i, %j] : tensor<?x?xi32>
    %row = soac.index %xss[%i] : tensor<?x?xi32> -> tensor<?xi32>
    %s = soac.reduce %m (%row : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%p: i32, %q: i32) {
      %r = arith.addi %p, %q : i32
      soac.yield %r : i32
    }
    soac.yield %x, %s : i32, i32
  }
  func.return %a, %b : tensor<?xi32>, tensor<?xi32>
}
"""


def test_extract_checks_every_dimension():
    xss = np.arange(12, dtype=np.int32).reshape(3, 4)
    message = both_fail(ROWS, [np.int64(2), xss, np.array([0, 2]), np.array([1, 4])])
    assert message == f"{at(ROWS, 'tensor.extract')}: 'tensor.extract': index 4 is out of bounds for dimension 1 of size 4"
    message = both_fail(ROWS, [np.int64(2), xss, np.array([3, 2]), np.array([1, 0])])
    assert message.startswith(
        f"{at(ROWS, 'tensor.extract')}: 'tensor.extract': index 3 is out of bounds for dimension 0 of size 3"
    )


def test_rows_of_an_array_in_bounds_match_the_interpreter():
    rng = np.random.default_rng(1)
    xss = rng.integers(-9, 9, (40, 7)).astype(np.int32)
    same_results(ROWS, [np.int64(500), xss, rng.integers(0, 40, 500), rng.integers(0, 7, 500)])


SEGMAP = """
func.func @main(%n: index, %m: index, %xss: tensor<?x?xi64>) -> (tensor<?x?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %xss, %c0 : tensor<?x?xi64>
  %cols = tensor.dim %xss, %c1 : tensor<?x?xi64>
  %z = arith.constant 0 : i64
  %copy = soac.segmap thread (%n, %m) -> tensor<?x?xi64> lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi64> -> i64
    soac.yield %x : i64
  }
  %sums = soac.segred group (%rows, %cols) neutral(%z : i64) -> tensor<?xi64> combine(%a: i64, %b: i64) {
    %s = arith.addi %a, %b : i64
    soac.yield %s : i64
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi64> -> i64
    soac.yield %x : i64
  }
  func.return %copy, %sums : tensor<?x?xi64>, tensor<?xi64>
}
"""


def test_segmap_index_space_larger_than_the_array():
    xss = np.arange(6, dtype=np.int64).reshape(2, 3)
    message = both_fail(SEGMAP, [np.int64(2), np.int64(4), xss])
    assert message == f"{at(SEGMAP, 'soac.index')}: 'soac.index': index 3 is out of bounds for dimension 1 of size 3"
    same_results(SEGMAP, [np.int64(2), np.int64(3), xss])


def test_indices_of_a_segmented_op_over_the_array_sizes_need_no_check():
    source = opencl_source(lower_module(parse(SEGMAP)))
    segred = source[source.index("__kernel void main_segred") :]
    segmap = source[source.index("__kernel void main_segmap") : source.index("__kernel void main_segred")]
    assert "atomic_cmpxchg" not in segred
    assert segmap.count("atomic_cmpxchg") == 2


# ---------------------------------------------------------------------------
# scatter
# ---------------------------------------------------------------------------

SCATTER = """
func.func @main(%n: index, %dest: tensor<?xf32>, %is: tensor<?xi32>, %vs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.scatter %n (%is, %vs : tensor<?xi32>, tensor<?xf32>) into (%dest : tensor<?xf32>) -> tensor<?xf32>
      lambda(%i: i32, %v: f32) {
    soac.yield %i, %v : i32, f32
  }
  func.return %r : tensor<?xf32>
}
"""


@pytest.mark.parametrize("dropped", [10, -1, 2**31 - 1, -(2**31)])
def test_scatter_drops_rows_out_of_bounds(dropped):
    """Futhark's partial scatter: a row whose index is outside the destination writes nothing (no error)."""
    dest = np.zeros(10, np.float32)
    values = np.array([5, 6, 7], np.float32)
    results = same_results(SCATTER, [np.int64(3), dest, np.array([1, dropped, 2], np.int32), values])
    np.testing.assert_array_equal(results[0], [0, 5, 7, 0, 0, 0, 0, 0, 0, 0])


def test_scatter_in_bounds_matches_the_interpreter():
    rng = np.random.default_rng(2)
    same_results(
        SCATTER, [np.int64(50), np.zeros(100, np.float32), rng.permutation(100)[:50].astype(np.int32), np.ones(50, np.float32)]
    )


NESTED_SCATTER = """
func.func @main(%n: index, %k: index, %xs: tensor<?x4xi32>, %is: tensor<?x?xindex>) -> tensor<?x4xi32> {
  %ys = soac.map %n (%xs, %is : tensor<?x4xi32>, tensor<?x?xindex>) -> tensor<?x4xi32>
      lambda(%row: tensor<4xi32>, %idx: tensor<?xindex>) {
    %new = soac.scatter %k (%idx : tensor<?xindex>) into (%row : tensor<4xi32>) -> tensor<4xi32> lambda(%i: index) {
      %v = arith.constant 7 : i32
      soac.yield %i, %v : index, i32
    }
    soac.yield %new : tensor<4xi32>
  }
  func.return %ys : tensor<?x4xi32>
}
"""


def test_scatter_inside_a_map():
    xs = np.zeros((2, 4), np.int32)
    results = same_results(NESTED_SCATTER, [np.int64(2), np.int64(2), xs, np.array([[0, 1], [3, 4]])])
    np.testing.assert_array_equal(results[0], [[7, 7, 0, 0], [0, 0, 0, 7]])
    same_results(NESTED_SCATTER, [np.int64(2), np.int64(2), xs, np.array([[0, 1], [3, 2]])])
    same_results(NESTED_SCATTER, [np.int64(2), np.int64(2), xs, np.array([[-1, -1], [-7, 9]])])


def test_nested_width_that_disagrees_with_the_rows():
    xs = np.zeros((2, 4), np.int32)
    message = both_fail(NESTED_SCATTER, [np.int64(2), np.int64(3), xs, np.array([[0, 1], [3, 2]])])
    assert message == f"{at(NESTED_SCATTER, 'soac.scatter')}: 'soac.scatter': width 3 does not match the outer size 2 of input #0"


TOP_LEVEL_WIDTHS = """
func.func @map(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> tensor<?xi32> {
  %r = soac.map %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
    %s = arith.addi %x, %y : i32
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}
func.func @reduce(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> i32 {
  %z = arith.constant 0 : i32
  %r = soac.redomap %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32, %y: i32) {
    %p = arith.muli %x, %y : i32
    soac.yield %p : i32
  }
  func.return %r : i32
}
func.func @hist(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %bins: tensor<?xi32>) -> tensor<?xi32> {
  %z = arith.constant 0 : i32
  %r = soac.hist %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
      combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32, %y: i32) {
    %i = arith.index_cast %x : i32 to index
    soac.yield %i, %y : index, i32
  }
  func.return %r : tensor<?xi32>
}
func.func @scatter(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %dest: tensor<?xi32>) -> tensor<?xi32> {
  %r = soac.scatter %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) into (%dest : tensor<?xi32>) -> tensor<?xi32>
      lambda(%i: i32, %v: i32) {
    soac.yield %i, %v : i32, i32
  }
  func.return %r : tensor<?xi32>
}
func.func @scan_scatter(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %dest: tensor<?xi32>) -> tensor<?xi32> {
  %z = arith.constant 0 : i32
  %sums = soac.scan %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  %r = soac.scatter %n (%sums, %ys : tensor<?xi32>, tensor<?xi32>) into (%dest : tensor<?xi32>) -> tensor<?xi32>
      lambda(%i: i32, %v: i32) {
    soac.yield %i, %v : i32, i32
  }
  func.return %r : tensor<?xi32>
}
"""


@pytest.mark.parametrize(("name", "op"), [("map", "map"), ("reduce", "redomap"), ("hist", "hist"), ("scatter", "scatter")])
@pytest.mark.parametrize("bad", [0, 1])
def test_top_level_width_that_disagrees_with_the_rows(name: str, op: str, bad: int):
    """The host's check before the launches says what the interpreter says."""
    inputs = [np.zeros(5, np.int32), np.zeros(5, np.int32)]
    inputs[bad] = np.zeros(2, np.int32)
    extra = [] if name in ("map", "reduce") else [np.zeros(4, np.int32)]
    message = both_fail(TOP_LEVEL_WIDTHS, [np.int64(5), *inputs, *extra], name)
    assert (
        message == f"{at(TOP_LEVEL_WIDTHS, f'soac.{op} ')}: 'soac.{op}': width 5 does not match the outer size 2 of input #{bad}"
    )


@pytest.mark.parametrize("scan", ["chunked", "reduce-then-scan"])
def test_a_scatter_in_the_scan_before_it_checks_its_rows_as_the_interpreter(scan: str):
    """The chunked scan runs the scatter in its last kernel and checks the scatter's other inputs itself."""
    message = both_fail(
        TOP_LEVEL_WIDTHS,
        [np.int64(5), np.zeros(5, np.int32), np.zeros(3, np.int32), np.zeros(4, np.int32)],
        "scan_scatter",
        scan=scan,
    )
    assert message.endswith("'soac.scatter': width 5 does not match the outer size 3 of input #1")


# ---------------------------------------------------------------------------
# integer division by zero
# ---------------------------------------------------------------------------

DIVIDE = """
func.func @main(%n: index, %xs: tensor<?x{t}>, %ys: tensor<?x{t}>) -> tensor<?x{t}> {{
  %r = soac.map %n (%xs, %ys : tensor<?x{t}>, tensor<?x{t}>) -> tensor<?x{t}> lambda(%x: {t}, %y: {t}) {{
    %q = {op} %x, %y : {t}
    soac.yield %q : {t}
  }}
  func.return %r : tensor<?x{t}>
}}
"""
DIVISIONS = ["arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.ceildivsi", "arith.ceildivui", "arith.floordivsi"]


@pytest.mark.parametrize("op", DIVISIONS)
@pytest.mark.parametrize("t", ["i32", "i64"])
def test_division_by_zero_in_a_kernel(op, t):
    text = DIVIDE.format(op=op, t=t)
    dtype = np.dtype(f"int{t[1:]}")
    xs = np.array([7, -7, 3, 9], dtype)
    message = both_fail(text, [np.int64(4), xs, np.array([2, 3, 0, 1], dtype)])
    assert message == f"{at(text, op)}: '{op}': integer division by zero"


@pytest.mark.parametrize("op", DIVISIONS)
def test_divisions_without_zero_match_the_interpreter(op):
    smallest = np.iinfo(np.int32).min
    xs = np.array([7, -7, 3, 9, smallest, smallest, -1, 0], np.int32)
    same_results(DIVIDE.format(op=op, t="i32"), [np.int64(8), xs, np.array([2, 3, -5, 1, -1, 1, -1, 4], np.int32)])


HOST_DIVIDE = """
func.func @main(%a: i64, %b: i64) -> i64 {
  %q = arith.remsi %a, %b : i64
  func.return %q : i64
}
"""


def test_division_by_zero_on_the_host():
    message = both_fail(HOST_DIVIDE, [np.int64(5), np.int64(0)])
    assert message == f"{at(HOST_DIVIDE, 'arith.remsi')}: 'arith.remsi': integer division by zero"
    same_results(HOST_DIVIDE, [np.int64(-7), np.int64(3)])


# ---------------------------------------------------------------------------
# slice and update inside kernels
# ---------------------------------------------------------------------------

WINDOWS = """
func.func @main(%n: index, %w: index, %xs: tensor<?xi32>, %starts: tensor<?xindex>) -> tensor<?xi32> {
  %z = arith.constant 0 : i32
  %sums = soac.map %n (%starts : tensor<?xindex>) -> tensor<?xi32> lambda(%s: index) {
    %e = arith.addi %s, %w : index
    %win = soac.slice %xs[%s : %e] : tensor<?xi32> -> tensor<?xi32>
    %t = soac.reduce %w (%win : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    soac.yield %t : i32
  }
  func.return %sums : tensor<?xi32>
}
"""


def test_slice_out_of_bounds_in_a_kernel():
    xs = np.arange(10, dtype=np.int32)
    message = both_fail(WINDOWS, [np.int64(3), np.int64(4), xs, np.array([0, 7, 2])])
    assert message == f"{at(WINDOWS, 'soac.slice')}: 'soac.slice': slice [7:11] is out of bounds for an array of outer size 10"
    same_results(WINDOWS, [np.int64(3), np.int64(4), xs, np.array([0, 6, 2])])


HISTOGRAMS = """
func.func @main(%n: index, %bins: index, %xs: tensor<?xindex>) -> tensor<?x4xi32> {
  %one = arith.constant 1 : i32
  %z = arith.constant 0 : i32
  %hs = soac.map %n (%xs : tensor<?xindex>) -> tensor<?x4xi32> lambda(%x: index) {
    %h = soac.replicate %bins, %z : i32 -> tensor<4xi32>
    %h2 = soac.update %h[%x] = %one : tensor<4xi32>, i32
    %h3 = tensor.insert %one into %h2[%x] : tensor<4xi32>
    soac.yield %h3 : tensor<4xi32>
  }
  func.return %hs : tensor<?x4xi32>
}
"""


def test_update_out_of_bounds_in_a_kernel():
    bins = np.int64(4)
    message = both_fail(HISTOGRAMS, [np.int64(3), bins, np.array([0, 3, 4])])
    assert message == f"{at(HISTOGRAMS, 'soac.update')}: 'soac.update': index 4 is out of bounds for dimension 0 of size 4"
    same_results(HISTOGRAMS, [np.int64(3), bins, np.array([0, 3, 2])])


# ---------------------------------------------------------------------------
# checks on the host
# ---------------------------------------------------------------------------

HOST_OPS = """
func.func @main(%i: index, %s: index, %e: index, %xss: tensor<?x?xf32>, %row: tensor<?xf32>)
    -> (f32, tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %x = soac.index %xss[%i, %c0] : tensor<?x?xf32> -> f32
  %part = soac.slice %xss[%s : %e] : tensor<?x?xf32> -> tensor<?x?xf32>
  %new = soac.update %xss[%i] = %row : tensor<?x?xf32>, tensor<?xf32>
  func.return %x, %part, %new : f32, tensor<?x?xf32>, tensor<?x?xf32>
}
"""


def test_host_index_slice_and_update():
    xss = np.arange(12, dtype=np.float32).reshape(4, 3)
    row = np.ones(3, np.float32)
    message = both_fail(HOST_OPS, [np.int64(4), np.int64(0), np.int64(1), xss, row])
    assert message == f"{at(HOST_OPS, 'soac.index')}: 'soac.index': index 4 is out of bounds for dimension 0 of size 4"
    message = both_fail(HOST_OPS, [np.int64(1), np.int64(3), np.int64(5), xss, row])
    assert message == f"{at(HOST_OPS, 'soac.slice')}: 'soac.slice': slice [3:5] is out of bounds for an array of outer size 4"
    message = both_fail(HOST_OPS, [np.int64(1), np.int64(2), np.int64(1), xss, row])
    assert message == f"{at(HOST_OPS, 'soac.slice')}: 'soac.slice': slice [2:1] is out of bounds for an array of outer size 4"
    message = both_fail(HOST_OPS, [np.int64(1), np.int64(1), np.int64(3), xss, np.ones(2, np.float32)])
    assert message == f"{at(HOST_OPS, 'soac.update')}: 'soac.update': a value of shape (2,) does not fit a row of shape (3,)"
    same_results(HOST_OPS, [np.int64(3), np.int64(1), np.int64(4), xss, row])


SIZES = """
func.func @main(%n: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %is = soac.iota %n : tensor<?xi32>
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    soac.yield %x : i32
  }
  func.return %is, %ys : tensor<?xi32>, tensor<?xi32>
}
"""


def test_negative_sizes_on_the_host():
    message = both_fail(SIZES, [np.int64(-3), np.zeros(2, np.int32)])
    assert message == f"{at(SIZES, 'soac.iota')}: 'soac.iota': negative size -3"


NESTED_IOTA = """
func.func @main(%n: index, %k: index) -> tensor<?xi64> {
  %is = soac.iota %n : tensor<?xi64>
  %z = arith.constant 0 : i64
  %sums = soac.map %n (%is : tensor<?xi64>) -> tensor<?xi64> lambda(%i: i64) {
    %js = soac.iota %k : tensor<?xi64>
    %s = soac.reduce %k (%js : tensor<?xi64>) neutral(%z : i64) -> i64 combine(%a: i64, %b: i64) {
      %c = arith.addi %a, %b : i64
      soac.yield %c : i64
    }
    %t = arith.addi %s, %i : i64
    soac.yield %t : i64
  }
  func.return %sums : tensor<?xi64>
}
"""


def test_negative_size_inside_a_kernel():
    message = both_fail(NESTED_IOTA, [np.int64(3), np.int64(-2)])
    assert message == f"{at(NESTED_IOTA, 'soac.iota %k')}: 'soac.iota': negative size -2"
    same_results(NESTED_IOTA, [np.int64(300), np.int64(5)])


# ---------------------------------------------------------------------------
# reductions and scans, and which error comes first
# ---------------------------------------------------------------------------

REDOMAP_SCANOMAP = """
func.func @main(%n: index, %xs: tensor<?xi32>, %is: tensor<?xindex>) -> (i32, tensor<?xi32>) {
  %z = arith.constant 0 : i32
  %s = soac.redomap %n (%is : tensor<?xindex>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%i: index) {
    %x = soac.index %xs[%i] : tensor<?xi32> -> i32
    soac.yield %x : i32
  }
  %p = soac.scanomap %n (%is : tensor<?xindex>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%i: index) {
    %x = soac.index %xs[%i] : tensor<?xi32> -> i32
    %y = arith.divsi %x, %x : i32
    soac.yield %y : i32
  }
  func.return %s, %p : i32, tensor<?xi32>
}
"""


def test_reductions_and_scans_report_their_lambdas_failures():
    xs = np.arange(1, 101, dtype=np.int32)
    rng = np.random.default_rng(3)
    indices = rng.integers(0, 100, 5000)
    same_results(REDOMAP_SCANOMAP, [np.int64(5000), xs, indices])
    indices[4321] = 100
    message = both_fail(REDOMAP_SCANOMAP, [np.int64(5000), xs, indices])
    assert (
        message == f"{at(REDOMAP_SCANOMAP, 'soac.index')}: 'soac.index': index 100 is out of bounds for dimension 0 of size 100"
    )
    xs[17] = 0
    indices[4321] = 17
    message = both_fail(REDOMAP_SCANOMAP, [np.int64(5000), xs, indices])
    assert message == f"{at(REDOMAP_SCANOMAP, 'arith.divsi')}: 'arith.divsi': integer division by zero"


THEN_HOST = """
func.func @main(%n: index, %xs: tensor<?xf32>, %is: tensor<?xindex>, %k: index) -> (tensor<?xf32>, f32) {
  %ys = soac.map %n (%is : tensor<?xindex>) -> tensor<?xf32> lambda(%i: index) {
    %x = soac.index %xs[%i] : tensor<?xf32> -> f32
    soac.yield %x : f32
  }
  %y = soac.index %ys[%k] : tensor<?xf32> -> f32
  func.return %ys, %y : tensor<?xf32>, f32
}
"""


def test_a_kernel_failure_comes_before_a_later_host_failure():
    message = both_fail(THEN_HOST, [np.int64(2), np.zeros(3, np.float32), np.array([0, 3]), np.int64(5)])
    assert message.startswith(f"{at(THEN_HOST, 'soac.index %xs')}: 'soac.index': index 3")


ASSERTS = """
func.func @main(%n: index, %xs: tensor<?xi32>, %k: i32) -> tensor<?xi32> {
  %z = arith.constant 0 : i32
  %positive = arith.cmpi sgt, %k, %z : i32
  soac.assert %positive, "k is {0:d}, hex {0:#x}, bits {0:08b}, {0:>5}|" (%k : i32)
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %ok = arith.cmpi sge, %x, %z : i32
    soac.assert %ok, "x is {0:+d} ({0:_x})" (%x : i32)
    soac.yield %x : i32
  }
  func.return %ys : tensor<?xi32>
}
"""


@pytest.mark.parametrize(("k", "x"), [(-3, 1), (1, -3), (1, -(2**31)), (-(2**31), 1)])
def test_assert_messages_format_every_value_alike(k: int, x: int):
    """One formatting of `soac.assert` messages (soac.messages) on both backends, on the host and in kernels."""
    module = parse(ASSERTS)
    args = [np.int64(3), np.array([0, x, 2], np.int32), np.int32(k)]
    with pytest.raises(SoacRuntimeError) as expected:
        interpret(module, "main", args)
    with pytest.raises(ProgramError) as got:
        compile_module(module).call("main", args)  # pyright: ignore[reportArgumentType]
    assert str(got.value) == str(expected.value)
    if k < 0:
        assert str(got.value) == f"{at(ASSERTS, 'soac.assert %positive')}: k is {k}, hex {k:#x}, bits {k:08b}, {k:>5}|"
    else:
        assert str(got.value) == f"{at(ASSERTS, 'soac.assert %ok')}: x is {x:+d} ({x:_x})"


@pytest.mark.parametrize(
    ("before", "after", "problem"),
    [
        ("k is {0:d}", "k is {0:c}", "field '{0:c}' is not an integer format"),
        ("({0:_x})", "({1})", "field '{1}' names value #1, but there is 1 value"),
    ],
)
def test_kernel_asserts_check_their_messages_as_soac_assert_does(before: str, after: str, problem: str):
    lowered = str(lower_module(parse(ASSERTS)))
    assert lowered.count(before) == 1
    with pytest.raises(VerifyException, match=re.escape(problem)):
        parse(lowered.replace(before, after))


# ---------------------------------------------------------------------------
# the kernel dialect and the C it prints
# ---------------------------------------------------------------------------


def test_checks_have_codes_that_lead_to_their_messages():
    lowered = lower_module(parse(GATHER))
    checks = [op for op in lowered.walk() if isinstance(op, kd.DeviceAssertOp)]
    assert [c.error_code for c in checks] == [1]
    expected = f"{at(GATHER, 'soac.index')}: 'soac.index': index {{0}} is out of bounds for dimension 0 of size {{1}}"
    assert checks[0].message.data == expected
    program = compile_module(parse(GATHER))
    assert isinstance(program, Program)
    assert set(program.error_table) == {1}
    source = opencl_source(lowered)
    assert "if (atomic_cmpxchg((volatile __global int *)errors, 0, 1) == 0) {" in source
    assert "__global long *restrict errors" in source


def test_programs_without_checks_take_no_error_buffer():
    text = SIZES.replace("soac.iota %n", "soac.iota %c3").replace("%is = ", "%c3 = arith.constant 3 : index\n  %is = ")
    lowered = lower_module(parse(text))
    assert not any(isinstance(op, kd.ErrorBufferOp | kd.DeviceAssertOp) for op in lowered.walk())
    assert compile_module(parse(text)).errors is None


def test_soac_run_reports_a_kernel_failure_cleanly(tmp_path: Path):
    program = tmp_path / "prog.mlir"
    program.write_text(GATHER.lstrip("\n"))
    command = [sys.executable, "-m", "soac.tools.soac_run", str(program), "--backend", "opencl"]
    command += ["--input", "2", "[1.5, 2.5, 3.5]", "[0, 3]"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    where = at(GATHER.lstrip("\n"), "soac.index").replace("prog.mlir", str(program))
    assert f"{where}: 'soac.index': index 3 is out of bounds for dimension 0 of size 3" in done.stderr
    done = subprocess.run([*command[:-1], "[0, 2]"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "[1.5 3.5]" in done.stdout
