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

A single-pass decoupled look-back scan for devices with forward progress
(NVIDIA) is the planned second `scan` strategy of the pass (see
`SCAN_STRATEGIES`); `lower_scan` is where it plugs in.

segred / segscan at level `thread`: one work-item per segment, sequential.
At level `group`: one work-group per segment (virtualised over at most
`max-groups` groups); work-items fold contiguous chunks of the segment and
combine in local memory as above.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from soac import dialect as soac
from soac.lowering.kernel_builder import HostArray, KernelBuilder, KValue, View, building_at, tensor_element
from soac.lowering.kernel_dialect import (
    BarrierOp,
    GlobalSizeOp,
    GroupIdOp,
    LocalAllocOp,
    LocalIdOp,
    NumGroupsOp,
    ReadOp,
)
from soac.lowering.sequential import Inliner
from soac.lowering.soac_to_kernel import HostLowering
from xdsl.dialects import arith, scf
from xdsl.ir import Attribute, Block, Region, SSAValue
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
        from soac.lowering.kernel_dialect import LoadOp

        return [m.insert(LoadOp(local, index)) for local in self.locals]

    def store_locals(self, values: Sequence[SSAValue], index: SSAValue) -> None:
        from soac.lowering.kernel_dialect import StoreOp

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

    def inclusive_scan_locals(self) -> None:
        """Hillis-Steele inclusive scan of `locals[0..group)`."""
        kb, m = self.kb, self.kb.m
        types = [local.type.element_type for local in self.locals]  # pyright: ignore[reportAttributeAccessIssue]

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            s = self.stride(e)
            has_partner = m.insert(arith.CmpiOp(self.t, s, "uge"), "has_partner")
            own = self.load_locals(self.t)
            combined = self.select(has_partner, types, lambda: self.apply(self.load_locals(m.sub(self.t, s)), own), lambda: own)
            self.barrier()
            self.store_locals(combined, self.t)
            self.barrier()
            return []

        kb.for_loop(m.c(0), self.log_steps(), m.c(1), [], "e", step)

    def select(
        self, cond: SSAValue, types: Sequence[Attribute], then: Callable[[], list[SSAValue]], other: Callable[[], list[SSAValue]]
    ) -> list[SSAValue]:
        """An `scf.if` with results, both branches built in place."""
        blocks: list[Block] = []
        for branch in (then, other):
            block = Block()
            with building_at(self.kb.b, InsertPoint.at_end(block)):
                self.kb.b.insert(scf.YieldOp(*branch()))
            blocks.append(block)
        op = scf.IfOp(cond, list(types), Region(blocks[0]), Region(blocks[1]))
        self.kb.b.insert(op)
        return list(op.results)

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


def _neutral(kb: KernelBuilder, lw: HostLowering, neutral: Sequence[SSAValue]) -> list[SSAValue]:
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

    if op.commutative is not None:
        lo, hi, step = code.gid, n, kb.m.insert(GlobalSizeOp(0), "gsize")
    else:
        (lo, hi), step = code.chunk(n, kb.m.c(0), code.num_groups, code.g), kb.m.c(1)
    accs = code.fold(lo, hi, step, _neutral(kb, lw, op.neutral), k, element, write_map_outs)
    _tree_to(code, accs, partial_views, code.g)
    lw.add_kernel(kb, m.mul(groups, m.c(lw.group_size), "global_size"), m.c(lw.group_size))

    results = _reduce_partials(lw, op, partials, groups)
    for result, value in zip(op.outs, [*results, *map_outs]):
        lw.env[result] = value


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
    accs = code.fold(lo, hi, kb.m.c(1), _neutral(kb, lw, op.neutral), len(views), lambda i: [kb.load(v, i) for v in views])
    _tree_to(code, accs, [kb.array(f) for f in finals], kb.m.c(0))
    lw.add_kernel(kb, m.c(lw.group_size), m.c(lw.group_size))
    return [m.insert(ReadOp(f.buffer, m.c(0)), r.name_hint) for f, r in zip(finals, op.outs)]


# ---------------------------------------------------------------------------
# scan / scanomap
# ---------------------------------------------------------------------------


def lower_scan(lw: HostLowering, op: soac.ScanOp | soac.ScanomapOp) -> None:
    if lw.scan_strategy != "reduce-then-scan":  # the hook for a single-pass look-back scan
        raise NotImplementedError(f"scan strategy {lw.scan_strategy}")
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
    accs = code.fold(lo, hi, kb.m.c(1), _neutral(kb, lw, neutral), k, element)
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

    kb.for_loop(kb.m.c(0), kb.scalar(groups), kb.m.c(1), _neutral(kb, lw, neutral), "g", carry)
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
    prefix = code.select(
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


def _lower_segmented(lw: HostLowering, op: soac.SegredOp | soac.SegscanOp, scan: bool) -> None:
    dims, combined, map_outs = _seg_outputs(lw, op, scan)
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
        neutral = _neutral(kb, lw, op.neutral)

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
            prefix = code.select(
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
        neutral = _neutral(kb, lw, op.neutral)

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
