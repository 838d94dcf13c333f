"""soac-flatten on `map (hist ...)`: a seghist (or a sequential hist per thread in moderate mode) with the results
of the original program in the interpreter, in every mode and every version, on random inputs with out-of-bounds
bins, empty rows, no rows and no bins."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from soac.dialect import HistOp, SeghistOp

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hist_programs import MAP_HIST_PROGRAMS, map_hist_args  # pyright: ignore[reportMissingImports]
from test_soac_flatten import MODES, assert_every_version, flattened  # pyright: ignore[reportMissingImports]

SHAPES = {"map_map": [(2, 3, 17), (0, 2, 3), (2, 0, 3), (2, 2, 0)]}
SHAPES_2D = [(5, 23), (0, 4), (3, 0), (1, 1)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(MAP_HIST_PROGRAMS))
def test_map_hist_keeps_results(name: str, mode: str) -> None:
    for k, shape in enumerate(SHAPES.get(name, SHAPES_2D)):
        settings = assert_every_version(MAP_HIST_PROGRAMS[name], map_hist_args(name, shape, k), mode)
        assert settings == 1  # a histogram makes no version worth it (Futhark's heuristics count it 0)


def test_zero_bins() -> None:
    args = map_hist_args("rows", (3, 5))
    args[1] = 0
    for mode in MODES:
        assert_every_version(MAP_HIST_PROGRAMS["rows"], args, mode)


@pytest.mark.parametrize("name", sorted(MAP_HIST_PROGRAMS))
def test_full_flattening_makes_seghists(name: str) -> None:
    module = flattened(MAP_HIST_PROGRAMS[name], "full")
    ops = list(module.walk())
    assert any(isinstance(op, SeghistOp) for op in ops)
    assert not any(isinstance(op, HistOp) for op in ops)


def test_moderate_flattening_keeps_hists_sequential() -> None:
    module = flattened(MAP_HIST_PROGRAMS["rows"], "moderate")
    ops = list(module.walk())
    assert not any(isinstance(op, SeghistOp) for op in ops)
    assert sum(isinstance(op, HistOp) for op in ops) == 2


def test_input_rows_are_not_consumed() -> None:
    """The destinations are rows of an argument, which the program also returns: the seghist takes a copy."""
    args = map_hist_args("into_rows", (4, 9))
    before = np.array(args[1])
    module = flattened(MAP_HIST_PROGRAMS["into_rows"], "full")
    from soac.interpreter import run_function

    _, inits = run_function(module, "main", args)
    np.testing.assert_array_equal(inits, before)
