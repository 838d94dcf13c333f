"""`soac.seghist` in the interpreter against a row-by-row reference: known operators (ufunc.at) and any operator,
several destinations and segment dimensions, out-of-bounds bins, empty segments, no rows and no segments."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from soac.interpreter.errors import SoacRuntimeError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hist_programs import ABS_ADD, ADD, SEGHIST_3D, seghist_program, seghist_reference  # pyright: ignore[reportMissingImports]


def add(acc: list, vals: list) -> list:
    return [np.int32(acc[0] + vals[0])]


def abs_add(acc: list, vals: list) -> list:
    return [np.int32(abs(acc[0]) + abs(vals[0]))]


@pytest.mark.parametrize(("combine", "ref"), [(ADD, add), (ABS_ADD, abs_add)], ids=["add", "abs_add"])
@pytest.mark.parametrize(("n", "m"), [(0, 5), (4, 0), (1, 1), (5, 37)])
def test_seghist_2d(run, combine: str, ref, n: int, m: int) -> None:
    rng = np.random.default_rng(n * 100 + m)
    iss = rng.integers(-2, 9, (n, m)).astype(np.int32)
    ws = rng.integers(-9, 9, (n, m)).astype(np.int32)
    dests = rng.integers(-3, 3, (n, 6)).astype(np.int32)
    (h,) = run(seghist_program(combine), iss, ws, dests, 0)
    (want,) = seghist_reference(ref, [dests], iss, [ws])
    np.testing.assert_array_equal(h, want)


@pytest.mark.parametrize("shape", [(2, 3, 10), (3, 0, 4), (1, 2, 0)])
def test_seghist_3d_two_destinations(run, shape: tuple[int, int, int]) -> None:
    rng = np.random.default_rng(sum(shape))
    iss = rng.integers(-5, 20, shape).astype(np.int32)
    counts = np.zeros((*shape[:2], 3), np.int32)
    sums = rng.integers(0, 4, (*shape[:2], 3)).astype(np.int64)
    c, s = run(SEGHIST_3D, iss, counts, sums)
    bins = np.fmod(iss, 3)  # arith.remsi truncates: negative values give negative bins (out of bounds)
    want = seghist_reference(
        lambda acc, v: [acc[0] + v[0], acc[1] + v[1]], [counts, sums], bins, [np.ones(shape, np.int32), iss.astype(np.int64)]
    )
    np.testing.assert_array_equal(c, want[0])
    np.testing.assert_array_equal(s, want[1])


def test_seghist_segments_must_match(run) -> None:
    with pytest.raises(SoacRuntimeError, match=r"soac.seghist.*destination #0 has shape \[3, 6\], expected \[2\] segments"):
        run(seghist_program(ADD), np.zeros((2, 4), np.int32), np.zeros((2, 4), np.int32), np.zeros((3, 6), np.int32), 0)


SEGHIST_IN_A_MAP = """
func.func @main(%x3: tensor<?x?x?xi32>, %d3: tensor<?x?x?xi32>) -> tensor<?x?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tensor.dim %x3, %c0 : tensor<?x?x?xi32>
  %q = tensor.dim %x3, %c1 : tensor<?x?x?xi32>
  %r = tensor.dim %x3, %c2 : tensor<?x?x?xi32>
  %out = soac.map %p (%x3, %d3 : tensor<?x?x?xi32>, tensor<?x?x?xi32>) -> tensor<?x?x?xi32>
      lambda(%mat: tensor<?x?xi32>, %d: tensor<?x?xi32>) {
    %z = arith.constant 0 : i32
    %h = soac.seghist thread (%q, %r) into(%d : tensor<?x?xi32>) neutral(%z : i32) -> tensor<?x?xi32>
        combine(%a: i32, %b: i32) {
      %x = math.absi %a : i32
      %y = math.absi %b : i32
      %s = arith.addi %x, %y : i32
      soac.yield %s : i32
    } lambda(%i: index, %j: index) {
      %v = soac.index %mat[%i, %j] : tensor<?x?xi32> -> i32
      soac.yield %v, %v : i32, i32
    }
    soac.yield %h : tensor<?x?xi32>
  }
  func.return %out : tensor<?x?x?xi32>
}
"""


def test_seghist_in_the_lambda_of_a_map(run) -> None:
    """The interpreter runs a seghist on every lane of a map (the lanes times the segments), any operator."""
    rng = np.random.default_rng(1)
    x3 = rng.integers(-2, 6, (3, 4, 9)).astype(np.int32)
    d3 = rng.integers(-3, 3, (3, 4, 5)).astype(np.int32)
    (got,) = run(SEGHIST_IN_A_MAP, x3, d3)
    want = [seghist_reference(abs_add, [d], m, [m])[0] for m, d in zip(x3, d3)]
    np.testing.assert_array_equal(got, np.stack(want))
