"""Batched small matrix products (issue 27, item 3): both written forms, every version, against cuBLAS and JAX.

    python3 bench/small_matmul.py                                    # GPU: 65536 batches of 16 x 16, f32
    python3 bench/small_matmul.py --batches 65536 --n 8,16,32 --runs 50 --out bench/results/h200_small_matmul.txt
    python3 bench/small_matmul.py --batches 300 --n 16 --runs 3 --pipeline tiled --target generic   # PoCL check
    python3 bench/small_matmul.py --n 8,16,32 --blocks 4x1,1x1,2x2,4x4 --per-group 0,16 --index auto,i64 --groups 0,16384

The forms: `transposed`, bench/real/suite/batched_matmul.py's `map (\\x y -> map (\\r -> map (\\c -> sum (r*c)) y.T)
x) a b`, and `indexed`, `c[q,i,j] = Σ_k a[q,i,k]·b[q,k,j]` as three maps over iotas of a sum. For each, the default
(the device's thresholds) and every version forced: `staged` (soac-small-intra: a work-group per batch, its blocks in
local memory), `outer` (a work-item per result, reading global memory), `flat` (the segred over (q, i, j, k)). Times
are medians of `--runs` device-resident calls (inputs uploaded once, results left on the device) and of the summed
kernel times from OpenCL profiling, in ms; every result is checked against numpy first. The peers run on the same
inputs in the same process: `cupy.matmul` and `torch.bmm` (cuBLAS's batched GEMM; TF32 off in both) and
`jax.jit(jnp.matmul, precision="highest")`, timed with CUDA events (CuPy, torch) or wall time (JAX), each where it is
installed. The last columns are each soac time (resident, then kernels) over the best cuBLAS time, and the indexed
form's kernel time over the transposed one's.

The staged version's kernel gives each work-item an R x C block of results in registers and a work-group several
batches (`strategies/register_tiles.py`; soac-to-kernel's `small-tile-rows`, `small-tile-cols`, `small-batches`).
`--blocks`, `--per-group` and `--index` time the staged version of each combination (`staged 4x1/8/i64`: 4 x 1 blocks,
8 batches per group, the 64-bit kernel alone; `auto`: as many batches as the group's 256 work-items cover; without
`/i32` or `/i64` the target's choice, on NVIDIA the 32-bit kernel where the sizes fit), each compiled with those
options and checked against numpy; `--groups` also sets `max-groups` (`/g16384`: up to 16384 work-groups, one per pack
of batches, rather than 1024 looping over packs), `--fma` `small-fma` (`/fma`: each step's product and sum one fma).
The first combination is the one the other versions are compiled with (the defaults: `4x1`, `0`, `auto`, `0`,
`false`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "real"))
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
os.environ["CUPY_TF32"] = "0"  # cuBLAS in full f32 (CuPy's default; said here, before CuPy reads it)

import soac.lang as sl  # noqa: E402
from probe import Probe, thresholds_of  # noqa: E402
from soac.passes import DEFAULT_PIPELINE, TILED_PIPELINE  # noqa: E402
from suite.batched_matmul import batched_matmul as transposed  # noqa: E402  # pyright: ignore[reportMissingImports]

NEVER = 2**62


def indexed(a: Any, b: Any) -> Any:
    """`c[q,i,j] = Σ_k a[q,i,k]·b[q,k,j]`, written with indices."""
    q, n, k = a.shape
    m = b.shape[2]
    ks = sl.iota(k)

    def entry(p: Any, i: Any, j: Any) -> Any:
        return sl.sum(sl.map(lambda s: a[p, i, s] * b[p, s, j], ks))

    return sl.map(lambda p: sl.map(lambda i: sl.map(lambda j: entry(p, i, j), sl.iota(m)), sl.iota(n)), sl.iota(q))


FORMS = {"transposed": transposed, "indexed": indexed}


def versions(thresholds: dict[str, int]) -> dict[str, dict[str, int]]:
    """The default and each version forced, by the thresholds the program has."""
    named: dict[str, dict[str, int]] = {"default": {}}
    outer = [t for t in thresholds if t.startswith("suff_outer_par")]
    small = [t for t in thresholds if t.startswith("suff_small_intra")]
    if small:
        named["staged"] = dict.fromkeys(small, 0)
    if outer:
        named["outer"] = {**dict.fromkeys(small, NEVER), **dict.fromkeys(outer, 0)}
        named["flat"] = {**dict.fromkeys(small, NEVER), **dict.fromkeys(outer, NEVER)}
    return named


def cuda_timer(synchronize: Callable[[], None], event: Callable[[], Any], elapsed: Callable[[Any, Any], float]):
    def timer(fn: Callable[[], Any], runs: int) -> float:
        fn()
        synchronize()
        times = []
        for _ in range(runs):
            start, end = event(), event()
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(elapsed(start, end))
        return float(np.median(times))

    return timer


def peer_times(a: np.ndarray, b: np.ndarray, expected: np.ndarray, runs: int) -> dict[str, float | str]:
    """ms of each installed peer (or why not), its result checked."""
    times: dict[str, float | str] = {}
    tolerance = 1e-3 * float(np.abs(expected).max())
    try:
        import cupy as cp

        cp.cuda.Device().use()
        da, db = cp.asarray(a), cp.asarray(b)
        timer = cuda_timer(cp.cuda.Device().synchronize, cp.cuda.Event, cp.cuda.get_elapsed_time)
        if float(np.abs(cp.asnumpy(cp.matmul(da, db)) - expected).max()) > tolerance:
            times["cupy.matmul"] = "wrong result"
        else:
            times["cupy.matmul"] = timer(lambda: cp.matmul(da, db), runs)
    except Exception as error:
        times["cupy.matmul"] = f"{type(error).__name__}: {str(error)[:60]}"
    try:
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        timer = cuda_timer(torch.cuda.synchronize, lambda: torch.cuda.Event(enable_timing=True), lambda s, e: s.elapsed_time(e))
        if float(np.abs(torch.bmm(ta, tb).cpu().numpy() - expected).max()) > tolerance:
            times["torch.bmm"] = "wrong result"
        else:
            times["torch.bmm"] = timer(lambda: torch.bmm(ta, tb), runs)
    except Exception as error:
        times["torch.bmm"] = f"{type(error).__name__}: {str(error)[:60]}"
    try:
        import jax
        import jax.numpy as jnp

        if not any(d.platform == "gpu" for d in jax.devices()):
            raise RuntimeError("no GPU")
        fn = jax.jit(lambda x, y: jnp.matmul(x, y, precision="highest"))
        ja, jb = jnp.asarray(a), jnp.asarray(b)
        if float(np.abs(np.asarray(fn(ja, jb)) - expected).max()) > tolerance:
            times["jax"] = "wrong result"
        else:
            jax.block_until_ready(fn(ja, jb))
            samples = []
            for _ in range(runs):
                start = time.perf_counter()
                jax.block_until_ready(fn(ja, jb))
                samples.append((time.perf_counter() - start) * 1e3)
            times["jax"] = float(np.median(samples))
    except Exception as error:
        times["jax"] = f"{type(error).__name__}: {str(error)[:60]}"
    return times


def tile_variants(args: argparse.Namespace) -> list[tuple[str, dict[str, int]]]:
    """Each `--blocks` x `--per-group` combination: its label and soac-to-kernel options."""
    found = []
    for block in args.blocks.split(","):
        rows, cols = (int(x) for x in block.lower().split("x"))
        for per in (int(p) for p in args.per_group.split(",")):
            for index in args.index.split(","):
                for groups in (int(g) for g in args.groups.split(",")):
                    for fma in (f == "true" for f in args.fma.split(",")):
                        options = {"small-tile-rows": rows, "small-tile-cols": cols, "small-batches": per}
                        options |= {"small-index": index, "small-fma": fma}
                        label = f"{rows}x{cols}/{per or 'auto'}" + ("" if index == "auto" else f"/{index}")
                        if groups:
                            options["max-groups"] = groups
                            label += f"/g{groups}"
                        found.append((label + ("/fma" if fma else ""), options))
    return found


def soac_times(form: str, a: np.ndarray, b: np.ndarray, expected: np.ndarray, args: argparse.Namespace) -> list[tuple[str, ...]]:
    """The default and every version forced with the first tile variant, then the staged version of the others."""
    pipeline = {"standard": None, "tiled": TILED_PIPELINE, "default": DEFAULT_PIPELINE}[args.pipeline]
    rows = []
    tolerance = 1e-3 * float(np.abs(expected).max())
    for k, (variant, options) in enumerate(tile_variants(args)):
        lowering = {**({"target": args.target} if args.target else {}), **options}
        compiled = sl.jit(FORMS[form], pipeline=pipeline, lowering=lowering).specialize(a, b)
        probe = Probe(compiled.runner, compiled.name, (a, b))
        for label, thresholds in versions(thresholds_of(compiled.optimized_text)).items():
            if k and label != "staged":
                continue
            label = f"{label} {variant}" if label == "staged" else label
            got = compiled.run((a, b), thresholds, False)
            if float(np.abs(got - expected).max()) > tolerance:
                rows.append((form, label, "wrong result", "", ""))
                continue
            kernel_ms, kernels = probe.kernel_ms(thresholds, args.runs)
            resident_ms = probe.resident_ms(thresholds, args.runs)
            rows.append((form, label, f"{resident_ms:.3f}", f"{kernel_ms:.3f}", " ".join(dict.fromkeys(kernels))))
    return rows


def is_time(text: str) -> bool:
    return text.replace(".", "", 1).isdigit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", type=int, default=65536)
    parser.add_argument("--n", default="16", help="matrix sizes, comma-separated (n x n products)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument(
        "--pipeline",
        choices=("standard", "tiled", "default"),
        default="standard",
        help="standard: soac.lang's for the device (tiled on GPUs); tiled: TILED_PIPELINE everywhere",
    )
    parser.add_argument("--target", default=None, help="soac-to-kernel's target (generic: GPU kernels on PoCL)")
    parser.add_argument("--blocks", default="4x1", help="register blocks RxC of the staged version, comma-separated")
    parser.add_argument("--per-group", default="0", help="batches per work-group of the staged version (0: auto)")
    parser.add_argument("--index", default="auto", help="small-index of the staged version: auto, i32, i64 (comma-separated)")
    parser.add_argument("--groups", default="0", help="max-groups of the staged version (0: the default, 1024; comma-separated)")
    parser.add_argument("--fma", default="false", help="small-fma of the staged version: false, true (comma-separated)")
    parser.add_argument("--out", default=None, help="also write the table to this file")
    args = parser.parse_args()
    lines = []
    for n in (int(s) for s in args.n.split(",")):
        rng = np.random.default_rng(n)
        a = rng.standard_normal((args.batches, n, n), dtype=np.float32)
        b = rng.standard_normal((args.batches, n, n), dtype=np.float32)
        expected = np.matmul(a.astype(np.float64), b).astype(np.float32)
        peers = peer_times(a, b, expected, args.runs)
        cublas = [t for name, t in peers.items() if name != "jax" and isinstance(t, float)]
        best = min(cublas) if cublas else None
        lines.append(f"## {args.batches} batches of {n} x {n} f32, median of {args.runs} (ms)")
        lines.append("peers: " + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} ({v})" for k, v in peers.items()))
        lines.append(
            f"{'form':<11} {'version':<26} {'resident':>9} {'kernels':>9} {'res/cuBLAS':>10} {'krn/cuBLAS':>10} "
            f"{'idx/.T':>7}  kernels launched"
        )
        rows = [row for form in FORMS for row in soac_times(form, a, b, expected, args)]
        by_version = {(r[0], r[1]): r for r in rows}
        for form, label, resident, kernel, names in rows:
            timed = is_time(resident) and is_time(kernel)
            ratio = f"{float(resident) / best:.2f}" if best and timed else "-"
            kernel_ratio = f"{float(kernel) / best:.2f}" if best and timed else "-"
            other = by_version.get(("transposed", label))
            vs_t = "-"
            if form == "indexed" and other and is_time(other[3]) and timed:
                vs_t = f"{float(kernel) / float(other[3]):.2f}"
            lines.append(f"{form:<11} {label:<26} {resident:>9} {kernel:>9} {ratio:>10} {kernel_ratio:>10} {vs_t:>7}  {names}")
        for form in FORMS:
            staged = [r for r in rows if r[0] == form and r[1].startswith("staged") and is_time(r[3])]
            if staged:
                fastest = min(staged, key=lambda r: float(r[3]))
                versus = f", {float(fastest[3]) / best:.2f}x cuBLAS" if best else ""
                lines.append(f"fastest staged {form}: {fastest[1]} {fastest[3]} ms kernels{versus}")
        lines.append("")
        print("\n".join(lines[-(len(rows) + 6) :]), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
