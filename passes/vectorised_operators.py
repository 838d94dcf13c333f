r"""`soac-vectorised-operators`: a reduction or scan of rows whose operator is element-wise becomes one per column.

A `soac.reduce` (or `soac.scan`) over the rows of matrices, whose operator combines two rows with a map
of a scalar operator (vectorised addition of rows), is a map over the columns of a reduction (scan) with
the scalar operator (Futhark's interchange of a vectorised reduction, seed 004):

    %s = soac.reduce %n (%xss : tensor<?x?xi32>) neutral(%zeros : tensor<?xi32>) -> tensor<?xi32>
        combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
      %c = soac.map %m (%a, %b : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
        %t = arith.addi %x, %y : i32
        soac.yield %t : i32
      }
      soac.yield %c : tensor<?xi32>
    }
becomes, where `%zeros = soac.replicate %m, %z` and `%m = tensor.dim %xss, %c1`,
    %xss_cols = soac.transpose %xss [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
    %s = soac.map %m (%xss_cols : tensor<?x?xi32>) -> tensor<?xi32> lambda(%col: tensor<?xi32>) {
      %r = soac.reduce %n (%col : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%x: i32, %y: i32) {
        %t = arith.addi %x, %y : i32
        soac.yield %t : i32
      }
      soac.yield %r : i32
    }

(a scan's result is transposed back). Each column's neutral element is the replicated value where the neutral row
is a `soac.replicate`, else that column of the neutral row (a second input of the map). Only a map whose width is
the rows' length is rewritten: the map over the columns checks their number even when there are no rows.
The lowering runs only scalar operators at top level: `soac-to-kernel` and `soac-flatten` apply this rewrite
to the reductions and scans outside lambdas and in map nests. Fully flattened, a nest becomes a segred or segscan
over (..., columns, rows) of the transposed arrays; where a nest's body stays in a kernel (unflattened, or a
version of incremental flattening), each work-item copies its transposed rows into scratch memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from soac.dialect import SOAC_WITH_LAMBDAS, HistOp, MapOp, ReduceOp, ReplicateOp, ScanOp, TransposeOp, YieldOp
from soac.passes.flatten_analysis import region_free_values
from soac.passes.flatten_checks import array_dim, same_size
from soac.passes.simplify_sizes import has_size
from soac.types import row_type
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern


def element_wise_operator(op: ReduceOp | ScanOp) -> MapOp | None:
    """The map of `op`'s operator if the operator is one map of a scalar operator over its two rows, and the map's
    width is the length of the inputs' rows (`tensor.dim` of dimension 1, or a width that made them)."""
    block = op.combine.block
    inner, terminator = block.first_op, block.last_op
    if not isinstance(inner, MapOp) or inner.next_op is not terminator or not isinstance(terminator, YieldOp):
        return None
    if list(terminator.operands) != list(inner.outs) or sorted(map(id, inner.inputs)) != sorted(map(id, block.args)):
        return None
    if op.combine.is_ancestor(inner.width.owner) or any(isinstance(t, TensorType) for t in inner.body.block.arg_types):
        return None
    if any(arg in region_free_values(inner.body) for arg in block.args):
        return None
    ranks = [x.type.get_num_dims() if isinstance(x.type, TensorType) else 0 for x in op.inputs]
    if any(rank != 2 for rank in ranks):
        return None
    # the map over the columns checks their number against the width even for no rows, which the operator's does not
    known = [same_size(inner.width, array_dim(x, 1)) or has_size(op, x, 1, inner.width) for x in op.inputs]
    return inner if all(known) else None


def scalar_operator(op: ReduceOp | ScanOp | HistOp, inner: MapOp) -> Region:
    """The operator of one column (or one element of a hist's rows): the map's lambda, its parameters in the order
    of the operator's."""
    lambda_block = inner.body.block
    params = {id(x): param for x, param in zip(inner.inputs, lambda_block.args)}
    block = Block(arg_types=[params[id(arg)].type for arg in op.combine.block.args])
    mapper: dict[SSAValue, SSAValue] = {params[id(arg)]: new for arg, new in zip(op.combine.block.args, block.args)}
    for arg, new in zip(op.combine.block.args, block.args):
        new.name_hint = params[id(arg)].name_hint
    for inner_op in lambda_block.ops:
        block.add_op(inner_op.clone(mapper))
    return Region(block)


@dataclass
class VectorisedOperatorToMap(RewritePattern):
    """reduce/scan (map f) ne xss -> map (reduce/scan f) (transpose xss) ne, outside lambdas (or in maps)."""

    in_maps: bool = True
    """Also rewrite the reductions and scans inside map lambdas (soac-flatten flattens those)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceOp | ScanOp, rewriter: PatternRewriter, /) -> None:
        lambdas = [p for p in ancestors(op) if isinstance(p, SOAC_WITH_LAMBDAS)]
        if any(not isinstance(p, MapOp) or not self.in_maps for p in lambdas):
            return
        if (inner := element_wise_operator(op)) is None:
            return
        columns = [TransposeOp(x, [1, 0]) for x in op.inputs]
        for transposed, x in zip(columns, op.inputs):
            transposed.result.name_hint = f"{x.name_hint or 'rows'}_cols"
        replicated = [_replicated(ne, inner.width) for ne in op.neutral]
        if any(v is None for v in replicated):  # each column's neutral element: that column of the neutral rows
            replicated = []
        neutral_rows = [] if replicated else list(op.neutral)
        body = Block(arg_types=[*(_row(c.result.type) for c in columns), *(_row(ne.type) for ne in neutral_rows)])
        cols, elements = body.args[: len(columns)], list(body.args[len(columns) :]) or replicated
        for col in cols:
            col.name_hint = "col"
        for element, row in zip(body.args[len(columns) :], neutral_rows):
            element.name_hint = f"{row.name_hint or 'ne'}_elem"
        operator = scalar_operator(op, inner)
        per_column = (
            ReduceOp(op.width, elements, cols, operator, op.commutative is not None)
            if isinstance(op, ReduceOp)
            else ScanOp(op.width, elements, cols, operator)
        )
        body.add_ops([per_column, YieldOp(*per_column.results)])
        result_types = [_transposed(t) if isinstance(op, ScanOp) else t for t in op.result_types]
        mapped = MapOp(inner.width, [*(c.result for c in columns), *neutral_rows], result_types, Region(body))
        per_column.location = mapped.location = op.location  # run-time errors point at the source op
        new_ops: list[Operation] = [*columns, mapped]
        results = list(mapped.results)
        if isinstance(op, ScanOp):
            for scanned, old in zip(mapped.results, op.results):
                scanned.name_hint = f"{old.name_hint or 'scan'}_cols"
            back = [TransposeOp(r, [1, 0]) for r in mapped.results]
            new_ops.extend(back)
            results = [b.result for b in back]
        for result, old in zip(results, op.results):
            result.name_hint = old.name_hint
        rewriter.replace(op, new_ops, results)


def _replicated(row: SSAValue, width: SSAValue) -> SSAValue | None:
    """The value that `row` replicates `width` times, if it is such a replicate."""
    owner = row.owner
    if not isinstance(owner, ReplicateOp) or not same_size(width, owner.width):
        return None
    return owner.value


def ancestors(op: Operation) -> list[Operation]:
    """The ops around `op`, innermost first."""
    found: list[Operation] = []
    parent = op.parent_op()
    while parent is not None:
        found.append(parent)
        parent = parent.parent_op()
    return found


def _row(t: Attribute) -> Attribute:
    row = row_type(t)
    assert row is not None
    return row


def _transposed(t: Attribute) -> TensorType:
    assert isinstance(t, TensorType)
    rows, cols = t.get_shape()
    return TensorType(t.get_element_type(), [cols, rows])


def interchange_vectorised_operators(module: builtin.ModuleOp, in_maps: bool = True) -> None:
    """Rewrite the reductions and scans with element-wise operators on rows outside lambdas (and in maps)."""
    PatternRewriteWalker(VectorisedOperatorToMap(in_maps)).rewrite_module(module)


@dataclass(frozen=True)
class VectorisedOperatorsPass(ModulePass):
    """Reductions and scans of rows with element-wise operators become maps of reductions and scans of columns."""

    name = "soac-vectorised-operators"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        interchange_vectorised_operators(op)
