"""The host cost of one chunk's call (issue 29): `Program.call` with device results and device scalars, as
soac.lang.dask's device groups call it for each chunk of a resident reduce (`StageCall.run_deferred`), on a chunk
small enough that the kernels' work is nothing next to the host's.

    python bench/call_overhead.py [--log2-n 10] [--calls 1000] [--reps 5] [--programs map->reduce,checked]
                                  [--profile] [--device pocl] [--json OUT]

Reports the median microseconds per call over `--calls` calls (each rep queues them back to back, as a group does,
then waits for the device once; the wait is not counted), and the whole call's time with the read-back for
comparison; then the mean of a call split into the driver's enqueues (kernels, copies, fills) and the rest (soac's
host code, which a faster driver does not shorten). `checked` is a reduce with device checks (an error buffer) and a
gather from a whole table. `--profile` prints cProfile's top functions for one rep. It uses only `sl.jit`'s
`specialize` and `Compiled.run`, so it runs on older checkouts too (for a baseline on the same machine).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pyopencl as cl
import soac.lang as sl
from soac.lang.device import device_put


def energy_terms(xs):
    return sl.sum(sl.map(lambda x: 0.5 * x * x + 1.0, xs))


def table_terms(xs, table):
    return sl.sum(sl.map(lambda x: table[x % 4] * x, xs))


def setup(name: str, n: int, device: str | None) -> tuple[Callable[[], Any], Any, Callable[[Any], float], float]:
    """The call to time (one chunk, its partial left on the device), the compiled program, a read-back, the answer."""
    rng = np.random.default_rng(0)
    if name == "map->reduce":
        host = rng.random(n, dtype=np.float32)
        args: tuple[Any, ...] = (device_put(host, device),)
        jitted = sl.jit(energy_terms, device=device)
        expected = float((0.5 * host.astype(np.float64) ** 2 + 1.0).sum())
    else:
        host = rng.integers(0, 1000, n).astype(np.int64)
        table = np.array([1, 2, 3, 4], np.int64)
        args = (device_put(host, device), device_put(table, device))
        jitted = sl.jit(table_terms, device=device)
        expected = float((table[host % 4] * host).sum())
    compiled = jitted.specialize(*args)
    thresholds = jitted.thresholds

    def call() -> Any:
        return compiled.run(args, thresholds, True, device_scalars=True)

    return call, compiled, lambda r: float(np.asarray(r)), expected


class DriverTime:
    """Wraps pyopencl's enqueue functions (as the runtime calls them, through the module) and sums their time: what
    the OpenCL driver takes (on PoCL, also the wait for a core its worker threads hold), not soac's host code."""

    NAMES = ("enqueue_nd_range_kernel", "enqueue_copy", "enqueue_fill_buffer")

    def __init__(self) -> None:
        self.seconds = 0.0
        self.originals = {name: getattr(cl, name) for name in self.NAMES}

    def __enter__(self) -> DriverTime:
        for name, original in self.originals.items():
            setattr(cl, name, self.timed(original))
        return self

    def __exit__(self, *_: object) -> None:
        for name, original in self.originals.items():
            setattr(cl, name, original)

    def timed(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        return call


def per_call(call: Callable[[], Any], finish: Callable[[], None], calls: int) -> list[float]:
    """Microseconds of each of `calls` calls queued back to back; then one wait."""
    times = []
    results = []
    for _ in range(calls):
        start = time.perf_counter()
        results.append(call())
        times.append((time.perf_counter() - start) * 1e6)
    finish()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log2-n", type=int, default=10)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--programs", default="map->reduce,checked")
    parser.add_argument("--device", default=None, help="a SOAC_OPENCL_DEVICE spec (default: the runtime's choice)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rows = []
    for name in args.programs.split(","):
        call, compiled, read, expected = setup(name, 1 << args.log2_n, args.device)
        program = compiled.runner
        finish = program.queue.finish
        got = read(call())
        if not np.isclose(got, expected, rtol=1e-4):
            raise SystemExit(f"{name}: got {got}, expected {expected}")
        per_call(call, finish, min(args.calls, 100))  # warm up
        medians = [statistics.median(per_call(call, finish, args.calls)) for _ in range(args.reps)]
        with DriverTime() as driver:
            start = time.perf_counter()
            per_call(call, finish, args.calls)
            total = time.perf_counter() - start
        whole = []
        for _ in range(min(args.calls, 200)):
            start = time.perf_counter()
            read(call())
            whole.append((time.perf_counter() - start) * 1e6)
        row = {
            "program": name,
            "n": 1 << args.log2_n,
            "device": program.device.name,
            "us_per_call": statistics.median(medians),
            "us_per_call_reps": [round(m, 2) for m in medians],
            "us_call_and_read": statistics.median(whole),
            "us_in_driver": driver.seconds / args.calls * 1e6,
            "us_outside_driver": (total - driver.seconds) / args.calls * 1e6,
        }
        rows.append(row)
        print(f"{name} (2^{args.log2_n}, {row['device']}): {row['us_per_call']:.1f} us a call queued "
              f"(reps {row['us_per_call_reps']}), {row['us_call_and_read']:.1f} us with the read-back; "
              f"a call's enqueues {row['us_in_driver']:.1f} us, the rest {row['us_outside_driver']:.1f} us (mean)")  # fmt: skip
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            per_call(call, finish, args.calls)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
