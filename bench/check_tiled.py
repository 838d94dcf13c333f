"""Check the tiled kernels (soac-tile) on a device against numpy: f32, f64 and i32, awkward sizes, several tile sizes.

    python bench/check_tiled.py [--device gpu] [--variants]

examples/matmul.mlir (retyped for f64 and i32) and examples/all_pairs.mlir go through
`soac-flatten,soac-tile{...}`; every version of each is forced by its thresholds, so the
tiled ops of the outer-parallel and fully flattened versions both run. Prints one line per
program, type and tile sizes, and the failing cases. `--variants`: matmul only, with the default and odd tile
sizes, in each variant of bench/tiling_gemm.py (32-bit indices, warp sub-tiles, alternating tiles, unrolled folds,
b read untransposed).

nbody (bench/real/suite/nbody.py, issue 27) runs through soac.lang with the pipeline it takes on GPUs
(`TILED_PIPELINE`; `--target generic` gives local-memory tiles on PoCL): f32 and f64, tuple accumulators, awkward
sizes, several tile sizes and split targets, both versions forced, against numpy in float64.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np
from soac.context import make_context
from soac.lowering.runtime import choose_device, compile_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_tile import SoacTilePass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds

ROOT = Path(__file__).resolve().parents[1]
MATMUL_SHAPES = [(1, 1, 1), (2, 3, 1), (127, 129, 131), (128, 8, 128), (129, 9, 257), (300, 1000, 7), (64, 0, 5)]
ALL_PAIRS_SIZES = [1, 2, 127, 129, 1000, 4099]
TILES = [{}, {"block": 64, "reg": 4, "chunk": 16}, {"block": 6, "reg": 3, "chunk": 5}, {"block": 32, "reg": 1, "chunk": 1}]
TYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32}


def retyped(text: str, element: str) -> str:
    if element == "f32":
        return text
    if element == "f64":
        return text.replace("f32", "f64")
    return text.replace("f32", "i32").replace("addf", "addi").replace("mulf", "muli").replace("0.0 : i32", "0 : i32")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    parser.add_argument("--target", default=None, help="soac-to-kernel's target (generic: tiles on PoCL)")
    parser.add_argument("--only-nbody", action="store_true", help="check nbody only")
    parser.add_argument("--variants", action="store_true", help="matmul in every variant of bench/tiling_gemm.py")
    options = parser.parse_args()
    if options.only_nbody:
        failures = check_nbody(options.device, options.target)
        print(f"{failures} failure(s)")
        return 1 if failures else 0
    device = choose_device(options.device)
    print(f"device {device.name}")
    rng = np.random.default_rng(0)
    failures = 0
    if options.variants:
        from tiling_gemm import VARIANTS

        runs = [("matmul", e, t, v) for e, t, v in itertools.product(TYPES, (TILES[0], TILES[2]), VARIANTS)]
    else:
        runs = [(n, e, t, "default") for n, e, t in itertools.product(("matmul", "all_pairs"), TYPES, TILES)]
    target = {"target": options.target} if options.target else {}
    for name, element, tile, variant in runs:
        tile_options, lowering = VARIANTS[variant] if options.variants else ({}, {})
        if tile and any(size in tile_options for size in ("chunk", "block_d1", "reg_d1")):
            continue  # a variant of other sizes: only with the default ones
        ctx = make_context()
        text = retyped((ROOT / "examples" / f"{name}.mlir").read_text(), element)
        module = parse_module(ctx, text, f"{name}.mlir")
        SoacFlattenPass().apply(ctx, module)
        SoacTilePass(**{**tile, **tile_options}).apply(ctx, module)
        program = compile_module(module, device, **target, **lowering)
        names = [info.name for info in list_thresholds(module)]
        dtype = TYPES[element]
        cases = MATMUL_SHAPES if name == "matmul" else ALL_PAIRS_SIZES
        bad: list[str] = []
        for case in cases:
            if name == "matmul":
                n, k, m = case  # pyright: ignore[reportGeneralTypeIssues]
                args = [_random(rng, (n, k), dtype), _random(rng, (k, m), dtype)]
                expected = (args[0].astype(np.float64) @ args[1].astype(np.float64)).astype(dtype)
            else:
                args = [_random(rng, (case,), dtype)]
                xs = args[0].astype(np.float64)
                expected = (xs.sum() + len(xs) * xs).astype(dtype)
            for values in itertools.product((0, MAX_THRESHOLD), repeat=len(names)):
                (got,) = program.call("main", args, dict(zip(names, values)))
                ok = np.array_equal(got, expected) if element == "i32" else np.allclose(got, expected, rtol=1e-4, atol=1e-3)
                if not ok:
                    bad.append(f"{case} {dict(zip(names, values))}")
        failures += len(bad)
        label = f"{name} {element} {tile or 'defaults'}" + (f" {variant}" if options.variants else "")
        print(f"{'ok  ' if not bad else 'FAIL'} {label}" + "".join(f"\n     {b}" for b in bad))
    if not options.variants:
        failures += check_nbody(options.device, options.target)
    print(f"{failures} failure(s)")
    return 1 if failures else 0


NBODY_SIZES = [1, 2, 127, 128, 129, 1000, 4099, 16385]
"""Awkward sizes around the default tiles (128 bodies per work-group, chunks of 128) and one beyond 2^14."""
NBODY_TILES = [
    {},
    {"block": 64, "reg": 2, "chunk": 32},
    {"block": 256, "reg": 4, "chunk": 64},
    {"block": 16, "reg": 1, "chunk": 8},
]
NBODY_SPLITS = [0, 1, 1 << 20]
"""`tile-split-items`: the default, no split, and slices of a single chunk where the sizes allow."""


def check_nbody(device: str | None, target: str | None) -> int:
    """nbody's tiled step against numpy (float64) for every type, tile size, split target, size and version."""
    import soac.lang as sl
    from soac.passes import TILED_PIPELINE

    sys.path.insert(0, str(ROOT / "bench" / "real"))
    from suite.nbody import inputs, nbody  # pyright: ignore[reportMissingImports]

    failures = 0
    for element, tile, split in itertools.product(("f32", "f64"), NBODY_TILES, NBODY_SPLITS):
        if split and tile:
            continue
        dtype = TYPES[element]
        sizes = {f"tile_{t}_{k}_0" if k != "chunk" else f"tile_{t}_chunk": v for t in (0, 1) for k, v in tile.items()}
        lowering = {"tile-split-items": split, **({"target": target} if target else {})}
        f = sl.jit(nbody, device=device, lowering=lowering, thresholds=sizes, pipeline=TILED_PIPELINE)
        bad: list[str] = []
        for n in NBODY_SIZES:
            args = inputs(np.random.default_rng(n), {"n": n})
            args = (*(a.astype(dtype) for a in args[:-1]), dtype(args[-1]))
            compiled = f.specialize(*args)
            if compiled.optimized_text.count("soac.tiled_redomap") != 2:
                bad.append(f"n={n}: not tiled")
                break
            expected = _nbody_reference(*(np.asarray(a, np.float64) for a in args))
            for version in (0, MAX_THRESHOLD):
                got = compiled.run(args, {"suff_outer_par_0": version}, False)
                tolerance = 1e-3 if element == "f32" else 1e-9
                if not all(np.allclose(g, e, rtol=tolerance, atol=tolerance) for g, e in zip(got, expected)):
                    bad.append(f"n={n} suff_outer_par_0={version}")
        failures += len(bad)
        label = f"{tile or 'defaults'} tile-split-items={split or 'default'}"
        print(f"{'ok  ' if not bad else 'FAIL'} nbody {element} {label}" + "".join(f"\n     {b}" for b in bad), flush=True)
    return failures


def _nbody_reference(*args: np.ndarray) -> tuple[np.ndarray, ...]:
    """The step in float64, 1024 bodies at a time."""
    from suite.nbody import EPSILON  # pyright: ignore[reportMissingImports]

    xs, ys, zs, ms, vx, vy, vz, dt = args
    acc = [np.zeros_like(xs) for _ in range(3)]
    for lo in range(0, xs.size, 1024):
        part = slice(lo, lo + 1024)
        d = [c[None, :] - c[part, None] for c in (xs, ys, zs)]
        r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPSILON
        s = ms[None, :] / (r2 * np.sqrt(r2))
        for a, dc in zip(acc, d):
            a[part] = (dc * s).sum(1)
    vx, vy, vz = vx + acc[0] * dt, vy + acc[1] * dt, vz + acc[2] * dt
    return xs + vx * dt, ys + vy * dt, zs + vz * dt, vx, vy, vz


def _random(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-20, 20, shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


if __name__ == "__main__":
    sys.exit(main())
