"""Where soac.lang.dask's time goes on 1 and 2 devices (issue 29): a timeline of every task (thread, device, start, end)
for `bench/dask_scaling.py`'s two programs, with per-device busy time, the overlap of the devices, task counts and
lock waits; grouped (the default over resident chunks, and over host chunks of at most `soac.join-bytes` a device:
one task queues every device's chunks, interleaved), per device (a task per device group, `soac.interleave-groups:
False`) and per chunk (`soac.device-groups: False`).

    python bench/dask_timeline.py [--devices 0:0,0:1] [--log2-n 27] [--bodies 65536] [--chunks-per-device 8]
                                  [--reps 3] [--cases resident,from host] [--modes grouped,per-chunk] [--json OUT]

`checked` (not run unless named in `--programs`) is a reduce with device checks and a whole table,
`sum(map(x -> table[x % 4] * x, xs))` over 2^n int64.

`--devices`: the devices' `SOAC_OPENCL_DEVICE` specs (default: every GPU, else the first two OpenCL devices; on
PoCL, `POCL_DEVICES="pthread pthread"` makes two devices of the CPU, 0:0 and 0:1). Each device count from 1 to
`len(devices)` runs with one dask worker thread per device. "busy" is the union of a device's device calls (launch to
results, as the host sees them); "overlap" is the time two devices or more were busy at once: 0 with work on both
means a serialisation on the host; "first launches apart": the time from the first device's first launch to the
last device's; "after the last chunk's launch": from the end of the last chunk's enqueueing to the end of the run
(waiting for the devices, reading the partials, combining them); "tasks" is the sum of the tasks' times (threads'
work); "graph" is the time to build the dask graph (`program(xs)`, kept from the run before over resident chunks)
and "compute" the rest of a run; "outside tasks" the time in which no soac task
ran (building the graph, dask's optimisation, ordering and scheduling, thread hand-offs); "host per chunk" the host
time of each chunk run inside a device group (with its partial left on the device: the enqueueing only); the graph's
keys and layers (persisted chunks included when they are keys of it). `--join-bytes 0` runs a device group's chunks
one by one, as chunks of hundreds of MiB run on the GPUs.

`--device-clock` gives each device a queue that keeps profiling times, and reports from the devices' own clocks
(`soac.lang.dask.device_clock`: markers around each chunk of a device group) when each device had its first and last
chunk queued, when it finished them and its read, the device time of its chunks, and how long it waited for its
host between chunks, all in ms from the start of the run.

On the 2-GPU machine: python bench/dask_timeline.py --json dask_timeline.json
"""

from __future__ import annotations

import argparse
import json
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import soac.lang.dask as sd
from dask_scaling import energy_terms, potential  # pyright: ignore[reportMissingImports]
from soac.lang.dask.device_clock import device_times
from soac.lang.dask.groups import INTERLEAVE_KEY
from soac.lang.dask.workers import all_gpus
from soac.lowering.runtime import choose_device, memory_of


def default_devices() -> list[str]:
    gpus = list(all_gpus())
    if gpus:
        return gpus
    return [f"{p}:{d}" for p, platform in enumerate(cl.get_platforms()) for d in range(len(platform.get_devices()))][:2]


def memory_bound(devices: list[str], n: int, chunks: int, case: str) -> tuple[Callable[[], Any], float]:
    on_host = da.random.random(n, chunks=-(-n // chunks)).astype(np.float32).persist(scheduler="threads")
    expected = float((0.5 * on_host.astype(np.float64) ** 2 + 1.0).sum().compute())
    xs = sd.persist(on_host, devices=devices, scheduler="threads") if case == "resident" else on_host
    program = sd.jit(energy_terms, devices=devices)
    return lambda: program(xs), expected


def table_terms(xs, table):
    """A reduce with device checks (a gather from a whole table): its chunk program has an error buffer."""
    return sl.sum(sl.map(lambda x: table[x % 4] * x, xs))


def checked(devices: list[str], n: int, chunks: int, case: str) -> tuple[Callable[[], Any], float]:
    values = np.random.default_rng(1).integers(0, 1000, n)
    table = np.array([1, -2, 3, 5], np.int64)
    on_host = da.from_array(values, chunks=-(-n // chunks)).persist(scheduler="threads")
    xs = sd.persist(on_host, devices=devices, scheduler="threads") if case == "resident" else on_host
    program = sd.jit(table_terms, devices=devices)
    return lambda: program(xs, table), float((table[values % 4] * values).sum())


def compute_bound(devices: list[str], bodies: int, chunks: int, case: str) -> tuple[Callable[[], Any], float]:
    rng = np.random.default_rng(7)
    pos = rng.random((4, bodies), dtype=np.float32)
    pos[3] += 0.5
    eps = np.float32(1e-3)
    on_host = [da.from_array(pos[k], chunks=-(-bodies // chunks)).persist(scheduler="threads") for k in range(4)]
    x, y, z, m = (sd.persist(a, devices=devices, scheduler="threads") for a in on_host) if case == "resident" else on_host
    p64 = pos.astype(np.float64)
    d2 = sum((p64[k, :, None] - p64[k, None, :]) ** 2 for k in range(3)) if bodies <= 8192 else None
    expected = float((p64[3] * (p64[3] / np.sqrt(d2 + eps)).sum(axis=1)).sum()) if d2 is not None else float("nan")
    program = sd.jit(potential, devices=devices)
    return lambda: program(x, y, z, m, *pos, eps), expected


PROGRAMS = {"map->reduce": memory_bound, "nbody": compute_bound, "checked": checked}


def measure(make: Callable[[], Any], expected: float, workers: int, reps: int) -> dict[str, Any]:
    """The median run of `reps` after a warm-up (compiles), with its timeline's summary."""
    make().compute(scheduler="threads", num_workers=workers)
    runs = []
    for _ in range(reps):
        with sd.timeline() as tl:
            start = time.perf_counter()
            graph = make()
            built = time.perf_counter()
            result = graph.compute(scheduler="threads", num_workers=workers)
            done = time.perf_counter()
        summary = tl.summary() | {"device_clock": device_times(tl.markers, start)}
        runs.append((done - start, built - start, done - built, summary, float(result)))
    seconds, graph_s, compute_s, summary, result = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
    ok = bool(np.isnan(expected) or np.isclose(result, expected, rtol=1e-3))
    hlg = graph.__dask_graph__()
    shape = {"graph_keys": len(hlg), "graph_layers": len(getattr(hlg, "layers", {None: None}))}
    return {"s": seconds, "graph_s": graph_s, "compute_s": compute_s, "ok": ok, "result": result, **shape, **summary}


def show(row: dict[str, Any]) -> None:
    head = f"{row['program']}, {row['case']}, {row['devices']} device(s), {row['mode']}"
    print(f"{head}: {row['s'] * 1e3:.2f} ms (graph {row['graph_s'] * 1e3:.2f}, compute {row['compute_s'] * 1e3:.2f})"
          f"{'' if row['ok'] else '  WRONG RESULT'}")  # fmt: skip
    for device, d in row["devices_busy"].items():
        print(f"    {device}: busy {d['busy_s'] * 1e3:.2f} ms, {d['device_calls']} device calls, {d['tasks']} tasks, "
              f"threads {', '.join(d['threads'])}")  # fmt: skip
    print(f"    overlap {row['overlap_s'] * 1e3:.2f} ms, first launches {row['start_skew_s'] * 1e3:.2f} ms apart; "
          f"tasks {row['tasks']} ({row['task_s'] * 1e3:.2f} ms); "
          f"lock waits {row['lock_waits']} ({row['lock_wait_s'] * 1e3:.3f} ms)")  # fmt: skip
    for device, t in row.get("device_clock", {}).items():
        print(f"    {device} clock: chunks queued {t['first_queued_s'] * 1e3:.2f}-{t['last_queued_s'] * 1e3:.2f} ms, "
              f"done {t['chunks_done_s'] * 1e3:.2f}, read done {t['read_done_s'] * 1e3:.2f}; "
              f"chunks {t['chunks_s'] * 1e3:.2f} ms, waited for the host {t['waited_s'] * 1e3:.2f} ms")  # fmt: skip
    if "outside_tasks_s" in row:
        per_chunk = row["chunk_s"] / row["chunks"] * 1e3 if row["chunks"] else float("nan")
        print(f"    after the last chunk's launch {row['after_last_chunk_s'] * 1e3:.2f} ms (waits, reads, combining)")
        print(f"    outside tasks {row['outside_tasks_s'] * 1e3:.2f} ms (dask: graph, scheduling, hand-offs); "
              f"{row['chunks']} chunks in groups, host {per_chunk:.3f} ms each; "
              f"graph {row['graph_keys']} keys in {row['graph_layers']} layers")  # fmt: skip


def profile_queues(devices: list[str]) -> None:
    """Give each device a queue that keeps profiling times, for the markers of `--device-clock`."""
    for spec in devices:
        memory = memory_of(choose_device(spec))
        memory.use_queue(cl.CommandQueue(memory.context, memory.device, cl.command_queue_properties.PROFILING_ENABLE))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", help="comma-separated SOAC_OPENCL_DEVICE specs")
    parser.add_argument("--log2-n", type=int, default=27, help="elements of the map->reduce (2^n f32)")
    parser.add_argument("--bodies", type=int, default=1 << 16)
    parser.add_argument("--chunks-per-device", type=int, default=8)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--cases", default="resident,from host")
    parser.add_argument("--modes", default="grouped,per-chunk", help="of grouped, per-device, per-chunk")
    parser.add_argument("--programs", default="map->reduce,nbody", help="of map->reduce, nbody, checked")
    parser.add_argument("--join-bytes", help="soac.join-bytes (0: a device group runs its chunks one by one)")
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--device-clock", action="store_true", help="also report from the devices' own clocks")
    args = parser.parse_args()
    devices = args.devices.split(",") if args.devices else default_devices()
    if args.device_clock:
        profile_queues(devices)
    names = ", ".join(f"{spec} ({choose_device(spec).name})" for spec in devices)
    print(f"devices: {names}; dask {dask.__version__}")
    rows: list[dict[str, Any]] = []
    for count in range(1, len(devices) + 1):
        used = devices[:count]
        chunks = count * args.chunks_per_device
        for case in args.cases.split(","):
            for name in args.programs.split(","):
                size = args.bodies if name == "nbody" else 1 << args.log2_n
                make, expected = PROGRAMS[name](used, size, chunks, case)
                for mode in args.modes.split(","):
                    config: dict[str, Any] = {sd.DEVICE_GROUPS_KEY: mode != "per-chunk", INTERLEAVE_KEY: mode == "grouped"}
                    if args.join_bytes is not None:
                        config["soac.join-bytes"] = args.join_bytes
                    with dask.config.set(config):
                        row = measure(make, expected, count, args.reps)
                    row = {"program": name, "case": case, "devices": count, "mode": mode, "chunks": chunks} | row
                    row["devices_busy"] = row.pop("devices")
                    row["devices"] = count
                    rows.append(row)
                    show(row)
    for one in rows:
        for two in rows:
            same = all(one[k] == two[k] for k in ("program", "case", "mode"))
            if same and one["devices"] == 1 and two["devices"] == 2:
                print(f"{one['program']}, {one['case']}, {one['mode']}: 2 devices {one['s'] / two['s']:.2f}x one")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if not all(row["ok"] for row in rows):
        sys.exit("wrong results")


if __name__ == "__main__":
    main()
