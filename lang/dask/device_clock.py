"""The devices' own clocks in an open timeline: when each device got its chunks and when it finished them.

The host-side spans of `timeline.py` cannot see a device's work once a group's chunks are queued without waits: a
chunk's `device` span ends at its launch. Where a device's queue has profiling enabled (the benchmark puts such a
queue in place: `DeviceMemory.use_queue`), a device group queues a marker before and after each chunk and after
its read. A marker's `queued` time is when the host enqueued it, and its `end` when the in-order queue reached it,
that is when the device had finished everything queued before it; both are on the device's clock, put on the host's
`perf_counter` by the host time taken as the device's first marker was enqueued:

    marker before chunk i  (B_i)   queued: the host begins chunk i     end: the device is done with chunk i - 1
    marker after chunk i   (A_i)   queued: chunk i is queued           end: the device is done with chunk i

A device waited for its host before chunk i for as long as it was done with chunk i - 1 before the host had queued
chunk i (`A_i.queued - B_i.end`, when positive); it worked on chunk i from then to `A_i.end`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pyopencl as cl
from soac.lang.dask import timeline as _timeline


@dataclass
class Marker:
    device: str
    what: str
    host_time: float
    event: Any


def mark(queue: Any, device: str | None, what: str) -> None:
    """Queue a marker on `queue` for the open timeline, if one is open and the queue keeps profiling times, and
    submit it (a marker left unsubmitted would be reached only at the next flush or wait)."""
    recording = _timeline._ACTIVE
    if recording is None or queue is None or not queue.properties & cl.command_queue_properties.PROFILING_ENABLE:
        return
    host_time = time.perf_counter()
    recording.markers.append(Marker(device or "default", what, host_time, cl.enqueue_marker(queue)))
    queue.flush()


def device_times(markers: list[Marker], started: float) -> dict[str, dict[str, float]]:
    """Per device, in seconds from `started` (host clock): when its first chunk was queued, when the host had queued
    its last chunk, when the device finished its chunks and its read, the device time of its chunks, and how long it
    waited for its host between chunks."""
    times: dict[str, dict[str, float]] = {}
    for device in sorted({m.device for m in markers}):
        own = [m for m in markers if m.device == device]
        for m in own:
            m.event.wait()
        offset = own[0].host_time - own[0].event.profile.queued * 1e-9

        def at(ns: int, offset: float = offset) -> float:
            return ns * 1e-9 + offset - started

        before = {m.what[len("before ") :]: m for m in own if m.what.startswith("before ")}
        after = {m.what[len("after ") :]: m for m in own if m.what.startswith("after ")}
        waited = worked = 0.0
        for chunk, a in after.items():
            b = before[chunk]
            free, queued, done = at(b.event.profile.end), at(a.event.profile.queued), at(a.event.profile.end)
            waited += max(0.0, queued - free)
            worked += done - max(free, at(b.event.profile.queued))
        reads = [m for m in own if m.what == "read"]
        times[device] = {
            "first_queued_s": at(own[0].event.profile.queued),
            "last_queued_s": max(at(a.event.profile.queued) for a in after.values()),
            "chunks_done_s": max(at(a.event.profile.end) for a in after.values()),
            "read_done_s": max(at(r.event.profile.end) for r in reads) if reads else float("nan"),
            "chunks_s": worked,
            "waited_s": waited,
        }
    return times


__all__ = ["Marker", "device_times", "mark"]
