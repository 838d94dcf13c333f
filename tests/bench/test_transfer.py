"""bench/transfer.py runs on PoCL at a small size and writes its figures (timings are the benchmark's business; this
checks that it runs, that chained device calls moved nothing and that the host loop read nothing back)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_transfer_bench_runs(tmp_path: Path) -> None:
    out = tmp_path / "transfer.json"
    command = [sys.executable, str(ROOT / "bench" / "transfer.py"), "--small", "--mb", "1", "--runs", "2"]
    done = subprocess.run(
        [*command, "--loop-steps", "50", "--json", str(out)], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert figures["chained_transfers"] == {"uploads": 0, "downloads": 0, "element_reads": 0}
    assert figures["loop_element_reads"] == 0
    for key in ("numpy_call_ms", "device_call_ms", "pyopencl_floor_ms", "pinned_floor_ms", "kernels_ms"):
        assert figures[key] > 0, key
    for key in ("loop_us_per_iter", "loop_host_us_per_iter"):  # differences of two timings: noise may make them negative
        assert isinstance(figures[key], float), key
    for peer in ("cupy", "jax"):  # optional: timed where installed, else said to be missing
        assert f"{peer}_ms" in figures or figures[peer].startswith("missing")
    assert "numpy call / pyopencl floor" in done.stdout
