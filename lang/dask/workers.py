"""Per-worker state: each worker (a scheduler thread, or a `distributed` worker) owns one OpenCL device and its
own compiled programs.

A task carries a `StageCall`: the user's function, the argument types of the
trace and the stage's role, all picklable, so that a `distributed` worker in
another process (or on another machine) traces and compiles what it runs. The
worker's device is `devices[i % len(devices)]` for the worker's index `i` (its
`distributed` name when that is a number, plus the thread's slot in the worker);
`devices` comes from `soac.lang.dask.jit(devices=[...])`, else from
`$SOAC_DASK_DEVICES` (comma-separated `SOAC_OPENCL_DEVICE` specs, e.g. `0:0,0:1`),
else every GPU where there are several (and `SOAC_OPENCL_DEVICE` is unset), else
the runtime's default device. Programs are compiled once per process and device,
and borrowed by a task while it runs (`borrowed`: a `soac.lowering.runtime.Program`
keeps per-call state, so two threads at once on one device take two); the argument
types key them, not the chunk's shape, so uneven chunks reuse one program.
soac.lang's on-disk cache makes a worker's compile after the first a parse of the
cached kernels.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyopencl as cl
from soac.lang.dask.device_clock import mark
from soac.lang.dask.plan import Plan, SoacDaskError, analyse
from soac.lang.dask.stages import stage_function
from soac.lang.dask.timeline import NamedLock, record_span, span
from soac.lang.device import DeviceArray, device_put
from soac.lang.jit import ArgType, Compiled, JitFunction, trace
from soac.lowering.runtime import choose_device, memory_of
from soac.lowering.runtime import device_put as put_on
from soac.lowering.runtime.device_arrays import storage_dtype

_LOCK = NamedLock("soac.lang.dask tracing and compiling", reentrant=True)
"""Held while tracing and compiling (xDSL and the compile caches are not shared safely between threads), and for the
bookkeeping of the workers' caches: never across a device call (`held_locks()` in the tests)."""
_LOCAL = threading.local()
_PLANS: dict[str, Plan] = {}


@dataclass
class Stats:
    """What this process's workers ran (for tests and benchmarks)."""

    chunks: int = 0
    max_chunk_bytes: int = 0
    programs_built: int = 0
    devices: set[str] = field(default_factory=set)

    def reset(self) -> None:
        self.chunks = self.max_chunk_bytes = self.programs_built = 0
        self.devices.clear()


STATS = Stats()
_STATS_LOCK = threading.Lock()


@dataclass(frozen=True)
class Program:
    """What a stage runs: the user's function traced for `types`, as the stage of `role`."""

    fn: Callable[..., Any]
    types: tuple[ArgType, ...]
    chunked: frozenset[int]
    role: str
    key: str
    """The traced program's identity (a hash of its IR with locations): with the role, the workers' cache key."""
    options: tuple[tuple[str, Any], ...] = ()
    """`sl.jit` options (backend, pipeline, ...)."""


def plan_of(fn: Callable[..., Any], types: tuple[ArgType, ...], chunked: frozenset[int], key: str) -> Plan:
    with _LOCK:
        if (plan := _PLANS.get(key)) is None:
            module, _ = trace(fn, types, getattr(fn, "__name__", "main"))
            function = module.body.block.first_op
            plan = _PLANS[key] = analyse(function, set(chunked))  # pyright: ignore[reportArgumentType]
        return plan


def _distributed_worker() -> Any:
    if (distributed := sys.modules.get("distributed")) is not None:  # a distributed worker has imported it
        try:
            return distributed.get_worker()
        except ValueError:  # not in a worker
            pass
    return None


def in_distributed_worker() -> bool:
    return _distributed_worker() is not None


def worker_index() -> int:
    """This worker's number: its `distributed` name when that is a number (LocalCluster's are) plus the slot of this
    thread in its worker; outside `distributed`, the slot of this thread among the scheduler's threads."""
    worker = _distributed_worker()
    name = None if worker is None else worker.name
    slots = _LOCAL.__dict__.setdefault("slots", {})
    if (slot := slots.get(name)) is None:
        with _LOCK:
            slot = slots[name] = next(_SLOT_COUNTERS.setdefault(name, itertools.count()))
    base = int(name) if isinstance(name, int | str) and str(name).isdigit() else 0
    return base + slot


_SLOT_COUNTERS: dict[Any, itertools.count[int]] = {}
_RESIDENT_ROLES = ("program", "scan-input", "scan-chunk", "scan-carry")
"""The stages whose array results over resident chunks stay on the device (a map's, a scan's); the partials of a
reduce or a hist come to the host."""


def chosen_devices(devices: tuple[str, ...]) -> tuple[str, ...]:
    """The workers' devices: `devices`, else `$SOAC_DASK_DEVICES`, else every GPU where there are several, else none
    (the runtime's default device)."""
    devices = devices or tuple(d.strip() for d in os.environ.get("SOAC_DASK_DEVICES", "").split(",") if d.strip())
    return devices or all_gpus()


def worker_device(devices: tuple[str, ...]) -> str | None:
    """The `SOAC_OPENCL_DEVICE` spec of this worker's device (None: the runtime's default)."""
    devices = chosen_devices(devices)
    if not devices:
        return None
    return devices[worker_index() % len(devices)]


@functools.cache
def all_gpus() -> tuple[str, ...]:
    """Every GPU as a `platform:device` spec where there are several and `SOAC_OPENCL_DEVICE` chooses none."""
    if os.environ.get("SOAC_OPENCL_DEVICE"):
        return ()

    try:
        platforms = cl.get_platforms()
    except cl.Error:
        return ()
    gpus = tuple(
        f"{p}:{d}"
        for p, platform in enumerate(platforms)
        for d, device in enumerate(platform.get_devices())
        if device.type & cl.device_type.GPU
    )
    return gpus if len(gpus) > 1 else ()


def device_spec(device: cl.Device) -> str:
    """The `platform:device` spec (`SOAC_OPENCL_DEVICE`) of `device`."""
    for p, platform in enumerate(cl.get_platforms()):
        for d, candidate in enumerate(platform.get_devices()):
            if candidate.int_ptr == device.int_ptr:
                return f"{p}:{d}"
    raise SoacDaskError(f"the device {device.name} is not among this process's OpenCL devices")


_IDLE: dict[tuple[str, str, str | None], list[JitFunction]] = {}
"""The idle stage programs of this process, by (program key, role, device): a task borrows one (`borrowed`) and
gives it back, so that the threads that drive a device share its compiled programs (a dask thread may drive any
device: a task runs where its chunks are); a runtime `Program` keeps per-call state, so two threads running one stage
on one device at once take two."""


def stage_programs(name: str | None = None) -> list[tuple[str, str | None, Compiled]]:
    """The stage programs this process's workers compiled (role, device, compiled program), those of the user's
    function `name` only if given: what a benchmark checks of the chunk programs (`optimized_text`: the passes'
    result, e.g. whether a nest was tiled)."""
    with _LOCK:
        jitted = [(role, device, j) for (_, role, device), idle in _IDLE.items() for j in list(idle)]
    return [
        (role, device, compiled)
        for role, device, j in jitted
        if name is None or j.name == f"{name}_{role.replace('-', '_')}"
        for compiled in j.specializations.values()
    ]


@contextlib.contextmanager
def borrowed(program: Program, devices: tuple[str, ...], args: tuple[Any, ...]) -> Iterator[tuple[Compiled, JitFunction]]:
    """A compiled program for `program` and the types of `args` (built if none is idle), on the device that holds
    the resident chunks among `args` (device arrays), else on this worker's device; idle again after the block."""
    device = data_device(args) or worker_device(devices)
    key = (program.key, program.role, device)
    with _LOCK:
        idle = _IDLE.setdefault(key, [])
        jitted = idle.pop() if idle else None
        if jitted is None:
            plan = plan_of(program.fn, program.types, program.chunked, program.key)
            fn = stage_function(plan, program.role, program.fn)
            name = f"{getattr(program.fn, '__name__', 'main')}_{program.role.replace('-', '_')}"
            jitted = JitFunction(fn, device=device, name=name, **dict(program.options))
            STATS.programs_built += 1
        try:
            compiled = jitted.specialize(*args)
        except BaseException:
            idle.append(jitted)
            raise
        STATS.devices.add(device or "default")
    try:
        yield compiled, jitted
    finally:
        idle.append(jitted)  # list.append is atomic


_TRANSFER_LOCKS: dict[int, NamedLock] = {}


def transfer_lock(memory: Any) -> Any:
    """The lock of `memory`'s transfers (`DeviceMemory`; None: no lock) when it copies (a GPU's pinned ring is one
    per device, and not for two threads at once); a zero-copy device (PoCL) needs none. It is held for the copies
    only: a kernel or a read-back is waited for before it is taken (`StageCall.run`)."""
    if memory is None or memory.mode == "zero-copy":
        return contextlib.nullcontext()
    if (lock := _TRANSFER_LOCKS.get(memory.device.int_ptr)) is None:
        with _LOCK:
            lock = _TRANSFER_LOCKS.setdefault(memory.device.int_ptr, NamedLock(f"transfers of {memory.device.name}"))
    return lock


def data_device(args: tuple[Any, ...]) -> str | None:
    """The spec of the device that holds the first device array among `args` (None: there is none)."""
    held = next((a for a in args if type(a) is DeviceArray), None)
    if held is None:
        return None
    if (spec := _SPECS.get(id(held.memory))) is None:
        with _LOCK:
            spec = _SPECS.setdefault(id(held.memory), device_spec(held.device))
    return spec


_SPECS: dict[int, str] = {}
"""The device spec of each device's `DeviceMemory` (one per device and process, never freed), by its `id`."""


def gathered(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """`args` with every device array on the device of the first (a resident chunk elsewhere is copied: it was
    persisted with another placement)."""
    held = [a for a in args if type(a) is DeviceArray]
    if not held or all(a.memory is held[0].memory for a in held):
        return args
    device = data_device(args)
    moved = []
    for a in args:
        if type(a) is DeviceArray and data_device((a,)) != device:
            a = put(host_copy(a), device)
        moved.append(a)
    return tuple(moved)


def put(host: np.ndarray, device: str | None) -> DeviceArray:
    """`sl.device_put(host, device)` under the device's transfer lock."""
    with transfer_lock(memory_of(choose_device(device))):
        return device_put(host, device)


@dataclass(frozen=True, eq=False)
class StageCall:
    """A task's function: runs `program` on a chunk (the chunked arguments, in order) and the whole arguments.

    `layout[k]` is `None` for the k-th argument being the next chunked block, else `("whole", value)`.
    `shape_out` reshapes the result (a reduce's scalar becomes a 1-element partial, a hist a row of partials).
    """

    program: Program
    layout: tuple[Any, ...]
    devices: tuple[str, ...] = ()
    budget: int | None = None
    shape_out: tuple[int, ...] | None = None
    meta: np.ndarray | None = None
    """What dask's meta inference gets (`computing_meta=True`), instead of a run on a device."""
    record: np.dtype[Any] | None = None
    """Packs a reduce's results (a tuple of scalars) into one element of this structured dtype: a 1-element partial."""
    host_results: bool = False
    """Read array results back even over device arrays: the chunks were staged (`prefetch`), not persisted."""

    @property
    def __name__(self) -> str:  # dask names tasks after their function
        return f"soac-{self.program.role}"

    def __repr__(self) -> str:
        return f"{self.__name__}({getattr(self.program.fn, '__name__', '?')})"

    def __call__(self, *blocks: Any, computing_meta: bool = False, **_: Any) -> Any:
        if computing_meta and self.meta is not None:
            return self.meta
        args = self.arguments(blocks)
        with span(self.__name__, "task", data_device(args) or worker_device(self.devices)):
            with borrowed(self.program, self.devices, args) as (compiled, jitted):
                result = self.run(compiled, jitted, args)
        return self.finish(result)

    def arguments(self, blocks: Sequence[Any]) -> tuple[Any, ...]:
        """The program's arguments for one chunk's blocks (the whole values put in), within the chunk budget."""
        chunks = iter(blocks)
        args = tuple(next(chunks) if slot is None else slot[1] for slot in self.layout)
        args = gathered(tuple(np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args))
        nbytes = sum(a.nbytes for a in args if isinstance(a, np.ndarray | DeviceArray))
        if self.budget is not None and nbytes > self.budget:
            raise SoacDaskError(
                f"a chunk of {self.program.role} needs {nbytes} bytes on the device, more than the chunk budget of "
                f"{self.budget} bytes (rechunk smaller, or raise soac.chunk-budget)"
            )
        with _STATS_LOCK:  # not `_LOCK`: a thread compiling holds that one for seconds
            STATS.chunks += 1
            STATS.max_chunk_bytes = max(STATS.max_chunk_bytes, nbytes)
        return args

    def finish(self, result: Any) -> Any:
        """A run's result as the task returns it: packed in `record`, reshaped to `shape_out`, device arrays kept."""
        if self.record is not None:
            packed = np.empty((1,), self.record)
            for name, value in zip(self.record.names or (), result if isinstance(result, tuple) else (result,)):
                packed[name] = value
            return packed
        if isinstance(result, tuple):  # a map's arrays: a tuple per block, taken apart by the graph
            return tuple(r if type(r) is DeviceArray else np.asarray(r) for r in result)
        if type(result) is DeviceArray:
            return result
        result = np.asarray(result)
        return result.reshape(self.shape_out) if self.shape_out is not None else result

    def partials(self, chunks: Sequence[Sequence[Any]]) -> np.ndarray:
        """The stage (a reduce's or a hist's chunk program) on a device group's chunks in turn, their partials stacked
        on axis 0 in chunk order (`partials_of_groups` of one group)."""
        return self.partials_of_groups([chunks])[0]

    def partials_of_groups(self, groups: Sequence[Sequence[Sequence[Any]]]) -> list[np.ndarray]:
        """The stage on each device group's chunks, every group's partials stacked on axis 0 in chunk order.

        Nothing waits between the chunks: each chunk's partial stays on the device (`device_scalars`) while the next
        chunk's kernels are queued, and the partials are read together at the end (`read_all`: one wait per device,
        not one per chunk). The groups' chunks are queued interleaved, chunk 0 of every group, then chunk 1, ...: one
        thread drives every device, and each device gets its first kernels within one chunk's host time of the
        others (threads of their own would take turns at the GIL). A group's compiled program is borrowed once,
        on the device of its first chunk.

            groups [[a0, a1], [b0, b1, b2]] on devices A, B:  queue a0, b0, a1, b1, b2; read A's, read B's"""
        if not all(groups):
            raise SoacDaskError(f"{self.__name__}: a device group with no chunks")
        results: list[list[Any]] = [[] for _ in groups]
        queued: list[_QueuedGroup | None] = [None] * len(groups)
        with contextlib.ExitStack() as borrows:
            for i in range(max(len(chunks) for chunks in groups)):
                for g, chunks in enumerate(groups):
                    if i >= len(chunks):
                        continue
                    args = self.arguments(chunks[i])  # each chunk's when it is queued: the first launch comes early
                    group = queued[g] = queued[g] or self.queue_group(chunks, args, borrows)
                    if group.whole:
                        args = tuple(group.whole.get(k, a) for k, a in enumerate(args))
                    mark(group.queue, group.device, f"before {i}")
                    result = self.run_deferred(group.program, args, group.device, group.placed)
                    results[g].append(result)
                    if group.scalars is not None and type(result) is DeviceArray and not result.shape:
                        group.scalars.add(result)
                    mark(group.queue, group.device, f"after {i}")
                    if group.queue is not None:
                        group.queue.flush()  # submitted now: a driver may hold queued work until a wait or a flush
        return self.read_partials(results, [group for group in queued if group is not None])

    def queue_group(self, chunks: Sequence[Sequence[Any]], first: tuple[Any, ...], borrows: contextlib.ExitStack) -> _QueuedGroup:
        """What a device group's chunks are queued with, from its first chunk's arguments: its device, its program
        (borrowed until `borrows` closes), the whole numpy arrays that every chunk takes put on the device once (a GPU
        would copy them at every call; PoCL waits at the end of every call whose kernels read host memory in place),
        and whether every chunk is on that device."""
        device = data_device(first) or worker_device(self.devices)
        whole: dict[int, DeviceArray] = {}
        if len(chunks) > 1 and any(type(a) is DeviceArray for a in first):
            blocks = [k for k, slot in enumerate(self.layout) if slot is None]  # argument k is block blocks.index(k)
            for j, k in enumerate(blocks):
                if isinstance(first[k], np.ndarray) and all(c[j] is chunks[0][j] for c in chunks):
                    whole[k] = put(first[k], device)
        program = borrows.enter_context(borrowed(self.program, self.devices, first))
        queue = getattr(program[0].runner, "queue", None)
        scalars = _GatheredScalars(len(chunks)) if self.record is None and self.shape_out == (1,) else None
        return _QueuedGroup(device, program, whole, _on_one_device(chunks), queue, scalars)

    def run_deferred(self, program: tuple[Compiled, JitFunction], args: tuple[Any, ...], device: str | None, placed: bool) -> Any:
        """One chunk of a group on `device` with its results left there. `placed`: every chunk of the group is on
        one device (checked once for the group); else a chunk persisted elsewhere (by another placement) runs on its
        own device with its own program, and is read at once."""
        with span(self.__name__, "task", device):
            if placed or (data_device(args) or worker_device(self.devices)) == device:
                return self.run(*program, args, defer=True, device=device)
            with borrowed(self.program, self.devices, args) as (other, other_jitted):
                return self.run(other, other_jitted, args)

    def read_partials(self, results: list[list[Any]], groups: list[_QueuedGroup]) -> list[np.ndarray]:
        """The groups' deferred results read back (a device's after its queue is done; the spans of the reads all
        start when the first read does, as every device works until its read), finished and stacked per group: a
        group's scalar partials gathered on its device with one copy, other results each with its own."""
        started = time.perf_counter()
        gathered = [group.scalars.complete() if group.scalars is not None else None for group in groups]
        # Every device's read enqueued before any is waited for: each read follows its device's last kernel at once,
        # with no round trip from the host between them (a wait for the queue, then the copy).
        reads = {g: read_later(array) for g, array in enumerate(gathered) if array is not None}
        for g in reads:
            mark(groups[g].queue, groups[g].device, "read")
        partials = []
        for g, (chunks, group) in enumerate(zip(results, groups)):
            if (read := reads.get(g)) is not None:
                partials.append(read())
                record_span(self.__name__, "device", group.device, started)
                continue
            flat = [r for result in chunks for r in (result if isinstance(result, tuple) else (result,))]
            read = iter(read_all(flat))
            record_span(self.__name__, "device", group.device, started)
            values = [tuple(next(read) for _ in r) if isinstance(r, tuple) else next(read) for r in chunks]
            partials.append(np.concatenate([self.finish(v) for v in values]))
        return partials

    def run(
        self, compiled: Compiled, jitted: JitFunction, args: tuple[Any, ...], defer: bool = False, device: str | None = None
    ) -> Any:
        """The compiled program on `args`, with no lock held while the device works.

        `defer` (a device group's chunks, `partials`): results that would come to the host are left on the device,
        unread and not waited for (a reduce's scalars as 0-d device arrays), for `read_all` to read later.

        On a device that copies (a GPU), numpy arguments (host chunks, whole arrays) are uploaded first under the
        device's transfer lock (its pinned ring is not for two threads at once), the program then runs on device
        arrays only, and results that go to the host are waited for before the lock is taken again to read them. Over
        device arrays (resident or staged chunks) array results stay on the device (a map's, a scan's); a reduce's
        or a hist's partials, and a staged map's chunks (`host_results`), come to the host."""
        memory = getattr(compiled.runner, "memory", None)
        copies = memory is not None and memory.mode != "zero-copy"
        over_device = any(type(a) is DeviceArray for a in args)
        if copies and any(isinstance(a, np.ndarray) for a in args):
            args = tuple(upload(a, memory) if isinstance(a, np.ndarray) else a for a in args)
        device = device or data_device(args) or worker_device(self.devices)
        with span(self.__name__, "device", device):
            if defer and (over_device or copies):
                return compiled.run(args, jitted.thresholds, True, device_scalars=True)
            result = compiled.run(args, jitted.thresholds, over_device or copies)
            if over_device and self.program.role in _RESIDENT_ROLES and not self.host_results:
                return result
            if isinstance(result, tuple):
                return tuple(host_copy(r) for r in result)
            return host_copy(result)


def upload(host: np.ndarray, memory: Any) -> DeviceArray:
    """`host` on `memory`'s device, copied under the device's transfer lock."""
    with transfer_lock(memory):
        return put_on(host, memory.device)


@dataclass(frozen=True)
class _QueuedGroup:
    """A device group while its chunks are queued (`StageCall.queue_group`)."""

    device: str | None
    program: tuple[Compiled, JitFunction]
    whole: dict[int, DeviceArray]
    placed: bool
    queue: Any
    scalars: _GatheredScalars | None
    """Where a reduce's scalar partials are gathered (None: a hist's rows, a tuple's records)."""


class _GatheredScalars:
    """A device group's scalar partials (0-d device arrays, one a chunk) copied on the device, as they are queued,
    into one array of the group's partials: read back with one copy, not one a chunk (each read is a call into the
    driver on the critical path, after the device's last kernel)."""

    def __init__(self, count: int):
        self.count = count
        self.added = 0
        self.array: DeviceArray | None = None

    def add(self, scalar: DeviceArray) -> None:
        """Copy `scalar` into the next element (on its device's queue, behind the kernel that makes it)."""
        if self.array is None:
            data = scalar.memory.empty(storage_dtype(scalar.dtype), self.count, lambda: "a device group's partials")
            self.array = DeviceArray(data, (self.count,), scalar.dtype, scalar.memory)
        if scalar.memory is not self.array.memory or scalar.dtype != self.array.dtype:
            return  # not gathered: the group's partials are read one by one
        itemsize = self.array.data.dtype.itemsize
        queue = scalar.memory.queue
        cl.enqueue_copy(queue, self.array.data.buffer, scalar.data.buffer, byte_count=itemsize, dst_offset=self.added * itemsize)
        self.added += 1

    def complete(self) -> DeviceArray | None:
        """The group's partials in chunk order, if every chunk's was gathered."""
        return self.array if self.added == self.count else None


def _on_one_device(calls: Sequence[Sequence[Any]]) -> bool:
    """Whether every call of `calls` (a group's chunks) has device arrays, all on one device: then each chunk runs
    with the group's program, with no check of its own."""
    memory = None
    for args in calls:
        held = [a for a in args if type(a) is DeviceArray]
        if not held:
            return False
        for a in held:
            memory = a.memory if memory is None else memory
            if a.memory is not memory:
                return False
    return True


def read_all(values: Sequence[Any]) -> list[Any]:
    """`values` with their device arrays read back together: per device, one wait for its queue (no lock held),
    then every copy enqueued at once and waited for under the device's transfer lock; other values as they are."""
    out = list(values)
    by_memory: dict[int, list[int]] = {}
    for k, value in enumerate(values):
        if type(value) is DeviceArray:
            by_memory.setdefault(id(value.memory), []).append(k)
    for positions in by_memory.values():
        memory = values[positions[0]].memory
        memory.queue.finish()
        memory.check_errors()  # a failing kernel of the group comes before its partials
        with transfer_lock(memory):
            hosts = memory.download([(values[k].data, values[k].shape, values[k].dtype) for k in positions])
        for k, host in zip(positions, hosts):
            out[k] = host
    return out


def read_later(value: DeviceArray) -> Callable[[], np.ndarray]:
    """The read of a device array enqueued now behind its device's work (and submitted: a flush), without waiting;
    the function returned waits for it and gives the numpy array, after raising a failure of the device's kernels
    (a failing kernel of the group comes before its partials). The read comes after the chunks' reads of their error
    buffers on the in-order queue: once it is done, checking them waits for nothing (one wait a device)."""
    memory = value.memory
    with transfer_lock(memory):
        finish = memory.download_later([(value.data, value.shape, value.dtype)])
    memory.queue.flush()

    def read() -> np.ndarray:
        with transfer_lock(memory):
            (host,) = finish()
        memory.check_errors()
        return host

    return read


def host_copy(value: Any) -> Any:
    """A device array read back (waited for with no lock held, then copied under its device's transfer lock); any
    other value as it is."""
    if type(value) is not DeviceArray:
        return value
    value.block_until_ready()
    with transfer_lock(value.memory):
        return value.get()
