"""The histogram sweep (issue 12): `soac.hist` with (+) on int32 against CUB and torch, in one run on one GPU.

    python bench/hist.py [--n 268435456] [--bins 16,256,4096,65536,1048576] [--runs 9] [--json OUT] [--device gpu] [--f32]

For each bin count: uniformly random int32 indices in [0, bins); soac runs bench/programs/hist_counts.mlir with each
lowering strategy (`local` subhistograms, the default on GPUs, and `global` atomics; kernel time from OpenCL
profiling events, the copy of the empty bins included, inputs resident on the device); torch runs
`torch.bincount` (CUDA events); CUB runs `cub::DeviceHistogram::HistogramEven` (bench/cub_hist.cu, built with nvcc
when it is there; CUDA events, its own random samples of the same distribution). Medians of `--runs` calls after a
warm-up; soac's counts are checked against numpy's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from run import Timed, Variant  # noqa: E402  # pyright: ignore[reportMissingImports]


def soac_ms(device: object, indices: np.ndarray, bins: int, runs: int, strategy: str) -> float:
    os.environ["SOAC_HIST"] = strategy
    timed = Timed(Variant("hist", (ROOT / "programs" / "hist_counts.mlir").read_text()), device)
    empty = np.zeros(bins, np.int32)
    _, (counts,), _ = timed.run([indices, empty])
    np.testing.assert_array_equal(counts, np.bincount(indices, minlength=bins))
    timed.keep_on_device()
    return float(np.median([timed.run([indices, empty])[0] for _ in range(runs)]))


def soac_f32_ms(device: object, indices: np.ndarray, bins: int, runs: int, strategy: str) -> float:
    """The weighted f32 histogram (weights 1.0, so the sums are exact counts to check)."""
    os.environ["SOAC_HIST"] = strategy
    timed = Timed(Variant("hist_f32", (ROOT / "programs" / "hist_weights_f32.mlir").read_text()), device)
    weights, empty = np.ones(len(indices), np.float32), np.zeros(bins, np.float32)
    _, (sums,), _ = timed.run([indices, weights, empty])
    np.testing.assert_array_equal(sums, np.bincount(indices, minlength=bins).astype(np.float32))
    timed.keep_on_device()
    return float(np.median([timed.run([indices, weights, empty])[0] for _ in range(runs)]))


def torch_ms(indices: np.ndarray, bins: int, runs: int) -> float | None:
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    data = torch.from_numpy(indices).cuda()
    torch.bincount(data, minlength=bins)
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.bincount(data, minlength=bins)
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return float(np.median(times))


def build_cub() -> Path | None:
    nvcc = shutil.which("nvcc") or next((str(p) for p in Path("/usr/local").glob("cuda*/bin/nvcc")), None)
    if nvcc is None:
        return None
    binary = Path(tempfile.gettempdir()) / "soac_cub_hist"
    subprocess.run([nvcc, "-O3", "-arch=native", "-o", str(binary), str(ROOT / "cub_hist.cu")], check=True)
    return binary


def cub_ms(binary: Path | None, n: int, bins: int, runs: int) -> float | None:
    if binary is None:
        return None
    done = subprocess.run([str(binary), str(n), str(bins), str(runs)], capture_output=True, text=True, check=True)
    ms, total = done.stdout.split()
    assert int(total) == n, done.stdout
    return float(ms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2**28)
    parser.add_argument("--bins", default="16,256,4096,65536,1048576")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--f32", action="store_true", help="also time f32 (+) with weights (soac, default strategy)")
    parser.add_argument("--device", default="gpu", help="as SOAC_OPENCL_DEVICE (peers run only on an NVIDIA GPU)")
    options = parser.parse_args()
    from soac.lowering.runtime import choose_device

    device = choose_device(options.device)
    nvidia = "nvidia" in device.platform.name.lower()  # pyright: ignore[reportAttributeAccessIssue]
    cub = build_cub() if nvidia else None
    print(f"device: {device.name}; n = {options.n}; runs = {options.runs}", flush=True)
    print(f"{'bins':>8} {'local ms':>9} {'global ms':>9} {'CUB ms':>9} {'torch ms':>9} {'soac / best peer':>17}", flush=True)
    rows = []
    for bins in (int(b) for b in options.bins.split(",")):
        indices = np.random.default_rng(bins).integers(0, bins, options.n, dtype=np.int32)
        row = {
            "bins": bins,
            "local": soac_ms(device, indices, bins, options.runs, "local"),
            "global": soac_ms(device, indices, bins, options.runs, "global"),
            "cub": cub_ms(cub, options.n, bins, options.runs),
            "torch": torch_ms(indices, bins, options.runs) if nvidia else None,
        }
        peers = [t for t in (row["cub"], row["torch"]) if t is not None]
        ratio = f"{row['local'] / min(peers):17.2f}" if peers else f"{'':>17}"
        times = (row["local"], row["global"], row["cub"], row["torch"])
        show = [f"{t:9.3f}" if t is not None else f"{'-':>9}" for t in times]
        line = f"{bins:>8} {' '.join(show)} {ratio}"
        if options.f32:
            row["f32_local"] = soac_f32_ms(device, indices, bins, options.runs, "local")
            line += f"   f32 (+), local: {row['f32_local']:.3f} ms"
        print(line, flush=True)
        rows.append(row)
    if options.json:
        Path(options.json).write_text(json.dumps({"device": device.name, "n": options.n, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
