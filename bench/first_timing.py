"""A first GPU timing of examples/map_scan.mlir, fused and unfused, against a device-to-device copy.

    python bench/first_timing.py [--log2-size 26] [--runs 10]

Kernel time is the sum of the OpenCL profiling times of the kernels one call
launches; wall time includes uploading the input and reading the result back.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyopencl as cl
from soac.context import make_context
from soac.lowering.runtime import Program, compile_module
from soac.parsing import parse_module
from soac.passes.soac_fuse import SoacFusePass
from xdsl.context import Context

ROOT = Path(__file__).resolve().parents[1]


def profiled(program: Program) -> list[cl.Event]:
    """Make `program` launch on a profiling queue and record each kernel's event."""
    program.queue = cl.CommandQueue(program.context, program.device, properties=cl.command_queue_properties.PROFILING_ENABLE)
    events: list[cl.Event] = []

    def recording(kernel: cl.Kernel) -> Any:
        def launch(*args: Any) -> cl.Event:
            event = kernel(*args)
            events.append(event)
            return event

        return launch

    program.kernels = {name: recording(kernel) for name, kernel in program.kernels.items()}
    return events


def time_call(program: Program, events: list[cl.Event], xs: np.ndarray, runs: int) -> tuple[float, float, np.ndarray]:
    result = program.call("main", [xs])[0]
    kernel_ms, wall_ms = [], []
    for _ in range(runs):
        events.clear()
        start = time.perf_counter()
        program.call("main", [xs])
        wall_ms.append((time.perf_counter() - start) * 1e3)
        kernel_ms.append(sum(e.profile.end - e.profile.start for e in events) * 1e-6)
    return float(np.median(kernel_ms)), float(np.median(wall_ms)), result


def copy_ms(program: Program, nbytes: int, runs: int) -> float:
    queue = cl.CommandQueue(program.context, program.device, properties=cl.command_queue_properties.PROFILING_ENABLE)
    src = cl.Buffer(program.context, cl.mem_flags.READ_WRITE, nbytes)
    dst = cl.Buffer(program.context, cl.mem_flags.READ_WRITE, nbytes)
    times = []
    for _ in range(runs + 1):
        event = cl.enqueue_copy(queue, dst, src, byte_count=nbytes)
        event.wait()
        times.append((event.profile.end - event.profile.start) * 1e-6)
    return float(np.median(times[1:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--log2-size", type=int, default=26)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--device", default=None)
    options = parser.parse_args()

    path = ROOT / "examples" / "map_scan.mlir"
    unfused = parse_module(make_context(), path.read_text(), str(path))
    fused = unfused.clone()
    SoacFusePass().apply(Context(), fused)
    xs = np.random.default_rng(0).integers(-100, 100, 2**options.log2_size).astype(np.int32)
    expected = np.cumsum(3 * xs.astype(np.int64) + 1).astype(np.int32)

    rows = []
    for label, module in (("unfused", unfused), ("fused", fused)):
        program = compile_module(module, options.device)
        events = profiled(program)
        kernel, wall, result = time_call(program, events, xs, options.runs)
        assert np.array_equal(result, expected), f"{label}: wrong result"
        rows.append((label, kernel, wall, len(events)))
    memcpy = copy_ms(program, xs.nbytes, options.runs)
    print(f"device: {program.device.name}; n = 2^{options.log2_size} int32; median of {options.runs} runs")
    print(f"{'variant':10} {'kernels':>8} {'kernel ms':>10} {'x memcpy':>9} {'wall ms':>9}")
    for label, kernel, wall, launches in rows:
        print(f"{label:10} {launches:8d} {kernel:10.3f} {kernel / memcpy:9.2f} {wall:9.1f}")
    print(f"{'memcpy':10} {1:8d} {memcpy:10.3f} {1:9.2f}")
    print(f"fusion speedup (kernel time): {rows[0][1] / rows[1][1]:.2f}x")


if __name__ == "__main__":
    main()
