"""Segmented reduction of a plain array of 32-bit values with 16-byte loads and teams of at most one warp.

`soac.segred group` whose lambda only reads its own element of an array of the op's
shape, with a commutative operator (`reductions.is_commutative`) and no map-outs:

    %r = soac.segred group (%m, %n) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%i: index, %j: index) {
      %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
      soac.yield %x : i32
    }

gets a second kernel, `segred_vector`, next to the general `segred_teams`; the host
launches the one that fits the row length `n` and gives the other no work-items:

    %vector_ok = (n % 4 == 0) and (n >= 128 or n is a power of two >= 4)
    kernel.launch @segred_teams(...)  global size (%vector_ok ? 0 : ...)
    kernel.launch @segred_vector(...) global size (%vector_ok ? ... : 0)

A row (or a part of a long row) belongs to a team of T = min(32, n / 4) work-items;
member `l` folds the 4-element vectors `l, l + T, ...` of its range, `SEG_STREAMS`
loads in flight, so each load of a warp reads 512 contiguous bytes whatever T is. The
team then combines its T values with `shfl.sync.bfly` on NVIDIA (no local memory, no
barrier), and with a tree in local memory elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from soac import dialect as soac
from soac.lowering import intrinsics as ix
from soac.lowering import reductions as rd
from soac.lowering.kernel_builder import HostArray, View
from soac.lowering.sequential import Inliner
from soac.lowering.soac_to_kernel import HostLowering
from xdsl.dialects import arith
from xdsl.ir import SSAValue

WARP = 32
PART_MIN_VECTORS = 16
"""Vectors per work-item below which a row is not split over several teams."""


def plain_source(lw: HostLowering, op: soac.SegredOp | soac.SegscanOp, dims: list[SSAValue]) -> SSAValue | None:
    """The array when the lambda only reads `arr[i0, ..., j]` at its own indices (an array of the op's shape), else None."""
    block = op.body.block
    ops = list(block.ops)
    if len(op.neutral) != 1 or len(ops) != 2 or not isinstance(ops[0], soac.IndexOp):
        return None
    read, yielded = ops
    if list(read.indices) != list(block.args) or list(yielded.operands) != [read.results[0]]:
        return None
    found = lw.env.get(read.array)
    if not isinstance(found, HostArray) or found.dims != dims:
        return None
    return read.array


def applies(lw: HostLowering, op: soac.SegredOp, dims: list[SSAValue]) -> bool:
    source = plain_source(lw, op, dims)
    return (
        source is not None
        and len(op.outs) == 1
        and str(lw.array(source).element) in ("i32", "f32")
        and rd.is_commutative(op.combine)
    )


@dataclass
class VectorPlan:
    """Host values: whether the vector kernel runs, its team size (and log2), and the parts per row."""

    chosen: SSAValue
    team: SSAValue
    log_team: SSAValue
    parts: SSAValue


def plan(lw: HostLowering, segments: SSAValue, n: SSAValue) -> VectorPlan:
    m = lw.m
    quads = m.div(n, m.c(4), "quads")
    multiple_of_4 = m.eq(m.rem(n, m.c(4)), m.c(0))
    power_of_2 = m.eq(m.insert(arith.AndIOp(n, m.sub(n, m.c(1)))), m.c(0))
    long_or_pow2 = m.insert(arith.OrIOp(m.insert(arith.CmpiOp(n, m.c(4 * WARP), "uge")), power_of_2))
    at_least_4 = m.insert(arith.CmpiOp(n, m.c(4), "uge"))
    chosen = m.insert(arith.AndIOp(m.insert(arith.AndIOp(multiple_of_4, long_or_pow2)), at_least_4), "vector_ok")
    team, log_team = rd.pow2_at_most(m, quads, 1, WARP)
    team.name_hint, log_team.name_hint = "vector_team", "log_vector_team"
    teams_wanted = m.mul(m.c(lw.max_groups), m.div(m.c(lw.group_size), team))
    by_count = m.ceildiv(teams_wanted, m.max(segments, m.c(1)))
    by_size = m.max(m.div(quads, m.mul(team, m.c(PART_MIN_VECTORS))), m.c(1))
    parts = m.max(m.min(by_count, by_size), m.c(1), "vector_parts")
    return VectorPlan(chosen, team, log_team, parts)


def build_kernel(
    lw: HostLowering,
    op: soac.SegredOp,
    dims: list[SSAValue],
    vector: VectorPlan,
    units: SSAValue,
    partials: list[HostArray],
    combined: list[HostArray],
) -> None:
    """The `segred_vector` kernel: unit `u` of `units` (= rows x parts) is part `u % parts` of row `u / parts`."""
    m = lw.m
    group = lw.group_size
    source = plain_source(lw, op, dims)
    assert source is not None
    kb = lw.kernel("segred_vector")
    inliner = Inliner(kb)
    code = rd.GroupCode(lw, kb, inliner, op.combine, [v.type for v in op.neutral])
    km = kb.m
    inner = kb.scalar(dims[-1])
    kteam, klog, kparts, kunits = (kb.scalar(v) for v in (vector.team, vector.log_team, vector.parts, units))
    ksplit = km.insert(arith.CmpiOp(kparts, km.c(1), "ugt"), "split")
    data = kb.array(lw.array(source), source.name_hint)
    count = km.product([kb.scalar(d) for d in dims])
    flat = View(data.buffer, data.offset, [count], data.element)
    partial_views = [kb.array(p) for p in partials]
    combined_views = [kb.array(c) for c in combined]
    member = km.insert(arith.AndIOp(code.t, km.sub(kteam, km.c(1))), "member")
    team_index = km.insert(arith.ShRUIOp(code.t, klog), "team_index")
    teams_per_group = km.insert(arith.ShRUIOp(code.G, klog), "teams_per_group")
    quads = km.div(inner, km.c(4), "quads")
    chunk = km.ceildiv(quads, kparts, "part_quads")
    neutral = rd.neutral_values(kb, lw, op.neutral)

    def unit_loop(first: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        u = km.add(first, team_index, "unit")
        active = km.lt(u, kunits, "active")
        s, part = kb.if_values(ksplit, [u.type, u.type], lambda: [km.div(u, kparts), km.rem(u, kparts)], lambda: [u, km.c(0)])
        s.name_hint, part.name_hint = "segment", "part"
        lo = km.mul(part, chunk)
        hi = km.insert(arith.SelectOp(active, km.min(km.add(lo, chunk), quads), lo), "hi")
        row = km.mul(s, inner, "row")

        def vector_sum(q: SSAValue) -> list[SSAValue]:
            xs = ix.vector_load(kb, flat, km.add(row, km.mul(q, km.c(4))), 4)
            acc = [xs[0]]
            for x in xs[1:]:
                acc = code.apply(acc, [x])
            return acc

        accs = rd.fold_streams(code, km.add(lo, member), hi, kteam, neutral, 1, vector_sum, lambda *_: None)  # pyright: ignore[reportArgumentType]
        if lw.nvidia:
            total = _team_shuffle(code, accs, klog)
        else:
            total = code.team_tree(accs, member, klog)
        leader = km.insert(arith.AndIOp(active, km.eq(member, km.c(0))), "leader")

        def write() -> None:
            kb.if_then(ksplit, lambda: [kb.store(v, p, u) for v, p in zip(total, partial_views)] and None)
            not_split = km.insert(arith.XOrIOp(ksplit, km.const(1, rd.ir_i1)))
            kb.if_then(not_split, lambda: [kb.store(v, c, s) for v, c in zip(total, combined_views)] and None)

        kb.if_then(leader, write)
        if not lw.nvidia:
            code.barrier()
        return []

    kb.for_loop(km.mul(code.g, teams_per_group), kunits, km.mul(code.num_groups, teams_per_group), [], "first", unit_loop)
    per_group = m.div(m.c(group), vector.team)
    groups = m.max(m.min(m.ceildiv(units, per_group), m.c(lw.max_groups)), m.c(1), "num_groups")
    global_size = m.insert(arith.SelectOp(vector.chosen, m.mul(groups, m.c(group)), m.c(0)), "global_size")
    lw.add_kernel(kb, global_size, m.c(group))


def _team_shuffle(code: rd.GroupCode, accs: list[SSAValue], log_team: SSAValue) -> list[SSAValue]:
    """Every member of a team of 2^log_team work-items (inside one warp) gets the team's total."""
    kb, km = code.kb, code.kb.m

    def step(e: SSAValue, values: list[SSAValue]) -> list[SSAValue]:
        distance = km.insert(arith.ShLIOp(km.c(1), e), "distance")
        return code.apply(values, [ix.shuffle(kb, "bfly", v, distance) for v in values])

    return kb.for_loop(km.c(0), log_team, km.c(1), accs, "e", step)
