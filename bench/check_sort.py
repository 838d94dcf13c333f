"""Correctness of soac.lang's sorts on soac.partition on a device, for each lowering path: the default (Onesweep
where the device's scan is the look-back one and the counts are known), the counting path (`scan=reduce-then-scan`),
and the generic target's ranking (no warps), counting or Onesweep; `match`: warps match classes with `match.any`;
`again`: the tiles rank twice; `registers`: the ranks and rows kept in registers; `load`: each round loads its rows;
`wide`: 64-bit indices only; `window4`: the look-back reads 4 tiles' words a step. Keys i32 and f32, pairs, sizes
around the tile and large.

    python bench/check_sort.py                       # the first GPU
    python bench/check_sort.py --device pocl --sizes 1000,5000
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import soac.lang as sl

VARIANTS: dict[str, dict[str, object]] = {
    "default": {},
    "counting": {"scan": "reduce-then-scan"},
    "generic": {"target": "generic"},
    "generic-onesweep": {"target": "generic", "scan": "lookback"},
    "match": {"partition_match": "match"},
    "again": {"partition_ranks": "again"},
    "registers": {"partition_ranks": "registers"},
    "load": {"partition_rows": "load"},
    "wide": {"partition_index": "i64"},
    "window4": {"partition_lookback": 4},
}


def sort_keys(xs):
    return sl.sort(xs)


def sort_pairs(ks, vs):
    return sl.sort_by_key(ks, vs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", default="1,4095,4097,100000,1000000,10000000")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    options = parser.parse_args()
    rng = np.random.default_rng(28)
    failures = 0
    for variant in options.variants.split(","):
        lowering = VARIANTS[variant]
        keys = sl.jit(sort_keys, device=options.device, lowering=lowering)
        pairs = sl.jit(sort_pairs, device=options.device, lowering=lowering)
        for n in (int(s) for s in options.sizes.split(",")):
            cases = {
                "i32": rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32),
                "f32": rng.standard_normal(n).astype(np.float32),
                "few": rng.integers(0, 4, n).astype(np.int32),
            }
            for name, xs in cases.items():
                try:
                    got = keys(xs)
                    ok = np.array_equal(got, np.sort(xs, kind="stable"))
                except Exception as error:  # reported as a failure
                    ok, got = False, error
                failures += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {variant:9} keys {name:4} n={n}", flush=True)
            values = np.arange(n, dtype=np.int32)
            try:
                ks, vs = pairs(cases["few"], values)
                order = np.argsort(cases["few"], kind="stable")
                ok = np.array_equal(ks, cases["few"][order]) and np.array_equal(vs, values[order])
            except Exception:
                ok = False
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {variant:9} pairs few  n={n}", flush=True)
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
