"""soac.lang.dask on 1 and 2 GPUs against CuPy-backed dask.array: a memory-bound and a compute-bound program, and an
array larger than one device's memory.

    python bench/dask_scaling.py [--gpus 1,2] [--log2-n 31] [--bodies 262144] [--chunks-per-gpu 8] [--reps 3]
                                 [--cases resident,from host] [--larger-than-device 1.5] [--ltd-threads 2]
                                 [--scheduler threads|distributed] [--json OUT]
    python bench/dask_scaling.py --tiny          # a few MiB on PoCL: checks that everything runs
    python bench/dask_scaling.py --tiny --copying   # the same with PoCL copying as a GPU does (prefetch on)

Programs (each checked against numpy in float64):
1. memory-bound: `sum(map(x -> 0.5*x*x + 1, xs))` over 2^31 f32 (8 GiB), one fused redomap per chunk; dask combines
   the partial sums with soac's reduce. CuPy: the same expression on the chunks moved to the GPU (`cp.asarray`).
2. compute-bound: the potential energy of N bodies, `sum_i m_i * sum_j m_j / sqrt(|p_i - p_j|^2 + eps)`, over chunks of
   bodies i (chunked dask arrays) against all bodies j (whole numpy arrays, in every chunk). CuPy: the same sums on
   the GPU, in tiles of bodies j (a chunk x all bodies matrix would not fit).
3. larger than device memory (one GPU): program 1 over an array `--larger-than-device` times the device's global
   memory, in chunks that fit (the chunk budget is a sixteenth of the device's memory), against the host-to-device
   bandwidth of one chunk copied by pyopencl from the same (pageable) host memory.

Programs 1 and 2 run in two cases each:
- `resident`: the chunks are on the GPUs before the clock starts (`sd.persist`: runs of neighbouring chunks per GPU;
  CuPy: `cp.asarray` of chunk i on the same GPU, persisted), so a run moves only the partial results: the issue's
  scaling target (2 GPUs >= 1.8x one) and its comparison with CuPy-backed dask are measured here;
- `from host`: the chunks are in host memory (persisted numpy chunks), and each run uploads them (soac: an upload
  task per chunk, `prefetch`, through the runtime's pinned ring; CuPy: `cp.asarray` in the task).
Each GPU has one worker thread (`--threads-per-gpu` more) that takes it as its device (soac: `sd.jit(devices=...)`;
a task over resident chunks runs on the GPU that holds them; CuPy: `cp.cuda.Device(...)` chosen by the same worker
index, or the chunk's own device). `--scheduler threads` (the default) runs dask's threads; `--scheduler
distributed` a `LocalCluster` with a worker process per GPU (needs the `distributed` package; without it the script
uses threads). The larger-than-device case runs two worker threads (`--ltd-threads`) with prefetch on, so that one
thread uploads the next chunk while the other computes, and once with one thread and prefetch off (the chunk
uploaded inside its task), against two bandwidths: one pageable `cl.Buffer(COPY_HOST_PTR)` copy and the runtime's
own pinned upload (`sl.device_put`) of a chunk.

On a 2-GPU machine (nvidia-h100-x2):
    python bench/dask_scaling.py --json dask_scaling.json
    python bench/dask_scaling.py --scheduler distributed --larger-than-device 0 --json dask_scaling_distributed.json

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
import gc
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
from soac.lang.dask.resident import device_of_chunk
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
        return array.persist(scheduler="threads", num_workers=self.workers)

    def resident(self, array: da.Array, devices: list[str]) -> da.Array:
        """`array`'s chunks on the devices (soac's `sd.persist`), waited for."""
        options: dict[str, Any] = {} if self.client is not None else {"scheduler": "threads", "num_workers": self.workers}
        placed = sd.persist(array, devices=devices, **options)
        if self.client is not None:
            from distributed import wait

            wait(placed)
        return placed

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


def cupy_energy_terms(block: Any, gpus: int) -> np.ndarray:
    cp = cupy_on_worker_gpu(gpus)
    if isinstance(block, cp.ndarray):  # resident: on the chunk's own GPU
        with block.device:
            return np.asarray([float((0.5 * block * block + 1.0).sum())], np.float32)
    x = cp.asarray(block)
    return np.asarray([float((0.5 * x * x + 1.0).sum())], np.float32)


def cupy_put(block: np.ndarray, gpus: int, block_info: Any = None) -> Any:
    """Chunk i of n on GPU i * gpus // n (runs of neighbouring chunks), as `sd.persist` places it."""
    import cupy as cp

    index, count = block_info[None]["chunk-location"][0], block_info[None]["num-chunks"][0]
    with cp.cuda.Device(device_of_chunk(index, count, gpus)):
        return cp.asarray(block)


def cupy_resident(cluster: Cluster, array: da.Array, gpus: int) -> da.Array:
    import cupy as cp

    meta = cp.empty((0,) * array.ndim, array.dtype)
    return cluster.persist(array.map_blocks(cupy_put, gpus, dtype=array.dtype, meta=meta))


def cupy_potential(x: Any, y: Any, z: Any, m: Any, bodies: np.ndarray, eps: float, gpus: int) -> Any:
    cp = cupy_on_worker_gpu(gpus)
    if isinstance(x, cp.ndarray):  # resident: on the chunk's own GPU
        with x.device:
            return _cupy_potential(cp, x, y, z, m, bodies, eps)
    return _cupy_potential(cp, x, y, z, m, bodies, eps)


def _cupy_potential(cp: Any, x: Any, y: Any, z: Any, m: Any, bodies: np.ndarray, eps: float) -> Any:
    xi, yi, zi, mi = (cp.asarray(a)[:, None] for a in (x, y, z, m))
    all_bodies = cp.asarray(bodies)
    total = cp.zeros(len(x), cp.float32)
    tile = max(1, (1 << 27) // max(len(x), 1))  # chunk x tile f32 temporaries of 512 MiB at most
    for start in range(0, all_bodies.shape[1], tile):
        bx, by, bz, bm = (all_bodies[k, start : start + tile][None, :] for k in range(4))
        dx, dy, dz = xi - bx, yi - by, zi - bz
        total += (bm / cp.sqrt(dx * dx + dy * dy + dz * dz + eps)).sum(axis=1)
    return np.asarray([float((mi[:, 0] * total).sum())], np.float32)


_HOST_DATA: dict[int, tuple[da.Array, float]] = {}


def host_data(cluster: Cluster, n: int, chunks: int) -> tuple[da.Array, float]:
    """`n` random f32 in host memory in `chunks` chunks, and the program's result in float64: made once per `n` (with
    every core, outside the timed runs; 2^33 f32 are 32 GiB) and rechunked for the next GPU count."""
    if n not in _HOST_DATA:
        made = da.random.random(n, chunks=-(-n // chunks)).astype(np.float32)
        made = cluster.persist(made) if cluster.client is not None else made.persist(scheduler="threads")
        terms = (0.5 * made.astype(np.float64) ** 2 + 1.0).sum()
        expected = float(cluster.compute(terms) if cluster.client is not None else terms.compute(scheduler="threads"))
        _HOST_DATA.clear()  # one size at a time in host memory
        _HOST_DATA[n] = (made, expected)
    made, expected = _HOST_DATA[n]
    if made.numblocks[0] == chunks:
        return made, expected
    return cluster.persist(made.rechunk(-(-n // chunks))), expected


def resident_fits(devices: list[str], n: int, chunks: int, with_cupy: bool) -> str | None:
    """Why `n` f32 in `chunks` resident chunks (runs of neighbouring chunks per GPU, as `sd.persist` places them) do
    not fit the GPUs, else None: a chunk must fit one buffer (`max_mem_alloc_size`) and the chunk budget (dask's
    `soac.chunk-budget`, if set); a GPU's chunks must fit 90% of its memory, with CuPy's copy of them, its
    temporaries (three chunks) and what soac's buffer pool keeps (an eighth of the memory) when CuPy runs too (soac's
    chunks are freed first)."""
    from soac.lowering.runtime import choose_device

    rows = -(-n // chunks)
    chunk_bytes = rows * 4
    gpus = list(dict.fromkeys(devices))
    per_gpu = [sum(min(rows, n - i * rows) * 4 for i in range(chunks) if device_of_chunk(i, chunks, len(gpus)) == g)
               for g in range(len(gpus))]  # fmt: skip
    budget = dask.config.get(sd.CHUNK_BUDGET_KEY, None)
    if budget is not None and chunk_bytes > dask.utils.parse_bytes(budget):
        return f"a chunk of {chunk_bytes / 2**30:.2f} GiB is over the chunk budget ({budget}): use more --chunks-per-gpu"
    for spec, held in zip(gpus, per_gpu):
        device = choose_device(spec)
        memory = device.global_mem_size
        if chunk_bytes > device.max_mem_alloc_size:
            return (f"a chunk of {chunk_bytes / 2**30:.2f} GiB is over {device.name}'s largest buffer "
                    f"({device.max_mem_alloc_size / 2**30:.2f} GiB): use more --chunks-per-gpu")  # fmt: skip
        if held > 0.9 * memory:
            return f"{held / 2**30:.1f} GiB of chunks on {spec} is over 90% of its {memory / 2**30:.1f} GiB"
        if with_cupy and held + 3 * chunk_bytes + memory // 8 > 0.95 * memory:
            return (f"CuPy's copy of {held / 2**30:.1f} GiB on {spec} with its temporaries does not fit "
                    f"{memory / 2**30:.1f} GiB: run with --no-cupy")  # fmt: skip
    return None


def memory_bound(
    cluster: Cluster, devices: list[str], n: int, chunks: int, reps: int, with_cupy: bool, case: str
) -> dict[str, Any]:
    if case == "resident" and (problem := resident_fits(devices, n, chunks, with_cupy)) is not None:
        sys.exit(f"map->reduce of 2^{n.bit_length() - 1} f32, resident in {chunks} chunks: {problem}")
    on_host, expected = host_data(cluster, n, chunks)
    xs = cluster.resident(on_host, devices) if case == "resident" else on_host
    program = sd.jit(energy_terms, devices=devices)
    seconds, result = timed(lambda xs=xs, program=program: cluster.compute(program(xs)), reps)
    row: dict[str, Any] = {"program": "map->reduce", "case": case, "n": n, "gpus": len(set(devices)), "chunks": xs.numblocks[0]}
    row |= {"soac_s": seconds, "soac_GBps": xs.nbytes / seconds / 1e9, "soac_ok": bool(np.isclose(result, expected, rtol=1e-3))}
    del xs, program  # soac's resident chunks go back to the pool (at most an eighth of the memory is kept)
    gc.collect()
    if with_cupy:
        gpus = len(set(devices))
        cupy_xs = cupy_resident(cluster, on_host, gpus) if case == "resident" else on_host
        partials = cupy_xs.map_blocks(cupy_energy_terms, gpus, chunks=(1,), dtype=np.float32, meta=np.empty((0,), np.float32))
        seconds, result = timed(lambda: cluster.compute(partials.sum()), reps)
        row |= {"cupy_s": seconds, "cupy_ok": bool(np.isclose(result, expected, rtol=1e-3))}
        del cupy_xs
    return row


def compute_bound(
    cluster: Cluster, devices: list[str], bodies: int, chunks: int, reps: int, with_cupy: bool, case: str
) -> dict[str, Any]:
    rng = np.random.default_rng(7)
    pos = rng.random((4, bodies), dtype=np.float32)  # x, y, z, mass
    pos[3] += 0.5
    eps = np.float32(1e-3)
    rows = -(-bodies // chunks)
    on_host = [cluster.persist(da.from_array(pos[k], chunks=rows)) for k in range(4)]
    x, y, z, m = (cluster.resident(a, devices) for a in on_host) if case == "resident" else on_host
    sample = slice(0, min(bodies, 256))  # numpy checks a sample of bodies i against all bodies j, in float64
    p64 = pos.astype(np.float64)
    d2 = sum((p64[k, sample, None] - p64[k, None, :]) ** 2 for k in range(3))
    expected_sample = float((p64[3, sample] * (p64[3] / np.sqrt(d2 + eps)).sum(axis=1)).sum())
    program = sd.jit(potential, devices=devices)
    check = program(*(a[sample] for a in on_host), *pos, eps)
    ok = bool(np.isclose(cluster.compute(check), expected_sample, rtol=1e-3))
    seconds, result = timed(lambda: cluster.compute(program(x, y, z, m, *pos, eps)), reps)
    interactions = float(bodies) * bodies
    row: dict[str, Any] = {"program": "nbody potential", "case": case, "bodies": bodies, "gpus": len(set(devices))}
    row["chunks"] = x.numblocks[0]
    row |= {"soac_s": seconds, "soac_Ginteractions_per_s": interactions / seconds / 1e9, "soac_ok": ok, "energy": float(result)}
    row |= chunk_program_tiling("potential")
    if with_cupy:
        gpus = len(set(devices))
        cupy_in = [cupy_resident(cluster, a, gpus) for a in on_host] if case == "resident" else on_host
        partials = da.map_blocks(
            cupy_potential, *cupy_in, bodies=pos, eps=float(eps), gpus=gpus, chunks=(1,), dtype=np.float32,
            meta=np.empty((0,), np.float32),
        )  # fmt: skip
        seconds, cupy_result = timed(lambda: cluster.compute(partials.sum()), reps)
        row |= {"cupy_s": seconds, "cupy_ok": bool(np.isclose(cupy_result, result, rtol=1e-3))}
    return row


def chunk_program_tiling(name: str) -> dict[str, Any]:
    """Whether the chunk programs of `name` that the workers compiled (soac.lang's default pipeline for their
    device) run a tiled kernel (`soac.tiled_redomap`): nbody's bodies i of a chunk against all bodies j."""
    from soac.lang.dask.workers import stage_programs
    from soac.passes import standard_pipeline

    programs = [compiled for role, _, compiled in stage_programs(name) if role == "program"]
    tiled = [("soac.tiled_redomap" in compiled.optimized_text) for compiled in programs]
    pipeline = standard_pipeline(True) if gpu_specs() else standard_pipeline(False)
    return {"chunk_programs": len(programs), "chunk_programs_tiled": sum(tiled), "gpu_pipeline_tiles": "soac-tile" in pipeline}


def h2d_bandwidth(device_spec: str, nbytes: int) -> float:
    """Bytes per second of one pageable host array copied to a new buffer on the device (what the runtime does)."""
    from soac.lowering.runtime.program import _context, choose_device

    context, queue = _context(choose_device(device_spec))
    host = np.ones(nbytes // 4, np.float32)

    def copy() -> None:
        cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
        queue.finish()

    seconds, _ = timed(copy, 5)
    return nbytes / seconds


def pinned_bandwidth(device_spec: str, nbytes: int) -> float:
    """Bytes per second of the runtime's own upload of one pageable host array (`sl.device_put`: the pinned ring)."""
    host = np.ones(nbytes // 4, np.float32)
    seconds, _ = timed(lambda: sl.device_put(host, device_spec).block_until_ready(), 5)
    return nbytes / seconds


def larger_than_device(device: str, factor: float, reps: int, threads: int) -> list[dict[str, Any]]:
    from soac.lowering.runtime import choose_device

    memory = choose_device(device).global_mem_size
    budget = memory // 16
    n = int(factor * memory) // 4
    rows = []
    bandwidth, pinned = h2d_bandwidth(device, budget), pinned_bandwidth(device, budget)
    for workers, prefetch in ((threads, True), (1, False)):
        cluster = Cluster("threads", workers)
        xs = cluster.persist(da.ones(n, chunks=budget // 4, dtype=np.float32).map_blocks(np.ascontiguousarray))  # real memory
        program = sd.jit(energy_terms, devices=[device] * workers, chunk_budget=budget, prefetch=prefetch)
        seconds, result = timed(lambda xs=xs, program=program, cluster=cluster: cluster.compute(program(xs)), reps)
        achieved = xs.nbytes / seconds
        rows.append({
            "program": "map->reduce, larger than the device",
            "threads": workers,
            "prefetch": prefetch,
            "device_memory_GiB": memory / 2**30,
            "array_GiB": xs.nbytes / 2**30,
            "chunk_budget_MiB": budget / 2**20,
            "soac_s": seconds,
            "soac_GBps": achieved / 1e9,
            "h2d_GBps": bandwidth / 1e9,
            "h2d_pinned_ring_GBps": pinned / 1e9,
            "fraction_of_h2d": achieved / bandwidth,
            "fraction_of_pinned_ring": achieved / pinned,
            "soac_ok": bool(np.isclose(result, 1.5 * n, rtol=1e-3)),
        })  # fmt: skip
        xs = None  # the host copy goes before the next case makes its own
        print(rows[-1])
    return rows


def simulated_larger_than_device(device: str, factor: float, reps: int) -> list[dict[str, Any]]:
    """PoCL's memory is the host's: a 64 MiB device simulated by the chunk budget, with prefetch on and off."""
    rows = []
    xs = da.ones(int(factor * (64 << 20)) // 4, chunks=-1, dtype=np.float32)
    for prefetch in (True, False):
        with dask.config.set({sd.CHUNK_BUDGET_KEY: 64 << 20}):
            program = sd.jit(energy_terms, devices=[device], prefetch=prefetch)
            seconds, result = timed(lambda program=program: program(xs).compute(scheduler="threads", num_workers=2), reps)
        ok = bool(np.isclose(result, 1.5 * xs.shape[0], rtol=1e-3))
        row = {"program": "larger than a simulated 64 MiB device", "prefetch": prefetch, "soac_s": seconds, "soac_ok": ok}
        rows.append(row | {"chunks": -(-xs.nbytes // (64 << 20))})
        print(rows[-1])
    return rows


def summarize(rows: list[dict[str, Any]]) -> None:
    """2 GPUs against one, and soac against CuPy-backed dask, per program and case."""
    for one in rows:
        name = f"{one['program']} ({one.get('case')}"
        for two in rows:
            same = (one["program"], one.get("case")) == (two["program"], two.get("case"))
            if same and one.get("gpus") == 1 and two.get("gpus") == 2:
                print(f"{name}): 2 GPUs {one['soac_s'] / two['soac_s']:.2f}x one GPU (soac)")
        if "cupy_s" in one:
            print(f"{name}, {one['gpus']} GPUs): soac {one['cupy_s'] / one['soac_s']:.2f}x CuPy-backed dask")


def tiny(args: argparse.Namespace) -> list[str]:
    """Small sizes on PoCL, as two devices (two worker threads share it)."""
    args.log2_n, args.bodies, args.reps = 20, 2048, min(args.reps, 1)
    if args.copying:  # the GPU's transfers (upload tasks, the pinned ring, the transfer lock) on PoCL
        from soac.lowering.runtime import choose_device, memory_of

        memory_of(choose_device("pocl")).mode = "pinned"
    return ["pocl", "pocl"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpus", default="1,2", help="GPU counts to run on (comma-separated; 0 runs none)")
    parser.add_argument("--log2-n", type=int, default=31, help="elements of the memory-bound program (2^n f32)")
    parser.add_argument("--bodies", type=int, default=1 << 18)
    parser.add_argument("--chunks-per-gpu", type=int, default=8)
    parser.add_argument("--threads-per-gpu", type=int, default=1)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--larger-than-device", type=float, default=1.5, help="0 skips the case")
    parser.add_argument("--ltd-threads", type=int, default=2, help="worker threads of the larger-than-device case")
    parser.add_argument("--cases", default="resident,from host", help="the cases of programs 1 and 2")
    parser.add_argument(
        "--scheduler", choices=("threads", "distributed"), default="threads", help="distributed falls back to threads"
    )
    parser.add_argument("--no-cupy", action="store_true")
    parser.add_argument("--tiny", action="store_true", help="small sizes on PoCL (two worker threads share the CPU device)")
    parser.add_argument("--copying", action="store_true", help="with --tiny: PoCL copies through the pinned ring as a GPU")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    gpus = tiny(args) if args.tiny else gpu_specs()
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
            for case in args.cases.split(","):
                for run in (memory_bound, compute_bound):
                    size = 1 << args.log2_n if run is memory_bound else args.bodies
                    rows.append(run(cluster, devices, size, chunks, args.reps, with_cupy, case) | {"gpus": count})
                    print(rows[-1])
        finally:
            cluster.close()
    if args.larger_than_device > 0:
        if args.tiny:
            rows += simulated_larger_than_device(gpus[0], args.larger_than_device, args.reps)
        else:
            rows += larger_than_device(gpus[0], args.larger_than_device, args.reps, args.ltd_threads)
    failed = [row["program"] for row in rows if not row.get("soac_ok", True) or not row.get("cupy_ok", True)]
    summarize(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if failed:
        sys.exit(f"wrong results: {', '.join(failed)}")


def cl_name(spec: str) -> str:
    from soac.lowering.runtime import choose_device

    return choose_device(spec).name


if __name__ == "__main__":
    main()
