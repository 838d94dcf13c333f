"""soac-tile: which nests become `soac.tiled_redomap`s, and that the tiled program computes what the nest did.

Random nests (maps of redomaps over shared arrays, with random i32 operators, captured scalars and per-element
reads) are flattened, tiled, and run by the interpreter before and after; integer results must be equal.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from soac.context import make_context
from soac.dialect import REDUCED, SegredOp, TiledRedomapOp
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_tile import SoacTilePass
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from xdsl.dialects.builtin import ModuleOp

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def parse(text: str) -> ModuleOp:
    return parse_module(make_context(), text, "test.mlir")


def tile(module: ModuleOp, **options: int) -> ModuleOp:
    SoacTilePass(**options).apply(make_context(), module)
    module.verify()
    return module


def tiled_ops(module: ModuleOp) -> list[TiledRedomapOp]:
    return [op for op in module.walk() if isinstance(op, TiledRedomapOp)]


HEADER = """
func.func @main(%a: tensor<?x?xi32>, %bt: tensor<?x?xi32>, %xs: tensor<?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %k = tensor.dim %a, %c1 : tensor<?x?xi32>
  %m = tensor.dim %bt, %c0 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
"""

SEGRED = (
    HEADER
    + """
  %r = soac.segred thread (%n, %m, %k) neutral(%zero : i32) -> tensor<?x?xi32> combine(%s: i32, %t: i32) {
    %u = arith.addi %s, %t : i32
    soac.yield %u : i32
  } lambda(%i: index, %j: index, %l: index) {
    %x = soac.index %a[%i, %l] : tensor<?x?xi32> -> i32
    %y = soac.index BODY
    %p = arith.muli %x, %y : i32
    soac.yield %p : i32
  }
  func.return %r : tensor<?x?xi32>
}
"""
)


def test_segred_over_shared_rows_is_tiled() -> None:
    module = tile(parse(SEGRED.replace("BODY", "%bt[%j, %l] : tensor<?x?xi32> -> i32")))
    (op,) = tiled_ops(module)
    assert op.accesses == [(0, REDUCED), (1, REDUCED)]
    assert [r.name_hint for r in op.reads] == ["a", "bt"]
    assert not any(isinstance(o, SegredOp) for o in module.walk())


def test_no_reuse_no_tiling() -> None:
    """Each work-item reads a row of its own: nothing is shared."""
    text = """
func.func @main(%a: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %k = tensor.dim %a, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %r = soac.segred thread (%n, %k) neutral(%zero : i32) -> tensor<?xi32> combine(%s: i32, %t: i32) {
    %u = arith.addi %s, %t : i32
    soac.yield %u : i32
  } lambda(%i: index, %l: index) {
    %x = soac.index %a[%i, %l] : tensor<?x?xi32> -> i32
    soac.yield %x : i32
  }
  func.return %r : tensor<?xi32>
}
"""
    module = tile(parse(text))
    assert tiled_ops(module) == []
    assert any(isinstance(op, SegredOp) for op in module.walk())


def test_index_arithmetic_in_the_lambda_is_not_tiled() -> None:
    text = SEGRED.replace("BODY", "%bt[%j, %l] : tensor<?x?xi32> -> i32").replace(
        "%p = arith.muli %x, %y : i32", "%w = arith.index_cast %i : index to i32\n    %p = arith.muli %x, %w : i32"
    )
    module = tile(parse(text))
    assert tiled_ops(module) == []


def test_the_old_group_spelling_of_a_segred_is_tiled_as_thread() -> None:
    """`segred group` parses as `segred thread` (the level no longer picks a strategy), so it is tiled the same."""
    group = SEGRED.replace("BODY", "%bt[%j, %l] : tensor<?x?xi32> -> i32").replace("segred thread", "segred group")
    assert "segred group" in group
    assert len(tiled_ops(tile(parse(group)))) == 1


def test_options_set_the_sizes_and_bad_sizes_are_reported() -> None:
    text = SEGRED.replace("BODY", "%bt[%j, %l] : tensor<?x?xi32> -> i32")
    (op,) = tiled_ops(tile(parse(text), block=32, reg=2, chunk=4))
    assert (op.sizes.block, op.sizes.reg, op.sizes.chunk) == ((32, 32), (2, 2), 4)
    with pytest.raises(
        ValueError, match=r"soac-tile: test.mlir:\d+:\d+: for this 2-dimensional nest, reg size 3 does not divide"
    ):
        tile(parse(text), block=32, reg=3)
    with pytest.raises(ValueError, match="makes work-groups of 4096 > 1024"):
        tile(parse(text), block=256, reg=4)
    (op,) = tiled_ops(tile(parse(text), block=32, reg=2, chunk=4, block_d1=64, reg_d1=8))
    assert (op.sizes.block, op.sizes.reg) == ((32, 64), (2, 8))
    with pytest.raises(ValueError, match="reg size 16 does not divide block size 8 in dimension 1"):
        tile(parse(text), block=8, reg=2, reg_d1=16)


def test_every_version_of_matmul_is_tiled_once_with_its_own_name() -> None:
    module = parse((EXAMPLES / "matmul.mlir").read_text())
    SoacFlattenPass().apply(make_context(), module)
    tile(module)
    ops = tiled_ops(module)
    assert [op.tile_name for op in ops] == ["tile_0", "tile_1"]
    assert all(op.accesses == [(0, REDUCED), (1, REDUCED)] for op in ops)
    tile(module)  # a second run finds nothing left to tile
    assert [op.tile_name for op in tiled_ops(module)] == ["tile_0", "tile_1"]


# ---------------------------------------------------------------------------
# Random nests, before and after
# ---------------------------------------------------------------------------

OPERATORS = {"addi": "0", "maxsi": "-2147483648", "minsi": "2147483647", "xori": "0"}
MAPS = ("addi", "subi", "xori", "maxsi", "muli")


@st.composite
def nests(draw: st.DrawFn) -> tuple[str, bool]:
    """A map (or map of maps) of a redomap over rows of `a` and `bt` or over all of `xs`, flattened then tiled."""
    combine = draw(st.sampled_from(sorted(OPERATORS)))
    first, second = draw(st.sampled_from(MAPS)), draw(st.sampled_from(MAPS))
    two_d = draw(st.booleans())
    captured = draw(st.booleans())
    extra = "%w = arith.addi %x, %c3 : i32\n      " if captured else ""
    use = "%w" if captured else "%x"
    if two_d:
        body = f"""
  %c = soac.map %n (%a : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%arow: tensor<?xi32>) {{
    %crow = soac.map %m (%bt : tensor<?x?xi32>) -> tensor<?xi32> lambda(%bcol: tensor<?xi32>) {{
      %d = soac.redomap %k (%arow, %bcol : tensor<?xi32>, tensor<?xi32>) neutral(%ne : i32) -> i32 combine(%s: i32, %t: i32) {{
        %u = arith.{combine} %s, %t : i32
        soac.yield %u : i32
      }} lambda(%x: i32, %y: i32) {{
        %c3 = arith.constant 3 : i32
        {extra}%p = arith.{first} {use}, %y : i32
        %q = arith.{second} %p, %g : i32
        soac.yield %q : i32
      }}
      soac.yield %d : i32
    }}
    soac.yield %crow : tensor<?xi32>
  }}
  func.return %c : tensor<?x?xi32>
"""
        result = "tensor<?x?xi32>"
    else:
        body = f"""
  %c = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x0: i32) {{
    %d = soac.redomap %n (%xs : tensor<?xi32>) neutral(%ne : i32) -> i32 combine(%s: i32, %t: i32) {{
      %u = arith.{combine} %s, %t : i32
      soac.yield %u : i32
    }} lambda(%y: i32) {{
      %c3 = arith.constant 3 : i32
      %x = arith.addi %x0, %g : i32
      {extra}%p = arith.{first} {use}, %y : i32
      soac.yield %p : i32
    }}
    soac.yield %d : i32
  }}
  func.return %c : tensor<?xi32>
"""
        result = "tensor<?xi32>"
    text = f"""
func.func @main(%a: tensor<?x?xi32>, %bt: tensor<?x?xi32>, %xs: tensor<?xi32>, %g: i32) -> {result} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %k = tensor.dim %a, %c1 : tensor<?x?xi32>
  %m = tensor.dim %bt, %c0 : tensor<?x?xi32>
  %ne = arith.constant {OPERATORS[combine]} : i32
{body}}}
"""
    return text, two_d


def nest_args(n: int, k: int, m: int, seed: int) -> list[object]:
    """`a` (n x k), `bt` (m x k), `xs` (n) and the scalar `g` of a generated nest."""
    rng = np.random.default_rng(seed)
    return [
        rng.integers(-9, 9, (n, k)).astype(np.int32),
        rng.integers(-9, 9, (m, k)).astype(np.int32),
        rng.integers(-9, 9, n).astype(np.int32),
        np.int32(rng.integers(-3, 4)),
    ]


@settings(max_examples=25, deadline=None)
@given(nests(), st.integers(0, 6), st.integers(0, 5), st.integers(0, 6), st.integers(0, 2**31 - 1))
def test_random_nests_keep_their_results(nest: tuple[str, bool], n: int, k: int, m: int, seed: int) -> None:
    text, _ = nest
    args = nest_args(n, k, m, seed)
    original = parse(text)
    (expected,) = interpret(original, "main", args)
    module = parse(text)
    SoacFlattenPass().apply(make_context(), module)
    tile(module, block=4, reg=2, chunk=3)
    assert tiled_ops(module), "a nest that reuses its reads was not tiled"
    names = [t.name for t in list_thresholds(module)]
    for value in (0, MAX_THRESHOLD):
        for name in names:
            thresholds = dict.fromkeys(names, MAX_THRESHOLD) | {name: value}
            (got,) = interpret(module, "main", args, thresholds)
            np.testing.assert_array_equal(got, expected)


@settings(max_examples=6, deadline=None)
@given(nests(), st.integers(0, 9), st.integers(0, 9), st.integers(0, 9), st.integers(0, 2**31 - 1))
@pytest.mark.slow
def test_random_tiled_nests_on_opencl(nest: tuple[str, bool], n: int, k: int, m: int, seed: int) -> None:
    """The tiled kernel (target `generic`: local tiles, also on PoCL) against the interpreter."""
    text, _ = nest
    args = nest_args(n, k, m, seed)
    module = parse(text)
    SoacFlattenPass().apply(make_context(), module)
    tile(module, block=4, reg=2, chunk=3)
    program = compile_module(module, target="generic")
    names = [t.name for t in list_thresholds(module)]
    for name in names:
        thresholds = dict.fromkeys(names, MAX_THRESHOLD) | {name: 0}
        (expected,) = interpret(module, "main", args, thresholds)
        (got,) = program.call("main", args, thresholds)
        np.testing.assert_array_equal(got, expected)
