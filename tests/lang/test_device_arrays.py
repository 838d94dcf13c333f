"""Device arrays in soac.lang (`sl.device_put`, jitted calls on them) and the transfers behind the numpy call: what
moves between the host and the device is counted (`sl.transfer_counts`) and, on PoCL, what pyopencl is asked to copy."""

from __future__ import annotations

import gc

import numpy as np
import pyopencl as cl
import pytest
import soac.lang as sl
from soac.lowering.runtime import device_memory
from soac.lowering.runtime import program as runtime
from soac.lowering.runtime.device_memory import DeviceMemory
from soac.lowering.runtime.errors import OpenCLRuntimeError, ProgramError


@sl.jit
def scaled(xs):
    return sl.map(lambda x: 2 * x + 1, xs)


@sl.jit
def row_sums(m):
    return sl.map(lambda row: sl.sum(row), m)


@sl.jit
def total_and_shifted(xs):
    return sl.sum(xs), sl.map(lambda x: x - 1, xs)


@pytest.fixture
def memory() -> DeviceMemory:
    return runtime.memory_of(runtime.choose_device())


@pytest.fixture
def counts(memory: DeviceMemory) -> device_memory.TransferCounts:
    memory.counts.reset()
    return memory.counts


def test_device_put_round_trips(counts) -> None:
    for host in (
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.array([True, False, True]),
        np.arange(-3, 4, dtype=np.int64)[::2],  # not contiguous
    ):
        on_device = sl.device_put(host)
        assert isinstance(on_device, sl.DeviceArray)
        assert (on_device.shape, on_device.dtype, on_device.ndim) == (host.shape, host.dtype, host.ndim)
        assert len(on_device) == len(host)
        np.testing.assert_array_equal(on_device.get(), host)
        np.testing.assert_array_equal(np.asarray(on_device), host)
        assert sl.device_put(on_device) is on_device
        with pytest.raises(ValueError, match="without a copy"):
            np.asarray(on_device, copy=False)
    assert (counts.uploads, counts.downloads) == (3, 6)


def test_device_put_copies(counts) -> None:
    host = np.arange(5, dtype=np.int32)
    on_device = sl.device_put(host)
    host[:] = 0  # the device array is a copy, even where a numpy call would use this memory itself
    np.testing.assert_array_equal(on_device.get(), np.arange(5))


def test_device_put_of_what_soac_has_no_array_of_says_why() -> None:
    with pytest.raises(OpenCLRuntimeError, match="scalars stay on the host"):
        sl.device_put(np.float32(1))
    with pytest.raises(OpenCLRuntimeError, match="a complex64 array: soac has arrays of bool, integers and floats"):
        sl.device_put(np.zeros(3, np.complex64))


def test_chained_calls_move_nothing(counts) -> None:
    rng = np.random.default_rng(0)
    host = rng.standard_normal((50, 30)).astype(np.float32)
    m = sl.device_put(host)
    assert (counts.uploads, counts.upload_bytes) == (1, host.nbytes)
    sums = row_sums(scaled(m))  # device arrays in: results stay on the device
    total, shifted = total_and_shifted(scaled(sums))
    assert isinstance(sums, sl.DeviceArray)
    assert isinstance(shifted, sl.DeviceArray)
    assert (counts.uploads, counts.downloads, counts.zero_copy) == (1, 0, 0), counts
    assert counts.error_checks == 0  # no call waited for the device (the sum's value was read: element_reads)
    expected_sums = (2 * host + 1).sum(axis=1)
    np.testing.assert_allclose(shifted.get(), 2 * expected_sums + 1 - 1, rtol=1e-5)
    np.testing.assert_allclose(total, (2 * expected_sums + 1).sum(), rtol=1e-4)
    assert counts.downloads == 1


def test_device_results_option() -> None:
    xs = np.arange(6, dtype=np.int32)
    keep = sl.jit(scaled.fn, device_results=True)
    back = sl.jit(scaled.fn, device_results=False)
    on_device = keep(xs)
    assert isinstance(on_device, sl.DeviceArray)
    np.testing.assert_array_equal(on_device.get(), 2 * xs + 1)
    host = back(sl.device_put(xs))
    assert type(host) is np.ndarray
    np.testing.assert_array_equal(host, 2 * xs + 1)
    assert type(scaled(xs)) is np.ndarray  # numpy in, numpy out, as always


def test_interpreter_reads_device_arrays_back() -> None:
    interpreted = sl.jit(scaled.fn, backend="interp")
    np.testing.assert_array_equal(interpreted(sl.device_put(np.arange(4, dtype=np.int64))), 2 * np.arange(4) + 1)


def test_collected_arrays_give_their_buffer_to_the_pool(memory: DeviceMemory) -> None:
    on_device = scaled(sl.device_put(np.arange(1000, dtype=np.float64)))
    nbytes = on_device.nbytes
    kept = len(memory.pool.free.get(nbytes, []))
    del on_device
    gc.collect()
    assert len(memory.pool.free.get(nbytes, [])) == kept + 1


def test_wrong_device_array_type_is_reported() -> None:
    program = scaled.specialize(np.zeros(3, np.int32)).runner  # the runtime's Program, called directly
    with pytest.raises(ProgramError, match=r"argument #0 of @scaled: expected tensor<\?xi32>, got a float32 device array"):
        program.call("scaled", [sl.device_put(np.zeros(3, np.float32))])
    with pytest.raises(ProgramError, match=r"got a int32 device array of shape \(2, 2\)"):
        program.call("scaled", [sl.device_put(np.zeros((2, 2), np.int32))])


# -- the numpy call's transfers ------------------------------------------------------------------


def _host_copies(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What pyopencl is asked to copy from host memory to the device from now on: writes and COPY_HOST_PTR buffers."""
    copies: list[str] = []
    enqueue_copy, buffer = cl.enqueue_copy, cl.Buffer

    def counting_copy(queue, dest, src, **kwargs):
        if isinstance(dest, cl.MemoryObjectHolder) and not isinstance(src, cl.MemoryObjectHolder):
            copies.append(f"write of {np.asarray(src).nbytes} bytes")
        return enqueue_copy(queue, dest, src, **kwargs)

    def counting_buffer(context, flags, size=0, hostbuf=None):
        if flags & cl.mem_flags.COPY_HOST_PTR:
            copies.append("COPY_HOST_PTR buffer")
        return buffer(context, flags, size, hostbuf)

    monkeypatch.setattr(cl, "enqueue_copy", counting_copy)
    monkeypatch.setattr(cl, "Buffer", counting_buffer)
    return copies


def test_numpy_call_copies_no_input_on_a_cpu_device(memory: DeviceMemory, counts, monkeypatch) -> None:
    if memory.mode != "zero-copy":
        pytest.skip(f"{memory.device.name} is not a CPU device")
    xs = np.arange(10_000, dtype=np.float32)
    m = np.ones((20, 30), np.float32)
    scaled(xs), row_sums(m)  # compiled and run once
    counts.reset()
    copies = _host_copies(monkeypatch)
    got = scaled(xs)
    sums = row_sums(m)
    assert copies == []
    assert (counts.uploads, counts.zero_copy) == (0, 2), counts
    np.testing.assert_array_equal(got, 2 * xs + 1)
    np.testing.assert_array_equal(sums, np.full(20, 30, np.float32))


def test_zero_copy_inputs_are_the_numpy_memory(memory: DeviceMemory) -> None:
    if memory.mode != "zero-copy":
        pytest.skip(f"{memory.device.name} is not a CPU device")
    xs = np.arange(1000, dtype=np.int32)
    uploaded = memory.upload(xs)
    assert uploaded.buffer.get_host_array((1000,), np.int32).ctypes.data == xs.ctypes.data


def test_zero_copy_results_never_alias_the_callers_memory() -> None:
    keep = sl.jit(lambda xs: xs, device_results=True, name="identity")
    xs = np.arange(8, dtype=np.int32)
    same, host = keep(xs), sl.jit(lambda xs: xs, name="identity")(xs)
    xs[:] = -1
    np.testing.assert_array_equal(same.get(), np.arange(8))
    np.testing.assert_array_equal(host, np.arange(8))


def test_scatter_into_an_argument_leaves_the_numpy_array_alone() -> None:
    @sl.jit
    def put(dest, indices, values):
        return sl.scatter(dest, indices, values)

    dest = np.zeros(6, np.int32)
    got = put(dest, np.array([1, 4], np.int64), np.array([7, 9], np.int32))
    np.testing.assert_array_equal(got, [0, 7, 0, 0, 9, 0])
    np.testing.assert_array_equal(dest, np.zeros(6))


# -- pinned staging (the GPU path), run on whatever device is here ------------------------------------------


@pytest.mark.parametrize("mode", ["pinned", "direct"])
def test_staged_transfers_give_the_same_arrays(memory: DeviceMemory, monkeypatch, mode: str) -> None:
    """Arrays larger than the ring go through it in chunks, the ring wrapping around, uploads and read-backs mixed."""
    monkeypatch.setattr(memory, "mode", mode)
    monkeypatch.setattr(memory, "_ring", None)
    monkeypatch.setattr(device_memory, "SMALL_TRANSFER", 64)
    monkeypatch.setattr(device_memory, "CHUNK", 1000)
    monkeypatch.setattr(device_memory, "RING_BYTES", 4096)
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(n).astype(np.float32) for n in (3, 700, 2500, 5000)]
    on_device = [memory.upload(a) for a in arrays]
    doubled = [scaled(sl.device_put(a)) for a in arrays]
    back = memory.download([(d, a.shape, a.dtype) for d, a in zip(on_device, arrays)])
    for a, b, d in zip(arrays, back, doubled):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(d.get(), 2 * a + 1)
    if mode == "pinned":
        assert memory._ring is not None
        assert memory._ring.capacity == 4096


# -- run-time failures of calls with device results ------------------------------------------------


@sl.jit
def shifted_gather(xs, offset):
    return sl.map(lambda j: xs[j + offset], sl.iota(xs.shape[0]))


def test_a_failure_with_device_results_is_raised_by_the_read_back(counts) -> None:
    xs = sl.device_put(np.arange(5, dtype=np.int64))
    np.testing.assert_array_equal(shifted_gather(xs, np.int64(0)).get(), np.arange(5))
    counts.reset()
    bad = shifted_gather(xs, np.int64(3))  # enqueued; nothing waits for the kernels
    assert counts.error_checks == 0
    with pytest.raises(ProgramError, match=r"test_device_arrays.py:\d+:\d+: 'soac.index': index [5-7] is out of bounds"):
        bad.get()
    np.testing.assert_array_equal(shifted_gather(xs, np.int64(0)).get(), np.arange(5))  # the failure is cleared


def test_a_failure_with_device_results_is_raised_by_the_next_call() -> None:
    xs = sl.device_put(np.arange(5, dtype=np.int64))
    shifted_gather(xs, np.int64(2))
    with pytest.raises(ProgramError, match=r"index [56] is out of bounds"):
        scaled(xs)
    np.testing.assert_array_equal(scaled(xs).get(), 2 * np.arange(5) + 1)
    with pytest.raises(ProgramError, match=r"index [56] is out of bounds"):  # numpy in: raised by the call itself
        shifted_gather(np.arange(5, dtype=np.int64), np.int64(2))


def test_the_pinned_ring_waits_for_every_copy_it_hands_out_again(memory: DeviceMemory) -> None:
    """A region is handed out again only after every copy that used it finished, older ones first, also when the ring
    wrapped early and an older lap's copies lie beyond the new region."""
    ring = device_memory.PinnedRing(memory.context, memory.queue, 100)
    finished: list[str] = []

    class Copy:
        def __init__(self, name: str):
            self.name = name

        def wait(self) -> None:
            finished.append(self.name)

    for name, nbytes in (("A", 30), ("B", 30), ("C", 35)):  # 0..30, 30..60, 60..95
        ring.track(ring.reserve(nbytes), nbytes, Copy(name))
    for name, nbytes in (("D", 30), ("E", 30)):  # wraps: 0..30 (after A), 30..60 (after B)
        ring.track(ring.reserve(nbytes), nbytes, Copy(name))
    assert finished == ["A", "B"]
    assert ring.reserve(45) == 0  # 60 + 45 > 100: wraps again, over D and E, with C still in flight
    assert finished == ["A", "B", "C", "D", "E"]


def test_numpy_results_on_a_cpu_device_are_the_mapped_buffers(memory: DeviceMemory, counts) -> None:
    """No copy out either: the result is the buffer, the caller's until collected, then the pool's again."""
    if memory.mode != "zero-copy":
        pytest.skip(f"{memory.device.name} is not a CPU device")
    xs = np.arange(3000, dtype=np.float32)
    scaled(xs)
    counts.reset()
    first = scaled(xs)
    assert (counts.lent, counts.downloads) == (1, 0)
    first[:] = -1  # the caller's to change
    second = scaled(xs + 1)  # a new buffer: the first result still holds its own
    np.testing.assert_array_equal(second, 2 * xs + 3)
    np.testing.assert_array_equal(first, -1)
    kept = len(memory.pool.free.get(first.nbytes, []))
    del first
    gc.collect()
    assert len(memory.pool.free.get(second.nbytes, [])) == kept + 1
    np.testing.assert_array_equal(scaled(xs), 2 * xs + 1)
    np.testing.assert_array_equal(second, 2 * xs + 3)


def test_a_result_returned_twice_or_from_the_arguments_is_copied(counts) -> None:
    twice = sl.jit(lambda xs: (sl.map(lambda x: x + 1, xs),) * 2, name="twice")
    a, b = twice(np.zeros(4, np.int32))
    a[0] = 7
    np.testing.assert_array_equal(b, [1, 1, 1, 1])
    on_device = sl.device_put(np.arange(4, dtype=np.int32))
    host = sl.jit(lambda xs: xs, device_results=False, name="same")(on_device)
    host[:] = 0
    np.testing.assert_array_equal(on_device.get(), np.arange(4))


def test_parallel_copy_copies_every_byte() -> None:
    source = np.random.default_rng(2).integers(0, 256, (9 << 20) + 7, dtype=np.uint8)  # on several threads
    dest = np.zeros_like(source)
    device_memory.parallel_copy(dest, source)
    np.testing.assert_array_equal(dest, source)


@sl.jit
def _wrapping(xs):
    return sl.map(lambda x: x // 3 + 200, xs)


def test_unsigned_device_arrays_chain_with_unsigned_results() -> None:
    xs = np.array([0, 5, 250], np.uint8)
    once = _wrapping(sl.device_put(xs))
    assert isinstance(once, sl.DeviceArray)
    assert once.dtype == np.uint8
    expected = (xs // 3 + 200).astype(np.uint8)
    np.testing.assert_array_equal(once.get(), expected)
    np.testing.assert_array_equal(_wrapping(once).get(), (expected // 3 + 200).astype(np.uint8))
    with pytest.raises(ValueError, match="element sizes differ"):
        once.view(np.uint16)


@sl.jit
def reductions(xs, ys):
    """A float sum, an integer max, a bool any, the length (a size the host knows) and an element of `xs`."""
    return (
        sl.sum(sl.map(lambda x: x * x, xs)),
        sl.reduce(lambda a, b: sl.where(a < b, b, a), np.int32(-(1 << 30)), ys),
        sl.reduce(lambda a, b: a | b, False, sl.map(lambda y: y > 40, ys)),
        xs.shape[0],
        xs[3],
    )


def test_device_scalars_leave_a_reduce_result_on_the_device(counts) -> None:
    """`device_scalars`: the scalars the device computed stay there (0-d device arrays, no blocking read), calls one
    after another queue back to back, and the values read together at the end are the numpy call's; a size the
    host computes stays a host scalar."""
    rng = np.random.default_rng(3)
    xs, ys = rng.random(10_000, dtype=np.float32), rng.integers(-50, 50, 777).astype(np.int32)
    expected = reductions(xs, ys)
    dx, dy = sl.device_put(xs), sl.device_put(ys)
    compiled = reductions.specialize(dx, dy)
    counts.reset()
    runs = [compiled.run((dx, dy), reductions.thresholds, True, device_scalars=True) for _ in range(3)]
    assert counts.element_reads == 0
    assert counts.downloads == 0
    for total, most, any_big, length, third in runs:
        assert all(type(r) is sl.DeviceArray and r.shape == () for r in (total, most, any_big, third))
        assert (total.dtype, most.dtype, any_big.dtype) == (np.float32, np.int32, np.bool_)
        assert type(length) is not sl.DeviceArray
        assert length == 10_000
        assert third.get() == xs[3]  # an element of an argument's buffer: copied into one of its own
        np.testing.assert_allclose(total.get(), expected[0], rtol=1e-5)
        assert (most.get(), any_big.get()) == (expected[1], expected[2])
    assert counts.downloads == 12


@sl.jit
def looked_up_sum(xs, table):
    return sl.sum(sl.map(lambda x: table[x], xs))


def test_device_scalars_calls_wait_for_nothing(memory: DeviceMemory) -> None:
    """Calls with `device_scalars` of a program with device checks return while the device has run none of them (a
    user event holds the queue): no call waits for a partial or for an earlier call's error read. Once the device
    runs them, the failure of the second is raised first, and the others' values are right."""
    import threading

    table = sl.device_put(np.arange(5, dtype=np.int64))
    good, bad = sl.device_put(np.array([1, 2, 3], np.int64)), sl.device_put(np.array([1, 9, 3], np.int64))
    compiled = looked_up_sum.specialize(good, table)
    assert compiled.run((good, table), {}, True, device_scalars=True).get() == 6  # plans built, nothing pending
    gate = cl.UserEvent(memory.context)
    cl.enqueue_marker(memory.queue, wait_for=[gate])
    results: list[object] = []

    def queue_calls() -> None:
        for args in ((good, table), (bad, table), (good, table)):
            results.append(compiled.run(args, {}, True, device_scalars=True))

    thread = threading.Thread(target=queue_calls)
    thread.start()
    thread.join(timeout=30)
    returned = not thread.is_alive()
    gate.set_status(cl.command_execution_status.COMPLETE)
    thread.join()
    assert returned
    with pytest.raises(ProgramError, match=r"'soac\.index': index 9 is out of bounds for dimension 0 of size 5"):
        memory.check_errors()
    assert results[0].get() == 6  # pyright: ignore[reportAttributeAccessIssue]
    assert results[2].get() == 6  # pyright: ignore[reportAttributeAccessIssue]


@sl.jit
def with_first_set(xs, v):
    return xs.at[0].set(v)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_element_writes_wait_for_nothing(memory: DeviceMemory, dtype: type) -> None:
    """A call whose host code writes one element (`xs.at[0].set(v)`: `kernel.write`) on device arrays returns while
    a user event holds the queue: the write is not a copy from host memory whose dropped event waits for the
    device. Once the device runs, the element holds the value."""
    import threading

    host = np.array([1, 0, 1, 1], dtype)
    value = dtype(0) if dtype is np.bool_ else dtype(7)
    xs = sl.device_put(host)
    compiled = with_first_set.specialize(xs, value)
    assert compiled.run((xs, value), {}, True).get()[0] == value  # plans built, nothing pending
    gate = cl.UserEvent(memory.context)
    cl.enqueue_marker(memory.queue, wait_for=[gate])
    results: list[object] = []
    thread = threading.Thread(target=lambda: results.append(compiled.run((xs, value), {}, True)))
    thread.start()
    thread.join(timeout=10)
    returned = not thread.is_alive()
    gate.set_status(cl.command_execution_status.COMPLETE)
    thread.join()
    assert returned
    np.testing.assert_array_equal(results[0].get(), np.array([value, *host[1:]], dtype))  # pyright: ignore[reportAttributeAccessIssue]
    np.testing.assert_array_equal(xs.get(), host)
