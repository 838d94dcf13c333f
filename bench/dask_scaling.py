"""soac.lang.dask on 1 and 2 GPUs against CuPy-backed dask.array: a memory-bound and a compute-bound program, and an
array larger than one device's memory.

    python bench/dask_scaling.py [--gpus 1,2] [--log2-n 31] [--bodies 262144] [--chunks-per-gpu 8] [--reps 3]
                                 [--larger-than-device 1.5] [--scheduler distributed|threads] [--json OUT]
    python bench/dask_scaling.py --tiny          # a few MiB on PoCL: checks that everything runs

Programs (each checked against numpy in float64):
1. memory-bound: `sum(map(x -> 0.5*x*x + 1, xs))` over 2^31 f32 (8 GiB), one fused redomap per chunk; dask combines
   the partial sums with soac's reduce. CuPy: the same expression on the chunks moved to the GPU (`cp.asarray`).
2. compute-bound: the potential energy of N bodies, `sum_i m_i * sum_j m_j / sqrt(|p_i - p_j|^2 + eps)`, over chunks of
   bodies i (chunked dask arrays) against all bodies j (whole numpy arrays, in every chunk). CuPy: the same sums on
   the GPU, in tiles of bodies j (a chunk x all bodies matrix would not fit).
3. larger than device memory (one GPU): program 1 over an array `--larger-than-device` times the device's global
   memory, in chunks that fit (the chunk budget is a sixteenth of the device's memory), against the host-to-device
   bandwidth of one chunk copied by pyopencl from the same (pageable) host memory.

The input arrays are made and kept in host memory first (`persist`), so the times are those of the run: each
chunk goes to its worker's device, is reduced there, and its partial result comes back. Each GPU has one worker
thread (`--threads-per-gpu` more) that takes it as its device (soac: `sd.jit(devices=...)`; CuPy:
`cp.cuda.Device(...)` chosen by the same worker index). By default (`--scheduler distributed`) a `LocalCluster` has
a worker process per GPU (needs the `distributed` package; without it the script uses dask's threads, as
`--scheduler threads` does). Processes, because soac's runtime uploads an array by `cl.Buffer(COPY_HOST_PTR)`,
which holds the GIL for the whole copy (`cl.enqueue_copy` releases it): worker threads copy one at a time.

On the GPU machine (Python 3.12, soac installed with --no-deps by bench/device_setup.sh), dask needs these wheels
beside soac's own (pure Python unless marked):
    dask==2026.8.0 cloudpickle fsspec packaging partd locket toolz click pyyaml(binary)
and `--scheduler distributed` also
    distributed==2026.8.0 msgpack(binary) psutil(binary) sortedcontainers tblib tornado(binary) zict jinja2
    markupsafe(binary)
(without distributed the script runs on dask's threads); CuPy (cupy-cuda12x) for the peer, else it is skipped.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
import dask.array as da
import numpy as np
import pyopencl as cl
import soac.lang as sl
import soac.lang.dask as sd
from soac.lang.dask.workers import worker_index


def energy_terms(xs):
    return sl.sum(sl.map(lambda x: 0.5 * x * x + 1.0, xs))


def potential(x, y, z, m, bx, by, bz, bm, eps):
    def body(xi, yi, zi, mi):
        def pair(xj, yj, zj, mj):
            dx, dy, dz = xi - xj, yi - yj, zi - zj
            return mj / sl.sqrt(dx * dx + dy * dy + dz * dz + eps)

        return mi * sl.sum(sl.map(pair, bx, by, bz, bm))

    return sl.sum(sl.map(body, x, y, z, m))


def gpu_specs() -> list[str]:
    """`SOAC_OPENCL_DEVICE` specs of the GPUs, in order."""
    return [
        f"{p}:{d}"
        for p, platform in enumerate(cl.get_platforms())
        for d, device in enumerate(platform.get_devices())
        if device.type & cl.device_type.GPU
    ]


def timed(run: Callable[[], Any], reps: int) -> tuple[float, Any]:
    """The median seconds of `reps` runs after one warm-up run (which compiles), and the last result."""
    result = run()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


class Cluster:
    """Where the graphs run: dask's threads (a worker thread per device) or a distributed LocalCluster."""

    def __init__(self, scheduler: str, workers: int):
        self.client = None
        self.workers = workers
        if scheduler == "distributed":
            try:
                from distributed import Client, LocalCluster
            except ImportError:
                print("distributed is not installed: using dask's threaded scheduler")
            else:
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
                self.client = Client(cluster)

    def compute(self, graph: Any) -> Any:
        if self.client is not None:
            return self.client.compute(graph).result()
        return graph.compute(scheduler="threads", num_workers=self.workers)

    def persist(self, array: da.Array) -> da.Array:
        if self.client is not None:
            return self.client.persist(array)
        return array.persist(scheduler="threads")

    def close(self) -> None:
        if self.client is not None:
            self.client.close()


def cupy_on_worker_gpu(gpus: int) -> Any:
    """CuPy with this worker's GPU current (the worker index modulo `gpus`, as soac's workers choose), or None."""
    try:
        import cupy as cp
    except ImportError:
        return None
    cp.cuda.Device(worker_index() % gpus).use()
    return cp


def cupy_energy_terms(block: np.ndarray, gpus: int) -> np.ndarray:
    cp = cupy_on_worker_gpu(gpus)
    x = cp.asarray(block)
    return np.asarray([float((0.5 * x * x + 1.0).sum())], np.float32)


def cupy_potential(x: np.ndarray, y: np.ndarray, z: np.ndarray, m: np.ndarray, bodies: np.ndarray, eps: float, gpus: int) -> Any:
    cp = cupy_on_worker_gpu(gpus)
    xi, yi, zi, mi = (cp.asarray(a)[:, None] for a in (x, y, z, m))
    all_bodies = cp.asarray(bodies)
    total = cp.zeros(len(x), cp.float32)
    tile = max(1, (1 << 27) // max(len(x), 1))  # chunk x tile f32 temporaries of 512 MiB at most
    for start in range(0, all_bodies.shape[1], tile):
        bx, by, bz, bm = (all_bodies[k, start : start + tile][None, :] for k in range(4))
        dx, dy, dz = xi - bx, yi - by, zi - bz
        total += (bm / cp.sqrt(dx * dx + dy * dy + dz * dz + eps)).sum(axis=1)
    return np.asarray([float((mi[:, 0] * total).sum())], np.float32)


def memory_bound(cluster: Cluster, devices: list[str], n: int, chunks: int, reps: int, with_cupy: bool) -> dict[str, Any]:
    xs = cluster.persist(da.random.random(n, chunks=-(-n // chunks)).astype(np.float32))
    expected = float(cluster.compute((0.5 * xs.astype(np.float64) ** 2 + 1.0).sum()))
    program = sd.jit(energy_terms, devices=devices)
    seconds, result = timed(lambda: cluster.compute(program(xs)), reps)
    row: dict[str, Any] = {"program": "map->reduce", "n": n, "gpus": len(devices), "chunks": xs.numblocks[0]}
    row |= {"soac_s": seconds, "soac_GBps": xs.nbytes / seconds / 1e9, "soac_ok": bool(np.isclose(result, expected, rtol=1e-3))}
    if with_cupy:
        gpus = len(set(devices))
        partials = xs.map_blocks(cupy_energy_terms, gpus, chunks=(1,), dtype=np.float32)
        seconds, result = timed(lambda: cluster.compute(partials.sum()), reps)
        row |= {"cupy_s": seconds, "cupy_ok": bool(np.isclose(result, expected, rtol=1e-3))}
    return row


def compute_bound(cluster: Cluster, devices: list[str], bodies: int, chunks: int, reps: int, with_cupy: bool) -> dict[str, Any]:
    rng = np.random.default_rng(7)
    pos = rng.random((4, bodies), dtype=np.float32)  # x, y, z, mass
    pos[3] += 0.5
    eps = np.float32(1e-3)
    rows = -(-bodies // chunks)
    x, y, z, m = (cluster.persist(da.from_array(pos[k], chunks=rows)) for k in range(4))
    sample = slice(0, min(bodies, 256))  # numpy checks a sample of bodies i against all bodies j, in float64
    p64 = pos.astype(np.float64)
    d2 = sum((p64[k, sample, None] - p64[k, None, :]) ** 2 for k in range(3))
    expected_sample = float((p64[3, sample] * (p64[3] / np.sqrt(d2 + eps)).sum(axis=1)).sum())
    program = sd.jit(potential, devices=devices)
    check = program(x[sample], y[sample], z[sample], m[sample], *pos, eps)
    ok = bool(np.isclose(cluster.compute(check), expected_sample, rtol=1e-3))
    seconds, result = timed(lambda: cluster.compute(program(x, y, z, m, *pos, eps)), reps)
    interactions = float(bodies) * bodies
    row: dict[str, Any] = {"program": "nbody potential", "bodies": bodies, "gpus": len(devices), "chunks": x.numblocks[0]}
    row |= {"soac_s": seconds, "soac_Ginteractions_per_s": interactions / seconds / 1e9, "soac_ok": ok, "energy": float(result)}
    if with_cupy:
        gpus = len(set(devices))
        partials = da.map_blocks(cupy_potential, x, y, z, m, bodies=pos, eps=float(eps), gpus=gpus, chunks=(1,), dtype=np.float32)
        seconds, cupy_result = timed(lambda: cluster.compute(partials.sum()), reps)
        row |= {"cupy_s": seconds, "cupy_ok": bool(np.isclose(cupy_result, result, rtol=1e-3))}
    return row


def h2d_bandwidth(device_spec: str, nbytes: int) -> float:
    """Bytes per second of one pageable host array copied to a new buffer on the device (what the runtime does)."""
    from soac.lowering.runtime import _context, choose_device

    context, queue = _context(choose_device(device_spec))
    host = np.ones(nbytes // 4, np.float32)

    def copy() -> None:
        cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
        queue.finish()

    seconds, _ = timed(copy, 5)
    return nbytes / seconds


def larger_than_device(cluster: Cluster, device: str, factor: float, reps: int) -> dict[str, Any]:
    from soac.lowering.runtime import choose_device

    memory = choose_device(device).global_mem_size
    budget = memory // 16
    n = int(factor * memory) // 4
    xs = cluster.persist(da.ones(n, chunks=budget // 4, dtype=np.float32).map_blocks(np.ascontiguousarray))  # real memory
    program = sd.jit(energy_terms, devices=[device], chunk_budget=budget)
    seconds, result = timed(lambda: cluster.compute(program(xs)), reps)
    bandwidth = h2d_bandwidth(device, budget)
    achieved = xs.nbytes / seconds
    return {
        "program": "map->reduce, larger than the device",
        "device_memory_GiB": memory / 2**30,
        "array_GiB": xs.nbytes / 2**30,
        "chunk_budget_MiB": budget / 2**20,
        "soac_s": seconds,
        "soac_GBps": achieved / 1e9,
        "h2d_GBps": bandwidth / 1e9,
        "fraction_of_h2d": achieved / bandwidth,
        "soac_ok": bool(np.isclose(result, 1.5 * n, rtol=1e-3)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpus", default="1,2", help="GPU counts to run on (comma-separated; 0 runs none)")
    parser.add_argument("--log2-n", type=int, default=31, help="elements of the memory-bound program (2^n f32)")
    parser.add_argument("--bodies", type=int, default=1 << 18)
    parser.add_argument("--chunks-per-gpu", type=int, default=8)
    parser.add_argument("--threads-per-gpu", type=int, default=1)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--larger-than-device", type=float, default=1.5, help="0 skips the case")
    parser.add_argument(
        "--scheduler", choices=("threads", "distributed"), default="distributed", help="distributed falls back to threads"
    )
    parser.add_argument("--no-cupy", action="store_true")
    parser.add_argument("--tiny", action="store_true", help="small sizes on PoCL (two worker threads share the CPU device)")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    gpus = gpu_specs()
    if args.tiny:
        gpus = ["pocl", "pocl"]
        args.log2_n, args.bodies, args.reps = 20, 2048, 1
    if not gpus:
        sys.exit("no OpenCL GPU found (use --tiny to run on PoCL)")
    with_cupy = not args.no_cupy and cupy_on_worker_gpu(1) is not None
    print(f"devices: {', '.join(f'{g} {cl_name(g)}' for g in gpus)}; cupy: {with_cupy}; dask {dask.__version__}")
    rows = []
    for count in (int(c) for c in args.gpus.split(",")):
        if count == 0:  # --gpus 0: only the larger-than-device case
            continue
        if count > len(gpus):
            print(f"skipping {count} GPUs: only {len(gpus)}")
            continue
        devices = gpus[:count] * args.threads_per_gpu
        cluster = Cluster(args.scheduler, len(devices))
        try:
            chunks = count * args.chunks_per_gpu
            rows.append(memory_bound(cluster, devices, 1 << args.log2_n, chunks, args.reps, with_cupy))
            print(rows[-1])
            rows.append(compute_bound(cluster, devices, args.bodies, chunks, args.reps, with_cupy))
            print(rows[-1])
        finally:
            cluster.close()
    if args.larger_than_device > 0:
        if args.tiny:  # PoCL's memory is the host's: simulate a 64 MiB device with the chunk budget
            with dask.config.set({sd.CHUNK_BUDGET_KEY: 64 << 20}):
                xs = da.ones(int(args.larger_than_device * (64 << 20)) // 4, chunks=-1, dtype=np.float32)
                result = sd.jit(energy_terms, devices=[gpus[0]])(xs).compute(scheduler="threads")
                rows.append({"program": "larger than a simulated 64 MiB device", "chunks": -(-xs.nbytes // (64 << 20))})
                rows[-1]["soac_ok"] = bool(np.isclose(result, 1.5 * xs.shape[0], rtol=1e-3))
        else:
            rows.append(larger_than_device(Cluster("threads", 1), gpus[0], args.larger_than_device, args.reps))
        print(rows[-1])
    failed = [row["program"] for row in rows if not row.get("soac_ok", True) or not row.get("cupy_ok", True)]
    for one, two in zip(rows, rows[2:]):
        if one.get("gpus") == 1 and two.get("gpus") == 2:
            print(f"{one['program']}: 2 GPUs {one['soac_s'] / two['soac_s']:.2f}x one GPU (soac)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if failed:
        sys.exit(f"wrong results: {', '.join(failed)}")


def cl_name(spec: str) -> str:
    from soac.lowering.runtime import choose_device

    return choose_device(spec).name


if __name__ == "__main__":
    main()
