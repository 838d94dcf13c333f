"""Function-level segred and segscan (run by the whole device) on OpenCL (PoCL) against the interpreter.

Every strategy is reached (the CPU's `auto` in the quick tier, the others in the slow one): chosen by the host from
the segment length (`auto`, on the CPU, generic-GPU and emulated-warp targets) and forced through soac-to-kernel's
`segred`/`segscan` options. The shapes are one segment of 100000 (split over several groups, with the second
stage), 16 of 65536, 1000 of 7, 300 of 3 (a work-item per segment), no segments, and empty segments; the operators
are a plain sum (the vector kernel), a non-commutative one (the last non-zero value), and a pair (max and its index)
with a map-out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.conversion.kernel_builder import LoweringError
from soac.lowering.runtime import Program, compile_module
from soac.parsing import parse_module

from ..conftest import assert_same

SHAPES = [(1, 100000), (16, 65536), (1000, 7), (300, 3), (0, 5), (4, 0), (0, 0)]

HEADER = """
func.func @main(%xss: tensor<?x?xi32>, %fss: tensor<?x?xf32>) -> (RESULTS) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %low = arith.constant -3.0e38 : f32
  %far = arith.constant 2147483647 : i32
"""

LAST_NONZERO = """
    %z = arith.cmpi eq, %b, %zero : i32
    %l = arith.select %z, %a, %b : i32
"""

SEGRED = (
    HEADER.replace("RESULTS", "tensor<?xi32>, tensor<?xi32>, tensor<?xf32>, tensor<?xi32>, tensor<?x?xf32>")
    + """
  %sums = soac.segred thread (%m, %n) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
    soac.yield %x : i32
  }
  %last, %max, %arg, %twice = soac.segred thread (%m, %n) neutral(%zero, %low, %far : i32, f32, i32)
      -> (tensor<?xi32>, tensor<?xf32>, tensor<?xi32>, tensor<?x?xf32>)
      combine(%a: i32, %av: f32, %ai: i32, %b: i32, %bv: f32, %bi: i32) {"""
    + LAST_NONZERO
    + """
    %gt = arith.cmpf ogt, %bv, %av : f32
    %eq = arith.cmpf oeq, %bv, %av : f32
    %lt = arith.cmpi slt, %bi, %ai : i32
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %v = arith.select %take, %bv, %av : f32
    %k = arith.select %take, %bi, %ai : i32
    soac.yield %l, %v, %k : i32, f32, i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
    %f = soac.index %fss[%i, %j] : tensor<?x?xf32> -> f32
    %j32 = arith.index_cast %j : index to i32
    %f2 = arith.addf %f, %f : f32
    soac.yield %x, %f, %j32, %f2 : i32, f32, i32, f32
  }
  func.return %sums, %last, %max, %arg, %twice : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>, tensor<?xi32>, tensor<?x?xf32>
}
"""
)

SEGSCAN = (
    HEADER.replace("RESULTS", "tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xf32>")
    + """
  %sums = soac.segscan thread (%m, %n) neutral(%zero : i32) -> tensor<?x?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
    soac.yield %x : i32
  }
  %lasts, %tsums, %twice = soac.segscan thread (%m, %n) neutral(%zero, %zero : i32, i32)
      -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xf32>) combine(%a: i32, %p: i32, %b: i32, %q: i32) {"""
    + LAST_NONZERO
    + """
    %s = arith.addi %p, %q : i32
    soac.yield %l, %s : i32, i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
    %f = soac.index %fss[%i, %j] : tensor<?x?xf32> -> f32
    %three = arith.constant 3 : i32
    %t = arith.muli %x, %three : i32
    %f2 = arith.addf %f, %f : f32
    soac.yield %x, %t, %f2 : i32, i32, f32
  }
  func.return %sums, %lasts, %tsums, %twice : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xf32>
}
"""
)


def group_size(target: str) -> int:
    return 32 if target == "emulated-warps" else 64  # emulated warps: a work-group is one warp


def compile_for(text: str, target: str, **strategy: str) -> Program:
    """Compiled for PoCL; on `emulated-warps` (shuffles through local memory) every work-group must be one warp, as
    `test_lookback_warps.py` makes the look-back scan's."""
    module = parse_module(make_context(), text, "segmented.mlir")
    if target == "emulated-warps":
        tiles = {"scan_group": 32, "scan_items": 8}
        return compile_module(module, "pocl", group_size=32, max_groups=8, target=target, **tiles, **strategy)
    return compile_module(module, "pocl", group_size=group_size(target), max_groups=8, target=target, **strategy)


def recording(program: Program) -> Callable[[], set[str]]:
    """Makes `program` record its launches; the returned function gives the kinds launched since its last call
    (`teams` for `main_segred_teams_0`, `scan_lookback` for `main_scan_lookback_0`)."""
    launched: set[str] = set()

    def wrap(name: str, kernel: object) -> Callable[..., object]:
        def launch(*args: object) -> object:
            launched.add(re.sub(r"^main_(seg(red|scan)_)?|_\d+$", "", name))
            return kernel(*args)  # pyright: ignore[reportCallIssue]

        return launch

    program.kernels = {name: wrap(name, k) for name, k in program.kernels.items()}  # pyright: ignore[reportAttributeAccessIssue]

    def since() -> set[str]:
        kinds = set(launched)
        launched.clear()
        return kinds

    return since


def arguments(rng: np.random.Generator, m: int, n: int) -> list[np.ndarray]:
    xss = rng.integers(-3, 4, (m, n)).astype(np.int32)  # zeros are frequent: the last non-zero value moves
    fss = rng.uniform(-1, 1, (m, n)).astype(np.float32)
    return [xss, fss]


def check_shapes(text: str, program: Program, rng: np.random.Generator, shapes=SHAPES) -> dict[tuple[int, int], set[str]]:
    """Every shape gives the interpreter's results; returns the kernel kinds each shape launched."""
    module = parse_module(make_context(), text, "segmented.mlir")
    launched = recording(program)
    kinds: dict[tuple[int, int], set[str]] = {}
    for m, n in shapes:
        args = arguments(rng, m, n)
        assert_same(interpret(module, "main", args), program.call("main", args))
        kinds[m, n] = launched()
    return kinds


@pytest.mark.parametrize(
    ("target", "strategy", "expected"),
    [
        # CPUs: a work-item per segment for tiny segments or as many segments as groups (8), else teams.
        ("cpu", "auto", {(1, 100000): {"vector", "teams", "parts"}, (16, 65536): {"thread"}, (1000, 7): {"thread"}}),
        pytest.param(
            "cpu", "thread", {(1, 100000): {"thread"}, (16, 65536): {"thread"}, (1000, 7): {"thread"}}, marks=pytest.mark.slow
        ),
        pytest.param(
            "cpu", "teams", {(1, 100000): {"teams", "parts"}, (16, 65536): {"teams"}, (300, 3): {"teams"}}, marks=pytest.mark.slow
        ),
        # GPUs: rows of 32-bit values in 16-byte vectors where the length suits, a second stage for few long rows.
        pytest.param(
            "generic",
            "auto",
            {(1, 100000): {"vector", "teams", "parts"}, (1000, 7): {"teams"}, (300, 3): {"thread"}},
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "emulated-warps",
            "auto",
            {(16, 65536): {"vector", "teams"}, (1000, 7): {"teams"}, (300, 3): {"thread"}},
            marks=pytest.mark.slow,
        ),
    ],
)
def test_segred_strategies(rng, target: str, strategy: str, expected: dict[tuple[int, int], set[str]]) -> None:
    kinds = check_shapes(SEGRED, compile_for(SEGRED, target, segred=strategy), rng)
    assert {shape: kinds[shape] for shape in expected} == expected
    assert kinds[0, 5] <= {"thread", "teams"}  # no segments: nothing, or a launch whose work-items find none


@pytest.mark.parametrize(
    ("target", "strategy", "expected"),
    [
        # CPUs (no look-back): a work-item per segment for short ones (2n < 64) or 8 segments or more, else a group.
        ("cpu", "auto", {(1, 100000): {"group"}, (16, 65536): {"thread"}, (1000, 7): {"thread"}}),
        pytest.param("cpu", "group", {(1, 100000): {"group"}, (1000, 7): {"group"}}, marks=pytest.mark.slow),
        pytest.param("cpu", "thread", {(1, 100000): {"thread"}, (1000, 7): {"thread"}}, marks=pytest.mark.slow),
        pytest.param(
            "generic", "auto", {(1, 100000): {"group"}, (16, 65536): {"group"}, (1000, 7): {"thread"}}, marks=pytest.mark.slow
        ),
        # Look-back targets: one flat scan whatever the segment length, forced; `auto` takes it only for one op whose
        # neutral element is its identity (the sum here, not the other scan), as the flat scan starts each segment
        # with its first element.
        pytest.param(
            "emulated-warps",
            "lookback",
            {(1, 100000): {"scan_init", "scan_lookback"}, (1000, 7): {"scan_init", "scan_lookback"}},
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "emulated-warps",
            "auto",
            {(1, 100000): {"scan_init", "scan_lookback", "group"}, (1000, 7): {"scan_init", "scan_lookback", "thread"}},
            marks=pytest.mark.slow,
        ),
    ],
)
def test_segscan_strategies(rng, target: str, strategy: str, expected: dict[tuple[int, int], set[str]]) -> None:
    kinds = check_shapes(SEGSCAN, compile_for(SEGSCAN, target, segscan=strategy), rng)
    assert {shape: kinds[shape] for shape in expected} == expected


def test_forcing_a_look_back_segscan_where_there_is_none_is_an_error() -> None:
    with pytest.raises(LoweringError, match=r"segmented.mlir:\d+:\d+: .*segscan=lookback needs the `lookback` scan"):
        compile_for(SEGSCAN, "cpu", segscan="lookback")


def test_unknown_strategies_are_named() -> None:
    with pytest.raises(ValueError, match="soac-to-kernel: segred must be one of auto, thread, teams, got 'vector'"):
        compile_for(SEGRED, "cpu", segred="vector")
    with pytest.raises(ValueError, match="soac-to-kernel: segscan must be one of auto, thread, group, lookback, got 'x'"):
        compile_for(SEGSCAN, "cpu", segscan="x")


ONE_SEGMENT = (
    """
func.func @main(%xs: tensor<?xi32>) -> (i32, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %s = soac.segred thread (%n) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {"""
    + LAST_NONZERO.replace("%l", "%t")
    + """    soac.yield %t : i32
  } lambda(%j: index) {
    %x = soac.index %xs[%j] : tensor<?xi32> -> i32
    soac.yield %x : i32
  }
  %p = soac.segscan thread (%n) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %t = arith.addi %a, %b : i32
    soac.yield %t : i32
  } lambda(%j: index) {
    %x = soac.index %xs[%j] : tensor<?xi32> -> i32
    soac.yield %x : i32
  }
  func.return %s, %p : i32, tensor<?xi32>
}
"""
)


@pytest.mark.parametrize("target", ["cpu", "generic"])
def test_one_dimensional_segmented_ops_are_one_segment(rng, target: str) -> None:
    """A segred or segscan over one dimension: a single segment (a scalar result), none, tiny or split."""
    module = parse_module(make_context(), ONE_SEGMENT, "segmented.mlir")
    program = compile_for(ONE_SEGMENT, target)
    for n in (0, 3, 100000):
        xs = rng.integers(-2, 3, n).astype(np.int32)
        assert_same(interpret(module, "main", [xs]), program.call("main", [xs]))


RUNNING_MAX_FROM_ONE = """
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %one = arith.constant 1.0 : f32
  %r = soac.segscan thread (%n, %m) neutral(%one : f32) -> tensor<?x?xf32> combine(%a: f32, %b: f32) {
    %s = arith.maximumf %a, %b : f32
    soac.yield %s : f32
  } lambda(%i: index, %j: index) {
    %v = soac.index %x[%i, %j] : tensor<?x?xf32> -> f32
    soac.yield %v : f32
  }
  func.return %r : tensor<?x?xf32>
}
"""


@pytest.mark.slow
def test_a_neutral_element_that_is_none_gives_the_interpreters_results(rng) -> None:
    """LocVolCalib's `scan maximum 1 ...` (1 is no identity of max): on a look-back target `auto` must not take the
    flat look-back scan, which starts each segment without the neutral element (found on the H200)."""
    module = parse_module(make_context(), RUNNING_MAX_FROM_ONE, "running_max.mlir")
    options = {"scan": "lookback", "target": "emulated-warps", "group_size": 32, "scan_group": 32, "scan_items": 8}
    program = compile_module(module, "pocl", **options)
    for shape in [(3, 5), (4, 300), (40, 7)]:
        x = rng.uniform(-2, 2, shape).astype(np.float32)
        (expected,) = interpret(module, "main", [x])
        (got,) = program.call("main", [x])
        np.testing.assert_array_equal(got, expected)
