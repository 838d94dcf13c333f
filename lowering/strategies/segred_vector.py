"""Segmented reduction of a plain array of 32-bit values with 16-byte loads and teams of at most one warp.

A function-level `soac.segred` whose lambda only reads its own element of an array of the op's
shape, with a commutative operator (`group_code.is_commutative`) and no map-outs:

    %r = soac.segred thread (%m, %n) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
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
member `l` folds the 4-element vectors `l, l + T, ...` of its range, so each load of a
warp reads 512 contiguous bytes whatever T is. A team reads `seg-short-rows` rows of up to
256 elements at once, or `SEG_STREAMS` vectors of a longer row per step, to keep loads
in flight. It then combines its T values with `shfl.sync.bfly` on NVIDIA (no local
memory, no barrier), and with a tree in local memory elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from soac import dialect as soac
from soac.lowering.conversion import device_intrinsics as ix
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, View
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.strategies import group_code as rd
from xdsl.dialects import arith
from xdsl.dialects.builtin import i1
from xdsl.ir import SSAValue

WARP = 32
PART_MIN_VECTORS = 16
"""Vectors per work-item below which a row is not split over several teams."""
# soac-to-kernel's options (`LoweringOptions`) set the short rows: `seg-short-rows` (8) rows that a team reads at
# once (at most two vectors per member and row), `seg-short-vectors` (64) the most 4-element vectors of a short row
# (at most 2 x 32: rows of up to 256 elements), and `seg-one-vector-rows` (true): on targets with 32-lane
# sub-groups, short rows of at most 32 vectors get a loop of their own that loads one vector per member and row (no
# guarded second load): 0.97 / 0.96 of memcpy bandwidth at rows of 16 / 64 against 0.92 / 0.92 through the
# two-vector loop (H100, 2^27 i32, one call; bench/results/h100_issue17_segred_one_vector.txt); false sends them
# through the two-vector loop, for timing. The loop costs rows of 256 (two vectors) 0.194 ms against 0.187 without
# it; a kernel of their own for the one-vector rows, tried so that the other kernel stays as it was, measured the
# same (0.194; bench/results/h100_issue17_segred_kernel_loop_none.txt, commit 2b4031b), so the loop stays.
# Elsewhere (the local-memory team tree) a third loop of barriers makes PoCL's kernel compiler run for minutes, so
# those targets keep two loops.


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


class VectorKernel:
    """The `segred_vector` kernel: unit `u` of `units` (= rows x parts) is part `u % parts` of row `u / parts`.

    Its two loops: several short rows per team at once, or one (part of a) long row per team.
    """

    def __init__(
        self,
        lw: HostLowering,
        op: soac.SegredOp,
        dims: list[SSAValue],
        vector: VectorPlan,
        units: SSAValue,
        partials: list[HostArray],
        combined: list[HostArray],
    ):
        source = plain_source(lw, op, dims)
        assert source is not None
        self.lw = lw
        self.kb = kb = lw.kernel("segred_vector")
        self.code = code = rd.GroupCode(lw, kb, Inliner(kb), op.combine, [v.type for v in op.neutral])
        km = kb.m
        self.inner = kb.scalar(dims[-1])
        self.chosen, self.host_team, self.host_units = vector.chosen, vector.team, units
        host = (vector.team, vector.log_team, vector.parts, units)
        self.team, self.log_team, self.parts, self.units = (kb.scalar(v) for v in host)
        self.split = km.insert(arith.CmpiOp(self.parts, km.c(1), "ugt"), "split")
        data = kb.array(lw.array(source), source.name_hint)
        self.flat = View(data.buffer, data.offset, [km.product([kb.scalar(d) for d in dims])], data.element)
        self.partial_views = [kb.array(p) for p in partials]
        self.combined_views = [kb.array(c) for c in combined]
        self.member = km.insert(arith.AndIOp(code.t, km.sub(self.team, km.c(1))), "member")
        self.team_index = km.insert(arith.ShRUIOp(code.t, self.log_team), "team_index")
        self.teams_per_group = km.insert(arith.ShRUIOp(code.G, self.log_team), "teams_per_group")
        self.quads = km.div(self.inner, km.c(4), "quads")
        self.chunk = km.ceildiv(self.quads, self.parts, "part_quads")
        self.neutral = rd.neutral_values(kb, lw, op.neutral)

    def build(self) -> None:
        lw, m, kb, km = self.lw, self.lw.m, self.kb, self.kb.m
        short = km.insert(arith.CmpiOp(self.quads, km.c(min(lw.options.seg_short_vectors, 2 * WARP)), "ule"), "short_rows")
        two = short
        if lw.options.seg_one_vector_rows and self.lw.warps:
            one = km.insert(arith.CmpiOp(self.quads, km.c(min(lw.options.seg_short_vectors, WARP)), "ule"), "one_vector_rows")
            kb.if_then(one, lambda: self.short_rows(two_vectors=False))
            two = km.insert(arith.AndIOp(short, km.insert(arith.XOrIOp(one, km.const(1, i1)))), "two_vector_rows")
        kb.if_then(two, lambda: self.short_rows(two_vectors=True))
        kb.if_then(km.insert(arith.XOrIOp(short, km.const(1, i1))), self.long_rows)
        per_group = m.div(m.c(lw.group_size), self.host_team)
        groups = m.max(m.min(m.ceildiv(self.host_units, per_group), m.c(lw.max_groups)), m.c(1), "num_groups")
        global_size = m.insert(arith.SelectOp(self.chosen, m.mul(groups, m.c(lw.group_size)), m.c(0)), "global_size")
        lw.add_kernel(kb, global_size, m.c(lw.group_size))

    def vector_sum(self, row: SSAValue, q: SSAValue) -> list[SSAValue]:
        km = self.kb.m
        xs = ix.vector_load(self.kb, self.flat, km.add(row, km.mul(q, km.c(4))), 4)
        acc = [xs[0]]
        for x in xs[1:]:
            acc = self.code.apply(acc, [x])
        return acc

    def team_total(self, values: list[SSAValue]) -> list[SSAValue]:
        if self.lw.warps:
            return _team_shuffle(self.code, values, self.log_team)
        return self.code.team_tree(values, self.member, self.log_team)

    def store_if(self, condition: SSAValue, values: list[SSAValue], views: list[View], index: SSAValue) -> None:
        self.kb.if_then(condition, lambda: [self.kb.store(v, view, index) for v, view in zip(values, views)] and None)

    def short_row_sum(self, row: SSAValue, active: SSAValue, two_vectors: bool) -> list[SSAValue]:
        """A member's part of a short row: vector `member`, and `member + team` where it exists if `two_vectors`."""
        kb, km = self.kb, self.kb.m
        types = [v.type for v in self.neutral]
        first = kb.if_values(active, types, lambda: self.vector_sum(row, self.member), lambda: self.neutral)
        if not two_vectors:
            return first
        second = km.add(self.member, self.team)
        has_second = km.insert(arith.AndIOp(active, km.lt(second, self.quads)))
        rest = kb.if_values(has_second, types, lambda: self.vector_sum(row, second), lambda: self.neutral)
        return self.code.apply(first, rest)

    def short_rows(self, two_vectors: bool) -> None:
        """Rows of at most `seg-short-vectors` vectors (never split): at most two vectors per member and row (one
        where `two_vectors` is false: rows of at most 32 vectors), `seg-short-rows` rows per team in flight."""
        kb, km, code = self.kb, self.kb.m, self.code
        short_rows = self.lw.options.seg_short_rows
        step = km.mul(km.mul(code.num_groups, self.teams_per_group), km.c(short_rows), "short_step")
        leads = km.eq(self.member, km.c(0))

        def body(first: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            rows = [km.add(km.add(first, km.mul(self.teams_per_group, km.c(r))), self.team_index) for r in range(short_rows)]
            actives = [km.lt(u, self.units) for u in rows]
            sums = [self.short_row_sum(km.mul(u, self.inner), a, two_vectors) for u, a in zip(rows, actives)]
            if self.lw.warps:  # one shuffle loop for all rows
                totals = [[x] for x in self.team_total([xs[0] for xs in sums])]
            else:
                totals = [self.team_total(xs) for xs in sums]
            for u, a, total in zip(rows, actives, totals):
                self.store_if(km.insert(arith.AndIOp(a, leads)), total, self.combined_views, u)
            if not self.lw.warps:
                code.barrier()
            return []

        first = km.mul(km.mul(code.g, self.teams_per_group), km.c(self.lw.options.seg_short_rows))
        kb.for_loop(first, self.units, step, [], "first", body)

    def long_rows(self) -> None:
        kb, km, code = self.kb, self.kb.m, self.code

        def body(first: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            u = km.add(first, self.team_index, "unit")
            active = km.lt(u, self.units, "active")
            s, part = kb.if_values(
                self.split, [u.type, u.type], lambda: [km.div(u, self.parts), km.rem(u, self.parts)], lambda: [u, km.c(0)]
            )
            s.name_hint, part.name_hint = "segment", "part"
            lo = km.mul(part, self.chunk)
            hi = km.insert(arith.SelectOp(active, km.min(km.add(lo, self.chunk), self.quads), lo), "hi")
            row = km.mul(s, self.inner, "row")
            accs = _fold_vectors(code, km.add(lo, self.member), hi, self.team, self.neutral, lambda q: self.vector_sum(row, q))
            total = self.team_total(accs)
            leader = km.insert(arith.AndIOp(active, km.eq(self.member, km.c(0))), "leader")
            self.store_if(km.insert(arith.AndIOp(leader, self.split)), total, self.partial_views, u)
            not_split = km.insert(arith.XOrIOp(self.split, km.const(1, i1)))
            self.store_if(km.insert(arith.AndIOp(leader, not_split)), total, self.combined_views, s)
            if not self.lw.warps:
                code.barrier()
            return []

        step = km.mul(code.num_groups, self.teams_per_group)
        kb.for_loop(km.mul(code.g, self.teams_per_group), self.units, step, [], "first", body)


def _fold_vectors(
    code: rd.GroupCode,
    lo: SSAValue,
    hi: SSAValue,
    step: SSAValue,
    neutral: list[SSAValue],
    vector_sum: Callable[[SSAValue], list[SSAValue]],
) -> list[SSAValue]:
    """Fold vectors `lo, lo + step, ... < hi`: `SEG_STREAMS` per iteration into separate accumulators, then the
    remaining ones (at most `SEG_STREAMS`) as guarded loads in straight-line code, all in flight together."""
    kb, km = code.kb, code.kb.m
    streams = rd.SEG_STREAMS
    wide = km.mul(step, km.c(streams), "wide_step")
    count = km.insert(arith.SelectOp(km.lt(lo, hi), km.sub(hi, lo), km.c(0)))
    main_end = km.add(lo, km.mul(km.div(count, wide), wide), "main_end")

    def body(i: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
        return [x for q in range(streams) for x in code.apply([accs[q]], vector_sum(km.add(i, km.mul(step, km.c(q)))))]

    carried = kb.for_loop(lo, main_end, wide, list(neutral) * streams, "i", body)
    for q in range(streams):
        index = km.add(main_end, km.mul(step, km.c(q)))
        rest = kb.if_values(km.lt(index, hi), [neutral[0].type], lambda index=index: vector_sum(index), lambda: neutral)
        carried[q] = code.apply([carried[q]], rest)[0]
    accs = [carried[0]]
    for value in carried[1:]:
        accs = code.apply(accs, [value])
    return accs


def _team_shuffle(code: rd.GroupCode, accs: list[SSAValue], log_team: SSAValue) -> list[SSAValue]:
    """Every member of a team of 2^log_team work-items (inside one warp) gets the team's totals of `accs`, each an
    accumulator of its own (of the single value the operator combines)."""
    kb, km = code.kb, code.kb.m

    def step(e: SSAValue, values: list[SSAValue]) -> list[SSAValue]:
        distance = km.insert(arith.ShLIOp(km.c(1), e), "distance")
        return [code.apply([v], [ix.shuffle(kb, "xor", v, distance)])[0] for v in values]

    return kb.for_loop(km.c(0), log_team, km.c(1), accs, "e", step)
