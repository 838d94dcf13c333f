"""`soac.partition` in the interpreter against numpy's stable argsort: buckets inside and outside the range, empty
and one-element inputs, all rows in one bucket, and a partition in every row of a map (lanes)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function
from soac.parsing import parse_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from partition_programs import (  # pyright: ignore[reportMissingImports]
    BY_REMAINDER,
    PER_ROW,
    WITH_COUNTS,
    keys_of,
    partition_reference,
    remainder_reference,
)


@pytest.mark.parametrize("kind", ["random", "equal", "sorted", "reversed", "few"])
@pytest.mark.parametrize("n", [0, 1, 2, 97, 1000])
def test_partition_is_a_stable_argsort_by_bucket(kind: str, n: int):
    xs = keys_of(kind, n)
    vs = np.arange(n, dtype=np.float32)
    got = run_function(parse_module(make_context(), BY_REMAINDER, "p.mlir"), "main", [xs, vs])
    for g, w in zip(got, remainder_reference(xs, vs), strict=True):
        np.testing.assert_array_equal(g, w)


def test_partition_in_each_row_of_a_map():
    xss = keys_of("random", 6 * 41).reshape(6, 41)
    counts, ys = run_function(parse_module(make_context(), PER_ROW, "p.mlir"), "main", [xss])
    for row, c, y in zip(xss, counts, ys, strict=True):
        want_counts, want = partition_reference(np.fmod(row, 7), 5, row)
        np.testing.assert_array_equal(c, want_counts)
        np.testing.assert_array_equal(y, want)


def test_width_mismatch_is_reported_at_the_op():
    xs, vs = np.arange(4, dtype=np.int32), np.arange(3, dtype=np.float32)
    with pytest.raises(Exception, match=r"p.mlir:6:.*width 4 does not match the outer size 3 of input #1"):
        run_function(parse_module(make_context(), BY_REMAINDER, "p.mlir"), "main", [xs, vs])


def test_known_counts_are_checked():
    xs = keys_of("random", 300)
    vs = np.arange(300, dtype=np.float32)
    module = parse_module(make_context(), WITH_COUNTS, "k.mlir")
    counts = remainder_reference(xs, vs)[0]
    got = run_function(module, "main", [xs, vs, counts])
    np.testing.assert_array_equal(got[1], remainder_reference(xs, vs)[1])
    wrong = counts.copy()
    wrong[2] += 1
    with pytest.raises(Exception, match=r"k.mlir:6:.*the known bucket counts .* differ from the rows'"):
        run_function(module, "main", [xs, vs, wrong])
