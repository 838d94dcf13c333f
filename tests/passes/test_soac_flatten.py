"""soac-flatten keeps the interpreter's results: every version of every nest, on the examples and on random nests.

A versioned program is run with each combination of its thresholds at 0 (always take the guarded version)
and at 2**62 (never), which forces every version; each run must give the results of the original program.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from soac.context import make_context
from soac.dialect import SegmapOp, SegredOp, SegscanOp, ThresholdOp
from soac.interpreter import run_function
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_tile import SoacTilePass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from xdsl.dialects.builtin import ModuleOp

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MODES = ["incremental", "moderate", "full"]


def flattened(text: str, mode: str, tile: bool = False) -> ModuleOp:
    """`text` after soac-flatten in `mode`, then soac-tile (with small tiles) if `tile`."""
    ctx = make_context()
    module = parse_module(ctx, text, "test")
    SoacFlattenPass(mode=mode).apply(ctx, module)  # pyright: ignore[reportArgumentType]
    if tile:
        SoacTilePass(block=4, reg=2, chunk=3).apply(ctx, module)
    module.verify()
    return module


def assert_every_version(text: str, args: list[Any], mode: str = "incremental", tile: bool = False) -> int:
    """Runs every version of the flattened (and tiled) program; returns how many threshold settings there were."""
    expected = run_function(parse_module(make_context(), text, "test"), "main", args)
    module = flattened(text, mode, tile)
    names = [t.name for t in list_thresholds(module)]
    settings_ = list(itertools.product([0, MAX_THRESHOLD], repeat=len(names)))
    for values in settings_:
        got = run_function(module, "main", args, thresholds=dict(zip(names, values)))
        for want, have in zip(expected, got, strict=True):
            np.testing.assert_allclose(np.asarray(have), np.asarray(want), rtol=1e-4, atol=1e-4)
    return len(settings_)


def example_args(name: str) -> list[Any]:
    rng = np.random.default_rng(7)
    if name == "matmul.mlir":
        return [rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)]
    if name == "sum_rows.mlir":
        return [rng.standard_normal((6, 9)).astype(np.float32)]
    return [rng.standard_normal((4, 7)).astype(np.float32), rng.uniform(-0.9, 0.9, 7).astype(np.float32), 3]


@pytest.mark.parametrize("tile", [False, True], ids=["flattened", "tiled"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["matmul.mlir", "sum_rows.mlir", "locvolcalib.mlir"])
def test_examples_every_version(name: str, mode: str, tile: bool) -> None:
    count = assert_every_version((EXAMPLES / name).read_text(), example_args(name), mode, tile)
    assert count > 1 if mode == "incremental" else count == 1


def test_versions_of_sum_rows() -> None:
    """Incremental flattening of map(reduce): the outer-parallel and flat versions under one threshold (one inner
    reduction makes no intra-group version, as in Futhark)."""
    module = flattened((EXAMPLES / "sum_rows.mlir").read_text(), "incremental")
    infos = list_thresholds(module)
    assert [(t.name, t.default) for t in infos] == [("suff_outer_par_0", 32768)]
    levels = [(type(op).__name__, op.level.data.value) for op in module.walk() if isinstance(op, SegmapOp | SegredOp)]
    assert levels == [("SegmapOp", "thread"), ("SegredOp", "thread")]


def test_full_and_moderate_have_no_thresholds() -> None:
    for mode in ("full", "moderate"):
        module = flattened((EXAMPLES / "matmul.mlir").read_text(), mode)
        assert not any(isinstance(op, ThresholdOp) for op in module.walk())
    full = flattened((EXAMPLES / "matmul.mlir").read_text(), "full")
    assert sum(isinstance(op, SegredOp) for op in full.walk()) == 1


def test_unknown_mode() -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        flattened((EXAMPLES / "sum_rows.mlir").read_text(), "sideways")


# ---------------------------------------------------------------------------
# Random nests
# ---------------------------------------------------------------------------

INNER = {
    "map": """
    %ys = soac.map %m (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.muli %x, %c3 : i32
      %z = arith.addi %y, %k : i32
      soac.yield %z : i32
    }""",
    "redomap": """
    %s = soac.redomap %m (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    } lambda(%x: i32) {
      %y = arith.muli %x, %x : i32
      soac.yield %y : i32
    }
    %ys = soac.map %m (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.subi %x, %s : i32
      soac.yield %y : i32
    }""",
    "scanomap": """
    %ys = soac.scanomap %m (%xs : tensor<?xi32>) neutral(%lowest : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %c = arith.maxsi %a, %b : i32
      soac.yield %c : i32
    } lambda(%x: i32) {
      %y = arith.addi %x, %k : i32
      soac.yield %y : i32
    } post(%mx: i32, %x: i32) {
      %d = arith.subi %mx, %x : i32
      soac.yield %d : i32
    }""",
    "loop": """
    %ys = scf.for %t = %c0 to %steps step %c1 iter_args(%acc = %xs) -> (tensor<?xi32>) {
      %s = soac.reduce %m (%acc : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
        %c = arith.maxsi %a, %b : i32
        soac.yield %c : i32
      }
      %next = soac.map %m (%acc : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
        %y = arith.subi %s, %x : i32
        soac.yield %y : i32
      }
      scf.yield %next : tensor<?xi32>
    }""",
}


def program(inner: str, rank: int) -> str:
    """@main over a rank-2 or rank-3 array: maps down to rows, then `inner` on each row (yielding %ys)."""
    dims = ["%d0", "%d1", "%d2"][:rank]
    shapes = ["tensor<" + "x".join("?" * (rank - level)) + "xi32>" for level in range(rank)]
    head = [
        f"func.func @main(%in: {shapes[0]}, %k: i32, %steps: index) -> {shapes[0]} {{",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c2 = arith.constant 2 : index",
        "  %c3 = arith.constant 3 : i32",
        "  %zero = arith.constant 0 : i32",
        "  %lowest = arith.constant -2147483648 : i32",
        *(f"  {d} = tensor.dim %in, %c{i} : {shapes[0]}" for i, d in enumerate(dims)),
        f"  %m = tensor.dim %in, %c{rank - 1} : {shapes[0]}",
    ]
    names = ["%in", *(f"%v{level}" for level in range(1, rank - 1)), "%xs"]
    body = INNER[inner] + "\n    soac.yield %ys : tensor<?xi32>"
    for level in reversed(range(rank - 1)):
        row = names[level + 1]
        body = (
            f"%r{level} = soac.map {dims[level]} ({names[level]} : {shapes[level]}) -> {shapes[level]} "
            f"lambda({row}: {shapes[level + 1]}) {{\n{body}\n  }}"
        )
        if level:
            body += f"\n  soac.yield %r{level} : {shapes[level]}"
    return "\n".join([*head, "  " + body, f"  func.return %r0 : {shapes[0]}", "}"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inner=st.sampled_from(sorted(INNER)),
    shape=st.one_of(
        st.tuples(st.integers(0, 4), st.integers(0, 5)), st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 4))
    ),
    mode=st.sampled_from(MODES),
    tile=st.booleans(),
    k=st.integers(-5, 5),
    steps=st.integers(0, 3),
    seed=st.integers(0, 2**16),
)
def test_random_nests(inner: str, shape: tuple[int, ...], mode: str, tile: bool, k: int, steps: int, seed: int) -> None:
    data = np.random.default_rng(seed).integers(-20, 20, shape, dtype=np.int32)
    assert_every_version(program(inner, len(shape)), [data, np.int32(k), steps], mode, tile)


def test_random_program_is_flattened() -> None:
    """The generator's 3-D loop nest is interchanged: the loop ends up outside, with segmented ops inside."""
    module = flattened(program("loop", 3), "full")
    assert not any(op.name == "soac.map" for op in module.walk())
    kinds = {type(op) for op in module.walk()}
    assert {SegredOp, SegmapOp} <= kinds
    assert SegscanOp not in kinds
