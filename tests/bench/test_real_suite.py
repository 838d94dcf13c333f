"""bench/real: the real-program suite. `run.py --small` on PoCL checks every program against numpy and times it;
the array-code peers (run on the GPU through JAX and CuPy) are checked here on numpy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "real"))

from suite import PROGRAMS, agree  # noqa: E402


def test_the_suite_has_twelve_programs_with_both_sizes() -> None:
    assert len(PROGRAMS) >= 12
    assert len({p.name for p in PROGRAMS}) == len(PROGRAMS)
    assert all({"gpu", "small"} <= set(p.sizes) for p in PROGRAMS)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_peer_array_code_matches_the_reference(program) -> None:
    args = program.inputs(np.random.default_rng(1), program.sizes["small"])
    expected = program.reference(*args)
    peer = program.peer(np) if program.peer else None
    if peer is None:
        pytest.skip(f"{program.name} has no numpy-like peer")
    got = peer(*[int(a) if k in program.static else a for k, a in enumerate(args)])
    assert agree(program, expected, got) is None


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_agree_rejects_a_changed_result(program) -> None:
    args = program.inputs(np.random.default_rng(2), program.sizes["small"])
    expected = program.reference(*args)
    results = list(expected) if isinstance(expected, tuple) else [expected]
    first = np.array(results[0], copy=True)
    flat = first.reshape(-1)
    if flat.size:
        flat[: max(1, flat.size // 50)] += 1 if first.dtype.kind in "iu" else np.abs(flat).max() + 1
    else:
        first = np.ones(1, first.dtype)
    changed = (first, *results[1:]) if isinstance(expected, tuple) else first
    assert agree(program, expected, changed) is not None


@pytest.mark.slow
def test_real_suite_small_runs_and_matches_numpy(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "real" / "run.py"), "--small", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads((tmp_path / "results.json").read_text())
    rows = {r["program"]: r for r in report["rows"]}
    assert set(rows) == {p.name for p in PROGRAMS}
    for name, row in rows.items():
        assert row["error"] is None, (name, row["error"])
        for key in ("first_call_ms", "call_ms", "resident_ms", "kernel_ms"):
            assert row[key] > 0, (name, key)
        assert row["launches"] > 0
        assert all(v["error"] is None and v["resident_ms"] > 0 for v in row["versions"]), name
    versioned = [r for r in rows.values() if r["thresholds"]]
    assert versioned, "some programs have flattened versions behind thresholds"
    assert all(len(r["versions"]) >= 2 for r in versioned)
    table = (tmp_path / "table.txt").read_text()
    assert all(name in table for name in rows)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "kernels"),
    [
        ("cpu", {"backprop": "segred_thread", "matvec": "segred_thread"}),
        ("generic", {"backprop": "segred_vector", "matvec": "segred_teams"}),
    ],
)
def test_backprop_and_matvec_run_their_segmented_reductions_on_the_whole_device(tmp_path: Path, target, kernels) -> None:
    """Every version of the two programs whose flattened version is a segred matches numpy; on PoCL their segments
    (16 of 3000, 500 of 301) get a work-item each on the CPU target (more segments than groups) and, on the generic
    GPU target, the vector kernel (rows of 3000, a multiple of 4) and teams (rows of 301), the host choosing."""
    out = ["--out", str(tmp_path)]
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "real" / "run.py"), "--small", "--only", "backprop,matvec", "--no-peers", *out],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env={**os.environ, "SOAC_TARGET": target},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    rows = {r["program"]: r for r in json.loads((tmp_path / "results.json").read_text())["rows"]}
    assert set(rows) == {"backprop", "matvec"}
    for name, row in rows.items():
        assert row["error"] is None, name
        assert all(v["error"] is None for v in row["versions"]), name
        launched = {k for v in row["versions"] for k in v["kernels"]}
        assert f"{name}_{kernels[name]}_0" in launched, (name, launched)


def test_variants_run_each_program_under_each_pipeline(tmp_path: Path) -> None:
    """`--variants`: one row per program and variant, `program[variant]`, every version checked; session 40's
    coalescing pipeline's outer-parallel softmax launches the transposed copy and the rows' second kernel, the row
    tiles' its tiled walks and no copy; an unknown variant is refused by name."""
    run = [sys.executable, str(ROOT / "bench" / "real" / "run.py"), "--small", "--only", "softmax", "--runs", "1"]
    result = subprocess.run(
        [*run, "--variants", "copies,coalesce,rowtiles", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    rows = {r["program"]: r for r in json.loads((tmp_path / "results.json").read_text())["rows"]}
    assert set(rows) == {"softmax[copies]", "softmax[coalesce]", "softmax[rowtiles]"}
    for name, row in rows.items():
        assert row["error"] is None, name
        assert all(v["error"] is None for v in row["versions"]), name
    (outer,) = [v for v in rows["softmax[coalesce]"]["versions"] if v["label"].startswith("outer_par_0+")]
    assert any(k.startswith("softmax_transpose") for k in outer["kernels"]), outer["kernels"]  # the copy (cpu: simple)
    assert "softmax_segmap_1" in outer["kernels"]
    (tiled,) = [v for v in rows["softmax[rowtiles]"]["versions"] if v["label"].startswith("outer_par_0+")]
    assert sum(k.startswith("softmax_tiled") for k in tiled["kernels"]) >= 2, tiled["kernels"]  # the two walks
    assert not any(k.startswith("softmax_transpose") for k in tiled["kernels"]), tiled["kernels"]
    refused = subprocess.run([*run, "--variants", "nope"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert refused.returncode != 0
    assert "unknown variants: nope" in refused.stderr
