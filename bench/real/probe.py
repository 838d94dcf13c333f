"""Timing a compiled soac program's calls: device-resident (inputs uploaded once, results left on the device), the
kernels' own time from OpenCL profiling events, and which kernels a call launched.

For the device-resident time the probe calls the program as a user of device arrays does: its array arguments
uploaded once (`device_put`), its results left on the device (`Program.call(..., device_results=True)`)."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyopencl as cl

THRESHOLD = re.compile(r'soac\.threshold "([^"]+)" [^\n]*? default (\d+)')


def thresholds_of(optimized_text: str) -> dict[str, int]:
    """The program's thresholds and their defaults, from its printed IR after the passes."""
    return {name: int(default) for name, default in THRESHOLD.findall(optimized_text)}


class Probe:
    """Wraps `program` (a `soac.lowering.runtime.Program`) for timed calls of `@name` on `args`."""

    def __init__(self, program: Any, name: str, args: Sequence[Any]):
        self.program, self.name, self.args = program, name, list(args)
        self.on_device: list[Any] | None = None
        self.events: list[tuple[str, cl.Event]] = []
        self.profiling = cl.CommandQueue(program.context, program.device, properties=cl.command_queue_properties.PROFILING_ENABLE)

    def resident_ms(self, thresholds: Mapping[str, int], runs: int) -> float:
        """The median wall time of a call on inputs already on the device, its results left there."""
        args, queue = self._resident_args(), self.program.queue
        self.program.call(self.name, args, thresholds, device_results=True)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            self.program.call(self.name, args, thresholds, device_results=True)
            queue.finish()  # the results are computed, not only enqueued
            times.append((time.perf_counter() - start) * 1e3)
        return float(np.median(times))

    def kernel_ms(self, thresholds: Mapping[str, int], runs: int) -> tuple[float, list[str]]:
        """The median over calls of the summed profiling times of the kernels and copies a call enqueues, and the
        kernels the last call launched (in order, with repeats)."""
        args = self._resident_args()
        with self._recording():
            sums, names = [], []
            for _ in range(runs):
                self.events.clear()
                self.program.call(self.name, args, thresholds, device_results=True)
                self.profiling.finish()
                sums.append(sum(e.profile.end - e.profile.start for _, e in self.events) * 1e-6)
                names = [n for n, _ in self.events]
        return float(np.median(sums)), names

    # -- patching the program ---------------------------------------------------

    def _resident_args(self) -> list[Any]:
        """The arguments with their arrays on the device (uploaded on the first use)."""
        if self.on_device is None:
            from soac.lowering.runtime import device_put

            device = self.program.device
            self.on_device = [device_put(a, device) if isinstance(a, np.ndarray) and a.ndim else a for a in self.args]
            self.program.memory.queue.finish()
        return self.on_device

    def _recording(self) -> _Patch:
        program, events = self.program, self.events

        def recording(name: str, kernel: cl.Kernel) -> Any:
            def launch(*args: Any) -> cl.Event:
                event = kernel(*args)
                events.append((name, event))
                return event

            return launch

        def copy(count: Any, source: Any, source_offset: Any, dest: Any, dest_offset: Any) -> None:
            size = source.dtype.itemsize
            if int(count):
                event = cl.enqueue_copy(
                    program.queue,
                    dest.buffer,
                    source.buffer,
                    byte_count=int(count) * size,
                    src_offset=int(source_offset) * size,
                    dst_offset=int(dest_offset) * size,
                )
                events.append(("copy", event))

        kernels = {name: recording(name, kernel) for name, kernel in program.kernels.items()}
        return _Patch(program, queue=self.profiling, kernels=kernels, copy=copy)


class _Patch:
    """Sets attributes of an object for the duration of a `with` block."""

    def __init__(self, target: Any, **values: Any):
        self.target, self.values, self.saved = target, values, {}

    def __enter__(self) -> None:
        for key, value in self.values.items():
            settable = isinstance(getattr(type(self.target), key, None), property)  # Program.queue
            self.saved[key] = getattr(self.target, key) if settable else self.target.__dict__.get(key, _MISSING)
            setattr(self.target, key, value)

    def __exit__(self, *exc: object) -> None:
        for key, value in self.saved.items():
            if value is _MISSING:
                delattr(self.target, key)
            else:
                setattr(self.target, key, value)


_MISSING = object()
