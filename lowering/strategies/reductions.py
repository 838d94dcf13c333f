"""Kernels for reductions and scans: reduce, redomap, scan, scanomap, segred, segscan.

reduce / redomap: two stages. Stage one launches `g = min(ceil(n / group), max-groups)`
work-groups; each work-item folds its elements sequentially (strided when the
operator is `commutative`, a contiguous chunk otherwise, so the order of
operands is kept), applying the map lambda on the fly and writing map-outs;
then the group combines its work-items' values in local memory with an
order-preserving tree and writes one partial per group. Stage two is one
work-group reducing the partials the same way. The host reads the result.

scan / scanomap: reduce-then-scan in three phases (works on any OpenCL device,
PoCL included, because no work-group waits for another):

1. `scan_reduce`: as stage one of a reduction over contiguous chunks, also
   keeping each work-item's aggregate;
2. `scan_carries`: one work-item scans the group aggregates into exclusive
   group prefixes;
3. `scan_final`: each group scans its work-items' aggregates in local memory
   (Hillis-Steele), and each work-item re-scans its chunk from its prefix,
   applying the map lambda, the post lambda, and writing map-outs.

The other `scan` strategies of the pass (see `SCAN_STRATEGIES`) plug in at
`lower_scan`: a single-pass decoupled look-back scan (`lowering/lookback_scan.py`,
for devices with forward progress) and, for CPUs, `chunked`
(`lowering/chunked_scan.py`: one work-item per contiguous chunk, no local memory;
it also takes over reduce / redomap).

segred / segscan at level `thread`: one work-item per segment, sequential.
segred at level `group`: a team of work-items per segment (or per part of a long
one), sized by the segment length (`_segred_teams`), or, for plain rows of 32-bit
values with a commutative operator, warp-sized teams with vector loads
(`lowering/segred_vector.py`), chosen on the host by the row length; split segments
are finished by a second kernel. segscan at level `group`: the look-back scan over
the flattened array with the segment flag lifted into the operator (`_SegscanBody`),
or a work-group per segment with the other scan strategies.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from soac import dialect as soac
from soac.lowering.conversion import device_intrinsics as ix
from soac.lowering.conversion.kernel_builder import HostArray, IndexMath, KernelBuilder, KValue, View, building_at, tensor_element
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.conversion.soac_to_kernel import HostLowering
from soac.lowering.kernel import (
    BarrierOp,
    GlobalSizeOp,
    GroupIdOp,
    LocalAllocOp,
    LocalIdOp,
    NumGroupsOp,
    ReadOp,
)
from soac.lowering.strategies import chunked_scan, lookback_scan, segred_vector
from xdsl.dialects import arith
from xdsl.dialects.builtin import i1 as ir_i1
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.rewriter import InsertPoint

ElementFn = Callable[[SSAValue], list[KValue]]


class GroupCode:
    """Work-group level building blocks for one kernel: ids, local arrays, trees and scans."""

    def __init__(self, lw: HostLowering, kb: KernelBuilder, inliner: Inliner, combine: Region, types: Sequence[Attribute]):
        self.lw, self.kb, self.inliner, self.combine = lw, kb, inliner, combine
        self.group_size = lw.group_size
        m = kb.m
        self.t = m.insert(LocalIdOp(0), "tid")
        self.g = m.insert(GroupIdOp(0), "group")
        self.num_groups = m.insert(NumGroupsOp(0), "num_groups")
        self.gid = kb.global_id()
        kb.thread_id = self.gid
        self.G = m.c(self.group_size, "group_size")
        with building_at(kb.b, InsertPoint.at_start(kb.block)):
            self.locals = [m.insert(LocalAllocOp(self.group_size, t), f"local_{k}") for k, t in enumerate(types)]

    def apply(self, a: Sequence[SSAValue], b: Sequence[SSAValue]) -> list[SSAValue]:
        return self.inliner.inline_scalars(self.combine, [*a, *b])

    def barrier(self) -> None:
        self.kb.b.insert(BarrierOp(local=True))

    def load_locals(self, index: SSAValue) -> list[SSAValue]:
        m = self.kb.m
        from soac.lowering.kernel import LoadOp

        return [m.insert(LoadOp(local, index)) for local in self.locals]

    def store_locals(self, values: Sequence[SSAValue], index: SSAValue) -> None:
        from soac.lowering.kernel import StoreOp

        for value, local in zip(values, self.locals):
            self.kb.b.insert(StoreOp(value, local, index))

    def log_steps(self) -> SSAValue:
        return self.kb.m.c(self.group_size.bit_length() - 1, "log_group_size")

    def stride(self, e: SSAValue) -> SSAValue:
        return self.kb.m.insert(arith.ShLIOp(self.kb.m.c(1), e), "stride")

    def tree_reduce(self, values: Sequence[SSAValue]) -> None:
        """Leave the ordered combination of every work-item's `values` in `locals[0]`."""
        kb, m = self.kb, self.kb.m
        self.store_locals(values, self.t)
        self.barrier()

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            s = self.stride(e)
            active = m.eq(m.rem(self.t, m.add(s, s)), m.c(0), "active")

            def combine() -> None:
                partner = m.add(self.t, s)
                self.store_locals(self.apply(self.load_locals(self.t), self.load_locals(partner)), self.t)

            kb.if_then(active, combine)
            self.barrier()
            return []

        kb.for_loop(m.c(0), self.log_steps(), m.c(1), [], "e", step)

    def team_tree(self, values: Sequence[SSAValue], member: SSAValue, log_team: SSAValue) -> list[SSAValue]:
        """The combination of `values` over each team of 2^log_team adjacent work-items, at the team's first member
        (`member` = index in the team); every work-item must reach it."""
        kb, m = self.kb, self.kb.m
        self.store_locals(values, self.t)
        self.barrier()

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            stride = self.stride(e)
            combines = m.eq(m.insert(arith.AndIOp(member, m.sub(m.add(stride, stride), m.c(1)))), m.c(0), "combines")

            def combine() -> None:
                self.store_locals(self.apply(self.load_locals(self.t), self.load_locals(m.add(self.t, stride))), self.t)

            kb.if_then(combines, combine)
            self.barrier()
            return []

        kb.for_loop(m.c(0), log_team, m.c(1), [], "e", step)
        return self.load_locals(self.t)

    def inclusive_scan_locals(self) -> None:
        """Hillis-Steele inclusive scan of `locals[0..group)`."""
        kb, m = self.kb, self.kb.m
        types = [local.type.element_type for local in self.locals]  # pyright: ignore[reportAttributeAccessIssue]

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            s = self.stride(e)
            has_partner = m.insert(arith.CmpiOp(self.t, s, "uge"), "has_partner")
            own = self.load_locals(self.t)
            combined = self.kb.if_values(
                has_partner, types, lambda: self.apply(self.load_locals(m.sub(self.t, s)), own), lambda: own
            )
            self.barrier()
            self.store_locals(combined, self.t)
            self.barrier()
            return []

        kb.for_loop(m.c(0), self.log_steps(), m.c(1), [], "e", step)

    def chunk(self, n: SSAValue, start: SSAValue, groups: SSAValue, group: SSAValue) -> tuple[SSAValue, SSAValue]:
        """The contiguous range `[lo, hi)` of `[start, start + n)` that this work-item of group `group` folds."""
        m = self.kb.m
        per_group = m.ceildiv(n, groups, "per_group")
        per_thread = m.ceildiv(per_group, self.G, "per_thread")
        group_start = m.mul(group, per_group)
        lo = m.add(group_start, m.mul(self.t, per_thread), "lo")
        hi = m.min(m.min(m.add(lo, per_thread), m.add(group_start, per_group)), n, "hi")
        return m.add(start, lo), m.add(start, hi)

    def fold(
        self,
        lo: SSAValue,
        hi: SSAValue,
        step: SSAValue,
        neutral: Sequence[SSAValue],
        k: int,
        element: ElementFn,
        each: Callable[[SSAValue, list[KValue], list[SSAValue]], None] | None = None,
    ) -> list[SSAValue]:
        """Fold elements `lo, lo+step, ... < hi` into `neutral`; `each(i, values, acc)` sees every step."""

        def body(i: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
            values = element(i)
            new = self.apply(accs, values[:k])  # pyright: ignore[reportArgumentType]
            if each is not None:
                each(i, values, new)
            return new

        return self.kb.for_loop(lo, hi, step, list(neutral), "i", body)


def neutral_values(kb: KernelBuilder, lw: HostLowering, neutral: Sequence[SSAValue]) -> list[SSAValue]:
    return [kb.scalar(lw.scalar(v), v.name_hint or "ne") for v in neutral]


def _write_values(kb: KernelBuilder, values: Sequence[KValue], views: Sequence[View], index: SSAValue) -> None:
    for value, view in zip(values, views):
        kb.write_row(value, view, index)


def _alloc_like(lw: HostLowering, values: Sequence[SSAValue], count: SSAValue, suffix: str) -> list[HostArray]:
    return [lw.alloc(v.type, [count], f"{v.name_hint or 'acc'}_{suffix}") for v in values]


# ---------------------------------------------------------------------------
# reduce / redomap
# ---------------------------------------------------------------------------


def lower_reduce(lw: HostLowering, op: soac.ReduceOp | soac.RedomapOp) -> None:
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    k = len(op.neutral)
    lam = op.body if isinstance(op, soac.RedomapOp) else None
    map_results = list(op.outs)[k:]
    map_outs = [
        lw.alloc(tensor_element(r.type), [width, *dims], r.name_hint)
        for r, dims in zip(map_results, lw.row_dims(op, lam, map_results, k) if lam else [])
    ]
    if lw.scan_strategy == "chunked":
        for result, value in zip(op.outs, [*chunked_scan.lower_reduce(lw, op, map_outs), *map_outs]):
            lw.env[result] = value
        return
    m = lw.m
    groups = m.max(m.min(m.ceildiv(width, m.c(lw.group_size)), m.c(lw.max_groups)), m.c(1), "num_groups")
    partials = _alloc_like(lw, list(op.neutral), groups, "partials")

    kb = lw.kernel("reduce")
    inliner = Inliner(kb)
    code = GroupCode(lw, kb, inliner, op.combine, [v.type for v in op.neutral])
    n = kb.scalar(width)
    views = [kb.array(lw.array(x), x.name_hint) for x in op.inputs]
    map_views = [kb.array(a, r.name_hint) for a, r in zip(map_outs, map_results)]
    partial_views = [kb.array(p) for p in partials]

    def element(i: SSAValue) -> list[KValue]:
        rows = [kb.row(v, i) for v in views]
        return inliner.inline(lam, rows) if lam is not None else rows

    def write_map_outs(i: SSAValue, values: list[KValue], _: list[SSAValue]) -> None:
        _write_values(kb, values[k:], map_views, i)

    if op.commutative is not None and not map_views and views and all(_vectorizable(v) for v in views):
        accs = _fold_vectors(
            code, n, views, neutral_values(kb, lw, op.neutral), lambda rows: inliner.inline(lam, rows) if lam else rows, k
        )
    else:
        if op.commutative is not None:
            lo, hi, step = code.gid, n, kb.m.insert(GlobalSizeOp(0), "gsize")
        else:
            (lo, hi), step = code.chunk(n, kb.m.c(0), code.num_groups, code.g), kb.m.c(1)
        accs = code.fold(lo, hi, step, neutral_values(kb, lw, op.neutral), k, element, write_map_outs)
    _tree_to(code, accs, partial_views, code.g)
    lw.add_kernel(kb, m.mul(groups, m.c(lw.group_size), "global_size"), m.c(lw.group_size))

    results = _reduce_partials(lw, op, partials, groups)
    for result, value in zip(op.outs, [*results, *map_outs]):
        lw.env[result] = value


VECTOR_STREAMS = 4
"""Independent 16-byte loads in flight per work-item and iteration in a vectorised commutative reduction."""


def _fold_vectors(
    code: GroupCode,
    n: SSAValue,
    views: list[View],
    neutral: list[SSAValue],
    mapped: Callable[[list[KValue]], list[KValue]],
    k: int,
) -> list[SSAValue]:
    """Stage one of a commutative reduction over 1-D 32-bit inputs: 16-byte loads, `VECTOR_STREAMS` accumulators.

    The vectors of the inputs are split into `VECTOR_STREAMS` equal parts; work-item `gid`
    folds vectors `gid, gid + global_size, ...` of every part into that part's
    accumulator (independent loads in flight), then the tail elements one by one.
    """
    kb, m = code.kb, code.kb.m
    gsize = m.insert(GlobalSizeOp(0), "gsize")
    streams = VECTOR_STREAMS
    part = m.div(m.div(n, m.c(4)), m.c(streams), "part")

    def step(v: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
        new: list[SSAValue] = []
        for q in range(streams):
            acc = accs[q * k : (q + 1) * k]
            index = m.mul(m.add(v, m.mul(part, m.c(q))), m.c(4))
            lanes = [ix.vector_load(kb, view, index, 4) for view in views]
            for e in range(4):
                acc = code.apply(acc, mapped([lane[e] for lane in lanes])[:k])  # pyright: ignore[reportArgumentType]
            new.extend(acc)
        return new

    carried = kb.for_loop(code.gid, part, gsize, list(neutral) * streams, "v", step)
    accs = carried[:k]
    for q in range(1, streams):
        accs = code.apply(accs, carried[q * k : (q + 1) * k])
    tail = m.mul(m.mul(part, m.c(streams)), m.c(4), "tail")

    def rest(i: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
        return code.apply(acc, mapped([kb.load(view, i) for view in views])[:k])  # pyright: ignore[reportArgumentType]

    return kb.for_loop(m.add(tail, code.gid), n, gsize, accs, "i", rest)


def _tree_to(code: GroupCode, accs: Sequence[SSAValue], outs: Sequence[View], index: SSAValue) -> None:
    """Combine the work-items' `accs` and let work-item 0 write the group's value at `outs[index]`."""
    kb = code.kb
    code.tree_reduce(accs)
    first = kb.m.eq(code.t, kb.m.c(0), "first")

    def write() -> None:
        for value, out in zip(code.load_locals(kb.m.c(0)), outs):
            kb.store(value, out, index)

    kb.if_then(first, write)


def _reduce_partials(
    lw: HostLowering, op: soac.ReduceOp | soac.RedomapOp, partials: list[HostArray], groups: SSAValue
) -> list[SSAValue]:
    """Stage two: one work-group reduces the per-group partials; the host reads the result."""
    m = lw.m
    finals = _alloc_like(lw, list(op.neutral), m.c(1), "result")
    kb = lw.kernel("reduce_partials")
    inliner = Inliner(kb)
    code = GroupCode(lw, kb, inliner, op.combine, [v.type for v in op.neutral])
    count = kb.scalar(groups)
    views = [kb.array(p) for p in partials]
    lo, hi = code.chunk(count, kb.m.c(0), kb.m.c(1), kb.m.c(0))
    accs = code.fold(lo, hi, kb.m.c(1), neutral_values(kb, lw, op.neutral), len(views), lambda i: [kb.load(v, i) for v in views])
    _tree_to(code, accs, [kb.array(f) for f in finals], kb.m.c(0))
    lw.add_kernel(kb, m.c(lw.group_size), m.c(lw.group_size))
    return [m.insert(ReadOp(f.buffer, m.c(0)), r.name_hint) for f, r in zip(finals, op.outs)]


# ---------------------------------------------------------------------------
# scan / scanomap
# ---------------------------------------------------------------------------


def lower_scan(lw: HostLowering, op: soac.ScanOp | soac.ScanomapOp) -> None:
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    k = len(op.neutral)
    lam = op.body if isinstance(op, soac.ScanomapOp) else None
    post = op.post if isinstance(op, soac.ScanomapOp) and op.post.blocks else None
    n_map_outs = len(lam.block.last_op.operands) - k if lam is not None else 0  # pyright: ignore[reportOptionalMemberAccess]
    scanned = list(op.outs)[: len(op.outs) - n_map_outs]
    map_results = list(op.outs)[len(scanned) :]
    scanned_dims = lw.row_dims(op, post, scanned) if post is not None else [[] for _ in scanned]
    map_dims = lw.row_dims(op, lam, map_results, k) if lam is not None else []
    outs = [lw.alloc(tensor_element(r.type), [width, *d], r.name_hint) for r, d in zip(scanned, scanned_dims)]
    map_outs = [lw.alloc(tensor_element(r.type), [width, *d], r.name_hint) for r, d in zip(map_results, map_dims)]
    for result, array in zip(op.outs, [*outs, *map_outs]):
        lw.env[result] = array
    if lw.scan_strategy.startswith("lookback") and lookback_scan.supports([v.type for v in op.neutral]):
        body = _ScanomapBody(lw, op, outs, scanned, map_outs, map_results)
        lookback_scan.lookback_scan(lw, width, body.make, nvidia=lw.nvidia)
        return
    if lw.scan_strategy == "chunked":
        chunked_scan.lower_scan(lw, op, outs, scanned, map_outs, map_results)
        return

    m = lw.m
    groups = m.max(m.min(m.ceildiv(width, m.c(lw.group_size)), m.c(lw.max_groups)), m.c(1), "num_groups")
    global_size = m.mul(groups, m.c(lw.group_size), "global_size")
    neutral = list(op.neutral)
    thread_aggs = _alloc_like(lw, neutral, global_size, "thread_aggs")
    group_aggs = _alloc_like(lw, neutral, groups, "group_aggs")
    group_prefix = _alloc_like(lw, neutral, groups, "group_prefix")

    def element_fn(kb: KernelBuilder, inliner: Inliner) -> tuple[ElementFn, list[View]]:
        views = [kb.array(lw.array(x), x.name_hint) for x in op.inputs]

        def element(i: SSAValue) -> list[KValue]:
            rows = [kb.row(v, i) for v in views]
            return inliner.inline(lam, rows) if lam is not None else rows

        return element, views

    # Phase 1: per-work-item and per-group aggregates.
    kb = lw.kernel("scan_reduce")
    inliner = Inliner(kb)
    code = GroupCode(lw, kb, inliner, op.combine, [v.type for v in neutral])
    element, _ = element_fn(kb, inliner)
    lo, hi = code.chunk(kb.scalar(width), kb.m.c(0), code.num_groups, code.g)
    accs = code.fold(lo, hi, kb.m.c(1), neutral_values(kb, lw, neutral), k, element)
    for value, agg in zip(accs, thread_aggs):
        kb.store(value, kb.array(agg), code.gid)
    _tree_to(code, accs, [kb.array(a) for a in group_aggs], code.g)
    lw.add_kernel(kb, global_size, m.c(lw.group_size))

    # Phase 2: exclusive prefixes of the group aggregates, sequentially.
    kb = lw.kernel("scan_carries")
    inliner = Inliner(kb)
    agg_views = [kb.array(a) for a in group_aggs]
    prefix_views = [kb.array(p) for p in group_prefix]

    def carry(g: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
        for value, view in zip(accs, prefix_views):
            kb.store(value, view, g)
        return inliner.inline_scalars(op.combine, [*accs, *(kb.load(v, g) for v in agg_views)])

    kb.for_loop(kb.m.c(0), kb.scalar(groups), kb.m.c(1), neutral_values(kb, lw, neutral), "g", carry)
    lw.add_kernel(kb, m.c(1), m.c(1))

    # Phase 3: scan within groups, then re-scan every chunk from its prefix.
    kb = lw.kernel("scan_final")
    inliner = Inliner(kb)
    code = GroupCode(lw, kb, inliner, op.combine, [v.type for v in neutral])
    element, input_views = element_fn(kb, inliner)
    out_views = [kb.array(a, r.name_hint) for a, r in zip(outs, scanned)]
    map_views = [kb.array(a, r.name_hint) for a, r in zip(map_outs, map_results)]
    code.store_locals([kb.load(kb.array(a), code.gid) for a in thread_aggs], code.t)
    code.barrier()
    code.inclusive_scan_locals()
    group_carry = [kb.load(kb.array(p), code.g, "group_carry") for p in group_prefix]
    types = [v.type for v in neutral]
    first = kb.m.eq(code.t, kb.m.c(0), "first")
    prefix = code.kb.if_values(
        first, types, lambda: group_carry, lambda: code.apply(group_carry, code.load_locals(kb.m.sub(code.t, kb.m.c(1))))
    )
    lo, hi = code.chunk(kb.scalar(width), kb.m.c(0), code.num_groups, code.g)

    def write(i: SSAValue, values: list[KValue], acc: list[SSAValue]) -> None:
        finals: list[KValue] = list(acc)
        if post is not None:
            finals = inliner.inline(post, [*acc, *(kb.row(v, i) for v in input_views)])
        _write_values(kb, finals, out_views, i)
        _write_values(kb, values[k:], map_views, i)

    code.fold(lo, hi, kb.m.c(1), prefix, k, element, write)
    lw.add_kernel(kb, global_size, m.c(lw.group_size))


def _vectorizable(view: View) -> bool:
    """A whole 1-D array of 32-bit elements: tiles of it can move in 16-byte vectors."""
    return len(view.dims) == 1 and str(view.element) in ("i32", "f32") and IndexMath.constant_of(view.offset) == 0


class _ScanomapBody:
    """The element, combine and store code of a scan/scanomap for `lookback_scan`."""

    def __init__(
        self,
        lw: HostLowering,
        op: soac.ScanOp | soac.ScanomapOp,
        outs: list[HostArray],
        scanned: list[SSAValue],
        map_outs: list[HostArray],
        map_results: list[SSAValue],
    ):
        self.lw, self.op = lw, op
        self.outs, self.scanned, self.map_outs, self.map_results = outs, scanned, map_outs, map_results
        self.lam = op.body if isinstance(op, soac.ScanomapOp) else None
        self.post = op.post if isinstance(op, soac.ScanomapOp) and op.post.blocks else None

    def make(self, kb: KernelBuilder) -> lookback_scan.ScanBody:  # noqa: C901
        lw, op = self.lw, self.op
        inliner = Inliner(kb)
        k = len(op.neutral)
        views = [kb.array(lw.array(x), x.name_hint) for x in op.inputs]
        out_views = [kb.array(a, r.name_hint) for a, r in zip(self.outs, self.scanned)]
        map_views = [kb.array(a, r.name_hint) for a, r in zip(self.map_outs, self.map_results)]
        types = [v.type for v in op.neutral]

        def neutral() -> list[SSAValue]:
            return neutral_values(kb, lw, op.neutral)

        def combine(a: list[SSAValue], b: list[SSAValue]) -> list[SSAValue]:
            return inliner.inline_scalars(op.combine, [*a, *b])

        def element(rows: list[KValue]) -> list[KValue]:
            return inliner.inline(self.lam, rows) if self.lam is not None else rows

        def write(values: list[list[KValue]], targets: list[View], base: SSAValue) -> None:
            """Write item j's values to `targets` at `base + j`, in 16-byte vectors where possible."""
            for t, view in enumerate(targets):
                column = [item[t] for item in values]
                if _vectorizable(view) and all(isinstance(v, SSAValue) for v in column):
                    for q in range(0, len(column), 4):
                        ix.vector_store(kb, column[q : q + 4], view, kb.m.add(base, kb.m.c(q)))  # pyright: ignore[reportArgumentType]
                else:
                    for j, value in enumerate(column):
                        kb.write_row(value, view, kb.m.add(base, kb.m.c(j)))

        def load(base: SSAValue, count: int, full: bool, end: SSAValue) -> list[list[SSAValue]]:
            items: list[list[SSAValue]] = []
            if full:
                vectors = {
                    t: [x for q in range(0, count, 4) for x in ix.vector_load(kb, view, kb.m.add(base, kb.m.c(q)), 4)]
                    for t, view in enumerate(views)
                    if _vectorizable(view)
                }
                map_values: list[list[KValue]] = []
                for j in range(count):
                    index = kb.m.add(base, kb.m.c(j))
                    rows = [vectors[t][j] if t in vectors else kb.row(view, index) for t, view in enumerate(views)]
                    values = element(rows)
                    items.append(values[:k])  # pyright: ignore[reportArgumentType]
                    map_values.append(values[k:])
                write(map_values, map_views, base)
                return items
            for j in range(count):
                index = kb.m.add(base, kb.m.c(j))

                def present(index: SSAValue = index) -> list[SSAValue]:
                    values = element([kb.row(view, index) for view in views])
                    _write_values(kb, values[k:], map_views, index)
                    return values[:k]  # pyright: ignore[reportReturnType]

                items.append(kb.if_values(kb.m.lt(index, end), types, present, neutral))
            return items

        def finals(index: SSAValue, acc: list[SSAValue]) -> list[KValue]:
            if self.post is None:
                return list(acc)
            return inliner.inline(self.post, [*acc, *(kb.row(v, index) for v in views)])

        def store(base: SSAValue, scanned: list[list[SSAValue]], full: bool, end: SSAValue) -> None:
            if full:
                write([finals(kb.m.add(base, kb.m.c(j)), acc) for j, acc in enumerate(scanned)], out_views, base)
                return
            for j, acc in enumerate(scanned):
                index = kb.m.add(base, kb.m.c(j))

                def present(index: SSAValue = index, acc: list[SSAValue] = acc) -> None:
                    _write_values(kb, finals(index, acc), out_views, index)

                kb.if_then(kb.m.lt(index, end), present)

        return lookback_scan.ScanBody(types, neutral, combine, load, store)


# ---------------------------------------------------------------------------
# segred / segscan
# ---------------------------------------------------------------------------


def _seg_outputs(
    lw: HostLowering, op: soac.SegredOp | soac.SegscanOp, scan: bool
) -> tuple[list[SSAValue], list[HostArray], list[HostArray]]:
    dims = [lw.scalar(d) for d in op.dims]
    k = len(op.neutral)
    combined_dims = dims if scan else dims[:-1]
    combined = [
        lw.alloc(v.type, combined_dims or [lw.m.c(1)], (r.name_hint or "acc") + ("" if combined_dims else "_result"))
        for v, r in zip(op.neutral, op.outs)
    ]
    map_results = list(op.outs)[k:]
    map_outs = [
        lw.alloc(tensor_element(r.type), [*dims, *d], r.name_hint)
        for r, d in zip(map_results, lw.row_dims(op, op.body, map_results, k))
    ]
    return dims, combined, map_outs


def _bind_seg_results(
    lw: HostLowering, op: soac.SegredOp | soac.SegscanOp, combined: list[HostArray], map_outs: list[HostArray], scalar: bool
) -> None:
    m = lw.m
    values: list[SSAValue | HostArray] = [
        m.insert(ReadOp(c.buffer, m.c(0)), r.name_hint) if scalar else c for c, r in zip(combined, op.outs)
    ]
    for result, value in zip(op.outs, [*values, *map_outs]):
        lw.env[result] = value


def lower_segred(lw: HostLowering, op: soac.SegredOp) -> None:
    _lower_segmented(lw, op, scan=False)


def lower_segscan(lw: HostLowering, op: soac.SegscanOp) -> None:
    _lower_segmented(lw, op, scan=True)


def _lower_segmented(  # noqa: C901
    lw: HostLowering, op: soac.SegredOp | soac.SegscanOp, scan: bool
) -> None:
    dims, combined, map_outs = _seg_outputs(lw, op, scan)
    if op.level.data == soac.Level.GROUP and not scan:
        _segred_teams(lw, op, dims, combined, map_outs)
        _bind_seg_results(lw, op, combined, map_outs, scalar=len(dims) == 1)
        return
    if op.level.data == soac.Level.GROUP and lw.scan_strategy.startswith("lookback"):
        if lookback_scan.supports([ir_i1, *(v.type for v in op.neutral)]):
            body = _SegscanBody(lw, op, dims, combined, map_outs)
            rows = (lw.m.product(dims[:-1], "segments"), dims[-1])
            count = lw.m.product(dims, "count")
            lookback_scan.lookback_scan(lw, count, body.make, nvidia=lw.nvidia, rows=rows)
            _bind_seg_results(lw, op, combined, map_outs, scalar=False)
            return
    k = len(op.neutral)
    m = lw.m
    segments = m.product(dims[:-1], "segments")
    kind = ("segscan" if scan else "segred") + "_" + op.level.data.value
    kb = lw.kernel(kind)
    inliner = Inliner(kb)
    kdims = [kb.scalar(d) for d in dims]
    outer, inner = kdims[:-1], kdims[-1]
    combined_views = [kb.array(c) for c in combined]
    map_views = [kb.array(a, r.name_hint) for a, r in zip(map_outs, list(op.outs)[k:])]
    names = [a.name_hint for a in op.body.block.args]

    def element_for(s: SSAValue) -> ElementFn:
        prefix = kb.m.unflatten(s, outer, names[:-1]) if outer else []
        return lambda j: inliner.inline(op.body, [*prefix, j])

    def each_for(s: SSAValue) -> Callable[[SSAValue, list[KValue], list[SSAValue]], None]:
        def each(j: SSAValue, values: list[KValue], acc: list[SSAValue]) -> None:
            flat = kb.m.add(kb.m.mul(s, inner), j, "flat")
            _write_values(kb, values[k:], map_views, flat)
            if scan:
                _write_values(kb, acc, combined_views, flat)

        return each

    if op.level.data == soac.Level.GROUP:
        code = GroupCode(lw, kb, inliner, op.combine, [v.type for v in op.neutral])
        neutral = neutral_values(kb, lw, op.neutral)

        def segment(s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            code.barrier()
            lo, hi = code.chunk(inner, kb.m.c(0), kb.m.c(1), kb.m.c(0))
            if not scan:
                accs = code.fold(lo, hi, kb.m.c(1), neutral, k, element_for(s), each_for(s))
                _tree_to(code, accs, combined_views, s)
                return []
            accs = code.fold(lo, hi, kb.m.c(1), neutral, k, element_for(s))
            code.store_locals(accs, code.t)
            code.barrier()
            code.inclusive_scan_locals()
            first = kb.m.eq(code.t, kb.m.c(0), "first")
            prefix = code.kb.if_values(
                first, [v.type for v in op.neutral], lambda: neutral, lambda: code.load_locals(kb.m.sub(code.t, kb.m.c(1)))
            )
            code.fold(lo, hi, kb.m.c(1), prefix, k, element_for(s), each_for(s))
            return []

        kb.for_loop(code.g, kb.scalar(segments), code.num_groups, [], "s", segment)
        groups = m.max(m.min(segments, m.c(lw.max_groups)), m.c(1), "num_groups")
        lw.add_kernel(kb, m.mul(groups, m.c(lw.group_size), "global_size"), m.c(lw.group_size))
    else:
        gid = kb.global_id()
        kb.thread_id = gid
        gsize = kb.m.insert(GlobalSizeOp(0), "gsize")
        neutral = neutral_values(kb, lw, op.neutral)

        def segment(s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            element, each = element_for(s), each_for(s)

            def step(j: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
                values = element(j)
                new = inliner.inline_scalars(op.combine, [*accs, *values[:k]])  # pyright: ignore[reportArgumentType]
                each(j, values, new)
                return new

            accs = kb.for_loop(kb.m.c(0), inner, kb.m.c(1), neutral, "j", step)
            if not scan:
                for value, view in zip(accs, combined_views):
                    kb.store(value, view, s)
            return []

        kb.for_loop(gid, kb.scalar(segments), gsize, [], "s", segment)
        global_size, local_size = lw.grid(m.max(segments, m.c(1)))
        lw.add_kernel(kb, global_size, local_size)
    _bind_seg_results(lw, op, combined, map_outs, scalar=not scan and len(dims) == 1)


# ---------------------------------------------------------------------------
# segred at level group: size-adaptive teams
# ---------------------------------------------------------------------------

SEG_MIN_TEAM = int(os.environ.get("SOAC_SEG_MIN_TEAM", "8"))
"""Fewest work-items per segment (8 x 4 bytes fill a 32-byte memory sector per load); `SOAC_SEG_MIN_TEAM` overrides."""

SEG_LANE_ITEMS = int(os.environ.get("SOAC_SEG_LANE_ITEMS", "8"))
"""Elements per work-item a team aims at before it grows (up to the group size)."""

SEG_PART_MIN = 64
"""Elements per work-item below which a segment is not split over several groups."""

_COMMUTATIVE = (
    arith.AddiOp,
    arith.MuliOp,
    arith.AndIOp,
    arith.OrIOp,
    arith.XOrIOp,
    arith.MaxSIOp,
    arith.MinSIOp,
    arith.MaxUIOp,
    arith.MinUIOp,
    arith.AddfOp,
    arith.MulfOp,
    arith.MaximumfOp,
    arith.MinimumfOp,
    arith.MaxnumfOp,
    arith.MinnumfOp,
)


def is_commutative(combine: Region) -> bool:
    """A single-value operator whose body is one commutative arith op on its two parameters."""
    block = combine.block
    ops = list(block.ops)
    if len(block.args) != 2 or len(ops) != 2 or not isinstance(ops[0], _COMMUTATIVE):
        return False
    return set(ops[0].operands) == set(block.args) and list(ops[1].operands) == [ops[0].results[0]]


SEG_STREAMS = 4
"""Independent loads in flight per work-item in the strided (commutative) fold of a segmented reduction."""


def fold_streams(
    code: GroupCode,
    lo: SSAValue,
    hi: SSAValue,
    step: SSAValue,
    neutral: list[SSAValue],
    k: int,
    element: ElementFn,
    each: Callable[[SSAValue, list[KValue], list[SSAValue]], None],
) -> list[SSAValue]:
    """`code.fold` for a commutative operator, `SEG_STREAMS` elements per iteration into separate accumulators."""
    km = code.kb.m
    streams = SEG_STREAMS
    wide = km.mul(step, km.c(streams), "wide_step")
    count = km.insert(arith.SelectOp(km.lt(lo, hi), km.sub(hi, lo), km.c(0)))
    main_end = km.add(lo, km.mul(km.div(count, wide), wide), "main_end")

    def body(i: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
        new: list[SSAValue] = []
        for q in range(streams):
            index = km.add(i, km.mul(step, km.c(q)))
            values = element(index)
            each(index, values, [])
            new.extend(code.apply(accs[q * k : (q + 1) * k], values[:k]))  # pyright: ignore[reportArgumentType]
        return new

    carried = code.kb.for_loop(lo, main_end, wide, list(neutral) * streams, "i", body)
    accs = carried[:k]
    for q in range(1, streams):
        accs = code.apply(accs, carried[q * k : (q + 1) * k])
    return code.fold(main_end, hi, step, accs, k, element, each)


def pow2_at_most(m: IndexMath, value: SSAValue, low: int, high: int) -> tuple[SSAValue, SSAValue]:
    """The largest power of two in `[low, high]` that is at most `value` (`low` if none), and its log2."""
    size, log = m.c(low), m.c(low.bit_length() - 1)
    p = low * 2
    while p <= high:
        fits = m.insert(arith.CmpiOp(value, m.c(p), "uge"))
        size = m.insert(arith.SelectOp(fits, m.c(p), size))
        log = m.insert(arith.SelectOp(fits, m.c(p.bit_length() - 1), log))
        p *= 2
    return size, log


def _segred_teams(
    lw: HostLowering, op: soac.SegredOp, dims: list[SSAValue], combined: list[HostArray], map_outs: list[HostArray]
) -> None:
    """Size-adaptive segmented reduction: a team of S work-items per segment (or per part of one).

    The host picks the team size S = the power of two nearest below n / SEG_LANE_ITEMS, kept in
    [SEG_MIN_TEAM, group size] (one work-item per segment when SEG_MIN_TEAM is 1), and splits a
    segment into P parts when there are too few segments to fill `max-groups` groups and the
    segment is long. A team reads its (part of a) segment strided by S (coalesced) when the
    operator is commutative, in S contiguous chunks otherwise, then combines its S values in
    local memory by an ordered tree. With P > 1 a second kernel folds the P partial results
    of every segment in order.
    """
    k = len(op.neutral)
    m = lw.m
    group = lw.group_size
    segments = m.product(dims[:-1], "segments")
    n = dims[-1]
    min_team = max(1, min(SEG_MIN_TEAM, group))
    team, log_team = pow2_at_most(m, m.div(n, m.c(SEG_LANE_ITEMS)), min_team, group)
    team.name_hint, log_team.name_hint = "team", "log_team"
    # Parts per segment: enough teams to fill max-groups groups, each part at least SEG_PART_MIN elements per lane.
    teams_wanted = m.mul(m.c(lw.max_groups), m.div(m.c(group), team), "teams_wanted")
    by_count = m.ceildiv(teams_wanted, m.max(segments, m.c(1)))
    by_size = m.max(m.div(n, m.mul(team, m.c(SEG_PART_MIN))), m.c(1))
    parts = m.max(m.min(by_count, by_size), m.c(1), "parts")
    vector = segred_vector.plan(lw, segments, n) if segred_vector.applies(lw, op, dims) else None
    if vector is not None:
        parts = m.insert(arith.SelectOp(vector.chosen, vector.parts, parts), "parts")
    units = m.mul(segments, parts, "units")
    split = m.insert(arith.CmpiOp(parts, m.c(1), "ugt"), "split")
    partials = [lw.alloc(v.type, [m.max(units, m.c(1))], f"{r.name_hint or 'acc'}_parts") for v, r in zip(op.neutral, op.outs)]

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
    commutative = is_commutative(op.combine)
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
            _write_values(kb, values[k:], map_views, km.add(km.mul(s, inner), j))

        if commutative:
            accs = fold_streams(code, km.add(lo, member), hi, kteam, neutral, k, element, each)
        else:
            per = km.ceildiv(km.sub(hi, lo), kteam, "per_member")
            start = km.min(km.add(lo, km.mul(member, per)), hi)
            accs = code.fold(start, km.min(km.add(start, per), hi), km.c(1), neutral, k, element, each)
        values = code.team_tree(accs, member, klog)
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
    if vector is not None:
        global_size = m.insert(arith.SelectOp(vector.chosen, m.c(0), global_size), "global_size")
    lw.add_kernel(kb, global_size, m.c(group))
    if vector is not None:
        segred_vector.VectorKernel(lw, op, dims, vector, units, partials, combined).build()

    # Second stage (only when split): a work-group per segment folds its parts, contiguous chunks and an ordered tree.
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
        _tree_to(code, accs, combined_views, s)
        return []

    kb.for_loop(code.g, kb.scalar(segments), code.num_groups, [], "s", fold_parts)
    groups = m.max(m.min(segments, m.c(lw.max_groups)), m.c(1))
    global_size = m.insert(arith.SelectOp(split, m.mul(groups, m.c(group)), m.c(0)), "global_size")
    lw.add_kernel(kb, global_size, m.c(group))


# ---------------------------------------------------------------------------
# segscan at level group: a flat look-back scan with the segmented operator
# ---------------------------------------------------------------------------


class _SegscanBody:
    """A regular segmented scan as one flat scan of (segment start, value) pairs.

    The operator is lifted to `(f1, v1) . (f2, v2) = (f1 | f2, f2 ? v2 : v1 . v2)`, and the
    flag of element `i` is `i mod n == 0`, so no flags are stored, and tiles that start
    a segment skip the look-back (`ScanBody.segment_start`).
    """

    def __init__(
        self, lw: HostLowering, op: soac.SegscanOp, dims: list[SSAValue], combined: list[HostArray], map_outs: list[HostArray]
    ):
        self.lw, self.op, self.dims, self.combined, self.map_outs = lw, op, dims, combined, map_outs

    def make(self, kb: KernelBuilder) -> lookback_scan.ScanBody:  # noqa: C901
        lw, op = self.lw, self.op
        inliner = Inliner(kb)
        k = len(op.neutral)
        kdims = [kb.scalar(d) for d in self.dims]
        outer, inner = kdims[:-1], kdims[-1]
        count = kb.m.product(kdims)
        combined_views = [kb.array(c) for c in self.combined]
        map_views = [kb.array(a, r.name_hint) for a, r in zip(self.map_outs, list(op.outs)[k:])]
        names = [a.name_hint for a in op.body.block.args]
        types: list[Attribute] = [ir_i1, *(v.type for v in op.neutral)]
        km = kb.m

        def neutral() -> list[SSAValue]:
            return [km.const(0, ir_i1), *neutral_values(kb, lw, op.neutral)]

        def combine(a: list[SSAValue], b: list[SSAValue]) -> list[SSAValue]:
            values = inliner.inline_scalars(op.combine, [*a[1:], *b[1:]])
            flag = km.insert(arith.OrIOp(a[0], b[0]))
            return [flag, *(km.insert(arith.SelectOp(b[0], y, x)) for x, y in zip(values, b[1:]))]

        def positions(base: SSAValue, count_: int) -> list[tuple[SSAValue, SSAValue, SSAValue]]:
            """(flat index, segment, index in segment) of `count_` consecutive elements: one division, then increments."""
            s = km.div(base, inner, "seg")
            j = km.sub(base, km.mul(s, inner), "j")
            result = [(base, s, j)]
            for e in range(1, count_):
                j = km.add(j, km.c(1))
                wrap = km.eq(j, inner)
                j = km.insert(arith.SelectOp(wrap, km.c(0), j))
                s = km.insert(arith.SelectOp(wrap, km.add(s, km.c(1)), s))
                result.append((km.add(base, km.c(e)), s, j))
            return result

        def element(i: SSAValue, s: SSAValue, j: SSAValue) -> list[SSAValue]:
            prefix = km.unflatten(s, outer, names[:-1]) if outer else []
            values = inliner.inline(op.body, [*prefix, j])
            _write_values(kb, values[k:], map_views, i)
            return [km.eq(j, km.c(0)), *values[:k]]  # pyright: ignore[reportReturnType]

        plain = segred_vector.plain_source(lw, op, self.dims)
        flat_source = None
        if plain is not None:
            source = kb.array(lw.array(plain), plain.name_hint)
            flat_source = View(source.buffer, source.offset, [count], source.element)
        flat_outs = [View(v.buffer, v.offset, [count], v.element) for v in combined_views]

        def load(base: SSAValue, count_: int, full: bool, end: SSAValue) -> list[list[SSAValue]]:
            items = []
            if full and flat_source is not None and _vectorizable(flat_source) and count_ % 4 == 0:
                xs = [x for q in range(0, count_, 4) for x in ix.vector_load(kb, flat_source, km.add(base, km.c(q)), 4)]
                for (_, _, j), x in zip(positions(base, count_), xs):
                    items.append([km.eq(j, km.c(0)), x])
                return items
            for i, s, j in positions(base, count_):
                if full:
                    items.append(element(i, s, j))
                else:
                    items.append(kb.if_values(km.lt(i, end), types, lambda i=i, s=s, j=j: element(i, s, j), neutral))
            return items

        def store(base: SSAValue, scanned: list[list[SSAValue]], full: bool, end: SSAValue) -> None:
            if full and all(_vectorizable(v) for v in flat_outs) and len(scanned) % 4 == 0:
                for t, view in enumerate(flat_outs):
                    for q in range(0, len(scanned), 4):
                        ix.vector_store(kb, [acc[1 + t] for acc in scanned[q : q + 4]], view, km.add(base, km.c(q)))
                return
            for j, acc in enumerate(scanned):
                index = km.add(base, km.c(j))
                if full:
                    _write_values(kb, acc[1:], combined_views, index)
                else:
                    kb.if_then(km.lt(index, end), lambda index=index, acc=acc: _write_values(kb, acc[1:], combined_views, index))

        def segment_start(index: SSAValue) -> SSAValue:
            return km.eq(km.rem(index, inner), km.c(0), "segment_start")

        return lookback_scan.ScanBody(types, neutral, combine, load, store, segment_start)
