"""Check the tiled kernels (soac-tile) on a device against numpy: f32, f64 and i32, awkward sizes, several tile sizes.

    python bench/check_tiled.py [--device gpu]

examples/matmul.mlir (retyped for f64 and i32) and examples/all_pairs.mlir go through
`soac-flatten,soac-tile{...}`; every version of each is forced by its thresholds, so the
tiled ops of the outer-parallel and fully flattened versions both run. Prints one line per
program, type and tile sizes, and the failing cases.
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
    options = parser.parse_args()
    device = choose_device(options.device)
    print(f"device {device.name}")
    rng = np.random.default_rng(0)
    failures = 0
    for name, element, tile in itertools.product(("matmul", "all_pairs"), TYPES, TILES):
        ctx = make_context()
        text = retyped((ROOT / "examples" / f"{name}.mlir").read_text(), element)
        module = parse_module(ctx, text, f"{name}.mlir")
        SoacFlattenPass().apply(ctx, module)
        SoacTilePass(**tile).apply(ctx, module)
        program = compile_module(module, device)
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
        print(f"{'ok  ' if not bad else 'FAIL'} {name} {element} {tile or 'defaults'}" + "".join(f"\n     {b}" for b in bad))
    print(f"{failures} failure(s)")
    return 1 if failures else 0


def _random(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-20, 20, shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


if __name__ == "__main__":
    sys.exit(main())
