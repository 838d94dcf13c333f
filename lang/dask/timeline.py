"""An opt-in timeline of what soac.lang.dask's tasks did: which thread ran what on which device, and when.

    with sd.timeline() as tl:
        energy(xs, k).compute()
    print(tl.report())          # per device: busy seconds, tasks; the overlap of the devices; lock waits

Each record is a `Span` (thread, device, what, phase, start, end) with `time.perf_counter` times:

- `task`: a whole soac task of dask's graph (a chunk's stage, a device group's chunks, an upload);
- `chunk`: one chunk's stage run inside a larger task (a device group's);
- `device`: a device call inside it, from its launch to its results (for a reduce, the partial read back: it waits
  for the kernels), so the union of a device's `device` spans is the time it was busy as its host saw it;
- `lock`: waiting to take one of soac.lang.dask's locks (the workers' `_LOCK`, a device's transfer lock).

Two devices that never overlap while both have work are serialised by something on the host (a lock held across a
wait, one thread driving both); `Timeline.overlap` measures it. `held_locks()` names the soac.lang.dask locks the
calling thread holds: a device call made while one is held serialises every thread that needs it (the tests check
that none is held across a device call over resident chunks). Recording costs two `perf_counter` calls and a list
append per span; without a `timeline()` open it costs one global read.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Span:
    """One interval of a worker thread: `what` (a task's name), `phase` (`task`, `device` or `lock`)."""

    thread: str
    device: str
    what: str
    phase: str
    start: float
    end: float

    @property
    def seconds(self) -> float:
        return self.end - self.start


@dataclass
class Timeline:
    """The spans recorded while a `timeline()` was open, and what they add up to."""

    spans: list[Span] = field(default_factory=list)
    markers: list[Any] = field(default_factory=list)
    """Markers on the devices' queues (`device_clock.mark`), where their queues keep profiling times."""
    started: float = field(default_factory=time.perf_counter)
    stopped: float | None = None

    def of(self, phase: str, device: str | None = None) -> list[Span]:
        return [s for s in self.spans if s.phase == phase and (device is None or s.device == device)]

    def devices(self) -> list[str]:
        return sorted({s.device for s in self.spans if s.phase == "device"})

    def busy(self, device: str) -> float:
        """Seconds in which `device` had a device call in flight (the union of its `device` spans)."""
        return _length(_union([(s.start, s.end) for s in self.of("device", device)]))

    def first_launches(self) -> dict[str, float]:
        """Per device, when its first device call began."""
        return {device: min(s.start for s in self.of("device", device)) for device in self.devices()}

    def start_skew(self) -> float:
        """Seconds between the first device call of the first device and that of the last device to start (0 with
        one device): how long a device waited for its host to give it work while another already had some."""
        starts = self.first_launches().values()
        return max(starts) - min(starts) if starts else 0.0

    def after_last_chunk(self) -> float:
        """Seconds from the end of the last chunk run inside a device group (its launch, as the partials stay on the
        device) to the end of the timeline: the wait for the devices, the read of the partials and the combining
        (0 without such chunks)."""
        ends = [s.end for s in self.of("chunk") if s.what in _CHUNK_STAGES]
        return (self.stopped if self.stopped is not None else time.perf_counter()) - max(ends) if ends else 0.0

    def overlap(self) -> float:
        """Seconds in which two devices or more had a device call in flight at once."""
        edges = sorted(
            (t, step)
            for device in self.devices()
            for start, end in _union([(s.start, s.end) for s in self.of("device", device)])
            for t, step in ((start, 1), (end, -1))
        )
        total, busy, since = 0.0, 0, 0.0
        for t, step in edges:
            if busy >= 2:
                total += t - since
            busy, since = busy + step, t
        return total

    def wall(self) -> float:
        return (self.stopped if self.stopped is not None else time.perf_counter()) - self.started

    def summary(self) -> dict[str, Any]:
        """Per device: busy seconds, device calls and tasks; the overlap; task counts by name; the time in which no
        task ran (`outside_tasks_s`: dask's scheduling and hand-offs, building the graph if it was recorded); the
        chunks run inside larger tasks and their host seconds; lock waits; threads."""
        tasks = self.of("task")
        per_device = {
            device: {
                "busy_s": self.busy(device),
                "device_calls": len(self.of("device", device)),
                "tasks": sum(1 for s in tasks if s.device == device),
                "threads": sorted({s.thread for s in self.of("device", device)}),
            }
            for device in self.devices()
        }
        locks = self.of("lock")
        chunks = self.of("chunk")
        return {
            "wall_s": self.wall(),
            "outside_tasks_s": self.wall() - _length(_union([(s.start, s.end) for s in tasks])),
            "chunks": len(chunks),
            "chunk_s": sum(s.seconds for s in chunks),
            "devices": per_device,
            "overlap_s": self.overlap(),
            "start_skew_s": self.start_skew(),
            "after_last_chunk_s": self.after_last_chunk(),
            "tasks": dict(Counter(s.what for s in tasks)),
            "task_s": sum(s.seconds for s in tasks),
            "lock_waits": len(locks),
            "lock_wait_s": sum(s.seconds for s in locks),
            "threads": len({s.thread for s in self.spans}),
        }

    def report(self) -> str:
        """`summary()` as lines of text."""
        summary = self.summary()
        lines = [f"wall {summary['wall_s'] * 1e3:.2f} ms, {summary['threads']} threads"]
        for device, row in summary["devices"].items():
            lines.append(
                f"  device {device}: busy {row['busy_s'] * 1e3:.2f} ms in {row['device_calls']} device calls, "
                f"{row['tasks']} tasks, threads {', '.join(row['threads'])}"
            )
        lines.append(
            f"  overlap of the devices: {summary['overlap_s'] * 1e3:.2f} ms; "
            f"their first launches {summary['start_skew_s'] * 1e3:.2f} ms apart"
        )
        lines.append(f"  tasks: {summary['tasks']} ({summary['task_s'] * 1e3:.2f} ms in all)")
        lines.append(f"  lock waits: {summary['lock_waits']} ({summary['lock_wait_s'] * 1e3:.3f} ms)")
        lines.append(f"  outside tasks: {summary['outside_tasks_s'] * 1e3:.2f} ms")
        if summary["chunks"]:
            lines.append(f"  chunks in device groups: {summary['chunks']} ({summary['chunk_s'] * 1e3:.2f} ms)")
        return "\n".join(lines)

    def by_thread(self) -> dict[str, list[Span]]:
        threads: dict[str, list[Span]] = defaultdict(list)
        for s in sorted(self.spans, key=lambda s: s.start):
            threads[s.thread].append(s)
        return dict(threads)


_CHUNK_STAGES = ("soac-program", "soac-hist-chunk")
"""The stages a device group runs on its chunks (the combining stages run after them)."""

_ACTIVE: Timeline | None = None


@contextlib.contextmanager
def timeline() -> Iterator[Timeline]:
    """Record the spans of soac.lang.dask's tasks in this process until the block ends (one timeline at a time)."""
    global _ACTIVE
    if _ACTIVE is not None:
        raise RuntimeError("sd.timeline() is already recording")
    _ACTIVE = recording = Timeline()
    try:
        yield recording
    finally:
        recording.stopped = time.perf_counter()
        _ACTIVE = None


def span(what: str, phase: str, device: str | None) -> contextlib.AbstractContextManager[None]:
    """Record the block as a span of the open timeline (nothing when none is open: a shared null context, as this is
    on every chunk's path); a `task` inside a task is a `chunk`."""
    if _ACTIVE is None:
        return _NOTHING
    return _recorded(what, phase, device)


_NOTHING = contextlib.nullcontext()


@contextlib.contextmanager
def _recorded(what: str, phase: str, device: str | None) -> Iterator[None]:
    recording = _ACTIVE
    if recording is None:
        yield
        return
    nested = phase == "task" and getattr(_IN_TASK, "depth", 0) > 0
    phase = "chunk" if nested else phase
    _IN_TASK.depth = getattr(_IN_TASK, "depth", 0) + (phase in ("task", "chunk"))
    start = time.perf_counter()
    try:
        yield
    finally:
        end = time.perf_counter()
        _IN_TASK.depth -= phase in ("task", "chunk")
        recording.spans.append(Span(threading.current_thread().name, device or "default", what, phase, start, end))


_IN_TASK = threading.local()


def record_span(what: str, phase: str, device: str | None, start: float) -> None:
    """Record a span from `start` (a `time.perf_counter` time) to now in the open timeline (nothing when none is
    open): an interval that no block encloses, such as a device's work that ends with its read while other devices'
    reads go first."""
    if (recording := _ACTIVE) is not None:
        end = time.perf_counter()
        recording.spans.append(Span(threading.current_thread().name, device or "default", what, phase, start, end))


_HELD = threading.local()


def held_locks() -> tuple[str, ...]:
    """The names of the soac.lang.dask locks (`NamedLock`) the calling thread holds, innermost last."""
    return tuple(getattr(_HELD, "names", ()))


class NamedLock:
    """A lock (re-entrant if `reentrant`) that records the wait to take it in the open timeline, and that
    `held_locks()` reports while the calling thread holds it."""

    def __init__(self, name: str, reentrant: bool = False):
        self.name = name
        self.lock: Any = threading.RLock() if reentrant else threading.Lock()

    def __enter__(self) -> NamedLock:
        if self.lock.acquire(blocking=False):
            pass
        elif _ACTIVE is None:
            self.lock.acquire()
        else:
            with span(self.name, "lock", None):
                self.lock.acquire()
        _HELD.names = (*held_locks(), self.name)
        return self

    def __exit__(self, *_: object) -> None:
        names = held_locks()
        _HELD.names = names[:-1]
        self.lock.release()

    def __repr__(self) -> str:
        return f"NamedLock({self.name!r})"


def _union(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _length(intervals: list[tuple[float, float]]) -> float:
    return sum(end - start for start, end in intervals)


__all__ = ["NamedLock", "Span", "Timeline", "held_locks", "record_span", "span", "timeline"]
