"""`soac.hist` on OpenCL against the interpreter: every lowering strategy forced (soac-to-kernel's `hist` option) with
every update method (hardware atomics on i32 and i64, compare-and-swap on 32/64-bit values, packed compare-and-swap, locks),
out-of-bounds and colliding bins, empty inputs, bin counts around each strategy's capacity, histograms in the
rows of a map (any operator), and clear refusals of what cannot be lowered."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.conversion.kernel_builder import LoweringError
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.runtime import compile_module, lower_module
from soac.parsing import parse_module

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from hist_programs import (  # pyright: ignore[reportMissingImports]
    ABS_SUM,
    ARGMAX,
    MAX_ARGMAX_COUNT,
    MIN_MAX_I16,
    ROWS,
    UNLOWERABLE,
    hist_program,
)

ATOMIC_OPS = {
    "arith.addi": "atomic_add",
    "arith.minsi": "atomic_min",
    "arith.maxsi": "atomic_max",
    "arith.minui": "atomic_min",
    "arith.maxui": "atomic_max",
    "arith.andi": "atomic_and",
    "arith.ori": "atomic_or",
    "arith.xori": "atomic_xor",
}


def same_results(text: str, args: list[object], **lowering: object) -> tuple[object, ...]:
    """The interpreter's results, which the program compiled with soac-to-kernel's options `lowering` must give."""
    module = parse_module(make_context(), text, "hist.mlir")
    expected = interpret(module, "main", args)
    got = compile_module(module, **lowering).call("main", args)
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))
    return expected


STRATEGIES = ["global", "local", "copies", "passes"]


@pytest.fixture(params=STRATEGIES)
def strategy(request: pytest.FixtureRequest) -> str:
    """Each lowering strategy of a top-level histogram (soac-to-kernel's `hist` option)."""
    return request.param


@pytest.mark.parametrize("strategy_name", ["global", "local"])
@pytest.mark.parametrize("op", sorted(ATOMIC_OPS))
@pytest.mark.parametrize("element", ["i32", "i64"])
def test_atomic_operators(op: str, element: str, strategy_name: str) -> None:
    dtype = np.int32 if element == "i32" else np.int64
    rng = np.random.default_rng(len(op))
    is_ = rng.integers(-3, 40, 5000).astype(np.int32)
    ws = rng.integers(-(2**20), 2**20, 5000).astype(dtype)
    bins = rng.integers(-100, 100, 37).astype(dtype)
    info = np.iinfo(dtype)
    neutral = {"arith.andi": -1, "arith.minui": -1, "arith.minsi": info.max, "arith.maxsi": info.min}.get(op, 0)
    same_results(hist_program(element, op, "i32"), [is_, ws, bins, dtype(neutral)], hist=strategy_name)


def test_float_sums(strategy: str) -> None:
    """f32 (+): OpenCL's compare-and-swap loop on the bits here (PTX's float atomic on the nvidia target).
    Integer-valued weights keep the sums exact whatever order the rows come in."""
    rng = np.random.default_rng(7)
    is_ = rng.integers(-3, 5000, 40000).astype(np.int32)
    ws = rng.integers(-8, 8, 40000).astype(np.float32)
    for bins in (16, 5000):
        start = rng.integers(-5, 5, bins).astype(np.float32)
        args = [is_ % (bins + 3) - 1, ws, start, np.float32(0)]
        same_results(hist_program("f32", "arith.addf", "i32"), args, hist=strategy)


def test_atomics_in_the_kernel() -> None:
    module = parse_module(make_context(), hist_program("i32", "arith.maxui", "i32"), "hist.mlir")
    source = opencl_source(lower_module(module, hist="global"))
    assert "atomic_max((volatile __global uint*)&h[j], (uint)w)" in source  # umax: the unsigned atomic
    assert "const bool in_bounds = (ulong)j < (ulong)bins_d0;" in source  # unsigned: negative bins are out


def rows_for(bins: int, rows: int, seed: int) -> np.ndarray:
    """Random bin indices of `rows` rows, a few of them out of bounds on either side."""
    return np.random.default_rng(seed).integers(-3, bins + 3, rows).astype(np.int32)


def argmax_args(is_: np.ndarray, bins: int, seed: int) -> list[object]:
    """Weights with many ties (small integers), so that the operator's tie-break on the row matters."""
    ws = np.random.default_rng(seed).integers(-20, 20, len(is_)).astype(np.float32)
    return [is_, ws, np.full(bins, -np.inf, np.float32), np.full(bins, -1, np.int32)]


def method_case(method: str, bins: int, rows: int = 6000, seed: int = 1) -> tuple[str, list[object], str | None]:
    """A program whose operator takes `method` (the update forced with soac-to-kernel's `hist-update` where it is
    not the first choice), its arguments, and the forced update."""
    rng = np.random.default_rng(seed)
    is_ = rows_for(bins, rows, seed)
    if method == "atomic-i32":
        return hist_program("i32", "arith.addi", "i32"), [is_, np.ones(rows, np.int32), np.zeros(bins, np.int32), 0], None
    if method == "atomic-i64":
        ws = rng.integers(-(2**40), 2**40, rows)
        return hist_program("i64", "arith.addi", "i32"), [is_, ws, np.zeros(bins, np.int64), np.int64(0)], None
    if method == "cas-i32":
        return ABS_SUM, [is_, rng.integers(-9, 9, rows).astype(np.int32), np.zeros(bins, np.int32)], None
    if method == "cas-f32":
        ws = rng.standard_normal(rows).astype(np.float32)
        return hist_program("f32", "arith.maximumf", "i32"), [is_, ws, np.full(bins, -np.inf, np.float32), -np.inf], None
    if method == "cas-f64":
        ws = rng.integers(-50, 50, rows).astype(np.float64)
        return hist_program("f64", "arith.addf", "i32"), [is_, ws, np.zeros(bins, np.float64), 0.0], None
    if method == "cas-i64":
        ws = rng.integers(-(2**40), 2**40, rows)
        return hist_program("i64", "arith.addi", "i32"), [is_, ws, np.zeros(bins, np.int64), np.int64(0)], "cas"
    if method == "packed":
        return ARGMAX, argmax_args(is_, bins, seed), None
    if method == "packed-i16":
        ws = rng.integers(-30000, 30000, rows).astype(np.int16)
        return MIN_MAX_I16, [is_, ws, np.full(bins, 5, np.int16), np.full(bins, -5, np.int16)], None
    if method == "lock-pair":
        return ARGMAX, argmax_args(is_, bins, seed), "lock"
    assert method == "lock"
    return MAX_ARGMAX_COUNT, [*argmax_args(is_, bins, seed), np.zeros(bins, np.int32)], None


METHODS = ["atomic-i32", "atomic-i64", "cas-i32", "cas-f32", "cas-f64", "cas-i64", "packed", "packed-i16", "lock-pair", "lock"]
QUICK = {("local", m) for m in METHODS} | {(s, m) for s in STRATEGIES for m in ("packed", "lock")}


@pytest.mark.parametrize(
    ("strategy_name", "method"),
    [pytest.param(s, m, marks=() if (s, m) in QUICK else pytest.mark.slow, id=f"{s}-{m}") for s in STRATEGIES for m in METHODS],
)
def test_every_strategy_with_every_update_method(strategy_name: str, method: str) -> None:
    """Colliding bins (37 of them for 6000 rows) and out-of-bounds ones, with each method in each strategy."""
    text, args, forced = method_case(method, 37)
    same_results(text, args, hist=strategy_name, hist_update=forced or "auto")


@pytest.mark.parametrize(
    ("strategy_name", "method", "bins"),
    [
        ("local", "atomic-i32", 1),
        ("local", "atomic-i32", 4096),  # the most local slots of 32-bit bins, one subhistogram
        ("local", "atomic-i32", 4097),  # the global copies, decided at run time
        ("local", "atomic-i32", 20000),
        ("local", "packed", 4096),  # 64-bit slots: 32 KiB
        ("local", "packed", 4097),
        ("local", "lock", 2048),  # f32, i32, i32 and a lock word: 16 bytes a bin
        ("local", "lock", 2049),
        ("local", "atomic-i32", 100),  # 40 subhistograms fit, 32 kept: the cooperation level
        ("passes", "atomic-i32", 8193),  # three passes, the last of one bin
        ("passes", "lock", 4097),
        ("copies", "atomic-i32", 1),
        ("copies", "packed", 5000),
        ("global", "lock", 1),
    ],
)
def test_bin_counts_around_each_strategys_capacity(strategy_name: str, method: str, bins: int) -> None:
    text, args, forced = method_case(method, bins, rows=20000, seed=bins)
    same_results(text, args, hist=strategy_name, hist_update=forced or "auto")


@pytest.mark.parametrize("seed", range(8))
def test_random_strategies_methods_and_sizes(seed: int) -> None:
    """A random strategy, update method, bin count (0 to 9000, across every capacity) and row count per seed."""
    rng = np.random.default_rng(1000 + seed)
    strategy_name = STRATEGIES[rng.integers(len(STRATEGIES))]
    method = METHODS[rng.integers(len(METHODS))]
    bins, rows = int(rng.integers(0, 9000)), int(rng.integers(0, 20000))
    text, args, forced = method_case(method, bins, rows=rows, seed=seed)
    same_results(text, args, hist=strategy_name, hist_update=forced or "auto")


@pytest.mark.parametrize(
    ("strategy_name", "copies", "bins"), [("copies", 1, 50), ("copies", 3, 50), ("local", 1, 5000), ("local", 3, 5000)]
)
def test_forced_numbers_of_global_copies(strategy_name: str, copies: int, bins: int) -> None:
    """`local` beyond local memory with one copy, which would be all, updates the bins themselves."""
    for method in ("cas-i32", "lock"):
        text, args, _ = method_case(method, bins, rows=3000)
        same_results(text, args, hist=strategy_name, hist_copies=copies)


def test_the_strategy_shows_in_the_kernel(strategy: str) -> None:
    module = parse_module(make_context(), hist_program("i32", "arith.addi", "i32"), "hist.mlir")
    source = opencl_source(lower_module(module, hist=strategy))
    assert f"__kernel void main_hist_{strategy}_0(" in source
    assert ("__local int sub[4096];" in source) == (strategy in ("local", "passes"))
    assert ("__kernel void main_hist_merge_0(" in source) == (strategy in ("local", "copies"))


def test_f32_sums_use_ptx_atomics_on_nvidia() -> None:
    text = hist_program("f32", "arith.addf", "i32")
    nvidia = opencl_source(lower_module(parse_module(make_context(), text, "hist.mlir"), target="nvidia", hist="local"))
    assert 'asm volatile("atom.global.add.f32 %0, [%1], %2;"' in nvidia
    assert 'asm volatile("atom.shared.add.f32 %0, [%1], %2;"' in nvidia
    assert "atomic_cmpxchg" not in nvidia
    generic = opencl_source(lower_module(parse_module(make_context(), text, "hist.mlir"), hist="local"))
    assert "atom.global" not in generic
    assert "atomic_cmpxchg((volatile __local uint *)p, old.u, next.u)" in generic


def test_the_update_methods_show_in_the_kernel() -> None:
    packed = opencl_source(lower_module(parse_module(make_context(), ARGMAX, "hist.mlir"), hist="global"))
    assert "__kernel void main_hist_pack_0(" in packed
    assert "const long seen = atom_cmpxchg(&bins[bin], old, packed);" in packed
    assert "__kernel void main_hist_unpack_0(" in packed
    locked = opencl_source(lower_module(parse_module(make_context(), MAX_ARGMAX_COUNT, "hist.mlir"), hist="global"))
    assert "const int was = atomic_cmpxchg(&locks[bin], 0, 1);" in locked
    assert "atomic_xchg(&locks[bin], 0);" in locked


def test_an_unknown_strategy_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """As an option, or through the environment variable that the runtime maps onto it."""
    module = parse_module(make_context(), hist_program("i32", "arith.addi", "i32"), "hist.mlir")
    with pytest.raises(ValueError, match="soac-to-kernel: hist must be one of auto, global, local, copies, passes, got 'shared'"):
        lower_module(module, hist="shared")
    monkeypatch.setenv("SOAC_HIST", "shared")
    with pytest.raises(ValueError, match="SOAC_HIST=shared: soac-to-kernel: hist must be one of auto, global"):
        lower_module(module)


def test_a_forced_update_method_must_apply() -> None:
    module = parse_module(make_context(), ARGMAX, "hist.mlir")
    with pytest.raises(
        LoweringError,
        match=r"'soac.hist' at hist.mlir:\d+:\d+: soac-to-kernel's hist-update=cas does not apply here \(applicable: "
        r"packed, lock\)",
    ):
        lower_module(module, hist_update="cas")
    with pytest.raises(ValueError, match="soac-to-kernel: hist-update must be one of auto, cas, packed, lock, got 'spin'"):
        lower_module(module, hist_update="spin")


def test_every_row_in_one_bin_and_none_in_bounds(strategy: str) -> None:
    program = hist_program("i32", "arith.addi", "i32")
    ones = np.ones(10000, np.int32)
    (h,) = same_results(program, [np.full(10000, 3, np.int32), ones, np.zeros(4, np.int32), np.int32(0)], hist=strategy)
    np.testing.assert_array_equal(h, [0, 0, 0, 10000])
    args = [np.full(100, -1, np.int32), ones[:100], np.arange(4, dtype=np.int32), np.int32(0)]
    (h,) = same_results(program, args, hist=strategy)
    np.testing.assert_array_equal(h, [0, 1, 2, 3])
    same_results(program, [np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32), np.int32(0)], hist=strategy)


def test_empty_inputs_with_locks_and_packing(strategy: str) -> None:
    empty = np.zeros(0, np.int32)
    same_results(ARGMAX, argmax_args(empty, 5, 0), hist=strategy)
    same_results(MAX_ARGMAX_COUNT, [*argmax_args(empty, 5, 0), np.arange(5, dtype=np.int32)], hist=strategy)


@pytest.mark.parametrize("shape", [(5, 40), (0, 3), (2, 0)])
def test_histograms_in_the_rows_of_a_map(shape: tuple[int, int]) -> None:
    iss = np.random.default_rng(9).integers(-2, 8, shape).astype(np.int32)
    same_results(ROWS, [iss, np.int64(6)])


def test_operators_that_fit_no_method_are_refused() -> None:
    module = parse_module(make_context(), UNLOWERABLE, "hist.mlir")
    with pytest.raises(
        LoweringError,
        match=r"'soac.hist' at hist.mlir:\d+:\d+: a histogram outside a lambda needs destinations of 32- or 64-bit "
        r"elements \(for compare-and-swap or locking\) or that fit 64 bits together, got \(i16, i64\)",
    ):
        lower_module(module)


HIST_INTO_FRESH = """
func.func @main(%bins: index, %is: tensor<?xindex>, %vs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %is, %c0 : tensor<?xindex>
  %z = arith.constant 0 : i32
  %fresh = soac.replicate %bins, %z : i32 -> tensor<?xi32>
  %once = soac.hist %n (%is, %vs : tensor<?xindex>, tensor<?xi32>) into(%fresh : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
      combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %v: i32) {
    soac.yield %i, %v : index, i32
  }
  %outside = soac.replicate %bins, %z : i32 -> tensor<?xi32>
  %looped = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %once) -> (tensor<?xi32>) {
    %next = soac.hist %n (%is, %vs : tensor<?xindex>, tensor<?xi32>) into(%outside : tensor<?xi32>)
      neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%i: index, %v: i32) {
      %j = arith.addi %i, %t : index
      soac.yield %j, %v : index, i32
    }
    scf.yield %next : tensor<?xi32>
  }
  %shared = soac.replicate %bins, %z : i32 -> tensor<?xi32>
  %first = soac.index %shared[%c0] : tensor<?xi32> -> i32
  %counts = soac.hist %n (%is, %vs : tensor<?xindex>, tensor<?xi32>) into(%shared : tensor<?xi32>)
      neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.maxsi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %v: i32) {
    soac.yield %i, %v : index, i32
  }
  func.return %once, %looped, %counts, %first : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, i32
}
"""


def hist_into_fresh_args(n: int) -> list[object]:
    rng = np.random.default_rng(n)
    return [np.int64(7), rng.integers(-1, 9, n).astype(np.int64), rng.integers(-20, 20, n).astype(np.int32)]


@pytest.mark.parametrize("n", [0, 9, 500])
def test_hist_into_fresh_arrays(strategy: str, n: int) -> None:
    """A hist updates a replicate made for it alone in place; one made outside the loop that runs the hist, or
    that another op reads, is copied first (each iteration starts from zeros)."""
    same_results(HIST_INTO_FRESH, hist_into_fresh_args(n), hist=strategy)


def test_hist_into_fresh_arrays_copies_only_what_others_see() -> None:
    from soac.lowering.conversion.soac_to_kernel import SoacToKernelPass
    from soac.lowering.kernel import CopyOp
    from xdsl.dialects import scf

    ctx = make_context()
    module = parse_module(ctx, HIST_INTO_FRESH, "hist.mlir")
    SoacToKernelPass().apply(ctx, module)
    copies = [op for op in module.walk() if isinstance(op, CopyOp)]
    assert len(copies) == 2, copies
    assert isinstance(copies[0].parent_op(), scf.ForOp)
    assert copies[1].source.name_hint == "shared"
