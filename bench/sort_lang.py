"""`sl.sort` and `sl.sort_by_key` (radix sorts on soac.partition) against cupy.sort / argsort+take and torch.sort in
one run: device-resident calls on 32-bit keys, checked against numpy's stable sort.

    python bench/sort_lang.py --n 100000000 --runs 5
"""

from __future__ import annotations

import argparse

import numpy as np
import soac.lang as sl
from resident import median_ms  # pyright: ignore[reportMissingImports]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000_000)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    n = options.n
    keys = np.random.default_rng(28).integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    values = np.arange(n, dtype=np.int32)
    order = np.argsort(keys, kind="stable")
    sort = sl.jit(lambda xs: sl.sort(xs), device_results=True)
    pairs = sl.jit(lambda ks, vs: sl.sort_by_key(ks, vs), device_results=True)
    dk, dv = sl.device_put(keys), sl.device_put(values)
    got = sort(dk).get()
    ks, vs = pairs(dk, dv)
    ok = np.array_equal(got, keys[order]) and np.array_equal(ks.get(), keys[order]) and np.array_equal(vs.get(), order)
    queue = sort.specialize(dk).runner.queue
    print(f"n={n} soac results match numpy: {ok}", flush=True)
    rows = {
        "soac sl.sort (keys)": median_ms(lambda: sort(dk), queue.finish, options.runs),
        "soac sl.sort_by_key (pairs)": median_ms(lambda: pairs(dk, dv), queue.finish, options.runs),
    }
    try:
        import cupy as cp

        ck, cv = cp.asarray(keys), cp.asarray(values)
        sync = cp.cuda.Device().synchronize
        rows["cupy.sort (keys)"] = median_ms(lambda: cp.sort(ck), sync, options.runs)
        rows["cupy argsort+take (pairs)"] = median_ms(lambda: (lambda o: (ck[o], cv[o]))(cp.argsort(ck)), sync, options.runs)
    except ImportError:
        pass
    try:
        import torch

        tk, tv = torch.from_numpy(keys).cuda(), torch.from_numpy(values).cuda()
        rows["torch.sort (keys)"] = median_ms(lambda: torch.sort(tk), torch.cuda.synchronize, options.runs)
        rows["torch.sort stable + gather (pairs)"] = median_ms(
            lambda: (lambda r: tv[r.indices])(torch.sort(tk, stable=True)), torch.cuda.synchronize, options.runs
        )
    except ImportError:
        pass
    for name, ms in rows.items():
        print(f"{name:40} {ms:8.2f} ms", flush=True)


if __name__ == "__main__":
    main()
