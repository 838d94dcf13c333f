"""The bandwidth of soac's transpose kernels against a device memcpy and the peers' transposes (issue 27: the copy
that `soac-coalesce` makes must run at >= 0.8 of memcpy bandwidth).

    python bench/transpose.py                                   # the first GPU; JAX and CuPy where installed
    python bench/transpose.py --sizes 65536x1024,8192x8192 --runs 20 --dtype f32
    python bench/transpose.py --device pocl --sizes 300x257 --runs 2 --no-peers     # a smoke test on PoCL

For each size: `soac tiled` (`transpose=tiled`: local-memory tiles, strategies/transpose.py), `soac simple` (the
grid-stride copy), `memcpy` (clEnqueueCopyBuffer of the same bytes on soac's device), and the peers' `x.T` made
contiguous on device-resident arrays (CuPy: CUDA events; JAX: wall clock around `block_until_ready`). soac's times are
the OpenCL profiling time of the call's kernels (median of --runs after a warm-up); GB/s counts the bytes read and
written (2 x the array). Results are checked against numpy.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyopencl as cl
import soac.lang as sl

sys.path.insert(0, str(Path(__file__).resolve().parent / "real"))
from peers import available_peers  # pyright: ignore[reportMissingImports]
from probe import Probe  # pyright: ignore[reportMissingImports]

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32}


def transpose(x):
    return x.T


def peer(xp: Any):
    return lambda x: xp.transpose(x).copy()


def memcpy_ms(device: cl.Device, nbytes: int, runs: int) -> float:
    """The median profiling time of a device-to-device copy of `nbytes`."""
    context = cl.Context([device])
    queue = cl.CommandQueue(context, device, properties=cl.command_queue_properties.PROFILING_ENABLE)
    source = cl.Buffer(context, cl.mem_flags.READ_WRITE, nbytes)
    dest = cl.Buffer(context, cl.mem_flags.READ_WRITE, nbytes)
    cl.enqueue_fill_buffer(queue, source, np.float32(1), 0, nbytes)
    cl.enqueue_copy(queue, dest, source, byte_count=nbytes).wait()
    times = []
    for _ in range(runs):
        event = cl.enqueue_copy(queue, dest, source, byte_count=nbytes)
        event.wait()
        times.append((event.profile.end - event.profile.start) * 1e-6)
    return float(np.median(times))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="65536x1024,1024x65536,8192x8192,4099x4097", help="rows x columns, comma-separated")
    parser.add_argument("--dtype", default="f32", choices=sorted(DTYPES))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--device", default=None, help="OpenCL device (SOAC_OPENCL_DEVICE's forms)")
    parser.add_argument("--no-peers", action="store_true")
    options = parser.parse_args(argv)
    from soac.lowering.runtime import choose_device

    device = choose_device(options.device)
    peers = [] if options.no_peers else available_peers()
    print(f"device: {device.platform.name} / {device.name}; peers: {', '.join(p.name for p in peers) or 'none'}")
    dtype = DTYPES[options.dtype]
    variants = {label: sl.jit(transpose, device=options.device, lowering={"transpose": label}) for label in ("tiled", "simple")}
    for size in options.sizes.split(","):
        rows, cols = (int(s) for s in size.split("x"))
        x = np.random.default_rng(rows).standard_normal((rows, cols)).astype(dtype)
        nbytes = x.nbytes
        times: dict[str, float] = {"memcpy": memcpy_ms(device, nbytes, options.runs)}
        for label, f in variants.items():
            np.testing.assert_array_equal(f(x), x.T, err_msg=f"soac {label} {size}")
            compiled = f.specialize(x)
            ms, kernels = Probe(compiled.runner, compiled.name, [x]).kernel_ms({}, options.runs)
            assert any(("tiled" in k) == (label == "tiled") for k in kernels), kernels
            times[f"soac {label}"] = ms
        for p in peers:
            timed = p.time(peer, (), (x,), options.runs)
            if timed is not None:
                ms, got = timed
                np.testing.assert_array_equal(got, x.T, err_msg=f"{p.name} {size}")
                times[p.name] = ms
        print(f"{rows} x {cols} {options.dtype} ({nbytes / 1e6:.1f} MB):")
        for label, ms in times.items():
            rate = 2 * nbytes / ms * 1e-6
            print(f"  {label:<24} {ms:8.3f} ms  {rate:8.1f} GB/s  {times['memcpy'] / ms:5.2f}x memcpy's bandwidth", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
