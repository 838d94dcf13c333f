"""The vector kernel of a function-level segred (`segred_vector.py`) on rows whose lambda reads several arrays at `j`.

Matvec (`a[i, j] * v[j]`, summed) and a tuple (an i32 sum and an f32 maximum) over two matrices, two vectors and a
constant from outside the lambda, on PoCL for every target, against the interpreter and numpy; row lengths that are
multiples of 4 (the vector kernel: rows of one vector per member, two, long rows, rows split over several teams) and
others (teams), single rows and empty ones. A vector longer than the rows is read in its first `n` elements; a shorter
one is the interpreter's error, found once on the host. Reads at the outer index (`xs[i]` of nbody's forces, a scale
`b[i]` per row) are loaded once per row; rows of a 3-D array.
"""

from __future__ import annotations

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import SoacRuntimeError
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import ProgramError
from soac.parsing import parse_module

from ..conftest import assert_same
from .test_device_segmented import compile_for, recording

PROGRAM = """
func.func @main(%a: tensor<?x?xf32>, %xs: tensor<?x?xi32>, %v: tensor<?xf32>, %u: tensor<?xi32>)
    -> (tensor<?xf32>, tensor<?xi32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %izero = arith.constant 0 : i32
  %low = arith.constant -3.0e38 : f32
  %three = arith.constant 3 : i32
  %dots = soac.segred thread (%m, %n) neutral(%zero : f32) -> tensor<?xf32> combine(%x: f32, %y: f32) {
    %s = arith.addf %x, %y : f32
    soac.yield %s : f32
  } lambda(%i: index, %j: index) {
    %e = soac.index %a[%i, %j] : tensor<?x?xf32> -> f32
    %w = soac.index %v[%j] : tensor<?xf32> -> f32
    %p = arith.mulf %e, %w : f32
    soac.yield %p : f32
  }
  %sums, %maxs = soac.segred thread (%m, %n) neutral(%izero, %low : i32, f32) -> (tensor<?xi32>, tensor<?xf32>)
      combine(%p: i32, %q: f32, %r: i32, %t: f32) {
    %s = arith.addi %p, %r : i32
    %g = arith.maximumf %q, %t : f32
    soac.yield %s, %g : i32, f32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xs[%i, %j] : tensor<?x?xi32> -> i32
    %e = soac.index %a[%i, %j] : tensor<?x?xf32> -> f32
    %k = soac.index %u[%j] : tensor<?xi32> -> i32
    %w = soac.index %v[%j] : tensor<?xf32> -> f32
    %xk = arith.muli %x, %k : i32
    %term = arith.addi %xk, %three : i32
    %ew = arith.mulf %e, %w : f32
    %scaled = arith.subf %ew, %w : f32
    soac.yield %term, %scaled : i32, f32
  }
  func.return %dots, %sums, %maxs : tensor<?xf32>, tensor<?xi32>, tensor<?xf32>
}
"""

# (rows, row length): one vector per member, two, long rows, a long row split over teams, a single row of one
# vector; lengths not multiples of 4 (or short and no power of two) go to the teams; no rows, empty rows.
VECTOR_SHAPES = [(9, 64), (5, 256), (3, 1000), (1, 20000), (1, 8)]
OTHER_SHAPES = [(7, 301), (4, 12), (3, 6)]
EMPTY_SHAPES = [(0, 8), (4, 0)]


def arguments(rng: np.random.Generator, m: int, n: int, extra: int = 0) -> list[np.ndarray]:
    a = rng.uniform(-1, 1, (m, n)).astype(np.float32)
    xs = rng.integers(-9, 10, (m, n)).astype(np.int32)
    v = rng.uniform(-1, 1, n + extra).astype(np.float32)
    u = rng.integers(-9, 10, n + extra).astype(np.int32)
    return [a, xs, v, u]


def by_numpy(a: np.ndarray, xs: np.ndarray, v: np.ndarray, u: np.ndarray) -> list[np.ndarray]:
    n = a.shape[1]
    v, u = v[:n], u[:n]
    ew = a.astype(np.float64) * v
    maxs = (a * v - v).max(axis=1, initial=-3.0e38).astype(np.float32) if n else np.full(a.shape[0], -3.0e38, np.float32)
    return [(ew.sum(axis=1)).astype(np.float32), (xs * u + 3).sum(axis=1, dtype=np.int32), maxs]


@pytest.fixture(scope="module")
def module():
    return parse_module(make_context(), PROGRAM, "segmented.mlir")  # the name `compile_for` gives it


@pytest.mark.parametrize(
    "target",
    ["cpu", pytest.param("generic", marks=pytest.mark.slow), pytest.param("emulated-warps", marks=pytest.mark.slow)],
)
def test_rows_read_at_j_match_the_interpreter_and_numpy(rng, module, target: str) -> None:
    program = compile_for(PROGRAM, target)
    launched = recording(program)
    for m, n in VECTOR_SHAPES + OTHER_SHAPES + EMPTY_SHAPES:
        args = arguments(rng, m, n)
        got = program.call("main", args)
        assert_same(by_numpy(*args), got, rtol=1e-4, atol=1e-3)
        if m * n <= 5000:
            assert_same(interpret(module, "main", args), got, rtol=1e-4, atol=1e-3)
        kinds = launched()
        if target != "cpu" and (m, n) in VECTOR_SHAPES:
            assert "vector" in kinds, (m, n, kinds)
        if (m, n) in OTHER_SHAPES:
            assert "vector" not in kinds, (m, n, kinds)
    if target == "cpu":  # few long rows: the vector kernel on the CPU too
        program.call("main", arguments(rng, 1, 20000))
        assert "vector" in launched()


@pytest.mark.parametrize(
    "options",
    [{"seg_uniform_rounds": False}, {"seg_streams": 3}, {"seg_streams": 8, "segred": "teams"}],
    ids=["rounds-before-issue-27", "streams-3", "teams-streams-8"],
)
def test_fold_rounds_and_streams_keep_results(rng, module, options: dict[str, object]) -> None:
    """The strided folds' options (`seg-uniform-rounds`, `seg-streams`) on rows whose members have whole rounds,
    partial ones and none (1000 = 250 vectors: 7 or 8 a member of 32), on the vector kernel and the teams."""
    program = compile_for(PROGRAM, "generic", **options)  # pyright: ignore[reportArgumentType]
    for m, n in VECTOR_SHAPES + OTHER_SHAPES + [(2, 4096)]:
        args = arguments(rng, m, n)
        assert_same(by_numpy(*args), program.call("main", args), rtol=1e-4, atol=1e-3)


def test_a_longer_vector_is_read_in_its_first_elements(rng, module) -> None:
    program = compile_for(PROGRAM, "generic")
    args = arguments(rng, 2, 512, extra=5)
    assert_same(interpret(module, "main", args), program.call("main", args), rtol=1e-4, atol=1e-3)


def test_a_shorter_vector_is_the_interpreters_error_found_on_the_host(rng, module) -> None:
    args = arguments(rng, 3, 64, extra=-4)
    with pytest.raises(SoacRuntimeError) as expected:
        interpret(module, "main", args)
    with pytest.raises(ProgramError) as got:
        compile_for(PROGRAM, "generic").call("main", args)
    assert str(got.value) == str(expected.value)
    assert "'soac.index': index 60 is out of bounds for dimension 0 of size 60" in str(got.value)


def test_forced_teams_check_a_shorter_vector_in_the_kernel(rng, module) -> None:
    """Without the vector kernel's host check (segred=teams), the teams kernel still checks `v[j]`: the same error."""
    args = arguments(rng, 3, 64, extra=-4)
    with pytest.raises(SoacRuntimeError) as expected:
        interpret(module, "main", args)
    with pytest.raises(ProgramError) as got:
        compile_for(PROGRAM, "cpu", segred="teams").call("main", args)
    location, problem = str(expected.value).split(" index ")[0], "is out of bounds for dimension 0 of size 60"
    assert str(got.value).startswith(location)
    assert problem in str(got.value)


THREE_DIMENSIONAL = """
func.func @main(%a: tensor<?x?x?xf32>, %v: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %q = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %n = tensor.dim %a, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant 0.0 : f32
  %r = soac.segred thread (%p, %q, %n) neutral(%zero : f32) -> tensor<?x?xf32> combine(%x: f32, %y: f32) {
    %s = arith.addf %x, %y : f32
    soac.yield %s : f32
  } lambda(%i: index, %k: index, %j: index) {
    %e = soac.index %a[%i, %k, %j] : tensor<?x?x?xf32> -> f32
    %w = soac.index %v[%j] : tensor<?xf32> -> f32
    %d = arith.subf %e, %w : f32
    %s = arith.mulf %d, %d : f32
    soac.yield %s : f32
  }
  func.return %r : tensor<?x?xf32>
}
"""


@pytest.mark.slow
def test_rows_of_a_three_dimensional_array(rng) -> None:
    """Segments over two outer dimensions: a squared distance of every row of `a[i, k]` to `v`."""
    program = compile_for(THREE_DIMENSIONAL, "generic")
    launched = recording(program)
    for shape in [(2, 3, 256), (3, 2, 12), (1, 1, 4096)]:
        a = rng.uniform(-1, 1, shape).astype(np.float32)
        v = rng.uniform(-1, 1, shape[-1]).astype(np.float32)
        (got,) = program.call("main", [a, v])
        np.testing.assert_allclose(got, ((a.astype(np.float64) - v) ** 2).sum(axis=2), rtol=1e-4)
        assert ("vector" in launched()) == (shape[-1] != 12)


FORCES = """
func.func @main(%xs: tensor<?xf32>, %ys: tensor<?xf32>, %ms: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %soft = arith.constant 0.01 : f32
  %fx, %fy = soac.segred thread (%n, %n) neutral(%zero, %zero : f32, f32) -> (tensor<?xf32>, tensor<?xf32>)
      combine(%a: f32, %b: f32, %c: f32, %d: f32) {
    %s = arith.addf %a, %c : f32
    %t = arith.addf %b, %d : f32
    soac.yield %s, %t : f32, f32
  } lambda(%i: index, %j: index) {
    %xj = soac.index %xs[%j] : tensor<?xf32> -> f32
    %xi = soac.index %xs[%i] : tensor<?xf32> -> f32
    %yj = soac.index %ys[%j] : tensor<?xf32> -> f32
    %yi = soac.index %ys[%i] : tensor<?xf32> -> f32
    %mj = soac.index %ms[%j] : tensor<?xf32> -> f32
    %dx = arith.subf %xj, %xi : f32
    %dy = arith.subf %yj, %yi : f32
    %dx2 = arith.mulf %dx, %dx : f32
    %dy2 = arith.mulf %dy, %dy : f32
    %r2 = arith.addf %dx2, %dy2 : f32
    %r2s = arith.addf %r2, %soft : f32
    %w = arith.divf %mj, %r2s : f32
    %px = arith.mulf %dx, %w : f32
    %py = arith.mulf %dy, %w : f32
    soac.yield %px, %py : f32, f32
  }
  func.return %fx, %fy : tensor<?xf32>, tensor<?xf32>
}
"""


@pytest.mark.slow
@pytest.mark.parametrize("target", ["generic", "emulated-warps"])
def test_all_pairs_forces_read_each_body_once_per_row(rng, target: str) -> None:
    """nbody's flattened step: `xs[j]` along the rows (vector loads), `xs[i]` once per row, a pair of sums."""
    module = parse_module(make_context(), FORCES, "segmented.mlir")
    program = compile_for(FORCES, target)
    launched = recording(program)
    for n in (64, 256, 1000, 301):
        xs, ys, ms = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(3))
        got = program.call("main", [xs, ys, ms])
        dx, dy = xs[None, :] - xs[:, None], ys[None, :] - ys[:, None]
        w = ms[None, :] / (dx * dx + dy * dy + np.float32(0.01))
        assert_same([(dx * w).sum(axis=1), (dy * w).sum(axis=1)], got, rtol=1e-3, atol=1e-2)
        if n <= 256:
            assert_same(interpret(module, "main", [xs, ys, ms]), got, rtol=1e-3, atol=1e-2)
        assert ("vector" in launched()) == (n % 4 == 0)


SCALED_ROWS = """
func.func @main(%a: tensor<?x?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xi32>
  %n = tensor.dim %a, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %r = soac.segred thread (%m, %n) neutral(%zero : i32) -> tensor<?xi32> combine(%x: i32, %y: i32) {
    %s = arith.maxsi %x, %y : i32
    soac.yield %s : i32
  } lambda(%i: index, %j: index) {
    %e = soac.index %a[%i, %j] : tensor<?x?xi32> -> i32
    %w = soac.index %b[%i] : tensor<?xi32> -> i32
    %p = arith.muli %e, %w : i32
    soac.yield %p : i32
  }
  func.return %r : tensor<?xi32>
}
"""


def test_a_row_scale_read_once_per_row(rng) -> None:
    """`b[i]` of a vector as long as the rows or longer: the interpreter's results; shorter: its error, from the host."""
    module = parse_module(make_context(), SCALED_ROWS, "segmented.mlir")
    program = compile_for(SCALED_ROWS, "generic")
    launched = recording(program)
    for m, n, extra in [(5, 256, 0), (3, 64, 2), (4, 0, 0)]:
        args = [rng.integers(-9, 10, (m, n)).astype(np.int32), rng.integers(-9, 10, m + extra).astype(np.int32)]
        assert_same(interpret(module, "main", args), program.call("main", args))
        assert ("vector" in launched()) == (n > 0)
    args = [rng.integers(-9, 10, (6, 64)).astype(np.int32), rng.integers(-9, 10, 4).astype(np.int32)]
    with pytest.raises(SoacRuntimeError) as expected:
        interpret(module, "main", args)
    with pytest.raises(ProgramError) as got:
        program.call("main", args)
    assert str(got.value) == str(expected.value)
    assert "index 4 is out of bounds for dimension 0 of size 4" in str(got.value)
