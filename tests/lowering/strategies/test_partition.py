"""`soac.partition` on OpenCL (PoCL) against numpy: the tiled kernels (`strategies/partition.py`) at sizes around
the tile (0, 1, tile - 1, tile, tile + 1, a prime, several tiles), with keys all equal, sorted, reversed or few
distinct, and buckets outside the range; on each target family (the device scan under it differs: reduce-then-scan,
chunked, look-back with emulated warps); a partition in each row of a map (by one work-item each)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.lowering.conversion.options import LoweringOptions
from soac.lowering.runtime import Program, compile_module
from soac.lowering.strategies.partition import tile_shape
from soac.parsing import parse_module

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from partition_programs import (
    BY_REMAINDER,
    PER_ROW,
    WITH_COUNTS,
    keys_of,
    partition_reference,
    remainder_reference,
)  # pyright: ignore[reportMissingImports]

ITEMS = 3
GROUP = 32
TILE = ITEMS * GROUP
"""Tiles of 3 rows for each of 32 work-items (the 6 classes' counters fit many more)."""

TARGETS = {
    "generic": {"group_size": GROUP, "partition_items": ITEMS},
    "cpu": {"target": "cpu", "group_size": GROUP, "partition_items": ITEMS},
    "emulated-warps": {
        "target": "emulated-warps",
        "group_size": 32,
        "max_groups": 8,
        "scan_group": 32,
        "scan_items": 8,
        "partition_items": ITEMS,
    },
}
TARGETS["emulated-warps-match"] = {**TARGETS["emulated-warps"], "partition_match": "match"}
TARGETS["emulated-warps-again"] = {**TARGETS["emulated-warps"], "partition_ranks": "again"}
TARGETS["emulated-warps-registers"] = {**TARGETS["emulated-warps"], "partition_ranks": "registers"}
TARGETS["emulated-warps-window"] = {**TARGETS["emulated-warps"], "partition_lookback": 3}
TARGETS["emulated-warps-narrow"] = {**TARGETS["emulated-warps"], "partition_index": "i32"}
TARGETS["emulated-warps-load"] = {**TARGETS["emulated-warps"], "partition_rows": "load"}
TARGETS["emulated-warps-preload"] = {**TARGETS["emulated-warps"], "partition_rows": "registers"}
_programs: dict[str, Program] = {}


def program(target: str) -> Program:
    if target not in _programs:
        module = parse_module(make_context(), BY_REMAINDER, "partition.mlir")
        _programs[target] = compile_module(module, "pocl", **TARGETS[target])
    return _programs[target]


def check(target: str, xs: np.ndarray) -> None:
    vs = np.arange(len(xs), dtype=np.float32)
    got = program(target).call("main", [xs, vs])
    for g, w, what in zip(got, remainder_reference(xs, vs), ["counts", "keys", "values"], strict=True):
        np.testing.assert_array_equal(g, w, err_msg=f"{what}, n = {len(xs)}")


def test_the_tile_is_what_the_tests_assume():
    assert tile_shape(LoweringOptions(group_size=GROUP, partition_items=ITEMS), 6) == (GROUP, ITEMS)
    assert tile_shape(LoweringOptions(), 257) == (32, 128)  # 8-bit digits: 32 columns of 257 counters, 4096 rows


@pytest.mark.parametrize("n", [0, 1, TILE - 1, TILE, TILE + 1, 3 * TILE + 7, 1009])
def test_sizes_around_the_tile(n: int):
    check("generic", keys_of("random", n))


@pytest.mark.parametrize("kind", ["equal", "sorted", "reversed", "few"])
def test_key_patterns(kind: str):
    check("generic", keys_of(kind, 5 * TILE + 1))


@pytest.mark.parametrize(
    "target",
    [
        "cpu",
        "emulated-warps",
        "emulated-warps-match",
        "emulated-warps-again",
        "emulated-warps-registers",
        "emulated-warps-narrow",
        "emulated-warps-load",
    ],
)
def test_other_targets(target: str):
    for n in (0, 1, TILE + 1, 2003):
        check(target, keys_of("random", n))


def test_default_tiles():
    module = parse_module(make_context(), BY_REMAINDER, "partition.mlir")
    prog = compile_module(module, "pocl")
    for n in (4095, 4096, 4097, 20011):
        xs = keys_of("random", n)
        vs = np.arange(n, dtype=np.float32)
        for g, w in zip(prog.call("main", [xs, vs]), remainder_reference(xs, vs), strict=True):
            np.testing.assert_array_equal(g, w)


def test_partition_in_each_row_of_a_map():
    module = parse_module(make_context(), PER_ROW, "rows.mlir")
    xss = keys_of("random", 5 * 77).reshape(5, 77)
    counts, ys = compile_module(module, "pocl").call("main", [xss])
    for row, c, y in zip(xss, counts, ys, strict=True):
        want_counts, want = partition_reference(np.fmod(row, 7), 5, row)
        np.testing.assert_array_equal(c, want_counts)
        np.testing.assert_array_equal(y, want)


def test_width_mismatch_is_reported_at_the_op():
    xs, vs = np.arange(4, dtype=np.int32), np.arange(3, dtype=np.float32)
    with pytest.raises(Exception, match=r"partition.mlir:6:.*width 4 does not match the outer size 3 of input #1"):
        program("generic").call("main", [xs, vs])


def test_nvidia_kernels_match_warps_and_stage_the_tile():
    """On the nvidia target the rank kernel matches each round's classes with ballots (or one `match.any`), hands
    counters back by shuffles, keeps the ranks and stages the tile's values in local memory; the generic one does
    none of it."""
    from soac.lowering.kernel.target import get_target
    from soac.lowering.opencl.emitter import opencl_source
    from soac.passes import get_all_passes
    from xdsl.passes import PassPipeline

    def source(target: str, text: str = BY_REMAINDER) -> str:
        ctx = make_context()
        module = parse_module(ctx, text, "partition.mlir")
        PassPipeline.parse_spec(get_all_passes(), f"soac-to-kernel{{target={target}}}").apply(ctx, module)
        return opencl_source(module, get_target(target.split()[0]))

    nvidia, generic = source("nvidia"), source("generic")
    rank = nvidia[nvidia.index("main_partition_rank_0") :]
    assert "vote.sync.ballot" in rank
    assert "match.any.sync" not in rank
    assert "__local int ranked" not in rank  # an i32 and an f32 staged: 32 KiB, no room for the ranks
    match = source("nvidia partition-match=match")
    assert "match.any.sync" in match[match.index("main_partition_rank_0") :]
    assert "shfl.sync.idx" in rank
    assert "__local int staged" in rank
    assert "__local float staged" in rank
    assert "vote.sync" not in generic
    assert "staged" not in generic
    keys = source("nvidia", (Path(__file__).resolve().parents[3] / "examples" / "radix_sort_partition.mlir").read_text())
    assert "__local int ranked" in keys[keys.index("main_partition_rank_0") :]
    registers = source("nvidia partition-ranks=registers")
    rank = registers[registers.index("main_partition_rank_0") :]
    assert "int ranks[16];" in rank  # a work-item's 16 rows, in registers: the rounds are unrolled
    assert "#pragma unroll" in rank
    assert "__local int ranked" not in rank


@pytest.mark.parametrize("target", ["emulated-warps", "emulated-warps-again", "emulated-warps-registers", "generic"])
def test_moved_values_that_are_not_the_arguments(target: str):
    """A lambda that moves other values than its arguments: the staged rows' classes are then found among the class
    starts, not computed again from the moved values (which would give the class of `x + 1`)."""
    text = BY_REMAINDER.replace("soac.yield %b, %x, %v", "%y = arith.addi %x, %m : i32\n    soac.yield %b, %y, %v")
    prog = compile_module(parse_module(make_context(), text, "moved.mlir"), "pocl", **TARGETS[target])
    for n in (1, TILE + 1, 2003):
        xs = keys_of("random", n)
        vs = np.arange(n, dtype=np.float32)
        counts, keys, values = remainder_reference(xs, vs)
        got = prog.call("main", [xs, vs])
        for g, w in zip(got, [counts, keys + 7, values], strict=True):
            np.testing.assert_array_equal(g, w, err_msg=f"n = {n}")


def known_counts(xs: np.ndarray) -> np.ndarray:
    return remainder_reference(xs, xs.astype(np.float32))[0]


@pytest.mark.parametrize("target", ["emulated-warps", "emulated-warps-window", "emulated-warps-narrow", "generic"])
def test_known_counts(target: str):
    """With the counts given: one pass with look-back where the target's scan has forward progress (emulated warps),
    the counting kernels elsewhere (the counts then unused)."""
    module = parse_module(make_context(), WITH_COUNTS, "known.mlir")
    prog = compile_module(module, "pocl", **TARGETS[target])
    onesweep = any("onesweep" in k for k in prog.kernels)
    assert onesweep == target.startswith("emulated-warps")
    for kind, n in [("random", 0), ("random", 1), ("random", TILE - 1), ("random", TILE + 1), ("few", 3001), ("equal", 500)]:
        xs = keys_of(kind, n)
        vs = np.arange(n, dtype=np.float32)
        got = prog.call("main", [xs, vs, known_counts(xs)])
        for g, w in zip(got, remainder_reference(xs, vs), strict=True):
            np.testing.assert_array_equal(g, w, err_msg=f"{kind}, n = {n}")


def test_known_counts_of_the_wrong_length_are_reported():
    module = parse_module(make_context(), WITH_COUNTS, "known.mlir")
    prog = compile_module(module, "pocl", **TARGETS["emulated-warps"])
    xs = keys_of("random", 10)
    with pytest.raises(Exception, match=r"known.mlir:6:.*the known bucket counts have 4 entries, expected 5"):
        prog.call("main", [xs, np.zeros(10, np.float32), known_counts(xs)[:4]])


def test_local_memory_bounds_the_tile_and_the_buckets():
    """The counters of 8-bit digits keep 256 work-items with warps (a column per warp) and 32 without; 10-bit digits
    keep their counters but not a staged tile; too many buckets for any work-group are refused by name."""
    from soac.lowering.strategies.partition import LOCAL_BYTES, columns_of, local_bytes

    nvidia = LoweringOptions(target="nvidia")
    assert tile_shape(nvidia, 257) == (256, 16)
    assert local_bytes(1025, columns_of(nvidia, 256), 4 * 4096) > LOCAL_BYTES
    assert tile_shape(LoweringOptions(), 257) == (32, 128)
    text = BY_REMAINDER.replace("buckets 5", "buckets 5000")
    with pytest.raises(Exception, match=r"'soac.partition' at many.mlir:\d+:\d+: 5000 buckets need more local memory"):
        compile_module(parse_module(make_context(), text, "many.mlir"), "pocl")


def test_a_32_bit_version_runs_where_the_rows_fit():
    """`partition-index=i32` (the nvidia target's default) adds 32-bit versions of the count and rank kernels
    (`index_bitwidth 32`); the host launches them, and gives the 64-bit ones no work-items, where the rows fit."""
    from soac.lowering import kernel as kd

    module = parse_module(make_context(), BY_REMAINDER, "partition.mlir")
    prog = compile_module(module, "pocl", **TARGETS["emulated-warps-narrow"])
    bits = {op.kernel_name: op.index_bits for op in prog.module.walk() if isinstance(op, kd.FuncOp)}
    narrow = {name for name, b in bits.items() if b == 32}
    assert {name.rsplit("_", 2)[-2] for name in narrow} == {"count", "rank"}
    assert "const int n" in prog.source
    launched: list[str] = []

    def recording(name: str, kernel: object) -> object:
        def launch(*args: object) -> object:
            launched.append(name)
            return kernel(*args)  # pyright: ignore[reportCallIssue]

        return launch

    prog.kernels = {name: recording(name, k) for name, k in prog.kernels.items()}
    xs = keys_of("random", 2003)
    vs = np.arange(len(xs), dtype=np.float32)
    for got, want in zip(prog.call("main", [xs, vs]), remainder_reference(xs, vs), strict=True):
        np.testing.assert_array_equal(got, want)
    ranking = [name for name in launched if "_count_" in name or "_rank_" in name]
    assert ranking
    assert all(name in narrow for name in ranking)
