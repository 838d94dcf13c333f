"""`soac.stencil` in the interpreter against a plain numpy reference (numpy's padding modes): every boundary,
rank and awkward size (arrays smaller than the window, one element, empty), several inputs, stencils in the rows
of a map (the interpreter's lanes), and the run-time error for an input of another shape."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from soac.interpreter import SoacRuntimeError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import stencil_reference  # pyright: ignore[reportMissingImports]
from stencil_programs import INPUTS, cases, random_inputs, reference, stencil_program  # pyright: ignore[reportMissingImports]


@pytest.mark.parametrize(("window", "boundary", "shape"), cases(), ids=str)
def test_against_numpy(run, window: tuple[int, ...], boundary: str, shape: tuple[int, ...]) -> None:
    xs = random_inputs(np.random.default_rng(sum(shape)), shape, INPUTS[len(window)])
    (got,) = run(stencil_program(window, boundary, len(xs)), *xs)
    np.testing.assert_array_equal(got, reference(xs, window, boundary))


@pytest.mark.parametrize("boundary", ["clamp", "mirror", "wrap", "constant"])
@pytest.mark.parametrize("shape", [(0,), (0, 4), (3, 0)])
def test_empty(run, boundary: str, shape: tuple[int, ...]) -> None:
    window = (3,) * len(shape)
    (got,) = run(stencil_program(window, boundary), np.zeros(shape, np.int32))
    assert got.shape == shape


EDGES = """
func.func @main(%xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %l, %r = soac.stencil (%n) window [7] BOUNDARY (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
      lambda(%a: i32, %b: i32, %c: i32, %d: i32, %e: i32, %f: i32, %g: i32) {
    soac.yield %a, %g : i32, i32
  }
  func.return %l, %r : tensor<?xi32>, tensor<?xi32>
}
"""


@pytest.mark.parametrize(
    ("boundary", "left", "right"),
    [("mirror", [20, 30, 20], [20, 10, 20]), ("wrap", [10, 20, 30], [10, 20, 30]), ("clamp", [10, 10, 10], [30, 30, 30])],
)
def test_window_wider_than_the_array(run, boundary: str, left: list[int], right: list[int]) -> None:
    """A window of 7 on three elements reads three positions away: mirrored back and forth (period 4), wrapped
    around, or clamped (worked out by hand)."""
    got = run(EDGES.replace("BOUNDARY", boundary), np.array([10, 20, 30], np.int32))
    assert [list(g) for g in got] == [left, right]


ROWS = """
func.func @main(%imgs: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %imgs, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %imgs, %c1 : tensor<?x?x?xf32>
  %m = tensor.dim %imgs, %c2 : tensor<?x?x?xf32>
  %r = soac.map %b (%imgs : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%img: tensor<?x?xf32>) {
    %s = soac.stencil (%n, %m) window [3, 1] mirror (%img : tensor<?x?xf32>) -> tensor<?x?xf32>
        lambda(%up: f32, %c: f32, %down: f32) {
      %d = arith.subf %down, %up : f32
      %e = arith.mulf %d, %c : f32
      soac.yield %e : f32
    }
    soac.yield %s : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?x?xf32>
}
"""


def rows_reference(imgs: np.ndarray) -> np.ndarray:
    def one(img: np.ndarray) -> np.ndarray:
        return stencil_reference.stencil(lambda up, c, down: (down - up) * c, [img], (3, 1), "mirror")

    return np.stack([one(img) for img in imgs]) if len(imgs) else imgs


@pytest.mark.parametrize("shape", [(4, 5, 6), (1, 1, 3), (3, 2, 1), (0, 3, 3)])
def test_stencil_in_the_rows_of_a_map(run, shape: tuple[int, ...]) -> None:
    imgs = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    (got,) = run(ROWS, imgs)
    np.testing.assert_allclose(got, rows_reference(imgs), rtol=1e-6)


def test_input_of_another_shape(run) -> None:
    text = stencil_program((3, 3), "clamp", 2)
    message = r"'soac.stencil': input #1 has 4 elements in dimension 1, but the index space has 5"
    with pytest.raises(SoacRuntimeError, match=message):
        run(text, np.zeros((3, 5), np.int32), np.zeros((3, 4), np.int32))
