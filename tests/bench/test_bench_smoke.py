"""The benchmark harness in its CI mode: `python bench/run.py --smoke` on PoCL with tiny sizes (< 60 s)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_bench_smoke(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--smoke", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads((tmp_path / "results.json").read_text())
    rows = report["rows"]
    benches = {r["bench"] for r in rows}
    assert {"map_scan", "scan_scan", "sum", "scan_reduce", "radix_sort", "segred", "segscan", "matmul", "locvolcalib"} <= benches
    fused = [r for r in rows if (r["bench"], r["label"]) in (("map_scan", "fused"), ("scan_reduce", "fused/lookback"))]
    assert {r["bench"] for r in fused} == {"map_scan", "scan_reduce"}
    assert all(r["ms"] is not None for r in fused)
    assert any(r["kind"] == "cpu" for r in rows), "numpy peers run in smoke mode"
    assert "map_scan" in (tmp_path / "table.txt").read_text()
    assert "[1/" in result.stderr, "progress is shown"


OPTIONS = ["--sizes", "3001,0", "--runs", "1", "--device", "cpu", "--breakdown", "--one-bit", "--json"]


@pytest.mark.slow
def test_sort_bench_smoke(tmp_path: Path) -> None:
    """bench/sort.py on PoCL: the soac sort is checked against numpy's inside; peers need an NVIDIA GPU."""
    out = tmp_path / "sort.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "sort.py"), *OPTIONS, str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    rows = json.loads(out.read_text())["rows"]
    assert [r["n"] for r in rows] == [3001, 0]
    assert rows[0]["soac_kernels"] > 0
    assert rows[0]["one_bit_kernels"] > 0
    names = rows[0]["breakdown"]
    assert any("hist" in name for name in names)
    assert not any("scatter" in name for name in names), "the scan kernel does the scatter"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("script", "options", "rows"),
    [
        ("lookback_variants.py", ["--benches", "scan_scan", "--configs", "default,split,nolookback"], 3),
        ("reduce_variants.py", ["--configs", "4/256/0,2/64/16"], 2),
    ],
)
def test_variant_scripts_check_and_time_every_configuration(script: str, options: list[str], rows: int) -> None:
    """Each configuration is checked against numpy (the look-back scan without its look-back is not) and timed."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), "--log2-size", "12", "--runs", "1", "--device", "cpu", *options],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0].startswith("device: ")
    assert "memcpy" in lines[0]
    timed = [line for line in lines if line.rstrip().endswith(" s)")]
    assert len(timed) == rows
    checked = sum(" ok " in line for line in timed)
    assert checked == rows - ("nolookback" in " ".join(options))
    assert lines[-1] == "0 failures"


@pytest.mark.slow
def test_partition_sort_bench_smoke(tmp_path: Path) -> None:
    """bench/sort.py --partition on PoCL: both sorts on soac.partition, every distribution, checked inside."""
    out = tmp_path / "partition.json"
    command = [sys.executable, str(ROOT / "bench" / "sort.py"), "--partition", "--sizes", "3001,0", "--runs", "1"]
    result = subprocess.run(
        [*command, "--device", "cpu", "--breakdown", "--json", str(out)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    rows = json.loads(out.read_text())["rows"]
    assert {(r["n"], r["distribution"], r["kind"]) for r in rows} == {
        (n, d, k) for n in (3001, 0) for d in ("uniform", "few", "sorted") for k in ("keys", "pairs")
    }
    first = rows[0]
    assert first["soac_kernels"] > 0
    assert any("partition_" in name for name in first["breakdown"])
