"""soac-fuse and soac-flatten with stencils keep the results: the fusion FileCheck programs (map->stencil,
stencil->map, the hindrances) on random inputs in the interpreter and on OpenCL, seeded random programs with
stencils, and maps of stencils flattened into one stencil."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.dialect import MapOp, StencilOp
from soac.interpreter import run_function
from soac.parsing import parse_module
from soac.passes.soac_fuse import SoacFusePass

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from programs import Generator, make_args  # pyright: ignore[reportMissingImports]

FILECHECK = Path(__file__).resolve().parents[1] / "filecheck" / "passes" / "soac-fuse" / "stencil.mlir"


def chunks() -> list[str]:
    text = "\n".join(line for line in FILECHECK.read_text().splitlines() if not line.startswith("//"))
    return [c for c in re.split(r"^// -----$|\n\s*\n(?=func\.func)", text, flags=re.M) if "func.func" in c]


def arguments(module, rng: np.random.Generator, shape: tuple[int, int]) -> list[object]:
    function = next(op for op in module.walk() if op.name == "func.func")
    args: list[object] = []
    for t in function.function_type.inputs.data:
        if str(t) == "index":
            args.append(np.int64(3))
        else:
            rank = len(t.get_shape())
            args.append(rng.standard_normal(shape[:rank] if rank == 2 else shape[1:]).astype(np.float32))
    return args


@pytest.mark.parametrize("index", range(3))
@pytest.mark.parametrize("shape", [(1, 1), (5, 7), (40, 3)])
def test_filecheck_programs_keep_their_results(index: int, shape: tuple[int, int]) -> None:
    text = chunks()[index]
    ctx = make_context()
    module = parse_module(ctx, text, "stencil.mlir")
    args = arguments(module, np.random.default_rng(index), shape)
    name = text.split("@")[1].split("(")[0]
    expected = run_function(module, name, args)
    before = sum(isinstance(op, MapOp) for op in module.walk())
    SoacFusePass().apply(ctx, module)
    module.verify()
    assert any(isinstance(op, StencilOp) for op in module.walk())
    if index < 2:
        assert sum(isinstance(op, MapOp) for op in module.walk()) < before
    got = run_function(module, name, args)
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-6)


def test_fused_nests_on_opencl() -> None:
    from soac.lowering.runtime import compile_module

    text = chunks()[1]
    ctx = make_context()
    module = parse_module(ctx, text, "stencil.mlir")
    args = arguments(module, np.random.default_rng(5), (33, 70))
    expected = run_function(module, "nests", args)
    SoacFusePass().apply(ctx, module)
    (got,) = compile_module(module, target="generic").call("nests", args)
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected[0]), rtol=1e-5, atol=1e-6)


def stencil_programs(count: int) -> list[tuple[str, list[object]]]:
    found = []
    seed = 0
    while len(found) < count:
        rng = random.Random(seed)
        n_arrays = rng.randint(1, 3)
        text = Generator(rng.randint).function(n_arrays, rng.randint(1, 8))
        if "soac.stencil" in text:
            found.append((text, make_args(rng.randint(1, 6), rng.randint(1, 4), n_arrays, seed)))
        seed += 1
    return found


def stencil_inputs_from_maps(module) -> int:
    return sum(isinstance(x.owner, MapOp) for op in module.walk() if isinstance(op, StencilOp) for x in op.inputs)


def test_random_programs_with_stencils() -> None:
    """60 random programs with stencils (the first found from seed 0 on) fuse and keep their results; in some, a map
    that produced a stencil's input has fused into it."""
    fused_producers = 0
    for text, args in stencil_programs(60):
        ctx = make_context()
        module = parse_module(ctx, text, "random.mlir")
        expected = run_function(module, "main", args)
        before = stencil_inputs_from_maps(module)
        SoacFusePass(horizontal=False).apply(ctx, module)
        module.verify()
        fused_producers += before > stencil_inputs_from_maps(module)
        for e, g in zip(expected, run_function(module, "main", args), strict=True):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(e), err_msg=text)
    assert fused_producers > 0


FLATTEN = Path(__file__).resolve().parents[1] / "filecheck" / "passes" / "soac-flatten" / "stencil.mlir"


@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 4, 5), (2, 9, 1), (0, 2, 3)])
@pytest.mark.parametrize("mode", ["incremental", "moderate"])
def test_flattened_maps_of_stencils_keep_their_results(shape: tuple[int, int, int], mode: str) -> None:
    """soac-flatten makes a map of stencils one stencil of rank 3; same results in the interpreter and on OpenCL."""
    from soac.lowering.runtime import compile_module
    from soac.passes.soac_flatten import SoacFlattenPass

    text = FLATTEN.read_text().split("// -----")[0]
    ctx = make_context()
    module = parse_module(ctx, text, "stencil.mlir")
    imgs = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    (expected,) = run_function(module, "map_of_stencils", [imgs])
    SoacFlattenPass(mode=mode).apply(ctx, module)  # pyright: ignore[reportArgumentType]
    module.verify()
    assert [len(op.dims) for op in module.walk() if isinstance(op, StencilOp)] == [3]
    (got,) = run_function(module, "map_of_stencils", [imgs])
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))
    (on_device,) = compile_module(module, target="generic").call("map_of_stencils", [imgs])
    np.testing.assert_allclose(np.asarray(on_device), np.asarray(expected), rtol=1e-6)
