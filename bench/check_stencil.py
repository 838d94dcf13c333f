"""Check `soac.stencil` on a device against numpy: every boundary, rank 1 to 3 and awkward size, in every strategy
(`streamed` and `tiled` on the device's own target with the default tiles and some odd ones, `direct` forced).

    python bench/check_stencil.py [--device gpu]

Uses the programs and the numpy reference of the tests (tests/stencil_programs.py). Prints one line per
rank, strategy and tile, and the failing cases; exits 1 if any failed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
from soac.context import make_context
from soac.lowering.runtime import choose_device, compile_module
from soac.parsing import parse_module
from soac.passes.tile_sizes import with_tile_sizes

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from stencil_programs import (  # noqa: E402  # pyright: ignore[reportMissingImports]
    AWKWARD_SHAPES,
    BOUNDARIES,
    INPUTS,
    WINDOWS,
    function_name,
    random_inputs,
    reference,
    stencil_module,
)

EXTRA_SHAPES = {1: [(100003,)], 2: [(257, 1025), (1000, 3)], 3: [(17, 33, 65)]}
TILES = {1: [None, (64,)], 2: [None, (2, 3), (32, 32), (4, 256), (32, 128)], 3: [None, (2, 4, 8)]}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    options = parser.parse_args()
    device = choose_device(options.device)
    print(f"device {device.name}", flush=True)
    rng = np.random.default_rng(0)
    failures = 0
    for rank in (1, 2, 3):
        text = stencil_module(WINDOWS[rank], INPUTS[rank])
        for strategy in ("streamed", "tiled", "direct"):
            for tile in TILES[rank] if strategy != "direct" else [None]:
                os.environ["SOAC_STENCIL"] = strategy
                module = parse_module(make_context(), text, f"stencil_rank{rank}.mlir")
                count = len(WINDOWS[rank]) * len(BOUNDARIES)
                sizes = {f"stencil_{k}_block_{d}": t for k in range(count) for d, t in enumerate(tile or ())}
                program = compile_module(with_tile_sizes(module, sizes), device)
                cases = bad = 0
                for window in WINDOWS[rank]:
                    for boundary in BOUNDARIES:
                        for shape in AWKWARD_SHAPES[rank] + EXTRA_SHAPES[rank]:
                            xs = random_inputs(rng, shape, INPUTS[rank])
                            (got,) = program.call(function_name(window, boundary), xs)
                            cases += 1
                            if not np.array_equal(np.asarray(got), reference(xs, window, boundary)):
                                bad += 1
                                print(f"  FAIL rank {rank} {strategy} tile {tile} window {window} {boundary} shape {shape}")
                failures += bad
                print(f"rank {rank} {strategy:8} tile {tile or 'default'!s:12} {cases} cases, {bad} failures", flush=True)
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
