"""The rewrites of soac-small-intra on a thread-level nest's lambda (see `soac.passes.soac_small_intra`): row inputs
of redomaps as element reads, reads through transposes, iotas computed where they are read, the reads of a batch's
blocks, and transposes and iotas moved into the versions that read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from soac.dialect import (
    AssertOp,
    IndexOp,
    IotaOp,
    RedomapOp,
    SegmapOp,
    TransposeOp,
    YieldOp,
    defined_inside,
)
from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType, i64
from xdsl.ir import Block, Operation, Region, SSAValue, Use
from xdsl.rewriter import InsertPoint, Rewriter


class NotSmallNest(Exception):
    """Internal: the nest does not have the shape this pass stages."""


def element_bytes(t: TensorType) -> int:
    width = getattr(t.get_element_type(), "bitwidth", 64)
    return max(1, width // 8)


@dataclass
class RowCheck:
    """A row input `array[..]` (its length: the array's size `axis`) that a redomap of width `red.width` read as input
    `k`, before it became element reads: the staged version checks the width as the row would have."""

    red: RedomapOp
    k: int
    array: SSAValue
    axis: int

    def emit(self, builder: Builder, empty: SSAValue) -> None:
        """`soac.assert width == size or the nest is empty`, with the size read through transposes (so the staged
        version does not compute them)."""
        array, axis = self.array, self.axis
        while isinstance(transpose := array.owner, TransposeOp):
            array, axis = transpose.array, list(transpose.perm)[axis]
        index = builder.insert(arith.ConstantOp(IntegerAttr(axis, IndexType()))).result
        rows = builder.insert(tensor.DimOp(array, index)).result
        rows.name_hint = "rows"
        same = builder.insert(arith.CmpiOp(self.red.width, rows, "eq")).result
        same.name_hint = "same_rows"
        checked = builder.insert(arith.OrIOp(same, empty)).result
        checked.name_hint = "checked"
        problem = f"'{self.red.name}': width {{0}} does not match the outer size {{1}} of input #{self.k}"
        builder.insert(AssertOp(checked, problem, [self.red.width, rows])).location = self.red.location


@dataclass
class SmallNest:
    """One thread-level segmap being given a staged version: its batch index and the blocks its lambda reads."""

    op: SegmapOp
    staged: list[SSAValue] = field(default_factory=list)
    """The arrays (defined before the segmap) whose batch blocks the group stages, in order of first read."""
    rows: list[RowCheck] = field(default_factory=list)
    """The row inputs of redomaps that became element reads."""

    @property
    def batch(self) -> SSAValue:
        return self.op.body.block.args[0]

    def is_batch_index(self, value: SSAValue) -> bool:
        """`value` is the batch index: the lambda's first index, an `index_cast` of it, or an iota read by it."""
        if value is self.batch:
            return True
        owner = value.owner
        if isinstance(owner, arith.IndexCastOp):
            return self.is_batch_index(owner.input)
        if isinstance(owner, IndexOp) and len(owner.indices) == 1 and isinstance(owner.array.owner, IotaOp):
            return self.is_batch_index(owner.indices[0])
        return False

    def outside(self, value: SSAValue) -> bool:
        return not defined_inside(value, self.op)


def elements_from_rows(red: RedomapOp, nest: SmallNest) -> None:
    """A redomap over rows `%X[idx]` of arrays from outside becomes a redomap over `iota width` whose lambda reads
    the elements `%X[idx, k]`:

        %s = soac.redomap %k (%row, %col : ...) ... lambda(%x: f32, %y: f32) { body }

    becomes

        %s = soac.redomap %k (%ks : tensor<?xi64>) ... lambda(%l: i64) {
          %kk = arith.index_cast %l : i64 to index
          %x = soac.index %a[%p, %i, %kk] ...; %y = soac.index %bt[%p, %j, %kk] ...; body
        }
    """
    rows: list[IndexOp] = []
    for value in red.inputs:
        row = value.owner
        if not isinstance(row, IndexOp) or not isinstance(value.type, TensorType) or value.type.get_num_dims() != 1:
            raise NotSmallNest
        rows.append(row)
        nest.rows.append(RowCheck(red, len(rows) - 1, row.array, len(row.indices)))
    if len(red.outs) != len(red.neutral):
        raise NotSmallNest  # map-out arrays: rows of the results, which the staged version does not build
    ks = Builder(InsertPoint.before(red)).insert(IotaOp(red.width, TensorType(i64, [DYNAMIC_INDEX]))).result
    ks.name_hint = "ks"
    lam = red.body.block
    block = Block(arg_types=[i64])
    block.args[0].name_hint = "l"
    cast = arith.IndexCastOp(block.args[0], IndexType())
    block.add_op(cast)
    mapping: dict[SSAValue, SSAValue] = {}
    for param, row in zip(lam.args, rows):
        read = IndexOp(row.array, [*row.indices, cast.result])
        read.location = row.location
        read.result.name_hint = param.name_hint
        block.add_op(read)
        mapping[param] = read.result
    for inner in lam.ops:
        block.add_op(inner.clone(value_mapper=mapping))
    types = [r.type for r in red.outs]
    commutative = red.commutative is not None
    new = RedomapOp(red.width, list(red.neutral), [ks], types, red.combine.clone(), Region(block), commutative)
    for result, old in zip(new.outs, red.outs):
        result.name_hint = old.name_hint
    Rewriter.replace_op(red, new)
    for row in rows:
        if not row.result.uses:
            Rewriter.erase_op(row)


def iotas_beside(red: RedomapOp, nest: SmallNest) -> None:
    """A redomap over iotas from outside the nest reads copies made beside it, which the lowering never stores
    (each element computed where it is read), and reads of iotas by one index are the index itself."""
    for k, value in enumerate(red.inputs):
        if nest.outside(value) and isinstance(iota := value.owner, IotaOp):
            copy = iota.clone()
            Rewriter.insert_op(copy, InsertPoint.before(red))
            red.operands[1 + len(red.neutral) + k] = copy.result


def index_of_iota_reads(body: Block, nest: SmallNest) -> None:
    """`soac.index %iota[%i]` of an iota from outside as `arith.index_cast %i`; then the reads and casts that nothing
    uses any more are dropped."""
    for inner in list(body.walk()):
        if isinstance(inner, IndexOp) and nest.outside(inner.array) and isinstance(inner.array.owner, IotaOp):
            if len(inner.indices) == 1:
                cast = arith.IndexCastOp(inner.indices[0], inner.result.type)
                cast.result.name_hint = inner.result.name_hint
                Rewriter.replace_op(inner, cast)
    for inner in reversed(list(body.ops)):
        if not isinstance(inner, YieldOp) and not any(r.uses for r in inner.results):
            if isinstance(inner, IndexOp | arith.IndexCastOp):
                Rewriter.erase_op(inner)


def read_through_transpose(read: IndexOp) -> IndexOp:
    """`%t[c0, ..., cn]` of `%t = soac.transpose %x [perm]` (every index given, the batch dimension kept first) as
    `%x[...]`, the indices permuted back."""
    transpose = read.array.owner
    if not isinstance(transpose, TransposeOp) or len(read.indices) != len(transpose.perm):
        return read
    perm = list(transpose.perm)
    if perm[0] != 0:
        return read
    indices = [read.indices[perm.index(d)] for d in range(len(perm))]
    new = IndexOp(transpose.array, indices)
    new.location = read.location
    new.result.name_hint = read.result.name_hint
    Rewriter.replace_op(read, new)
    return new


def staged_reads(nest: SmallNest, body: Block) -> list[IndexOp]:
    """The element reads of `body` that read a batch's block of an array from outside (after reading through
    transposes); raises where the lambda reads arrays from outside in a way the staged version cannot keep."""
    reads: list[IndexOp] = []
    for inner in list(body.walk()):
        if not isinstance(inner, IndexOp) or not nest.outside(inner.array):
            continue
        if isinstance(inner.array.owner, IotaOp):
            continue
        if isinstance(inner.result.type, TensorType):
            raise NotSmallNest  # a row read left over: the lambda reads it some other way than by a redomap
        inner = read_through_transpose(inner)
        if len(inner.indices) >= 2 and nest.is_batch_index(inner.indices[0]):
            reads.append(inner)
            if inner.array not in nest.staged:
                nest.staged.append(inner.array)
    return reads


def sink_into_branches(op: Operation) -> None:
    """A transpose or iota whose every use lies in branches of `scf.if`s after it in its block moves into those
    branches (a copy in each), and on down: the staged version reads the array a transpose transposes and computes
    its indices, so only the versions that read the transpose or the iota compute them."""
    block = op.parent_block()
    if block is None:
        return
    branches: dict[Block, list[Use]] = {}
    for result in op.results:
        for use in result.uses:
            here: Operation | None = use.operation
            while here is not None and here.parent_block() is not block:
                here = here.parent_op()
            if not isinstance(here, scf.IfOp) or here is use.operation:
                return
            branch = next(r.block for r in here.regions if r.blocks and r.block.find_ancestor_op_in_block(use.operation))
            branches.setdefault(branch, []).append(use)
    for branch, uses in branches.items():
        copy = op.clone()
        branch.insert_op_before(copy, branch.first_op) if branch.first_op else branch.add_op(copy)
        for use in uses:
            use.operation.operands[use.index] = copy.results[op.results.index(use.operation.operands[use.index])]
        sink_into_branches(copy)
    if not any(result.uses for result in op.results):
        op.detach()
        op.erase()


def uses_in(op: Operation, region_op: Operation) -> bool:
    return any(region_op.is_ancestor(use.operation) for result in op.results for use in result.uses)


def block_elements(builder: Builder, array: SSAValue) -> SSAValue:
    """The elements of one batch's block of `array` (its sizes after the first), at `builder`."""
    t = array.type
    assert isinstance(t, TensorType)
    total: SSAValue | None = None
    for d in range(1, t.get_num_dims()):
        index = builder.insert(arith.ConstantOp(IntegerAttr(d, IndexType()))).result
        size = builder.insert(tensor.DimOp(array, index)).result
        total = size if total is None else builder.insert(arith.MuliOp(total, size)).result
    assert total is not None
    total.name_hint = "block_elements"
    return total
