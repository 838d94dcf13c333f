"""nbody (the real-program suite's step, bench/real/suite/nbody.py) tiled and untiled, against `jax.jit` of the same
step in the same run (issue 27: n = 16384 at <= 0.5x JAX's time, n = 65536 at >= 30% of the f32 peak).

    python bench/tiling.py --only nbody [--runs 10] [--variants] [--nbody-sizes 16384,65536] [--target generic]

soac runs through soac.lang: `default` is `sl.jit`'s own pipeline for the device (TILED_PIPELINE on GPUs: soac-tile
in it; DEFAULT_PIPELINE on CPUs), `tiled` is TILED_PIPELINE and `untiled` DEFAULT_PIPELINE, each with its default
version and with each version forced (`outer`: a work-item per body, `segred`: the fully flattened version over all
pairs; both tiled in `tiled`). `--variants` also
times tile sizes (block, reg, chunk of both tiled ops) and split targets (`tile-split-items`). Every soac time is
the summed OpenCL kernel time of one call (median of --runs, after a warm-up), plus `resident`: the wall time of a
call on device-resident inputs, comparable with JAX's (wall clock around `block_until_ready`). Rates count 20
flops per interaction, n^2 interactions. Results are checked against numpy.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import soac.lang as sl
from soac.passes import DEFAULT_PIPELINE, TILED_PIPELINE
from soac.passes.thresholds import MAX_THRESHOLD

sys.path.insert(0, str(Path(__file__).resolve().parent / "real"))
from peers import available_peers  # pyright: ignore[reportMissingImports]
from probe import Probe  # pyright: ignore[reportMissingImports]
from suite.nbody import inputs, nbody, peer, reference  # pyright: ignore[reportMissingImports]

SIZES = [16384, 65536]
FLOPS_PER_INTERACTION = 20
OUTER = "suff_outer_par_0"
VERSIONS = {"": {}, " outer": {OUTER: 0}, " segred": {OUTER: MAX_THRESHOLD}}
TILE_VARIANTS = [(128, 2, 128), (256, 2, 256), (128, 4, 128), (256, 4, 64), (64, 1, 64), (256, 1, 256), (512, 4, 128)]
"""(block, reg, chunk) of both tiled ops, for --variants."""
SPLIT_VARIANTS = [1, 1 << 15, 1 << 16, 1 << 18, 1 << 19]
"""`tile-split-items` values for --variants (1: no split)."""


def tile_thresholds(block: int, reg: int, chunk: int) -> dict[str, int]:
    return {f"tile_{t}_{name}": value for t in (0, 1) for name, value in (("block_0", block), ("reg_0", reg), ("chunk", chunk))}


def configurations(options: argparse.Namespace) -> dict[str, Any]:
    """Label -> the jitted nbody for each soac configuration timed."""
    lowering = {"target": options.target} if options.target else {}
    made: dict[str, Any] = {
        "default": sl.jit(nbody, device=options.device, lowering=lowering),
        "tiled": sl.jit(nbody, device=options.device, lowering=lowering, pipeline=TILED_PIPELINE),
        "untiled": sl.jit(nbody, device=options.device, lowering=lowering, pipeline=DEFAULT_PIPELINE),
    }
    if options.variants:
        for block, reg, chunk in TILE_VARIANTS:
            made[f"tiled b{block} r{reg} c{chunk}"] = sl.jit(
                nbody,
                device=options.device,
                lowering=lowering,
                thresholds=tile_thresholds(block, reg, chunk),
                pipeline=TILED_PIPELINE,
            )
        for items in SPLIT_VARIANTS:
            made[f"tiled split-items {items}"] = sl.jit(
                nbody, device=options.device, lowering={**lowering, "tile-split-items": items}, pipeline=TILED_PIPELINE
            )
    return made


def bench_nbody(options: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    sizes = [int(s) for s in options.nbody_sizes.split(",")] if options.nbody_sizes else SIZES
    jitted = configurations(options)
    peers = [] if options.no_peers else available_peers()
    for n in sizes:
        args = inputs(np.random.default_rng(n), {"n": n})
        expected = reference(*args)
        interactions = float(n) * n
        row: dict[str, Any] = {"program": "nbody", "n": n}
        for label, f in jitted.items():
            compiled = f.specialize(*args)
            check(f(*args), expected, f"soac {label}, n = {n}")
            probe = Probe(compiled.runner, compiled.name, args)
            for suffix, thresholds in VERSIONS.items() if label in ("tiled", "untiled") else {"": {}}.items():
                if suffix:
                    check(compiled.run(args, thresholds, False), expected, f"soac {label}{suffix}, n = {n}")
                row[f"soac {label}{suffix}"], _ = probe.kernel_ms(thresholds, options.runs)
            row[f"soac {label} resident"] = probe.resident_ms({}, options.runs)
            row[f"soac {label} tiled ops"] = compiled.optimized_text.count("soac.tiled_redomap")
        for p in peers:
            timed = p.time(peer, (), args, options.runs)
            if timed is not None:
                ms, got = timed
                check(got, expected, f"{p.name}, n = {n}")
                row[p.name] = ms
        rows.append(row)
        report(row, interactions, options.peak_tflops)


def check(got: Any, expected: tuple[np.ndarray, ...], what: str) -> None:
    got = got if isinstance(got, tuple) else (got,)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-3, atol=1e-4, err_msg=what)


def report(row: dict[str, Any], interactions: float, peak: float) -> None:
    jax = next((v for k, v in row.items() if k.startswith("jax")), None)
    print(f"nbody n={row['n']} ({FLOPS_PER_INTERACTION} flops per interaction; peak {peak} TFLOP/s):")
    for key, value in row.items():
        if not isinstance(value, float):
            continue
        rate = FLOPS_PER_INTERACTION * interactions / value * 1e-9
        ratio = f"  {value / jax:5.2f}x JAX" if jax else ""
        print(f"  {key:<40} {value:8.3f} ms  {rate:7.2f} TFLOP/s  {100 * rate / peak:5.1f}% of peak{ratio}")
    tiled = {k: v for k, v in row.items() if k.endswith("tiled ops")}
    print(f"  tiled ops: {tiled}", flush=True)
