"""`sl.hist` with a 2-D destination (a row per bin, Futhark's reduce_by_index with array elements) on both backends
against numpy: a scalar or a row as the neutral element, out-of-range bins, one bin, rows of one element, no
points, a histogram of rows per row of a map; and the errors for what has no meaning or no lowering."""

from __future__ import annotations

import re

import numpy as np
import pytest
import soac.lang as sl
from soac.interpreter import SoacRuntimeError
from soac.passes.hist_rows import HistRowsError

BACKENDS = ["interp", "opencl"]


def sums_by_bin(dest, bins, rows):
    return sl.hist(dest, lambda a, b: a + b, 0, bins, rows)


def max_by_bin(dest, bins, rows):
    return sl.hist(dest, lambda a, b: sl.maximum(a, b), sl.replicate(dest.shape[1], np.int32(-(2**31))), bins, rows)


def reference(ufunc: np.ufunc, dest: np.ndarray, bins: np.ndarray, rows: np.ndarray) -> np.ndarray:
    out = dest.copy()
    inside = (bins >= 0) & (bins < len(dest))
    ufunc.at(out, bins[inside], rows[inside])
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_sums_and_maxima_of_rows_by_bin(backend: str) -> None:
    sums, maxima = sl.jit(sums_by_bin, backend=backend), sl.jit(max_by_bin, backend=backend)
    rng = np.random.default_rng(0)
    for n, k, d in [(300, 4, 3), (0, 2, 2), (50, 1, 5), (80, 6, 1)]:
        bins = rng.integers(-1, k + 1, n)  # i64, some outside
        rows = rng.integers(-40, 40, (n, d)).astype(np.float32)
        dest = rng.integers(-3, 3, (k, d)).astype(np.float32)
        got = sums(dest.copy(), bins, rows)
        np.testing.assert_array_equal(got, reference(np.add, dest, bins, rows), err_msg=f"{(n, k, d)}")
        assert got.dtype == np.float32
        ints, int_dest = rows.astype(np.int32), dest.astype(np.int32)
        got = maxima(int_dest.copy(), bins.astype(np.int32), ints)
        np.testing.assert_array_equal(got, reference(np.maximum, int_dest, bins, ints), err_msg=f"{(n, k, d)}")
    assert len(sums.specializations) == len(maxima.specializations) == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_histogram_of_rows_per_batch(backend: str) -> None:
    @sl.jit(backend=backend)
    def per_batch(dests, bins, rows):
        return sl.map(lambda dest, bs, rs: sl.hist(dest, lambda a, b: a + b, np.int32(0), bs, rs), dests, bins, rows)

    rng = np.random.default_rng(1)
    bins = rng.integers(-1, 4, (3, 40)).astype(np.int32)
    rows = rng.integers(-9, 9, (3, 40, 2)).astype(np.int32)
    dests = np.zeros((3, 3, 2), np.int32)
    expected = np.stack([reference(np.add, dests[i], bins[i], rows[i]) for i in range(3)])
    np.testing.assert_array_equal(per_batch(dests, bins, rows), expected)

    @sl.jit(backend=backend)
    def fresh_bins_per_batch(bins, rows, k):  # each batch's bins made in the lambda: flattened to one seghist
        def sums(bs, rs):
            return sl.hist(sl.replicate(k, sl.replicate(rows.shape[2], np.int32(0))), lambda a, b: a + b, np.int32(0), bs, rs)

        return sl.map(sums, bins, rows)

    np.testing.assert_array_equal(fresh_bins_per_batch(bins, rows, 3), expected)
    assert "soac.seghist" in fresh_bins_per_batch.ir(bins, rows, 3, optimized=True)


def test_a_destination_of_three_dimensions_is_refused_at_its_line() -> None:
    @sl.jit(backend="interp")
    def f(dest, bins, rows):
        return sl.hist(dest, lambda a, b: a + b, 0, bins, rows)

    with pytest.raises(sl.SoacTypeError, match=r"1-D array \(of bins\) or a 2-D one \(of rows\), not a 3-D f32 array") as error:
        f(np.zeros((2, 2, 2), np.float32), np.zeros(3, np.int32), np.zeros((3, 2, 2), np.float32))
    assert "return sl.hist(dest, lambda a, b: a + b, 0, bins, rows)" in str(error.value)  # the user's line, shown


def test_an_operator_on_rows_that_is_not_element_wise_runs_on_the_interpreter_only() -> None:
    def first_plus(dest, bins, rows):
        return sl.hist(dest, lambda a, b: a + b[0], np.int32(0), bins, rows)

    args = (np.zeros((2, 3), np.int32), np.array([0, 1, 0], np.int32), np.ones((3, 3), np.int32))
    np.testing.assert_array_equal(sl.jit(first_plus, backend="interp")(*args), [[2, 2, 2], [1, 1, 1]])
    with pytest.raises(HistRowsError, match=re.escape("test_hist_rows.py:") + r"\d+:\d+: .*its operator must be element-wise"):
        sl.jit(first_plus, backend="opencl")(*args)


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_whose_rows_differ_from_the_bins_are_refused_at_the_line(backend: str) -> None:
    f = sl.jit(sums_by_bin, backend=backend)
    with pytest.raises(
        SoacRuntimeError,
        match=r"test_hist_rows.py:\d+:\d+: 'soac.hist': the values have rows of 4 elements, but the operator combines rows of 3",
    ):
        f(np.zeros((2, 3), np.float32), np.array([0, 1]), np.ones((2, 4), np.float32))
