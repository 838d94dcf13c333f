"""Stream compaction of i32 at 50% selectivity: `sl.filter` (one scan of the flags whose kernel scatters the kept
elements, lang/compaction.py) and `sl.partition` into one bucket with the kept rows' slice written out, against
CuPy's boolean mask, torch's `masked_select`, and the floor: reading the input and writing the output once (CuPy
copying every other element). Device-resident wall times, checked against numpy.

    python bench/filter.py --log2-n 28 --runs 5 [--breakdown] [--lowering 'scan-items=16' ...]
"""

from __future__ import annotations

import argparse

import numpy as np
import soac.lang as sl
from resident import kernel_breakdown, median_ms  # pyright: ignore[reportMissingImports]


def by_filter(xs):
    return sl.filter(lambda x: x > 0, xs)


def by_partition(xs):
    counts, moved = sl.partition(1, lambda x: sl.where(x > 0, 0, 1), xs)
    return moved[: counts[0]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log2-n", type=int, default=28)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--breakdown", action="store_true", help="also the kernels' times of each soac call, by name")
    parser.add_argument(
        "--lowering", action="append", default=[], help="sl.filter again with these soac-to-kernel options ('scan-items=16')"
    )
    options = parser.parse_args()
    n = 1 << options.log2_n
    xs = np.random.default_rng(5).integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    want = xs[xs > 0]
    dx = sl.device_put(xs)
    floor = None
    rows = {}
    variants = [("sl.filter", by_filter, None), ("sl.partition + slice", by_partition, None)]
    for spec in options.lowering:
        forced = {k.replace("-", "_"): int(v) if v.isdigit() else v for k, v in (item.split("=") for item in spec.split())}
        variants.append((f"sl.filter {spec}", by_filter, forced))
    for name, fn, lowering in variants:
        jitted = sl.jit(fn, device_results=True, lowering=lowering)
        ok = np.array_equal(jitted(dx).get(), want)
        queue = jitted.specialize(dx).runner.queue
        rows[name] = (median_ms(lambda: jitted(dx), queue.finish, options.runs), ok)
        if options.breakdown:
            times = kernel_breakdown(jitted.specialize(dx).runner, lambda: jitted(dx), options.runs)
            print(f"{name}: kernels {sum(times.values()):.3f} ms: " + ", ".join(f"{k} {v:.3f}" for k, v in times.items()))
    try:
        import cupy as cp

        cx = cp.asarray(xs)
        ok = np.array_equal(cx[cx > 0].get(), want)
        rows["cupy x[x > 0]"] = (median_ms(lambda: cx[cx > 0], cp.cuda.runtime.deviceSynchronize, options.runs), ok)
        half = cp.empty(n // 2, dtype=cp.int32)  # every other element: all of the input's lines read, half written
        floor = median_ms(lambda: cp.copyto(half, cx[::2]), cp.cuda.runtime.deviceSynchronize, options.runs)
    except ImportError:
        pass
    try:
        import torch

        if torch.cuda.is_available():
            tx = torch.from_numpy(xs).cuda()
            ok = np.array_equal(torch.masked_select(tx, tx > 0).cpu().numpy(), want)
            select_ms = median_ms(lambda: torch.masked_select(tx, tx > 0), torch.cuda.synchronize, options.runs)
            rows["torch.masked_select"] = (select_ms, ok)
    except ImportError:
        pass
    print(f"n = 2^{options.log2_n} i32, {len(want) / n:.1%} kept", flush=True)
    if floor is not None:
        print(f"{'floor: read all, write half (cupy x[::2])':<44} {floor:8.3f} ms", flush=True)
    for name, (ms, ok) in rows.items():
        ratio = f"  {ms / floor:5.2f}x floor" if floor else ""
        print(f"{name:<44} {ms:8.3f} ms{ratio}  matches numpy: {ok}", flush=True)


if __name__ == "__main__":
    main()
