"""soac.lang.dask: programs over dask arrays, chunk by chunk on OpenCL (PoCL here), against numpy.

Each kind of program (map, reduce commutative or not, scan, hist, a fused program of several inputs) runs over
one chunk, uneven chunks and chunks with empty ones, on dask's threaded scheduler; then what cannot be chunked
is refused by name, the chunk budget splits what is too large, each worker thread has its device and programs,
and one LocalCluster run checks that the tasks travel to worker processes.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import dask
import dask.array as da
import numpy as np
import pytest
import soac.lang as sl
import soac.lang.dask as sd
from soac.lang.dask import resident as resident_module
from soac.lang.dask import workers

LAYOUTS = {"one chunk": (12,), "uneven": (5, 1, 4, 2), "empty chunks": (0, 7, 0, 0, 5, 0)}
"""Chunks of a 12-row array along axis 0."""


@pytest.fixture(params=list(LAYOUTS), ids=list(LAYOUTS))
def layout(request: pytest.FixtureRequest) -> tuple[int, ...]:
    return LAYOUTS[request.param]


def chunked(values: np.ndarray, layout: tuple[int, ...]) -> da.Array:
    return da.from_array(values, chunks=(layout, *values.shape[1:]))


def threaded(result: da.Array) -> np.ndarray:
    return np.asarray(result.compute(scheduler="threads", num_workers=2))


XS = np.array([3, -1, 4, -1, 5, 9, -1, -1, 6, 5, -1, 5], np.int64)
"""-1 marks a missing value (for the forward fill's non-commutative operator)."""


def last_valid(a: sl.Scalar, b: sl.Scalar) -> sl.Scalar:
    """`b` unless it is missing (-1): associative with neutral element -1, and not commutative."""
    return sl.where(b == -1, a, b)


@sd.jit
def affine(xs, k):
    return sl.map(lambda x: 2 * x + k, xs)


@sd.jit
def sum_of_squares(xs):
    return sl.sum(sl.map(lambda x: x * x, xs))


@sd.jit(split_every=2)
def last_valid_value(xs):
    return sl.reduce(last_valid, -1, xs)


@sd.jit
def forward_fill(xs):
    return sl.scan(last_valid, -1, xs)


@sd.jit
def cumsum_of_shifted(xs, k):
    return sl.cumsum(sl.map(lambda x: x + k, xs))


@sd.jit
def weighted_hist(bins, xs, ws):
    return sl.hist(bins, lambda a, b: a + b, 0.0, sl.map(lambda x: x % 5, xs), sl.map(lambda x, w: w * sl.f64(x), xs, ws))


@sd.jit
def first_argmin(xs, ix):
    """A reduce of two arrays (a tuple operator): the least value and its first index."""

    def least(a, b):
        later_is_less = b[0] < a[0]
        return sl.where(later_is_less, b[0], a[0]), sl.where(later_is_less, b[1], a[1])

    return sl.reduce(least, (np.float32(np.inf), np.int64(-1)), xs, ix)


@sd.jit
def scaled_and_shifted(xs):
    return sl.map(lambda x: (sl.f64(x) * 2.0, x + 1), xs)


@sd.jit
def counts(xs, bins):
    """A hist into bins the program makes (from a whole scalar): the reference interpreter finds how many."""
    return sl.hist(sl.replicate(bins, 0), lambda a, b: a + b, 0, sl.map(lambda x: x % bins, xs), sl.map(lambda x: 1, xs))


@sd.jit
def row_sums_scanned(m):
    return sl.cumsum(sl.map(lambda row: sl.sum(row), m))


@sd.jit
def fused(xs, ws, table, k):
    """Two chunked inputs, a whole array gathered from inside the lambda, a whole scalar: one redomap per chunk."""
    ys = sl.map(lambda x, w: table[x % 4] * w + k, xs, ws)
    zs = sl.map(lambda y: y * y, ys)
    return sl.sum(zs)


@sd.jit
def fused_scan(xs, ws):
    return sl.scan(lambda a, b: a + b, 0, sl.map(lambda x, w: x * w, xs, ws))


def test_map(layout: tuple[int, ...]) -> None:
    result = affine(chunked(XS, layout), np.int64(7))
    assert result.chunks == (layout,)
    np.testing.assert_array_equal(threaded(result), 2 * XS + 7)


def test_commutative_reduce(layout: tuple[int, ...]) -> None:
    xs = np.linspace(-2, 3, 12).astype(np.float32)
    result = sum_of_squares(chunked(xs, layout))
    assert result.shape == ()
    np.testing.assert_allclose(threaded(result), np.sum(xs * xs), rtol=1e-6)


def test_non_commutative_reduce_keeps_chunk_order(layout: tuple[int, ...]) -> None:
    assert threaded(last_valid_value(chunked(XS, layout))) == 5
    ends_missing = np.where(np.arange(12) >= 9, -1, XS)  # the last valid value is XS[8], in another chunk
    assert threaded(last_valid_value(chunked(ends_missing, layout))) == 6


def test_reduce_of_a_tuple(layout: tuple[int, ...]) -> None:
    xs = np.array([4, 2, 9, 1, 7, 1, 8, 3, 1, 6, 5, 2], np.float32)  # the least value first at 3, again at 5 and 8
    least, where = first_argmin(chunked(xs, layout), chunked(np.arange(12, dtype=np.int64), layout))
    assert (threaded(least), threaded(where)) == (1.0, 3)


def test_map_with_two_results(layout: tuple[int, ...]) -> None:
    doubled, shifted = scaled_and_shifted(chunked(XS, layout))
    assert doubled.chunks == shifted.chunks == (layout,)
    np.testing.assert_array_equal(threaded(doubled), 2.0 * XS)
    np.testing.assert_array_equal(threaded(shifted), XS + 1)


def test_scan(layout: tuple[int, ...]) -> None:
    np.testing.assert_array_equal(threaded(cumsum_of_shifted(chunked(XS, layout), np.int64(2))), np.cumsum(XS + 2))


def test_non_commutative_scan_carries_across_chunks(layout: tuple[int, ...]) -> None:
    expected = np.maximum.accumulate(np.where(XS == -1, 0, np.arange(12)))  # the index of the last valid value
    np.testing.assert_array_equal(threaded(forward_fill(chunked(XS, layout))), XS[expected])


def test_hist(layout: tuple[int, ...]) -> None:
    ws = np.linspace(0.5, 2, 12)
    bins = np.array([1.0, 0.0, 2.0, 0.0, 0.5])
    result = threaded(weighted_hist(bins, chunked(XS, layout), chunked(ws, layout)))
    expected = bins.copy()
    np.add.at(expected, np.mod(XS, 5), ws * XS)  # % rounds as Python's: every row has a bin
    np.testing.assert_allclose(result, expected)


def test_hist_into_bins_made_by_the_program() -> None:
    result = counts(chunked(XS, LAYOUTS["empty chunks"]), np.int64(3))
    assert result.shape == (3,)
    np.testing.assert_array_equal(threaded(result), np.bincount(np.mod(XS, 3), minlength=3))


def test_fused_program(layout: tuple[int, ...]) -> None:
    ws = np.linspace(1, 2, 12).astype(np.float32)
    table = np.array([0.5, 1.5, -1.0, 2.0], np.float32)
    result = threaded(fused(chunked(XS, layout), chunked(ws, (12,)), table, np.float32(0.25)))
    expected = np.sum((table[np.mod(XS, 4)] * ws + 0.25) ** 2, dtype=np.float32)
    np.testing.assert_allclose(result, expected, rtol=1e-5)
    np.testing.assert_array_equal(threaded(fused_scan(chunked(XS, layout), chunked(XS, layout))), np.cumsum(XS * XS))


def test_rows_of_a_matrix_chunked_on_both_axes(layout: tuple[int, ...]) -> None:
    m = np.arange(36, dtype=np.int64).reshape(12, 3) - 17
    result = row_sums_scanned(da.from_array(m, chunks=(layout, (2, 1))))  # the columns are joined into one chunk
    np.testing.assert_array_equal(threaded(result), np.cumsum(m.sum(axis=1)))


def test_uneven_chunks_share_one_program_per_stage() -> None:
    @sd.jit
    def largest_square(xs):  # a float max: its partials are combined on the device (a sum's on the host)
        return sl.max(sl.map(lambda x: sl.f64(x * x), xs))

    before, traces = workers.STATS.programs_built, sl.cache_stats.traces
    xs = chunked(XS, (1, 2, 3, 4, 2))
    assert largest_square(xs).compute(scheduler="synchronous") == np.max(XS * XS)
    assert workers.STATS.programs_built - before == 2  # the chunk program and the combine, for five chunk shapes
    assert sl.cache_stats.traces - traces == 2


@pytest.mark.parametrize(
    ("program", "message"),
    [
        (lambda xs, ys: sl.map(lambda i: ys[i], xs), "'soac.map' (sl.map) has a lambda that reads the chunked array ys"),
        (lambda xs, ys: sl.map(lambda x: x * xs.shape[0], xs), "has a lambda that reads the chunked length"),
        (lambda xs, ys: sl.reverse(xs), "'soac.reverse' uses the chunked array xs"),
        (lambda xs, ys: (sl.sum(xs), sl.max(ys)), "is a second reduce, scan or hist"),
        (lambda xs, ys: sl.map(lambda x: x + sl.sum(ys), xs), "has a lambda that reads the chunked array ys"),
        (lambda xs, ys: sl.sum(xs) * 2, "'arith.muli' comes after the soac.reduce"),
    ],
    ids=["gather", "length", "reverse", "two-reductions", "reduce-in-lambda", "after-the-reduce"],
)
def test_refused_programs_name_the_op_and_line(program, message: str) -> None:
    xs = chunked(np.arange(12, dtype=np.int64), (6, 6))
    with pytest.raises(sd.SoacDaskError, match=r"test_dask\.py:[0-9]+: soac\.lang\.dask: ") as error:
        sd.jit(program)(xs, xs)
    assert message in str(error.value)


def test_refused_arguments() -> None:
    with pytest.raises(sd.SoacDaskError, match="no argument is a dask array"):
        affine(XS, np.int64(1))
    unknown = chunked(XS, (6, 6))
    with pytest.raises(sd.SoacDaskError, match="chunked array 1 has chunks of unknown size"):
        affine(unknown[unknown > 0], np.int64(1))
    with pytest.raises(sd.SoacDaskError, match="chunked array 2 has 6 rows, the first has 12"):
        fused(chunked(XS, (12,)), chunked(XS[:6].astype(np.float32), (6,)), np.ones(4, np.float32), np.float32(0))


def test_chunk_budget_splits_chunks_that_do_not_fit() -> None:
    xs = np.arange(4096, dtype=np.float32)
    with dask.config.set({sd.CHUNK_BUDGET_KEY: "4 KiB"}):
        result = sum_of_squares(chunked(xs, (4096,)))
        workers.STATS.reset()
        assert threaded(result) == pytest.approx(np.sum(xs.astype(np.float64) ** 2), rel=1e-4)
    assert 0 < workers.STATS.max_chunk_bytes <= 4096
    assert workers.STATS.chunks >= 4  # four chunks of at most 1024 rows (their partials folded on the host)
    ws = chunked(XS.astype(np.float32), (12,))
    with pytest.raises(sd.SoacDaskError, match="over the chunk budget of 1024"):
        sd.jit(fused, chunk_budget=1024)(chunked(XS, (12,)), ws, np.ones(300, np.float32), np.float32(0))


def test_each_worker_thread_has_its_device() -> None:
    barrier = threading.Barrier(2)

    def device() -> str | None:
        barrier.wait()
        return workers.worker_device(("0:0", "0:1"))

    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(device) for _ in range(2)]
        assert sorted(f.result() for f in futures) == ["0:0", "0:1"]


@pytest.mark.slow  # 8 to 13 s here: two worker processes import soac and compile
def test_local_cluster() -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            xs = chunked(XS, LAYOUTS["uneven"])
            assert client.compute(sd.jit(last_valid_value, devices=("pocl", "cpu"))(xs)).result() == 5
            addresses = list(client.scheduler_info()["workers"])
            tasks = [client.submit(workers.worker_device, ("pocl", "cpu"), workers=[a], pure=False) for a in addresses]
            assert sorted(t.result() for t in tasks) == ["cpu", "pocl"]  # worker i takes device i
            np.testing.assert_array_equal(client.compute(forward_fill(xs)).result(), threaded(forward_fill(xs)))


# -- resident chunks (sd.persist) and staged uploads (prefetch) -------------------------------------------------------


def resident(values: np.ndarray, layout: tuple[int, ...]) -> da.Array:
    return sd.persist(chunked(values, layout), scheduler="threads")


def one_thread(result: da.Array) -> np.ndarray:
    """A compute on one worker thread, which compiled its programs in an earlier run: what moves is the run's own."""
    return np.asarray(result.compute(scheduler="threads", num_workers=1))


def test_persist_puts_every_chunk_on_the_device_once(layout: tuple[int, ...]) -> None:
    counts = sl.transfer_counts()
    counts.reset()
    xs = resident(XS, layout)
    assert sd.is_resident(xs)
    assert xs.chunks == (layout,)
    blocks = [xs.blocks[k].compute(scheduler="synchronous") for k in range(len(layout))]
    assert all(isinstance(b, sl.DeviceArray) for b in blocks)
    assert counts.uploads == sum(1 for rows in layout if rows)  # an empty chunk is no copy
    assert counts.upload_bytes == XS.nbytes
    np.testing.assert_array_equal(threaded(xs), XS)  # computing a resident array reads it back
    assert sd.persist(xs) is xs


def test_programs_over_resident_chunks_move_no_chunk(layout: tuple[int, ...]) -> None:
    xs = resident(XS, layout)
    ws = resident(np.linspace(0.5, 2, 12).astype(np.float32), layout)
    table = np.array([0.5, 1.5, -1.0, 2.0], np.float32)
    runs = {
        "map": (lambda: affine(xs, np.int64(7)), 2 * XS + 7),
        "reduce": (lambda: sum_of_squares(xs), np.sum(XS * XS)),
        "non-commutative reduce": (lambda: last_valid_value(xs), 5),
        "scan": (lambda: forward_fill(xs), XS[np.maximum.accumulate(np.where(XS == -1, 0, np.arange(12)))]),
        "hist": (lambda: counts(xs, np.int64(3)), np.bincount(np.mod(XS, 3), minlength=3)),
        "fused": (lambda: fused(xs, ws, table, np.float32(0.25)), np.sum((table[np.mod(XS, 4)] * ws.compute() + 0.25) ** 2)),
    }
    for run, _ in runs.values():  # compiles this thread's programs (each makes its small error buffer)
        one_thread(run())
    moved = sl.transfer_counts()
    for what, (run, expected) in runs.items():
        moved.reset()
        result = run()
        if what in ("map", "scan"):  # a map's or a scan's chunks stay resident
            assert sd.is_resident(result)
            blocks = [result.blocks[k].compute(scheduler="threads", num_workers=1) for k in range(len(layout))]
            assert all(isinstance(b, sl.DeviceArray) for b in blocks), what
            assert (moved.uploads, moved.downloads) == (0, 0), what
            np.testing.assert_array_equal(np.concatenate([b.get() for b in blocks]), expected)
            continue
        np.testing.assert_allclose(one_thread(result), expected, rtol=1e-5, err_msg=what)
        # The device's chunks joined, and its partial read once: a row of 3 int64 bins, or a reduce's scalar
        partials = (1, 3 * 8) if what == "hist" else (1, result.dtype.itemsize)
        assert (moved.uploads, moved.downloads, moved.download_bytes) == (0, *partials), what
    chained = affine(affine(xs, np.int64(1)), np.int64(-1))  # a map over a map's resident chunks
    moved.reset()
    assert one_thread(sum_of_squares(chained)) == np.sum((4 * XS + 1) ** 2)
    assert (moved.uploads, moved.downloads, moved.download_bytes) == (0, 1, 8)  # the group's partial only


def test_resident_chunks_on_threads_match_numpy() -> None:
    xs = resident(XS, LAYOUTS["uneven"])
    m = np.arange(36, dtype=np.int64).reshape(12, 3) - 17
    rows = sd.persist(da.from_array(m, chunks=(LAYOUTS["empty chunks"], (2, 1))))  # the columns joined before the upload
    assert rows.chunks == (LAYOUTS["empty chunks"], (3,))
    for _ in range(3):
        assert threaded(sum_of_squares(xs)) == np.sum(XS * XS)
        np.testing.assert_array_equal(threaded(cumsum_of_shifted(xs, np.int64(2))), np.cumsum(XS + 2))
        np.testing.assert_array_equal(threaded(row_sums_scanned(rows)), np.cumsum(m.sum(axis=1)))


def test_persist_places_runs_of_chunks_on_the_devices() -> None:
    put = resident_module.Put(("0:0", "0:1", "0:2"))
    places = [put.device({None: {"chunk-location": (k, 0), "num-chunks": (5, 1)}}) for k in range(5)]
    assert places == ["0:0", "0:0", "0:1", "0:1", "0:2"]  # neighbours together: a reduce may join them in order
    staged = resident_module.Put(("0:0", "0:1", "0:2"), runs=False)  # host chunks streaming by: round robin
    places = [staged.device({None: {"chunk-location": (k, 0), "num-chunks": (5, 1)}}) for k in range(5)]
    assert places == ["0:0", "0:1", "0:2", "0:0", "0:1"]


def test_resident_chunks_are_not_rechunked() -> None:
    xs = resident(np.linspace(1, 2, 12).astype(np.float32), (6, 6))
    on_host = fused(chunked(XS, (4, 4, 4)), xs, np.ones(4, np.float32), np.float32(0))  # rechunked to xs's chunks
    assert on_host.chunks == ()
    assert one_thread(on_host) == pytest.approx(np.sum(xs.compute() ** 2), rel=1e-6)
    with pytest.raises(sd.SoacDaskError, match=r"test_dask\.py:[0-9]+: fused: chunked array 2 is resident .* with chunks"):
        fused(resident(XS, (4, 8)), xs, np.ones(4, np.float32), np.float32(0))  # two resident layouts: refused
    with pytest.raises(sd.SoacDaskError, match=r"the call needs \(3, 3, 3, 3\) .* within the chunk budget"):
        sd.jit(sum_of_squares, chunk_budget=12)(xs)  # 3 rows of f32 a chunk
    with pytest.raises(sd.SoacDaskError, match="takes a dask array"):
        sd.persist(XS)


@pytest.mark.parametrize("mode", ["zero-copy", "pinned"])
def test_prefetch_uploads_each_host_chunk_in_a_task(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Host chunks staged by upload tasks, on four threads: PoCL as it is, and made to copy through the pinned ring
    (chunks over 1 MiB) as a GPU does, with the threads sharing the device's ring."""
    from soac.lowering.runtime import choose_device, memory_of

    monkeypatch.setattr(memory_of(choose_device(None)), "mode", mode)
    values = (np.arange(1 << 20) % 7).astype(np.float32)
    xs = chunked(values, (300_000, 300_000, 0, 448_576))
    program = sd.jit(sum_of_squares, prefetch=True)
    assert program(xs).compute(scheduler="threads", num_workers=4) == np.sum(values * values)
    moved = sl.transfer_counts()
    moved.reset()
    result = sd.jit(affine, prefetch=True)(xs, np.float32(1))
    assert not sd.is_resident(result)  # staged chunks come back: numpy in, numpy out
    np.testing.assert_array_equal(result.compute(scheduler="threads", num_workers=4), 2 * values + 1)
    assert (moved.uploads, moved.upload_bytes) == (3, values.nbytes)
    assert (moved.downloads, moved.download_bytes) == (3, values.nbytes)


@pytest.mark.slow  # about 10 s here: two worker processes import soac and compile
def test_resident_chunks_in_a_local_cluster() -> None:
    """Chunks persisted in the workers' processes, each on its worker's device; a map's chunks stay there, and a
    resident chunk that dask moves (the map's result gathered to the client) travels as its host copy."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster):
            xs = sd.persist(chunked(XS, LAYOUTS["uneven"]), devices=("pocl", "cpu"))
            assert sd.is_resident(xs)
            assert sum_of_squares(xs).compute() == np.sum(XS * XS)
            assert sd.jit(last_valid_value, devices=("pocl", "cpu"))(xs).compute() == 5
            np.testing.assert_array_equal(np.asarray(affine(xs, np.int64(7)).compute()), 2 * XS + 7)
            np.testing.assert_array_equal(np.asarray(cumsum_of_shifted(xs, np.int64(2)).compute()), np.cumsum(XS + 2))
