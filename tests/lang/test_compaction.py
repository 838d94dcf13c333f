"""`sl.filter` and `sl.compress` of 1-D arrays (`lang/compaction.py`): one scanomap of the flags whose kernel scatters
the kept elements into a `tensor.empty`, against numpy around the tiles, for several element types, on the CPU
target and with the look-back scan of the nvidia kernels (emulated warps); rows keep their scan and scatter."""

from __future__ import annotations

import re

import numpy as np
import pytest
import soac.lang as sl

EMULATED = {"target": "emulated-warps", "group_size": 32, "scan_group": 32, "scan_items": 4}


def positives(xs):
    return sl.filter(lambda x: x > 0, xs)


def masked(m, xs):
    return sl.compress(m, xs)


@pytest.mark.parametrize("lowering", [None, EMULATED], ids=["cpu", "emulated-warps"])
def test_filters_match_numpy_around_the_tiles(lowering: dict[str, object] | None) -> None:
    kept = sl.jit(positives, backend="opencl", lowering=lowering)
    rng = np.random.default_rng(38)
    for n in (0, 1, 2, 127, 128, 129, 4097, 20011):
        xs = rng.integers(-100, 100, n).astype(np.int32)
        np.testing.assert_array_equal(kept(xs), xs[xs > 0], err_msg=f"n = {n}")
    for xs in (np.full(300, 7, np.int32), np.full(300, -7, np.int32)):  # all kept, none kept
        np.testing.assert_array_equal(kept(xs), xs[xs > 0])
    kernels = re.findall(r"__kernel void (\w+)\(", kept.opencl())
    assert not any("iota" in name for name in kernels), kernels  # the scan computes the row index


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
def test_compress_keeps_the_element_type(dtype: type) -> None:
    rng = np.random.default_rng(7)
    xs = (rng.standard_normal(5003) * 10).astype(dtype)
    mask = rng.random(5003) < 0.3
    got = sl.jit(masked, backend="opencl")(mask, xs)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, xs[mask])


def test_one_scan_scatters_into_an_empty_array() -> None:
    """The predicate fuses into the scanomap, which scans one value (the kept count) and reads the row index from an
    iota that no kernel stores; the scatter takes all its results, and its destination is not filled: no replicate of
    n elements, no scatter kernel of its own."""
    kept = sl.jit(positives, backend="opencl")
    xs = np.arange(-50, 50, dtype=np.int32)
    np.testing.assert_array_equal(kept(xs), xs[xs > 0])
    ir = kept.ir(optimized=True)
    assert ir.count("soac.scanomap") == 1
    assert ir.count("soac.scatter") == 1
    assert ir.count("soac.map ") == 0
    assert "tensor.empty" in ir
    assert ir.count("soac.replicate") == 1  # the kept count's one element
    assert ir.count("soac.iota") == 1
    scan = next(line for line in ir.splitlines() if "soac.scanomap" in line)
    assert "neutral(%0 : i32)" in scan  # one scanned value
    kernels = re.findall(r"__kernel void (\w+)\(", kept.opencl())
    assert any("scan" in name for name in kernels)
    assert not any("scatter" in name or "iota" in name for name in kernels), kernels


def test_rows_keep_their_scan_and_scatter() -> None:
    rows = sl.jit(masked, backend="opencl")
    rng = np.random.default_rng(9)
    xss = rng.standard_normal((4097, 3)).astype(np.float32)
    mask = np.arange(4097) % 3 == 0
    np.testing.assert_array_equal(rows(mask, xss), xss[mask])
    assert "soac.scatter" in rows.ir(optimized=True)


@pytest.mark.parametrize("lowering", [None, EMULATED], ids=["cpu", "emulated-warps"])
def test_a_filter_in_each_row_runs_in_its_work_item(lowering: dict[str, object] | None) -> None:
    """Inside a lambda the compaction runs sequentially: its `tensor.empty` is work-item scratch memory."""

    def row_sums(xss):
        return sl.map(lambda row: sl.sum(sl.filter(lambda x: x > 0, row)), xss)

    sums = sl.jit(row_sums, backend="opencl", lowering=lowering)
    rng = np.random.default_rng(11)
    for rows, width in ((7, 33), (1, 1), (3, 0), (40, 129)):
        xss = rng.integers(-5, 5, (rows, width)).astype(np.int32)
        np.testing.assert_array_equal(sums(xss), np.array([r[r > 0].sum() for r in xss], dtype=np.int32))
