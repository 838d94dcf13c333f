"""The histogram sweep (issue 12): `soac.hist` with (+) on int32 against CUB and torch, in one run on one GPU.

    python bench/hist.py [--n 268435456] [--bins 16,256,4096,65536,1048576] [--runs 9] [--json OUT] [--device gpu]
        [--strategies default,local,global,copies,passes,copies:8] [--f32] [--argmax]

For each bin count: uniformly random int32 indices in [0, bins); soac runs bench/programs/hist_counts.mlir with
the default lowering and each strategy of `--strategies` forced (histogram.py's SOAC_HIST; `copies:K` also forces
K global copies, SOAC_HIST_COPIES); kernel time from OpenCL profiling events, the copy of the empty bins and every
launch of the histogram included, inputs resident on the device. torch runs `torch.bincount` (CUDA events); CUB
runs `cub::DeviceHistogram::HistogramEven` (bench/cub_hist.cu, built with nvcc when it is there; CUDA events, its
own random samples of the same distribution). Medians of `--runs` calls after a warm-up; soac's counts are checked
against numpy's. `--f32` also times f32 (+) with weights 1.0 (checked: exact counts), `--argmax` the (max, argmax)
operator on (f32, i32) (bench/programs/hist_argmax.mlir; checked: each bin's row is in the bin and has the bin's
weight, and no row of a sample beats it), both with the default lowering.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from peers import build_cuda  # noqa: E402  # pyright: ignore[reportMissingImports]
from run import Timed, Variant  # noqa: E402  # pyright: ignore[reportMissingImports]


def forcing(strategy: str) -> None:
    """Set the environment that forces `strategy` (`default`: nothing forced; `copies:K`: K global copies)."""
    name, _, copies = strategy.partition(":")
    os.environ.pop("SOAC_HIST", None)
    os.environ.pop("SOAC_HIST_COPIES", None)
    if name != "default":
        os.environ["SOAC_HIST"] = name
    if copies:
        os.environ["SOAC_HIST_COPIES"] = copies


def timed_ms(device: object, program: str, args: list[np.ndarray], runs: int, check: Callable[[tuple], None]) -> float:
    timed = Timed(Variant(program, (ROOT / "programs" / f"{program}.mlir").read_text()), device)
    _, results, _ = timed.run(args)
    check(tuple(results))
    timed.keep_on_device()
    return float(np.median([timed.run(args)[0] for _ in range(runs)]))


def soac_ms(device: object, indices: np.ndarray, counts: np.ndarray, runs: int, strategy: str) -> float:
    forcing(strategy)
    empty = np.zeros(len(counts), np.int32)
    return timed_ms(device, "hist_counts", [indices, empty], runs, lambda r: np.testing.assert_array_equal(r[0], counts))


def soac_f32_ms(device: object, indices: np.ndarray, counts: np.ndarray, runs: int) -> float:
    """The weighted f32 histogram (weights 1.0, so the sums are exact counts to check), default lowering."""
    forcing("default")
    weights, empty = np.ones(len(indices), np.float32), np.zeros(len(counts), np.float32)
    check = lambda r: np.testing.assert_array_equal(r[0], counts.astype(np.float32))  # noqa: E731
    return timed_ms(device, "hist_weights_f32", [indices, weights, empty], runs, check)


def soac_argmax_ms(device: object, indices: np.ndarray, bins: int, runs: int) -> float:
    """(max, argmax) on (f32, i32), default lowering (a packed 64-bit compare-and-swap)."""
    forcing("default")
    rng = np.random.default_rng(bins + 1)
    weights = rng.random(len(indices), np.float32)
    rows = np.arange(len(indices), dtype=np.int32)
    best, arg = np.full(bins, -np.inf, np.float32), np.full(bins, -1, np.int32)

    def check(results: tuple) -> None:
        got_best, got_arg = (np.asarray(r) for r in results)
        hit = got_arg >= 0
        assert (indices[got_arg[hit]] == np.flatnonzero(hit)).all()
        assert (weights[got_arg[hit]] == got_best[hit]).all()
        sample = rng.integers(0, len(indices), 1 << 20)
        assert (weights[sample] <= got_best[indices[sample]]).all()

    return timed_ms(device, "hist_argmax", [indices, weights, rows, best, arg], runs, check)


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
    parser.add_argument("--strategies", default="default,local,global", help="soac lowerings to time, comma-separated")
    parser.add_argument("--f32", action="store_true", help="also time f32 (+) with weights (soac, default strategy)")
    parser.add_argument("--argmax", action="store_true", help="also time (max, argmax) on (f32, i32) (default strategy)")
    parser.add_argument("--device", default="gpu", help="as SOAC_OPENCL_DEVICE (peers run only on an NVIDIA GPU)")
    options = parser.parse_args()
    from soac.lowering.runtime import choose_device

    device = choose_device(options.device)
    nvidia = "nvidia" in device.platform.name.lower()  # pyright: ignore[reportAttributeAccessIssue]
    cub = build_cuda(ROOT / "cub_hist.cu") if nvidia else None
    print(f"device: {device.name}; n = {options.n}; runs = {options.runs}", flush=True)
    strategies = options.strategies.split(",")
    print(f"{'bins':>8} " + " ".join(f"{s:>10}" for s in strategies) + f" {'CUB':>9} {'torch':>9} {'default / best peer':>20}")
    rows = []
    for bins in (int(b) for b in options.bins.split(",")):
        indices = np.random.default_rng(bins).integers(0, bins, options.n, dtype=np.int32)
        counts = np.bincount(indices, minlength=bins).astype(np.int32)
        row: dict[str, object] = {"bins": bins}
        for strategy in strategies:
            try:
                row[strategy] = soac_ms(device, indices, counts, options.runs, strategy)
            except Exception as error:  # a strategy that fails to build or run is reported, not fatal
                print(f"  {strategy} at {bins} bins: {type(error).__name__}: {str(error)[:300]}", flush=True)
                row[strategy] = None
        row["cub"] = cub_ms(cub, options.n, bins, options.runs)
        row["torch"] = torch_ms(indices, bins, options.runs) if nvidia else None
        peers = [t for t in (row["cub"], row["torch"]) if isinstance(t, float)]
        mine = row.get("default")
        ratio = f"{mine / min(peers):20.2f}" if peers and isinstance(mine, float) else f"{'':>20}"
        times = [row[s] for s in strategies] + [row["cub"], row["torch"]]
        show = [f"{t:10.3f}" if isinstance(t, float) else f"{'-':>10}" for t in times]
        line = f"{bins:>8} {' '.join(show)} {ratio}"
        for flag, name, measure in (
            (options.f32, "f32", lambda: soac_f32_ms(device, indices, counts, options.runs)),
            (options.argmax, "argmax", lambda: soac_argmax_ms(device, indices, bins, options.runs)),
        ):
            if not flag:
                continue
            try:
                row[name] = measure()
                line += f"   {name}: {row[name]:.3f} ms"
            except Exception as error:
                print(f"  {name} at {bins} bins: {type(error).__name__}: {str(error)[:300]}", flush=True)
        print(line, flush=True)
        rows.append(row)
    if options.json:
        Path(options.json).write_text(json.dumps({"device": device.name, "n": options.n, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
