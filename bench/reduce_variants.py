"""Shapes of the vectorised reduction kernel side by side in one run (issue 17's redomap sum): each checked, then timed.

    python bench/reduce_variants.py [--configs 4/256/1024,8/256/1024,...] [--log2-size 28] [--runs 7] [--device gpu]

A configuration is `STREAMS/GROUP/GROUPS`: the 16-byte loads in flight per work-item and iteration
(`reduce.VECTOR_STREAMS`), the work-group size and the most work-groups of the first stage (0 = the runtime's
choice). Each program (bench/programs/sum.mlir, fused into one redomap) is checked against numpy at awkward sizes,
then its kernel time (OpenCL profiling, as bench/run.py) at 2^log2-size is the median of `--runs` calls and printed
as a ratio to the time of copying the input (clEnqueueCopyBuffer) measured in the same run, and as the read rate.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # pyright: ignore[reportMissingImports]

CHECK_SIZES = [1, 5, 4097, 2**20 + 3]


def expected(xs: np.ndarray) -> np.int32:
    return np.sum(3 * xs + 1, dtype=np.int32)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="4/256/0,2/256/0,8/256/0,4/128/0,4/512/0,4/256/264,4/256/528,4/256/2112")
    parser.add_argument("--log2-size", type=int, default=28)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--device", default=None)
    options = parser.parse_args()
    from soac.lowering.strategies import reduce

    device, _, xs, memcpy = run.variant_inputs(options)
    n = len(xs)
    print(f"{'config':<16} {'ms':>7} {'x memcpy':>9} {'TB/s read':>10}  check", flush=True)
    failures = 0
    for config in options.configs.split(","):
        streams, group, groups = (int(part) for part in config.split("/"))
        reduce.VECTOR_STREAMS = streams
        started = time.perf_counter()
        try:
            variant = run.Variant(config, run.program_text("sum"), "soac-fuse")
            timed = run.Timed(variant, device, group_size=group or None, max_groups=groups or None)
            status = "ok"
            for size in [*CHECK_SIZES, n]:
                small = xs[:size]
                (got,) = timed.run([small])[1]
                if int(got) != int(expected(small)):
                    status = f"WRONG at n={size}"
            timed.keep_on_device()
            ms = float(np.median([timed.run([xs])[0] for _ in range(options.runs)]))
            failures += status != "ok"
            line = f"{ms:7.3f} {ms / memcpy:9.3f} {4 * n / ms / 1e9:10.2f}  {status}"
        except Exception as error:
            failures += 1
            line = f"FAILED {type(error).__name__}: {str(error).splitlines()[0][:160]}"
        print(f"{config:<16} {line} ({time.perf_counter() - started:.1f} s)", flush=True)
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
