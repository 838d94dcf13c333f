"""`soac.stencil` on OpenCL (PoCL) against numpy: both strategies (`tiled`: the block and its halo in local memory,
on the `generic` target; `direct`: a work-item per element, on the `cpu` target and forced on `generic`), every
boundary, rank 1 to 3 and awkward size (smaller than the window, one element, not a multiple of the tile), tiles of
every shape including ones smaller than the window, stencils in the rows of a map, the Jacobi loop's buffers, and
the run-time error for inputs of another shape."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pyopencl as cl
import pytest
from soac.interpreter import SoacRuntimeError
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import ProgramError, compile_module
from soac.passes.tile_sizes import with_tile_sizes

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from stencil_programs import (  # pyright: ignore[reportMissingImports]
    AWKWARD_SHAPES,
    BOUNDARIES,
    INPUTS,
    WINDOWS,
    function_name,
    random_inputs,
    reference,
    stencil_module,
    stencil_program,
)

ROOT = Path(__file__).resolve().parents[3]

STRATEGIES = {
    "streamed": {"target": "generic"},
    "tiled": {"target": "generic", "stencil": "tiled"},
    "direct": {"target": "cpu"},
    "direct-strided": {"target": "generic", "stencil": "direct"},
}


@pytest.fixture(params=sorted(STRATEGIES))
def target(request: pytest.FixtureRequest) -> dict[str, str]:
    """The soac-to-kernel options of each strategy: the target, and the `stencil` option where it is forced."""
    return STRATEGIES[request.param]


def check_all(parse, text: str, windows, shapes, target: dict[str, str], inputs: int, tile_sizes=None) -> None:
    module = with_tile_sizes(parse(text), tile_sizes)
    program = compile_module(module, **target)
    rng = np.random.default_rng(7)
    for window in windows:
        for boundary in BOUNDARIES:
            for shape in shapes:
                xs = random_inputs(rng, shape, inputs)
                (got,) = program.call(function_name(window, boundary), xs)
                np.testing.assert_array_equal(
                    np.asarray(got), reference(xs, window, boundary), err_msg=f"{window} {boundary} {shape}"
                )


def test_quick(parse, target: dict[str, str]) -> None:
    """3x3 on two inputs, every boundary, a few sizes."""
    check_all(parse, stencil_module([(3, 3)], 2), [(3, 3)], [(1, 1), (2, 3), (9, 129)], target, 2)


@pytest.mark.slow
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_every_case(parse, target: dict[str, str], rank: int) -> None:
    check_all(parse, stencil_module(WINDOWS[rank], INPUTS[rank]), WINDOWS[rank], AWKWARD_SHAPES[rank], target, INPUTS[rank])


@pytest.mark.parametrize(
    "tile",
    [(1, 1), pytest.param((2, 3), marks=pytest.mark.slow), pytest.param((1, 64), marks=pytest.mark.slow), (32, 32)],
    ids=str,
)
@pytest.mark.parametrize("strategy", ["streamed", "tiled"])
def test_tile_shapes(parse, tile: tuple[int, int], strategy: str) -> None:
    """Tiles smaller than the window (its halo larger than the block), thin and square ones, at any size."""
    sizes = {f"stencil_{k}_block_{d}": t for k in range(len(BOUNDARIES)) for d, t in enumerate(tile)}
    lowering = {"target": "generic", "stencil": strategy}
    check_all(parse, stencil_module([(5, 3)], 1), [(5, 3)], [(1, 2), (4, 5), (37, 70)], lowering, 1, sizes)


ROWS = """
func.func @main(%imgs: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %imgs, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %imgs, %c1 : tensor<?x?x?xf32>
  %m = tensor.dim %imgs, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant 0.5 : f32
  %r = soac.map %b (%imgs : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%img: tensor<?x?xf32>) {
    %s = soac.stencil (%n, %m) window [3, 3] constant(%zero : f32) (%img : tensor<?x?xf32>) -> tensor<?x?xf32>
        lambda(%a: f32, %b0: f32, %c: f32, %d: f32, %e: f32, %f: f32, %g: f32, %h: f32, %i: f32) {
      %x = arith.subf %a, %i : f32
      %y = arith.mulf %x, %e : f32
      %z = arith.addf %y, %f : f32
      soac.yield %z : f32
    }
    soac.yield %s : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?x?xf32>
}
"""


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 1, 1), (0, 2, 2)])
def test_stencil_in_the_rows_of_a_map(differential, shape: tuple[int, ...]) -> None:
    imgs = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    differential(ROWS, "main", [imgs])


def test_jacobi_reuses_its_buffers(parse, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop of examples/jacobi.mlir allocates no new buffer per iteration: 40 steps make as many as 2."""
    module = parse((ROOT / "examples" / "jacobi.mlir").read_text())
    program = compile_module(module)
    made: list[int] = []
    original = cl.Buffer

    def counting(*args, **kwargs):
        made.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(cl, "Buffer", counting)
    grid = np.random.default_rng(0).standard_normal((30, 40)).astype(np.float32)
    counts = []
    for steps in (2, 40):
        made.clear()
        (u,) = program.call("main", [grid, np.int64(steps)])
        np.testing.assert_allclose(np.asarray(u), interpret(module, "main", [grid, np.int64(steps)])[0], rtol=1e-5, atol=1e-6)
        counts.append(len(made))
    assert counts[1] <= counts[0]
    assert program.pool is not None  # on every device, GPUs included


def test_input_of_another_shape(parse) -> None:
    module = parse(stencil_program((3, 3), "clamp", 2))
    args = [np.zeros((3, 5), np.int32), np.zeros((3, 4), np.int32)]
    with pytest.raises(SoacRuntimeError) as expected:
        interpret(module, "main", args)
    with pytest.raises(ProgramError) as got:
        compile_module(module).call("main", args)
    assert str(got.value) == str(expected.value)
