"""Device groups: a reduce or a hist over resident chunks as one dask task per device and one combining task.

`sd.persist` puts chunk i on `devices[i % n]`. A task per chunk (`graph.py`) pays dask's scheduling per chunk, and
dask's threads take ready tasks in its order, not by device: two threads may wait on one device while the other has
nothing queued. Over resident chunks the chunks are grouped instead by the device that holds them: a group's task runs
the chunk program on each of its chunks in turn (on that device: `StageCall` runs where the data is) and returns
their partials, so each device has one thread driving it and no chunk waits behind another device's; one last task
puts the partials back in chunk order (the operator need not commute) and combines them with soac's program of the
operator, as `da.reduction` does per chunk.

    sum(map(f, xs)) over 4 resident chunks on 2 devices, as dask tasks:
      per chunk:  soac-program x4 -> soac-reduce-combine (da.reduction's tree)
      grouped:    soac-device-group(chunks 0, 2) | soac-device-group(chunks 1, 3) -> soac-combine-groups

Grouping needs the chunks' places at graph time, so it is for dask's local schedulers; under a `distributed` client
(whose workers each own a device, and move a chunk to the task that needs it) the graph stays a task per chunk.
"""

from __future__ import annotations

import sys
import uuid
from dataclasses import dataclass, replace
from typing import Any

import dask.array as da
import numpy as np
from dask.highlevelgraph import HighLevelGraph
from soac.lang.dask.graph import Combine, Inputs, element_dtype
from soac.lang.dask.plan import Plan
from soac.lang.dask.resident import is_resident
from soac.lang.dask.timeline import span
from soac.lang.dask.workers import Program, StageCall, chosen_devices


def groupable(plan: Plan, inputs: Inputs) -> bool:
    """Whether the call runs as device groups: a reduce or a hist over resident chunks, with no `distributed`
    client current."""
    return plan.kind in ("reduce", "hist") and any(is_resident(a) for a in inputs.chunked) and not _distributed_client()


def _distributed_client() -> bool:
    if (distributed := sys.modules.get("distributed")) is None:
        return False
    try:
        distributed.default_client()
    except ValueError:  # no client
        return False
    return True


@dataclass(frozen=True, eq=False)
class DeviceGroup:
    """A group's task: the chunk stage on each of the group's chunks, in order; their partials stacked on axis 0."""

    stage: StageCall

    @property
    def __name__(self) -> str:
        return "soac-device-group"

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, chunks: list[list[Any]]) -> np.ndarray:
        with span(self.__name__, "task", None):
            return np.concatenate([self.stage(*blocks) for blocks in chunks])


@dataclass(frozen=True, eq=False)
class CombineGroups:
    """The last task: the groups' partials in chunk order (`chunk_order`: the chunk of each partial, group after
    group), after `first` (a hist's destination row) if any, combined by `combine`."""

    combine: Combine
    chunk_order: tuple[int, ...]
    first: np.ndarray | None = None

    @property
    def __name__(self) -> str:
        return "soac-combine-groups"

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, groups: list[np.ndarray]) -> Any:
        with span(self.__name__, "task", None):
            partials = np.concatenate(groups)[np.argsort(self.chunk_order, kind="stable")]
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
        combine = CombineGroups(Combine(fold, True, np.empty((0, 0), dtypes[0])), (), dest)
        return _graph(stage, combine, inputs, len(chosen_devices(devices)) or 1, np.empty((0,), dtypes[0]), dest.shape)
    if len(dtypes) > 1:
        record = np.dtype([(f"r{k}", dtype) for k, dtype in enumerate(dtypes)])
        stage = _stage(program, inputs, options, record=record)
        merge = StageCall(replace(program, role="reduce-combine"), (None,) * len(dtypes), devices, record=record)
        combine = CombineGroups(Combine(merge, False, np.empty((0,), record)), ())
        result = _graph(stage, combine, inputs, len(chosen_devices(devices)) or 1, np.empty((), record), ())
        return tuple(result[name] for name in record.names or ())
    stage = _stage(program, inputs, options, shape_out=(1,))
    merge = StageCall(replace(program, role="reduce-combine"), (None,), devices)
    combine = CombineGroups(Combine(merge, False, np.empty((0,), dtypes[0])), ())
    return _graph(stage, combine, inputs, len(chosen_devices(devices)) or 1, np.empty((), dtypes[0]), ())


def _stage(program: Program, inputs: Inputs, options: dict[str, Any], **extra: Any) -> StageCall:
    return StageCall(program, inputs.layout, options["devices"], options["budget"], **extra)


def _graph(
    stage: StageCall, combine: CombineGroups, inputs: Inputs, groups: int, meta: np.ndarray, shape: tuple[int, ...]
) -> da.Array:
    """Chunk i in group i % `groups` (where `sd.persist` put it); the whole numpy arrays are one key each."""
    name = f"soac-grouped-{uuid.uuid4().hex}"  # a new graph each call: hashing the whole arrays would cost more
    graph: dict[Any, Any] = {}
    blocks: list[Any] = []  # per argument: a chunk's key by chunk index, or the whole array's key
    for k, arg in enumerate(inputs.args):
        if k in inputs.chunked_at:
            blocks.append([_first_key(key) for key in arg.__dask_keys__()])
        elif isinstance(arg, np.ndarray):
            graph[(name, "whole", k)] = arg
            blocks.append((name, "whole", k))
    rows = inputs.chunked[0].chunks[0]
    members = [list(range(g, len(rows), groups)) for g in range(min(groups, len(rows)))]
    for g, chunks in enumerate(members):
        calls = [[b[i] if isinstance(b, list) else b for b in blocks] for i in chunks]
        graph[(name, "group", g)] = (DeviceGroup(stage), calls)
    combine = replace(combine, chunk_order=tuple(i for chunks in members for i in chunks))
    out = (name, *(0 for _ in shape))
    graph[out] = (combine, [(name, "group", g) for g in range(len(members))])
    layers = HighLevelGraph.from_collections(name, graph, dependencies=inputs.chunked)
    return da.Array(layers, name, tuple((n,) for n in shape), meta=meta)


def _first_key(keys: Any) -> Any:
    """A chunk's key: the first block along the other axes (a chunked argument has one chunk on those)."""
    while isinstance(keys, list):
        keys = keys[0]
    return keys


__all__ = ["CombineGroups", "DeviceGroup", "groupable", "grouped"]
