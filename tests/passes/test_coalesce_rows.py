"""soac-coalesce's rows rule (the rows a thread-level kernel writes come from a kernel of their own) keeps results:
rows.mlir's kernels after the pass against the interpreter before it, on the interpreter and on PoCL (the `generic`
and `cpu` targets), awkward sizes (no rows, 1, primes, the tiled transpose's 32 +- 1); the check it keeps for a row
of the wrong length; and soac.lang's softmax and layernorm through the GPU pipeline, the outer-parallel version
forced, whose kernels no longer build rows in scratch memory."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
import soac.lang as sl
from soac.context import make_context
from soac.interpreter import SoacRuntimeError, run_function
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes import GPU_PIPELINE, TILED_PIPELINE
from soac.passes.soac_coalesce import SoacCoalescePass
from soac.passes.thresholds import MAX_THRESHOLD

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "real"))
from suite import layernorm as layernorm_program  # pyright: ignore[reportMissingImports]
from suite import softmax as softmax_program  # pyright: ignore[reportMissingImports]

softmax, numpy_softmax = softmax_program.softmax, softmax_program.peer(np)
layernorm, numpy_layernorm = layernorm_program.layernorm, layernorm_program.peer(np)

CASES = Path(__file__).resolve().parents[1] / "filecheck" / "passes" / "soac-coalesce" / "rows.mlir"
SHAPES = [(0, 5), (1, 1), (3, 1), (37, 31), (33, 32), (31, 33)]
OUTER = {"suff_outer_par_0": 0}
WALKS_OVER_COPIES = f"{TILED_PIPELINE},soac-coalesce{{read-through=false row-tiles=false}}"
"""The GPU pipeline with the first kernel's walks over the transposed copy (no row tiles: `coalesce_row_tiles.py`)."""


def _chunk(k: int) -> tuple[object, object]:
    """rows.mlir's `k`-th case before and after `soac-coalesce{read-through=false}`."""
    text = CASES.read_text().split("// -----")[k]
    before = parse_module(make_context(), text, "rows.mlir")
    after = parse_module(make_context(), text, "rows.mlir")
    SoacCoalescePass(read_through=False).apply(make_context(), after)
    after.verify()
    return before, after


@pytest.mark.parametrize("target", ["generic", "cpu"])
def test_softmax_and_affine_kernels_on_both_backends(target: str) -> None:
    """@softmax (a recomputed map-out), @affine (an array made before the kernel, an i32 iota, the work-item's
    index), @map_out (a redomap's map-out yielded as it is, beside a map's row) and @only_rows (no first kernel left)
    after the split, on OpenCL and the interpreter, against the interpreter before it."""
    rng = np.random.default_rng(5)
    for k, name in [(0, "softmax"), (1, "affine"), (2, "map_out"), (4, "only_rows")]:
        before, after = _chunk(k)
        assert re.search(r"soac.segmap thread \(%n, %w\)", str(after)), "the rows get a kernel of their own"
        program = compile_module(after, target=target)
        for shape in SHAPES:
            x = rng.standard_normal(shape).astype(np.float32)
            args = [x] if name in ("softmax", "only_rows") else [x, rng.standard_normal(shape[1]).astype(np.float32)]
            expected = run_function(before, name, args)
            for got in (run_function(after, name, args), program.call(name, args)):
                for g, e in zip(got, expected):
                    np.testing.assert_allclose(np.asarray(g), e, rtol=1e-5, atol=1e-5, err_msg=f"{name} {shape}")


def test_a_row_of_the_wrong_length_is_still_reported() -> None:
    """@affine with %gamma one element short: the first kernel's check reports the map's width and %gamma's length,
    as the map's own check did before the split (interpreter and OpenCL); with no rows, nothing is checked."""
    before, after = _chunk(1)
    program = compile_module(after, target="generic")
    x, gamma = np.ones((4, 6), np.float32), np.ones(5, np.float32)
    for run in (lambda: run_function(before, "affine", [x, gamma]), lambda: run_function(after, "affine", [x, gamma])):
        with pytest.raises(SoacRuntimeError, match=r"'soac.map': width 6 does not match the outer size 5 of input #1"):
            run()
    with pytest.raises(SoacRuntimeError, match=r"'soac.map': width 6 does not match the outer size 5 of input #1"):
        program.call("affine", [x, gamma])
    (empty,) = program.call("affine", [np.ones((0, 6), np.float32), gamma])
    assert empty.shape == (0, 6)


@pytest.mark.parametrize("program", ["softmax", "layernorm"])
def test_outer_parallel_version_through_the_gpu_pipeline(program: str) -> None:
    """soac.lang's GPU pipeline (tiling on, as soac.lang runs it on GPUs) on PoCL, the outer-parallel version forced,
    awkward sizes, against numpy: its kernel yields scalars only (no row built in scratch memory)."""
    rng = np.random.default_rng(9)
    f = sl.jit(softmax if program == "softmax" else layernorm, pipeline=GPU_PIPELINE, lowering={"target": "generic"})
    probe = rng.standard_normal((4, 9)).astype(np.float32)
    probe_args = [probe] if program == "softmax" else [probe, probe[0], probe[1]]
    compiled = f.specialize(*probe_args)
    text = compiled.optimized_text
    assert re.search(r"soac.segmap thread \(%x_len\) -> \(tensor<\?xf32>, tensor<\?xf32>", text), text
    assert not re.search(r"soac.segmap thread \(%x_len\) -> \(?tensor<\?x\?xf32>", text), "no kernel writes rows"
    assert "scratch" not in f.opencl(*probe_args)
    for shape in [(1, 1), (37, 31), (33, 32), (5, 64)]:
        x = rng.standard_normal(shape).astype(np.float32)
        if program == "softmax":
            got, expected = compiled.run([x], OUTER), numpy_softmax(x)
        else:
            gamma, beta = rng.uniform(0.5, 1.5, shape[1]).astype(np.float32), rng.standard_normal(shape[1]).astype(np.float32)
            got, expected = (compiled.run([x, gamma, beta], OUTER),), (numpy_layernorm(x, gamma, beta),)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(np.asarray(g), e, rtol=1e-4, atol=1e-5, err_msg=f"{program} {shape}")
    never = {"suff_outer_par_0": MAX_THRESHOLD}
    x = rng.standard_normal((6, 7)).astype(np.float32)
    if program == "softmax":
        np.testing.assert_allclose(compiled.run([x], never)[0], numpy_softmax(x)[0], rtol=1e-4, atol=1e-6)


def test_row_unroll_hint_builds_and_keeps_results() -> None:
    """`row-unroll=4`: the first kernel's walks along its rows (over the copy, row tiles off) carry `#pragma unroll 4`
    right before their loops (after the accumulators' declarations, where a C compiler takes it), and PoCL builds them;
    results as numpy's."""
    f = sl.jit(softmax, pipeline=WALKS_OVER_COPIES, lowering={"target": "generic", "row-unroll": 4})
    x = np.random.default_rng(3).standard_normal((37, 31)).astype(np.float32)
    source = f.opencl(x)
    assert re.search(r"#pragma unroll 4\n\s*for \(", source), source
    got = f.specialize(x).run([x], OUTER)
    for g, e in zip(got, numpy_softmax(x)):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-4, atol=1e-6)


def two_rows(x, g):
    def row(r):
        s = sl.sum(r)
        return r * s, r + g, s > 0

    return sl.map(row, x)


def test_rows_of_a_map_and_of_a_redomaps_map_out_in_one_second_kernel() -> None:
    """`r * s` (a map) and `r + g` (fused into the sum's redomap as a map-out) are both computed by the one second
    kernel, which reads `x[i, j]` once; the redomap keeps only its sum, and `g`'s length is still checked."""
    rng = np.random.default_rng(12)
    x, g = rng.standard_normal((4, 9)).astype(np.float32), rng.standard_normal(9).astype(np.float32)
    f = sl.jit(two_rows, pipeline=GPU_PIPELINE, lowering={"target": "generic"})
    compiled = f.specialize(x, g)
    text = compiled.optimized_text
    second = text[text.index("soac.segmap thread (%x_len, %x_d1) -> (tensor<?x?xf32>, tensor<?x?xf32>)") :]
    assert second[: second.index("soac.yield")].count("soac.index %x[") == 1, second
    assert "'soac.redomap': width {0} does not match the outer size {1} of input #1" in text
    for shape in [(1, 1), (37, 31), (33, 32)]:
        x, g = rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape[1]).astype(np.float32)
        got = compiled.run([x, g], OUTER)
        s = x.sum(axis=1, keepdims=True)
        for mine, expected in zip(got, (x * s, x + g, s[:, 0] > 0)):
            np.testing.assert_allclose(np.asarray(mine), expected, rtol=1e-4, atol=1e-4)
    with pytest.raises(SoacRuntimeError, match=r"width 9 does not match the outer size 8 of input #1"):
        compiled.run([np.ones((3, 9), np.float32), np.ones(8, np.float32)], OUTER)
