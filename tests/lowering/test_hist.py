"""`soac.hist` on OpenCL against the interpreter: every atomic operator on i32 and i64, out-of-bounds and
colliding bins, histograms in the rows of a map (any operator), and a clear refusal of what is not lowered yet."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.conversion.kernel_builder import LoweringError
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.runtime import compile_module, lower_module
from soac.parsing import parse_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hist_programs import ABS_SUM, ARGMAX, ROWS, hist_program  # pyright: ignore[reportMissingImports]

ATOMIC_OPS = {
    "arith.addi": "atomic_add",
    "arith.minsi": "atomic_min",
    "arith.maxsi": "atomic_max",
    "arith.minui": "atomic_min",
    "arith.maxui": "atomic_max",
    "arith.andi": "atomic_and",
    "arith.ori": "atomic_or",
    "arith.xori": "atomic_xor",
}


def same_results(text: str, args: list[object]) -> tuple[object, ...]:
    module = parse_module(make_context(), text, "hist.mlir")
    expected = interpret(module, "main", args)
    got = compile_module(module).call("main", args)
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))
    return expected


@pytest.fixture(params=["global", "local"])
def strategy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each lowering strategy of a top-level histogram, forced (histogram.py's SOAC_HIST)."""
    monkeypatch.setenv("SOAC_HIST", request.param)
    return request.param


@pytest.mark.parametrize("op", sorted(ATOMIC_OPS))
@pytest.mark.parametrize("element", ["i32", "i64"])
def test_atomic_operators(op: str, element: str, strategy: str) -> None:
    dtype = np.int32 if element == "i32" else np.int64
    rng = np.random.default_rng(len(op))
    is_ = rng.integers(-3, 40, 5000).astype(np.int32)
    ws = rng.integers(-(2**20), 2**20, 5000).astype(dtype)
    bins = rng.integers(-100, 100, 37).astype(dtype)
    info = np.iinfo(dtype)
    neutral = {"arith.andi": -1, "arith.minui": -1, "arith.minsi": info.max, "arith.maxsi": info.min}.get(op, 0)
    same_results(hist_program(element, op, "i32"), [is_, ws, bins, dtype(neutral)])


def test_float_sums_by_compare_and_swap(strategy: str) -> None:
    """f32 (+) has no OpenCL atomic: a compare-and-swap loop on the bits. Integer-valued weights keep the sums exact
    whatever order the rows come in."""
    rng = np.random.default_rng(7)
    is_ = rng.integers(-3, 5000, 40000).astype(np.int32)
    ws = rng.integers(-8, 8, 40000).astype(np.float32)
    for bins in (16, 5000):
        start = rng.integers(-5, 5, bins).astype(np.float32)
        same_results(hist_program("f32", "arith.addf", "i32"), [is_ % (bins + 3) - 1, ws, start, np.float32(0)])


def test_atomics_in_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOAC_HIST", "global")
    module = parse_module(make_context(), hist_program("i32", "arith.maxui", "i32"), "hist.mlir")
    source = opencl_source(lower_module(module))
    assert "atomic_max((volatile __global uint*)&h[j], (uint)w)" in source  # umax: the unsigned atomic
    assert "const bool in_bounds = (ulong)j < (ulong)bins_d0;" in source  # unsigned: negative bins are out


@pytest.mark.parametrize("bins", [1, 4096, 4097, 20000])
def test_bin_counts_around_the_local_memory_capacity(bins: int, strategy: str) -> None:
    """Up to LOCAL_BINS bins the local strategy uses subhistograms; beyond, the same kernel's global path."""
    rng = np.random.default_rng(bins)
    is_ = rng.integers(-5, bins + 5, 30000).astype(np.int32)
    (h,) = same_results(hist_program("i32", "arith.addi", "i32"), [is_, np.ones(30000, np.int32), np.zeros(bins, np.int32), 0])
    inside = is_[(is_ >= 0) & (is_ < bins)]
    np.testing.assert_array_equal(h, np.bincount(inside, minlength=bins))


def test_the_strategy_shows_in_the_kernel(strategy: str) -> None:
    module = parse_module(make_context(), hist_program("i32", "arith.addi", "i32"), "hist.mlir")
    source = opencl_source(lower_module(module))
    assert f"__kernel void main_hist_{strategy}_0(" in source
    assert ("__local int sub[4096];" in source) == (strategy == "local")


def test_an_unknown_strategy_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOAC_HIST", "shared")
    module = parse_module(make_context(), hist_program("i32", "arith.addi", "i32"), "hist.mlir")
    with pytest.raises(LoweringError, match="SOAC_HIST must be one of global, local, got 'shared'"):
        lower_module(module)


def test_every_row_in_one_bin_and_none_in_bounds(strategy: str) -> None:
    program = hist_program("i32", "arith.addi", "i32")
    ones = np.ones(10000, np.int32)
    (h,) = same_results(program, [np.full(10000, 3, np.int32), ones, np.zeros(4, np.int32), np.int32(0)])
    np.testing.assert_array_equal(h, [0, 0, 0, 10000])
    (h,) = same_results(program, [np.full(100, -1, np.int32), ones[:100], np.arange(4, dtype=np.int32), np.int32(0)])
    np.testing.assert_array_equal(h, [0, 1, 2, 3])
    same_results(program, [np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32), np.int32(0)])


@pytest.mark.parametrize("shape", [(5, 40), (0, 3), (2, 0)])
def test_histograms_in_the_rows_of_a_map(shape: tuple[int, int]) -> None:
    iss = np.random.default_rng(9).integers(-2, 8, shape).astype(np.int32)
    same_results(ROWS, [iss, np.int64(6)])


@pytest.mark.parametrize(
    ("text", "args"),
    [
        (ABS_SUM, [np.zeros(3, np.int32), np.zeros(3, np.int32), np.zeros(2, np.int32)]),
        (ARGMAX, [np.zeros(3, np.int32), np.zeros(3, np.float32), np.zeros(2, np.float32), np.zeros(2, np.int32)]),
        (hist_program("f32", "arith.maximumf"), [np.zeros(3, np.int64), np.zeros(3, np.float32), np.zeros(2, np.float32), 0.0]),
    ],
)
def test_operators_without_an_atomic_are_refused_at_the_top_level(text: str, args: list[object]) -> None:
    module = parse_module(make_context(), text, "hist.mlir")
    with pytest.raises(LoweringError, match=r"'soac.hist' at hist.mlir:\d+:\d+: a histogram outside a lambda needs an operator"):
        lower_module(module)
