"""Online autotuning (`sl.jit(..., autotune=True)`, `soac.lang.autotune`): the search, size classes, and a jitted
map of reductions tuned once per size class, its choice reused from disk, with results unchanged."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest
import soac.lang as sl
from soac.lang.autotune import label, search, size_class
from soac.passes.thresholds import MAX_THRESHOLD, ThresholdInfo

OUTER = ThresholdInfo("suff_outer_par_0", 1000, ())
INTRA = ThresholdInfo("suff_intra_par_1", 32, (("suff_outer_par_0", False),))


def _measure_table(table: Mapping[str, float], calls: list[str]):
    def measure(thresholds: Mapping[str, int]) -> float:
        key = label(thresholds) or "defaults"
        calls.append(key)
        return table.get(key, 10.0)

    return measure


def test_search_times_deepest_first_and_keeps_the_fastest() -> None:
    calls: list[str] = []
    table = {"defaults": 5.0, "intra_par_1+": 3.0, "intra_par_1-": 4.0, "intra_par_1+ outer_par_0+": 6.0}
    chosen, candidates, default_ms = search([OUTER, INTRA], _measure_table(table, calls))
    assert calls[:3] == ["defaults", "intra_par_1+", "intra_par_1-"]  # the deeper threshold first
    assert chosen == {"suff_intra_par_1": 0}  # the fastest timed, though the path went on past it
    assert default_ms == 5000.0
    assert candidates["intra_par_1+"] == 3000.0
    assert len(calls) == len(set(calls))  # nothing timed twice


def test_search_keeps_the_defaults_when_they_are_fastest() -> None:
    chosen, _, _ = search([OUTER], _measure_table({"defaults": 0.5, "outer_par_0+": 1.0, "outer_par_0-": 2.0}, []))
    assert chosen == {}


def test_size_classes_bucket_dimensions_and_integers() -> None:
    a, b = np.zeros((1000, 3), np.float32), np.zeros((1024, 4), np.float32)
    assert size_class([a, 7, 2.5]) == "[2^10x2^2] 2^3 s"
    assert size_class([a]) == size_class([b])
    assert size_class([np.zeros((1025, 3))]) != size_class([a])
    assert size_class([np.zeros((0,)), 0, True]) == "[0] 0 b"


def row_sums(xss):
    return sl.map(lambda row: sl.sum(row * row), xss)


def test_jit_tunes_once_per_size_class_and_keeps_results(private_cache: Path) -> None:
    f = sl.jit(row_sums, autotune=True)
    rng = np.random.default_rng(1)
    small = rng.standard_normal((40, 300)).astype(np.float32)
    np.testing.assert_allclose(f(small), (small * small).sum(1), rtol=1e-4)
    assert len(f.tunings) == 1
    report = f.tunings[0]
    assert set(report.thresholds.values()) <= {0, MAX_THRESHOLD}
    assert report.seconds > 0
    assert "defaults" in report.candidates
    assert len(report.candidates) >= 2
    np.testing.assert_allclose(f(small[:33]), (small[:33] ** 2).sum(1), rtol=1e-4)  # same class: no search
    assert len(f.tunings) == 1
    wide = rng.standard_normal((3, 5000)).astype(np.float32)
    np.testing.assert_allclose(f(wide), (wide * wide).sum(1), rtol=1e-4)
    assert len(f.tunings) == 2

    (stored,) = private_cache.glob("autotune-*.json")
    assert set(json.loads(stored.read_text())) == {report.size_class, f.tunings[1].size_class}
    again = sl.jit(row_sums, autotune=True)  # another function object, as in another process: read from disk
    np.testing.assert_allclose(again(small), (small * small).sum(1), rtol=1e-4)
    assert again.tunings == []


def test_named_thresholds_win_over_the_tuned_ones() -> None:
    f = sl.jit(row_sums, autotune=True, thresholds={"suff_outer_par_0": 0})
    xs = np.ones((8, 64), np.float32)
    compiled = f.specialize(xs)
    assert f.tuned_thresholds(compiled, [xs])["suff_outer_par_0"] == 0
    np.testing.assert_allclose(f(xs), np.full(8, 64, np.float32))


@pytest.mark.parametrize("backend", ["interp"])
def test_autotune_is_off_on_the_interpreter(backend: str) -> None:
    f = sl.jit(row_sums, backend=backend, autotune=True)
    np.testing.assert_allclose(f(np.ones((2, 3), np.float32)), [3.0, 3.0])
    assert f.tunings == []
