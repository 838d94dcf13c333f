"""`conversion/sizes.py`: the sizes of arrays at a place, from what the place has and how each array is built."""

from __future__ import annotations

import pytest
from soac.lowering.conversion.kernel_builder import IndexMath
from soac.lowering.conversion.sizes import Sizes
from xdsl.builder import Builder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.rewriter import InsertPoint

PROGRAM = """
func.func @main(%xss: tensor<?x?xf32>, %steps: index) -> (tensor<?x?xi32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %made, %kept = soac.map %n (%xss : tensor<?x?xf32>) -> (tensor<?x?xi32>, tensor<?x?xf32>) lambda(%row: tensor<?xf32>) {
    %m = tensor.dim %row, %c0 : tensor<?xf32>
    %k = arith.addi %m, %c1 : index
    %is = soac.iota %k : tensor<?xi32>
    %same = scf.for %t = %c0 to %steps step %c1 iter_args(%acc = %row) -> (tensor<?xf32>) {
      scf.yield %acc : tensor<?xf32>
    }
    %shorter = scf.for %t = %c0 to %steps step %c1 iter_args(%acc = %row) -> (tensor<?xf32>) {
      %w = tensor.dim %acc, %c0 : tensor<?xf32>
      %rest = soac.slice %acc[%c1 : %w] : tensor<?xf32> -> tensor<?xf32>
      scf.yield %rest : tensor<?xf32>
    }
    soac.yield %is, %same : tensor<?xi32>, tensor<?xf32>
  }
  func.return %made, %kept : tensor<?x?xi32>, tensor<?x?xf32>
}
"""


def sizes_at(module: ModuleOp, proves_loops: bool) -> tuple[Sizes, Block]:
    """Sizes in a fresh block where `%xss` has the sizes `d0`, `d1` (index arguments) and `%steps` is known."""
    main = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    xss, steps = main.args
    place = Block(arg_types=[IndexType()] * 3)
    d0, d1, s = place.args
    math = IndexMath(Builder(InsertPoint.at_end(place)))
    arrays = {xss: [d0, d1]}
    scalars = {steps: s}
    sizes = Sizes(math, scalars.get, arrays.get, cache={}, proves_loops=proves_loops)
    return sizes, place


def named(module: ModuleOp, name: str) -> SSAValue:
    return next(r for op in module.walk() for r in op.results if r.name_hint == name)


def test_an_iota_in_a_lambda_has_the_rows_size_plus_one_computed_at_the_place(parse) -> None:
    module = parse(PROGRAM)
    sizes, place = sizes_at(module, proves_loops=True)
    (k,) = sizes.dims(named(module, "is"))  # pyright: ignore[reportGeneralTypeIssues]
    add = k.owner
    assert isinstance(add, arith.AddiOp)
    assert add.parent_block() is place
    assert add.lhs is place.args[1]  # the row has the inner size of %xss
    assert IndexMath.constant_of(add.rhs) == 1
    assert sizes.dims(named(module, "made")) == [place.args[0], k]  # the cached clone, not a second one


@pytest.mark.parametrize("proves_loops", [True, False])
def test_a_loop_that_keeps_its_array_has_its_initial_size(parse, proves_loops: bool) -> None:
    module = parse(PROGRAM)
    sizes, place = sizes_at(module, proves_loops)
    assert sizes.dims(named(module, "same")) == [place.args[1]]


def test_a_loop_that_shrinks_its_array_is_known_only_where_the_size_is_checked(parse) -> None:
    """The host must prove the size (and cannot); a kernel keeps the initial size and checks each iteration."""
    module = parse(PROGRAM)
    host, _ = sizes_at(module, proves_loops=True)
    assert host.dims(named(module, "shorter")) is None
    kernel, place = sizes_at(module, proves_loops=False)
    assert kernel.dims(named(module, "shorter")) == [place.args[1]]


def test_a_size_of_a_value_unknown_at_the_place_is_none(parse) -> None:
    module = parse(PROGRAM)
    main = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    math = IndexMath(Builder(InsertPoint.at_end(Block())))
    nothing = Sizes(math, lambda _: None)
    assert nothing.dims(named(module, "is")) is None
    assert nothing.scalar(main.args[1]) is None
