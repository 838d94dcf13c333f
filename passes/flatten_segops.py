r"""Builders of the segmented ops of `soac-flatten`: one SOAC in a nest Σ becomes one op over (Σ, its width).

The flattening rules of seed 004, with Σ = ⟨xs ∈ xss⟩ (here `%i < %n`):

    Σ ⊢ map f ys             ⇒ segmap (Σ, ⟨y ∈ ys⟩) f          (body of f run sequentially)
    Σ ⊢ redomap ⊙ f d ys     ⇒ segred (Σ, ⟨y ∈ ys⟩) ⊙ d f
    Σ ⊢ scanomap ⊙ f d ys    ⇒ segscan (Σ, ⟨y ∈ ys⟩) ⊙ d f     (+ a segmap for a post lambda)
    Σ ⊢ hist ⊙ d dests f ys  ⇒ seghist (Σ, ⟨y ∈ ys⟩) ⊙ d Dests f (Dests: the destinations over Σ)

For example `map (\row -> reduce (+) 0 row) xss`, inside the map, gives

    %s = soac.segred thread (%n, %m) neutral(%zero : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
      ...
    } lambda(%i: index, %j: index) {
      %0 = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
      soac.yield %0 : f32
    }

The results are the SOAC's results for every point of Σ: an array with the
dimensions of Σ in front (scalars for an empty Σ).
"""

from __future__ import annotations

from collections.abc import Sequence

from soac.dialect import (
    HistOp,
    Level,
    MapOp,
    RedomapOp,
    ReduceOp,
    ScanomapOp,
    ScanOp,
    SeghistOp,
    SegmapOp,
    SegredOp,
    SegscanOp,
)
from soac.passes.flatten_analysis import region_free_values
from soac.passes.flatten_nest import Bound, KernelBody, Nest
from soac.types import array_of
from xdsl.ir import Operation, Region, SSAValue

Combining = ReduceOp | ScanOp | RedomapOp | ScanomapOp


def combine_region(nest: Nest, region: Region) -> Region | None:
    """A copy of an operator region for use before the nest; None if it uses values of the nest."""
    mapper: dict[SSAValue, SSAValue] = {}
    for value in region_free_values(region):
        if (outer := nest.outer(value)) is None:
            return None
        mapper[value] = outer
    copy = Region()
    region.clone_into(copy, value_mapper=mapper)
    return copy


def segmap_of(nest: Nest, op: MapOp, width: SSAValue, level: Level) -> SegmapOp:
    """`map f xs` in Σ as `segmap (Σ, ⟨x ∈ xs⟩) f`: the lambda's body runs sequentially in each point."""
    inner = nest.child([width])
    inner.bind_rows(op.body.block.args, op.inputs, nest.depth)
    body = KernelBody(inner)
    *ops, yield_op = op.body.block.ops
    body.clone_all(ops)
    return body.segmap(level, yield_op.operands)


def segcombine(
    nest: Nest, op: Combining, width: SSAValue, neutral: Sequence[SSAValue], combine: Region, level: Level
) -> tuple[list[Operation], list[SSAValue]]:
    """reduce/redomap in Σ as a segred, scan/scanomap as a segscan (and a segmap for the post lambda).

    Returns the new ops and the values that replace the op's results over Σ.
    """
    d = nest.depth
    inner = nest.child([width])
    body = KernelBody(inner)
    if isinstance(op, RedomapOp | ScanomapOp):
        inner.bind_rows(op.body.block.args, op.inputs, d)
        *ops, yield_op = op.body.block.ops
        body.clone_all(ops)
        yields = list(yield_op.operands)
    else:
        yields = [body.row(x, d) for x in op.inputs]
        body.mapper.update({y: y for y in yields})
    post = op.post.block if isinstance(op, ScanomapOp) and op.post is not None and op.post.blocks else None
    k = len(neutral)
    if isinstance(op, ReduceOp | RedomapOp):
        types = [nest.manifest_type(t) for t in op.outs.types]
        seg: Operation = SegredOp(level, inner.widths, neutral, types, body.region(yields), combine)
        return [seg], list(seg.results)
    scanned = [nest.manifest_type(array_of(v.type)) for v in neutral]
    n_post = op.num_scanned if isinstance(op, ScanomapOp) else k
    m = len(op.outs) - n_post
    # Values the lambda forwards to the post lambda are stored, as map-outs that are no results of the op.
    forwarded = [nest.manifest_type(array_of(v.type)) for v in yields[k + m :]]
    types = [*scanned, *(nest.manifest_type(t) for t in op.outs.types[n_post:]), *forwarded]
    seg = SegscanOp(level, inner.widths, neutral, types, body.region(yields), combine)
    if post is None:
        return [seg], list(seg.results)
    after = inner.child()
    fixed = k + len(op.inputs)
    for param, array in zip([*post.args[:k], *post.args[fixed:]], [*seg.results[:k], *seg.results[k + m :]]):
        after.env[param] = Bound(array, tuple(range(d + 1)))
    after.bind_rows(post.args[k:fixed], op.inputs, d)
    post_body = KernelBody(after)
    *post_ops, post_yield = post.ops
    post_body.clone_all(post_ops)
    apply_post = post_body.segmap(level, post_yield.operands)
    return [seg, apply_post], [*apply_post.results, *seg.results[k : k + m]]


def seghist_of(
    nest: Nest, op: HistOp, width: SSAValue, dests: Sequence[SSAValue], neutral: Sequence[SSAValue], combine: Region
) -> SeghistOp:
    """`hist` in Σ as `seghist (Σ, ⟨y ∈ ys⟩)` into `dests`, the destinations as arrays over Σ (consumed)."""
    inner = nest.child([width])
    inner.bind_rows(op.body.block.args, op.inputs, nest.depth)
    body = KernelBody(inner)
    *ops, yield_op = op.body.block.ops
    body.clone_all(ops)
    return SeghistOp(Level.THREAD, inner.widths, dests, neutral, combine, body.region(yield_op.operands))
