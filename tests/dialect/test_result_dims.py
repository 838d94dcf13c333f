# ruff: noqa: E501  (the program is MLIR text, one op per line)
"""`ResultDimsInterface`: every soac op that builds arrays says where each dimension of each of its array results
comes from, one extent per dimension, in terms of values it can see; checked on every op of docs/all-ops.mlir and on
the sizes of a few ops by hand."""

from __future__ import annotations

from pathlib import Path

from soac import dialect as soac
from soac.context import make_context
from soac.dialect.sizes import DimOf
from soac.parsing import parse_module
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

ROOT = Path(__file__).resolve().parents[2]


def _rank(value: SSAValue) -> int:
    return value.type.get_num_dims() if isinstance(value.type, TensorType) else 0


def test_every_op_of_all_ops_answers_one_extent_per_dimension() -> None:
    module = parse_module(make_context(), (ROOT / "docs" / "all-ops.mlir").read_text(), "all-ops.mlir")
    answered: set[str] = set()
    for op in module.walk():
        if not isinstance(op, soac.ResultDimsInterface):
            continue
        for k, result in enumerate(op.results):
            if not isinstance(result.type, TensorType):
                continue
            extents = op.result_dims(k)
            assert len(extents) == result.type.get_num_dims(), f"{op.name} result #{k}: {extents}"
            for extent in extents:
                if isinstance(extent, DimOf):
                    assert 0 <= extent.dim < _rank(extent.array), f"{op.name} result #{k}: {extent}"
                    assert extent.array.owner is not op
                elif isinstance(extent, int):
                    assert extent >= 0, f"{op.name} result #{k}: {extent}"
                elif extent is not None:
                    assert str(extent.type) == "index", f"{op.name} result #{k}: {extent}"
            answered.add(op.name)
    assert {
        "soac.map",
        "soac.hist",
        "soac.segmap",
        "soac.stencil",
        "soac.transpose",
        "soac.rotate",
        "soac.partition",
    } <= answered, answered


PROGRAM = """
func.func @f(%xss: tensor<?x?xf32>, %n: index, %m: index, %z: f32, %zs: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
  %ys = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
    %r = soac.reverse %row [0] : tensor<?xf32>
    soac.yield %r : tensor<?xf32>
  }
  %s = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i: index, %j: index) {
    %e = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
    soac.yield %e : f32
  }
  %t = soac.scan %n (%xss : tensor<?x?xf32>) neutral(%zs : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %b: tensor<?xf32>) {
    soac.yield %a : tensor<?xf32>
  }
  func.return %ys, %s, %t : tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>
}
"""


def test_the_answers_of_a_map_a_segred_and_a_scan() -> None:
    module = parse_module(make_context(), PROGRAM, "f.mlir")
    ops = {op.name: op for op in module.walk()}
    n = ops["func.func"].body.block.args[1]
    reverse, map_, segred, scan = ops["soac.reverse"], ops["soac.map"], ops["soac.segred"], ops["soac.scan"]
    row = map_.body.block.args[0]
    assert map_.result_dims(0) == [n, DimOf(reverse.result, 0)]
    assert reverse.result_dims(0) == [DimOf(row, 0)]
    assert map_.parameter_dims(row) == [DimOf(ops["func.func"].body.block.args[0], 1)]
    assert segred.result_dims(0) == [n]  # the innermost dimension is reduced
    assert scan.result_dims(0) == [n, DimOf(scan.neutral[0], 0)]
    assert scan.parameter_dims(scan.combine.block.args[0]) is None  # an operator's argument: only a promise
    assert scan.operator_parameter_dims(scan.combine.block.args[1]) == [DimOf(scan.neutral[0], 0)]
