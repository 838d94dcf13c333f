"""`soac-small-intra`: an intra-group version of thread-level nests over many small blocks (issue 27, item 3).

A `segmap thread (q, d1, ..., dk)` (k >= 2: a batch of nests of two or more dimensions)
whose work-items fold a `soac.redomap` over the batch `q`'s own blocks of arrays (a batch of small matrix products: `c[q,i,j] =
Σ_k a[q,i,k] b[q,k,j]`) reads every element of `a[q]` and `b[q]` n times from
global memory, and a transposed operand (`b[q].T`, read by rows) a row apart
between neighbouring work-items. This pass gives such a nest a version in which a
work-group per batch element stages the blocks it reads in local memory (the
whole group copies each contiguous block: neighbouring work-items load
neighbouring elements) and its work-items compute the results from there:

Before (the outer-parallel version of `map (\\x y -> map (\\r -> map (\\c -> sum (r*c)) y.T) x) a b`):

    %bt = soac.transpose %b [0, 2, 1] : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
    %c = soac.segmap thread (%q, %n, %m) -> tensor<?x?x?xf32> lambda(%p: index, %i: index, %j: index) {
      %row = soac.index %a[%p, %i] : tensor<?x?x?xf32> -> tensor<?xf32>
      %col = soac.index %bt[%p, %j] : tensor<?x?x?xf32> -> tensor<?xf32>
      %s = soac.redomap %k (%row, %col : ...) neutral(%zero : f32) -> f32 combine(...) lambda(%x: f32, %y: f32) {...}
      soac.yield %s : f32
    }

After:

    %ks = soac.iota %k : tensor<?xi64>
    %small = soac.threshold "suff_small_intra_0" %inner_par default 32 device "group"
    %ok = ... %small and every staged block has at most 1024 elements ...
    %c = scf.if %ok -> (tensor<?x?x?xf32>) {
      %0 = soac.segmap group (%q) -> tensor<?x?x?xf32> lambda(%p: index) {
        %a_block = soac.index %a[%p] {staged} : tensor<?x?x?xf32> -> tensor<?x?xf32>
        %b_block = soac.index %b[%p] {staged} : tensor<?x?x?xf32> -> tensor<?x?xf32>
        %1 = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
          %s = soac.redomap %k (%ks : tensor<?xi64>) ... lambda(%l: i64) {
            %x = soac.index %a_block[%i, %l'] ...
            %y = soac.index %b_block[%l', %j] ...          // read through the transpose
            ...
          }
          soac.yield %s : f32
        }
        soac.yield %1 : tensor<?x?xf32>
      }
      scf.yield %0
    } else {
      (the segmap as it was)
    }

The steps, each on the nest's lambda: the redomap's row inputs become element reads in its lambda (a redomap
over `iota k`, which is how the index-written form `Σ_k a[q,i,k]·b[q,k,j]` comes out of soac-flatten, so
both written forms reach the same nest); element reads of a transpose that keeps the batch dimension read its
source with the indices permuted; element reads whose first index is the batch index (directly, or through an
iota of the batch) read the batch's block, which the group lambda takes once as a `soac.index ... {staged}`
row. The group-level segmap's lowering (`lowering/strategies/intragroup.py`) copies each staged row into local
memory. `soac.dialect.STAGED_CAPACITY` elements per staged block is the local memory the lowering gives it.

The version is chosen by `suff_small_intra_K` (the inner parallelism `d1 x ... x dk` against a warp:
`device "group"`) and the blocks' sizes; the segmap as it was is the other branch. Where the segmap is soac-flatten's
outer-parallel version, the staged one goes before that version's `scf.if` (`outer_version`): a work-group per
batch has as many work-items as the outer-parallel version, so it is taken whatever the outer parallelism.

Why a pass after soac-flatten rather than one more of its versions: Futhark's `worthIntrablock` scores `map (map
(map redomap))` at 1 (`flatten_heuristics`: no intra-group version), rightly for its intra-group versions, which
gain parallelism but read global memory as the outer-parallel one does; what pays here is locality, decided on the
flattened nest's reads as soac-tile decides block tiling. And the two written forms only agree after flattening
(the `.T` form's transpose pushed out of the nest, the index form's iotas), so one rule on the flattened nest
catches both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from soac.dialect import (
    STAGED,
    STAGED_CAPACITY,
    IndexOp,
    IotaOp,
    Level,
    OnDevice,
    RedomapOp,
    SegmapOp,
    ThresholdOp,
    TransposeOp,
    YieldOp,
    defined_inside,
)
from soac.passes.flatten_analysis import in_lambda
from soac.passes.flatten_versions import SUFF_OUTER_PAR
from soac.passes.small_intra_reads import (
    NotSmallNest,
    SmallNest,
    block_elements,
    element_bytes,
    elements_from_rows,
    index_of_iota_reads,
    iotas_beside,
    sink_into_branches,
    staged_reads,
    uses_in,
)
from soac.passes.thresholds import guard
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, builtin, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

SMALL_INTRA = "suff_small_intra"
DEFAULT_SMALL_INTRA = 32
"""A warp: an inner nest narrower than this leaves most of a work-group idle (the runtime's `device "group"`)."""
MAX_STAGED_BYTES = 32 * 1024
"""Local memory the staged blocks of one work-group may take together (of the 48 KiB every CUDA GPU gives)."""


@dataclass
class StageSmallNests:
    """Gives every thread-level segmap over small batch blocks its staged intra-group version."""

    counter: int = 0

    def run(self, module: builtin.ModuleOp) -> None:
        candidates = [
            op
            for op in module.walk()
            if isinstance(op, SegmapOp) and op.level.data == Level.THREAD and len(op.dims) >= 3 and not in_lambda(op)
        ]
        read = [o for o in module.walk() if isinstance(o, TransposeOp | IotaOp) and any(uses_in(o, c) for c in candidates)]
        made = [versions for op in candidates if (versions := self.version(op)) is not None]
        for array_op in read:
            if not array_op.results[0].uses:
                array_op.detach()
                array_op.erase()  # the versions compute what they read of it
            elif any(uses_in(array_op, versions) for versions in made):
                sink_into_branches(array_op)

    def version(self, op: SegmapOp) -> scf.IfOp | None:
        """Builds the staged version of `op` (a scratch copy first, so that a nest it cannot stage is left as it was)."""
        if any(isinstance(v.type, TensorType) for v in op.body.block.last_op.operands):  # pyright: ignore[reportOptionalMemberAccess]
            return None  # rows in the results: not a nest of scalars
        work = op.clone()
        nest = SmallNest(work)
        scratch = Block([work])
        try:
            redomaps = [inner for inner in work.body.walk() if isinstance(inner, RedomapOp)]
            if not redomaps:
                raise NotSmallNest  # nothing is read more than once: staging cannot pay
            for red in redomaps:
                if all(isinstance(v.owner, IotaOp) for v in red.inputs):
                    iotas_beside(red, nest)  # already the index-written form
                else:
                    elements_from_rows(red, nest)
            reads = staged_reads(nest, work.body.block)
            bytes_ = sum(STAGED_CAPACITY * element_bytes(a.type) for a in nest.staged)  # pyright: ignore[reportArgumentType]
            if not reads or bytes_ > MAX_STAGED_BYTES:
                raise NotSmallNest
        except NotSmallNest:
            scratch.detach_op(work)
            work.erase()
            return None
        scratch.detach_op(work)
        replaced: Operation = outer_version(op, nest.staged) or op
        versions = self.build(op, work, nest, reads, Builder(InsertPoint.before(replaced)), replaced)
        kept = SmallNest(op)  # the outer-parallel version computes its indices too, instead of reading iotas
        for red in [inner for inner in op.body.walk() if isinstance(inner, RedomapOp)]:
            if red.inputs and all(isinstance(v.owner, IotaOp) for v in red.inputs):
                iotas_beside(red, kept)
        index_of_iota_reads(op.body.block, kept)
        return versions

    def build(
        self, op: SegmapOp, work: SegmapOp, nest: SmallNest, reads: Sequence[IndexOp], before: Builder, replaced: Operation
    ) -> scf.IfOp:
        """`scf.if ok { segmap group (q) { staged rows; segmap thread (inner dims) {...} } } else { replaced }`, where
        `replaced` is `op` or the outer-parallel version's `scf.if` that holds it (see `outer_version`)."""
        q_dim, *inner_dims = list(op.dims)
        inner_par = inner_dims[0]
        for width in inner_dims[1:]:
            inner_par = before.insert(arith.MuliOp(inner_par, width)).result
        inner_par.name_hint = "inner_par"
        ok = before.insert(ThresholdOp(f"{SMALL_INTRA}_{self.counter}", inner_par, DEFAULT_SMALL_INTRA, OnDevice.GROUP)).result
        ok.name_hint = "small_intra"
        self.counter += 1
        capacity = before.insert(arith.ConstantOp(IntegerAttr(STAGED_CAPACITY, IndexType()))).result
        capacity.name_hint = "staged_capacity"
        for array in nest.staged:
            fits = before.insert(arith.CmpiOp(block_elements(before, array), capacity, "ule")).result
            fits.name_hint = "fits_local"
            ok = before.insert(arith.AndIOp(ok, fits)).result
        ok.name_hint = "small_intra_ok"

        group_block = Block(arg_types=[IndexType()])
        batch = group_block.args[0]
        batch.name_hint = work.body.block.args[0].name_hint
        blocks: dict[SSAValue, SSAValue] = {}
        for array in nest.staged:
            row = IndexOp(array, [batch])
            row.location = next(read.location for read in reads if read.array is array)  # the user's first read
            row.attributes[STAGED] = UnitAttr()
            row.result.name_hint = f"{array.name_hint or 'x'}_block"
            group_block.add_op(row)
            blocks[array] = row.result
        for read in reads:
            element = IndexOp(blocks[read.array], list(read.indices[1:]))
            element.location = read.location
            Rewriter.replace_op(read, element)
        index_of_iota_reads(work.body.block, nest)
        work_block = work.body.block
        work_block.args[0].replace_all_uses_with(batch)
        inner_block = Block(arg_types=[IndexType()] * len(inner_dims))
        for new, old in zip(inner_block.args, work_block.args[1:]):
            new.name_hint = old.name_hint
            old.replace_all_uses_with(new)
        for inner in list(work_block.ops):
            inner.detach()
            inner_block.add_op(inner)
        yielded = list(inner_block.last_op.operands)  # pyright: ignore[reportOptionalMemberAccess]
        row_types = [TensorType(v.type, [DYNAMIC_INDEX] * len(inner_dims)) for v in yielded]
        inner = SegmapOp(Level.THREAD, inner_dims, row_types, Region(inner_block))
        group_block.add_op(inner)
        group_block.add_op(YieldOp(*inner.outs))
        group = SegmapOp(Level.GROUP, [q_dim], [r.type for r in op.outs], Region(group_block))
        for result, old in zip(group.outs, op.outs):
            result.name_hint = old.name_hint
        work.erase()

        types = [r.type for r in op.outs]
        staged = Block()
        checks = Builder(InsertPoint.at_end(staged))
        if nest.rows:
            zero = checks.insert(arith.ConstantOp(IntegerAttr(0, IndexType()))).result
            empty = checks.insert(arith.CmpiOp(op.dims[0], zero, "eq")).result
            for width in list(op.dims)[1:]:
                no_rows = checks.insert(arith.CmpiOp(width, zero, "eq")).result
                empty = checks.insert(arith.OrIOp(empty, no_rows)).result
            empty.name_hint = "empty"
            for row in nest.rows:
                row.emit(checks, empty)
        staged.add_ops([group, scf.YieldOp(*group.outs)])
        versions = scf.IfOp(ok, types, [staged], [Block()])
        before.insert(versions)
        for result, new in zip(replaced.results, versions.results):
            result.replace_all_uses_with(new)
            new.name_hint = result.name_hint
        replaced.detach()
        else_block = versions.false_region.block
        else_block.add_op(replaced)
        else_block.add_op(scf.YieldOp(*replaced.results))
        return versions


def outer_version(op: SegmapOp, staged: Sequence[SSAValue]) -> scf.IfOp | None:
    """The `scf.if suff_outer_par_K` whose outer-parallel version is `op` (yielded as it is), where everything the
    staged version's guard reads is defined before it: the staged version is then tried first, whatever the outer
    parallelism (a work-group per batch has as many work-items as the outer-parallel version), and the thresholds
    choose between the outer-parallel and fully flattened versions when it does not apply."""
    versions = op.parent_op()
    if not isinstance(versions, scf.IfOp) or op.parent_block() is not versions.true_region.block:
        return None
    test = guard(versions.cond)
    if test is None or not test.threshold_name.startswith(SUFF_OUTER_PAR):
        return None
    last = versions.true_region.block.last_op
    if not isinstance(last, scf.YieldOp) or list(last.operands) != list(op.outs):
        return None
    if [r.type for r in versions.results] != [r.type for r in op.outs]:
        return None
    if any(defined_inside(v, versions) for v in (*op.dims, *staged)):
        return None
    return versions


@dataclass(frozen=True)
class SoacSmallIntraPass(ModulePass):
    """An intra-group version, with the blocks staged in local memory, of thread-level nests over small batches."""

    name = "soac-small-intra"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        existing = [o.threshold_name for o in op.walk() if isinstance(o, ThresholdOp)]
        numbers = [int(n[len(SMALL_INTRA) + 1 :]) for n in existing if n.startswith(SMALL_INTRA + "_")]
        StageSmallNests(counter=1 + max(numbers, default=-1)).run(op)
