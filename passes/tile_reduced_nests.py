"""soac-tile's first step: a redomap outside any lambda whose lambda folds over arrays from outside becomes a segmap
and a reduce, so that the segmap's nest can be tiled.

soac-flatten flattens map nests; a redomap outside them goes to soac-to-kernel whole, each work-item running its
lambda (and the inner fold over all of the arrays) alone. nbody's potential energy over a chunk of bodies against all
bodies is such a redomap (`sum_i m_i * sum_j f(i, j)`: soac-fuse joins the outer map and sum). As Futhark's kernel
extraction does with a redomap whose lambda holds parallelism, the redomap becomes a map of its lambda (here a
thread-level segmap, the shape `TileNest` tiles) and a reduce of the map's results with the same operator, in the same
order (the operator need not commute):

Before:

    %e = soac.redomap commutative %n (%x, %m : ...) neutral(%z : f32) -> f32 combine(...) {...}
        lambda(%xi: f32, %mi: f32) {
      %s = soac.redomap commutative %nb (%bx, %bm : ...) neutral(%z : f32) -> f32 combine(...) {...} lambda(...) {...}
      %p = arith.mulf %mi, %s : f32
      soac.yield %p : f32
    }

After (then tiled by `TileNest`):

    %terms = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
      %xi = soac.index %x[%i] : tensor<?xf32> -> f32
      %mi = soac.index %m[%i] : tensor<?xf32> -> f32
      %s = soac.redomap commutative %nb (%bx, %bm : ...) ...
      %p = arith.mulf %mi, %s : f32
      soac.yield %p : f32
    }
    %e = soac.reduce commutative %n (%terms : tensor<?xf32>) neutral(%z : f32) -> f32 combine(...) {...}

Only a redomap whose segmap would be tiled is split (`tileable`): the split costs a pass over `n` partial results,
which only the tiled kernel's shared reads repay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from soac.dialect import IndexOp, Level, RedomapOp, ReduceOp, SegmapOp
from soac.passes.flatten_analysis import in_lambda
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint


@dataclass
class SplitReducedNest(RewritePattern):
    """Splits a redomap outside any lambda, whose lambda holds one inner redomap, into a thread-level segmap of its
    lambda and a reduce, when `tileable` says the segmap would be tiled."""

    tileable: Callable[[SegmapOp], bool]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RedomapOp, rewriter: PatternRewriter, /) -> None:
        if in_lambda(op) or len(op.outs) != len(op.neutral):
            return  # in a lambda it runs sequentially; map results beside the reduction: not this shape
        lam = op.body.block
        nested = [inner for inner in lam.ops if inner.regions]
        if len(nested) != 1 or not isinstance(nested[0], RedomapOp):
            return
        if any(isinstance(ne.type, TensorType) for ne in op.neutral):
            return  # an operator on rows
        segmap = _segmap_of_lambda(op)
        if not self.tileable(segmap):
            segmap.erase(safe_erase=False)  # drops the uses its clones made of values from outside
            return
        reduce = ReduceOp(op.width, list(op.neutral), list(segmap.outs), op.combine.clone(), op.commutative is not None)
        for out, replaced in zip(reduce.outs, op.outs):
            out.name_hint = replaced.name_hint
        rewriter.insert(segmap, InsertPoint.before(op))
        rewriter.replace(op, reduce)


def _segmap_of_lambda(op: RedomapOp) -> SegmapOp:
    """`segmap thread (width) lambda(%i) { the inputs' rows at %i; the redomap's lambda }`, not inserted."""
    lam = op.body.block
    body = Block(arg_types=[IndexType()])
    index = body.args[0]
    index.name_hint = "i"
    mapping: dict[SSAValue, SSAValue] = {}
    for param, array in zip(lam.args, op.inputs):
        read = IndexOp(array, [index])
        read.result.name_hint = param.name_hint
        body.add_op(read)
        mapping[param] = read.result
    for inner in lam.ops:
        clone = inner.clone(value_mapper=mapping)
        clone.location = inner.location
        body.add_op(clone)
    yielded = lam.last_op
    assert yielded is not None
    types = [TensorType(v.type, [DYNAMIC_INDEX]) for v in yielded.operands]
    segmap = SegmapOp(Level.THREAD, [op.width], types, Region(body))
    segmap.location = op.location
    for out in segmap.outs:
        out.name_hint = "terms"
    return segmap


__all__ = ["SplitReducedNest"]
