"""Timing of device-resident calls for the bench scripts: the median wall time of a step followed by a wait for the
device (a queue's `finish`, a CUDA synchronize), after one untimed call."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np


def median_ms(step: Callable[[], Any], finish: Callable[[], Any], runs: int) -> float:
    """The median over `runs` of `step(); finish()` in milliseconds, after a warm-up call."""
    step()
    finish()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        finish()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def kernel_breakdown(program: Any, step: Callable[[], Any], runs: int) -> dict[str, float]:
    """The kernels' and copies' times of one `step()` by name (ms, OpenCL profiling events, medians over `runs` calls
    after a warm-up), for a `soac.lowering.runtime.Program` (a jitted function's `specialize(...).runner`). The
    program's queue becomes a profiling one: the device's, for its transfers too."""
    import pyopencl as cl

    program.queue = cl.CommandQueue(program.context, program.device, properties=cl.command_queue_properties.PROFILING_ENABLE)
    events: list[tuple[str, Any]] = []

    def recording(name: str, kernel: Any) -> Any:
        def launch(*args: Any) -> Any:
            event = kernel(*args)
            events.append((name, event))
            return event

        return launch

    program.kernels = {name: recording(name, k) for name, k in program.built_kernels.items()}
    original_copy = program.copy

    def copy(count: Any, source: Any, source_offset: Any, dest: Any, dest_offset: Any) -> None:
        if int(count):
            size = source.dtype.itemsize
            event = cl.enqueue_copy(
                program.queue, dest.buffer, source.buffer, byte_count=int(count) * size,
                src_offset=int(source_offset) * size, dst_offset=int(dest_offset) * size,
            )  # fmt: skip
            events.append(("copy", event))

    program.copy = copy
    per_run: list[dict[str, float]] = []
    try:
        for _ in range(runs + 1):
            events.clear()
            step()
            program.queue.finish()
            times: dict[str, float] = {}
            for name, event in events:
                times[name] = times.get(name, 0.0) + (event.profile.end - event.profile.start) * 1e-6
            per_run.append(times)
    finally:
        program.kernels = dict(program.built_kernels)
        program.copy = original_copy
    names = {name for times in per_run[1:] for name in times}
    return {name: float(np.median([times.get(name, 0.0) for times in per_run[1:]])) for name in sorted(names)}
