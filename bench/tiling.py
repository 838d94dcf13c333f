"""Block and register tiling (soac-tile) against cuBLAS, and seed 004's all-pairs program against its untiled versions.

    python bench/tiling.py [--runs 5] [--device gpu] [--variants] [--json FILE] [--only matmul|all_pairs|nbody|gemm]

matmul: examples/matmul.mlir after `soac-flatten,soac-tile`, its outer-parallel version forced (the
tiled kernel, after the kernel that transposes `b`), against torch.matmul and cupy.matmul (cuBLAS,
TF32 off) in the same process. all-pairs: examples/all_pairs.mlir, tiled against the same program
without soac-tile (the outer-parallel `segmap thread` whose work-items each read all of `xs`, and
the fully flattened `segred`). soac times are the sum of the OpenCL kernel times of one call, peers'
are CUDA-event times; the median of --runs after one warm-up call. `--variants` also times other
tile sizes (`soac-tile{block=.. reg=.. chunk=..}`). nbody (bench/tiling_nbody.py): soac.lang's nbody step tiled and
untiled against `jax.jit` of the same step, at 20 flops per interaction. gemm (bench/tiling_gemm.py, only with
`--only gemm`): the tiled kernel's variants (`--gemm-variants`) at `--gemm-shapes` against cuBLAS.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from soac.context import make_context
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_tile import SoacTilePass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from xdsl.dialects.builtin import ModuleOp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from first_timing import profiled

ROOT = Path(__file__).resolve().parents[1]
MATMUL_SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 1024, 2048)]
"""(n, k, m): a is n x k, b is k x m."""
ALL_PAIRS_SIZES = [2**14, 2**16]
VARIANTS = [(128, 8, 8), (64, 4, 16), (64, 4, 8), (128, 8, 16), (128, 8, 4), (64, 8, 8), (128, 4, 16)]
"""(block, reg, chunk) for --variants (2-D nests)."""
VARIANTS_1D = [(128, 2, 128), (256, 1, 256), (256, 2, 256), (128, 1, 128), (256, 4, 256), (64, 2, 64)]


def flattened(name: str, tile: dict[str, int] | None) -> ModuleOp:
    path = ROOT / "examples" / name
    ctx = make_context()
    module = parse_module(ctx, path.read_text(), str(path))
    SoacFlattenPass().apply(ctx, module)
    if tile is not None:
        SoacTilePass(**tile).apply(ctx, module)
    return module


def outer_version(module: ModuleOp, outer: bool = True) -> dict[str, int]:
    """Thresholds that force the outer-parallel version over every dimension (or, `outer=False`, the fully
    flattened one)."""
    config = {info.name: MAX_THRESHOLD for info in list_thresholds(module)}
    if outer:
        deepest = max(list_thresholds(module), key=lambda info: info.depth)
        names = [name for name, _ in deepest.path if name.startswith("suff_outer")]
        if deepest.name.startswith("suff_outer"):
            names.append(deepest.name)
        config[names[-1]] = 0
    return config


def soac_timer(
    module: ModuleOp, device: str | None, runs: int
) -> Callable[[list[np.ndarray], dict[str, int]], tuple[float, Any]]:
    program = compile_module(module, device)
    events = profiled(program)

    def time(args: list[np.ndarray], thresholds: dict[str, int]) -> tuple[float, Any]:
        result = program.call("main", args, thresholds)[0]
        times = []
        for _ in range(runs):
            events.clear()
            program.call("main", args, thresholds)
            times.append(sum(e.profile.end - e.profile.start for e in events) * 1e-6)
        return float(np.median(times)), result

    return time


def peers(runs: int) -> dict[str, Callable[[np.ndarray, np.ndarray], float]]:
    """matmul with cuBLAS through torch and CuPy (TF32 off), CUDA-event milliseconds."""
    found: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {}
    try:
        import torch

        if torch.cuda.is_available():
            torch.backends.cuda.matmul.allow_tf32 = False

            def torch_ms(a: np.ndarray, b: np.ndarray) -> float:
                x, y = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
                return _events(lambda: torch.matmul(x, y), torch.cuda.Event, torch.cuda.synchronize, runs)

            found[f"torch {torch.__version__}"] = torch_ms
    except ImportError:
        pass
    try:
        import cupy as cp

        def cupy_ms(a: np.ndarray, b: np.ndarray) -> float:
            x, y = cp.asarray(a), cp.asarray(b)

            class Event:
                def __init__(self, enable_timing: bool = True):
                    self.event = cp.cuda.Event()

                def record(self) -> None:
                    self.event.record()

                def elapsed_time(self, end: Event) -> float:
                    return cp.cuda.get_elapsed_time(self.event, end.event)

            return _events(lambda: cp.matmul(x, y), Event, cp.cuda.Device().synchronize, runs)

        found[f"cupy {cp.__version__}"] = cupy_ms
    except ImportError:
        pass
    return found


def _events(call: Callable[[], object], event: Any, synchronize: Callable[[], None], runs: int) -> float:
    call()
    synchronize()
    times = []
    for _ in range(runs):
        start, end = event(enable_timing=True), event(enable_timing=True)
        start.record()
        call()
        end.record()
        synchronize()
        times.append(start.elapsed_time(end))
    return float(np.median(times))


def bench_matmul(options: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    rng = np.random.default_rng(0)
    variants = VARIANTS if options.variants else VARIANTS[:1]
    timers = {
        v: soac_timer(flattened("matmul.mlir", dict(zip(("block", "reg", "chunk"), v))), options.device, options.runs)
        for v in variants
    }
    module = flattened("matmul.mlir", {})
    forced = outer_version(module)
    peer_timers = peers(options.runs)
    for n, k, m in MATMUL_SHAPES:
        a = rng.uniform(-1, 1, (n, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, m)).astype(np.float32)
        expected = a.astype(np.float64) @ b.astype(np.float64)
        flops = 2.0 * n * k * m
        row: dict[str, Any] = {"program": "matmul", "shape": [n, k, m]}
        for (block, reg, chunk), timer in timers.items():
            ms, result = timer([a, b], forced)
            assert np.allclose(result, expected, rtol=1e-3, atol=1e-3 * k**0.5), "wrong matmul result"
            row[_label((block, reg, chunk))] = ms
        for name, time in peer_timers.items():
            row[name] = time(a, b)
        rows.append(row)
        best_peer = min((v for key, v in row.items() if key.startswith(("torch", "cupy"))), default=float("nan"))
        default = row[_label(variants[0])]
        report = "  ".join(f"{key} {v:.3f} ms ({flops / v * 1e-9:.1f} TFLOP/s)" for key, v in row.items() if isinstance(v, float))
        print(f"matmul {n}x{k}x{m}: {report}; soac/cuBLAS throughput {best_peer / default:.2f}", flush=True)


def _label(variant: tuple[int, int, int]) -> str:
    block, reg, chunk = variant
    return f"soac block={block} reg={reg} chunk={chunk}"


def bench_all_pairs(options: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    rng = np.random.default_rng(1)
    variants = VARIANTS_1D if options.variants else VARIANTS_1D[:1]
    tiled = {v: flattened("all_pairs.mlir", dict(zip(("block", "reg", "chunk"), v))) for v in variants}
    untiled = flattened("all_pairs.mlir", None)
    versions = {
        **{
            f"tiled block={v[0]} reg={v[1]} chunk={v[2]}": (soac_timer(mod, options.device, options.runs), outer_version(mod))
            for v, mod in tiled.items()
        },
        "untiled segmap thread": (soac_timer(untiled, options.device, options.runs), outer_version(untiled)),
        "untiled segred (n, n)": (soac_timer(untiled, options.device, options.runs), outer_version(untiled, outer=False)),
    }
    for n in ALL_PAIRS_SIZES:
        xs = rng.uniform(-1, 1, n).astype(np.float32)
        expected = xs.astype(np.float64).sum() + n * xs.astype(np.float64)
        row: dict[str, Any] = {"program": "all_pairs", "n": n}
        for label, (timer, thresholds) in versions.items():
            ms, result = timer([xs], thresholds)
            assert np.allclose(result, expected, rtol=1e-3, atol=1e-2 * n**0.5), f"wrong all-pairs result ({label})"
            row[label] = ms
        rows.append(row)
        print(
            f"all-pairs n={n}: "
            + "  ".join(f"{k} {v:.3f} ms ({2.0 * n * n / v * 1e-9:.1f} TFLOP/s)" for k, v in row.items() if isinstance(v, float)),
            flush=True,
        )


def main() -> None:
    from tiling_gemm import add_arguments as add_gemm_arguments
    from tiling_gemm import bench_gemm

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--device", default=None)
    parser.add_argument("--variants", action="store_true", help="also time other tile sizes")
    parser.add_argument("--only", choices=("matmul", "all_pairs", "nbody", "gemm"), default=None)
    parser.add_argument("--nbody-sizes", default=None, help="comma-separated body counts (default 16384,65536)")
    parser.add_argument("--target", default=None, help="nbody, gemm: soac-to-kernel's target (generic: tiles on PoCL)")
    parser.add_argument("--no-peers", action="store_true", help="nbody: time soac only")
    parser.add_argument(
        "--peak-tflops", type=float, default=67.0, help="nbody: the f32 peak to compare with (67: H100 and H200 SXM)"
    )
    parser.add_argument("--json", default=None, help="write the rows to this file")
    add_gemm_arguments(parser)
    parser.add_argument("--plot", default=None, help="draw TFLOP/s per program and variant into this .png (matplotlib)")
    parser.add_argument("--from-json", default=None, help="plot the rows of an earlier --json run instead of measuring")
    options = parser.parse_args()
    if options.from_json:
        plot(json.loads(Path(options.from_json).read_text()), Path(options.plot or "tiling.png"))
        return
    rows: list[dict[str, Any]] = []
    if options.only in (None, "matmul"):
        bench_matmul(options, rows)
    if options.only in (None, "all_pairs"):
        bench_all_pairs(options, rows)
    if options.only == "gemm":  # not by default: it compiles every variant (bench/tiling_gemm.py)
        bench_gemm(options, rows)
    if options.only in (None, "nbody"):
        from tiling_nbody import bench_nbody

        bench_nbody(options, rows)
    if options.json:
        Path(options.json).write_text(json.dumps(rows, indent=1))
    if options.plot:
        plot(rows, Path(options.plot))


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    """Grouped bars of TFLOP/s: one group per program and size, one bar per variant or peer."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(15, 5), gridspec_kw={"width_ratios": [2, 1]})
    for ax, program in zip(axes, ("matmul", "all_pairs")):
        chosen = [row for row in rows if row["program"] == program]
        if not chosen:
            continue
        labels = [key for key, value in chosen[0].items() if isinstance(value, float)]
        width = 0.8 / len(labels)
        for b, label in enumerate(labels):
            rates = []
            for row in chosen:
                n, k, m = row["shape"] if program == "matmul" else (row["n"], row["n"], 1)
                rates.append(2.0 * n * k * m / row[label] * 1e-9)
            ax.bar([g + b * width for g in range(len(chosen))], rates, width, label=label)
        names = ["x".join(map(str, row["shape"])) if program == "matmul" else f"n={row['n']}" for row in chosen]
        ax.set_xticks([g + 0.4 - width / 2 for g in range(len(chosen))], names)
        ax.set_ylabel("TFLOP/s (f32)")
        ax.set_title("matmul (soac includes the transpose of b)" if program == "matmul" else "all-pairs, 2n² flops")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
