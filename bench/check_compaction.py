"""Check stream compaction (`sl.filter`, `sl.compress`; lang/compaction.py, staged stores: dense_places.py) on a device
against numpy: element types of 1, 4 and 8 bytes, sizes around the look-back tile (8192 rows on NVIDIA), kept
fractions 0, 0.5 and 1, with staging on and off (`scan-stage`).

    python bench/check_compaction.py [--device gpu]

Prints one line per failure and the count of checks and failures."""

from __future__ import annotations

import argparse

import numpy as np
import soac.lang as sl

SIZES = (0, 1, 8191, 8192, 8193, 3 * 8192 + 17, 1_000_003, (1 << 24) + 5)
TYPES = (np.int32, np.float32, np.int8, np.bool_, np.float64, np.int64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    options = parser.parse_args()
    rng = np.random.default_rng(40)
    checks = failures = 0
    for stage in (True, False):
        filtered = sl.jit(lambda xs: sl.filter(lambda x: x > 0, xs), device=options.device, lowering={"scan_stage": stage})
        compressed = sl.jit(lambda m, xs: sl.compress(m, xs), device=options.device, lowering={"scan_stage": stage})
        for dtype in TYPES:
            for n in SIZES:
                for fraction in (0.0, 0.5, 1.0):
                    keep = rng.random(n) < fraction
                    xs = (rng.integers(1, 100, n) * np.where(keep, 1, -1)).astype(dtype)
                    if dtype is np.bool_:
                        xs = keep.copy()
                    cases = [("compress", lambda xs=xs, keep=keep: compressed(keep, xs), xs[keep])]
                    if dtype is not np.bool_:  # `x > 0` compares numbers
                        cases.append(("filter", lambda xs=xs: filtered(xs), xs[xs > 0]))
                    for name, got, want in cases:
                        checks += 1
                        result = np.asarray(got())
                        if result.dtype != want.dtype or not np.array_equal(result, want):
                            failures += 1
                            print(f"FAIL {name} {np.dtype(dtype).name} n={n} kept {fraction} stage={stage}", flush=True)
    print(f"{checks} checks, {failures} failures", flush=True)


if __name__ == "__main__":
    main()
