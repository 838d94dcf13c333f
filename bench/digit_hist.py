"""The histograms of a radix sort's four 8-bit digit places: one histogram of the places' `4n` rows (each row a key
and a place) against one histogram per place (`soac.lang.sorting.digit_histogram`, what `sl.sort` does),
device-resident, on 32-bit keys; checked against numpy.

    python bench/digit_hist.py --n 100000000 --runs 5
"""

from __future__ import annotations

import argparse

import numpy as np
import soac.lang as sl
from resident import median_ms  # pyright: ignore[reportMissingImports]
from soac.lang import dtypes
from soac.lang.sorting import _digit, digit_histogram  # pyright: ignore[reportPrivateUsage]


def one_pass(xs):
    def bin_of(r):
        place = r % 4
        return place * 256 + _digit(xs[r // 4], place * 8, 255).astype(dtypes.int64)

    bins = sl.map(bin_of, sl.iota(xs.shape[0] * 4))
    return sl.bincount(bins, weights=sl.full(bins.shape[0], 1, dtypes.int32), length=1024)


def per_place(xs):
    return sl.concatenate([digit_histogram(xs, 8 * p, 8) for p in range(4)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000_000)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    keys = np.random.default_rng(28).integers(-(2**31), 2**31, options.n, dtype=np.int64).astype(np.int32)
    bits = keys.view(np.uint32) ^ np.uint32(1 << 31)
    want = np.concatenate([np.bincount((bits >> np.uint32(8 * p)) & np.uint32(255), minlength=256) for p in range(4)])
    dk = sl.device_put(keys)
    for name, fn in (("one histogram of 4n rows", one_pass), ("one histogram per place", per_place)):
        jitted = sl.jit(fn, device_results=True)
        got = jitted(dk).get()
        queue = jitted.specialize(dk).runner.queue
        ms = median_ms(lambda: jitted(dk), queue.finish, options.runs)
        print(f"{name:<28} {ms:8.3f} ms  matches numpy: {np.array_equal(got, want)}", flush=True)


if __name__ == "__main__":
    main()
