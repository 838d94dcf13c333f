"""Stencils (issue 14): 2-D 5-point and 3x3 stencils on an n x n f32 grid, one sweep and `--steps` Jacobi iterations,
against torch and CuPy and a device memcpy, in one run on one GPU.

    python bench/stencil.py [--n 8192] [--steps 100] [--runs 5] [--tiles 16x128,8x128,...] [--strategies streamed,tiled]
                            [--json OUT] [--device gpu]

soac runs bench/programs/jacobi_5pt.mlir and jacobi_3x3.mlir (zero outside the grid: boundary `constant`) with
`%steps` = 1 (one sweep) and `--steps` (a `scf.for` around the stencil); each block strategy (SOAC_STENCIL) with
each tile shape (`tile [a, b]` put into the program) and the `direct` kernel for the sweep; the first strategy with
the first tile, and the best variant, for the iterations. soac times: the summed OpenCL profiling times of the
kernels one call enqueues (inputs resident on the device), and for the iterations also the wall time of the call
(the host loop included).
Peers on the same grid: torch `conv2d` (padding 1, zeros; TF32 off), torch pad + shifted slices, torch `roll`
(5-point, wrap-around boundary), CuPy `cupyx.scipy.ndimage.correlate` (mode constant); CUDA events, medians of
`--runs`. `BW frac` = the copy time of the grid (clEnqueueCopyBuffer, read + write) / the sweep time: each element
read once and written once. soac's results are checked against torch's (else numpy's).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent / "tests"))
from run import Timed, Variant, copy_ms  # noqa: E402  # pyright: ignore[reportMissingImports]
from stencil_reference import stencil  # noqa: E402  # pyright: ignore[reportMissingImports]

WEIGHTS = {
    "5-point": np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], np.float32) / 4,
    "3x3": np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float32) / 16,
}
PROGRAMS = {"5-point": "jacobi_5pt.mlir", "3x3": "jacobi_3x3.mlir"}


def with_tile(text: str, tile: tuple[int, int] | None) -> str:
    if tile is None:
        return text
    return text.replace(") (%u : tensor<?x?xf32>)", f") tile [{tile[0]}, {tile[1]}] (%u : tensor<?x?xf32>)")


def numpy_sweep(grid: np.ndarray, weights: np.ndarray) -> np.ndarray:
    flat = weights.reshape(-1)
    return stencil(lambda *ns: sum(w * n for w, n in zip(flat, ns) if w), [grid], (3, 3), "constant")


class Soac:
    """One compiled variant: timed calls with the inputs on the device."""

    def __init__(self, device: Any, name: str, tile: tuple[int, int] | None, strategy: str):
        os.environ["SOAC_STENCIL"] = strategy
        text = with_tile((ROOT / "programs" / PROGRAMS[name]).read_text(), tile)
        self.timed = Timed(Variant(f"{name} {strategy} {tile}", text), device)
        self.scalars: dict[int, np.int64] = {}
        """The step counts passed so far, kept alive: the device-resident inputs are cached by object identity."""

    def call(self, grid: np.ndarray, steps: int) -> tuple[float, float, Any]:
        """(summed kernel ms, wall ms, result) of one call."""
        timed = self.timed
        timed.events.clear()
        start = time.perf_counter()
        count = self.scalars.setdefault(steps, np.int64(steps))
        result = timed.program.call("main", [grid, count])[0]
        timed.program.queue.finish()
        wall = (time.perf_counter() - start) * 1e3
        kernel = sum(e.profile.end - e.profile.start for e in timed.events) * 1e-6
        return kernel, wall, result

    def keep_on_device(self) -> None:
        self.timed.keep_on_device()

    def median(self, grid: np.ndarray, steps: int, runs: int) -> tuple[float, float]:
        times = [self.call(grid, steps)[:2] for _ in range(runs)]
        return float(np.median([t[0] for t in times])), float(np.median([t[1] for t in times]))


def cuda_ms(step: Callable[[], Any], sync: Callable[[], None], event: Callable[[], Any], runs: int, repeat: int = 1) -> float:
    step()
    sync()
    times = []
    for _ in range(runs):
        start, stop = event(), event()
        start.record()
        for _ in range(repeat):
            step()
        stop.record()
        stop.synchronize()
        times.append(stop_minus(start, stop))
    return float(np.median(times))


def stop_minus(start: Any, stop: Any) -> float:
    if hasattr(start, "elapsed_time"):
        return start.elapsed_time(stop)
    import cupy

    return cupy.cuda.get_elapsed_time(start, stop)


def torch_peers(grid: np.ndarray, name: str, steps: int, runs: int) -> tuple[dict[str, float], Any, Any]:
    """Sweep and per-iteration times of the torch variants, and conv2d's results after 1 and `steps` sweeps."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return {}, None, None
    if not torch.cuda.is_available():
        return {}, None, None
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    u = torch.from_numpy(grid).cuda()[None, None]
    w = torch.from_numpy(WEIGHTS[name]).cuda()[None, None]

    def conv(x: Any) -> Any:
        return F.conv2d(x, w, padding=1)

    def slices(x: Any) -> Any:
        p = F.pad(x, (1, 1, 1, 1))
        if name == "5-point":
            return (p[..., :-2, 1:-1] + p[..., 2:, 1:-1] + p[..., 1:-1, :-2] + p[..., 1:-1, 2:]) * 0.25
        corners = p[..., :-2, :-2] + p[..., :-2, 2:] + p[..., 2:, :-2] + p[..., 2:, 2:]
        edges = p[..., :-2, 1:-1] + p[..., 2:, 1:-1] + p[..., 1:-1, :-2] + p[..., 1:-1, 2:]
        return corners * 0.0625 + edges * 0.125 + p[..., 1:-1, 1:-1] * 0.25

    def roll(x: Any) -> Any:
        return (torch.roll(x, 1, 2) + torch.roll(x, -1, 2) + torch.roll(x, 1, 3) + torch.roll(x, -1, 3)) * 0.25

    def event() -> Any:
        return torch.cuda.Event(enable_timing=True)

    times: dict[str, float] = {}
    variants = {"torch conv2d": conv, "torch slices": slices} | ({"torch roll (wrap)": roll} if name == "5-point" else {})
    for label, f in variants.items():
        times[f"{label} sweep"] = cuda_ms(lambda f=f: f(u), torch.cuda.synchronize, event, runs)

        def iterate(f: Callable[[Any], Any] = f) -> Any:
            x = u
            for _ in range(steps):
                x = f(x)
            return x

        times[f"{label} iteration"] = cuda_ms(iterate, torch.cuda.synchronize, event, runs) / steps
    one = conv(u)[0, 0].cpu().numpy()
    many = u
    for _ in range(steps):
        many = conv(many)
    return times, one, many[0, 0].cpu().numpy()


def cupy_peers(grid: np.ndarray, name: str, steps: int, runs: int) -> dict[str, float]:
    try:
        import cupy
        import cupyx.scipy.ndimage as ndimage
    except ImportError:
        return {}
    u = cupy.asarray(grid)
    w = cupy.asarray(WEIGHTS[name])

    def correlate(x: Any) -> Any:
        return ndimage.correlate(x, w, mode="constant", cval=0.0)

    def iterate() -> Any:
        x = u
        for _ in range(steps):
            x = correlate(x)
        return x

    sync = cupy.cuda.Device().synchronize
    return {
        "cupy correlate sweep": cuda_ms(lambda: correlate(u), sync, cupy.cuda.Event, runs),
        "cupy correlate iteration": cuda_ms(iterate, sync, cupy.cuda.Event, runs) / steps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tiles", default="16x128,8x128,16x64,32x32,8x256")
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--strategies", default="streamed,tiled", help="block strategies timed for each tile")
    options = parser.parse_args()
    from soac.lowering.runtime import choose_device

    device = choose_device(options.device)
    n, steps, runs = options.n, options.steps, options.runs
    tiles = [tuple(int(x) for x in t.split("x")) for t in options.tiles.split(",")]
    strategies = options.strategies.split(",")
    grid = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    copy = copy_ms(device, grid.nbytes, runs)
    print(f"device: {device.name}; {n} x {n} f32; {steps} iterations; runs = {runs}")  # pyright: ignore[reportAttributeAccessIssue]
    print(f"memcpy of the grid: {copy:.4f} ms ({2 * grid.nbytes / copy / 1e6:.0f} GB/s read + write)", flush=True)
    report: dict[str, Any] = {"device": device.name, "n": n, "steps": steps, "memcpy_ms": copy, "stencils": {}}  # pyright: ignore[reportAttributeAccessIssue]
    for name in PROGRAMS:
        print(f"\n== {name}", flush=True)
        peers, one_ref, many_ref = torch_peers(grid, name, steps, runs)
        peers |= cupy_peers(grid, name, steps, runs)
        if one_ref is None:
            one_ref = numpy_sweep(grid, WEIGHTS[name])
        sweeps: dict[str, float] = {}
        variants: dict[str, Soac] = {}
        for strategy, tile in [*((s, t) for t in tiles for s in strategies), ("direct", None)]:
            label = f"soac {strategy} {tile[0]}x{tile[1]}" if tile else "soac direct"
            soac = Soac(device, name, tile, strategy)
            _, _, result = soac.call(grid, 1)
            ok = np.allclose(np.asarray(result), one_ref, rtol=1e-5, atol=1e-5)
            soac.keep_on_device()
            sweeps[label] = soac.median(grid, 1, runs)[0]
            variants[label] = soac
            print(
                f"{label:24} sweep {sweeps[label]:8.4f} ms  BW frac {copy / sweeps[label]:5.3f}  {'ok' if ok else 'WRONG'}",
                flush=True,
            )
        best = min((k for k in sweeps if "direct" not in k), key=sweeps.__getitem__)
        iterations: dict[str, dict[str, float]] = {}
        for label in dict.fromkeys([f"soac {strategies[0]} {tiles[0][0]}x{tiles[0][1]}", best]):
            soac = variants[label]
            kernel, wall = soac.median(grid, steps, max(1, runs // 2))
            iterations[label] = {"kernel_ms": kernel, "wall_ms": wall}
            print(
                f"{label:24} {steps} iterations: kernels {kernel:8.3f} ms ({kernel / steps / sweeps[label]:.3f} x sweep per "
                f"iteration), wall {wall:8.3f} ms ({wall / steps / sweeps[label]:.3f} x sweep per iteration)",
                flush=True,
            )
        if many_ref is not None:
            fresh = Soac(device, name, tiles[0], strategies[0])
            result = np.asarray(fresh.call(grid, steps)[2])
            check = "ok" if np.allclose(result, many_ref, rtol=1e-4, atol=1e-5) else "WRONG"
            print(f"soac {steps} iterations vs torch conv2d: {check}")
        for label, ms in peers.items():
            frac = f"  BW frac {copy / ms:5.3f}" if label.endswith("sweep") else ""
            print(f"{label:32} {ms:8.4f} ms{frac}", flush=True)
        sweep_peers = [ms for label, ms in peers.items() if label.endswith("sweep")]
        if sweep_peers:
            print(f"best soac sweep / best peer sweep: {sweeps[best] / min(sweep_peers):.3f}")
        report["stencils"][name] = {"sweeps": sweeps, "best": best, "iterations": iterations, "peers": peers}
    if options.json:
        Path(options.json).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
