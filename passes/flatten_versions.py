"""Incremental flattening: the versions of a map nest and the thresholds that choose between them.

For a map whose body holds inner parallelism, in a nest Σ, with Σ' = (Σ, the map):

    if Par(Σ') >= t_suff_outer_par_K then           -- outer parallelism suffices
      segmap thread Σ' (the body, sequential)
    else if Par(inner) >= t_suff_intra_par_K' and it fits a work-group then
      segmap group Σ' (the body, its SOACs as thread-level segops)
    else
      the body distributed over Σ' (fully flattened, its own maps versioned again)

(seed 004, "Level-aware incremental flattening"). The outer-parallel version is
made only where Futhark's `worthSequentialising` holds, the intra-group one
where `worthIntrablock` holds and constant sizes do not rule it out
(`flatten_heuristics`); a map worth neither is distributed as it is. Par(Σ') is
the product of the widths of Σ' (`arith.muli`), Par(inner) the smallest width
of the SOACs of the body (the group size is the largest, at most
`MAX_GROUP_SIZE`). The thresholds default as Futhark's, 32768 for
`suff_outer_par_K` and 32 for `suff_intra_par_K`, and on a device to its
resident work-items and SIMD width (`device "resident"`, `device "group"`); one
counter numbers them all, in the order they are made:

    %par = arith.muli %n, %m : index
    %big = soac.threshold "suff_outer_par_0" %par default 32768 device "resident"
    %r = scf.if %big -> (tensor<?x?xf32>) {
      %0 = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) { ... soac.redomap ... }
      scf.yield %0 : tensor<?x?xf32>
    } else {
      ...
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from soac.dialect import HistOp, Level, MapOp, OnDevice, ScatterOp, ThresholdOp
from soac.passes.flatten_analysis import COMBINING, SOACS
from soac.passes.flatten_checks import check_width
from soac.passes.flatten_distribute import Distributor
from soac.passes.flatten_heuristics import intra_may_fill, worth_intra_group, worth_sequentialising
from soac.passes.flatten_nest import KernelBody, Nest
from soac.passes.flatten_segops import combine_region, segcombine
from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

Mode = Literal["incremental", "moderate", "full"]

SUFF_OUTER_PAR = "suff_outer_par"
SUFF_INTRA_PAR = "suff_intra_par"
DEFAULT_OUTER = 32768
DEFAULT_INTRA = 32
MAX_GROUP_SIZE = 1024
"""The largest work-group the intra-group version assumes (the guard `group size <= 1024`)."""


def group_soacs(block: Block) -> list[Operation]:
    """The SOACs of `block` that run in parallel in a work-group: not in lambdas, maybe in loops or branches."""
    found: list[Operation] = []
    for op in block.ops:
        if isinstance(op, (MapOp, *COMBINING)):
            found.append(op)
        elif not isinstance(op, SOACS):
            found.extend(soac for region in op.regions for inner in region.blocks for soac in group_soacs(inner))
    return found


def to_thread_segops(block: Block) -> None:
    """Turns the SOACs of a work-group body into thread-level segmented ops, flattening maps fully."""
    for soac in group_soacs(block):
        nest = Nest(soac, [])
        check_width(Builder(InsertPoint.before(soac)), nest, soac, soac.width)
        if isinstance(soac, MapOp):
            dist = Distributor(Flattener("full"), nest, Builder(InsertPoint.before(soac)))
            dist.flattener.map_nest(dist, soac, soac.width)
            new_ops: list[Operation] = []
            results = [nest.outer(r) for r in soac.results]
        else:
            combine = combine_region(nest, soac.combine)
            assert combine is not None
            new_ops, results = segcombine(nest, soac, soac.width, list(soac.neutral), combine, Level.THREAD)  # pyright: ignore
        Rewriter.replace_op(soac, new_ops, results)


def yield_as(block: Block, values: Sequence[SSAValue], types: Sequence[Attribute]) -> None:
    """`scf.yield values`, cast to `types` where a static size makes them differ."""
    cast: list[SSAValue] = []
    for value, t in zip(values, types, strict=True):
        if value.type != t and isinstance(t, TensorType):
            conversion = tensor.CastOp(value, t)
            block.add_op(conversion)
            value = conversion.dest
        cast.append(value)
    block.add_op(scf.YieldOp(*cast))


@dataclass
class Flattener:
    """The policy of one run of `soac-flatten`: the mode and the threshold counter."""

    mode: Mode
    counter: int = 0

    @property
    def flatten_combining(self) -> bool:
        """Moderate flattening keeps reductions and scans inside map nests sequential."""
        return self.mode != "moderate"

    def fresh_name(self, kind: str) -> str:
        name = f"{kind}_{self.counter}"
        self.counter += 1
        return name

    def map_nest(self, dist: Distributor, op: MapOp, width: SSAValue) -> None:
        """Flattens the map `op` of `dist`'s nest; binds its results to arrays over the nest."""
        check_width(dist.builder, dist.nest, op, width)
        inner = dist.nest.child([width])
        inner.bind_rows(op.body.block.args, op.inputs, dist.nest.depth)
        results = self.versions(dist.builder, inner, op) if self.mode == "incremental" else None
        if results is None:
            results = Distributor(self, inner, dist.builder).run(op.body.block)
        dist.nest.bind_full(op.results, results, fresh=False)

    def versions(self, builder: Builder, inner: Nest, op: MapOp) -> list[SSAValue] | None:
        """The versions worth making, behind thresholds; None where only the fully flattened one is."""
        body = op.body.block
        outer_name = self.fresh_name(SUFF_OUTER_PAR) if worth_sequentialising(body) else None
        widths = self.intra_widths(builder, inner, op) if worth_intra_group(body) else None
        if widths is not None and not intra_may_fill(inner.widths, widths):
            widths = None
        if outer_name is None and widths is None:
            return None
        *body_ops, yield_op = body.ops
        yields = list(yield_op.operands)
        types = [inner.manifest_type(v.type) for v in yields]
        if outer_name is None:
            assert widths is not None
            choice = builder.insert(self.intra_or_flat(builder, inner, op, widths, types))
            inner.fresh.update(choice.results)
            return list(choice.results)
        par = self.product(builder, inner.widths)
        outer_ok = builder.insert(ThresholdOp(outer_name, par, DEFAULT_OUTER, OnDevice.RESIDENT))
        outer_ok.result.name_hint = "outer_suff"
        outer = KernelBody(inner)
        outer.clone_all(body_ops)
        top = Block([outer_kernel := outer.segmap(Level.THREAD, yields)])
        yield_as(top, outer_kernel.results, types)
        rest = Block()
        if widths is None:
            yield_as(rest, self.flat(rest, inner, op), types)
        else:
            rest_builder = Builder(InsertPoint.at_end(rest))
            choice = rest_builder.insert(self.intra_or_flat(rest_builder, inner, op, widths, types))
            yield_as(rest, choice.results, types)
        versions = builder.insert(scf.IfOp(outer_ok, types, [top], [rest]))
        inner.fresh.update(versions.results)
        return list(versions.results)

    def intra_or_flat(self, builder: Builder, inner: Nest, op: MapOp, widths: list[SSAValue], types: list[Attribute]) -> scf.IfOp:
        """`scf.if intra_ok` between the intra-group and the fully flattened versions (its condition at `builder`)."""
        *body_ops, yield_op = op.body.block.ops
        cond = self.intra_condition(builder, widths)
        group = KernelBody(inner)
        group.clone_all(body_ops)
        intra = Block([group_kernel := group.segmap(Level.GROUP, list(yield_op.operands))])
        to_thread_segops(group_kernel.body.block)
        yield_as(intra, group_kernel.results, types)
        flat = Block()
        yield_as(flat, self.flat(flat, inner, op), types)
        return scf.IfOp(cond, types, [intra], [flat])

    def flat(self, block: Block, inner: Nest, op: MapOp) -> list[SSAValue]:
        """The fully distributed version, in its own scope."""
        return Distributor(self, inner.child(), Builder(InsertPoint.at_end(block))).run(op.body.block)

    def intra_widths(self, builder: Builder, inner: Nest, op: MapOp) -> list[SSAValue] | None:
        """The widths of the body's SOACs, if an intra-group version can be built (None otherwise, and for bodies
        that scatter or build histograms: those have no work-group form yet)."""
        soacs = group_soacs(op.body.block)
        if not soacs or any(isinstance(o, ScatterOp | HistOp) for o in op.body.block.walk()):
            return None
        outer = Distributor(self, inner, builder)
        widths = [outer.outer(soac.operands[0]) for soac in soacs]
        if any(w is None for w in widths):
            return None
        return list(dict.fromkeys(widths))  # pyright: ignore[reportReturnType]

    def intra_condition(self, builder: Builder, widths: list[SSAValue]) -> SSAValue:
        """`Par(inner) >= t_suff_intra_par_K` and the largest width fits a work-group."""
        smallest, largest = widths[0], widths[0]
        for width in widths[1:]:
            smallest = builder.insert(arith.MinUIOp(smallest, width)).result
            largest = builder.insert(arith.MaxUIOp(largest, width)).result
        suff = builder.insert(ThresholdOp(self.fresh_name(SUFF_INTRA_PAR), smallest, DEFAULT_INTRA, OnDevice.GROUP))
        suff.result.name_hint = "intra_suff"
        limit = builder.insert(arith.ConstantOp(IntegerAttr(MAX_GROUP_SIZE, IndexType())))
        limit.result.name_hint = "max_group_size"
        fits = builder.insert(arith.CmpiOp(largest, limit, "ule"))
        fits.result.name_hint = "fits_group"
        intra_ok = builder.insert(arith.AndIOp(suff, fits)).result
        intra_ok.name_hint = "intra_ok"
        return intra_ok

    @staticmethod
    def product(builder: Builder, widths: Sequence[SSAValue]) -> SSAValue:
        par = widths[0]
        for width in widths[1:]:
            par = builder.insert(arith.MuliOp(par, width)).result
            par.name_hint = "par"
        return par
