"""`bench/check_unsigned.py --small` (the GPU check of unsigned integers) passes on PoCL, one line per check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_check_unsigned_passes_on_pocl(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "check_unsigned.py"), "--small"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "SOAC_CACHE_DIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert sum(line.startswith("ok   ") for line in lines) == 4 * 5 + 2
    assert lines[-1] == "0 failure(s)"
