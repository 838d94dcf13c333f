r"""`soac-coalesce`'s manifest rules: a thread-level kernel whose work-items walk along rows reads a transposed copy.

After `soac-flatten`, the outer-parallel version of a map of reductions (row softmax, layernorm, matvec) is a
`soac.segmap thread` whose work-item `%i` (the segmap's last index: neighbouring work-items differ in it) reads row
`%i` of a row-major array in a sequential loop. Neighbouring work-items then read addresses a whole row apart. With a
transposed copy made before the kernel, made by a tiled kernel (`lowering/strategies/transpose.py`), element `%l` of
the row is `%xt[%l, %i]`, next to its neighbours' (Futhark's `KernelBabysitting` makes the same copy):

    %y = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
      %row = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
      %s = soac.reduce %w (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(...)
      %t = soac.redomap %w (%row : tensor<?xf32>) ...
  becomes
    %xt = soac.transpose %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
    %y = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
      %len = tensor.dim %x, %c1 : tensor<?x?xf32>
      %ls = soac.iota %len : tensor<?xindex>
      %row = soac.map %len (%ls : tensor<?xindex>) -> tensor<?xf32> lambda(%l: index) {
        %e = soac.index %xt[%l, %i] : tensor<?x?xf32> -> f32
        soac.yield %e : f32
      }
      %s = soac.reduce %w (%row : tensor<?xf32>) ...
      ... the same map again (%row_1) ...
      %t = soac.redomap %w (%row_1 : tensor<?xf32>) ...

Each nested SOAC that reads the row (in the row's block, or in a loop or lambda inside it) gets a map of its own just
before it, which the lowering computes where the SOAC reads it (`lowering/conversion/generated.py`): no row is stored.
An element read `soac.index %x[.., %i, %j]` with `%j` the index of a sequential loop inside the kernel (an
`scf.for`'s, or the element of an iota or of an invariant array that a nested SOAC's lambda takes: the same in every
work-item) becomes `soac.index %xt[.., %j, %i]` the same way. The rules decide from the index expressions alone:

- only a `segmap thread` that no other SOAC holds (a work-group's row, read by the whole group, is coalesced already),
  and only for an array made before it (the copy is made once, before the kernel);
- only where the segmap's last index is the array's second-to-last index and the read walks the last one (where the
  last index is the work-item's, the access is coalesced already; where no index is, every work-item reads the same
  row);
- only for arrays that may be large: sizes known in the type must give at least `MIN_ELEMENTS` elements and rows of
  at least `MIN_ROW` (a short row's elements share a cache line with its neighbours'). The segmap is the version that
  runs for many rows (its threshold), which is when the copy pays;
- never a read of a `soac.transpose` (the read-through rules of `soac_coalesce.py` own those): the copy made here is
  read with the work-item's index last, which those rules leave alone, so the two never undo each other.

What stays a row apart between neighbouring work-items: the rows the kernel writes (its results, and the arrays its
nested SOACs build in per-work-item scratch memory, `KernelBuilder.alloc_scratch`, such as softmax's `exp(r - m)`
map-out), whose layout is the lowering's. The rows rule (`coalesce_rows.py`), which `soac-coalesce` runs before these,
moves the rows a kernel yields into a kernel of their own, one element a work-item (softmax's and layernorm's).
"""

from __future__ import annotations

from soac import dialect as soac
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType, UnknownLoc
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

MIN_ELEMENTS = 1 << 14
"""Arrays with fewer elements (known from their type) are not copied: the copy's launch costs more than it saves."""
MIN_ROW = 8
"""Rows shorter than this (known from the type) are not copied: neighbouring work-items' rows share cache lines."""
ROW_READERS = (soac.MapOp, soac.ReduceOp, soac.RedomapOp, soac.ScanOp, soac.ScanomapOp)
"""The nested SOACs whose inputs the kernel generates row by row (`lowering/conversion/generated.py`)."""


def host_thread_segmap(op: Operation) -> soac.SegmapOp | None:
    """The `segmap thread` holding `op` when no other SOAC holds that segmap (it is a kernel of its own)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, soac.SegmapOp):
        parent = parent.parent_op()
    if parent is None or parent.level.data != "thread":  # pyright: ignore[reportAttributeAccessIssue]
        return None
    above = parent.parent_op()
    while above is not None:
        if above.name.startswith("soac."):
            return None
        above = above.parent_op()
    return parent


def defined_inside(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined in a region of `op`."""
    owner = value.owner
    here = owner.parent_op() if isinstance(owner, Block) else owner
    return here is not None and (here is op or op.is_ancestor(here))


def worth_copying(array: SSAValue) -> bool:
    """Whether the sizes known in `array`'s type allow a large array with long rows (see the module docstring)."""
    assert isinstance(array.type, TensorType)
    shape = array.type.get_shape()
    if shape[-1] != DYNAMIC_INDEX and shape[-1] < MIN_ROW:
        return False
    if all(d != DYNAMIC_INDEX for d in shape):
        count = 1
        for d in shape:
            count *= d
        return count >= MIN_ELEMENTS
    return True


def copyable(array: SSAValue, segmap: soac.SegmapOp) -> bool:
    """An array made before the segmap, not itself a transpose, and worth copying."""
    return not defined_inside(array, segmap) and not isinstance(array.owner, soac.TransposeOp) and worth_copying(array)


def copy_place(array: SSAValue, segmap: soac.SegmapOp) -> Operation:
    """The op before which `array`'s copy goes: the segmap, or the outermost of the host loops directly around it in
    which `array` does not change (the copy is then made once, not at every step). Never out of a branch: the
    versions that do not read the copy do not make it."""
    place: Operation = segmap
    while isinstance(loop := place.parent_op(), scf.ForOp | scf.WhileOp) and not defined_inside(array, loop):
        place = loop
    return place


def transposed_copy(array: SSAValue, read: Operation, segmap: soac.SegmapOp, rewriter: PatternRewriter) -> SSAValue:
    """`soac.transpose %array` of its last two dimensions before `segmap` (`copy_place`): an earlier one in that
    block, or a new one."""
    assert isinstance(array.type, TensorType)
    rank = array.type.get_num_dims()
    perm = (*range(rank - 2), rank - 1, rank - 2)
    place = copy_place(array, segmap)
    block = place.parent_block()
    assert block is not None
    for use in array.uses:
        other = use.operation
        if (
            isinstance(other, soac.TransposeOp)
            and other.perm == perm
            and other.parent_block() is block
            and block.get_operation_index(other) < block.get_operation_index(place)
        ):
            return other.result
    copy = soac.TransposeOp(array, perm)
    # where the user's code walks along the rows: the read, else the kernel (a read that flattening made)
    copy.location = segmap.location if isinstance(read.location, UnknownLoc) else read.location
    copy.result.name_hint = f"{array.name_hint}_t" if array.name_hint else None
    rewriter.insert(copy, InsertPoint.before(place))
    return copy.result


def loop_index(value: SSAValue, segmap: soac.SegmapOp) -> bool:
    """An index that walks the same sequence in every work-item: an `scf.for`'s, or the element of an iota or of an
    array made before the kernel that the lambda of a nested map, redomap or scanomap takes."""
    if not isinstance(value, BlockArgument) or value.block is segmap.body.block or not defined_inside(value, segmap):
        return False
    owner = value.block.parent_op()
    if isinstance(owner, scf.ForOp):
        return value.index == 0
    if isinstance(owner, soac.MapOp | soac.RedomapOp | soac.ScanomapOp) and value.block is owner.body.block:
        if value.index < len(owner.inputs):
            source = owner.inputs[value.index]
            return isinstance(source.owner, soac.IotaOp) or not defined_inside(source, segmap)
    return False


class ReadTransposedElements(RewritePattern):
    """`soac.index %x[.., %i, %j]`, `%i` the work-item and `%j` a loop's index, reads `%xt[.., %j, %i]` of a
    transposed copy made before the kernel (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.IndexOp, rewriter: PatternRewriter) -> None:
        array, indices = op.array, list(op.indices)
        rank = array.type.get_num_dims()  # pyright: ignore[reportAttributeAccessIssue]
        if rank < 2 or len(indices) != rank:
            return
        segmap = host_thread_segmap(op)
        if segmap is None or indices[-2] is not segmap.body.block.args[-1]:
            return
        if not loop_index(indices[-1], segmap) or not copyable(array, segmap):
            return
        copy = transposed_copy(array, op, segmap, rewriter)
        rewriter.replace(op, soac.IndexOp(copy, [*indices[:-2], indices[-1], indices[-2]]))


class ReadTransposedRows(RewritePattern):
    """Row `%x[.., %i]` of the work-item `%i` that nested SOACs read (and element reads `%row[%j]`) becomes a map over
    the row's indices reading a transposed copy made before the kernel (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.IndexOp, rewriter: PatternRewriter) -> None:
        array, indices = op.array, list(op.indices)
        rank = array.type.get_num_dims()  # pyright: ignore[reportAttributeAccessIssue]
        if rank < 2 or len(indices) != rank - 1 or not op.result.uses:
            return
        segmap = host_thread_segmap(op)
        if segmap is None or indices[-1] is not segmap.body.block.args[-1]:
            return
        if not _rows_read_in_place(op, segmap) or not copyable(array, segmap):
            return
        copy = transposed_copy(array, op, segmap, rewriter)
        users = list(dict.fromkeys(use.operation for use in op.result.uses))
        for user in users:
            if isinstance(user, soac.IndexOp):
                (j,) = user.indices
                rewriter.replace(user, soac.IndexOp(copy, [*indices[:-1], j, indices[-1]]))
            elif isinstance(user, tensor.DimOp):
                rewriter.replace(user, _row_length(array, user, rewriter))
            else:
                generated = _generated_row(op, array, copy, user, rewriter)
                rewriter.replace_uses_with_if(op.result, generated, lambda use, user=user: use.operation is user)
        rewriter.erase(op)


def _rows_read_in_place(row: soac.IndexOp, segmap: soac.SegmapOp) -> bool:
    """Every use of the row reads it element by element (an input of a nested SOAC, its size, or a read of one
    element), and some use walks along it (a nested SOAC, or a read at a loop's index)."""
    walks = False
    for use in row.result.uses:
        user = use.operation
        if isinstance(user, tensor.DimOp):
            continue
        if isinstance(user, soac.IndexOp) and use.index == 0 and len(user.indices) == 1:
            walks = walks or loop_index(user.indices[0], segmap)
            continue
        walks = True
        if not isinstance(user, ROW_READERS):
            return False
        as_input = sum(1 for x in user.inputs if x is row.result)
        if sum(1 for u in row.result.uses if u.operation is user) != as_input:
            return False  # also a neutral element or a width
    return walks


def _row_length(array: SSAValue, before: Operation, rewriter: PatternRewriter) -> SSAValue:
    """`tensor.dim %array, rank - 1` (the length of its rows) just before `before`."""
    assert isinstance(array.type, TensorType)
    axis = arith.ConstantOp(IntegerAttr(array.type.get_num_dims() - 1, IndexType()))
    length = tensor.DimOp(array, axis)
    length.result.name_hint = "len"
    for made in (axis, length):
        made.location = before.location
    rewriter.insert([axis, length], InsertPoint.before(before))
    return length.result


def _generated_row(row: soac.IndexOp, array: SSAValue, copy: SSAValue, reader: Operation, rewriter: PatternRewriter) -> SSAValue:
    """`soac.map %len (soac.iota %len) {l -> copy[.., l, i]}` just before `reader` (its only reader, which the
    lowering computes where the reader reads it: `lowering/conversion/generated.py`), `%len` the array's last size."""
    indices = list(row.indices)
    length = _row_length(array, reader, rewriter)
    iota = soac.IotaOp(length, TensorType(IndexType(), [DYNAMIC_INDEX]))
    body = Block(arg_types=[IndexType()])
    body.args[0].name_hint = "l"
    element = soac.IndexOp(copy, [*indices[:-1], body.args[0], indices[-1]])
    body.add_ops([element, soac.YieldOp(element)])
    generated = soac.MapOp(length, [iota], [row.result.type], Region(body))
    generated.outs[0].name_hint = row.result.name_hint
    for made in (iota, element, generated):
        made.location = row.location
    rewriter.insert([iota, generated], InsertPoint.before(reader))
    return generated.outs[0]
