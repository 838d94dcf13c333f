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
