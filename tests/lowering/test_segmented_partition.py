"""Maps of `soac.partition`, flattened (`soac-flatten`: partitions of the flat array by segment and bucket), on
OpenCL (PoCL) against numpy: rows around the default tile (4095, 4097 rows of 4096 a tile), no rows, one row, empty
rows, all keys equal, buckets outside the range, two moved values, a loop of partitions, both versions (one flat
partition; by bucket, then by each digit of the segment id in a host loop), on the generic target and with emulated
warps (whose digit passes, given their counts, take the one-pass look-back kernel)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function
from soac.lowering.runtime import Program, compile_module
from soac.lowering.strategies.partition import TILE_ROWS
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from partition_programs import (  # pyright: ignore[reportMissingImports]
    BIT_SORT_ROWS,
    NESTED_ROWS,
    PER_ROW,
    ROWS_OF_ROWS,
    partition_reference,
    per_row_pivot,
    pivot_reference,
)

EMULATED_WARPS = {
    "target": "emulated-warps",
    "group_size": 32,
    "max_groups": 8,
    "scan_group": 32,
    "scan_items": 8,
    "partition_items": 3,
}
"""As `tests/lowering/strategies/test_partition.py` runs the NVIDIA kernels on PoCL (the look-back scan needs the small
scan groups there)."""


def flattened_program(text: str, **options: object) -> Program:
    ctx = make_context()
    module = parse_module(ctx, text, "rows.mlir")
    SoacFlattenPass(mode="full").apply(ctx, module)  # the segmented partitions alone, whatever the rows
    assert not any(op.name == "soac.segmap" and "soac.partition" in str(op) for op in module.walk())
    return compile_module(module, "pocl", **options)


def test_rows_around_the_tile_on_the_generic_target() -> None:
    program = flattened_program(per_row_pivot())
    shapes = [(0, 5), (1, 0), (1, 1), (2, TILE_ROWS - 1), (1, TILE_ROWS + 1), (5, 13), (43, 3), (300, 2)]
    for k, (m, n) in enumerate(shapes):
        rng = np.random.default_rng(k)
        xss = rng.integers(-9, 9, (m, n)).astype(np.int32)
        if (m, n) == (5, 13):
            xss[:] = 4  # all keys equal
        vss = rng.standard_normal((m, n)).astype(np.float32)
        pivots = rng.integers(-5, 5, m).astype(np.int32)
        counts, ys, ws = program.call("main", [xss, vss, pivots])
        assert counts.shape == (m, 3)
        assert ys.shape == (m, n)
        assert ws.shape == (m, n)
        for s in range(m):
            for have, want, what in zip((counts, ys, ws), pivot_reference(xss[s], vss[s], int(pivots[s])), "cyw"):
                np.testing.assert_array_equal(have[s], want, err_msg=f"{what}, row {s} of {m} x {n}")


@pytest.mark.slow
def test_emulated_warps_and_a_nest_of_two_maps() -> None:
    program = flattened_program(PER_ROW, **EMULATED_WARPS)
    assert "partition_onesweep" in program.source  # the digit passes know their counts: one pass with look-back
    for m, n in [(3, 95), (2, 97), (50, 7), (260, 1)]:
        xss = np.random.default_rng(m).integers(-30, 30, (m, n)).astype(np.int32)
        counts, ys = program.call("main", [xss])
        for row, c, y in zip(xss, counts, ys, strict=True):
            want_counts, want = partition_reference(np.fmod(row, 7), 5, row)
            np.testing.assert_array_equal(c, want_counts)
            np.testing.assert_array_equal(y, want)
    nested = flattened_program(NESTED_ROWS)
    xsss = np.random.default_rng(5).integers(0, 100, (3, 30, 11)).astype(np.int32)
    counts, ys = nested.call("main", [xsss])
    for index in np.ndindex(3, 30):
        want_counts, want = partition_reference(xsss[index] & 1, 2, xsss[index])
        np.testing.assert_array_equal(counts[index], want_counts)
        np.testing.assert_array_equal(ys[index], want)
    rows = flattened_program(ROWS_OF_ROWS)
    xsss = np.random.default_rng(6).standard_normal((40, 9, 3)).astype(np.float32)
    want = run_function(parse_module(make_context(), ROWS_OF_ROWS, "rows.mlir"), "main", [xsss])
    for have, expected in zip(rows.call("main", [xsss]), want, strict=True):
        np.testing.assert_array_equal(have, expected)
    bits = flattened_program(BIT_SORT_ROWS)
    for m, n in [(7, 130), (60, 5)]:
        xss = np.random.default_rng(m).integers(0, 4, (m, n)).astype(np.int32)
        (ys,) = bits.call("main", [xss])
        np.testing.assert_array_equal(ys, np.sort(xss, axis=1, kind="stable"))
