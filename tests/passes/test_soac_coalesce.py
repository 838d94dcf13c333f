"""soac-coalesce keeps results and errors: the FileCheck program on the interpreter before and after the pass, and
soac.lang programs that read through transposes (batched products, W·Aᵀ) on both backends, every version forced,
with no more kernels launched than without the pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soac.lang as sl
from soac.context import make_context
from soac.interpreter import SoacRuntimeError, run_function
from soac.parsing import parse_module
from soac.passes import DEFAULT_PIPELINE
from soac.passes.soac_coalesce import SoacCoalescePass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds

CASES = Path(__file__).resolve().parents[1] / "filecheck" / "passes" / "soac-coalesce" / "transpose.mlir"
WITHOUT = DEFAULT_PIPELINE
WITH = DEFAULT_PIPELINE.replace("soac-flatten{prepare=false},", "soac-flatten{prepare=false},soac-coalesce,")


def _batched_module(coalesced: bool) -> Any:
    chunk = CASES.read_text().split("// -----")[0]
    module = parse_module(make_context(), chunk, "transpose.mlir")
    if coalesced:
        SoacCoalescePass().apply(make_context(), module)
        module.verify()
    return module


@pytest.mark.parametrize("big", [True, False])
def test_batched_products_keep_results_and_size_errors(big: bool) -> None:
    rng = np.random.default_rng(3)
    before, after = _batched_module(False), _batched_module(True)
    for q, n, p, m in [(0, 2, 3, 4), (1, 1, 1, 1), (3, 4, 5, 2)]:
        a = rng.standard_normal((q, n, p)).astype(np.float32)
        b = rng.standard_normal((q, p, m)).astype(np.float32)
        expected = run_function(before, "batched", [a, b, np.bool_(big)])
        got = run_function(after, "batched", [a, b, np.bool_(big)])
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)
        np.testing.assert_allclose(got[0], np.matmul(a, b), rtol=1e-5, atol=1e-6)
    if not big:
        return  # the hand-written segred version reads elements and checks no width (soac-flatten adds an assert)
    a = np.ones((2, 3, 4), np.float32)
    wrong = np.ones((2, 5, 3), np.float32)  # 5 rows where the products need 4
    for module in (before, after):
        with pytest.raises(SoacRuntimeError, match="does not match"):
            run_function(module, "batched", [a, wrong, np.bool_(big)])


def batched(a, b):
    return sl.map(lambda x, y: sl.map(lambda row: sl.map(lambda col: sl.sum(row * col), y.T), x), a, b)


def products_with_transposed(w, a):  # W·A, A's columns as the rows of its transpose
    return sl.map(lambda r: sl.map(lambda c: sl.sum(r * c), a.T), w)


def _kernels(f: Any, args: list[Any], thresholds: dict[str, int]) -> int:
    program = f.specialize(*args).runner
    launched = 0
    original = dict(program.kernels)

    def counting(kernel: Any) -> Any:
        def launch(*launch_args: Any) -> Any:
            nonlocal launched
            launched += 1
            return kernel(*launch_args)

        return launch

    program.kernels = {name: counting(k) for name, k in original.items()}
    try:
        program.call(f.specialize(*args).name, args, thresholds)
    finally:
        program.kernels = original
    return launched


@pytest.mark.parametrize("backend", ["interp", "opencl"])
@pytest.mark.parametrize("program", [batched, products_with_transposed], ids=["batched", "w_at"])
def test_programs_through_transposes_on_both_backends(backend: str, program: Any) -> None:
    rng = np.random.default_rng(5)
    if program is batched:
        args = [rng.standard_normal((7, 3, 5)).astype(np.float32), rng.standard_normal((7, 5, 4)).astype(np.float32)]
        expected = np.matmul(args[0], args[1])
    else:
        args = [rng.standard_normal((6, 9)).astype(np.float32), rng.standard_normal((9, 5)).astype(np.float32)]
        expected = args[0] @ args[1]
    assert WITH != WITHOUT
    f = sl.jit(program, backend=backend, pipeline=WITH)
    optimized = f.specialize(*args).optimized
    names = sorted({t.name for t in list_thresholds(optimized)})
    versions = [dict.fromkeys(names, MAX_THRESHOLD), dict.fromkeys(names, 0)]
    versions += [{**dict.fromkeys(names, MAX_THRESHOLD), name: 0} for name in names]
    unchanged = sl.jit(program, backend=backend, pipeline=WITHOUT)
    for forced in versions:
        g = sl.jit(program, backend=backend, pipeline=WITH, thresholds=forced)
        np.testing.assert_allclose(g(*args), expected, rtol=1e-4, atol=1e-5)
        if backend == "opencl":
            h = sl.jit(program, backend=backend, pipeline=WITHOUT, thresholds=forced)
            assert _kernels(g, args, forced) <= _kernels(h, args, forced)
    np.testing.assert_allclose(unchanged(*args), expected, rtol=1e-4, atol=1e-5)
