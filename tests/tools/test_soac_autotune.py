"""`soac-autotune` on the interpreter: datasets, progress, the tuning file, and choices consistent with Par."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.thresholds import ThresholdInfo, list_thresholds
from soac.tools.soac_autotune import Tuner, candidates

ROOT = Path(__file__).resolve().parents[2]
SUM_ROWS = ROOT / "examples" / "sum_rows.mlir"
ROW_STATS = """
func.func @main(%xss: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
    %s = soac.reduce %m (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
    %x = soac.reduce %m (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.maximumf %a, %b : f32
      soac.yield %c : f32
    }
    %t = arith.addf %s, %x : f32
    soac.yield %t : f32
  }
  func.return %r : tensor<?xf32>
}
"""
"""Each row's sum plus its maximum: two inner reductions, so an outer-parallel and an intra-group version."""


def autotune(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "soac.tools.soac_autotune", *(str(a) for a in args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_candidates_split_every_way() -> None:
    assert candidates({5}) == [5, 6]
    assert candidates({4, 9, 20}) == [4, 5, 10, 21]


def test_tuner_picks_versions_that_match_par() -> None:
    """A fake clock where the guarded (outer) version is fast only when Par >= 100: the tuned threshold takes
    it exactly on the datasets with enough parallelism, and each distinct behaviour is timed once."""
    infos = [ThresholdInfo("suff_outer_par_0", 32768, ())]
    pars = [{"suff_outer_par_0": {10}}, {"suff_outer_par_0": {1000}}, {"suff_outer_par_0": {50}}]
    calls: list[tuple[int, int]] = []

    def measure(dataset: int, thresholds: dict[str, int]) -> float:
        par = next(iter(pars[dataset]["suff_outer_par_0"]))
        calls.append((dataset, thresholds["suff_outer_par_0"]))
        outer = par >= thresholds["suff_outer_par_0"]
        return 1.0 if outer == (par >= 100) else 2.0

    config = Tuner(infos, pars, measure).tune()
    t = config["suff_outer_par_0"]
    assert 50 < t <= 1000
    assert len(calls) == len(set((d, par >= v) for d, v in calls for par in pars[d]["suff_outer_par_0"]))


def test_unreached_threshold_keeps_default() -> None:
    infos = [ThresholdInfo("a", 32768, ()), ThresholdInfo("b", 32, (("a", False),))]
    config = Tuner(infos, [{"a": {3}}], lambda d, t: 1.0).tune()
    assert config["b"] == 32
    assert config["a"] in (3, 4)


@pytest.fixture
def flat_row_stats(tmp_path: Path) -> Path:
    ctx = make_context()
    module = parse_module(ctx, ROW_STATS, "row_stats")
    SoacFlattenPass().apply(ctx, module)
    path = tmp_path / "row_stats.mlir"
    path.write_text(str(module))
    return path


def test_cli_writes_tuning_file(flat_row_stats: Path, tmp_path: Path) -> None:
    data = tmp_path / "big"
    data.mkdir()
    np.save(data / "xss.npy", np.ones((40, 3), np.float32))
    np.savez(tmp_path / "small.npz", np.ones((2, 50), np.float32))
    small = tmp_path / "small.npz"
    done = autotune(flat_row_stats, "--dataset", data, "--dataset", small, "--dataset", "[[1,2],[3,4]]", "--runs", "1")
    assert done.returncode == 0, done.stderr
    assert "[1/2] suff_intra_par_1" in done.stderr
    assert "[2/2] suff_outer_par_0" in done.stderr
    assert "dataset #0: suff_outer_par_0 sees [40]" in done.stderr
    assert "dataset #1: suff_outer_par_0 sees [2], suff_intra_par_1 sees [50]" in done.stderr
    assert "x the speed of the defaults" in done.stdout
    tuning = Path(f"{flat_row_stats}.tuning").read_text().splitlines()
    values = dict(line.split("=") for line in tuning)
    assert sorted(values) == ["suff_intra_par_1", "suff_outer_par_0"]
    # Candidates come from the Par values seen: the smallest, or one more than a value.
    assert int(values["suff_outer_par_0"]) in candidates({2, 40, 2})
    assert int(values["suff_intra_par_1"]) in candidates({50, 3, 2})
    tuned = ["--tuning", f"{flat_row_stats}.tuning", "--input", "[[1,2],[3,4]]"]
    run = subprocess.run(
        [sys.executable, "-m", "soac.tools.soac_run", flat_row_stats, *tuned], capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "result #0 : tensor<?xf32> = [ 5. 11.]"


def test_cli_pipeline_and_output(tmp_path: Path) -> None:
    out = tmp_path / "t.tuning"
    program = tmp_path / "row_stats.mlir"
    program.write_text(ROW_STATS)
    done = autotune(program, "--pipeline", "soac-flatten", "--dataset", "[[1,2,3]]", "--runs", "1", "--output", out)
    assert done.returncode == 0, done.stderr
    assert out.read_text().count("=") == 2


def test_cli_bad_dataset(flat_row_stats: Path) -> None:
    done = autotune(flat_row_stats, "--dataset", "[1,2]", "3")
    assert done.returncode == 1
    assert done.stderr.startswith("error: @main takes 1 inputs, the dataset gives 2")


def test_program_without_thresholds(tmp_path: Path) -> None:
    done = autotune(SUM_ROWS, "--dataset", "[[1,2]]", "--runs", "1", "--output", tmp_path / "none.tuning")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "none.tuning").read_text() == ""
    assert list_thresholds(parse_module(make_context(), SUM_ROWS.read_text(), "x")) == []
