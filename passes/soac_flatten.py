"""`soac-flatten{mode=incremental|moderate|full}`: map nests become flat segmented operations (seed 004).

Every `soac.map` that is not inside a lambda (in a function body, or in the
body of a loop or branch there) is flattened with the rules of
`flatten_distribute` and `flatten_segops`: map distribution, map-loop
interchange, transpose pushing, map(redomap) -> segred, map(scanomap) ->
segscan, maps of maps -> a segmap over a multi-dimensional index space, maps of
partitions -> partitions of the flat array by (segment, bucket) (`flatten_partition`), and
sequential code for what cannot be flattened regularly. Reductions and scans
outside maps are already flat and stay as they are.

* `mode=incremental` (default): each map whose body holds parallelism gets the
  outer-parallel and intra-group versions that Futhark's heuristics find worth
  making (`flatten_heuristics`) beside the fully flattened one, chosen at run
  time by `soac.threshold` (`flatten_versions`);
* `mode=full`: only the fully flattened version;
* `mode=moderate`: outer parallelism only: maps of maps and loops are
  flattened, inner reductions and scans run sequentially in each thread.

Before:

    %sums = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
      %s = soac.reduce %m (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {...}
      soac.yield %s : f32
    }

After, with `mode=full`:

    %sums = soac.segred thread (%n, %m) neutral(%zero : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
      ...
    } lambda(%i: index, %j: index) {
      %0 = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
      soac.yield %0 : f32
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from soac.dialect import Level, MapOp
from soac.passes.flatten_analysis import in_lambda
from soac.passes.flatten_distribute import Distributor
from soac.passes.flatten_nest import Bound, KernelBody, Nest
from soac.passes.flatten_stencil import MapOfStencil
from soac.passes.flatten_versions import Flattener, Mode
from soac.passes.hist_rows import hists_of_rows_to_elements
from soac.passes.split_scan_reduce import in_soac_lambda, split_scan_reductions
from soac.passes.vectorised_operators import interchange_vectorised_operators
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint


@dataclass
class FlattenMapNest(RewritePattern):
    """Replaces a map nest outside any lambda by its flattened (and versioned) form."""

    flattener: Flattener

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MapOp, rewriter: PatternRewriter, /) -> None:
        if in_lambda(op):
            return
        nest = Nest(op, [])
        dist = Distributor(self.flattener, nest, Builder(InsertPoint.before(op)))
        self.flattener.map_nest(dist, op, op.width)
        results = [nest.outer(r) for r in op.results]
        yields = op.body.block.last_op.operands  # pyright: ignore[reportOptionalMemberAccess]
        for k, (result, value) in enumerate(zip(results, yields)):
            assert result is not None
            if result not in nest.fresh:
                results[k] = self.copy(op, result, value, rewriter)
            results[k].name_hint = op.results[k].name_hint or results[k].name_hint
        rewriter.replace(op, (), results)

    @staticmethod
    def copy(op: MapOp, array: SSAValue, row: SSAValue, rewriter: PatternRewriter) -> SSAValue:
        """A segmap copying `array`, so that the map's result does not alias an array of the program."""
        nest = Nest(op, [op.width], {row: Bound(array, (0,))})
        kernel = KernelBody(nest).segmap(Level.THREAD, [row])
        rewriter.insert(kernel, InsertPoint.before(op))
        return kernel.outs[0]


@dataclass(frozen=True)
class SoacFlattenPass(ModulePass):
    """Flatten map nests into segmap/segred/segscan, with threshold-guarded versions."""

    name = "soac-flatten"

    mode: Mode = "incremental"
    """`incremental` (every version, chosen by thresholds), `full` or `moderate`."""
    prepare: bool = True
    """Run the steps the flattening rules need first, as `soac.passes.DEFAULT_PIPELINE` spells them out (it passes
    false): `soac-split-scan-reduce{scope=lambdas}` (the rules know scanomaps and redomaps, not both in one op;
    top-level ones go to soac-to-kernel whole), `soac-vectorised-operators` (operators on rows: one per column,
    also in map nests) and `soac-hist-rows` (hists of rows: hists of their elements, also in map nests)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.mode not in ("incremental", "moderate", "full"):
            raise ValueError(f"soac-flatten: unknown mode '{self.mode}' (expected incremental, moderate or full)")
        if self.prepare:
            split_scan_reductions(op, keep=lambda s: not in_soac_lambda(s))
            interchange_vectorised_operators(op)
            hists_of_rows_to_elements(op)
        PatternRewriteWalker(MapOfStencil()).rewrite_module(op)  # maps of stencils: stencils of one more dimension
        walker = PatternRewriteWalker(FlattenMapNest(Flattener(self.mode)), apply_recursively=False)
        walker.rewrite_module(op)
