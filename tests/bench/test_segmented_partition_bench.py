"""bench/segmented_partition.py on PoCL with tiny shapes: every soac variant runs and matches numpy (the peers need an
NVIDIA GPU and are skipped without one)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_segmented_partition_bench_smoke() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "segmented_partition.py"), "--shapes", "3x1000,300x20", "--runs", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT / "bench",
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = [line for line in result.stdout.splitlines() if line.startswith("soac ")]
    assert len(lines) == 2 * 3 * 2  # two shapes, three programs, segmented and per work-item
    assert all(line.endswith("matches numpy: True") for line in lines), result.stdout
