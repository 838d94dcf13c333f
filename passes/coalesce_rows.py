r"""`soac-coalesce`'s rows rule: the rows a thread-level kernel writes come from a kernel of their own.

After `soac-flatten`, the outer-parallel version of a row softmax or layernorm is a `soac.segmap thread` whose
work-item `%i` computes row `%i` of its result with a nested `soac.map`, written element after element: neighbouring
work-items write addresses a whole row apart (and the lowering builds the row, and the map-outs it reads, in
per-work-item scratch memory first: more accesses a row apart). The row is a map of the work-item's scalars and of
rows that can be recomputed element by element (rows of arrays made before the kernel, iotas, and the results and
map-outs of the maps and redomaps that made them), so the rule moves it into a second segmap over (rows, row length)
whose work-item `(%i, %j)` computes element `%j` of row `%i`: it reads `%x[%i, %j]` and writes `[%i, %j]`, next to
its neighbours'. The first kernel keeps the rest and yields the scalars the row needs:

    %y, %l = soac.segmap thread (%n) -> (tensor<?x?xf32>, tensor<?xf32>) lambda(%i: index) {
      %r = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
      %m = soac.reduce %w (%r : tensor<?xf32>) ... max
      %s, %e = soac.redomap %w (%r : tensor<?xf32>) ... lambda(%v: f32) { %t = exp(%v - %m); yield %t, %t }
      %row = soac.map %w (%e : tensor<?xf32>) -> tensor<?xf32> lambda(%u: f32) { %q = %u / %s; yield %q }
      %lse = ...
      soac.yield %row, %lse : tensor<?xf32>, f32
    }
  becomes
    %l, %m_of, %s_of = soac.segmap thread (%n) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) lambda(%i: index) {
      %r = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
      %m = soac.reduce %w (%r : tensor<?xf32>) ... max
      %s = soac.redomap %w (%r : tensor<?xf32>) ... lambda(%v: f32) { %t = exp(%v - %m); yield %t }
      %lse = ...
      soac.yield %lse, %m, %s : f32, f32, f32
    }
    %y = soac.segmap thread (%n, %w) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
      %m_1 = soac.index %m_of[%i] : tensor<?xf32> -> f32
      %s_1 = soac.index %s_of[%i] : tensor<?xf32> -> f32
      %v = soac.index %x[%i, %j] : tensor<?x?xf32> -> f32
      %t = exp(%v - %m_1)                                   // the redomap's map-out, recomputed
      %q = %t / %s_1
      soac.yield %q : f32
    }

The map-outs the row reads (`%e`) are recomputed rather than stored, and the first kernel no longer makes them. The
manifest rules (`coalesce_manifest.py`) then give the first kernel's row reads a transposed copy; the second
kernel's reads have the work-item's index last already. The rule decides from the index expressions alone:

- only a `segmap thread` that no other SOAC holds (a work-group's rows are written by the whole group: coalesced
  already) and the rows of scalars that the segmap yields (its index space's last index is the work-item's; the
  row's elements follow it in memory) and nothing else reads, made by a map (its results) or a redomap (its
  map-outs, which the first kernel then no longer makes) of the kernel's block; all of them of one width, computed
  together by the one second kernel;
- only where every row the map reads can be recomputed at `[.., %j]`: a row `%a[.., %i]` or an array made before
  the kernel, an iota of the row's length, or a result (a map-out) of a map or redomap of the kernel's block whose
  rows are such rows; any other array (a scan's result, a row built in a loop) keeps the kernel as it is;
- only rows that may be long: a row length known in the type below `MIN_ROW` shares cache lines with its
  neighbours' rows.

Sizes: where a row's length is not provably the map's width, the first kernel keeps the check as a `soac.assert`
with the map's message (it runs for every work-item, as the map's own check did).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from soac import dialect as soac
from soac.dialect.canonicalization import RemoveUnusedMapParts, RemoveUnusedRedomapParts
from soac.passes.coalesce_manifest import MIN_ROW, defined_inside, host_thread_segmap
from soac.passes.simplify_sizes import constant_index, has_size
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.transforms.dead_code_elimination import region_dce

PRODUCERS = (soac.MapOp, soac.RedomapOp)
"""The ops of the kernel's block whose map-outs a written row may read, recomputed element by element."""


def _first_map_out(producer: soac.MapOp | soac.RedomapOp) -> int:
    return len(producer.neutral) if isinstance(producer, soac.RedomapOp) else 0


@dataclass
class _RowPlan:
    """What the second kernel recomputes: checked before anything changes (`recomputable`)."""

    segmap: soac.SegmapOp
    captured: list[SSAValue] = field(default_factory=list[SSAValue])
    """Scalars of the kernel's block that the recomputed code reads: the first kernel yields them."""
    checks: list[tuple[SSAValue, int, Operation, int]] = field(default_factory=list[tuple[SSAValue, int, Operation, int]])
    """(row, its source's axis, reader, input position) whose length is not provably the reader's width."""

    def in_block(self, value: SSAValue) -> bool:
        return defined_inside(value, self.segmap)

    def scalar(self, value: SSAValue) -> bool:
        """A value the recomputed code may read: made before the kernel, an index of it, or a scalar of its block."""
        if not self.in_block(value) or value in self.segmap.body.block.args:
            return True
        if isinstance(value.type, TensorType):
            return False
        if value not in self.captured:
            self.captured.append(value)
        return True

    def lambda_reads(self, body: Region) -> bool:
        """Whether every value the lambda reads from the kernel's block can be read in the second kernel."""
        for inner in body.walk():
            for operand in inner.operands:
                if self.in_block(operand) and not defined_inside(operand, body.parent_op() or self.segmap):
                    if not self.scalar(operand):
                        return False
        return True

    def recomputable(self, row: SSAValue, reader: soac.MapOp | soac.RedomapOp, position: int) -> bool:
        """Whether element `%j` of `row`, input `position` of `reader`, can be computed in the second kernel."""
        if not isinstance(row.type, TensorType) or row.type.get_num_dims() != 1:
            return False  # rows of scalars only: an element of the second kernel is a scalar
        owner = row.owner
        if not self.in_block(row):
            axis = 0
        elif isinstance(owner, soac.IndexOp) and owner.parent_block() is self.segmap.body.block:
            if self.in_block(owner.array) or not all(self.scalar(i) for i in owner.indices):
                return False
            axis = len(owner.indices)
        elif isinstance(owner, soac.IotaOp) and owner.parent_block() is self.segmap.body.block:
            return owner.width is reader.width and self.scalar(owner.width)
        elif isinstance(owner, PRODUCERS) and owner.parent_block() is self.segmap.body.block:
            if list(owner.outs).index(row) < _first_map_out(owner) or not self.lambda_reads(owner.body):
                return False
            if not all(self.recomputable(x, owner, k) for k, x in enumerate(owner.inputs)):
                return False
            return owner.width is reader.width
        else:
            return False
        if not has_size(reader, row, 0, reader.width):
            self.checks.append((row, axis, reader, position))
        return True


def _written_rows(segmap: soac.SegmapOp) -> list[SSAValue]:
    """The rows the kernel yields that a map or redomap of its block makes (a map's result, a redomap's map-out) and
    nothing else reads: rows of scalars that may be long, of the first such row's width (the second kernel's last
    size)."""
    yielded = segmap.body.block.last_op
    assert yielded is not None
    found: list[SSAValue] = []
    for value in yielded.operands:
        owner = value.owner
        if not isinstance(owner, PRODUCERS) or owner.parent_block() is not segmap.body.block or value in found:
            continue
        if list(owner.outs).index(value) < _first_map_out(owner) or value.type.get_num_dims() != 1:  # pyright: ignore[reportAttributeAccessIssue]
            continue  # a reduced value, or rows of rows (the second kernel would build them again)
        if any(use.operation is not yielded for use in value.uses):
            continue
        width = constant_index(owner.width)
        if (width is not None and width < MIN_ROW) or defined_inside(owner.width, segmap):
            continue
        if not found or owner.width is found[0].owner.width:  # pyright: ignore[reportAttributeAccessIssue]
            found.append(value)
    return found


class WriteRowsFromTheirOwnKernel(RewritePattern):
    """The rows a thread-level kernel's work-item writes are computed by a second kernel over (rows, row length), one
    element a work-item (see the module docstring)."""

    def __init__(self) -> None:
        self.made: list[soac.SegmapOp] = []
        """The first kernels of the splits: their dead code and map-outs are removed after the walk (`clean_up`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.SegmapOp, rewriter: PatternRewriter) -> None:
        if op.level.data != "thread" or host_thread_segmap(op.body.block.first_op or op) is not op:  # pyright: ignore[reportAttributeAccessIssue]
            return
        plan = _RowPlan(op)
        rows: list[SSAValue] = []
        for row in _written_rows(op):
            producer = row.owner
            assert isinstance(producer, PRODUCERS)
            trial = _RowPlan(op, list(plan.captured))
            if trial.lambda_reads(producer.body) and all(
                trial.recomputable(x, producer, k) for k, x in enumerate(producer.inputs)
            ):
                plan.captured, plan.checks = trial.captured, plan.checks + trial.checks
                rows.append(row)
        if rows:
            _split(op, rows, plan, rewriter, self.made)


def _split(
    op: soac.SegmapOp, written: list[SSAValue], plan: _RowPlan, rewriter: PatternRewriter, made: list[soac.SegmapOp]
) -> None:
    block = op.body.block
    yielded = block.last_op
    assert yielded is not None
    producers = list(dict.fromkeys(row.owner for row in written))
    _insert_checks(plan, min(producers, key=block.get_operation_index), rewriter)  # pyright: ignore[reportArgumentType]
    rows = [k for k, v in enumerate(yielded.operands) if v in written]
    kept = [k for k in range(len(yielded.operands)) if k not in rows]
    rank = len(op.dims)
    scalars_of = [TensorType(v.type, [DYNAMIC_INDEX] * rank) for v in plan.captured]
    row_values = [yielded.operands[k] for k in rows]
    new_yield = soac.YieldOp(*[yielded.operands[k] for k in kept], *plan.captured)
    rewriter.replace(yielded, new_yield)
    types = [*(op.outs[k].type for k in kept), *scalars_of]
    body = rewriter.move_region_contents_to_new_regions(op.body)
    first = soac.SegmapOp(op.level.data, list(op.dims), types, body)  # pyright: ignore[reportArgumentType]
    first.location = op.location
    plan.segmap = first  # its block is the kernel's block now
    for out, k in zip(first.outs, kept):
        out.name_hint = op.outs[k].name_hint
    for out, value in zip(first.outs[len(kept) :], plan.captured):
        out.name_hint = f"{value.name_hint}_of" if value.name_hint else None
    second = _second_kernel(op, row_values, plan, [*first.outs[len(kept) :]], [op.outs[k].type for k in rows])
    results: list[SSAValue | None] = [None] * len(op.outs)
    for out, k in zip(first.outs, kept):
        results[k] = out
    for out, k in zip(second.outs, rows):
        results[k] = out
        out.name_hint = op.outs[k].name_hint
    rewriter.replace(op, [first, second], results)
    for producer in producers:
        if isinstance(producer, soac.MapOp) and not any(out.uses for out in producer.outs):
            rewriter.erase(producer)
    made.append(first)


def _insert_checks(plan: _RowPlan, before: Operation, rewriter: PatternRewriter) -> None:
    """The size checks of the rows the second kernel reads, where a row's length is not provably its reader's width:
    in the first kernel, before the first row map, with the reader's message."""
    for row, axis, reader, position in plan.checks:
        source = row if not plan.in_block(row) else row.owner.array  # pyright: ignore[reportAttributeAccessIssue]
        dim = arith.ConstantOp(IntegerAttr(axis, IndexType()))
        length = tensor.DimOp(source, dim)
        same = arith.CmpiOp(length, reader.width, "eq")
        problem = f"width {{0}} does not match the outer size {{1}} of input #{position}"
        check = soac.AssertOp(same, f"'{reader.name}': {problem}", [reader.width, length])
        for made in (dim, length, same, check):
            made.location = reader.location
        rewriter.insert([dim, length, same, check], InsertPoint.before(before))


def _second_kernel(
    op: soac.SegmapOp, row_values: list[SSAValue], plan: _RowPlan, scalars: list[SSAValue], types: list[Attribute]
) -> soac.SegmapOp:
    """`soac.segmap thread (dims..., width)` computing element `%j` of the rows (see the module docstring)."""
    old_args = plan.segmap.body.block.args
    body = Block(arg_types=[IndexType()] * (len(op.dims) + 1))
    *indices, j = body.args
    j.name_hint = "j"
    mapper: dict[SSAValue, SSAValue] = {}
    for old, new in zip(old_args, indices):
        new.name_hint = old.name_hint
        mapper[old] = new
    for value, array in zip(plan.captured, scalars):
        read = soac.IndexOp(array, indices)
        read.result.name_hint = value.name_hint
        body.add_op(read)
        mapper[value] = read.result
    builder = _ElementBuilder(body, mapper, j, plan)
    values = [builder.element(v) for v in row_values]
    body.add_op(soac.YieldOp(*values))
    first = row_values[0].owner
    assert isinstance(first, PRODUCERS)
    second = soac.SegmapOp(op.level.data, [*op.dims, first.width], types, Region(body))  # pyright: ignore[reportArgumentType]
    second.location = first.location
    return second


@dataclass
class _ElementBuilder:
    """Builds the second kernel's code for element `%j` of the rows it reads."""

    body: Block
    mapper: dict[SSAValue, SSAValue]
    j: SSAValue
    plan: _RowPlan
    done: dict[Operation, list[SSAValue]] = field(default_factory=dict[Operation, list[SSAValue]])
    elements: dict[SSAValue, SSAValue] = field(default_factory=dict[SSAValue, SSAValue])

    def element(self, row: SSAValue) -> SSAValue:
        """Element `%j` of `row`, made once."""
        if (made := self.elements.get(row)) is None:
            made = self.elements[row] = self._element(row)
        return made

    def _element(self, row: SSAValue) -> SSAValue:
        owner = row.owner
        if not self.plan.in_block(row):
            return self._add(soac.IndexOp(row, [self.j]), row)
        if isinstance(owner, soac.IndexOp):
            return self._add(soac.IndexOp(owner.array, [self.mapper.get(i, i) for i in owner.indices] + [self.j]), row)
        if isinstance(owner, soac.IotaOp):
            element = owner.result.type.get_element_type()  # pyright: ignore[reportAttributeAccessIssue]
            return self.j if isinstance(element, IndexType) else self._add(arith.IndexCastOp(self.j, element), row)
        assert isinstance(owner, PRODUCERS)
        if owner not in self.done:
            self.done[owner] = self.lambda_of(owner, [self.element(x) for x in owner.inputs])
        return self.done[owner][list(owner.outs).index(row)]

    def lambda_of(self, op: soac.MapOp | soac.RedomapOp, params: list[SSAValue]) -> list[SSAValue]:
        """The values `op`'s lambda yields for `params`, its code copied into the second kernel."""
        lam = op.body.block
        for arg, param in zip(lam.args, params):
            self.mapper[arg] = param
        for inner in list(lam.ops)[:-1]:
            self.body.add_op(inner.clone(self.mapper))
        assert lam.last_op is not None
        return [self.mapper.get(v, v) for v in lam.last_op.operands]

    def _add(self, made: Operation, like: SSAValue) -> SSAValue:
        result = made.results[0]
        result.name_hint = like.name_hint
        self.body.add_op(made)
        return result


def clean_up(first: soac.SegmapOp) -> None:
    """Removes what the first kernel of a split no longer needs: the code only the row read, the map-outs it read."""
    region_dce(first.body)
    cleanup = GreedyRewritePatternApplier([RemoveUnusedMapParts(), RemoveUnusedRedomapParts()])
    PatternRewriteWalker(cleanup).rewrite_region(first.body)
