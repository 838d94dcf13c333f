"""What soac.lang costs: a cached call against calling the compiled module directly, and the embedded map->scan
against the hand-written examples/map_scan.mlir (the same kernels: the OpenCL C is compared first).

    python bench/lang_overhead.py [--device gpu|cpu|pocl|...] [--sizes 1000,1000000] [--reps 2000] [--json OUT]

1. Overhead. `f = soac.lang.jit(map_scan)` is called once (traced, compiled); then, call by call in turn,
   `f(xs)` and `f.last.runner.call("main", [xs])` (the same `soac.lowering.runtime.Program`, called
   directly). The median of the differences of the pairs is what the embedding adds to a cached call. The
   kernels' own time (the OpenCL profiling events of one call) is printed beside them, and the least any call
   can cost through pyopencl on the device: upload, two trivial kernel launches, a blocking read-back.
2. Embedded vs hand-written. Both programs after `canonicalize,soac-fuse,soac-flatten`, compiled for the
   device, timed call by call in turn by wall clock (upload, kernels, read-back): `f(xs)` against the
   hand-written module's `Program.call`.
3. The embedding alone: the same cached call with a do-nothing program in place of the compiled one.
4. First calls: tracing, the pass pipeline and lowering with the OpenCL build (a miss of both caches), and a
   miss in memory that hits the on-disk cache.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyopencl as cl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "python"))


def per_call_us(fn: Callable[[], Any], reps: int) -> list[float]:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e6)
    return times


def alternate(a: Callable[[], Any], b: Callable[[], Any], reps: int) -> tuple[list[float], list[float]]:
    """Per-call times of a and b, measured call by call in turn (a b, then b a, ...), so that drift and the load of
    a shared machine hit both alike; the differences of the pairs give the overhead."""
    ta: list[float] = []
    tb: list[float] = []
    for k in range(reps):
        first, second = (a, b) if k % 2 == 0 else (b, a)
        t1 = per_call_us(first, 1)[0]
        t2 = per_call_us(second, 1)[0]
        ta.append(t1 if k % 2 == 0 else t2)
        tb.append(t2 if k % 2 == 0 else t1)
    return ta, tb


def kernel_us(program: Any, name: str, args: list[Any], reps: int = 20) -> float:
    """The median over calls of the summed OpenCL profiling times of the kernels one call launches."""
    queue = program.queue
    program.queue = cl.CommandQueue(program.context, program.device, properties=cl.command_queue_properties.PROFILING_ENABLE)
    kernels = program.kernels
    events: list[cl.Event] = []

    def recording(kernel: cl.Kernel) -> Any:
        def launch(*launch_args: Any) -> cl.Event:
            event = kernel(*launch_args)
            events.append(event)
            return event

        return launch

    program.kernels = {k: recording(v) for k, v in kernels.items()}
    try:
        sums = []
        for _ in range(reps):
            events.clear()
            program.call(name, args)
            sums.append(sum(e.profile.end - e.profile.start for e in events) / 1e3)
        return float(np.median(sums))
    finally:
        program.queue, program.kernels = queue, kernels


class NullProgram:
    """A compiled program that does nothing: calling the jitted function with it measures the embedding alone."""

    def call(self, name: str, args: list[Any], thresholds: Any = None, device_results: Any = None) -> tuple[Any, ...]:
        return (None,)


def dispatch_us(jitted: Any, xs: np.ndarray, reps: int = 20000) -> float:
    """What a cached call adds on its own: `f(xs)` with a do-nothing program, minus calling that program."""
    compiled = jitted.last
    saved, compiled.runner = compiled.runner, NullProgram()
    try:
        with_jit, direct = alternate(lambda: jitted(xs), lambda: compiled.runner.call("main", [xs]), reps)
    finally:
        compiled.runner = saved
    return float(np.median(np.subtract(with_jit, direct)))


FLOOR_SOURCE = """
__kernel void twice(__global int *xs, const long n) { long i = get_global_id(0); if (i < n) xs[i] *= 2; }
"""


def pyopencl_floor_us(program: Any, xs: np.ndarray, reps: int) -> float:
    """The least a call can cost on this device through pyopencl: upload `xs`, launch two trivial kernels, read
    back (what map->scan's host code does, without evaluating any host IR). The kernel's scalar parameter has its
    type declared, as the runtime declares its kernels' (before 2026-11-25 13:15 UTC it had not: pyopencl then
    works out what each scalar argument is, 3.5 us each on PoCL, and the floor was 20 us higher)."""
    context, queue = program.context, program.queue
    kernel = cl.Program(context, FLOOR_SOURCE).build().twice
    kernel.set_scalar_arg_dtypes([None, np.int64])
    out = np.empty_like(xs)

    def round_trip() -> None:
        buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=xs)
        for _ in range(2):
            kernel(queue, (xs.size,), None, buffer, xs.size)
        cl.enqueue_copy(queue, out, buffer, is_blocking=True)

    round_trip()
    return float(np.median(per_call_us(round_trip, reps)))


def stats(times: list[float]) -> dict[str, float]:
    return {"median_us": float(np.median(times)), "min_us": float(np.min(times)), "mean_us": float(np.mean(times))}


def hand_written_program(device: str | None) -> Any:
    from soac.context import make_context
    from soac.lowering.runtime import compile_module
    from soac.parsing import parse_module
    from soac.tools.soac_test import all_passes
    from xdsl.passes import PassPipeline

    ctx = make_context()
    path = ROOT / "examples" / "map_scan.mlir"
    module = parse_module(ctx, path.read_text(), str(path))
    PassPipeline.parse_spec(all_passes(), "canonicalize,soac-fuse,soac-flatten").apply(ctx, module)
    return compile_module(module, device=device)


def first_calls(device: str | None) -> dict[str, float]:
    """Milliseconds of a first call that misses both caches, and of one that misses in memory and hits on disk."""
    import soac.lang as sl
    from map_scan import map_scan

    xs = np.arange(1000, dtype=np.int32)
    with tempfile.TemporaryDirectory() as folder:
        os.environ["SOAC_CACHE_DIR"] = folder
        f = sl.jit(map_scan, device=device, name="first_call")
        from soac.lang.jit import trace

        start = time.perf_counter()
        trace(map_scan, [(sl.int32, 1)], "trace_only")
        trace_ms = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        f(xs)
        miss_ms = (time.perf_counter() - start) * 1e3
        g = sl.jit(map_scan, device=device, name="first_call")
        start = time.perf_counter()
        g(xs)
        disk_ms = (time.perf_counter() - start) * 1e3
        del os.environ["SOAC_CACHE_DIR"]
    return {"trace_ms": trace_ms, "miss_both_ms": miss_ms, "disk_hit_ms": disk_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--device", default=None, help="SOAC_OPENCL_DEVICE-style choice (gpu, cpu, pocl, 0:1); default: the runtime's"
    )
    parser.add_argument("--sizes", default="1000,1000000")
    parser.add_argument("--reps", type=int, default=2000, help="calls per measurement at the smallest size")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()

    import soac.lang as sl
    from map_scan import map_scan

    os.environ.setdefault("SOAC_CACHE_DIR", "off")
    rng = np.random.default_rng(0)
    results: dict[str, Any] = {}

    hand = hand_written_program(args.device)
    embedded = sl.jit(map_scan, device=args.device, name="main")
    embedded(np.arange(4, dtype=np.int32))
    program = embedded.last.runner
    same_source = program.source == hand.source
    results["device"] = f"{hand.device.name} ({hand.device.platform.name})"
    results["same_opencl"] = same_source
    print(f"device: {results['device']}")
    print(f"embedded map->scan OpenCL C identical to examples/map_scan.mlir's: {same_source}")
    assert same_source, "the embedded map->scan does not give the hand-written program's kernels"

    for n in (int(s) for s in args.sizes.split(",")):
        xs = rng.integers(-1000, 1000, n).astype(np.int32)
        reps = max(min(200, args.reps), args.reps * 1000 // max(n, 1000))
        np.testing.assert_array_equal(embedded(xs), hand.call("main", [xs])[0])
        jit_t, direct_t = alternate(lambda: embedded(xs), lambda: program.call("main", [xs]), reps)
        emb_t, hand_t = alternate(lambda: embedded(xs), lambda: hand.call("main", [xs]), reps)
        kernels = kernel_us(program, "main", [xs])
        floor = pyopencl_floor_us(program, xs, reps)
        row = {
            "jit_call": stats(jit_t),
            "direct_call": stats(direct_t),
            "overhead_us": float(np.median(np.subtract(jit_t, direct_t))),
            "kernels_us": kernels,
            "above_kernels_us": float(np.median(jit_t)) - kernels,
            "pyopencl_floor_us": floor,
            "embedded": stats(emb_t),
            "hand_written": stats(hand_t),
            "embedded_over_hand_written": float(np.median(emb_t) / np.median(hand_t)),
            "reps": reps,
        }
        results[f"n={n}"] = row
        print(
            f"n={n:>9}: cached jit call {row['jit_call']['median_us']:9.1f} us, direct Program.call "
            f"{row['direct_call']['median_us']:9.1f} us -> overhead {row['overhead_us']:6.1f} us; "
            f"kernels {kernels:9.1f} us (the cached call {row['above_kernels_us']:.1f} us above them); "
            f"pyopencl floor {floor:8.1f} us;\n{'':>12}"
            f"embedded/hand-written {row['embedded_over_hand_written']:.3f} "
            f"({row['embedded']['median_us']:.1f} / {row['hand_written']['median_us']:.1f} us, medians of {reps})"
        )

    dispatch = dispatch_us(embedded, rng.integers(0, 9, 1000).astype(np.int32))
    results["dispatch_us"] = dispatch
    print(f"the embedding's own work per cached call (argument types, lookup, unpacking): {dispatch:.2f} us")

    firsts = first_calls(args.device)
    results["first_calls"] = firsts
    print(
        f"first calls: trace {firsts['trace_ms']:.1f} ms; miss of both caches (trace, passes, lowering, build) "
        f"{firsts['miss_both_ms']:.1f} ms; miss in memory, hit on disk {firsts['disk_hit_ms']:.1f} ms"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
