"""Device groups: a reduce or a hist over resident chunks as one dask task that drives every device.

`sd.persist` puts contiguous runs of chunks on the devices (`device_of_chunk`). A task per chunk (`graph.py`) pays
dask's scheduling per chunk, and dask's threads take ready tasks in its order, not by device: two threads may wait on
one device while the other has nothing queued. Over resident chunks the chunks are grouped instead by the device that
holds them (`StageCall` runs where the data is). One task (`InterleavedGroups`) queues every group's chunks from one
thread, interleaved across the devices (chunk 0 of each group, then chunk 1 of each, ...) with nothing waited for,
then reads each device's partials and combines them in chunk order (the groups are runs of neighbouring chunks, so the
operator need not commute) with soac's program of the operator, as `da.reduction` does per chunk. A task per device
(`soac.interleave-groups: False`: `DeviceGroup` tasks and a `CombineGroups` task) puts a thread on each device, but
the threads take turns at the GIL while they queue: on two H200s the second device started about 1.6 ms (a group's
host time) after the first.

A group whose chunks take at most `soac.join-bytes` (dask config; 64 MiB unless set) is joined on its device into
one array (device-to-device copies, no sync) and run as one launch: small chunks leave a GPU mostly idle (nbody's
chunk kernel takes as long for 16384 bodies as for 262144 on an H200) and cost a launch and a read-back each; a
larger group runs chunk by chunk (joining would double its memory traffic), its chunks' kernels queued back to
back: each chunk's partial stays on the device (`device_scalars`), is copied there into the group's array of
partials, and the array is read once (`StageCall.partials_of_groups`), so the device does not idle between chunks
while the host waits for a scalar. Host chunks that small are grouped too: joined on the host and uploaded once to
the group's device, in a task per device (their uploads run at once; larger ones stream by in upload tasks,
`prefetch`).

    sum(map(f, xs)) over 4 resident chunks on 2 devices, as dask tasks:
      per chunk:   soac-program x4 -> soac-reduce-combine (da.reduction's tree)
      grouped:     soac-device-groups(chunks 0, 1 | chunks 2, 3)          (one task: queues 0, 2, 1, 3, then combines)
      per device:  soac-device-group(chunks 0, 1) | soac-device-group(chunks 2, 3) -> soac-combine-groups

Over persisted chunks the graph is that one task with its chunks inside (`ReadyArray`), which `compute()` under a
local scheduler runs in the calling thread. Grouping needs the chunks' places at graph time, so it is for dask's
local schedulers; under a `distributed` client (whose workers each own a device, and move a chunk to the task that
needs it) the graph stays a task per chunk.
"""

from __future__ import annotations

import sys
import uuid
from dataclasses import dataclass, replace
from typing import Any

import dask
import dask.array as da
import numpy as np
import pyopencl as cl
from dask.callbacks import Callback
from dask.highlevelgraph import HighLevelGraph
from soac.lang.dask.graph import Combine, Inputs, element_dtype
from soac.lang.dask.host_fold import host_fold
from soac.lang.dask.plan import Plan
from soac.lang.dask.resident import device_of_chunk, is_resident
from soac.lang.dask.timeline import span
from soac.lang.dask.workers import Program, StageCall, chosen_devices, data_device, put, worker_device
from soac.lang.device import DeviceArray
from soac.lowering.runtime.device_arrays import storage_dtype

JOIN_BYTES_KEY = "soac.join-bytes"
JOIN_BYTES = 64 << 20
"""A device group whose chunks take at most this many bytes runs as one launch over them joined (dask config
`soac.join-bytes`: bytes or a string such as "64 MiB"; 0 never joins)."""


INTERLEAVE_KEY = "soac.interleave-groups"
"""dask config: False makes a task of each device group (a thread each) and one combining task; by default (True)
one task queues every group's chunks interleaved, then combines (`InterleavedGroups`), over resident chunks (host
chunks, joined and uploaded per group, keep a task per group: their uploads run at once on their threads)."""


def groupable(plan: Plan, inputs: Inputs, groups: int) -> bool:
    """Whether the call runs as device groups: a reduce or a hist, with no `distributed` client current, over
    resident chunks, or over host chunks of at most `join_bytes()` a group (joined on the host, one upload each)."""
    if plan.kind not in ("reduce", "hist") or distributed_client():
        return False
    if any(is_resident(a) for a in inputs.chunked):
        return True
    return sum(a.nbytes for a in inputs.chunked) <= join_bytes() * groups


def join_bytes() -> int:
    """The most bytes of a group's chunks that run as one launch (dask config `soac.join-bytes`, else `JOIN_BYTES`)."""
    configured = dask.config.get(JOIN_BYTES_KEY, None)
    return JOIN_BYTES if configured is None else dask.utils.parse_bytes(configured)


def distributed_client() -> bool:
    if (distributed := sys.modules.get("distributed")) is None:
        return False
    try:
        distributed.default_client()
    except ValueError:  # no client
        return False
    return True


@dataclass(frozen=True, eq=False)
class DeviceGroup:
    """A group's task: the chunk stage on the group's chunks joined (at most `join_bytes` of them, on one device), or
    on each in turn; their partials stacked on axis 0, in chunk order. `chunked`: the positions of the chunked
    arguments among a chunk's blocks (the others are the whole arrays, the same in every chunk)."""

    stage: StageCall
    chunked: tuple[int, ...]
    join_bytes: int
    device: str | None = None
    """The group's device, where its host chunks go (resident chunks run where they are)."""

    @property
    def __name__(self) -> str:
        return "soac-device-group"

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, chunks: list[list[Any]]) -> np.ndarray:
        with span(self.__name__, "task", data_device(tuple(chunks[0])) or worker_device(self.stage.devices)):
            if (joined := self.joined(chunks)) is not None:
                return self.stage(*joined)
            if len(chunks) == 1:  # one partial: read at once, as the runtime reads a scalar result
                return self.stage(*chunks[0])
            return self.stage.partials(chunks)

    def calls(self, chunks: list[list[Any]]) -> list[list[Any]]:
        """The blocks of the group's calls on its device: its chunks joined (one call), or each chunk, a host chunk
        put on the group's device (the thread that queues every group has no device of its own)."""
        if (joined := self.joined(chunks)) is not None:
            return [joined]
        if self.device is None:
            return chunks
        return [[put(np.ascontiguousarray(b), self.device) if k in self.chunked and isinstance(b, np.ndarray) else b
                 for k, b in enumerate(blocks)] for blocks in chunks]  # fmt: skip

    def joined(self, chunks: list[list[Any]]) -> list[Any] | None:
        """One chunk's blocks with each chunked argument the group's chunks joined, if they take at most `join_bytes`
        (and the chunk budget) and are device arrays on one device (joined there) or numpy arrays (joined on the host
        and uploaded to the group's device); None: run them one by one."""
        parts = [[blocks[k] for blocks in chunks] for k in self.chunked]
        arrays = [a for part in parts for a in part]
        nbytes = sum(a.nbytes for a in arrays)
        if self.join_bytes <= 0 or nbytes > self.join_bytes or (self.stage.budget is not None and nbytes > self.stage.budget):
            return None
        blocks = list(chunks[0])
        if all(isinstance(a, np.ndarray) for a in arrays):
            for k, part in zip(self.chunked, parts):
                blocks[k] = put(np.ascontiguousarray(np.concatenate(part)), self.device)
            return blocks
        if len(chunks) == 1 or not all(type(a) is DeviceArray for a in arrays) or len({a.memory for a in arrays}) != 1:
            return None
        for k, part in zip(self.chunked, parts):
            blocks[k] = join_on_device(part)
        return blocks


def join_on_device(parts: list[DeviceArray]) -> DeviceArray:
    """The device arrays (one device, rows of one shape) joined along axis 0 into a new one, by copies on the device's
    queue (in order after the kernels that made the parts; nothing waits)."""
    memory = parts[0].memory
    shape = (sum(p.shape[0] for p in parts), *parts[0].shape[1:])
    data = memory.empty(storage_dtype(parts[0].dtype), int(np.prod(shape)), lambda: "a device group's joined chunks")
    offset = 0
    for part in parts:
        if part.nbytes:
            cl.enqueue_copy(memory.queue, data.buffer, part.data.buffer, byte_count=part.nbytes, dst_offset=offset)
        offset += part.nbytes
    return DeviceArray(data, shape, parts[0].dtype, memory)


@dataclass(frozen=True, eq=False)
class InterleavedGroups:
    """Every device group in one task, then `combine`: the groups' chunks are queued from this one thread,
    interleaved (chunk 0 of each device, chunk 1 of each, ...), with nothing waited for until every chunk is
    queued (`StageCall.partials_of_groups`). Threads of their own (a task per device) take turns at the GIL while
    they queue, so one device would start a group's worth of host time after the other."""

    groups: tuple[DeviceGroup, ...]
    combine: CombineGroups

    @property
    def __name__(self) -> str:
        return "soac-device-groups"

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, chunks_of_groups: list[list[list[Any]]]) -> Any:
        with span(self.__name__, "task", None):
            calls = [group.calls(chunks) for group, chunks in zip(self.groups, chunks_of_groups)]
            return self.combine.combined(self.groups[0].stage.partials_of_groups(calls))


@dataclass(frozen=True, eq=False)
class CombineGroups:
    """The last task: the groups' partials (runs of chunks, in order), after `first` (a hist's destination row) if
    any, combined by `combine`."""

    combine: Combine
    first: np.ndarray | None = None

    @property
    def __name__(self) -> str:
        return "soac-combine-groups"

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, groups: list[np.ndarray]) -> Any:
        with span(self.__name__, "task", None):
            return self.combined(groups)

    def combined(self, groups: list[np.ndarray]) -> Any:
        partials = np.concatenate(groups)
        if self.first is not None:
            partials = np.concatenate([self.first[None], partials])
        return self.combine(partials, keepdims=False)


def grouped(plan: Plan, program: Program, inputs: Inputs, options: dict[str, Any]) -> Any:
    """The dask array (0-d for a reduce; a tuple of them for a reduce of several arrays) of a reduce or a hist over
    resident chunks, as device groups."""
    results = list(plan.function.body.block.last_op.operands)  # pyright: ignore[reportOptionalMemberAccess]
    dtypes = [element_dtype(r) for r in results]
    devices = options["devices"]
    if plan.kind == "hist":
        dest = np.asarray(options["empty_run"]())
        stage = _stage(replace(program, role="hist-chunk"), inputs, options, shape_out=(1, dest.shape[0]))
        fold = StageCall(replace(program, role="hist-combine"), (None, None), devices)
        combine = CombineGroups(Combine(fold, True, np.empty((0, 0), dtypes[0])), dest)
        return _graph(stage, combine, inputs, len(chosen_devices(devices)) or 1, np.empty((0,), dtypes[0]), dest.shape)
    if len(dtypes) > 1:
        record = np.dtype([(f"r{k}", dtype) for k, dtype in enumerate(dtypes)])
        stage = _stage(program, inputs, options, record=record)
        merge = StageCall(replace(program, role="reduce-combine"), (None,) * len(dtypes), devices, record=record)
        combine = CombineGroups(Combine(merge, False, np.empty((0,), record)))
        result = _graph(stage, combine, inputs, len(chosen_devices(devices)) or 1, np.empty((), record), ())
        return tuple(result[name] for name in record.names or ())
    stage = _stage(program, inputs, options, shape_out=(1,))
    merge = StageCall(replace(program, role="reduce-combine"), (None,), devices)
    combine = CombineGroups(Combine(merge, False, np.empty((0,), dtypes[0]), host_fold(plan.terminal, np.dtype(dtypes[0]))))
    return _graph(stage, combine, inputs, len(chosen_devices(devices)) or 1, np.empty((), dtypes[0]), ())


def _stage(program: Program, inputs: Inputs, options: dict[str, Any], **extra: Any) -> StageCall:
    return StageCall(program, inputs.layout, options["devices"], options["budget"], **extra)


def _graph(
    stage: StageCall, combine: CombineGroups, inputs: Inputs, groups: int, meta: np.ndarray, shape: tuple[int, ...]
) -> da.Array:
    """A task per group of chunks (the runs `sd.persist` put on each device), then `combine`.

    The graph is as small as it can be, since dask's per-compute work (optimising, ordering, scheduling) grows with
    it: persisted chunks (device arrays that are values of their array's graph, not tasks) and the whole numpy
    arrays are put in the group tasks themselves, so that the graph has no other layer and no other key; one group
    is one task, combining its partials itself (a nested task).

        two devices:  group 0 (chunks 0-3) | group 1 (chunks 4-7) -> combine      3 tasks, no dependency
        one device:   combine(group 0 (chunks 0-7))                               1 task
    """
    name = f"soac-grouped-{uuid.uuid4().hex}"  # a new graph each call: hashing the whole arrays would cost more
    graph: dict[Any, Any] = {}
    blocks: list[Any] = []  # per argument: a chunk's key or value by chunk index, or the whole array
    dependencies: list[da.Array] = []
    for k, arg in enumerate(inputs.args):
        if k in inputs.chunked_at:
            keys = [_first_key(key) for key in arg.__dask_keys__()]
            values = _persisted(arg, keys)
            if values is None:
                dependencies.append(arg)
            blocks.append(keys if values is None else values)
        elif isinstance(arg, np.ndarray):
            blocks.append(arg)
    count = len(inputs.chunked[0].chunks[0])
    members = [[i for i in range(count) if device_of_chunk(i, count, groups) == g] for g in range(groups)]
    chunked = tuple(j for j, b in enumerate(blocks) if isinstance(b, list))
    places = chosen_devices(stage.devices)
    joining = join_bytes()
    tasks = []
    for g, chunks in enumerate(members):
        if not chunks:  # fewer chunks than devices
            continue
        calls = [[b[i] if isinstance(b, list) else b for b in blocks] for i in chunks]
        tasks.append((DeviceGroup(stage, chunked, joining, places[g] if places else None), calls))
    out = (name, *(0 for _ in shape))
    if dask.config.get(INTERLEAVE_KEY, True) and all(is_resident(a) for a in inputs.chunked):
        graph[out] = (InterleavedGroups(tuple(group for group, _ in tasks), combine), [calls for _, calls in tasks])
    elif len(tasks) == 1:
        graph[out] = (combine, [tasks[0]])
    else:
        graph.update({(name, "group", g): task for g, task in enumerate(tasks)})
        graph[out] = (combine, [(name, "group", g) for g in range(len(tasks))])
    layers = HighLevelGraph.from_collections(name, graph, dependencies=dependencies)
    return (da.Array if dependencies else ReadyArray)(layers, name, tuple((n,) for n in shape), meta=meta)


LOCAL_SCHEDULERS = (None, "threads", "threading", "sync", "synchronous", "single-threaded")
"""The schedulers under which `ReadyArray.compute` runs its one task itself (dask's threaded scheduler is the default
for arrays)."""


class ReadyArray(da.Array):
    """A dask array whose graph is already what should run: device groups over persisted chunks make one layer of
    the tasks to run, with no other key (nothing to cull, fuse or inline), so computing it skips dask's array
    optimisations (the collection protocol's `__dask_optimize__`; about 0.3 ms of a compute on the CI box). An array
    made from it (`x[name]`, `x + 1`) is a plain dask array.

    Its `compute()` under a local scheduler (threads or synchronous, and no `distributed` client or dask callback)
    runs the graph's one task in the calling thread and finalises the result as dask does: dask's compute of a
    one-task graph (its expression wrapper, ordering, the thread pool's hand-offs) costs 0.5-1 ms on the CI box and
    about 2 ms on the GPU machine, where each of two H200s works 4.5 ms on 2^33 f32. `dask.compute(x, ...)` and
    graphs of more than one task go through dask."""

    __slots__ = ()

    @staticmethod
    def __dask_optimize__(dsk: Any, keys: Any, **_: Any) -> Any:
        return dsk

    def compute(self, **kwargs: Any) -> Any:
        if (task := self.direct_task(kwargs)) is None:
            return super().compute(**kwargs)
        key, (function, *args) = task
        finalize, extra = self.__dask_postcompute__()
        return finalize(_with_value(self.__dask_keys__(), key, function(*args)), *extra)

    def direct_task(self, kwargs: dict[str, Any]) -> tuple[Any, tuple[Any, ...]] | None:
        """The graph's one task (key, task tuple) if `compute(**kwargs)` may run it directly, else None: an
        `InterleavedGroups` task, whose arguments are values (chunks, whole arrays), no keys or nested tasks."""
        scheduler = kwargs.get("scheduler", dask.config.get("scheduler", None))
        if scheduler not in LOCAL_SCHEDULERS or Callback.active or distributed_client():
            return None
        graph = self.__dask_graph__().to_dict()
        if len(graph) != 1:
            return None
        ((key, task),) = graph.items()
        return (key, task) if isinstance(task, tuple) and task and isinstance(task[0], InterleavedGroups) else None


def _with_value(keys: Any, key: Any, value: Any) -> Any:
    """`keys` (a nested list, as `__dask_keys__` gives them) with `key` replaced by `value`."""
    if isinstance(keys, list):
        return [_with_value(k, key, value) for k in keys]
    return value if keys == key else keys


def _persisted(array: da.Array, keys: list[Any]) -> list[DeviceArray] | None:
    """The chunks of `array` (by their keys) when each is a device array held in its graph (`sd.persist`'s), else
    None (tasks make them: a map over resident chunks)."""
    graph = array.__dask_graph__()
    values = [graph.get(key) for key in keys]
    return values if all(type(v) is DeviceArray for v in values) else None  # pyright: ignore[reportReturnType]


def _first_key(keys: Any) -> Any:
    """A chunk's key: the first block along the other axes (a chunked argument has one chunk on those)."""
    while isinstance(keys, list):
        keys = keys[0]
    return keys


__all__ = [
    "INTERLEAVE_KEY",
    "JOIN_BYTES",
    "JOIN_BYTES_KEY",
    "LOCAL_SCHEDULERS",
    "CombineGroups",
    "DeviceGroup",
    "InterleavedGroups",
    "ReadyArray",
    "distributed_client",
    "groupable",
    "grouped",
    "join_on_device",
]
