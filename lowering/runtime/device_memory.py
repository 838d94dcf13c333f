"""One OpenCL device's memory as the runtime holds it: buffers from a pool, and the moves between numpy and buffers.

Every `Program` built for a device, and every device array (`soac.lowering.runtime.device_arrays`), shares the device's
`DeviceMemory`: its context, its one in-order queue (so nothing needs events to be ordered), its buffer pool and its
transfer counts. How an array moves depends on the device (`mode`):

- `zero-copy` (CPU devices, PoCL): an input's buffer is the numpy array's own memory (`USE_HOST_PTR`); nothing is
  copied in, PoCL's kernels read that memory directly. A call's result is lent out: the numpy array is its pooled
  buffer, mapped (no copy out, and no fresh pages to fault in), given back to the pool when the array is collected.
- `pinned` (GPUs): uploads and read-backs of 1 MiB or more go through a ring of pinned host memory (one
  `ALLOC_HOST_PTR` buffer, mapped once, reused by every call) in chunks: the host copies a chunk into the ring (on a
  few threads) while the device copies the chunk before it, so the bus runs at pinned speed; smaller arrays are
  written straight from numpy, without waiting.
- `direct`: every array written or read straight from numpy memory into a pooled buffer (what the driver stages).

    memory = soac.lowering.runtime.memory_of(device)
    array = memory.upload(np.arange(10, dtype=np.int32))     # a DeviceArray (buffer, dtype, size)
    (back,) = memory.download([(array, (10,), np.dtype(np.int32))])
"""

from __future__ import annotations

import math
import os
import threading
from collections import deque
from collections.abc import Callable, Sequence, Set
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyopencl as cl
from soac.lowering.runtime.errors import AllocationError

SMALL_TRANSFER = 1 << 20
"""Arrays below this many bytes skip the pinned ring: the driver's own staging is as fast for them."""
CHUNK = 8 << 20
"""The pinned ring's unit: the host fills one chunk while the device copies the one before."""
RING_BYTES = 64 << 20
"""The pinned ring's size: eight chunks in flight."""


class DeviceArray:
    """A device buffer of `size` elements of `dtype` (`host`: the numpy array whose memory a zero-copy buffer is).
    A pooled array gives its buffer back to its pool when it dies (`__del__`: cheaper than a `weakref.finalize`,
    which a host loop would pay each iteration)."""

    __slots__ = ("_nbytes", "_pool", "buffer", "dtype", "host", "size")

    def __init__(
        self,
        buffer: cl.Buffer,
        dtype: np.dtype[Any],
        size: int,
        host: np.ndarray | None = None,
        pool: BufferPool | None = None,
        nbytes: int = 0,
    ):
        self.buffer, self.dtype, self.size, self.host = buffer, dtype, size, host
        self._pool, self._nbytes = pool, nbytes

    def __del__(self) -> None:
        if self._pool is not None:
            self._pool.give(self._nbytes, self.buffer)

    def __repr__(self) -> str:
        return f"DeviceArray({self.size} elements of {self.dtype})"


class BufferPool:
    """Buffers of dead `DeviceArray`s, kept for reuse by later allocations of the same size.

    On a CPU a fresh buffer is fresh host memory: the kernel that first writes it takes a page fault per
    4 KiB page (about 25 ms for 64 MiB on PoCL, five times the scan that writes it); on a GPU the driver
    allocates device memory on first use, again in every iteration of a host loop that makes arrays. Like the caching
    allocators of CuPy and torch, `DeviceMemory.buffer` takes a buffer of the same byte size from here when
    there is one, and a finaliser gives it back when its array dies. The queue is in order, so a kernel
    that still uses the old array runs before any use of the new one. At most `limit` bytes are kept.
    """

    def __init__(self, limit: int):
        self.limit = limit
        self.kept = 0
        self.free: dict[int, list[cl.Buffer]] = {}

    def take(self, nbytes: int) -> cl.Buffer | None:
        if buffers := self.free.get(nbytes):
            self.kept -= nbytes
            return buffers.pop()
        return None

    def give(self, nbytes: int, buffer: cl.Buffer) -> None:
        if self.kept + nbytes <= self.limit:
            self.free.setdefault(nbytes, []).append(buffer)
            self.kept += nbytes


@dataclass
class TransferCounts:
    """What moved between the host and the device: arrays copied each way and their bytes, the inputs that moved
    nothing because their buffer is the numpy array's memory (`zero_copy`), the results that moved nothing because
    the numpy array is the mapped buffer (`lent`), and the single elements that host code
    read or wrote (`kernel.read`, `kernel.write`: a reduction's result, a loop's condition), and the reads of a
    program's error buffer (`error_checks`: each waits for the device)."""

    uploads: int = 0
    upload_bytes: int = 0
    downloads: int = 0
    download_bytes: int = 0
    zero_copy: int = 0
    element_reads: int = 0
    element_writes: int = 0
    error_checks: int = 0
    lent: int = 0

    def reset(self) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, 0)


_COPY_THREADS = min(8, os.cpu_count() or 1)
_COPIERS = ThreadPoolExecutor(max_workers=_COPY_THREADS, thread_name_prefix="soac-copy")


def parallel_copy(dest: np.ndarray, source: np.ndarray) -> None:
    """`dest[:] = source` for byte arrays, on a few threads for a large one (numpy copies without the GIL)."""
    pieces = min(_COPY_THREADS, len(source) // (2 << 20))
    if pieces <= 1:
        np.copyto(dest, source)
        return
    bounds = [len(source) * k // pieces for k in range(pieces + 1)]
    list(_COPIERS.map(lambda k: np.copyto(dest[bounds[k] : bounds[k + 1]], source[bounds[k] : bounds[k + 1]]), range(pieces)))


@dataclass
class _InFlight:
    offset: int
    nbytes: int
    event: cl.Event
    then: Callable[[], None] | None


@dataclass
class PinnedRing:
    """Pinned host memory (an `ALLOC_HOST_PTR` buffer mapped once) handed out in order, wrapping around; a region is
    handed out again only after the copy that used it finished (and its `then`, a read-back's host copy, ran)."""

    context: cl.Context
    queue: cl.CommandQueue
    capacity: int = RING_BYTES
    head: int = 0
    in_flight: deque[_InFlight] = field(default_factory=deque)

    def __post_init__(self) -> None:
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR
        self.buffer = cl.Buffer(self.context, flags, self.capacity)
        self.view, _ = cl.enqueue_map_buffer(
            self.queue, self.buffer, cl.map_flags.READ | cl.map_flags.WRITE, 0, (self.capacity,), np.uint8, is_blocking=True
        )

    def reserve(self, nbytes: int) -> int:
        """The offset of `nbytes` free bytes (at most `capacity`), after finishing the copies that still use them."""
        if self.head + nbytes > self.capacity:
            self.head = 0
        start, end = self.head, self.head + nbytes
        overlapping = [k for k, copy in enumerate(self.in_flight) if copy.offset < end and copy.offset + copy.nbytes > start]
        for _ in range(overlapping[-1] + 1 if overlapping else 0):  # in order: the older copies first
            self._finish(self.in_flight.popleft())
        self.head = end
        return start

    def track(self, offset: int, nbytes: int, event: cl.Event, then: Callable[[], None] | None = None) -> None:
        self.in_flight.append(_InFlight(offset, nbytes, event, then))

    def drain(self) -> None:
        while self.in_flight:
            self._finish(self.in_flight.popleft())

    @staticmethod
    def _finish(copy: _InFlight) -> None:
        copy.event.wait()
        if copy.then is not None:
            copy.then()


class DeviceMemory:
    """A device's context, in-order queue, buffer pool, transfers (`mode`, see the module) and transfer counts."""

    def __init__(self, device: cl.Device, context: cl.Context, queue: cl.CommandQueue):
        self.device, self.context, self.queue = device, context, queue
        is_cpu = bool(device.type & cl.device_type.CPU)
        limit = device.global_mem_size // 8
        self.pool = BufferPool(min(limit, 2**31) if is_cpu else limit)
        self.max_alloc_size: int = device.max_mem_alloc_size
        self.mode = "zero-copy" if is_cpu else "pinned"
        self.counts = TransferCounts()
        self._ring: PinnedRing | None = None
        self._host_reads: list[cl.Event] = []
        """Writes straight from numpy memory not yet waited for: the caller's array must outlive them."""
        self.unchecked: set[Any] = set()
        """Programs whose last call left its results on the device without reading its error buffer."""

    def use_queue(self, queue: cl.CommandQueue) -> None:
        """Make `queue` the device's queue (for kernels and transfers alike), after the old one has finished."""
        if queue is self.queue:
            return
        if queue.context != self.context:
            raise ValueError("the new queue belongs to another context than the device's programs and arrays")
        self.settle()
        if self._ring is not None:
            self._ring.drain()
        self.queue.finish()
        self.queue = queue

    def check_errors(self, wait: bool = True) -> None:
        """Raise the failure that a kernel of a call with device results recorded, if any (waits for the device;
        `wait=False`: only the failures already read back, `Program.raise_device_error`)."""
        if not wait:
            for program in list(self.unchecked):
                program.raise_device_error(wait=False)
            return
        while self.unchecked:
            try:
                program = self.unchecked.pop()
            except KeyError:  # another thread (soac.lang.dask's workers) took the last one
                return
            program.raise_device_error()

    # -- buffers ------------------------------------------------------------------------

    def buffer(self, nbytes: int, what: Callable[[], str]) -> cl.Buffer:
        """A buffer of `nbytes` (at least 1) from the pool, else a new one; `what` names it in an error."""
        if nbytes > self.max_alloc_size:
            raise AllocationError(
                f"allocating {nbytes} bytes for {what()} failed: {self.device.name} allows at most "
                f"{self.max_alloc_size} bytes per buffer"
            )
        if (buffer := self.pool.take(nbytes)) is not None:
            return buffer
        try:
            return cl.Buffer(self.context, cl.mem_flags.READ_WRITE, nbytes)
        except cl.Error as error:
            raise AllocationError(f"allocating {nbytes} bytes for {what()} failed: {error}") from None

    def pooled(self, buffer: cl.Buffer, nbytes: int, dtype: np.dtype[Any], size: int) -> DeviceArray:
        """`buffer` as an array whose buffer goes back to the pool when the array dies."""
        return DeviceArray(buffer, dtype, size, pool=self.pool, nbytes=nbytes)

    def empty(self, dtype: np.dtype[Any], size: int, what: Callable[[], str] = lambda: "an array") -> DeviceArray:
        nbytes = max(size * dtype.itemsize, dtype.itemsize)
        return self.pooled(self.buffer(nbytes, what), nbytes, dtype, size)

    # -- host to device -------------------------------------------------------------------

    def upload(self, array: np.ndarray, copy: bool = False) -> DeviceArray:
        """`array` (C-contiguous, of a storage type) on the device: the numpy memory itself on a zero-copy device
        unless `copy` (the array then must not change until the queue finishes), else a pooled buffer written from
        it."""
        if array.size and self.mode == "zero-copy" and not copy:
            if array.nbytes > self.max_alloc_size:
                self.buffer(array.nbytes, lambda: "an input array")  # raises
            flags = cl.mem_flags.READ_ONLY | cl.mem_flags.USE_HOST_PTR
            self.counts.zero_copy += 1
            return DeviceArray(cl.Buffer(self.context, flags, hostbuf=array), array.dtype, array.size, host=array)
        result = self.empty(array.dtype, array.size, lambda: "an input array")
        if array.size:
            self.write(result.buffer, array)
        return result

    def write(self, buffer: cl.Buffer, array: np.ndarray) -> None:
        """Copy `array`'s bytes to the start of `buffer` (asynchronously: see `settle`)."""
        self.counts.uploads += 1
        self.counts.upload_bytes += array.nbytes
        if self.mode != "pinned" or array.nbytes < SMALL_TRANSFER:
            self._host_reads.append(cl.enqueue_copy(self.queue, buffer, array, is_blocking=False))
            return
        ring = self._pinned_ring()
        source = array.reshape(-1).view(np.uint8)
        for start in range(0, len(source), CHUNK):
            count = min(CHUNK, len(source) - start)
            offset = ring.reserve(count)
            staged = ring.view[offset : offset + count]
            parallel_copy(staged, source[start : start + count])
            ring.track(offset, count, cl.enqueue_copy(self.queue, buffer, staged, dst_offset=start, is_blocking=False))

    def settle(self) -> None:
        """Wait for the writes that read numpy memory directly: after this the caller may change its arrays."""
        for event in self._host_reads:
            event.wait()
        self._host_reads.clear()

    # -- device to host -------------------------------------------------------------------

    def download(
        self, arrays: Sequence[tuple[DeviceArray, tuple[int, ...], np.dtype[Any]]], lend: Set[int] = frozenset()
    ) -> list[np.ndarray]:
        """New numpy arrays of the given shapes and types holding the arrays' first elements (all copies are enqueued
        before any is waited for). On a zero-copy device the arrays whose `id` is in `lend` (a call's results, which
        nothing else holds) are not copied: the numpy array is the mapped buffer, which goes back to the pool when
        the numpy array is collected."""
        results: list[np.ndarray] = []
        waits: list[cl.Event] = []
        for array, shape, dtype in arrays:
            if id(array) in lend and self.mode == "zero-copy" and array.host is None and math.prod(shape):
                lend = lend - {id(array)}  # a result returned twice is lent once
                results.append(np.asarray(_Lent(self.queue, array, shape)))
                self.counts.lent += 1
                continue
            host = np.empty(shape, dtype=array.dtype)
            results.append(host)
            if not host.size:
                continue
            self.counts.downloads += 1
            self.counts.download_bytes += host.nbytes
            if self.mode != "pinned" or host.nbytes < SMALL_TRANSFER:
                waits.append(cl.enqueue_copy(self.queue, host, array.buffer, is_blocking=False))
                continue
            ring = self._pinned_ring()
            target = host.reshape(-1).view(np.uint8)
            for start in range(0, len(target), CHUNK):
                count = min(CHUNK, len(target) - start)
                offset = ring.reserve(count)
                staged = ring.view[offset : offset + count]
                event = cl.enqueue_copy(self.queue, staged, array.buffer, src_offset=start, is_blocking=False)
                ring.track(offset, count, event, _copier(target[start : start + count], staged))
        if self._ring is not None:
            self._ring.drain()
        for event in waits:
            event.wait()
        return [h if h.dtype == d else h.astype(d) for h, (_, _, d) in zip(results, arrays)]

    def download_later(
        self, arrays: Sequence[tuple[DeviceArray, tuple[int, ...], np.dtype[Any]]]
    ) -> Callable[[], list[np.ndarray]]:
        """`download` in two steps: the copies enqueued now (behind the queue's work, waiting for nothing), and a
        function that waits for them and gives the numpy arrays, so that a caller reading several devices enqueues
        every device's reads before it waits for any. Arrays that a GPU stages through its pinned ring (large ones)
        are read by `download` when the function is called."""
        if self.mode == "pinned" and any(a.size * a.dtype.itemsize >= SMALL_TRANSFER for a, _, _ in arrays):
            return lambda: self.download(arrays)
        hosts: list[np.ndarray] = []
        waits: list[cl.Event] = []
        for array, shape, _ in arrays:
            host = np.empty(shape, dtype=array.dtype)
            hosts.append(host)
            if host.size:
                self.counts.downloads += 1
                self.counts.download_bytes += host.nbytes
                waits.append(cl.enqueue_copy(self.queue, host, array.buffer, is_blocking=False))

        def finish() -> list[np.ndarray]:
            for event in waits:
                event.wait()
            return [h if h.dtype == d else h.astype(d) for h, (_, _, d) in zip(hosts, arrays)]

        return finish

    def _pinned_ring(self) -> PinnedRing:
        if self._ring is None:
            self._ring = PinnedRing(self.context, self.queue, RING_BYTES)
        return self._ring


class _Lent:
    """A pooled buffer mapped into host memory, as the base of a numpy array (`__array_interface__`): the buffer is
    the numpy array's until it is collected, then unmapped and given back to the pool."""

    __slots__ = ("__array_interface__", "array", "mapped")

    def __init__(self, queue: cl.CommandQueue, array: DeviceArray, shape: tuple[int, ...]):
        flags = cl.map_flags.READ | cl.map_flags.WRITE
        self.mapped, _ = cl.enqueue_map_buffer(queue, array.buffer, flags, 0, shape, array.dtype, is_blocking=True)
        self.__array_interface__ = self.mapped.__array_interface__
        self.array = array

    def __del__(self) -> None:
        try:
            self.mapped.base.release()  # unmapped before the buffer can go back to the pool (in queue order)
        except cl.Error:  # the context is gone (the interpreter is exiting)
            pass


def _copier(dest: np.ndarray, source: np.ndarray) -> Callable[[], None]:
    return lambda: parallel_copy(dest, source)


_MEMORIES: dict[int, DeviceMemory] = {}
_MEMORIES_LOCK = threading.Lock()


def device_memory(device: cl.Device, context: cl.Context, queue: cl.CommandQueue) -> DeviceMemory:
    """The one `DeviceMemory` of `device` (whose context and queue are given the first time)."""
    key = device.int_ptr
    if (found := _MEMORIES.get(key)) is not None:
        return found
    with _MEMORIES_LOCK:  # one per device, also when two threads meet it first
        if key not in _MEMORIES:
            _MEMORIES[key] = DeviceMemory(device, context, queue)
        return _MEMORIES[key]
