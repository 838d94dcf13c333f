"""The host path of soac.lang (issue 31): what a call with numpy arrays costs against its kernels, CuPy, JAX and the
pyopencl floor, what chained calls on device arrays move, and what a host loop costs per iteration.

    python bench/transfer.py [--device gpu] [--mb 256] [--runs 5] [--json OUT]      # the issue's sizes, on a GPU
    python bench/transfer.py --small                                                # a few MB, quick (CI on PoCL)

For one program, `f = map (* 2)` over f32 (`--mb` MiB in and out), each median of `--runs` wall times in ms:

- `numpy call`: `f(x)` as a user writes it: the runtime's transfers (`pinned` ring on a GPU, `zero-copy` on a CPU;
  see soac.lowering.runtime.device_memory), the kernels, the read-back into a new numpy array.
- `numpy call, direct`: the same with every array written and read straight from numpy memory (pooled buffers, the
  driver's staging); on a CPU device also `numpy call, pinned` (the GPU path, for comparison).
- `device call`: `f(d)` on a device array, its result left on the device (`block_until_ready`).
- `chained device calls`: `f(f(d))`, and the transfers between them (`sl.transfer_counts`: must be 0).
- `pyopencl floor`: an `enqueue_copy` of `x` into an existing buffer, the same kernels, an `enqueue_copy` back into an
  existing numpy array (no allocation, no staging); `pyopencl floor, fresh`: the same reading back into a new numpy
  array, as a call returns one (its pages are touched for the first time); `pinned floor`: the same copies from and to a mapped
  `ALLOC_HOST_PTR` buffer, the bus alone.
- `cupy`: `(cp.asarray(x) * 2).get()`; `jax`: `np.asarray(jax.jit(lambda x: x * 2)(jax.device_put(x)))`. Both
  optional: a peer that is not installed (or has no GPU) is reported as missing.

Host loops: `sl.loop(n, xs, lambda i, ys: sl.map(...))` over a small array (`--loop-size` elements): wall time per
iteration (from n = 100 and n = 100 + `--loop-steps`), the host's time per iteration (the call returns once it has
enqueued every launch: a call with device results waits for nothing), the plan's Python work per iteration (the CPU time of the
calling thread with the launches doing nothing: a busy machine does not inflate it), and the kernel's own time per
launch (OpenCL profiling).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyopencl as cl

ROOT = Path(__file__).resolve().parents[1]


def median_ms(fn: Callable[[], Any], runs: int) -> float:
    fn()  # warm: compiled, buffers in the pool, the staging ring mapped
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def soac_figures(x: np.ndarray, device: str | None, runs: int) -> dict[str, Any]:
    import soac.lang as sl
    from soac.lowering.runtime.device_arrays import DeviceNDArray

    @sl.jit(device=device)
    def double(xs):
        return sl.map(lambda v: v * 2, xs)

    expected = x * 2
    np.testing.assert_array_equal(double(x), expected)
    program = double.last.runner
    memory, queue = program.memory, program.queue
    figures: dict[str, Any] = {"device": program.device.name, "mode": memory.mode}
    figures["numpy_call_ms"] = median_ms(lambda: double(x), runs)
    saved = memory.mode
    others = ("pinned", "direct") if saved == "zero-copy" else ("direct",)  # zero-copy is for CPU devices only
    try:
        for mode in others:
            memory.mode = mode
            figures[f"numpy_call_{mode.replace('-', '_')}_ms"] = median_ms(lambda: double(x), runs)
    finally:
        memory.mode = saved

    d = sl.device_put(x, device)
    figures["device_call_ms"] = median_ms(lambda: double(d).block_until_ready(), runs)
    counts = sl.transfer_counts(device)
    counts.reset()
    chained = double(double(d))
    moved = {"uploads": counts.uploads, "downloads": counts.downloads, "element_reads": counts.element_reads}
    np.testing.assert_array_equal(chained.get(), x * 4)
    figures["chained_transfers"] = moved
    figures["chained_device_calls_ms"] = median_ms(lambda: double(double(d)).block_until_ready(), runs)

    # the floor: copies into and out of existing buffers around the same kernels
    resident = memory.empty(np.dtype(np.float32), x.size)
    back = np.empty_like(x)

    def floor(source: np.ndarray, target: np.ndarray) -> None:
        cl.enqueue_copy(queue, resident.buffer, source, is_blocking=False)
        (result,) = program.call("double", [DeviceNDArray(resident, x.shape, x.dtype, memory)], device_results=True)
        cl.enqueue_copy(queue, target, result.data.buffer, is_blocking=True)

    figures["pyopencl_floor_ms"] = median_ms(lambda: floor(x, back), runs)
    np.testing.assert_array_equal(back, expected)
    figures["pyopencl_floor_fresh_ms"] = median_ms(lambda: floor(x, np.empty_like(x)), runs)
    pinned = cl.Buffer(memory.context, cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR, x.nbytes)
    mapped, _ = cl.enqueue_map_buffer(queue, pinned, cl.map_flags.READ | cl.map_flags.WRITE, 0, x.shape, x.dtype)
    mapped[:] = x
    figures["pinned_floor_ms"] = median_ms(lambda: floor(mapped, mapped), runs)
    figures["kernels_ms"] = kernel_ms(program, lambda: program.call("double", [d], device_results=True))
    return figures


def kernel_ms(program: Any, call: Callable[[], Any], runs: int = 5) -> float:
    """The median over calls of the summed profiling times of the kernels one call launches."""
    queue, kernels = program.queue, program.kernels
    events: list[cl.Event] = []
    program.queue = cl.CommandQueue(program.context, program.device, properties=cl.command_queue_properties.PROFILING_ENABLE)

    def recording(kernel: cl.Kernel) -> Callable[..., cl.Event]:
        def launch(*args: Any) -> cl.Event:
            event = kernel(*args)
            events.append(event)
            return event

        return launch

    program.kernels = {name: recording(kernel) for name, kernel in kernels.items()}
    try:
        sums = []
        for _ in range(runs + 1):
            events.clear()
            call()
            program.queue.finish()
            sums.append(sum(e.profile.end - e.profile.start for e in events) * 1e-6)
        return float(np.median(sums[1:]))
    finally:
        program.queue, program.kernels = queue, kernels


def peer_figures(x: np.ndarray, runs: int) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    try:
        import cupy as cp

        def cupy_call() -> np.ndarray:
            return (cp.asarray(x) * 2).get()

        np.testing.assert_array_equal(cupy_call(), x * 2)
        figures["cupy_ms"] = median_ms(cupy_call, runs)
    except Exception as error:  # not installed, or no CUDA device
        figures["cupy"] = f"missing ({type(error).__name__}: {str(error).splitlines()[0][:120] if str(error) else ''})"
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave the GPU's memory to the others
    try:
        import jax

        doubled = jax.jit(lambda v: v * 2)

        def jax_call() -> np.ndarray:
            return np.asarray(doubled(jax.device_put(x)))

        np.testing.assert_array_equal(jax_call(), x * 2)
        figures["jax_device"] = str(jax.devices()[0])
        figures["jax_ms"] = median_ms(jax_call, runs)
    except Exception as error:
        figures["jax"] = f"missing ({type(error).__name__}: {str(error).splitlines()[0][:120] if str(error) else ''})"
    return figures


def loop_figures(device: str | None, size: int, steps: int, runs: int) -> dict[str, Any]:
    import soac.lang as sl

    @sl.jit(device=device)
    def relax(xs, n):
        return sl.loop(n, xs, lambda i, ys: sl.map(lambda y: y * 0.5 + 1.0, ys))

    xs = sl.device_put(np.ones(size, np.float32), device)
    relax(xs, 3).block_until_ready()
    program = relax.last.runner

    def per_iteration_us(clock: Callable[[], float] = time.perf_counter, waiting: bool = True) -> float:
        def timed(n: int) -> float:
            start = clock()
            result = relax(xs, n)
            if waiting:
                result.block_until_ready()
            elapsed = clock() - start
            result.block_until_ready()
            return elapsed

        small = min(timed(100) for _ in range(runs))  # the least of each: noise only adds
        large = min(timed(100 + steps) for _ in range(runs))
        return (large - small) / steps * 1e6

    figures = {"loop_size": size, "loop_steps": steps, "loop_us_per_iter": per_iteration_us()}
    figures["loop_host_us_per_iter"] = per_iteration_us(waiting=False)  # the call returns once all is enqueued
    kernels = program.kernels
    program.kernels = {name: (lambda *args: None) for name in kernels}
    try:
        figures["loop_python_us_per_iter"] = per_iteration_us(time.thread_time)  # the calling thread's CPU time
    finally:
        program.kernels = kernels
    figures["loop_kernel_us"] = kernel_ms(program, lambda: relax(xs, 100)) * 1e3 / 100
    counts = sl.transfer_counts(device)
    counts.reset()
    relax(xs, 50).block_until_ready()
    figures["loop_element_reads"] = counts.element_reads  # host syncs inside the loop: none for scf.for
    return figures


def report(figures: dict[str, Any]) -> str:
    lines = [f"device: {figures['device']} (transfers: {figures['mode']}); {figures['mb']} MiB of f32 in and out"]
    for key in (
        "numpy_call_ms",
        "numpy_call_pinned_ms",
        "numpy_call_direct_ms",
        "device_call_ms",
        "chained_device_calls_ms",
        "kernels_ms",
        "pyopencl_floor_ms",
        "pyopencl_floor_fresh_ms",
        "pinned_floor_ms",
        "cupy_ms",
        "jax_ms",
    ):
        if key in figures:
            lines.append(f"  {key:28} {figures[key]:10.3f}")
    for peer in ("cupy", "jax"):
        if peer in figures:
            lines.append(f"  {peer:28} {figures[peer]}")
    call = figures["numpy_call_ms"]
    lines.append(f"  numpy call / pyopencl floor   {call / figures['pyopencl_floor_ms']:10.2f}   (target <= 1.2)")
    if "cupy_ms" in figures:
        lines.append(f"  numpy call / cupy             {call / figures['cupy_ms']:10.2f}   (target <= 0.6)")
    if "jax_ms" in figures:
        lines.append(f"  numpy call / jax              {call / figures['jax_ms']:10.2f}")
    lines.append(f"  transfers between two chained device calls: {figures['chained_transfers']}")
    lines.append(
        f"  host loop of one map over {figures['loop_size']} elements: {figures['loop_us_per_iter']:.2f} us/iteration wall, "
        f"{figures['loop_host_us_per_iter']:.2f} us to enqueue (target <= 5), "
        f"{figures['loop_python_us_per_iter']:.2f} us of it the plan's Python work, "
        f"{figures['loop_kernel_us']:.2f} us the kernel; "
        f"{figures['loop_element_reads']} host reads in 50 iterations"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--device", default=os.environ.get("SOAC_OPENCL_DEVICE"), help="as SOAC_OPENCL_DEVICE (gpu, cpu, pocl, ...)"
    )
    parser.add_argument("--mb", type=float, default=256, help="MiB of f32 in (and out)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--loop-size", type=int, default=1024)
    parser.add_argument("--loop-steps", type=int, default=1000)
    parser.add_argument("--small", action="store_true", help="4 MiB, 3 runs, 200 loop steps: a quick check (CI, PoCL)")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--json", help="write the figures here")
    options = parser.parse_args()
    if options.small:
        options.mb, options.runs, options.loop_steps = min(options.mb, 4), min(options.runs, 3), min(options.loop_steps, 200)
    x = np.random.default_rng(0).standard_normal(int(options.mb * 2**20) // 4).astype(np.float32)
    figures: dict[str, Any] = {"mb": options.mb, "runs": options.runs}
    figures.update(soac_figures(x, options.device, options.runs))
    if not options.no_peers:
        figures.update(peer_figures(x, options.runs))
    figures.update(loop_figures(options.device, options.loop_size, options.loop_steps, options.runs))
    print(report(figures), flush=True)
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
