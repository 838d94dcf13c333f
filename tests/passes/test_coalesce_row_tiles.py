"""soac-coalesce's row-tiles rule (a kernel's walks along its rows read them through local-memory tiles, no copy) keeps
results: bench/real's softmax and layernorm through the GPU pipeline on PoCL (the `generic` target: the tiled kernel
with local tiles; `cpu`: a result per work-item), the outer-parallel version forced, awkward sizes (rows 1, 7, 33, 65
around the work-group's 64 rows; widths 1, 31, 32, 33, 1000 around the 32-element tile), f32 and f64, against numpy;
the pass's sizes; a vector of the wrong length reported at the user's line; bad sizes refused."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soac.lang as sl
from soac.lowering.runtime.errors import ProgramError
from soac.passes import DEFAULT_PIPELINE, GPU_PIPELINE, TILED_PIPELINE

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "real"))
from suite import layernorm as layernorm_program  # pyright: ignore[reportMissingImports]
from suite import softmax as softmax_program  # pyright: ignore[reportMissingImports]

softmax, numpy_softmax = softmax_program.softmax, softmax_program.peer(np)
layernorm, numpy_layernorm = layernorm_program.layernorm, layernorm_program.peer(np)

OUTER = {"suff_outer_par_0": 0}
ROWS = [1, 7, 33, 65]
WIDTHS = [1, 31, 32, 33, 1000]


def layernorm_f64(x, gamma, beta):
    """bench/real's layernorm for f64 rows (its own converts the row length to f32)."""

    def row(r):
        n = sl.f64(r.shape[0])
        d = r - sl.sum(r) / n
        variance = sl.sum(d * d) / n
        return d / sl.sqrt(variance + 1e-5) * gamma + beta

    return sl.map(row, x)


def _args(program: Any, shape: tuple[int, int], dtype: Any, rng: np.random.Generator) -> list[np.ndarray]:
    x = rng.standard_normal(shape).astype(dtype)
    if program is softmax:
        return [x]
    return [x, rng.uniform(0.5, 1.5, shape[1]).astype(dtype), rng.uniform(-1, 1, shape[1]).astype(dtype)]


def _expected(program: Any, args: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    return numpy_softmax(*args) if program is softmax else (numpy_layernorm(*args),)


def _check(program: Any, dtype: Any, shapes: list[tuple[int, int]], pipeline: str = GPU_PIPELINE, target: str = "generic") -> str:
    """The program's outer-parallel version at every shape against numpy; gives its optimised IR."""
    rng = np.random.default_rng(41)
    f = sl.jit(program, pipeline=pipeline, lowering={"target": target})
    compiled = f.specialize(*_args(program, (3, 5), dtype, rng))
    tolerance = {"rtol": 1e-4, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-12}
    for shape in shapes:
        args = _args(program, shape, dtype, rng)
        got = compiled.run(args, OUTER)
        got = got if isinstance(got, tuple) else (got,)
        for g, e in zip(got, _expected(program, args)):
            np.testing.assert_allclose(np.asarray(g), e, **tolerance, err_msg=f"{program.__name__} {dtype} {shape}")
    return compiled.optimized_text


@pytest.mark.parametrize("program", [softmax, layernorm], ids=["softmax", "layernorm"])
def test_suite_programs_read_rows_through_tiles(program: Any) -> None:
    """Both walks are staged tiled ops, no transposed copy is made, the kernels copy tiles of x into local memory;
    results as numpy's around the group's rows and the tile's width (no rows too)."""
    text = _check(program, np.float32, [(0, 5), (1, 1), (7, 31), (65, 33), (33, 1000)])
    assert text.count("attributes {staged_rows}") == 2, text
    assert "soac.transpose" not in text
    x = np.ones((4, 9), np.float32)
    source = sl.jit(program, pipeline=GPU_PIPELINE, lowering={"target": "generic"}).opencl(
        *([x] if program is softmax else [x, x[0], x[0]])
    )
    assert "__local float x_tile[" in source


@pytest.mark.parametrize(
    ("program", "dtype"),
    [
        pytest.param(softmax, np.float32, id="softmax-f32"),
        pytest.param(softmax, np.float64, id="softmax-f64", marks=pytest.mark.slow),
        pytest.param(layernorm, np.float32, id="layernorm-f32"),
        pytest.param(layernorm_f64, np.float64, id="layernorm-f64", marks=pytest.mark.slow),
    ],
)
def test_every_awkward_size(program: Any, dtype: Any) -> None:
    """Rows 1, 7, 33, 65 x widths 1, 31, 32, 33, 1000."""
    text = _check(program, dtype, [(r, w) for r in ROWS for w in WIDTHS])
    assert text.count("attributes {staged_rows}") == 2


@pytest.mark.parametrize(
    "sizes",
    [
        "row-block=32 row-reg=2 row-chunk=8",
        "row-block=16 row-chunk=1",
        pytest.param("row-block=128 row-reg=4 row-chunk=64", marks=pytest.mark.slow),  # a long PoCL build
    ],
)
def test_the_pass_sizes_keep_results(sizes: str) -> None:
    """Other work-groups, several rows a work-item (vector reads of the tile, its rows padded by 4), other chunks."""
    pipeline = f"{TILED_PIPELINE},soac-coalesce{{read-through=false {sizes}}}"
    text = _check(softmax, np.float32, [(1, 1), (33, 31), (65, 33), (7, 100)], pipeline)
    assert "attributes {staged_rows}" in text


def test_tile_sizes_are_tuning_parameters() -> None:
    """The staged ops' sizes are tuning parameters like every tiled op's (`rows_0_block_0`, `rows_1_chunk`)."""
    sizes = {"rows_0_block_0": 32, "rows_1_chunk": 8}
    f = sl.jit(softmax, pipeline=GPU_PIPELINE, lowering={"target": "generic"}, thresholds=sizes)
    x = np.random.default_rng(5).standard_normal((40, 21)).astype(np.float32)
    source = f.opencl(x)
    assert "x_tile[2112]" in source, "chunk 64 (the default) x (32 rows + 1)"
    assert "x_tile[520]" in source, "chunk 8 x (64 rows + 1)"
    for g, e in zip(f.specialize(x).run([x], OUTER), numpy_softmax(x)):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-4, atol=1e-6)


def test_the_interpreter_runs_the_staged_ops() -> None:
    """The reference interpreter's tiled ops (the second walk reading the first's results by d0) give numpy's."""
    rng = np.random.default_rng(3)
    compiled = sl.jit(softmax, backend="interp", pipeline=GPU_PIPELINE).specialize(np.ones((2, 2), np.float32))
    assert compiled.optimized_text.count("attributes {staged_rows}") == 2
    for shape in [(1, 1), (7, 33)]:
        x = rng.standard_normal(shape).astype(np.float32)
        for g, e in zip(compiled.run([x], OUTER), numpy_softmax(x)):
            np.testing.assert_allclose(np.asarray(g), e, rtol=1e-5, atol=1e-6)


def test_cpu_target_computes_a_result_per_work_item() -> None:
    """On the `cpu` target (no local tiles) the staged tiled ops are a kernel of a row per work-item."""
    _check(layernorm, np.float32, [(1, 1), (33, 32), (7, 1000)], target="cpu")


def matvec(a, v):
    return sl.map(lambda row: sl.sum(row * v), a)


def test_a_vector_of_the_wrong_length_is_reported_at_the_users_line() -> None:
    """matvec without soac-tile: its walk over a row and `v` becomes a staged tiled op; `v` one short is reported as the
    redomap reported it, at the lambda's line; results right otherwise."""
    f = sl.jit(matvec, pipeline=f"{DEFAULT_PIPELINE},soac-coalesce{{read-through=false}}", lowering={"target": "generic"})
    a, v = np.arange(35, dtype=np.float32).reshape(5, 7), np.ones(7, np.float32)
    compiled = f.specialize(a, v)
    assert "reads(%a[d0, k], %v[k]" in compiled.optimized_text
    np.testing.assert_allclose(compiled.run([a, v], OUTER), a @ v)
    with pytest.raises(
        ProgramError,
        match=r"test_coalesce_row_tiles.py:\d+:\d+: 'soac.redomap': width 7 does not match the outer size 6 of input #1",
    ):
        compiled.run([a, v[:6]], OUTER)


def test_bad_sizes_are_refused() -> None:
    f = sl.jit(softmax, pipeline=f"{TILED_PIPELINE},soac-coalesce{{row-block=48 row-reg=5}}", lowering={"target": "generic"})
    with pytest.raises(ValueError, match=r"soac-coalesce: row-tiles: reg size 5 does not divide block size 48"):
        f.specialize(np.ones((2, 3), np.float32))
