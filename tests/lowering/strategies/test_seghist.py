"""`soac.seghist` on OpenCL (PoCL in CI) against the interpreter: both strategies forced (an atomic per point, a
work-item per segment), out-of-bounds bins, empty segments, no rows and no segments; `map (hist ...)` flattened in
every mode with every version forced; and top-level hists of several destinations made by horizontal fusion."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.dialect import ThresholdOp
from soac.interpreter import SoacRuntimeError
from soac.interpreter import run_function as interpret
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.runtime import ProgramError, compile_module, lower_module
from soac.lowering.strategies.histogram import STRATEGIES
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_fuse import SoacFusePass
from soac.passes.thresholds import MAX_THRESHOLD
from xdsl.dialects.func import FuncOp

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from hist_programs import (  # pyright: ignore[reportMissingImports]
    ABS_ADD,
    ADD,
    MAP_HIST_PROGRAMS,
    ROWS,
    SEGHIST_3D,
    map_hist_args,
    seghist_program,
)

SHAPES_2D = [(5, 37), (0, 4), (3, 0), (1, 1), (40, 300)]


def assert_same(got: tuple[object, ...], expected: tuple[object, ...], what: str = "") -> None:
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e), err_msg=f"result #{k} {what}")


@pytest.fixture(params=["atomic", "segment"])
def strategy(request: pytest.FixtureRequest) -> str:
    """soac-to-kernel's `seghist` option."""
    return request.param


def seghist_args(shape: tuple[int, int], seed: int) -> list[object]:
    rng = np.random.default_rng(seed)
    iss = rng.integers(-2, 9, shape).astype(np.int32)  # bins 0..5 inside; -2, -1 and 6..8 outside
    ws = rng.integers(-9, 9, shape).astype(np.int32)
    return [iss, ws, rng.integers(-3, 3, (shape[0], 6)).astype(np.int32), 0]


def test_seghist_with_an_atomic(strategy: str) -> None:
    module = parse_module(make_context(), seghist_program(ADD), "seghist.mlir")
    assert f"main_seghist_{strategy}_0(" in opencl_source(lower_module(module, seghist=strategy))
    program = compile_module(module, seghist=strategy)
    for k, shape in enumerate(SHAPES_2D):
        args = seghist_args(shape, k)
        assert_same(program.call("main", args), interpret(module, "main", args), f"shape {shape}")


def test_seghist_without_an_atomic() -> None:
    module = parse_module(make_context(), seghist_program(ABS_ADD), "seghist.mlir")
    source = opencl_source(lower_module(module))
    assert "main_seghist_segment_0(" in source
    assert "atomic_add" not in source
    program = compile_module(module)
    for k, shape in enumerate(SHAPES_2D):
        args = seghist_args(shape, k)
        assert_same(program.call("main", args), interpret(module, "main", args), f"shape {shape}")
    # where the operator has no atomic, the per-segment kernel still
    assert "main_seghist_segment_0(" in opencl_source(lower_module(module, seghist="atomic"))


def test_an_unknown_strategy_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """As an option, or through the environment variable the runtime maps onto it."""
    module = parse_module(make_context(), seghist_program(ADD), "seghist.mlir")
    with pytest.raises(ValueError, match="soac-to-kernel: seghist must be one of atomic, segment, got 'local'"):
        lower_module(module, seghist="local")
    monkeypatch.setenv("SOAC_SEGHIST", "local")
    with pytest.raises(ValueError, match="SOAC_SEGHIST=local: soac-to-kernel: seghist must be one of atomic, segment"):
        lower_module(module)


def test_two_segment_dimensions_and_two_destinations(strategy: str) -> None:
    module = parse_module(make_context(), SEGHIST_3D, "seghist.mlir")
    program = compile_module(module, seghist=strategy)
    for k, shape in enumerate([(2, 3, 50), (3, 0, 4), (1, 2, 0), (0, 2, 2)]):
        iss = np.random.default_rng(k).integers(-5, 20, shape).astype(np.int32)
        args = [
            iss,
            np.zeros((*shape[:2], 3), np.int32),
            np.arange(shape[0] * shape[1] * 3, dtype=np.int64).reshape(*shape[:2], 3),
        ]
        assert_same(program.call("main", args), interpret(module, "main", args), f"shape {shape}")


def test_destinations_must_have_a_row_per_segment() -> None:
    module = parse_module(make_context(), seghist_program(ADD), "seghist.mlir")
    args = [np.zeros((2, 4), np.int32), np.zeros((2, 4), np.int32), np.zeros((3, 6), np.int32), 0]
    with pytest.raises(SoacRuntimeError) as expected:
        interpret(module, "main", args)
    with pytest.raises(ProgramError) as got:
        compile_module(module).call("main", args)
    assert str(got.value) == str(expected.value)
    expected_problem = r"'soac.seghist': destination #0 has shape \[3, 6\], expected \[2\] segments of 6 bins"
    assert re.fullmatch(rf"seghist.mlir:\d+:\d+: {expected_problem}", str(got.value))


def flattened_module(mode: str):
    text = "\n".join(t.replace("func.func @main(", f"func.func @{name}(", 1) for name, t in sorted(MAP_HIST_PROGRAMS.items()))
    original = parse_module(make_context(), text, "map_hist.mlir")
    ctx = make_context()
    module = parse_module(ctx, text, "map_hist.mlir")
    SoacFlattenPass(mode=mode).apply(ctx, module)  # pyright: ignore[reportArgumentType]
    module.verify()
    return original, module


def every_version(module, name: str) -> list[dict[str, int]]:
    """Every setting of the thresholds of function `name` to 0 (take the guarded version) and to the maximum."""
    function = next(op for op in module.body.block.ops if isinstance(op, FuncOp) and op.sym_name.data == name)
    names = [op.threshold_name for op in function.walk() if isinstance(op, ThresholdOp)]
    return [dict(zip(names, values)) for values in itertools.product([0, MAX_THRESHOLD], repeat=len(names))]


SHAPES = {"map_map": [(2, 3, 40), (0, 2, 3), (2, 0, 3), (2, 2, 0)]}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "seghist_strategy"), [("moderate", ""), ("full", "atomic"), ("full", "segment"), ("incremental", "")]
)
def test_flattened_map_hist(mode: str, seghist_strategy: str) -> None:
    """Each program of `MAP_HIST_PROGRAMS`, flattened, on OpenCL gives the interpreter's results on the original."""
    original, module = flattened_module(mode)
    program = compile_module(module, seghist=seghist_strategy or "atomic")
    for name in sorted(MAP_HIST_PROGRAMS):
        versions = every_version(module, name)
        assert len(versions) == 1, name  # a histogram makes no version worth it (Futhark's heuristics count it 0)
        for k, shape in enumerate(SHAPES.get(name, [(6, 45), (0, 4), (3, 0), (1, 1)])):
            args = map_hist_args(name, shape, k)
            expected = interpret(original, name, args)
            for thresholds in versions:
                assert_same(program.call(name, args, thresholds), expected, f"{name} {shape} {thresholds}")


HIST_PAIR = """
func.func @main(%xs: tensor<?xi32>, %ws: tensor<?xi64>, %bins: index) -> (tensor<?xi32>, tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %lo = arith.constant -9223372036854775808 : i64
  %z64 = arith.constant 0 : i64
  %d1 = soac.replicate %bins, %z : i32 -> tensor<?xi32>
  %d2 = soac.replicate %bins, %lo : i64 -> tensor<?xi64>
  %d3 = soac.replicate %bins, %z64 : i64 -> tensor<?xi64>
  %is = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xindex> lambda(%x: i32) {
    %seven = arith.constant 7 : i32
    %r = arith.remsi %x, %seven : i32
    %i = arith.index_cast %r : i32 to index
    soac.yield %i : index
  }
  %c = soac.hist %n (%is : tensor<?xindex>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
      combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    %one = arith.constant 1 : i32
    soac.yield %i, %one : index, i32
  }
  %mx = soac.hist %n (%is, %ws : tensor<?xindex>, tensor<?xi64>) into(%d2 : tensor<?xi64>) neutral(%lo : i64) -> tensor<?xi64>
      combine(%a: i64, %b: i64) {
    %s = arith.maxsi %a, %b : i64
    soac.yield %s : i64
  } lambda(%i: index, %w: i64) {
    soac.yield %i, %w : index, i64
  }
  %x = soac.hist %n (%is, %ws : tensor<?xindex>, tensor<?xi64>) into(%d3 : tensor<?xi64>) neutral(%z64 : i64) -> tensor<?xi64>
      combine(%a: i64, %b: i64) {
    %s = arith.xori %a, %b : i64
    soac.yield %s : i64
  } lambda(%i: index, %w: i64) {
    soac.yield %i, %w : index, i64
  }
  func.return %c, %mx, %x : tensor<?xi32>, tensor<?xi64>, tensor<?xi64>
}
"""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_fused_hist_pair_with_atomics(strategy: str) -> None:
    """Horizontal fusion makes one hist of three destinations; every strategy applies it with an atomic per
    destination (in local subhistograms too)."""
    original = parse_module(make_context(), HIST_PAIR, "pair.mlir")
    ctx = make_context()
    module = parse_module(ctx, HIST_PAIR, "pair.mlir")
    SoacFusePass().apply(ctx, module)
    hists = [op for op in module.walk() if op.name == "soac.hist"]
    assert [len(op.results) for op in hists] == [3]
    source = opencl_source(lower_module(module, hist=strategy))
    assert f"main_hist_{strategy}_0(" in source
    assert all(f"{atomic}(" in source for atomic in ("atomic_add", "atom_max", "atom_xor"))  # i32 add, i64 max and xor
    program = compile_module(module, hist=strategy)
    rng = np.random.default_rng(3)
    for n, bins in [(5000, 7), (0, 7), (100, 3), (50, 0)]:
        args = [rng.integers(-10, 30, n).astype(np.int32), rng.integers(-(2**40), 2**40, n).astype(np.int64), bins]
        assert_same(program.call("main", args), interpret(original, "main", args), f"n={n} bins={bins}")


def test_f32_sums_by_compare_and_swap(strategy: str) -> None:
    """f32 (+) per segment: a compare-and-swap loop on the bits per point (`atomic`) or plain adds (`segment`);
    integer-valued weights keep the sums exact in any order."""
    module = parse_module(make_context(), seghist_program("%s = arith.addf %a, %b : f32", "f32"), "seghist.mlir")
    assert f"main_seghist_{strategy}_0(" in opencl_source(lower_module(module, seghist=strategy))
    program = compile_module(module, seghist=strategy)
    rng = np.random.default_rng(5)
    for shape in [(7, 500), (0, 3), (2, 0)]:
        args = [
            rng.integers(-2, 9, shape).astype(np.int32),
            rng.integers(-8, 8, shape).astype(np.float32),
            rng.integers(-3, 3, (shape[0], 6)).astype(np.float32),
            np.float32(0),
        ]
        assert_same(program.call("main", args), interpret(module, "main", args), f"shape {shape}")


def test_flattened_map_hist_updates_its_fresh_bins_in_place(strategy: str) -> None:
    """The bins of a flattened map(hist) are a segmap made for the seghist alone: updated in place, not copied."""
    from soac.lowering.kernel import CopyOp

    ctx = make_context()
    original = parse_module(ctx, ROWS, "rows.mlir")
    module = parse_module(ctx, ROWS, "rows.mlir")
    SoacFlattenPass(mode="full").apply(ctx, module)
    assert [op for op in lower_module(module, seghist=strategy).walk() if isinstance(op, CopyOp)] == []
    program = compile_module(module, seghist=strategy)
    for k, shape in enumerate([(6, 45), (0, 4), (3, 0)]):
        args = map_hist_args("rows", shape, k)
        assert_same(program.call("main", args), interpret(original, "main", args), f"shape {shape}")
