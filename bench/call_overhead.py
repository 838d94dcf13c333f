"""Where a device-resident call's host time goes: the call beside its kernels' time, the OpenCL floors (a blocking
read of a few bytes, an empty kernel's launch and wait) and a cProfile of the calls.

    python bench/call_overhead.py --only matvec,backprop --runs 200      # suite programs at their GPU sizes
    python bench/call_overhead.py --small --only matvec --runs 20        # PoCL, small sizes

For each program: the median resident call (inputs on the device, results left there, then `queue.finish()`), the
median of its kernels' summed profiling times, their difference (the host's share), and the functions that took the
most time over the profiled calls.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

import numpy as np
import pyopencl as cl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "real"))

from probe import Probe  # noqa: E402
from suite import PROGRAMS  # noqa: E402


def floors(device: str | None, runs: int) -> dict[str, float]:
    """Microseconds of a blocking 64-byte read and of an empty kernel launched and waited for."""
    from soac.lowering.runtime import choose_device

    chosen = choose_device(device)
    context = cl.Context([chosen])
    queue = cl.CommandQueue(context)
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, 64)
    host = np.empty(8, np.int64)
    kernel = cl.Program(context, "__kernel void nothing(__global long *x) {}").build().nothing
    kernel.set_arg(0, buffer)

    def median_us(step: object) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            step()  # type: ignore[operator]
            times.append((time.perf_counter() - start) * 1e6)
        return float(np.median(times))

    read = median_us(lambda: cl.enqueue_copy(queue, host, buffer, is_blocking=True))
    launch = median_us(lambda: cl.enqueue_nd_range_kernel(queue, kernel, (64,), (64,)).wait())
    enqueue = median_us(lambda: cl.enqueue_nd_range_kernel(queue, kernel, (64,), (64,)))
    queue.finish()
    return {"blocking_read_us": read, "launch_and_wait_us": launch, "enqueue_only_us": enqueue}


def profile_program(name: str, scale: str, device: str | None, runs: int, top: int) -> str:
    import soac.lang as sl

    program = next(p for p in PROGRAMS if p.name == name)
    args = program.inputs(np.random.default_rng(0), program.sizes[scale])
    f = sl.jit(program.soac, device=device) if device else sl.jit(program.soac)
    f(*args)
    compiled = f.specialize(*args).runner
    probe = Probe(compiled, program.soac.__name__, args)
    resident = probe.resident_ms({}, runs)
    kernels, _ = probe.kernel_ms({}, runs)
    each = ", ".join(f"{n} {(e.profile.end - e.profile.start) * 1e-3:.1f}" for n, e in probe.events)
    on_device, queue = probe._resident_args(), compiled.queue
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        compiled.call(probe.name, on_device, {}, device_results=True)
        queue.finish()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(top)
    lines = [
        f"== {name}: resident {resident * 1e3:.1f} us, kernels {kernels * 1e3:.1f} us, host share "
        f"{(resident - kernels) * 1e3:.1f} us; kernels (us, last call): {each}",
        text.getvalue(),
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="matvec,backprop,batched_matmul,blackscholes")
    parser.add_argument("--small", action="store_true", help="small sizes on PoCL")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--top", type=int, default=18)
    options = parser.parse_args()
    scale, device = ("small", "pocl") if options.small else ("gpu", None)
    print({k: round(v, 1) for k, v in floors(device, options.runs).items()}, flush=True)
    for name in options.only.split(","):
        print(profile_program(name, scale, device, options.runs, options.top), flush=True)


if __name__ == "__main__":
    main()
