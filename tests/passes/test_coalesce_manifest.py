"""soac-coalesce's manifest rules (transposed copies for kernels whose work-items walk along rows) keep results: row
programs through the GPU pipeline on PoCL (the `generic` target: the tiled transpose kernel), every version forced,
awkward sizes (1, primes, the transpose's tile +- 1), f32/f64/i32, against numpy; the element reads of
manifest.mlir's loop kernels on the interpreter and OpenCL; the tiled transpose itself against numpy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soac.lang as sl
from soac.context import make_context
from soac.interpreter import run_function
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes import GPU_COPIES_PIPELINE, GPU_PIPELINE, TILED_PIPELINE
from soac.passes.soac_coalesce import SoacCoalescePass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds

CASES = Path(__file__).resolve().parents[1] / "filecheck" / "passes" / "soac-coalesce" / "manifest.mlir"
GENERIC = {"target": "generic"}
SHAPES = [(1, 1), (3, 1), (1, 40), (37, 31), (33, 32), (32, 33), (70, 13)]
"""Rows x columns: 1, primes, and the tiled transpose's 32 +- 1."""


def softmax(x):
    def row(r):
        m = sl.max(r)
        e = sl.exp(r - m)
        s = sl.sum(e)
        return e / s, m + sl.log(s)

    return sl.map(row, x)


def numpy_softmax(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(axis=1, keepdims=True)
    return e / s, (m + np.log(s))[:, 0]


def layernorm(x, gamma):
    def row(r):
        n = sl.f32(r.shape[0])
        d = r - sl.sum(r) / n
        return d * gamma / sl.sqrt(sl.sum(d * d) / n + 1)

    return sl.map(row, x)


def numpy_layernorm(x: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    d = x - x.sum(axis=1, keepdims=True) / x.shape[1]
    return d * gamma / np.sqrt((d * d).sum(axis=1, keepdims=True) / x.shape[1] + 1)


def matvec(a, v):
    return sl.map(lambda row: sl.sum(row * v), a)


def _inputs(program: Any, dtype: Any, shape: tuple[int, int], rng: np.random.Generator) -> list[np.ndarray]:
    cols = shape[1]
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(-9, 9, shape).astype(dtype)
        return [x, rng.integers(-9, 9, cols).astype(dtype)]
    x = rng.standard_normal(shape).astype(dtype)
    return [x] if program is softmax else [x, rng.uniform(0.5, 1.5, cols).astype(dtype)]


def _expected(program: Any, args: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    if program is softmax:
        return numpy_softmax(*args)
    if program is layernorm:
        return (numpy_layernorm(*args),)
    return (args[0] @ args[1],)


def _versions(optimized: Any) -> list[dict[str, int]]:
    names = sorted({t.name for t in list_thresholds(optimized)})
    versions = [dict.fromkeys(names, MAX_THRESHOLD), dict.fromkeys(names, 0)]
    return versions + [{**dict.fromkeys(names, MAX_THRESHOLD), name: 0} for name in names]


PROGRAMS = [
    pytest.param(softmax, np.float32, id="softmax-f32"),
    pytest.param(softmax, np.float64, id="softmax-f64", marks=pytest.mark.slow),
    pytest.param(layernorm, np.float32, id="layernorm-f32", marks=pytest.mark.slow),
    pytest.param(matvec, np.int32, id="matvec-i32", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("program", "dtype"), PROGRAMS)
def test_row_programs_every_version_on_pocl(program: Any, dtype: Any) -> None:
    """The GPU pipeline (tiling off: soac-tile would take matvec's nest; row tiles off) with the manifest rule, every
    version."""
    rng = np.random.default_rng(11)
    pipeline = GPU_COPIES_PIPELINE.replace(",soac-tile{untranspose=true}", "")
    f = sl.jit(program, lowering=GENERIC, pipeline=pipeline)
    compiled = f.specialize(*_inputs(program, dtype, (4, 9), rng))
    assert "soac.transpose" in compiled.optimized_text, "the outer-parallel version reads a transposed copy"
    tolerance = {"rtol": 1e-4, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-12}
    for forced in _versions(compiled.optimized):
        for shape in SHAPES:
            args = _inputs(program, dtype, shape, rng)
            got = compiled.run(args, forced)
            got = got if isinstance(got, tuple) else (got,)
            for g, e in zip(got, _expected(program, args)):
                np.testing.assert_allclose(np.asarray(g), e, **tolerance, err_msg=f"{forced} {shape}")


def test_gpu_pipeline_adds_the_copy_after_tiling() -> None:
    """The GPU pipeline without row tiles coalesces softmax's outer-parallel version by a copy; with them (the
    default) by staged tiled ops, without a copy; `TILED_PIPELINE` (coalescing off) not at all."""
    x = np.ones((4, 9), np.float32)
    with_copy = sl.jit(softmax, backend="interp", pipeline=GPU_COPIES_PIPELINE).specialize(x).optimized_text
    row_tiles = sl.jit(softmax, backend="interp", pipeline=GPU_PIPELINE).specialize(x).optimized_text
    without = sl.jit(softmax, backend="interp", pipeline=TILED_PIPELINE).specialize(x).optimized_text
    assert "soac.transpose %x [1, 0]" in with_copy
    assert "soac.transpose" not in row_tiles
    assert row_tiles.count("{staged_rows}") == 2
    assert "soac.transpose" not in without


@pytest.mark.parametrize("target", ["generic", "cpu"])
def test_loop_reads_of_a_copy_on_both_backends(target: str) -> None:
    """manifest.mlir's element reads in loops (i32), after the pass, on OpenCL (tiled and simple transposes) and the
    interpreter, against the program before the pass."""
    chunk = CASES.read_text().split("// -----")[1]
    before = parse_module(make_context(), chunk, "manifest.mlir")
    after = parse_module(make_context(), chunk, "manifest.mlir")
    SoacCoalescePass(read_through=False, row_tiles=False).apply(make_context(), after)
    after.verify()
    assert "soac.transpose" in str(after)
    program = compile_module(after, target=target)
    rng = np.random.default_rng(2)
    for rows, cols in [(1, 1), (5, 31), (33, 32), (31, 33)]:
        a = rng.integers(-50, 50, (rows, cols)).astype(np.int32)
        b = rng.integers(-50, 50, (cols, rows)).astype(np.int32)
        q = np.int64(3)
        expected = run_function(before, "loop", [a, b, q])
        for got in (run_function(after, "loop", [a, b, q]), program.call("loop", [a, b, q])):
            for g, e in zip(got, expected):
                np.testing.assert_array_equal(np.asarray(g), e)
        np.testing.assert_array_equal(expected[1], a.sum(axis=1, dtype=np.int32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_tiled_transpose_against_numpy(dtype: Any) -> None:
    """The tiled kernel (`transpose=tiled`) on PoCL: empty, 1, primes, 32 +- 1, and a batch dimension."""
    f = sl.jit(lambda x: x.T, lowering={"transpose": "tiled"})
    batched = sl.jit(lambda x: sl.map(lambda m: m.T, x), lowering={"transpose": "tiled"})
    for shape in [(1, 1), (0, 5), (31, 33), (33, 32), (64, 97)]:
        x = np.arange(np.prod(shape)).astype(dtype).reshape(shape)
        np.testing.assert_array_equal(f(x), x.T)
    assert "transpose_tiled" in f.opencl(np.ones((2, 2), dtype))
    x = np.arange(3 * 37 * 5).astype(dtype).reshape(3, 37, 5)
    np.testing.assert_array_equal(batched(x), np.swapaxes(x, 1, 2))
    looping = sl.jit(lambda x: x.T, lowering={"transpose": "tiled", "max-groups": 1})  # 8 groups loop over 20 tiles
    x = np.arange(97 * 150).astype(dtype).reshape(97, 150)
    np.testing.assert_array_equal(looping(x), x.T)


def row_sums_of_batches(x):
    return sl.map(lambda m: sl.map(lambda r: sl.sum(r * r), m), x)


def test_batched_rows_read_a_copy_of_the_last_two_dimensions() -> None:
    """A segmap over (batch, row) walking along `x[b, i]` reads `x_t[b, l, i]` of a `[0, 2, 1]` copy (the row-tiles
    rule takes 1-D segmaps only)."""
    pipeline = GPU_PIPELINE.replace(",soac-tile{untranspose=true}", "")
    f = sl.jit(row_sums_of_batches, lowering=GENERIC, pipeline=pipeline)
    rng = np.random.default_rng(4)
    compiled = f.specialize(rng.standard_normal((2, 3, 4)).astype(np.float32))
    assert "soac.transpose %x [0, 2, 1]" in compiled.optimized_text
    for forced in _versions(compiled.optimized):
        for shape in [(1, 1, 1), (3, 33, 31), (2, 5, 40)]:
            x = rng.standard_normal(shape).astype(np.float32)
            np.testing.assert_allclose(compiled.run([x], forced), (x * x).sum(axis=2), rtol=1e-5, atol=1e-5)


def test_rows_read_in_a_loop_on_opencl() -> None:
    """manifest.mlir's `@in_loop` (f64; the row's map inside the loop) after the pass, against the interpreter."""
    chunk = CASES.read_text().split("// -----")[4]
    module = parse_module(make_context(), chunk, "manifest.mlir")
    SoacCoalescePass(read_through=False, row_tiles=False).apply(make_context(), module)
    module.verify()
    assert "soac.transpose" in str(module)
    program = compile_module(module, target="generic")
    rng = np.random.default_rng(6)
    for shape in [(1, 1), (37, 33), (5, 64)]:
        x = rng.standard_normal(shape)
        (got,) = program.call("in_loop", [x, np.int64(3)])
        np.testing.assert_allclose(got, 3 * x.sum(axis=1), rtol=1e-12)


def test_copies_in_and_before_a_host_loop_on_opencl() -> None:
    """manifest.mlir's `@host_loop`: the invariant array's copy made before the loop, the carried one's at each step."""
    chunk = CASES.read_text().split("// -----")[5]
    module = parse_module(make_context(), chunk, "manifest.mlir")
    SoacCoalescePass(read_through=False, row_tiles=False).apply(make_context(), module)
    module.verify()
    program = compile_module(module, target="generic")
    rng = np.random.default_rng(8)
    for rows, cols in [(1, 1), (33, 31)]:
        a = rng.standard_normal((rows, cols)).astype(np.float32)
        v = rng.standard_normal((rows, cols)).astype(np.float32)
        (got,) = program.call("host_loop", [a, v, np.int64(4)])
        np.testing.assert_allclose(got, v + 4 * a.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-5)
