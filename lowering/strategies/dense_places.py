"""Which destination of a scan's scatter gets dense places: a stream compaction (`lang/compaction.py`).

    %at, ... = soac.scanomap %n (%xs, ...) neutral(%zero : i32) combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32 ...
    } lambda(%x: i32, ...) {
      %keep = arith.cmpi sgt, %x, %zero : i32
      %f = arith.extui %keep : i1 to i32
      soac.yield %f, ... : i32, ...
    } post(%r: i32, %x_1: i32, ...) {
      %keep_1 = arith.cmpi sgt, %x_1, %zero : i32       // the lambda's flag, recomputed (or forwarded)
      %before = arith.subi %r, %one : i32
      %place = arith.select %keep_1, %before, %minus : i32
      soac.yield %place, ... : i32, ...
    }
    %out, ... = soac.scatter %n (%at, ..., %xs) into(%fresh, ...) lambda(%q: i32, ..., %v: i32) {
      %qi = arith.index_cast %q : i32 to index
      soac.yield %qi, ..., %v, ... : index, ..., i32, ...
    }

The scan counts the flagged elements (a sum of 0 and 1) and each flagged element goes to its count before it, others
nowhere (a negative place). So a tile's flagged elements land, in order, on the places from the count before the tile
to that count plus the tile's own: contiguous. The look-back kernel can then gather them in local memory and write
them out together (`lookback_bodies.py`), as CUB's select does.
"""

from __future__ import annotations

from soac import dialect as soac
from soac.dialect.consumption import defined_inside
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue


def dense_destination(op: soac.ScanOp | soac.ScanomapOp, scatter: soac.ScatterOp) -> int | None:
    """The destination of `scatter` (which takes `op`'s results, `scan_scatter.scatter_of`) whose places are each
    flagged element's count of flagged elements before it, if there is one."""
    if not isinstance(op, soac.ScanomapOp) or len(op.neutral) != 1 or op.has_reduction or not op.post.blocks:
        return None
    if _constant(op.neutral[0]) != 0 or not _adds(op.combine.block):
        return None
    lam_yield = op.body.block.last_op
    assert lam_yield is not None
    counted = lam_yield.operands[0].owner
    if not isinstance(counted, arith.ExtUIOp) or counted.input.type != IntegerType(1):
        return None
    post = op.post.block
    post_yield = post.last_op
    assert post_yield is not None
    body_yield = scatter.body.block.last_op
    assert body_yield is not None
    for d in range(len(scatter.dests)):
        index = body_yield.operands[d]
        if isinstance(index.owner, arith.IndexCastOp):
            index = index.owner.input
        if not isinstance(index, BlockArgument) or index.block is not scatter.body.block:
            continue
        source = scatter.inputs[index.index]
        if source not in op.outs:
            continue
        place = post_yield.operands[list(op.outs).index(source)].owner
        if isinstance(place, arith.SelectOp) and _is_place(place, post) and _same_flag(op, counted.input, place.cond):
            return d
    return None


def _is_place(select: arith.SelectOp, post: Block) -> bool:
    """`select %flag, (%r - 1), %negative` with `%r` the inclusive count."""
    before, nowhere = select.lhs.owner, _constant(select.rhs)
    if not isinstance(before, arith.SubiOp) or nowhere is None or nowhere >= 0:
        return False
    return before.lhs is post.args[0] and _constant(before.rhs) == 1


def _same_flag(op: soac.ScanomapOp, flag: SSAValue, post_flag: SSAValue) -> bool:
    """Whether the post's `post_flag` is the lambda's `flag` of the same element: forwarded, or computed by the same
    operations from the same inputs."""
    post = op.post.block
    inputs = len(op.inputs)
    lam = op.body.block
    lam_yield = lam.last_op
    assert lam_yield is not None
    forwarded = {
        post.args[1 + inputs + f]: lam_yield.operands[len(lam_yield.operands) - op.num_forwarded + f]
        for f in range(op.num_forwarded)
    }
    arguments = {lam.args[i]: post.args[1 + i] for i in range(inputs)}
    return _same(flag, post_flag, arguments, forwarded, op)


def _same(
    a: SSAValue, b: SSAValue, arguments: dict[SSAValue, SSAValue], forwarded: dict[SSAValue, SSAValue], op: Operation
) -> bool:
    """`a` (of the lambda) and `b` (of the post) are the same value of an element: `a`'s argument or forwarded value
    is `b`, or both come from the same operation on the same values (or are the same value from outside `op`)."""
    if b in forwarded:
        return forwarded[b] is a
    if a in arguments:
        return arguments[a] is b
    inside_a, inside_b = defined_inside(a, op), defined_inside(b, op)
    if not inside_a and not inside_b:
        return a is b
    op_a, op_b = a.owner, b.owner
    if not (inside_a and inside_b and isinstance(op_a, Operation) and isinstance(op_b, Operation)):
        return False
    if type(op_a) is not type(op_b) or op_a.regions or op_b.regions or len(op_a.operands) != len(op_b.operands):
        return False
    if op_a.properties != op_b.properties or op_a.results.index(a) != op_b.results.index(b):  # pyright: ignore[reportArgumentType]
        return False
    return all(_same(x, y, arguments, forwarded, op) for x, y in zip(op_a.operands, op_b.operands))


def _adds(combine: Block) -> bool:
    yielded = combine.last_op
    assert yielded is not None
    add = yielded.operands[0].owner
    return isinstance(add, arith.AddiOp) and {add.lhs, add.rhs} == set(combine.args[:2])


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None
