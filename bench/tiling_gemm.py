"""SGEMM: the tiled kernel's variants against cuBLAS (torch.matmul and cupy.matmul, TF32 off) in one run.

    python bench/tiling_gemm.py [--gemm-shapes 2048,4096] [--runs 10] [--device gpu] [--gemm-variants default,i64,...]
                                [--gemm-extra 'chunk=16 untranspose=true | tile-buffers=2' ...] [--target generic]
                                [--json FILE]

    (also: python bench/tiling.py --only gemm, with the same options)

examples/matmul.mlir after `soac-flatten,soac-tile` (its outer-parallel version forced), each variant a set of
soac-tile options and soac-to-kernel options (`VARIANTS`); every variant's result is checked against numpy (float64)
at every shape. Times are the median over --runs calls (after one warm-up call) of the sum of the call's OpenCL
kernel times (the transpose of b included where it runs; the tiled kernel's own time is printed beside it); the
peers' are CUDA-event times of the same shapes. On PoCL (no peers) `--target generic --gemm-shapes 64,97` runs the tiled
kernels on the CPU at small sizes, to check the variants, not to time them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyopencl as cl
from soac.lowering.conversion.options import parse_option
from soac.lowering.runtime import Program, compile_module

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tiling import flattened, outer_version, peers

VARIANTS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "default": ({}, {}),
    "i32": ({}, {"tile_index": "i32"}),
    "i64": ({}, {"tile_index": "i64"}),
    "warps4x8": ({}, {"tile_warps": "4x8"}),
    "warps8x4": ({}, {"tile_warps": "8x4"}),
    "buffers2": ({}, {"tile_buffers": 2}),
    "unroll": ({}, {"tile_unroll": True}),
    "untranspose": ({"untranspose": True}, {}),
    "untranspose+warps4x8": ({"untranspose": True}, {"tile_warps": "4x8"}),
    "untranspose+warps4x8+buffers2": ({"untranspose": True}, {"tile_warps": "4x8", "tile_buffers": 2}),
    "untranspose+warps4x8+unroll": ({"untranspose": True}, {"tile_warps": "4x8", "tile_unroll": True}),
    "chunk16+untranspose+warps4x8": ({"chunk": 16, "untranspose": True}, {"tile_warps": "4x8"}),
    "reg8x16": ({"reg_d1": 16}, {}),
    "reg8x16+untranspose+warps4x8": ({"reg_d1": 16, "untranspose": True}, {"tile_warps": "4x8"}),
    "block128x256+reg8x16+warps4x8": ({"block_d1": 256, "reg_d1": 16}, {"tile_warps": "4x8"}),
}
"""Each variant's soac-tile options and soac-to-kernel options. `default`: soac's defaults (on the nvidia target
32-bit indices where the sizes fit, as `i32` forces on any target); `i64`: the 64-bit kernels alone (the default
before `tile-index`); the others on top of the default (`reg8x16`: 128 x 128 blocks of 128 work-items, each 8 x 16
results; `block128x256+reg8x16`: 256 work-items of 8 x 16 results)."""


def parse_variant(text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A variant written `soac-tile options | soac-to-kernel options`, each `name=value` separated by spaces
    (`chunk=16 untranspose=true | tile-warps=4x8 tile-buffers=2`)."""
    tile_text, _, lowering_text = text.partition("|")
    tile: dict[str, Any] = {}
    for item in tile_text.split():
        name, _, value = item.partition("=")
        tile[name.replace("-", "_")] = value.lower() == "true" if value.lower() in ("true", "false") else int(value)
    lowering = {}
    for item in lowering_text.split():
        name, _, value = item.partition("=")
        lowering[name.replace("-", "_")] = parse_option(name.replace("-", "_"), value)
    return tile, lowering


def timed(program: Program) -> list[tuple[str, cl.Event]]:
    """Make `program` launch on a profiling queue and record each kernel's name and event."""
    program.queue = cl.CommandQueue(program.context, program.device, properties=cl.command_queue_properties.PROFILING_ENABLE)
    events: list[tuple[str, cl.Event]] = []

    def recording(name: str, kernel: Any) -> Any:
        def launch(*args: Any) -> cl.Event:
            event = kernel(*args)
            events.append((name, event))
            return event

        return launch

    program.kernels = {name: recording(name, kernel) for name, kernel in program.kernels.items()}
    return events


def bench_gemm(options: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    variants = dict(VARIANTS)
    chosen = options.gemm_variants.split(",") if options.gemm_variants else list(VARIANTS)
    if unknown := [v for v in chosen if v not in VARIANTS]:
        raise SystemExit(f"unknown variants {unknown}: expected some of {', '.join(VARIANTS)}")
    for text in options.gemm_extra or []:
        variants[text] = parse_variant(text)
        chosen.append(text)
    shapes = [int(s) for s in options.gemm_shapes.split(",")]
    extra = {"target": options.target} if options.target else {}
    programs = {}
    for label in chosen:
        tile, lowering = variants[label]
        module = flattened("matmul.mlir", tile)
        program = compile_module(module, options.device, **extra, **lowering)
        programs[label] = (program, timed(program), outer_version(module))
    device = next(iter(programs.values()))[0].device
    print(f"device: {device.name}; kernel ms, median of {options.runs}", flush=True)
    peer_timers = peers(options.runs)
    rng = np.random.default_rng(0)
    for size in shapes:
        a = rng.uniform(-1, 1, (size, size)).astype(np.float32)
        b = rng.uniform(-1, 1, (size, size)).astype(np.float32)
        expected = a.astype(np.float64) @ b.astype(np.float64)
        flops = 2.0 * size**3
        row: dict[str, Any] = {"program": "gemm", "shape": [size, size, size], "device": device.name}
        for name, time in peer_timers.items():
            row[name] = time(a, b)
        best_peer = min((v for k, v in row.items() if k.startswith(("torch", "cupy"))), default=float("nan"))
        for label, (program, events, thresholds) in programs.items():
            result = program.call("main", [a, b], thresholds)[0]
            assert np.allclose(result, expected, rtol=1e-3, atol=1e-3 * size**0.5), f"wrong matmul result ({label})"
            total, tiled = [], []
            for _ in range(options.runs):
                events.clear()
                program.call("main", [a, b], thresholds)
                times = [(name, (e.profile.end - e.profile.start) * 1e-6) for name, e in events]
                total.append(sum(ms for _, ms in times))
                tiled.append(sum(ms for name, ms in times if name.startswith("main_tiled_")))
            ms, kernel_ms = float(np.median(total)), float(np.median(tiled))
            row[f"soac {label}"] = ms
            row[f"soac {label} (tiled kernel)"] = kernel_ms
            print(
                f"gemm {size}^3 {label:32s} {ms:8.3f} ms ({flops / ms * 1e-9:5.1f} TFLOP/s)  tiled kernel {kernel_ms:8.3f} ms"
                f"  of cuBLAS: {best_peer / ms:.2f} ({best_peer / kernel_ms:.2f} without the transpose)",
                flush=True,
            )
        for name in peer_timers:
            print(f"gemm {size}^3 {name:32s} {row[name]:8.3f} ms ({flops / row[name] * 1e-9:5.1f} TFLOP/s)", flush=True)
        rows.append(row)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of this benchmark, also `bench/tiling.py --only gemm`'s."""
    parser.add_argument("--gemm-shapes", default="2048,4096", help="comma-separated n (n x n times n x n)")
    parser.add_argument("--gemm-variants", default=None, help=f"comma-separated, of: {', '.join(VARIANTS)} (default: all)")
    parser.add_argument(
        "--gemm-extra",
        action="append",
        help="another variant: 'soac-tile options | soac-to-kernel options' ('chunk=16 | tile-buffers=2'); repeatable",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--device", default=None)
    parser.add_argument("--target", default=None, help="soac-to-kernel's target (generic: tiles on PoCL)")
    parser.add_argument("--json", default=None, help="write the rows to this file")
    add_arguments(parser)
    options = parser.parse_args()
    rows: list[dict[str, Any]] = []
    bench_gemm(options, rows)
    if options.json:
        Path(options.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
