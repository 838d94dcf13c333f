"""A function-level segred: a team of S work-items per segment (or per part of one), sized by the segment length.

The host picks the team size S = the power of two nearest below n / L, kept in [T, group size], where L is
soac-to-kernel's `seg-lane-items` (8: elements per work-item a team aims at before it grows) and T its
`seg-min-team` (8: fewest work-items per segment, 8 x 4 bytes filling a 32-byte memory sector per load; one
work-item per segment when it is 1), and splits a
segment into P parts when there are too few segments to fill `max-groups` groups and the
segment is long. A team reads its (part of a) segment strided by S (coalesced) when the
operator provably commutes (`group_code.commutes`, tuples of commutative ops too), in S contiguous
chunks otherwise, then combines its S values: by warp shuffles, then across warps in local memory, where the
operator commutes and the target has warps (`GroupCode.warp_team_tree`), else in local memory by an ordered tree.
With P > 1 a second kernel folds the P partial results of every segment in order:

    kernel.launch @main_segred_teams_0(...) global %global_size local %group_size   // results, or P partials each
    kernel.launch @main_segred_parts_0(...) global %global_size local %group_size   // no work-items unless P > 1

For rows of 32-bit values read along `j` (a plain sum, matvec) with a commutative operator, `choice.py` also asks for the kernel
of `segred_vector.py` (warp-sized teams, vector loads), launched between the two; the host picks
it or `segred_teams` by the row length and gives the other no work-items.
"""

from __future__ import annotations

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KValue
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.strategies import segred_vector
from soac.lowering.strategies.group_code import (
    GroupCode,
    commutes,
    fold_streams,
    neutral_values,
    pow2_at_most,
    shuffles_values,
    tree_to,
    write_values,
)
from soac.lowering.strategies.outputs import SegOutputs
from xdsl.dialects import arith
from xdsl.dialects.builtin import i1 as ir_i1
from xdsl.ir import SSAValue

SEG_PART_MIN = 64
"""Elements per work-item below which a segment is not split over several groups."""


def segred_teams(lw: HostLowering, op: soac.SegredOp, seg: SegOutputs, vector_rows: bool, skip: SSAValue | None = None) -> None:
    """A segred whose outputs `seg` are allocated, by teams; with `vector_rows`, `segred_vector`'s kernel as well.
    Where the host value `skip` is true, none of these kernels gets work-items (another strategy runs)."""
    dims, combined, map_outs = seg.dims, seg.combined, seg.map_outs
    k = len(op.neutral)
    m = lw.m
    group = lw.group_size
    segments = m.product(dims[:-1], "segments")
    n = dims[-1]
    min_team = max(1, min(lw.options.seg_min_team, group))
    team, log_team = pow2_at_most(m, m.div(n, m.c(lw.options.seg_lane_items)), min_team, group)
    team.name_hint, log_team.name_hint = "team", "log_team"
    # Parts per segment: enough teams to fill max-groups groups, each part at least SEG_PART_MIN elements per lane.
    teams_wanted = m.mul(m.c(lw.max_groups), m.div(m.c(group), team), "teams_wanted")
    by_count = m.ceildiv(teams_wanted, m.max(segments, m.c(1)))
    by_size = m.max(m.div(n, m.mul(team, m.c(SEG_PART_MIN))), m.c(1))
    parts = m.max(m.min(by_count, by_size), m.c(1), "parts")
    vector = segred_vector.plan(lw, segments, n) if vector_rows else None
    if vector is not None and skip is not None:
        vector.chosen = m.insert(arith.AndIOp(vector.chosen, m.insert(arith.XOrIOp(skip, m.const(1, ir_i1)))), "vector")
    if vector is not None:
        parts = m.insert(arith.SelectOp(vector.chosen, vector.parts, parts), "parts")
    if skip is not None:
        parts = m.insert(arith.SelectOp(skip, m.c(1), parts), "parts")  # no second stage either
    units = m.mul(segments, parts, "units")
    split = m.insert(arith.CmpiOp(parts, m.c(1), "ugt"), "split")
    stored = m.insert(arith.SelectOp(split, units, m.c(1)), "partials")  # partial results only of split segments
    partials = [lw.alloc(v.type, [stored], f"{r.name_hint or 'acc'}_parts") for v, r in zip(op.neutral, op.outs)]

    kb = lw.kernel("segred_teams")
    inliner = Inliner(kb)
    code = GroupCode(lw, kb, inliner, op.combine, [v.type for v in op.neutral])
    kdims = [kb.scalar(d) for d in dims]
    outer, inner = kdims[:-1], kdims[-1]
    kteam, klog, kparts, kunits, ksplit = (kb.scalar(v) for v in (team, log_team, parts, units, split))
    combined_views = [kb.array(c) for c in combined]
    partial_views = [kb.array(p) for p in partials]
    map_views = [kb.array(a, r.name_hint) for a, r in zip(map_outs, list(op.outs)[k:])]
    names = [a.name_hint for a in op.body.block.args]
    km = kb.m
    # The team size is a power of two: masks and shifts, no 64-bit divisions.
    member = km.insert(arith.AndIOp(code.t, km.sub(kteam, km.c(1))), "member")
    team_index = km.insert(arith.ShRUIOp(code.t, klog), "team_index")
    teams_per_group = km.insert(arith.ShRUIOp(code.G, klog), "teams_per_group")
    chunk = km.ceildiv(inner, kparts, "part_size")
    commutative = commutes(op.combine)
    shuffled = commutative and shuffles_values(lw, [v.type for v in op.neutral])
    tree = code.warp_team_tree if shuffled else code.team_tree
    neutral = neutral_values(kb, lw, op.neutral)

    def unit_loop(first: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        u = km.add(first, team_index, "unit")
        active = km.lt(u, kunits, "active")
        s, part = kb.if_values(ksplit, [u.type, u.type], lambda: [km.div(u, kparts), km.rem(u, kparts)], lambda: [u, km.c(0)])
        s.name_hint, part.name_hint = "segment", "part"
        lo = km.mul(part, chunk)
        hi = km.insert(arith.SelectOp(active, km.min(km.add(lo, chunk), inner), lo), "hi")
        prefix = km.unflatten(s, outer, names[:-1]) if outer else []

        def element(j: SSAValue) -> list[KValue]:
            return inliner.inline(op.body, [*prefix, j])

        def each(j: SSAValue, values: list[KValue], _: list[SSAValue]) -> None:
            write_values(kb, values[k:], map_views, km.add(km.mul(s, inner), j))

        if commutative:
            accs = fold_streams(code, km.add(lo, member), hi, kteam, neutral, k, element, each)
        else:
            per = km.ceildiv(km.sub(hi, lo), kteam, "per_member")
            start = km.min(km.add(lo, km.mul(member, per)), hi)
            accs = code.fold(start, km.min(km.add(start, per), hi), km.c(1), neutral, k, element, each)
        values = tree(accs, member, klog)
        leader = km.insert(arith.AndIOp(active, km.eq(member, km.c(0))), "leader")

        def write() -> None:
            kb.if_then(ksplit, lambda: [kb.store(v, p, u) for v, p in zip(values, partial_views)] and None)
            not_split = km.insert(arith.XOrIOp(ksplit, km.const(1, ir_i1)))
            kb.if_then(not_split, lambda: [kb.store(v, c, s) for v, c in zip(values, combined_views)] and None)

        kb.if_then(leader, write)
        code.barrier()
        return []

    kb.for_loop(km.mul(code.g, teams_per_group), kunits, km.mul(code.num_groups, teams_per_group), [], "first", unit_loop)
    per_group = m.div(m.c(group), team)
    groups = m.max(m.min(m.ceildiv(units, per_group), m.c(lw.max_groups)), m.c(1), "num_groups")
    global_size = m.mul(groups, m.c(group), "global_size")
    for elsewhere in (vector.chosen if vector is not None else None, skip):
        if elsewhere is not None:
            global_size = m.insert(arith.SelectOp(elsewhere, m.c(0), global_size), "global_size")
    lw.add_kernel(kb, global_size, m.c(group))
    if vector is not None:
        segred_vector.VectorKernel(lw, op, dims, vector, units, partials, combined).build()
    _segred_parts(lw, op, combined, partials, parts, segments, split)


def _segred_parts(
    lw: HostLowering,
    op: soac.SegredOp,
    combined: list[HostArray],
    partials: list[HostArray],
    parts: SSAValue,
    segments: SSAValue,
    split: SSAValue,
) -> None:
    """Second stage (only when `split`): a work-group per segment folds its parts, contiguous chunks and an ordered tree."""
    k = len(op.neutral)
    m = lw.m
    group = lw.group_size
    kb = lw.kernel("segred_parts")
    code = GroupCode(lw, kb, Inliner(kb), op.combine, [v.type for v in op.neutral])
    kparts = kb.scalar(parts)
    partial_views = [kb.array(p) for p in partials]
    combined_views = [kb.array(c) for c in combined]
    neutral = neutral_values(kb, lw, op.neutral)

    def fold_parts(s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        code.barrier()
        lo, hi = code.chunk(kparts, kb.m.mul(s, kparts), kb.m.c(1), kb.m.c(0))
        accs = code.fold(lo, hi, kb.m.c(1), neutral, k, lambda i: [kb.load(p, i) for p in partial_views])
        tree_to(code, accs, combined_views, s)
        return []

    kb.for_loop(code.g, kb.scalar(segments), code.num_groups, [], "s", fold_parts)
    groups = m.max(m.min(segments, m.c(lw.max_groups)), m.c(1))
    global_size = m.insert(arith.SelectOp(split, m.mul(groups, m.c(group)), m.c(0)), "global_size")
    lw.add_kernel(kb, global_size, m.c(group))
