"""The compile cache: in memory per argument types and ranks (no tracing, no build on the next call with new data),
on disk by traced structure (no pass pipeline, no lowering in a new process), with hits and misses logged."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soac.lang as sl
import soac.lowering.runtime.program as runtime
from soac.lang.cache import STATS
from soac.passes import DEFAULT_PIPELINE


def counts() -> dict[str, int]:
    return STATS.as_dict()


def delta(before: dict[str, int]) -> dict[str, int]:
    return {k: v - before[k] for k, v in counts().items() if v != before[k]}


def map_scan(xs):
    return sl.scan(lambda a, b: a + b, 0, sl.map(lambda x: 3 * x + 1, xs))


def test_second_call_with_new_data_neither_traces_nor_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[str] = []
    build = runtime.build_program
    monkeypatch.setattr(runtime, "build_program", lambda source, device: builds.append(source) or build(source, device))
    f = sl.jit(map_scan)
    before = counts()
    xs = np.arange(100, dtype=np.int32)
    np.testing.assert_array_equal(f(xs), np.cumsum(3 * xs + 1))
    assert delta(before) == {"traces": 1, "compiles": 1, "disk_writes": 1}
    assert len(builds) == 1
    before = counts()
    ys = np.arange(7, dtype=np.int32) - 3  # new data, new size, same types
    np.testing.assert_array_equal(f(ys), np.cumsum(3 * ys + 1))
    assert delta(before) == {"memory_hits": 1}
    assert len(builds) == 1


def test_other_types_or_ranks_are_compiled_apart() -> None:
    f = sl.jit(lambda xs: sl.sum(xs * 2), backend="interp")
    before = counts()
    assert f(np.arange(4, dtype=np.int32)) == 12
    assert f(np.arange(4, dtype=np.float64)) == 12.0
    assert f(np.arange(3, dtype=np.int32)) == 6
    assert delta(before) == {"traces": 2, "compiles": 2, "disk_writes": 2, "memory_hits": 1}
    assert len(f.specializations) == 2


def test_the_disk_cache_is_keyed_by_structure_not_by_function(private_cache: Path) -> None:
    first = sl.jit(map_scan, backend="interp")
    first(np.arange(3, dtype=np.int32))
    before = counts()
    again = sl.jit(map_scan, backend="interp")  # a new function object: a miss in memory, a hit on disk
    np.testing.assert_array_equal(again(np.arange(3, dtype=np.int32)), [1, 5, 12])
    assert delta(before) == {"traces": 1, "disk_hits": 1}
    before = counts()
    other = sl.jit(lambda xs: sl.scan(lambda a, b: a + b, 0, sl.map(lambda x: 3 * x + 2, xs)), backend="interp")
    np.testing.assert_array_equal(other(np.arange(3, dtype=np.int32)), [2, 7, 15])  # one constant differs
    assert delta(before) == {"traces": 1, "compiles": 1, "disk_writes": 1}
    assert len(list(private_cache.glob("*.json"))) == 2


def test_hits_and_misses_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    f = sl.jit(map_scan, backend="interp")
    with caplog.at_level(logging.DEBUG, logger="soac.lang"):
        f(np.arange(3, dtype=np.int32))
        f(np.arange(5, dtype=np.int32))
        sl.jit(map_scan, backend="interp")(np.arange(3, dtype=np.int32))
    messages = [r.getMessage() for r in caplog.records if r.name == "soac.lang"]
    assert messages[0] == f"map_scan([]i32): cache miss; running {DEFAULT_PIPELINE}"
    assert messages[1] == "map_scan([]i32): cache hit in memory"
    assert messages[2].startswith("map_scan([]i32): cache miss in memory, hit on disk")


CHILD = """
import json, sys
import numpy as np
import soac.lang as sl
sys.path.insert(0, {examples!r})
from map_scan import map_scan
f = sl.jit(map_scan)
result = f(np.arange(10, dtype=np.int32))
print(json.dumps({{"result": result.tolist(), **sl.cache_stats.as_dict()}}))
"""


def test_the_disk_cache_survives_the_process(private_cache: Path) -> None:
    """A second process traces the function but finds it on disk: no passes, no lowering."""
    examples = str(Path(__file__).resolve().parents[2] / "examples" / "python")
    script = CHILD.format(examples=examples)
    env = {**os.environ, "SOAC_CACHE_DIR": str(private_cache)}

    def child() -> dict[str, object]:
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])

    first, second = child(), child()
    expected = np.cumsum(3 * np.arange(10) + 1).tolist()
    assert first["result"] == second["result"] == expected
    assert (first["compiles"], first["disk_hits"], first["disk_writes"]) == (1, 0, 1)
    assert (second["compiles"], second["disk_hits"], second["disk_writes"]) == (0, 1, 0)


def test_a_cache_folder_that_cannot_be_written_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("SOAC_CACHE_DIR", str(blocker / "cache"))
    f = sl.jit(map_scan, backend="interp")
    np.testing.assert_array_equal(f(np.arange(3, dtype=np.int32)), [1, 5, 12])


def count_halvings(x):
    steps, _ = sl.while_loop(lambda s, v: v > 1, lambda s, v: (s + 1, v // 2), (sl.i32(0), x))
    return sl.map(lambda y: y + steps, sl.iota(3, dtype=sl.i32))


def test_a_while_loop_is_cached_and_read_back_with_its_locations() -> None:
    """The optimized IR with locations parses back (xDSL's printer put `scf.while`'s location where its parser
    refuses it): `ir(optimized=True)` works, and a second function of the same structure runs from the disk cache."""
    first = sl.jit(count_halvings, backend="interp")
    assert first(np.int32(40)).tolist() == [5, 6, 7]
    assert "scf.while" in first.ir(optimized=True)
    before = sl.cache_stats.disk_hits
    second = sl.jit(count_halvings, backend="interp")
    assert second(np.int32(8)).tolist() == [3, 4, 5]
    assert sl.cache_stats.disk_hits == before + 1


def test_tile_sizes_of_ops_the_passes_make_are_in_the_key() -> None:
    """A tile size of an op that only the pipeline makes (soac-tile's `tile_0`) changes the disk cache's key: a jit
    with other sizes compiles again rather than reusing a build with the old ones."""
    from soac.passes import TILED_PIPELINE

    def all_pairs(xs):
        return sl.map(lambda x: sl.sum(sl.map(lambda y: x * y, xs)), xs)

    xs = np.arange(5, dtype=np.float32)
    keys = set()
    for chunk in (8, 16, 8):
        f = sl.jit(all_pairs, backend="interp", pipeline=TILED_PIPELINE, thresholds={"tile_0_chunk": chunk})
        keys.add(f.specialize(xs).key)
    assert len(keys) == 2
