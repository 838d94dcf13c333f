"""Run-time errors: one clear message naming the op and its place."""

from __future__ import annotations

import numpy as np
import pytest
from soac.interpreter import SoacRuntimeError, run_function
from xdsl.parser import Parser

LOC = r"test\.mlir:\d+:\d+: "


def program(body: str, params: str = "%n: index, %xs: tensor<?xf32>", results: str = "") -> str:
    return f"func.func @main({params}) -> ({results}) {{\n{body}\n}}\n"


WIDTH = program(
    """  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %r : tensor<?xf32>""",
    results="tensor<?xf32>",
)


def test_width_mismatch(run):
    with pytest.raises(SoacRuntimeError, match=LOC + r"'soac.map': width 5 does not match the outer size 4 of input #0$"):
        run(WIDTH, 5, np.zeros(4, np.float32))


def test_message_has_line_and_column(run):
    with pytest.raises(SoacRuntimeError) as info:
        run(WIDTH, 5, np.zeros(4, np.float32))
    assert str(info.value).startswith("test.mlir:2:3: 'soac.map'")


REDUCE_WIDTH = program(
    """  %z = arith.constant 0.0 : f32
  %s = soac.reduce %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : f32""",
    results="f32",
)


def test_reduce_width_mismatch(run):
    with pytest.raises(SoacRuntimeError, match=LOC + r"'soac.reduce': width 3 does not match the outer size 0 of input #0"):
        run(REDUCE_WIDTH, 3, np.zeros(0, np.float32))


NESTED_WIDTH = """
func.func @main(%n: index, %m: index, %xss: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%xs: tensor<?xf32>) {
    %ys = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      soac.yield %x : f32
    }
    soac.yield %ys : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}
"""


def test_nested_width_mismatch(run):
    with pytest.raises(
        SoacRuntimeError, match=r"test\.mlir:4:5: 'soac.map': width 3 does not match the outer size 2 of input #0"
    ):
        run(NESTED_WIDTH, 2, 3, np.zeros((2, 2), np.float32))


INDEX = program(
    """  %i = arith.constant 7 : index
  %x = soac.index %xs[%i] : tensor<?xf32> -> f32
  func.return %x : f32""",
    results="f32",
)

LANE_INDEX = """
func.func @main(%n: index, %is: tensor<?xindex>, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%is : tensor<?xindex>) -> tensor<?xf32> lambda(%i: index) {
    %x = tensor.extract %xs[%i] : tensor<?xf32>
    soac.yield %x : f32
  }
  func.return %r : tensor<?xf32>
}
"""


def test_index_out_of_bounds(run):
    with pytest.raises(SoacRuntimeError, match=LOC + r"'soac.index': index 7 is out of bounds for dimension 0 of size 3"):
        run(INDEX, 3, np.zeros(3, np.float32))
    with pytest.raises(SoacRuntimeError, match=LOC + r"'tensor.extract': index -1 is out of bounds for dimension 0 of size 2"):
        run(LANE_INDEX, 3, np.array([0, -1, 1]), np.zeros(2, np.float32))


SLICE = program(
    """  %i = arith.constant 2 : index
  %s = soac.slice %xs[%i : %n] : tensor<?xf32> -> tensor<?xf32>
  func.return %s : tensor<?xf32>""",
    results="tensor<?xf32>",
)


def test_slice_out_of_bounds(run):
    with pytest.raises(
        SoacRuntimeError, match=LOC + r"'soac.slice': slice \[2:5\] is out of bounds for an array of outer size 4"
    ):
        run(SLICE, 5, np.zeros(4, np.float32))
    with pytest.raises(SoacRuntimeError, match=r"'soac.slice': slice \[2:1\]"):
        run(SLICE, 1, np.zeros(4, np.float32))
    (s,) = run(SLICE, 2, np.zeros(4, np.float32))
    assert s.shape == (0,)


UPDATE = program(
    """  %z = arith.constant 0.0 : f32
  %u = soac.update %xs[%n] = %z : tensor<?xf32>, f32
  func.return %u : tensor<?xf32>""",
    results="tensor<?xf32>",
)


def test_update_out_of_bounds(run):
    with pytest.raises(SoacRuntimeError, match=LOC + r"'soac.update': index 4 is out of bounds for dimension 0 of size 4"):
        run(UPDATE, 4, np.zeros(4, np.float32))


DIVISION = """
func.func @main(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> tensor<?xi32> {
  %r = soac.map %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
    %q = arith.remui %x, %y : i32
    soac.yield %q : i32
  }
  func.return %r : tensor<?xi32>
}
func.func @host(%x: i64, %y: i64) -> i64 {
  %q = arith.divsi %x, %y : i64
  func.return %q : i64
}
"""


def test_integer_division_by_zero(run):
    with pytest.raises(SoacRuntimeError, match=LOC + r"'arith.remui': integer division by zero"):
        run(DIVISION, 3, np.array([1, 2, 3], np.int32), np.array([1, 0, 1], np.int32))
    with pytest.raises(SoacRuntimeError, match=LOC + r"'arith.divsi': integer division by zero"):
        run(DIVISION, 1, 0, name="host")


NEGATIVE = """
func.func @iota(%n: index) -> tensor<?xi32> {
  %r = soac.iota %n : tensor<?xi32>
  func.return %r : tensor<?xi32>
}
func.func @replicate(%n: index, %x: f32) -> tensor<?xf32> {
  %r = soac.replicate %n, %x : f32 -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
func.func @empty(%n: index) -> tensor<?xf32> {
  %r = tensor.empty(%n) : tensor<?xf32>
  func.return %r : tensor<?xf32>
}
func.func @map(%n: index) -> tensor<?xf32> {
  %r = soac.map %n () -> tensor<?xf32> lambda() {
    %c = arith.constant 1.0 : f32
    soac.yield %c : f32
  }
  func.return %r : tensor<?xf32>
}
func.func @segmap(%n: index) -> tensor<?x?xindex> {
  %r = soac.segmap thread (%n, %n) -> tensor<?x?xindex> lambda(%i: index, %j: index) {
    soac.yield %i : index
  }
  func.return %r : tensor<?x?xindex>
}
"""


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("iota", (-3,), r"'soac.iota': negative size -3"),
        ("replicate", (-1, 1.0), r"'soac.replicate': negative size -1"),
        ("empty", (-2,), r"'tensor.empty': negative size -2"),
        ("map", (-4,), r"'soac.map': negative width -4"),
        ("segmap", (-4,), r"'soac.segmap': negative dimension -4"),
    ],
)
def test_negative_sizes(run, name, args, message):
    with pytest.raises(SoacRuntimeError, match=LOC + message):
        run(NEGATIVE, *args, name=name)


IRREGULAR = """
func.func @main(%n: index) -> tensor<?x?xi32> {
  %is = soac.iota %n : tensor<?xindex>
  %r = soac.map %n (%is : tensor<?xindex>) -> tensor<?x?xi32> lambda(%i: index) {
    %row = soac.iota %i : tensor<?xi32>
    soac.yield %row : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
"""


def test_irregular_result(run):
    with pytest.raises(
        SoacRuntimeError, match=LOC + r"'soac.map': result #0 is an irregular array: rows of shapes \(0,\) and \(1,\)"
    ):
        run(IRREGULAR, 3)
    (r,) = run(IRREGULAR, 1)
    assert r.shape == (1, 0)


UNKNOWN_OP = """
func.func @main(%x: i32, %y: i32) -> i32 {
  %s, %c = arith.addui_extended %x, %y : i32, i1
  func.return %s : i32
}
"""


def test_unknown_op(run):
    with pytest.raises(
        SoacRuntimeError, match=LOC + r"'arith.addui_extended': no interpreter implementation for 'arith.addui_extended'"
    ):
        run(UNKNOWN_OP, 1, 2)


CALLS = """
func.func @main(%n: index, %xs: tensor<?xf32>, %s: f32) -> f32 {
  func.return %s : f32
}
func.func @negstep(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %r = scf.for %i = %c0 to %n step %c0 iter_args(%a = %c0) -> (index) {
    scf.yield %a : index
  }
  func.return %r : index
}
"""


def test_function_and_argument_errors(run):
    with pytest.raises(SoacRuntimeError, match=r"no function @nope in the module"):
        run(CALLS, name="nope")
    with pytest.raises(SoacRuntimeError, match=r"@main takes 3 arguments, got 2"):
        run(CALLS, 1, np.zeros(1, np.float32))
    with pytest.raises(SoacRuntimeError, match=r"argument #1 of @main: expected tensor<\?xf32>, got int64 array of shape \(3,\)"):
        run(CALLS, 3, np.arange(3), 1.0)
    with pytest.raises(
        SoacRuntimeError, match=r"argument #1 of @main: expected tensor<\?xf32>, got float32 array of shape \(3, 1\)"
    ):
        run(CALLS, 3, np.zeros((3, 1), np.float32), 1.0)
    with pytest.raises(SoacRuntimeError, match=r"argument #1 of @main: expected tensor<\?xf32>, got float64 array"):
        run(CALLS, 3, np.zeros(3), 1.0)
    with pytest.raises(SoacRuntimeError, match=r"argument #0 of @main: expected index, got float 2.5"):
        run(CALLS, 2.5, np.zeros(3, np.float32), 1.0)
    with pytest.raises(SoacRuntimeError, match=r"argument #2 of @main: expected f32, got float32 array of shape \(2,\)"):
        run(CALLS, 3, np.zeros(3, np.float32), np.zeros(2, np.float32))
    with pytest.raises(SoacRuntimeError, match=LOC + r"'scf.for': step 0 is not positive"):
        run(CALLS, 3, name="negstep")


def test_error_without_locations_names_the_function(context):
    module = Parser(context, WIDTH).parse_module()
    with pytest.raises(SoacRuntimeError, match=r"^in @main: 'soac.map': width 2 does not match"):
        run_function(module, "main", [2, np.zeros(1, np.float32)])
