"""Copy propagation: a map that copies its input rows is the input, where no one consumes either array.

    %c = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) { soac.yield %x : f32 }
    %s = soac.redomap %n (%c : tensor<?xf32>) ...
  becomes
    %s = soac.redomap %n (%xs : tensor<?xf32>) ...

The map's check that `%xs` has `%n` rows must be known to hold, and a copy that an in-place update, scatter or
histogram consumes (`sl.copy` before `sl.scatter`) stays: it is what keeps the original intact.
"""

from __future__ import annotations

from soac import dialect as soac
from soac.passes.simplify_cse import possibly_consumed
from soac.passes.simplify_sizes import rows_match_width
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern


class ForwardCopiedRows(RewritePattern):
    """Uses of a map result that copies an input become uses of the input (see the module's docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.MapOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        terminator = block.last_op
        if terminator is None:
            return
        for result, yielded in zip(op.outs, terminator.operands):
            if not result.uses or yielded not in block.args:
                continue
            source = op.inputs[block.args.index(yielded)]
            if source.type != result.type or possibly_consumed(result) or possibly_consumed(source):
                continue
            if not rows_match_width(op, [source], op.width):
                continue
            rewriter.replace_all_uses_with(result, source)
