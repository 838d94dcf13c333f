"""Listing a program's thresholds, their paths and defaults, and observing the parallelism they see."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from soac.context import make_context
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds, observe_pars, tuning_text

ROOT = Path(__file__).resolve().parents[2]


def matmul():
    ctx = make_context()
    module = parse_module(ctx, (ROOT / "examples" / "matmul.mlir").read_text(), "matmul")
    SoacFlattenPass().apply(ctx, module)
    return module


def test_list_thresholds_matmul() -> None:
    infos = list_thresholds(matmul())
    assert [(t.name, t.kind, t.default, t.depth) for t in infos] == [
        ("suff_outer_par_0", "outer", 32768, 0),
        ("suff_intra_par_1", "intra", 32, 1),
        ("suff_outer_par_2", "outer", 32768, 2),
        ("suff_intra_par_3", "intra", 32, 3),
    ]
    assert infos[3].path == (("suff_outer_par_0", False), ("suff_intra_par_1", False), ("suff_outer_par_2", False))
    text = tuning_text(infos, {"suff_outer_par_0": 7})
    assert text.splitlines()[0] == "suff_outer_par_0=7"
    assert text.splitlines()[1] == "suff_intra_par_1=32  # when not suff_outer_par_0"


def test_observe_pars_are_products_of_widths() -> None:
    a, b = np.ones((5, 3), np.float32), np.ones((3, 4), np.float32)
    module = matmul()
    everything_off = {t.name: MAX_THRESHOLD for t in list_thresholds(module)}
    seen = observe_pars(module, "main", [a, b], everything_off)
    assert seen == {"suff_outer_par_0": {5}, "suff_intra_par_1": {4}, "suff_outer_par_2": {20}, "suff_intra_par_3": {3}}
    # With the defaults (32768 and 32), the outer and intra thresholds are all false here too; with the first
    # threshold at 0, the outer version runs and no other threshold is compared.
    assert observe_pars(module, "main", [a, b], {"suff_outer_par_0": 0}) == {"suff_outer_par_0": {5}}


def test_soac_run_list_thresholds(tmp_path: Path) -> None:
    flat = tmp_path / "sum_rows.mlir"
    source = str(ROOT / "examples" / "sum_rows.mlir")
    subprocess.run([sys.executable, "-m", "soac.tools.soac_opt", source, "-p", "soac-flatten", "-o", str(flat)], check=True)
    done = subprocess.run(
        [sys.executable, "-m", "soac.tools.soac_run", str(flat), "--list-thresholds"], capture_output=True, text=True, check=True
    )
    assert done.stdout == "suff_outer_par_0=32768\nsuff_intra_par_1=32  # when not suff_outer_par_0\n"
