"""Histograms whose bins are rows on OpenCL (soac-hist-rows: a hist of the rows' elements, run by every 1-D hist
strategy) against numpy and the interpreter: out-of-range bins, one bin, rows of one element, no rows, rows the
lambda computes (after fusion), a hist of rows per row of a map (flattened or not), and the clear refusal of a
row operator that is not element-wise."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.lowering.runtime.errors import ProgramError
from soac.parsing import parse_module
from soac.passes import DEFAULT_PIPELINE, get_all_passes
from soac.passes.hist_rows import HistRowsError, HistRowsPass
from soac.passes.soac_flatten import SoacFlattenPass
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from hist_programs import (  # pyright: ignore[reportMissingImports]
    ROWS_BY_POSITION,
    ROWS_PER_BATCH,
    ROWS_TWO_DESTINATIONS,
    rows_program,
    rows_reference,
)

SHAPES = [(0, 3, 2), (1, 1, 1), (500, 1, 3), (500, 6, 1), (700, 5, 4), (30, 2, 0), (20, 0, 2)]
"""(rows, bins, row length): no rows, a single bin and element, one bin, rows of one element, rows of none, no bins."""


def parse(text: str) -> ModuleOp:
    return parse_module(make_context(), text, "rows.mlir")


def inputs(shape: tuple[int, int, int], dtype: type, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, k, d = shape
    rng = np.random.default_rng(seed + n + k + d)
    cs = rng.integers(-2, k + 2, n).astype(np.int32)  # some bins below and above the destination: dropped
    ps = rng.integers(-50, 50, (n, d)).astype(dtype)  # integral floats: every order of the sums gives one result
    dest = rng.integers(-5, 5, (k, d)).astype(dtype)
    return cs, ps, dest


@pytest.mark.parametrize("strategy", ["global", "local", "copies", "passes"])
def test_sums_of_rows_by_every_hist_strategy(strategy: str) -> None:
    module = parse(rows_program("f32", "arith.addf"))
    program = compile_module(module, hist=strategy)
    assert f"main_hist_{strategy}_0" in program.source  # the hist of elements runs by the strategy forced
    for shape in SHAPES:
        cs, ps, dest = inputs(shape, np.float32)
        (got,) = program.call("main", [cs, ps, dest, np.float32(0)])
        np.testing.assert_array_equal(got, rows_reference(np.add, dest, cs, ps), err_msg=f"{shape}")
        assert got.dtype == np.float32
        assert got.shape == dest.shape


def test_max_of_rows_against_numpy_and_the_interpreter() -> None:
    module = parse(rows_program("i32", "arith.maxsi"))
    program = compile_module(module)
    for shape in SHAPES:
        cs, ps, dest = inputs(shape, np.int32, seed=1)
        args = [cs, ps, dest, np.int32(-(2**31))]
        (got,) = program.call("main", args)
        (expected,) = interpret(module, "main", args)
        np.testing.assert_array_equal(expected, rows_reference(np.maximum, dest, cs, ps), err_msg=f"{shape}")
        np.testing.assert_array_equal(got, expected, err_msg=f"{shape}")


def test_the_rewrite_keeps_the_interpreters_results() -> None:
    """soac-hist-rows alone, run by the interpreter: the hist of elements gives the hist of rows' results."""
    for computed in (False, True):
        text = rows_program("i32", "arith.addi", computed=computed)
        rewritten = parse(text)
        HistRowsPass().apply(make_context(), rewritten)
        assert "soac.reshape" in str(rewritten)
        for shape in SHAPES:
            args = [*inputs(shape, np.int32, seed=2), np.int32(0)]
            np.testing.assert_array_equal(interpret(rewritten, "main", args)[0], interpret(parse(text), "main", args)[0])


def test_rows_the_lambda_computes_through_the_default_pipeline() -> None:
    """The bin and the row computed in the lambda (a map fused into the hist, then one map of them before the hist
    of elements); the default pipeline as soac.lang runs it."""
    text = rows_program("f32", "arith.addf", computed=True)
    module = parse(text)
    PassPipeline.parse_spec(get_all_passes(), DEFAULT_PIPELINE).apply(make_context(), module)
    program = compile_module(module)
    for shape in SHAPES[:4]:
        cs, ps, dest = inputs(shape, np.float32, seed=3)
        (got,) = program.call("main", [cs, ps, dest, np.float32(0)])
        np.testing.assert_array_equal(got, rows_reference(np.add, dest, cs - 1, ps * ps), err_msg=f"{shape}")


@pytest.mark.parametrize("mode", ["full", "moderate", None])
def test_a_histogram_of_rows_per_row_of_a_map(mode: str | None) -> None:
    """Flattened to a seghist (full), a hist of elements per thread (moderate), or unflattened (soac-to-kernel
    rewrites the hist in the map's lambda, run sequentially per row)."""
    module = parse(ROWS_PER_BATCH)
    if mode is not None:
        SoacFlattenPass(mode).apply(make_context(), module)
    program = compile_module(module)
    rng = np.random.default_rng(7)
    for b, n, k, d in [(3, 40, 3, 2), (2, 0, 2, 3), (1, 25, 1, 1), (4, 60, 5, 3)]:
        css = rng.integers(-1, k + 1, (b, n)).astype(np.int32)
        pss = rng.standard_normal((b, n, d)).astype(np.float32)
        dests = rng.standard_normal((b, k, d)).astype(np.float32)
        (got,) = program.call("main", [css, pss, dests])
        expected = np.stack([rows_reference(np.maximum, dests[i], css[i], pss[i]) for i in range(b)])
        np.testing.assert_array_equal(got, expected, err_msg=f"{(b, n, k, d)}")


def test_an_operator_on_rows_that_is_not_element_wise_is_refused() -> None:
    module = parse(ROWS_BY_POSITION)
    with pytest.raises(HistRowsError, match=r"'soac.hist' at rows.mlir:\d+:\d+: .*its operator must be element-wise"):
        compile_module(module)


def test_two_destinations_of_rows_and_their_lengths_checked() -> None:
    program = compile_module(parse(ROWS_TWO_DESTINATIONS))
    rng = np.random.default_rng(8)
    cs = rng.integers(-1, 5, 300).astype(np.int32)
    ps = rng.integers(-9, 9, (300, 3)).astype(np.float32)
    sums, maxs = np.zeros((4, 3), np.float32), np.full((4, 3), -100, np.float32)
    got_sums, got_maxs = program.call("main", [cs, ps, sums, maxs])
    np.testing.assert_array_equal(got_sums, rows_reference(np.add, sums, cs, ps))
    np.testing.assert_array_equal(got_maxs, rows_reference(np.maximum, maxs, cs, ps))
    message = r"'soac.hist': destination #1 has rows of 2 elements, but the operator combines rows of 3"
    with pytest.raises(ProgramError, match=message):
        program.call("main", [cs, ps, sums, maxs[:, :2].copy()])
    message = r"'soac.hist': the values have rows of 4 elements, but the operator combines rows of 3"
    with pytest.raises(ProgramError, match=message):
        program.call("main", [cs, np.ones((300, 4), np.float32), sums, maxs])
