"""soac-flatten on maps of `soac.partition`: partitions of the flat array by (segment, bucket), against numpy's stable
argsort of each row, in the interpreter. Both versions (one flat partition of `m * (k + 1)` classes; a partition by
bucket and one per 8-bit digit of the segment id), chosen at run time or from a constant width: no rows, one row,
empty rows, all keys equal, buckets outside the range, two moved values, a bucket read from a per-row pivot, a nest of
two maps; incremental flattening keeps a partition per thread behind a threshold too (many rows), moderate only
that."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.dialect import PartitionOp, SegmapOp
from soac.interpreter import run_function
from soac.parsing import parse_module
from soac.passes.flatten_partition import FLAT_CLASSES, digit_passes
from soac.passes.thresholds import list_thresholds
from xdsl.ir import Operation

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from partition_programs import (  # pyright: ignore[reportMissingImports]
    BIT_SORT_ROWS,
    NESTED_PIVOTS,
    NESTED_ROWS,
    PER_ROW,
    ROWS_OF_ROWS,
    partition_reference,
    per_row_pivot,
    pivot_reference,
)
from test_soac_flatten import MODES, assert_every_version, flattened  # pyright: ignore[reportMissingImports]

ROW_SHAPES = [(0, 5), (1, 0), (3, 0), (1, 1), (6, 41), (42, 3), (43, 3), (300, 2)]
"""42 rows of 6 classes fill the flat version's 256 buckets; 43 take the radix one, 300 need two digit passes."""


def pivot_args(m: int, n: int, kind: str = "random", seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed + 31 * m + n)
    xss = rng.integers(-9, 9, (m, n)).astype(np.int32)
    if kind == "equal":
        xss[:] = 4
    vss = rng.standard_normal((m, n)).astype(np.float32)
    pivots = rng.integers(-5, 5, m).astype(np.int32)
    return [xss, vss, pivots]


def assert_pivot_rows(got: list[np.ndarray], args: list[np.ndarray]) -> None:
    xss, vss, pivots = args
    assert [g.shape for g in got] == [(len(xss), 3), xss.shape, xss.shape]
    for s in range(len(xss)):
        for have, want in zip(got, pivot_reference(xss[s], vss[s], int(pivots[s])), strict=True):
            np.testing.assert_array_equal(have[s], want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("m", "n"), ROW_SHAPES)
def test_rows_keep_their_results(m: int, n: int, mode: str) -> None:
    args = pivot_args(m, n)
    settings = assert_every_version(per_row_pivot(), args, mode)
    assert settings == (2 if mode == "incremental" else 1)  # the outer-parallel version, behind a threshold
    assert_pivot_rows(run_function(flattened(per_row_pivot(), mode), "main", args), args)


@pytest.mark.parametrize(("m", "n", "kind"), [(5, 13, "equal"), (300, 3, "equal"), (2, 4, "random")])
def test_remainder_buckets_and_equal_keys(m: int, n: int, kind: str) -> None:
    rng = np.random.default_rng(m)
    xss = np.full((m, n), 12, np.int32) if kind == "equal" else rng.integers(-30, 30, (m, n)).astype(np.int32)
    counts, ys = run_function(flattened(PER_ROW, "full"), "main", [xss])
    for row, c, y in zip(xss, counts, ys, strict=True):
        want_counts, want = partition_reference(np.fmod(row, 7), 5, row)
        np.testing.assert_array_equal(c, want_counts)
        np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("rows", [4, 300])
def test_constant_widths_take_one_version(rows: int) -> None:
    """4 rows of 4 classes: one flat partition of 16 buckets; 300 rows: by bucket, then two digit passes, unrolled."""
    module = flattened(per_row_pivot(rows), "full")
    partitions = [op for op in module.walk() if isinstance(op, PartitionOp)]
    assert not any(op.name.startswith("scf.") for op in module.walk())
    if rows * 4 <= FLAT_CLASSES:
        assert [p.bucket_count for p in partitions] == [rows * 4]
    else:
        assert [p.bucket_count for p in partitions] == [3] + [256] * digit_passes(rows)
    args = pivot_args(rows, 7, seed=rows)
    assert_pivot_rows(run_function(module, "main", args), args)


def test_incremental_flattening_keeps_a_partition_per_thread_for_many_rows() -> None:
    module = flattened(PER_ROW, "incremental")
    assert [t.name for t in list_thresholds(module)] == ["suff_outer_par_0"]
    (versions,) = [op for op in module.walk() if op.name == "scf.if" and op.operands[0].name_hint == "outer_suff"]
    per_thread = [op for op in versions.regions[0].walk() if isinstance(op, PartitionOp)]
    assert [p.parent_op().name for p in per_thread] == ["soac.segmap"]  # pyright: ignore[reportOptionalMemberAccess]
    segmented = [op for op in versions.regions[1].walk() if isinstance(op, PartitionOp)]
    assert [p.bucket_count for p in segmented] == [FLAT_CLASSES, 5, 256]


def test_dynamic_widths_choose_at_run_time() -> None:
    module = flattened(PER_ROW, "full")
    (choice,) = [op for op in module.walk() if op.name == "scf.if"]
    flat, radix = ([op for op in region.walk() if isinstance(op, PartitionOp)] for region in choice.regions)
    assert [p.bucket_count for p in flat] == [FLAT_CLASSES]
    assert [p.bucket_count for p in radix] == [5, 256]  # the digit pass in a loop
    assert any(op.name == "scf.for" for op in choice.regions[1].walk())


def test_nest_of_two_maps() -> None:
    for shape in [(3, 4, 7), (2, 130, 3), (0, 3, 2), (2, 0, 5), (2, 3, 0)]:
        xsss = np.random.default_rng(sum(shape)).integers(0, 100, shape).astype(np.int32)
        for mode in MODES:
            counts, ys = run_function(flattened(NESTED_ROWS, mode), "main", [xsss])
            assert counts.shape == (*shape[:2], 2)
            assert ys.shape == shape
            for index in np.ndindex(*shape[:2]):
                want_counts, want = partition_reference(xsss[index] & 1, 2, xsss[index])
                np.testing.assert_array_equal(counts[index], want_counts)
                np.testing.assert_array_equal(ys[index], want)


@pytest.mark.parametrize("shape", [(3, 50, 4), (60, 3, 2), (0, 3, 2), (2, 0, 3)])
def test_partitions_of_rows_with_i8_buckets(shape: tuple[int, int, int]) -> None:
    """Inputs whose rows are rows: the flat partition takes `[b * n, w]`; the bucket an i8 (sign-extended)."""
    xsss = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    want = run_function(parse_module(make_context(), ROWS_OF_ROWS, "test"), "main", [xsss])
    got = run_function(flattened(ROWS_OF_ROWS, "full"), "main", [xsss])
    for have, expected in zip(got, want, strict=True):
        np.testing.assert_array_equal(have, expected)
    np.testing.assert_array_equal(got[0][:, 0], np.count_nonzero(xsss[:, :, 1] >= 0, axis=1))  # bucket 0: not negative


@pytest.mark.parametrize("mode", MODES)
def test_loop_of_partitions_is_interchanged(mode: str) -> None:
    """A loop of partitions in a map (a radix sort of each row, a bit a pass) runs outside the flattened map."""
    module = flattened(BIT_SORT_ROWS, mode)
    partitions = [op for op in module.walk() if isinstance(op, PartitionOp)]
    per_thread = [p for p in partitions if any(isinstance(a, SegmapOp) for a in ancestors(p))]
    assert all(any(a.name == "scf.for" for a in ancestors(p)) for p in partitions)
    assert len(per_thread) < len(partitions) if mode != "moderate" else per_thread == partitions
    for m, n in [(5, 9), (50, 3), (0, 2), (2, 0)]:
        xss = np.random.default_rng(m).integers(0, 4, (m, n)).astype(np.int32)
        for outer in (0, 2**62):
            (ys,) = run_function(module, "main", [xss], thresholds={"suff_outer_par_0": outer} if mode == "incremental" else {})
            np.testing.assert_array_equal(ys, np.sort(xss, axis=1, kind="stable"))


def ancestors(op: Operation) -> list[Operation]:
    found: list[Operation] = []
    while (op := op.parent_op()) is not None:  # pyright: ignore[reportAssignmentType]
        found.append(op)
    return found


def test_nest_of_two_maps_with_a_value_per_row() -> None:
    module = flattened(NESTED_PIVOTS, "full")
    assert not any(isinstance(p, PartitionOp) for op in module.walk() if isinstance(op, SegmapOp) for p in op.walk())
    for shape in [(2, 3, 5), (3, 40, 4), (0, 2, 2), (2, 2, 0)]:
        rng = np.random.default_rng(sum(shape))
        xsss = rng.integers(-9, 9, shape).astype(np.int32)
        pss = rng.integers(-3, 3, shape[:2]).astype(np.int32)
        (ys,) = run_function(module, "main", [xsss, pss])
        for index in np.ndindex(*shape[:2]):
            row = xsss[index]
            np.testing.assert_array_equal(ys[index], np.concatenate([row[row <= 2 * pss[index]], row[row > 2 * pss[index]]]))


def test_moderate_flattening_keeps_each_partition_sequential() -> None:
    module = flattened(per_row_pivot(), "moderate")
    (partition,) = [op for op in module.walk() if isinstance(op, PartitionOp)]
    assert isinstance(partition.parent_op(), SegmapOp)


def test_width_mismatch_is_reported_at_the_partition() -> None:
    """The rows of the partition's inputs are checked against its width before the flat partitions run."""
    text = per_row_pivot().replace("soac.partition %n", "soac.partition %m", 1)
    module = flattened(text, "full")
    args = pivot_args(3, 5)
    with pytest.raises(Exception, match=r"test:10:.*'soac.partition': width 3 does not match the outer size 5"):
        run_function(module, "main", args)
