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


TWO_INNER = """
func.func @main(%xss: tensor<?x?xi32>, %ys: tensor<?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %k = tensor.dim %ys, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>) {
    %s = soac.reduce %k (%ys : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    %ws = soac.map %m (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %t = soac.reduce %k (%ys : tensor<?xi32>) neutral(%x : i32) -> i32 combine(%a: i32, %b: i32) {
        %c = arith.maxsi %a, %b : i32
        soac.yield %c : i32
      }
      %w = arith.addi %t, %s : i32
      soac.yield %w : i32
    }
    soac.yield %ws : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
"""
"""A map of a reduction and a map of reductions: outer-parallel and intra-group versions, and in the flat one,
the inner map's outer-parallel version (a map of one reduction makes no intra-group version)."""


def two_inner():
    ctx = make_context()
    module = parse_module(ctx, TWO_INNER, "two_inner")
    SoacFlattenPass().apply(ctx, module)
    return module


def test_list_thresholds_two_inner() -> None:
    infos = list_thresholds(two_inner())
    assert [(t.name, t.kind, t.default, t.depth) for t in infos] == [
        ("suff_outer_par_0", "outer", 32768, 0),
        ("suff_intra_par_1", "intra", 32, 1),
        ("suff_outer_par_2", "outer", 32768, 2),
    ]
    assert infos[2].path == (("suff_outer_par_0", False), ("suff_intra_par_1", False))
    text = tuning_text(infos, {"suff_outer_par_0": 7})
    assert text.splitlines()[0] == "suff_outer_par_0=7"
    assert text.splitlines()[1] == "suff_intra_par_1=32  # when not suff_outer_par_0"


def test_observe_pars_are_products_of_widths() -> None:
    xss, ys = np.ones((5, 4), np.int32), np.ones(3, np.int32)
    module = two_inner()
    everything_off = {t.name: MAX_THRESHOLD for t in list_thresholds(module)}
    seen = observe_pars(module, "main", [xss, ys], everything_off)
    assert seen == {"suff_outer_par_0": {5}, "suff_intra_par_1": {3}, "suff_outer_par_2": {20}}
    # With the defaults (32768 and 32), the outer and intra thresholds are all false here too; with the first
    # threshold at 0, the outer version runs and no other threshold is compared.
    assert observe_pars(module, "main", [xss, ys], {"suff_outer_par_0": 0}) == {"suff_outer_par_0": {5}}


def test_soac_run_list_thresholds(tmp_path: Path) -> None:
    flat = tmp_path / "sum_rows.mlir"
    source = str(ROOT / "examples" / "sum_rows.mlir")
    subprocess.run([sys.executable, "-m", "soac.tools.soac_opt", source, "-p", "soac-flatten", "-o", str(flat)], check=True)
    done = subprocess.run(
        [sys.executable, "-m", "soac.tools.soac_run", str(flat), "--list-thresholds"], capture_output=True, text=True, check=True
    )
    assert done.stdout == "suff_outer_par_0=32768\n"
