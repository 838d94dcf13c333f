"""Canonicalisation patterns of the soac dialect: drop the parts of a SOAC that nothing uses.

xDSL's `canonicalize` pass picks them up from `soac.map`, `soac.reduce` and `soac.redomap`
(`soac-opt -p canonicalize`, or any pipeline that embeds it). A map loses the results no
one uses and the inputs its lambda ignores:

    %a, %b = soac.map %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
        lambda(%x: i32, %y: i32) { %p = arith.addi %x, %x : i32  %q = arith.muli %x, %y : i32
                                   soac.yield %p, %q : i32, i32 }        // only %a is used
  becomes
    %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32>
        lambda(%x: i32) { %p = arith.addi %x, %x : i32  soac.yield %p : i32 }

and a reduction keeps only the parts of its operator whose results are used (Futhark's
`unused-reduce`, FU-59), when the parts do not depend on each other:

    %s, %p = soac.reduce %n (%xs, %ys : ...) neutral(%zero, %one : i32, i32) -> (i32, i32)
        combine(%x1: i32, %y1: i32, %x2: i32, %y2: i32) { %s = arith.addi %x1, %x2 ...
                                                          %p = arith.muli %y1, %y2 ...
                                                          soac.yield %s, %p }  // only %s is used
  becomes
    %s = soac.reduce %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32
        combine(%x1: i32, %x2: i32) { %s = arith.addi %x1, %x2 : i32  soac.yield %s : i32 }

A redomap loses unused reduction parts the same way, and unused map-outs and ignored inputs
as a map does. Ops whose results are all unused are left to dead code elimination.
"""

from __future__ import annotations

from collections.abc import Sequence

from soac import dialect as soac
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.transforms.dead_code_elimination import region_dce


def _unused(values: Sequence[SSAValue]) -> list[int]:
    return [k for k, v in enumerate(values) if v.first_use is None]


def _trimmed(region: Region, keep_args: Sequence[int], keep_yields: Sequence[int]) -> Region | None:
    """A copy of a single-block `region` that yields only `keep_yields` and has only the `keep_args` parameters
    (None when a dropped parameter is still used once the dead code is gone)."""
    copy = region.clone()
    block = copy.block
    terminator = block.last_op
    assert terminator is not None
    operands = list(terminator.operands)
    terminator.detach()
    terminator.erase()
    block.add_op(soac.YieldOp(*(operands[k] for k in keep_yields)))
    region_dce(copy)
    dropped = [arg for k, arg in enumerate(block.args) if k not in keep_args]
    if any(arg.first_use is not None for arg in dropped):
        return None
    for arg in dropped:
        block.erase_arg(arg)
    return copy


def _separable_parts(combine: Block, k: int) -> list[int]:
    """The part of a k-value operator each value belongs to: values whose code shares parameters share a part."""
    parent = list(range(k))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    args = {arg: arg.index % k for arg in combine.args}
    depends: dict[SSAValue, set[int]] = {arg: {part} for arg, part in args.items()}
    for op in combine.ops:
        used = {part for operand in _operands_within(op) for part in depends.get(operand, ())}
        for result in op.results:
            depends[result] = used
    terminator = combine.last_op
    assert terminator is not None
    for value_index, value in enumerate(terminator.operands):
        for part in depends.get(value, ()):
            parent[find(part)] = find(value_index)
    return [find(i) for i in range(k)]


def _operands_within(op: Operation) -> list[SSAValue]:
    """The operands of `op` and of every op nested in it."""
    return [operand for nested in op.walk() for operand in nested.operands]


def _removable_parts(op: soac.ReduceOp | soac.RedomapOp) -> list[int]:
    """The reduced values that can go: unused, and in parts of the operator with no used value."""
    k = len(op.neutral)
    parts = _separable_parts(op.combine.block, k)
    unused = set(_unused(list(op.outs)[:k]))
    needed = {parts[i] for i in range(k) if i not in unused}
    return [i for i in range(k) if parts[i] not in needed]


def _replace(rewriter: PatternRewriter, op: Operation, new: Operation, kept: Sequence[int]) -> None:
    new.location = op.location
    results: list[SSAValue | None] = [None] * len(op.results)
    for new_index, old_index in enumerate(kept):
        results[old_index] = new.results[new_index]
    rewriter.replace(op, new, results)


class RemoveUnusedMapParts(RewritePattern):
    """`soac.map` without the results nobody uses and the inputs its lambda ignores."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.MapOp, rewriter: PatternRewriter) -> None:
        unused_results, ignored = _unused(list(op.outs)), _unused(list(op.body.block.args))
        if len(unused_results) == len(op.outs) or (not unused_results and not ignored):
            return
        kept = [k for k in range(len(op.outs)) if k not in unused_results]
        inputs = [k for k in range(len(op.inputs)) if k not in ignored]
        body = _trimmed(op.body, inputs, kept)
        if body is None:
            return
        new = soac.MapOp(op.width, [op.inputs[k] for k in inputs], [op.outs[k].type for k in kept], body)
        _replace(rewriter, op, new, kept)


class RemoveUnusedReduceParts(RewritePattern):
    """`soac.reduce` without the parts of its operator whose results nobody uses."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.ReduceOp, rewriter: PatternRewriter) -> None:
        k = len(op.neutral)
        removed = _removable_parts(op)
        if not removed or len(removed) == k:
            return
        kept = [i for i in range(k) if i not in removed]
        combine = _trimmed(op.combine, [*kept, *(k + i for i in kept)], kept)
        if combine is None:
            return
        commutative = op.commutative is not None
        new = soac.ReduceOp(op.width, [op.neutral[i] for i in kept], [op.inputs[i] for i in kept], combine, commutative)
        _replace(rewriter, op, new, kept)


class RemoveUnusedRedomapParts(RewritePattern):
    """`soac.redomap` without unused reduction parts, unused map-outs and ignored inputs."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.RedomapOp, rewriter: PatternRewriter) -> None:
        k = len(op.neutral)
        removed = _removable_parts(op)
        unused_map_outs = [k + i for i in _unused(list(op.outs)[k:])]
        ignored = _unused(list(op.body.block.args))
        if len(removed) == k or (not removed and not unused_map_outs and not ignored):
            return
        reduced = [i for i in range(k) if i not in removed]
        kept = [*reduced, *(i for i in range(k, len(op.outs)) if i not in unused_map_outs)]
        inputs = [i for i in range(len(op.inputs)) if i not in ignored]
        combine = _trimmed(op.combine, [*reduced, *(k + i for i in reduced)], reduced)
        body = _trimmed(op.body, inputs, kept)
        if combine is None or body is None:
            return
        new = soac.RedomapOp(
            op.width,
            [op.neutral[i] for i in reduced],
            [op.inputs[i] for i in inputs],
            [op.outs[i].type for i in kept],
            combine,
            body,
            op.commutative is not None,
        )
        _replace(rewriter, op, new, kept)
