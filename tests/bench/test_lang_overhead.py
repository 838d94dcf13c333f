"""bench/lang_overhead.py runs on PoCL with tiny repetitions and writes its figures (the timings themselves are
the benchmark's business; this checks that it runs and that the two map->scan programs have the same kernels)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_lang_overhead_smoke(tmp_path: Path) -> None:
    out = tmp_path / "lang.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "lang_overhead.py"), "--sizes", "1000", "--reps", "40", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert figures["same_opencl"] is True
    row = figures["n=1000"]
    assert row["reps"] == 40
    assert row["kernels_us"] > 0
    assert set(figures["first_calls"]) == {"trace_ms", "miss_both_ms", "disk_hit_ms"}
