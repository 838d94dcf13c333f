"""`soac-simplify`: Futhark's simplifier between the passes, as a fixpoint of small rewrites.

Each round runs, over the whole module:

* the canonicalisation patterns of every op (unused SOAC results, map-outs and operator parts go; reads at an
  `iota` index become map inputs; constants fold), with dead code elimination;
* size propagation (`simplify_sizes`): a `tensor.dim` of an array whose size an op fixed becomes that size, so that
  an operator over rows has its width from outside and a consumer no longer uses its producer for its size;
* copy propagation (`simplify_copies`): a map that copies its input is the input, where neither is consumed;
* hoisting (`simplify_hoist`): code that does not depend on a lambda's parameters or a loop's iteration moves out;
* common subexpression elimination (`simplify_cse`), inside lambdas too, leaving consumed arrays alone;

until a round changes nothing. Options: `soac-simplify{hoist=false}`, `soac-simplify{cse=false}`.

    %n = tensor.dim %xs, %c0 : tensor<?xi64>
    %i = soac.iota %n : tensor<?xi64>
    %j = soac.iota %n : tensor<?xi64>
    %w = scf.for %t = %c0 to %steps step %c1 iter_args(%v = %xs) -> (tensor<?xi64>) {
      %k = soac.iota %n : tensor<?xi64>
      ...
  becomes
    %n = tensor.dim %xs, %c0 : tensor<?xi64>
    %i = soac.iota %n : tensor<?xi64>            // %j and %k are %i
    %w = scf.for %t = %c0 to %steps step %c1 iter_args(%v = %xs) -> (tensor<?xi64>) {
      ...
"""

from __future__ import annotations

from dataclasses import dataclass

from soac.passes.simplify_copies import ForwardCopiedRows
from soac.passes.simplify_cse import ConsumptionAwareCSE
from soac.passes.simplify_hoist import EraseRepeatedAssert, HoistInvariantAssert, HoistInvariantCode
from soac.passes.simplify_sizes import PropagateKnownSizes
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker, RewritePattern
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.transforms.dead_code_elimination import region_dce

MAX_ROUNDS = 16
"""Rounds of rewriting and CSE before the pass stops (each round that changes nothing ends it sooner)."""


def _op_count(module: builtin.ModuleOp) -> int:
    return sum(1 for _ in module.walk())


def simplify(module: builtin.ModuleOp, ctx: Context | None = None, hoist: bool = True, cse: bool = True) -> None:
    """Simplify `module` in place to a fixpoint (see the module's docstring)."""
    patterns: list[RewritePattern] = [CanonicalizationRewritePattern(), PropagateKnownSizes(), ForwardCopiedRows()]
    if hoist:
        patterns += [HoistInvariantCode(), HoistInvariantAssert(), EraseRepeatedAssert()]
    applier = GreedyRewritePatternApplier(patterns, ctx=ctx, folding_enabled=True)
    for _ in range(MAX_ROUNDS):
        changed = PatternRewriteWalker(applier, post_walk_func=region_dce).rewrite_module(module)
        if cse:
            before = _op_count(module)
            ConsumptionAwareCSE().simplify(module)
            changed |= _op_count(module) != before
        if not changed:
            return


@dataclass(frozen=True)
class SoacSimplifyPass(ModulePass):
    """CSE, hoisting, size and copy propagation, and the canonicalisation patterns, to a fixpoint."""

    name = "soac-simplify"

    hoist: bool = True
    """Move invariant code out of lambdas and loops."""
    cse: bool = True
    """Merge ops that compute the same value."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        simplify(op, ctx, self.hoist, self.cse)
