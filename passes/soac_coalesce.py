r"""`soac-coalesce`: a thread-level kernel reads an array through its transpose where that makes neighbouring
work-items read neighbouring elements (Futhark's index functions; its KernelBabysitting makes the same choice), and
(`manifest`, `coalesce_manifest.py`) reads a transposed copy made before the kernel where its work-items walk along
rows. `soac-coalesce{read-through=false}` is the second alone: the GPU pipelines' step (`passes/standard.py`).

After `soac-flatten`, a `soac.segmap thread` runs one work-item per index, the last index varying fastest between
neighbouring work-items. A read of a transposed array `%t = soac.transpose %b` is a read of `%b` at the permuted
indices; where the permuted read has the segmap's last index last, neighbouring work-items read neighbouring elements
of `%b` (coalesced), while the transposed copy puts them a whole row apart, and costs a kernel of its own:

    %bt = soac.transpose %b [0, 2, 1] : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
    %c = soac.segmap thread (%q, %n, %m) -> tensor<?x?x?xf32> lambda(%i: index, %j: index, %k: index) {
      %row = soac.index %a[%i, %j] : tensor<?x?x?xf32> -> tensor<?xf32>
      %col = soac.index %bt[%i, %k] : tensor<?x?x?xf32> -> tensor<?xf32>
      %s = soac.redomap %p (%row, %col : tensor<?xf32>, tensor<?xf32>) ... lambda(%x: f32, %y: f32) { ... }
  becomes
    %c = soac.segmap thread (%q, %n, %m) -> tensor<?x?x?xf32> lambda(%i: index, %j: index, %k: index) {
      %row = soac.index %a[%i, %j] : tensor<?x?x?xf32> -> tensor<?xf32>
      %ls = soac.iota %p : tensor<?xindex>
      %s = soac.redomap %p (%row, %ls : tensor<?xf32>, tensor<?xindex>) ... lambda(%x: f32, %l: index) {
        %y = soac.index %b[%i, %l, %k] : tensor<?x?x?xf32> -> f32
        ...

Two rules do it: a row of the transpose that a map or redomap takes as an input becomes an iota input whose element
indexes the row (the redomap's width is the row's length), and an element read of the transpose becomes a read of
its source. A transpose that a branch alone still reads then moves into that branch (`SinkIntoBranch`), so that the
versions that no longer read it do not make it; reads elsewhere (a device-level segred, whose work-items vary the
reduced index) keep the transposed copy.
"""

from __future__ import annotations

from dataclasses import dataclass

from soac import dialect as soac
from soac.dialect import TiledRedomapOp, TileSizes
from soac.passes.coalesce_manifest import ReadTransposedElements, ReadTransposedRows
from soac.passes.coalesce_row_tiles import DEFAULT_ROW_SIZES, TileRowWalks
from soac.passes.coalesce_rows import WriteRowsFromTheirOwnKernel, clean_up
from xdsl.context import Context
from xdsl.dialects import arith, builtin, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint


def _thread_segmap(op: Operation) -> soac.SegmapOp | None:
    """The thread-level segmap whose lambda holds `op` (at any depth), if any."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, soac.SegmapOp):
            return parent if parent.level.data == "thread" else None  # pyright: ignore[reportAttributeAccessIssue]
        parent = parent.parent_op()
    return None


def _source_indices(transpose: soac.TransposeOp, indices: list[SSAValue]) -> list[SSAValue]:
    """The indices into the transpose's source of the element at `indices` of the transpose."""
    source: list[SSAValue | None] = [None] * len(indices)
    for position, dim in enumerate(transpose.perm):
        source[dim] = indices[position]
    assert all(s is not None for s in source)
    return source  # pyright: ignore[reportReturnType]


def _coalesced(read: Operation, source: list[SSAValue]) -> bool:
    """Whether the permuted read varies fastest with the work-item: its last index is the segmap's last index."""
    segmap = _thread_segmap(read)
    if segmap is None:
        return False
    last = segmap.body.block.args[-1]
    return source[-1] is last


class ReadElementsThroughTranspose(RewritePattern):
    """`soac.index %t[...]` of every dimension of `%t = soac.transpose %b` reads `%b` at the permuted indices, where
    that is coalesced (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.IndexOp, rewriter: PatternRewriter) -> None:
        transpose = op.array.owner
        if not isinstance(transpose, soac.TransposeOp) or len(op.indices) != len(transpose.perm):
            return
        source = _source_indices(transpose, list(op.indices))
        if not _coalesced(op, source):
            return
        rewriter.replace(op, soac.IndexOp(transpose.array, source))


class ReadRowsThroughTranspose(RewritePattern):
    """A row of `%t = soac.transpose %b` that a map or redomap takes as an input becomes an iota input whose
    element indexes the row, read by `ReadElementsThroughTranspose` (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.IndexOp, rewriter: PatternRewriter) -> None:
        transpose = op.array.owner
        if not isinstance(transpose, soac.TransposeOp) or len(op.indices) != len(transpose.perm) - 1:
            return
        if not op.result.uses or not _coalesced(op, _source_indices(transpose, [*op.indices, op.result])):
            return  # (the row's own value stands for the index along it, which is no segmap index)
        users = {use.operation for use in op.result.uses}
        if not all(isinstance(u, soac.MapOp | soac.RedomapOp) and u.parent_block() is op.parent_block() for u in users):
            return
        for user in users:
            _index_instead(user, op, transpose, rewriter)  # pyright: ignore[reportArgumentType]


def _index_instead(
    user: soac.MapOp | soac.RedomapOp, row: soac.IndexOp, transpose: soac.TransposeOp, rewriter: PatternRewriter
) -> None:
    """`user`'s input `row` becomes an iota of its width; its lambda reads the element (as the transpose's). The row's
    length, read from the transpose's source, is still checked against the width."""
    axis = arith.ConstantOp(IntegerAttr(transpose.perm[len(row.indices)], IndexType()))
    length = tensor.DimOp(transpose.array, axis)
    same = arith.CmpiOp(length, user.width, "eq")
    positions = [p for p, value in enumerate(user.inputs) if value is row.result]
    problem = f"width {{0}} does not match the outer size {{1}} of input #{positions[0]}"
    check = soac.AssertOp(same, f"'{user.name}': {problem}", [user.width, length])
    check.location = user.location
    iota = soac.IotaOp(user.width, TensorType(IndexType(), [DYNAMIC_INDEX]))
    rewriter.insert([axis, length, same, check, iota], InsertPoint.before(user))
    block: Block = user.body.block
    user.operands = [iota.result if value is row.result else value for value in user.operands]
    for position in positions:
        old = block.args[position]
        index = block.insert_arg(IndexType(), position)
        element = soac.IndexOp(transpose.result, [*row.indices, index])
        rewriter.insert(element, InsertPoint.at_start(block))
        old.replace_all_uses_with(element.result)
        block.erase_arg(old)


class SinkIntoBranch(RewritePattern):
    """A transpose, reverse, rotate, iota or replicate whose every use is inside one branch of a later `scf.if` in its block
    moves to the start of that branch: the other branch, a version that does not need it, no longer computes it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: soac.TransposeOp | soac.ReverseOp | soac.RotateOp | soac.IotaOp | soac.ReplicateOp, rewriter: PatternRewriter
    ) -> None:
        target = _single_branch(op, op.parent_block())
        if target is None:
            return
        op.detach()
        rewriter.insert(op, InsertPoint.at_start(target))


def _single_branch(op: Operation, block: Block | None) -> Block | None:
    """The branch block of one `scf.if` of `block` that holds every use of `op`'s results, if any."""
    found: Block | None = None
    for result in op.results:
        for use in result.uses:
            here: Operation | None = use.operation
            while here is not None and here.parent_block() is not block:
                here = here.parent_op()
            if not isinstance(here, scf.IfOp) or here is use.operation:
                return None
            branch = _branch_of(here, use.operation)
            if branch is None or (found is not None and branch is not found):
                return None
            found = branch
    return found


def _branch_of(if_op: scf.IfOp, inner: Operation) -> Block | None:
    for region in if_op.regions:
        if region.blocks and region.block.find_ancestor_op_in_block(inner) is not None:
            return region.block
    return None


@dataclass(frozen=True)
class SoacCoalescePass(ModulePass):
    """Coalesces a thread-level kernel's reads: through transposes (`read-through`, see the module docstring), and
    from transposed copies made before the kernel where work-items walk along rows (`manifest`,
    `coalesce_manifest.py`); and its writes, computing the rows it writes in a kernel of their own (`rows`,
    `coalesce_rows.py`). The copies the second makes are read with the work-item's index last, which the first
    leaves alone; the first's reads of a source have the work-item's index last, which the second leaves alone."""

    name = "soac-coalesce"

    read_through: bool = True
    """Read an array through its transpose where that coalesces (on the H200 it slowed batched 16x16 products)."""
    manifest: bool = True
    """Make transposed copies for kernels whose work-items walk along rows (the GPU pipelines' choice)."""
    rows: bool = True
    """Compute the rows a thread-level kernel writes in a kernel of their own, one element a work-item
    (`coalesce_rows.py`; before the copies, which then serve the first kernel's reads alone)."""
    row_tiles: bool = True
    """The walks along rows of a thread-level kernel over rows read them through local-memory tiles shared by the
    work-group, as staged `soac.tiled_redomap`s (`coalesce_row_tiles.py`; after the rows rule, before the copies,
    which then are not made for them)."""
    row_block: int = 0
    """Rows a work-group of the row-tiles rule's kernels (0: `DEFAULT_ROW_SIZES`)."""
    row_reg: int = 0
    """Rows a work-item of the row-tiles rule's kernels (0: the default)."""
    row_chunk: int = 0
    """Elements of each row a tile holds (0: the default, 64)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.rows:
            split = WriteRowsFromTheirOwnKernel()
            PatternRewriteWalker(split, apply_recursively=False).rewrite_module(op)
            for first in split.made:
                clean_up(first)
        if self.row_tiles:
            self.tile_row_walks(op)
        patterns: list[RewritePattern] = []
        if self.read_through:
            patterns += [ReadRowsThroughTranspose(), ReadElementsThroughTranspose()]
        if self.manifest:
            patterns += [ReadTransposedRows(), ReadTransposedElements()]
        patterns.append(SinkIntoBranch())
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=True).rewrite_module(op)

    def tile_row_walks(self, op: builtin.ModuleOp) -> None:
        """The row-tiles rule, with the sizes of the options (their names `rows_N` after the module's)."""
        default = DEFAULT_ROW_SIZES
        sizes = TileSizes(
            (self.row_block or default.block[0],), (self.row_reg or default.reg[0],), self.row_chunk or default.chunk
        )
        if problem := sizes.problem(1):
            raise ValueError(f"soac-coalesce: row-tiles: {problem}")
        names = [o.tile_name for o in op.walk() if isinstance(o, TiledRedomapOp)]
        first = 1 + max((int(n[5:]) for n in names if n.startswith("rows_") and n[5:].isdigit()), default=-1)
        PatternRewriteWalker(TileRowWalks(sizes, [first]), apply_recursively=False).rewrite_module(op)
