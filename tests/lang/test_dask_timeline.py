"""soac.lang.dask over resident chunks on several devices (issue 29): the timeline, device groups, and no lock held
while a device works.

The devices are two different OpenCL devices where there are two (two PoCL platforms here), else one device named
twice: either way each device group has its own worker thread. Nothing here depends on timing: concurrency is shown
by a barrier that both groups' first device calls must reach (a lock held across a device call would leave one
thread waiting for the lock, and the barrier would break), and by the locks each device call finds held.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import dask
import dask.array as da
import numpy as np
import pyopencl as cl
import pytest
import soac.lang as sl
import soac.lang.dask as sd
from soac.lang.dask.groups import INTERLEAVE_KEY, join_on_device
from soac.lang.jit import Compiled
from soac.lowering.runtime import choose_device, memory_of

VALUES = np.arange(12, dtype=np.int64)
VALUES[11] = -1
"""The last valid value (not -1) of each chunk differs: a reduce that put the chunks out of order would see it."""
LAYOUTS = {"uneven": (5, 1, 4, 2), "empty chunks": (0, 7, 0, 0, 5, 0), "one chunk": (12,)}


def _specs() -> list[str]:
    return [f"{p}:{d}" for p, platform in enumerate(cl.get_platforms()) for d in range(len(platform.get_devices()))]


PAIRS = {"two devices": tuple(_specs()[:2]) if len(_specs()) > 1 else None, "one device twice": ("0:0", "0:0")}


def last_valid(a: sl.Scalar, b: sl.Scalar) -> sl.Scalar:
    return sl.where(b == -1, a, b)


def last_valid_value(xs):
    return sl.reduce(last_valid, -1, xs)


def argmin_and_sum(xs, ix):
    def least(a, b):
        later_is_less = b[0] < a[0]
        return sl.where(later_is_less, b[0], a[0]), sl.where(later_is_less, b[1], a[1])

    return sl.reduce(least, (np.int64(1 << 40), np.int64(-1)), xs, ix)


def counts(xs):
    return sl.hist(sl.replicate(3, 0), lambda a, b: a + b, 0, sl.map(lambda x: x % 3, xs), sl.map(lambda x: 1, xs))


def weighted_total(xs, weights, k):
    """A chunked argument, a whole numpy array and a scalar: every task uploads the whole array on a GPU."""
    return sl.sum(sl.map(lambda x: weights[x % 4] * sl.f64(x) + k, xs))


@pytest.fixture(params=list(PAIRS), ids=list(PAIRS))
def devices(request: pytest.FixtureRequest) -> tuple[str, ...]:
    pair = PAIRS[request.param]
    if pair is None:
        pytest.skip("one OpenCL device here: 'one device twice' covers the threads")
    return pair


def resident(values: np.ndarray, layout: tuple[int, ...], devices: tuple[str, ...]) -> da.Array:
    return sd.persist(da.from_array(values, chunks=(layout,)), devices=devices, scheduler="threads")


MODES = {
    "interleaved, joined": (True, "64 MiB", True),
    "interleaved, chunk by chunk": (True, 0, True),
    "a task per device, joined": (True, "64 MiB", False),
    "a task per device, chunk by chunk": (True, 0, False),
    "per chunk": (False, 0, False),
}
"""Device groups in one task (interleaved, the default) or a task each, joined or chunk by chunk; or a task per chunk."""


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("layout", list(LAYOUTS.values()), ids=list(LAYOUTS))
def test_reduce_and_hist_over_resident_chunks_on_three_groups(layout: tuple[int, ...], mode: str) -> None:
    """Runs of chunks on three device groups: the groups' partials come back in chunk order (the operator does not
    commute), joined into one launch per group or chunk by chunk."""
    places = ("0:0", "0:0", "0:0")
    xs = resident(VALUES, layout, places)
    ix = resident(np.arange(12, dtype=np.int64), layout, places)
    grouped, join_bytes, interleaved = MODES[mode]
    config = {sd.DEVICE_GROUPS_KEY: grouped, "soac.join-bytes": join_bytes, INTERLEAVE_KEY: interleaved}
    with dask.config.set(config), sd.timeline() as tl:
        last = sd.jit(last_valid_value, devices=places)(xs).compute(scheduler="threads", num_workers=3)
        least = sd.jit(argmin_and_sum, devices=places)(xs, ix)
        value, index = dask.compute(*least, scheduler="threads", num_workers=3)
        bins = sd.jit(counts, devices=places)(xs).compute(scheduler="threads", num_workers=3)
    assert last == 10
    assert (value, index) == (-1, 11)
    np.testing.assert_array_equal(bins, np.bincount(np.mod(VALUES, 3), minlength=3))
    tasks = tl.summary()["tasks"]
    groups = min(3, len(layout))
    if not grouped:
        assert "soac-device-group" not in tasks
        assert tasks["soac-program"] == 2 * len(layout)
        return
    if interleaved:
        assert tasks["soac-device-groups"] == 3  # one task a program
        assert "soac-device-group" not in tasks
        assert len({s.device for s in tl.of("device")}) == 1  # three groups on one device named thrice
    else:
        assert tasks["soac-device-group"] == 3 * groups  # three programs
        assert tasks["soac-combine-groups"] == 3
    assert "soac-program" not in tasks
    runs = len([s for s in tl.of("chunk") if s.what in ("soac-program", "soac-hist-chunk")])
    assert runs == 3 * (groups if join_bytes else len(layout))  # a launch per group, or per chunk


@pytest.mark.parametrize("join_bytes", ["64 MiB", 0], ids=["joined per device", "a task per chunk"])
@pytest.mark.parametrize("layout", list(LAYOUTS.values()), ids=list(LAYOUTS))
def test_small_host_chunks_are_joined_per_device(layout: tuple[int, ...], join_bytes: str | int) -> None:
    """Host chunks of at most `soac.join-bytes` a device: one upload and one launch per device group; with joins
    off, dask's per-chunk reduction (the path of host arrays too large to join)."""
    places = ("0:0", "0:0", "0:0")
    xs = da.from_array(VALUES, chunks=(layout,))
    ix = da.from_array(np.arange(12, dtype=np.int64), chunks=(layout,))
    with dask.config.set({"soac.join-bytes": join_bytes}), sd.timeline() as tl:
        last = sd.jit(last_valid_value, devices=places)(xs).compute(scheduler="threads", num_workers=3)
        value, index = dask.compute(*sd.jit(argmin_and_sum, devices=places)(xs, ix), scheduler="threads", num_workers=3)
        bins = sd.jit(counts, devices=places)(xs).compute(scheduler="threads", num_workers=3)
    assert last == 10
    assert (value, index) == (-1, 11)
    np.testing.assert_array_equal(bins, np.bincount(np.mod(VALUES, 3), minlength=3))
    tasks = tl.summary()["tasks"]
    if join_bytes:  # a task per group (each uploads its chunks joined), then a combining task
        assert tasks["soac-device-group"] == 3 * min(3, len(layout))
        assert tasks["soac-combine-groups"] == 3
        assert len([s for s in tl.of("chunk") if s.what in ("soac-program", "soac-hist-chunk")]) == 3 * min(3, len(layout))
    else:
        assert "soac-device-group" not in tasks
        assert tasks["soac-program"] == 2 * len(layout)


def test_joined_chunks_are_copied_on_the_device() -> None:
    xs = resident(np.arange(10, dtype=np.float32), (3, 0, 4, 3), ("0:0",))
    blocks = [xs.blocks[k].compute(scheduler="synchronous") for k in range(4)]
    moved = sl.transfer_counts()
    moved.reset()
    joined = join_on_device(blocks)
    assert (moved.uploads, moved.downloads) == (0, 0)
    assert joined.shape == (10,)
    np.testing.assert_array_equal(joined.get(), np.arange(10, dtype=np.float32))


@pytest.fixture
def copying(devices: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> tuple[str, ...]:
    """The devices, copying through the pinned ring under their transfer locks as a GPU does."""
    for spec in set(devices):
        monkeypatch.setattr(memory_of(choose_device(spec)), "mode", "pinned")
    return devices


def test_one_thread_queues_the_groups_chunks_interleaved(copying: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    """By default one task queues every device group's chunks, interleaved (chunk 0 of each group, then chunk 1 of
    each), with no soac.lang.dask lock held at any device call, and reads the partials only after the last launch;
    the result keeps chunk order (the operator does not commute)."""
    values = np.where(np.arange(1 << 12) % 7 == 0, -1, np.arange(1 << 12)).astype(np.int64)
    values[-5:] = -1
    xs = resident(values, (1 << 10,) * 4, copying)
    program = sd.jit(last_valid_value, devices=copying)
    with dask.config.set({"soac.join-bytes": 0}):
        assert program(xs).compute(scheduler="threads", num_workers=2) == values[values != -1][-1]  # compiles
        chunks = {id(xs.blocks[k].compute(scheduler="synchronous")): k for k in range(4)}
        launched: list[tuple[int, tuple[str, ...], str]] = []
        run = Compiled.run

        def recorded(self: Compiled, args: Any, *rest: Any, **options: Any) -> Any:
            if "last_valid_value_program" in self.name:
                launched.append((chunks[id(args[0])], sd.held_locks(), threading.current_thread().name))
            return run(self, args, *rest, **options)

        monkeypatch.setattr(Compiled, "run", recorded)
        with sd.timeline() as tl:
            assert program(xs).compute(scheduler="threads", num_workers=2) == values[values != -1][-1]
    assert [chunk for chunk, _, _ in launched] == [0, 2, 1, 3]  # groups (0, 1) and (2, 3), interleaved
    assert {locks for _, locks, _ in launched} == {()}
    assert len({thread for _, _, thread in launched}) == 1
    last_launch = max(s.end for s in tl.of("chunk") if s.what == "soac-program")
    reads = [s for s in tl.of("device") if s.what == "soac-program" and s.start >= last_launch]
    assert len(reads) == 2  # a read of each group's partials, after every launch
    assert tl.summary()["tasks"] == {"soac-device-groups": 1}


@pytest.fixture
def task_per_group() -> Iterator[None]:
    with dask.config.set({INTERLEAVE_KEY: False}):
        yield


@pytest.mark.usefixtures("task_per_group")
def test_device_groups_run_at_once_with_no_lock_held(copying: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    """With a task per device group (`soac.interleave-groups: False`), each group's first device call waits for the
    other group's: both threads are inside a device call at the same time, and neither holds a soac.lang.dask lock
    there (the whole array is uploaded under the transfer lock first)."""
    xs = resident((np.arange(1 << 16) % 1000).astype(np.int64), (1 << 14,) * 4, copying)
    weights = np.array([0.5, 1.0, 1.5, 2.0])
    program = sd.jit(weighted_total, devices=copying)
    expected = float(np.sum(weights[np.arange(1 << 16) % 1000 % 4] * (np.arange(1 << 16) % 1000) + 0.25))
    assert program(xs, weights, 0.25).compute(scheduler="threads", num_workers=2) == pytest.approx(expected)  # compiles
    barrier = threading.Barrier(2, timeout=60)
    seen: dict[int, tuple[str, ...]] = {}
    run = Compiled.run

    def run_when_both_are_here(self: Compiled, args: Any, *rest: Any, **options: Any) -> Any:
        thread = threading.get_ident()
        if thread not in seen and "weighted_total_program" in self.name:
            seen[thread] = sd.held_locks()
            barrier.wait()  # a lock held across a device call would keep the other thread from coming: it breaks
        return run(self, args, *rest, **options)

    monkeypatch.setattr(Compiled, "run", run_when_both_are_here)
    with sd.timeline() as tl:
        assert program(xs, weights, 0.25).compute(scheduler="threads", num_workers=2) == pytest.approx(expected)
    assert sorted(seen.values()) == [(), ()]
    assert not barrier.broken
    assert tl.summary()["tasks"]["soac-device-group"] == 2
    assert len({s.thread for s in tl.of("chunk")}) == 2  # a thread per group


def test_timeline_measures_busy_time_and_overlap() -> None:
    """The summary's arithmetic on spans made by hand: two devices busy 3 and 2 units, at once for 1."""
    tl = sd.Timeline()
    for device, start, end in (("a", 0.0, 2.0), ("a", 1.0, 3.0), ("b", 2.0, 4.0), ("b", 5.0, 5.0)):
        tl.spans.append(sd.Span("t", device, "soac-program", "device", start, end))
    tl.spans.append(sd.Span("t", "a", "soac-program", "task", 0.0, 3.0))
    assert tl.busy("a") == 3.0
    assert tl.busy("b") == 2.0
    assert tl.overlap() == 1.0
    summary = tl.summary()
    assert summary["devices"]["a"]["device_calls"] == 2
    assert summary["tasks"] == {"soac-program": 1}
    assert "overlap of the devices: 1000.00 ms" in tl.report()
    assert tl.start_skew() == 2.0  # b's first launch came 2 units after a's
    tl.spans.append(sd.Span("t", "b", "soac-program", "chunk", 4.0, 4.5))
    tl.stopped = 6.0
    assert tl.after_last_chunk() == 1.5


def test_timeline_is_off_unless_open_and_one_at_a_time() -> None:
    xs = resident(VALUES, (6, 6), ("0:0",))
    program = sd.jit(last_valid_value)
    with sd.timeline() as tl:
        assert program(xs).compute(scheduler="threads", num_workers=1) == 10
        with pytest.raises(RuntimeError, match="already recording"), sd.timeline():
            pass
    recorded = len(tl.spans)
    assert recorded
    assert {s.phase for s in tl.spans} >= {"task", "chunk", "device"}
    assert program(xs).compute(scheduler="threads", num_workers=1) == 10
    assert len(tl.spans) == recorded


def sum_of_halves(xs):
    return sl.sum(sl.map(lambda x: 0.5 * x * x + 1.0, xs))


@pytest.mark.parametrize("layout", [(5, 1, 4, 2), (0, 7, 0, 0, 5, 0), (3, 3, 3, 3)], ids=["uneven", "empty", "even"])
def test_device_group_chunks_are_read_once_per_group(layout: tuple[int, ...]) -> None:
    """A device group run chunk by chunk leaves each chunk's partial on the device (no blocking read between its
    chunks' launches), gathers them there and reads them with one copy; the groups' partials are combined in chunk
    order."""
    places = ("0:0", "0:0")
    xs = resident(VALUES, layout, places)
    floats = resident(np.linspace(-3, 5, 12).astype(np.float32), layout, places)
    last, total = sd.jit(last_valid_value, devices=places), sd.jit(sum_of_halves, devices=places)
    with dask.config.set({"soac.join-bytes": 0}):
        compute = lambda graph: graph.compute(scheduler="threads", num_workers=2)  # noqa: E731
        compute(last(xs)), compute(total(floats))  # compiles
        moved = sl.transfer_counts("0:0")
        moved.reset()
        assert compute(last(xs)) == 10
        halves = np.linspace(-3, 5, 12).astype(np.float32).astype(np.float64)
        np.testing.assert_allclose(compute(total(floats)), (0.5 * halves**2 + 1).sum(), rtol=1e-6)
    assert moved.element_reads == 1  # last_valid's combining program's result only: no chunk's partial read on its
    # own, and the sum's partials folded on the host (`host_fold`)
    assert moved.downloads == 2 * 2  # each group's partials gathered on its device, read with one copy
    assert moved.download_bytes == len(layout) * (8 + 4)  # every chunk's partial: an int64, then a float32


def test_every_devices_partials_are_read_before_any_is_waited_for() -> None:
    """After the last chunk's launch, the groups' reads of their partials are all enqueued before the first is
    waited for: with the first device held (a user event on its queue), the second device's partials are read
    (downloaded) while the first device has run none of its chunks; the result is right once it runs."""
    import time

    if (devices := PAIRS["two devices"]) is None:
        pytest.skip("one OpenCL device here: a held queue would hold both groups")
    values = np.linspace(-3, 5, 16).astype(np.float32)
    floats = resident(values, (4, 4, 4, 4), devices)
    total = sd.jit(sum_of_halves, devices=devices)
    halves = values.astype(np.float64)
    expected = (0.5 * halves**2 + 1).sum()
    first, second = memory_of(choose_device(devices[0])), memory_of(choose_device(devices[1]))
    with dask.config.set({"soac.join-bytes": 0}):
        np.testing.assert_allclose(total(floats).compute(), expected, rtol=1e-6)  # compiles; nothing pending
        second.counts.reset()
        gate = cl.UserEvent(first.context)
        cl.enqueue_marker(first.queue, wait_for=[gate])
        results: list[Any] = []
        thread = threading.Thread(target=lambda: results.append(total(floats).compute()))
        thread.start()
        deadline = time.monotonic() + 30
        while second.counts.downloads == 0 and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        read_while_held = second.counts.downloads
        gate.set_status(cl.command_execution_status.COMPLETE)
        thread.join()
    assert read_while_held == 1  # the second group's gathered partials, with the first device still held
    np.testing.assert_allclose(results[0], expected, rtol=1e-6)


def test_a_grouped_result_computes_with_other_collections() -> None:
    """A grouped result over persisted chunks skips dask's array optimisations (`ReadyArray`); arrays made from it
    and computed beside other collections are plain dask arrays."""
    from soac.lang.dask.groups import ReadyArray

    places = ("0:0", "0:0")
    floats = resident(np.linspace(-3, 5, 12).astype(np.float32), (5, 1, 4, 2), places)
    total = sd.jit(sum_of_halves, devices=places)(floats)
    assert type(total) is ReadyArray
    halves = np.linspace(-3, 5, 12).astype(np.float32).astype(np.float64)
    expected = (0.5 * halves**2 + 1).sum()
    shifted, ones = dask.compute(total + 1, da.ones(3, chunks=2).sum(), scheduler="threads", num_workers=2)
    np.testing.assert_allclose(shifted, expected + 1, rtol=1e-6)
    assert ones == 3


def potential(x, m, bx, bm, eps):
    def body(xi, mi):
        return mi * sl.sum(sl.map(lambda xj, mj: mj / sl.sqrt((xi - xj) * (xi - xj) + eps), bx, bm))

    return sl.sum(sl.map(body, x, m))


@pytest.mark.parametrize("join_bytes", ["64 MiB", 0], ids=["joined", "chunk by chunk"])
def test_chunk_programs_of_bodies_against_all_bodies_are_tiled(join_bytes: str | int) -> None:
    """The GPUs' pipeline (TILED_PIPELINE, here on PoCL with local-memory tiles) tiles the chunk program of bodies i
    against all bodies j (bench/dask_scaling.py's nbody), joined per device or chunk by chunk."""
    from soac.lang.dask.workers import stage_programs
    from soac.passes import TILED_PIPELINE

    places = ("0:0", "0:0")
    rng = np.random.default_rng(2)
    bodies, mass = rng.random(45), rng.random(45) + 0.5
    layout = (10, 1, 13, 0, 21)
    x, m = (resident(a, layout, places) for a in (bodies, mass))
    f = sd.jit(potential, devices=places, pipeline=TILED_PIPELINE, lowering={"target": "generic"})
    with dask.config.set({"soac.join-bytes": join_bytes}):
        got = f(x, m, bodies, mass, 1e-3).compute(scheduler="threads", num_workers=2)
    pairs = mass[None, :] / np.sqrt((bodies[:, None] - bodies[None, :]) ** 2 + 1e-3)
    np.testing.assert_allclose(got, (mass * pairs.sum(1)).sum(), rtol=1e-12)
    programs = [compiled for role, _, compiled in stage_programs("potential") if role == "program"]
    assert programs
    assert all("soac.tiled_redomap" in compiled.optimized_text for compiled in programs)


def looked_up(xs, table):
    return sl.sum(sl.map(lambda x: table[x], xs))


@pytest.mark.parametrize("bad", [1, 5, 11], ids=["first group's first chunk", "middle", "last chunk"])
def test_a_failing_chunk_of_a_group_names_the_users_line(bad: int) -> None:
    """A kernel failing in a device group whose partials stay on the device is reported (by the next chunk's call,
    or by the read of the group's partials) with the user's line; the next compute is right."""
    from soac.lowering.runtime.errors import ProgramError

    places = ("0:0", "0:0")
    table = np.arange(5, dtype=np.int64)
    f = sd.jit(looked_up, devices=places)
    values = np.arange(12, dtype=np.int64) % 5
    wrong = values.copy()
    wrong[bad] = 7
    with dask.config.set({"soac.join-bytes": 0}):
        xs = resident(wrong, (3, 3, 3, 3), places)
        with pytest.raises(ProgramError, match=r"test_dask_timeline.py:\d+:\d+: 'soac.index': index 7 is out of bounds"):
            f(xs, table).compute(scheduler="threads", num_workers=2)
        assert f(resident(values, (3, 3, 3, 3), places), table).compute(scheduler="threads", num_workers=2) == values.sum()


def test_a_device_group_puts_a_whole_array_on_its_device_once() -> None:
    """A whole numpy array that every chunk of a group takes goes to the group's device once, not once per chunk
    (a GPU would copy it at every call; PoCL would wait at the end of every call that reads host memory)."""
    places = ("0:0", "0:0")
    xs = resident(VALUES, (3, 3, 3, 3), places)
    weights = np.array([0.5, -1.0, 2.0, 0.25])
    f = sd.jit(weighted_total, devices=places)
    expected = (weights[np.mod(VALUES, 4)] * VALUES + 1.5).sum()
    with dask.config.set({"soac.join-bytes": 0}):
        f(xs, weights, 1.5).compute(scheduler="threads", num_workers=2)  # compiles
        moved = sl.transfer_counts("0:0")
        moved.reset()
        np.testing.assert_allclose(f(xs, weights, 1.5).compute(scheduler="threads", num_workers=2), expected, rtol=1e-12)
    assert moved.uploads == 2  # one per group
    assert moved.zero_copy == 0  # not the weights at every chunk (the sum's partials are folded on the host)


def shifted_last_valid(xs, k):
    return sl.reduce(last_valid, -1, sl.map(lambda x: sl.where(x == -1, x, x + k), xs))


@pytest.mark.parametrize("scheduler", ["threads", "sync", None])
@pytest.mark.parametrize("layout", list(LAYOUTS.values()), ids=list(LAYOUTS))
def test_a_resident_reduce_runs_in_the_calling_thread(layout: tuple[int, ...], scheduler: str | None) -> None:
    """Under a local scheduler, computing device groups over persisted chunks runs their one task in the calling
    thread (no dask scheduler), in chunk order, as `dask.compute` does through dask."""
    places = ("0:0", "0:0")
    xs = resident(VALUES, layout, places)
    f = sd.jit(shifted_last_valid, devices=places)
    with dask.config.set({"soac.join-bytes": 0}):
        with sd.timeline() as tl:
            direct = f(xs, 100).compute(scheduler=scheduler)
        (through_dask,) = dask.compute(f(xs, 100), scheduler=scheduler or "threads")
    assert direct == through_dask == 110
    assert {s.thread for s in tl.of("task")} == {threading.current_thread().name}
    bins = sd.jit(counts, devices=places)(xs).compute(scheduler=scheduler)
    np.testing.assert_array_equal(bins, np.bincount(np.mod(VALUES, 3), minlength=3))


def test_dask_runs_the_task_under_a_callback_or_another_scheduler() -> None:
    """A dask callback (a progress bar, a profiler) sees the task: the compute goes through dask's scheduler."""
    from dask.callbacks import Callback

    places = ("0:0", "0:0")
    xs = resident(VALUES, (5, 1, 4, 2), places)
    seen: list[Any] = []
    with Callback(start_state=lambda dsk, state: seen.append(len(dsk))), sd.timeline() as tl:
        assert sd.jit(last_valid_value, devices=places)(xs).compute(scheduler="threads") == 10
    assert len(seen) == 1  # dask started the graph (its task and its finalising one)
    assert {s.thread for s in tl.of("task")} != {threading.current_thread().name}


def test_graphs_over_resident_chunks_are_kept_for_the_same_arguments() -> None:
    """The same resident arrays, equal scalars and settings give the graph made before; anything else a new one."""
    places = ("0:0", "0:0")
    xs = resident(VALUES, (5, 1, 4, 2), places)
    f = sd.jit(shifted_last_valid, devices=places)
    first = f(xs, 100)
    assert f(xs, 100) is first
    assert f(xs, 200) is not first
    assert f(xs, 200).compute() == 210
    with dask.config.set({"soac.join-bytes": 0}):
        assert f(xs, 100) is not first
        assert f(xs, 100).compute() == 110
    assert f(resident(VALUES, (5, 1, 4, 2), places), 100) is not first
    on_host = da.from_array(VALUES, chunks=(5, 1, 4, 2))
    assert f(on_host, 100) is not f(on_host, 100)  # host chunks: a new graph each call
    assert first.compute() == 110
    assert f.ready
    del xs, first
    gc.collect()
    assert not f.ready  # a collected array's graphs are forgotten, with the chunks they hold


def last_valid_product(xs, ws):
    return sl.reduce(last_valid, -1, sl.map(lambda x, w: sl.where(x == -1, x, x * w), xs, ws))


@pytest.mark.parametrize("layout", list(LAYOUTS.values()), ids=list(LAYOUTS))
def test_chunks_persisted_on_other_devices_are_moved_to_their_groups(layout: tuple[int, ...]) -> None:
    """Two resident arrays placed in opposite orders: each chunk runs on its first array's device (the other's chunk
    copied there), and the interleaved groups still combine in chunk order."""
    pair = PAIRS["two devices"]
    if pair is None:
        pytest.skip("one OpenCL device here")
    xs = resident(VALUES, layout, pair)
    ws = resident(np.arange(12, dtype=np.int64) % 3 + 1, layout, pair[::-1])
    expected = VALUES * (np.arange(12) % 3 + 1)
    expected = expected[VALUES != -1][-1]
    with dask.config.set({"soac.join-bytes": 0}):
        assert sd.jit(last_valid_product, devices=pair)(xs, ws).compute() == expected
    assert sd.jit(last_valid_product, devices=pair)(xs, ws).compute() == expected  # joined per group


def test_device_clock_marks_each_chunk_of_a_group_and_its_read() -> None:
    """With a profiling queue on the device, a device group's chunks get a marker before and after each and one after
    the read; their times, put on the host clock, come in order: queued before done, done before read."""
    from soac.lang.dask.device_clock import device_times

    device = choose_device("0:0")
    memory = memory_of(device)
    plain = memory.queue
    memory.use_queue(cl.CommandQueue(memory.context, device, cl.command_queue_properties.PROFILING_ENABLE))
    try:
        floats = np.linspace(-3, 5, 12).astype(np.float32)
        xs = resident(floats, (5, 1, 4, 2), ("0:0",))
        program = sd.jit(sum_of_halves, devices=("0:0",))
        with dask.config.set({"soac.join-bytes": 0}):
            program(xs).compute(scheduler="threads", num_workers=1)  # compiles
            with sd.timeline() as tl:
                total = program(xs).compute(scheduler="threads", num_workers=1)
    finally:
        memory.use_queue(plain)
    np.testing.assert_allclose(total, (0.5 * floats.astype(np.float64) ** 2 + 1).sum(), rtol=1e-6)
    assert [m.what for m in tl.markers] == [f"{side} {i}" for i in range(4) for side in ("before", "after")] + ["read"]
    (times,) = device_times(tl.markers, tl.started).values()
    assert 0 <= times["first_queued_s"] <= times["last_queued_s"] <= times["chunks_done_s"] <= times["read_done_s"]
    assert times["waited_s"] >= 0
    assert 0 < times["chunks_s"] <= times["chunks_done_s"]
    assert times["read_done_s"] <= tl.stopped - tl.started


def test_device_clock_marks_nothing_without_a_profiling_queue() -> None:
    xs = resident(VALUES, (6, 6), ("0:0",))
    with dask.config.set({"soac.join-bytes": 0}), sd.timeline() as tl:
        sd.jit(last_valid_value, devices=("0:0",))(xs).compute(scheduler="threads", num_workers=1)
    assert tl.markers == []
