"""Flattening a map of stencils: a map whose lambda only applies a stencil to its rows becomes one stencil of one
more dimension, whose window has extent 1 along the map's (so the boundary never applies there), as long as the
result has rank 3 at most. Every element is then a work-item, instead of every row running its stencil alone.

    %r = soac.map %b (%imgs : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%img: tensor<?x?xf32>) {
      %s = soac.stencil (%n, %m) window [3, 3] clamp (%img : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(...) { ... }
      soac.yield %s : tensor<?x?xf32>
    }
becomes
    %r = soac.stencil (%b, %n, %m) window [1, 3, 3] clamp (%imgs : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
        lambda(...) { ... }

The stencil's sizes and constants must come from outside the map, its inputs must be the map's rows, and its lambda
must not read the rows whole.
"""

from __future__ import annotations

from soac.dialect import STENCIL_MAX_RANK, MapOp, StencilOp, YieldOp, defined_inside
from soac.passes.flatten_checks import check_width
from soac.passes.flatten_nest import Nest
from xdsl.builder import Builder
from xdsl.ir import Block
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint


class MapOfStencil(RewritePattern):
    """`map (\\rows -> stencil rows)` -> a stencil of one more dimension."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MapOp, rewriter: PatternRewriter, /) -> None:
        block = op.body.block
        stencil = block.first_op
        if not isinstance(stencil, StencilOp) or len(stencil.dims) + 1 > STENCIL_MAX_RANK:
            return
        last = block.last_op
        if stencil.next_op is not last or not isinstance(last, YieldOp) or list(last.operands) != list(stencil.outs):
            return
        if any(not isinstance(x.owner, Block) or x.owner is not block for x in stencil.inputs):
            return
        if any(defined_inside(v, op) for v in (*stencil.dims, *stencil.constants)):
            return
        if any(use.operation is not stencil for arg in block.args for use in arg.uses):
            return
        check_width(Builder(InsertPoint.before(op)), Nest(op, []), op, op.width)
        inputs = [op.inputs[block.args.index(x)] for x in stencil.inputs]  # pyright: ignore[reportArgumentType]
        body = stencil.body.clone()
        fused = StencilOp(
            [op.width, *stencil.dims],
            (1, *stencil.window_shape),
            stencil.boundary.data,
            inputs,
            list(op.result_types),
            body,
            list(stencil.constants),
        )
        rewriter.replace(op, fused, list(fused.outs))
