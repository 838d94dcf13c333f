"""Maps of partitions and sorts of rows (`sl.map` of `sl.partition` / `sl.sort`), flattened by soac-flatten into
partitions of the whole flat array by (row, bucket) (`passes/flatten_partition.py`; forced, though incremental
flattening keeps a partition per work-item for as many rows as the device runs work-items), against the same programs
left as one partition per work-item (`soac-flatten{mode=moderate}`) and against torch / CuPy in one run:
device-resident calls, each checked against numpy first.

    python bench/segmented_partition.py --shapes 16x1000000,1000x10000,100000x100 --runs 5

For each shape (rows x width, i32 keys): `partition 2` (non-negative keys first, a stable filter of every row: one
flat partition where the rows' classes fit 256 buckets, else by bucket and one pass per 8-bit digit of the row id),
`partition 16` (by the low 4 bits), and the stable sort of every row (4 digit places of 8 bits, each a segmented
partition). Peers: `torch.sort(dim=1, stable=True)` of the keys (the sort) and of the bucket ids with a gather (the
partitions), `cupy.sort(axis=1)`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
import soac.lang as sl
from resident import median_ms  # pyright: ignore[reportMissingImports]
from soac.passes import TILED_PIPELINE

PER_WORK_ITEM = TILED_PIPELINE.replace("soac-flatten{prepare=false}", "soac-flatten{prepare=false mode=moderate}")


SEGMENTED = {"suff_outer_par_0": 2**62}
"""The map's outer-parallel version (a partition per work-item) never taken: the segmented partitions always run."""


def functions(pipeline: str | None) -> dict[str, Callable[..., Any]]:
    def jit(fn: Callable[..., Any]) -> Callable[..., Any]:
        return sl.jit(fn, device_results=True, pipeline=pipeline, thresholds=SEGMENTED if pipeline is None else None)

    return {
        "partition 2": jit(lambda xss: sl.map(lambda row: sl.partition(2, lambda x: sl.where(x >= 0, 0, 1), row), xss)),
        "partition 16": jit(lambda xss: sl.map(lambda row: sl.partition(16, lambda x: x & 15, row), xss)),
        "sort rows": jit(lambda xss: sl.map(sl.sort, xss)),
    }


def expected(name: str, xss: np.ndarray) -> list[np.ndarray]:
    if name == "sort rows":
        return [np.sort(xss, axis=1, kind="stable")]
    buckets = np.where(xss >= 0, 0, 1) if name == "partition 2" else xss & 15
    k = 2 if name == "partition 2" else 16
    order = np.argsort(buckets, axis=1, kind="stable")
    counts = np.stack([np.count_nonzero(buckets == b, axis=1) for b in range(k)], axis=-1)
    return [counts.astype(np.int32), np.take_along_axis(xss, order, axis=1)]


def check(name: str, got: Any, xss: np.ndarray) -> bool:
    results = got if isinstance(got, tuple) else (got,)
    return all(np.array_equal(g.get(), w) for g, w in zip(results, expected(name, xss), strict=True))


def peers(xss: np.ndarray, runs: int) -> dict[str, float]:
    rows: dict[str, float] = {}
    try:
        import torch

        t = torch.from_numpy(xss).cuda()
        sync = torch.cuda.synchronize
        low = t & 15
        neg = (t < 0).to(torch.int32)
        rows["torch partition 2 (stable sort of buckets + gather)"] = median_ms(
            lambda: torch.gather(t, 1, torch.sort(neg, dim=1, stable=True).indices), sync, runs
        )
        rows["torch partition 16 (stable sort of buckets + gather)"] = median_ms(
            lambda: torch.gather(t, 1, torch.sort(low, dim=1, stable=True).indices), sync, runs
        )
        rows["torch sort rows (stable)"] = median_ms(lambda: torch.sort(t, dim=1, stable=True), sync, runs)
    except (ImportError, RuntimeError, AssertionError):
        pass
    try:
        import cupy as cp

        c = cp.asarray(xss)
        rows["cupy sort rows"] = median_ms(lambda: cp.sort(c, axis=1), cp.cuda.Device().synchronize, runs)
    except ImportError:
        pass
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default="16x1000000,1000x10000,100000x100", help="rows x width, comma-separated")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-per-work-item", action="store_true", help="skip the unflattened programs (slow)")
    options = parser.parse_args()
    flat = functions(None)
    sequential = {} if options.no_per_work_item else functions(PER_WORK_ITEM)
    for shape in options.shapes.split(","):
        m, n = (int(s) for s in shape.split("x"))
        xss = np.random.default_rng(m + n).integers(-(2**31), 2**31, (m, n), dtype=np.int64).astype(np.int32)
        device = sl.device_put(xss)
        print(f"== {m} rows x {n}", flush=True)
        for variant, table in [("segmented", flat), ("per work-item", sequential)]:
            for name, fn in table.items():
                ok = check(name, fn(device), xss)
                queue = fn.specialize(device).runner.queue
                ms = median_ms(lambda fn=fn: fn(device), queue.finish, options.runs)
                print(f"soac {name:14} {variant:14} {ms:9.3f} ms  matches numpy: {ok}", flush=True)
        for name, ms in peers(xss, options.runs).items():
            print(f"{name:54} {ms:9.3f} ms", flush=True)


if __name__ == "__main__":
    main()
