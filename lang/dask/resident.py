"""Chunks resident on the workers' devices: a dask array whose blocks are `sl.DeviceArray`s.

    xs = sd.persist(da.random.random(10**8, chunks=10**7).astype("float32"))   # each chunk uploaded once
    energy(xs, k).compute()          # a soac program over resident chunks: no chunk moves, only the partials
    ys = affine(xs, k)               # a map over resident chunks: its chunks stay on the devices too

`persist` puts each chunk on a device with a task of dask's graph and keeps the blocks with dask's own `persist`
(any scheduler). The chunks go to the devices (as `sd.jit` chooses them) in contiguous runs: with n chunks on d
devices, chunk `i` to device `i * d // n` (`device_of_chunk`); in a `distributed` worker, to the worker's own
device. A task over resident chunks runs on the device that holds them, whichever worker thread runs it
(`StageCall`): the data decides the device, not the thread. A resident array keeps its chunks (rows of axis 0; the
other axes are joined into one chunk before the upload): rechunking it is refused (persist it with the chunks it
needs). Computing a resident array reads its chunks back (`np.concatenate` of them, through dask's
`concatenate_lookup`). A resident chunk that `distributed` moves to another worker pickles as its host copy and is
uploaded again to that worker's device.
"""

from __future__ import annotations

import copyreg
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import dask.array as da
import numpy as np
import pyopencl as cl
from dask.array.dispatch import concatenate_lookup
from soac.lang.dask.plan import SoacDaskError
from soac.lang.dask.timeline import span
from soac.lang.dask.workers import chosen_devices, device_spec, host_copy, in_distributed_worker, put, worker_device
from soac.lang.device import DeviceArray
from soac.lang.errors import located
from soac.lowering.runtime.device_arrays import storage_dtype

RESIDENT: set[str] = set()
"""The names of the dask arrays whose blocks are device arrays (persisted ones, and maps over them)."""


def is_resident(x: Any) -> bool:
    """Whether `x` is a dask array whose chunks are `sl.DeviceArray`s (from `persist`, or a soac map over such)."""
    return isinstance(x, da.Array) and x.name in RESIDENT


def mark_resident(x: da.Array) -> da.Array:
    RESIDENT.add(x.name)
    return x


def device_of_chunk(index: int, chunks: int, devices: int) -> int:
    """Which of `devices` holds chunk `index` of `chunks` persisted ones: contiguous runs of chunks, as even as can be
    (5 chunks on 2 devices: 0 0 0 1 1), so that a device's chunks are neighbours that a reduce may join in order."""
    return index * devices // max(chunks, 1)


@dataclass(frozen=True)
class Put:
    """The task that uploads one chunk: chunk `i` of `n` to `devices[device_of_chunk(i, n, len(devices))]` (`runs`,
    for `persist`) or to `devices[i % len(devices)]` (host chunks staged as they stream by, which dask takes in
    order), or to the worker's own device in `distributed`."""

    devices: tuple[str, ...]
    runs: bool = True

    @property
    def __name__(self) -> str:
        return "soac-device-put"

    def __call__(self, block: Any, block_info: dict[Any, Any] | None = None) -> DeviceArray:
        device = self.device(block_info)
        with span(self.__name__, "task", device), span(self.__name__, "device", device):
            return put(np.ascontiguousarray(block), device)

    def device(self, block_info: dict[Any, Any] | None) -> str | None:
        devices = chosen_devices(self.devices)
        if in_distributed_worker() or not devices or block_info is None:
            return worker_device(self.devices)
        index = int(np.ravel_multi_index(block_info[None]["chunk-location"], block_info[None]["num-chunks"]))
        if self.runs:
            return devices[device_of_chunk(index, int(np.prod(block_info[None]["num-chunks"])), len(devices))]
        return devices[index % len(devices)]


def persist(x: da.Array, devices: Sequence[str] = (), **persist_options: Any) -> da.Array:
    """`x` with each chunk on a worker's device, once (dask's `persist`, with `persist_options` such as
    `scheduler=`): a dask array of `sl.DeviceArray` blocks that soac programs (`sd.jit`) read without moving them."""
    if not isinstance(x, da.Array):
        raise SoacDaskError(located(f"sd.persist takes a dask array, not {type(x).__name__}"))
    if x.dtype.kind not in "biuf" or x.ndim == 0:
        raise SoacDaskError(located(f"sd.persist: a {x.dtype} array of rank {x.ndim} cannot live on a device"))
    if is_resident(x):
        return x
    if any(np.isnan(c) for axis in x.chunks for c in axis):
        raise SoacDaskError(located("sd.persist: the array has chunks of unknown size; call compute_chunk_sizes() first"))
    meta = np.empty((0,) * x.ndim, x.dtype)
    whole_rows = x.rechunk({d: -1 for d in range(1, x.ndim)})  # a chunk is whole rows, as soac programs take them
    placed = whole_rows.map_blocks(Put(tuple(devices)), dtype=x.dtype, meta=meta, token="soac-resident")
    return mark_resident(placed.persist(**persist_options))


def stage(x: da.Array, devices: Sequence[str] = ()) -> da.Array:
    """`x` with a task per chunk that uploads it (placed as `persist` places it), not persisted: the chunk program's
    task reads the device array, and dask frees it after. Upload tasks are tasks like any other, so a worker thread
    uploads one chunk while another computes on the chunk before."""
    meta = np.empty((0,) * x.ndim, x.dtype)
    return x.map_blocks(Put(tuple(devices), runs=False), dtype=x.dtype, meta=meta, token="soac-stage")


def last_row(block: DeviceArray) -> np.ndarray:
    """The last element of a resident 1-D chunk, as a 1-element numpy array (one element read from the device)."""
    memory = block.memory
    memory.check_errors()
    host = np.empty((1,), storage_dtype(block.dtype))
    offset = (block.size - 1) * host.itemsize
    cl.enqueue_copy(memory.queue, host, block.data.buffer, src_offset=offset, is_blocking=True)
    memory.counts.element_reads += 1
    return host.view(block.dtype) if host.dtype != block.dtype else host


def _concatenate(blocks: Sequence[Any], axis: int = 0) -> Any:
    """dask's concatenate for blocks that are device arrays: one block as it is, several read back and joined."""
    if len(blocks) == 1:
        return blocks[0]
    return np.concatenate([_host(b) for b in blocks], axis=axis)


def _host(block: Any) -> np.ndarray:
    return host_copy(block) if type(block) is DeviceArray else np.asarray(block)


def _arrive(host: np.ndarray) -> DeviceArray:
    """A resident chunk unpickled in a `distributed` worker: uploaded to that worker's device."""
    return put(host, worker_device(()))


def _pickle(array: DeviceArray) -> tuple[Any, tuple[np.ndarray]]:
    return _arrive, (host_copy(array),)


concatenate_lookup.register(DeviceArray, _concatenate)
copyreg.pickle(DeviceArray, _pickle)


def refuse_rechunk(arrays: Sequence[da.Array], chunks: tuple[int, ...], name: str) -> None:
    """A resident array keeps its chunks: refuse a call whose chunks (aligned, or split to the budget) differ."""
    for k, array in enumerate(arrays, 1):
        if is_resident(array) and (array.chunks[0] != chunks or any(len(c) > 1 for c in array.chunks[1:])):
            raise SoacDaskError(
                located(
                    f"{name}: chunked array {k} is resident on the devices with chunks {array.chunks}, but the call "
                    f"needs {chunks} on axis 0 (and one chunk on the others): sd.persist the arrays with the same "
                    "chunks, within the chunk budget"
                )
            )


__all__ = ["RESIDENT", "device_of_chunk", "device_spec", "is_resident", "persist"]
