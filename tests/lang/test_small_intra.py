"""Small matrices in a work-group (issue 27, item 3): batches of small matrix products, written with `.T` and with
indices, through the pipeline soac.lang takes on GPUs (`TILED_PIPELINE`, which ends with `soac-small-intra`),
lowered for the `generic` target on PoCL, against numpy.

Every version is forced: the staged intra-group one (tried first, whatever the outer parallelism), the
outer-parallel one (a work-item per result) and the fully flattened segred. Sizes: 1, primes, 15/16/17 and blocks
over the staged capacity (33 x 33 > 1024, where the staged version's guard takes the outer-parallel one); f32, f64
and i32; non-square products.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import soac.lang as sl
from soac.lowering.runtime import ProgramError
from soac.passes import TILED_PIPELINE
from soac.passes.thresholds import MAX_THRESHOLD

GENERIC = {"target": "generic"}
STAGED = {"suff_small_intra_0": 0}
OUTER = {"suff_small_intra_0": MAX_THRESHOLD, "suff_outer_par_0": 0}
FLAT = {"suff_small_intra_0": MAX_THRESHOLD, "suff_outer_par_0": MAX_THRESHOLD}
VERSIONS = {"staged": STAGED, "outer": OUTER, "flat": FLAT}


def transposed(a: Any, b: Any) -> Any:
    def matmul(x: Any, y: Any) -> Any:
        return sl.map(lambda row: sl.map(lambda col: sl.sum(row * col), y.T), x)

    return sl.map(matmul, a, b)


def indexed(a: Any, b: Any) -> Any:
    q, n, k = a.shape
    m = b.shape[2]
    ks = sl.iota(k)

    def entry(p: Any, i: Any, j: Any) -> Any:
        return sl.sum(sl.map(lambda s: a[p, i, s] * b[p, s, j], ks))

    return sl.map(lambda p: sl.map(lambda i: sl.map(lambda j: entry(p, i, j), sl.iota(m)), sl.iota(n)), sl.iota(q))


FORMS = {"transposed": transposed, "indexed": indexed}
SHAPES = [
    (1, 1, 1, 1),
    (3, 16, 16, 16),
    (2, 15, 15, 15),
    (2, 17, 17, 17),
    (7, 5, 3, 2),
    (5, 13, 7, 11),
    (37, 8, 8, 8),
    (2, 33, 33, 33),
]
"""(batches, n, k, m): a[q] is n x k, b[q] is k x m. Small products share a work-group (4 of 8 x 8 per group of 256,
the last pack of 37 holding one; 25 of 5 x 2: one partial pack)."""


def operands(shape: tuple[int, int, int, int], dtype: type, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    q, n, k, m = shape
    if dtype == np.int32:
        return rng.integers(-9, 9, (q, n, k)).astype(dtype), rng.integers(-9, 9, (q, k, m)).astype(dtype)
    return rng.standard_normal((q, n, k)).astype(dtype), rng.standard_normal((q, k, m)).astype(dtype)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_every_version_of_both_forms(form: str, dtype: type) -> None:
    f = sl.jit(FORMS[form], lowering=GENERIC, pipeline=TILED_PIPELINE)
    rng = np.random.default_rng(27)
    tolerance = {np.float32: 1e-4, np.float64: 1e-12, np.int32: 0}[dtype]
    for shape in SHAPES:
        a, b = operands(shape, dtype, rng)
        compiled = f.specialize(a, b)
        text = compiled.optimized_text
        assert text.count("{staged}") == 2
        assert "soac.segmap group" in text
        expected = np.matmul(a, b)
        for name, version in VERSIONS.items():
            got = compiled.run((a, b), version, False)
            assert got.dtype == dtype
            np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance, err_msg=f"{shape} {name}")


def test_staged_version_is_taken_by_default_on_gpu_targets() -> None:
    """With the device's defaults (a warp for `device "group"`), a batch of 16 x 16 products takes the staged
    version: its results agree with the forced one, and blocks over the capacity fall back to the outer one."""
    rng = np.random.default_rng(3)
    for form in FORMS.values():
        f = sl.jit(form, lowering=GENERIC, pipeline=TILED_PIPELINE)
        for shape in [(4, 16, 16, 16), (2, 40, 40, 40)]:
            a, b = operands(shape, np.float32, rng)
            np.testing.assert_allclose(f(a, b), np.matmul(a, b), rtol=1e-4, atol=1e-4)
        assert "b_block_local" in f.opencl(a, b)


def test_the_default_cpu_pipeline_has_no_staged_version() -> None:
    f = sl.jit(transposed)
    a, b = operands((2, 4, 4, 4), np.float32, np.random.default_rng(0))
    assert "{staged}" not in f.specialize(a, b).optimized_text


def test_mismatched_products_fail_at_the_users_line_in_every_version() -> None:
    """`row * col` of rows of different lengths: the staged version, which reads elements, checks the widths the
    rows had, with the message and place the interpreter gives."""
    f = sl.jit(transposed, lowering=GENERIC, pipeline=TILED_PIPELINE)
    a, b = np.ones((2, 4, 5), np.float32), np.ones((2, 6, 3), np.float32)
    compiled = f.specialize(a, b)
    problem = r"test_small_intra.py:\d+:\d+: 'soac.redomap': width 5 does not match the outer size 6"
    for version in VERSIONS.values():
        with pytest.raises(ProgramError, match=problem):
            compiled.run((a, b), version, False)


def test_a_batch_index_out_of_bounds_fails_at_the_users_read_in_every_version() -> None:
    """The index-written form over `iota(a.shape[0])` with fewer batches of `b`: the staged rows carry the place of
    the read they stand for, so every version reports the interpreter's error there."""
    f = sl.jit(indexed, lowering=GENERIC, pipeline=TILED_PIPELINE)
    a, b = np.ones((5, 4, 4), np.float32), np.ones((3, 4, 4), np.float32)
    compiled = f.specialize(a, b)
    problem = r"test_small_intra.py:\d+:\d+: 'soac.index': index 3 is out of bounds for dimension 0 of size 3"
    messages = set()
    for version in VERSIONS.values():
        with pytest.raises(ProgramError, match=problem) as error:
            compiled.run((a, b), version, False)
        messages.add(str(error.value))
    assert len(messages) == 1


SIZES = [1, 3, 8, 15, 16, 17, 32]
BATCHES = [1, 7, 65]
BLOCKS = [
    {},
    {"small-tile-rows": 2, "small-tile-cols": 2},
    {"small-tile-rows": 1, "small-tile-cols": 1},
    {"small-tile-rows": 1, "small-tile-cols": 4},
    {"small-tile-rows": 3, "small-tile-cols": 2, "small-batches": 3},
    {"small-tile-rows": 4, "small-tile-cols": 4},
    {"small-tile-rows": 4, "small-tile-cols": 4, "small-batches": 16},
    {"small-batches": 1},
    {"small-index": "i32", "max-groups": 2},
    {"small-tile-rows": 2, "small-tile-cols": 2, "small-batches": 3, "small-index": "i32"},
    {"small-fma": True},
]
"""Register tiles of the staged version (`strategies/register_tiles.py`): the default 4 x 1, 2 x 2, one result per work-item,
columns and rows alone, a block that divides none of the sizes with 3 batches per group, 4 x 4 (as many batches as 1024
elements of local memory per array hold; 16 batches: the 16 KiB `small-batches=16` gives each), one batch per group;
with the kernel's 32-bit version (NVIDIA's default), which the host launches for these sizes, in two work-groups that
loop over the packs; with each step's product and sum one fma."""


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: ",".join(f"{k}={v}" for k, v in b.items()) or "default")
def test_register_tiles_of_every_shape(form: str, block: dict[str, int]) -> None:
    """The staged version with each block of results per work-item, over square products of every size and odd
    batch counts: partial blocks at the edges, partial packs of batches."""
    f = sl.jit(FORMS[form], lowering={**GENERIC, **block}, pipeline=TILED_PIPELINE)
    rng = np.random.default_rng(40)
    narrow = "int a_d0" in f.opencl(*operands((1, 2, 2, 2), np.float32, rng))
    assert narrow == (block.get("small-index") == "i32")
    for n in SIZES:
        for q in BATCHES:
            a, b = operands((q, n, n, n), np.float32, rng)
            got = f.specialize(a, b).run((a, b), STAGED, False)
            np.testing.assert_allclose(got, np.matmul(a, b), rtol=1e-4, atol=1e-4, err_msg=f"{q} x {n} x {n}")


@pytest.mark.slow
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_every_version_of_every_size(form: str, dtype: type) -> None:
    """Every version forced, for n = 1 ... 32 (square, and n x n times n x (n + 1)), 1, 7 and 65 batches."""
    f = sl.jit(FORMS[form], lowering=GENERIC, pipeline=TILED_PIPELINE)
    rng = np.random.default_rng(41)
    tolerance = {np.float32: 1e-4, np.float64: 1e-12, np.int32: 0}[dtype]
    for n in SIZES:
        for q in BATCHES:
            for shape in [(q, n, n, n), (q, n, n, n + 1)]:
                a, b = operands(shape, dtype, rng)
                compiled = f.specialize(a, b)
                for name, version in VERSIONS.items():
                    got = compiled.run((a, b), version, False)
                    assert got.dtype == dtype
                    np.testing.assert_allclose(got, np.matmul(a, b), rtol=tolerance, atol=tolerance, err_msg=f"{shape} {name}")


def with_row_sums(a: Any, b: Any) -> Any:
    """`c[q,i,j] = Σ_k a[q,i,k]·b[q,k,j] + a[q,j,k]`: each result of a work-item's block reads a row of its own
    besides the shared ones."""
    q, n, k = a.shape
    ks = sl.iota(k)

    def entry(p: Any, i: Any, j: Any) -> Any:
        return sl.sum(sl.map(lambda s: a[p, i, s] * b[p, s, j] + a[p, j, s], ks))

    return sl.map(lambda p: sl.map(lambda i: sl.map(lambda j: entry(p, i, j), sl.iota(n)), sl.iota(n)), sl.iota(q))


def test_register_tiles_keep_each_results_own_reads() -> None:
    f = sl.jit(with_row_sums, lowering={**GENERIC, "small-tile-rows": 2, "small-tile-cols": 3}, pipeline=TILED_PIPELINE)
    rng = np.random.default_rng(42)
    for shape in [(7, 5, 5, 5), (3, 16, 16, 16)]:
        a, b = operands(shape, np.int32, rng)
        compiled = f.specialize(a, b)
        assert compiled.optimized_text.count("{staged}") == 2
        expected = np.matmul(a, b) + a.sum(axis=2)[:, None, :]
        for name, version in VERSIONS.items():
            np.testing.assert_array_equal(compiled.run((a, b), version, False), expected, err_msg=f"{shape} {name}")


def test_register_tile_options_are_checked() -> None:
    with pytest.raises(ValueError, match="small-tile-cols must be positive"):
        sl.jit(transposed, lowering={**GENERIC, "small-tile-cols": 0})
    problem = r"test_small_intra.py:\d+.*small-tile-rows x small-tile-cols results is at most 64.*got 16 x 8"
    with pytest.raises(ValueError, match=problem):
        sl.jit(transposed, lowering={**GENERIC, "small-tile-rows": 16, "small-tile-cols": 8})  # each alone is fine


def products_of_products(a: Any, b: Any) -> Any:
    def matmul(x: Any, y: Any) -> Any:
        return sl.map(lambda row: sl.map(lambda col: sl.sum(row * col), y.T), x)

    return sl.map(lambda x, y: sl.map(matmul, x, y), a, b)


@pytest.mark.parametrize("block", [{}, {"small-tile-rows": 2, "small-tile-cols": 3, "small-index": "i32"}])
def test_register_tiles_under_a_leading_dimension(block: dict[str, object]) -> None:
    """A batch of batches (`c[q,h] = a[q,h] @ b[q,h]`): the staged blocks are 3-D, the work-items' blocks tile the last
    two dimensions of the inner segmap, its first one counted among the work-items."""
    f = sl.jit(products_of_products, lowering={**GENERIC, **block}, pipeline=TILED_PIPELINE)
    rng = np.random.default_rng(43)
    a, b = rng.integers(-9, 9, (5, 3, 7, 4)).astype(np.int32), rng.integers(-9, 9, (5, 3, 4, 6)).astype(np.int32)
    compiled = f.specialize(a, b)
    assert compiled.optimized_text.count("{staged}") == 2
    assert "tile_rows" in f.opencl(a, b)
    for name, version in VERSIONS.items():
        np.testing.assert_array_equal(compiled.run((a, b), version, False), np.matmul(a, b), err_msg=name)


@pytest.mark.parametrize("block", [{}, {"small-index": "i32"}, {"small-tile-rows": 1, "small-tile-cols": 1}])
def test_a_short_inner_size_fails_at_the_users_read_in_every_version(block: dict[str, object]) -> None:
    """The index-written form with `b` shorter than `a` is wide: the staged version checks `b[p, s, j]` once, before
    its loop over `s`, and reports the read, index and dimension the interpreter does (of `b`, not of its block)."""
    f = sl.jit(indexed, lowering={**GENERIC, **block}, pipeline=TILED_PIPELINE)
    a, b = np.ones((2, 4, 5), np.float32), np.ones((2, 3, 4), np.float32)
    compiled = f.specialize(a, b)
    problem = r"test_small_intra.py:\d+:\d+: 'soac.index': index 3 is out of bounds for dimension 1 of size 3"
    messages = set()
    for version in VERSIONS.values():
        with pytest.raises(ProgramError, match=problem) as error:
            compiled.run((a, b), version, False)
        messages.add(str(error.value))
    with pytest.raises(ProgramError) as error:
        sl.jit(indexed)(a, b)  # the reference: the CPU pipeline has no staged version
    assert messages == {str(error.value)}


@pytest.mark.parametrize("form", FORMS)
def test_both_forms_get_the_register_tiled_kernel_on_nvidia(form: str) -> None:
    """The OpenCL soac.lang's GPU pipeline gives NVIDIA for either written form: the staged kernel in its 64-bit and
    32-bit versions, each of whose loops over k reads four rows of a_block and one column of b_block from local memory
    (4 x 1 blocks) and checks nothing."""
    from soac.lowering.opencl.emitter import opencl_source
    from soac.lowering.runtime.program import lower_module

    f = sl.jit(FORMS[form], lowering=GENERIC, pipeline=TILED_PIPELINE)
    a, b = operands((3, 16, 16, 16), np.float32, np.random.default_rng(5))
    source = opencl_source(lower_module(f.specialize(a, b).optimized, target="nvidia"))
    loops = []
    for kernel in source.split("__kernel void ")[1:]:
        if kernel.split("(")[0].endswith(("segmap_group_0", "segmap_group_1")):
            body = kernel[kernel.index("l < bound; l++) {") :]
            loops.append(body[: body.index("\n      }\n")])
    assert len(loops) == 2
    for loop in loops:
        assert loop.count("= a_block_local[") == 4
        assert loop.count("= b_block_local[") == 1
        assert "errors" not in loop
        assert "if (" not in loop
