"""Segmented reduction of rows of 32-bit values with 16-byte loads and teams of at most one warp.

A function-level `soac.segred` with a commutative operator of 32-bit values (`group_code.commutes`: one arith op,
or one per value of a tuple) and no map-outs, whose lambda reads elements at its innermost index `j`, contiguous
along `j` (full-rank reads `xs[i..., j]` of row-major arrays of the op's shape and 1-D reads `v[j]` of arrays free in
the lambda, of 32-bit elements), and elements at its outer indices (`w[i...]`), and computes from them with scalar
code (matvec's `a[i, j] * v[j]`):

    %r = soac.segred thread (%m, %n) neutral(%zero : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      soac.yield %s : f32
    } lambda(%i: index, %j: index) {
      %x = soac.index %a[%i, %j] : tensor<?x?xf32> -> f32
      %y = soac.index %v[%j] : tensor<?xf32> -> f32
      %p = arith.mulf %x, %y : f32
      soac.yield %p : f32
    }

gets a second kernel, `segred_vector`, next to the general `segred_teams`; the host
launches the one that fits the row length `n` and gives the other no work-items:

    %vector_ok = (n % 4 == 0) and (n >= 128 or n is a power of two >= 4)
    kernel.launch @segred_teams(...)  global size (%vector_ok ? 0 : ...)
    kernel.launch @segred_vector(...) global size (%vector_ok ? ... : 0)

The kernel loads 4 consecutive `j` of every array read along the rows with one 16-byte vector load each (rows
start 16-byte aligned as n % 4 == 0), applies the lambda to each of the 4 lanes and folds them. Reads at the outer
indices only (`w[i]`, nbody's position of body i) of arrays of the op's outer sizes are loaded once per row. A 1-D
read `v[j]` gets no check in any kernel of the op (this one, the teams, a work-item per segment): the host checks
once that `v` has at least `n` elements where there are segments (`check_reads`), where the flattened IR's
`soac.assert` of the row length has usually said so already.

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
from soac.lowering.conversion.kernel_builder import HostArray, View, index_problem
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.strategies import group_code as rd
from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import SSAValue

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


_VALUE_TYPES = ("i32", "f32")
"""Element types of the arrays read and of the values combined: 4 of them fill a 16-byte vector."""


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


@dataclass
class RowReads:
    """The reads of a segred's lambda that the vector kernel makes: along its rows, and one value per row."""

    along: list[soac.IndexOp]
    """`xs[i..., j]` of arrays of the op's shape, `v[j]` of 1-D arrays: 4 consecutive `j` in one vector load."""
    per_row: list[soac.IndexOp]
    """`w[i...]` of arrays of the op's outer shape (nbody's `xs[i]`): loaded once per row."""


def row_reads(lw: HostLowering, op: soac.SegredOp, dims: list[SSAValue]) -> RowReads | None:
    """The lambda's reads when it reads only elements at its innermost index `j`, contiguous along `j`, and elements
    at its outer indices, and computes from them with scalar code; else None. A read along `j` is `xs[i..., j]` at the
    lambda's own indices of an array of the op's shape, or `v[j]` of a 1-D array free in the lambda (32-bit
    elements); a read per row is `w[i...]` of an array of the op's outer sizes; the indices are used by nothing
    else."""
    block = op.body.block
    indices = list(block.args)
    reads = RowReads([], [])
    for inner in block.ops:
        if isinstance(inner, soac.YieldOp):
            continue
        if isinstance(inner, soac.IndexOp):
            if _contiguous_read(lw, inner, indices, dims):
                reads.along.append(inner)
            elif _row_read(lw, inner, indices, dims):
                reads.per_row.append(inner)
            else:
                return None
            continue
        if inner.regions or any(isinstance(v.type, TensorType) for v in (*inner.operands, *inner.results)):
            return None
        if any(v in indices for v in inner.operands):
            return None
    if any(isinstance(v.type, TensorType) or v in indices for v in op.body.block.last_op.operands):  # pyright: ignore[reportOptionalMemberAccess]
        return None
    return reads


def _contiguous_read(lw: HostLowering, read: soac.IndexOp, indices: list[SSAValue], dims: list[SSAValue]) -> bool:
    found = lw.env.get(read.array)  # arrays of the lambda's own are not on the host
    if not isinstance(found, HostArray) or str(found.element) not in _VALUE_TYPES:
        return False
    used = list(read.indices)
    full_rank = used == indices and found.dims == dims
    free_vector = used == indices[-1:] and len(found.dims) == 1
    return full_rank or free_vector


def _row_read(lw: HostLowering, read: soac.IndexOp, indices: list[SSAValue], dims: list[SSAValue]) -> bool:
    """`w[i...]` of an array of the op's outer sizes, or `w[i]` of a 1-D array (its length checked on the host)."""
    found = lw.env.get(read.array)
    if len(dims) < 2 or not isinstance(found, HostArray) or list(read.indices) != indices[:-1]:
        return False
    return found.dims == dims[:-1] or (len(dims) == 2 and len(found.dims) == 1)


def applies(lw: HostLowering, op: soac.SegredOp, dims: list[SSAValue]) -> bool:
    return (
        len(op.outs) == len(op.neutral)
        and all(str(v.type) in _VALUE_TYPES for v in op.neutral)
        and rd.commutes(op.combine)
        and row_reads(lw, op, dims) is not None
    )


def check_reads(lw: HostLowering, op: soac.SegredOp, dims: list[SSAValue]) -> None:
    """On the host, once: every read `v[j]` of a 1-D array (not known to have `n` elements) is in bounds, i.e. `v` has
    at least `n` elements or there are no segments, and every read `w[i]` of a 1-D array (not known to have `m`) is,
    i.e. `w` has at least `m` elements or the rows are empty; what the kernels' checks of every element would report
    first (index `len(v)`), so that no kernel of the op checks them again (`HostLowering.host_checked`)."""
    reads = row_reads(lw, op, dims)
    assert reads is not None
    m, n = lw.m, dims[-1]
    checked = [(read, n, dims[:-1]) for read in reads.along if len(read.indices) == 1]
    checked += [(read, dims[0], dims[1:]) for read in reads.per_row if lw.array(read.array).dims != dims[:-1]]
    for read, size, others in checked:
        length = lw.array(read.array).dims[0]
        if length is size:
            continue
        nothing = m.eq(m.product(others), m.c(0), "nothing_read")
        ok = m.insert(arith.OrIOp(m.cmp(size, length, "ule", "fits"), nothing), "reads_in_bounds")
        lw.check(ok, read, index_problem(0), [length, length])
        lw.host_checked.add(read)


@dataclass
class VectorPlan:
    """Host values: whether the vector kernel runs, its team size (and log2), and the parts per row."""

    chosen: SSAValue
    team: SSAValue
    log_team: SSAValue
    parts: SSAValue


def plan(lw: HostLowering, segments: SSAValue, n: SSAValue) -> VectorPlan:
    m, warp = lw.m, lw.target.team_width
    quads = m.div(n, m.c(4), "quads")
    multiple_of_4 = m.eq(m.rem(n, m.c(4)), m.c(0))
    power_of_2 = m.eq(m.insert(arith.AndIOp(n, m.sub(n, m.c(1)))), m.c(0))
    long_or_pow2 = m.insert(arith.OrIOp(m.insert(arith.CmpiOp(n, m.c(4 * warp), "uge")), power_of_2))
    at_least_4 = m.insert(arith.CmpiOp(n, m.c(4), "uge"))
    chosen = m.insert(arith.AndIOp(m.insert(arith.AndIOp(multiple_of_4, long_or_pow2)), at_least_4), "vector_ok")
    team, log_team = rd.pow2_at_most(m, quads, 1, warp)
    team.name_hint, log_team.name_hint = "vector_team", "log_vector_team"
    teams_wanted = m.mul(m.c(lw.max_groups), m.div(m.c(lw.group_size), team))
    by_count = m.ceildiv(teams_wanted, m.max(segments, m.c(1)))
    by_size = m.max(m.div(quads, m.mul(team, m.c(PART_MIN_VECTORS))), m.c(1))
    parts = m.max(m.min(by_count, by_size), m.c(1), "vector_parts")
    return VectorPlan(chosen, team, log_team, parts)


class VectorKernel:
    """The `segred_vector` kernel: unit `u` of `units` (= rows x parts) is part `u % parts` of row `u / parts`.

    Its two loops: several short rows per team at once, or one (part of a) long row per team. A vector `q` of a row
    is 4 elements `4q ...` of every array the lambda reads (`row_reads`), one vector load each; the lambda runs on
    each of the 4 lanes.
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
        reads = row_reads(lw, op, dims)
        assert reads is not None
        self.lw, self.body, self.reads = lw, op.body, reads
        self.kb = kb = lw.kernel("segred_vector")
        self.code = code = rd.GroupCode(lw, kb, Inliner(kb), op.combine, [v.type for v in op.neutral])
        km = kb.m
        self.inner = kb.scalar(dims[-1])
        self.chosen, self.host_team, self.host_units = vector.chosen, vector.team, units
        host = (vector.team, vector.log_team, vector.parts, units)
        self.team, self.log_team, self.parts, self.units = (kb.scalar(v) for v in host)
        self.split = km.insert(arith.CmpiOp(self.parts, km.c(1), "ugt"), "split")
        self.views: dict[SSAValue, tuple[View, bool]] = {}
        """Every array read: its kernel view (rows flattened) and whether it has rows (else a 1-D read `v[j]`)."""
        for read in reads.along:
            if read.array not in self.views:
                self.views[read.array] = self._view(read, dims)
        self.per_row = {read.array: kb.array(lw.array(read.array), read.array.name_hint) for read in reads.per_row}
        """The arrays read once per row, by the row's segment index (they have the op's outer sizes)."""
        self.partial_views = [kb.array(p) for p in partials]
        self.combined_views = [kb.array(c) for c in combined]
        self.member = km.insert(arith.AndIOp(code.t, km.sub(self.team, km.c(1))), "member")
        self.team_index = km.insert(arith.ShRUIOp(code.t, self.log_team), "team_index")
        self.teams_per_group = km.insert(arith.ShRUIOp(code.G, self.log_team), "teams_per_group")
        self.quads = km.div(self.inner, km.c(4), "quads")
        self.chunk = km.ceildiv(self.quads, self.parts, "part_quads")
        self.neutral = rd.neutral_values(kb, lw, op.neutral)

    def _view(self, read: soac.IndexOp, dims: list[SSAValue]) -> tuple[View, bool]:
        kb, km = self.kb, self.kb.m
        data = kb.array(self.lw.array(read.array), read.array.name_hint)
        if len(read.indices) == 1 and len(dims) > 1:
            return data, False
        return View(data.buffer, data.offset, [km.product([kb.scalar(d) for d in dims])], data.element), True

    def build(self) -> None:
        lw, m, kb, km = self.lw, self.lw.m, self.kb, self.kb.m
        warp = lw.target.team_width
        short = km.insert(arith.CmpiOp(self.quads, km.c(min(lw.options.seg_short_vectors, 2 * warp)), "ule"), "short_rows")
        two = short
        if lw.options.seg_one_vector_rows and self.lw.warps:
            one = km.insert(arith.CmpiOp(self.quads, km.c(min(lw.options.seg_short_vectors, warp)), "ule"), "one_vector_rows")
            kb.if_then(one, lambda: self.short_rows(two_vectors=False))
            two = km.insert(arith.AndIOp(short, km.insert(arith.XOrIOp(one, km.const(1, i1)))), "two_vector_rows")
        kb.if_then(two, lambda: self.short_rows(two_vectors=True))
        kb.if_then(km.insert(arith.XOrIOp(short, km.const(1, i1))), self.long_rows)
        per_group = m.div(m.c(lw.group_size), self.host_team)
        groups = m.max(m.min(m.ceildiv(self.host_units, per_group), m.c(lw.max_groups)), m.c(1), "num_groups")
        global_size = m.insert(arith.SelectOp(self.chosen, m.mul(groups, m.c(lw.group_size)), m.c(0)), "global_size")
        lw.add_kernel(kb, global_size, m.c(lw.group_size))

    def row_values(self, segment: SSAValue, active: SSAValue) -> dict[SSAValue, SSAValue]:
        """The elements that the lambda reads once per row, of `segment` where `active` (nothing when it reads none)."""
        return {array: self.kb.load_if(active, view, segment) for array, view in self.per_row.items()}

    def vector_sum(self, row: SSAValue, q: SSAValue, row_values: dict[SSAValue, SSAValue]) -> list[SSAValue]:
        """The lambda's values at the 4 elements of vector `q` of the row starting at `row`, combined; `row_values`
        holds the row's elements that it reads once per row."""
        km = self.kb.m
        start = km.mul(q, km.c(4))
        lanes = {
            array: ix.vector_load(self.kb, view, km.add(row, start) if has_rows else start, 4)
            for array, (view, has_rows) in self.views.items()
        }
        acc = self.lane_values(lanes, 0, row_values)
        for lane in range(1, 4):
            acc = self.code.apply(acc, self.lane_values(lanes, lane, row_values))
        return acc

    def lane_values(
        self, lanes: dict[SSAValue, list[SSAValue]], lane: int, row_values: dict[SSAValue, SSAValue]
    ) -> list[SSAValue]:
        """The lambda inlined for one lane: its reads along the row are that lane of the vectors loaded."""
        inliner = self.code.inliner
        for read in self.reads.along:
            inliner.env[read.result] = lanes[read.array][lane]
        for read in self.reads.per_row:
            inliner.env[read.result] = row_values[read.array]
        for inner in self.body.block.ops:
            if isinstance(inner, soac.YieldOp):
                return [inliner.scalar(v) for v in inner.operands]
            if not isinstance(inner, soac.IndexOp):
                inliner.emit(inner)
        raise AssertionError("a lambda ends in soac.yield")

    def team_total(self, values: list[SSAValue]) -> list[SSAValue]:
        """The team's totals of `values` (accumulators of the operator's k values each, one after the other)."""
        if self.lw.warps:
            return _team_shuffle(self.code, values, self.log_team, len(self.neutral))
        return self.code.team_tree(values, self.member, self.log_team)

    def store_if(self, condition: SSAValue, values: list[SSAValue], views: list[View], index: SSAValue) -> None:
        self.kb.if_then(condition, lambda: [self.kb.store(v, view, index) for v, view in zip(values, views)] and None)

    def short_row_sum(self, segment: SSAValue, row: SSAValue, active: SSAValue, two_vectors: bool) -> list[SSAValue]:
        """A member's part of a short row: vector `member`, and `member + team` where it exists if `two_vectors`."""
        kb, km = self.kb, self.kb.m
        types = [v.type for v in self.neutral]
        values = self.row_values(segment, active)
        first = kb.if_values(active, types, lambda: self.vector_sum(row, self.member, values), lambda: self.neutral)
        if not two_vectors:
            return first
        second = km.add(self.member, self.team)
        has_second = km.insert(arith.AndIOp(active, km.lt(second, self.quads)))
        rest = kb.if_values(has_second, types, lambda: self.vector_sum(row, second, values), lambda: self.neutral)
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
            sums = [self.short_row_sum(u, km.mul(u, self.inner), a, two_vectors) for u, a in zip(rows, actives)]
            if self.lw.warps:  # one shuffle loop for all rows
                k = len(self.neutral)
                shuffled = self.team_total([x for xs in sums for x in xs])
                totals = [shuffled[r * k : (r + 1) * k] for r in range(short_rows)]
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
            values = self.row_values(s, active)
            accs = _fold_vectors(
                code, km.add(lo, self.member), hi, self.team, self.neutral, lambda q: self.vector_sum(row, q, values)
            )
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
    """Fold vectors `lo, lo + step, ... < hi`: `SEG_STREAMS` (`seg-streams`) per iteration into separate
    accumulators, then the remaining ones (fewer than a round's) as guarded loads in straight-line code, all in flight
    together. Every member of a team runs the same number of rounds (`rd.rounds_end`): a row of 1024 f32 is 8 vectors
    a member, two rounds of 4 and no tail for every member (without `seg-uniform-rounds`: one round and 4 guarded
    loads for 31 members, a second round for the first alone)."""
    kb, km = code.kb, code.kb.m
    streams, k = rd.streams_of(code), len(neutral)
    wide = km.mul(step, km.c(streams), "wide_step")
    main_end = rd.rounds_end(code, lo, hi, step, streams)

    def body(i: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
        return [
            x for q in range(streams) for x in code.apply(accs[q * k : (q + 1) * k], vector_sum(km.add(i, km.mul(step, km.c(q)))))
        ]

    carried = kb.for_loop(lo, main_end, wide, list(neutral) * streams, "i", body)
    types = [v.type for v in neutral]
    for q in range(streams):
        index = km.add(main_end, km.mul(step, km.c(q)))
        rest = kb.if_values(km.lt(index, hi), types, lambda index=index: vector_sum(index), lambda: neutral)
        carried[q * k : (q + 1) * k] = code.apply(carried[q * k : (q + 1) * k], rest)
    accs = carried[:k]
    for q in range(1, streams):
        accs = code.apply(accs, carried[q * k : (q + 1) * k])
    return accs


def _team_shuffle(code: rd.GroupCode, accs: list[SSAValue], log_team: SSAValue, k: int) -> list[SSAValue]:
    """Every member of a team of 2^log_team work-items (inside one warp) gets the team's totals of `accs`: accumulators
    of the k values the operator combines, one after the other."""
    kb, km = code.kb, code.kb.m

    def step(e: SSAValue, values: list[SSAValue]) -> list[SSAValue]:
        distance = km.insert(arith.ShLIOp(km.c(1), e), "distance")
        combined: list[SSAValue] = []
        for first in range(0, len(values), k):
            own = values[first : first + k]
            combined += code.apply(own, [ix.shuffle(kb, "xor", v, distance) for v in own])
        return combined

    return kb.for_loop(km.c(0), log_team, km.c(1), accs, "e", step)
