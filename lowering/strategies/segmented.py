"""segred / segscan with one work-item per segment, and segscan with a work-group per segment.

Kernel `segred_thread` or `segscan_thread`: work-item `s` folds segment `s` sequentially
(grid-stride over the segments), applying the lambda to every index of the segment and writing
map-outs (and, for a segscan, every prefix) as it goes; `choice.py` launches it for tiny segments
(or many, on CPUs), giving it no work-items otherwise:

    %global_size = arith.select %tiny, %grid, %c0 : index
    kernel.launch @main_segred_thread_0(...) global %global_size local %group_size

Kernel `segscan_group` (where the look-back segmented scan of `lookback_bodies.py` does not
apply): the work-groups take the segments in turn; in each, every work-item folds a contiguous
chunk of the segment, the group scans the chunk totals in local memory (Hillis-Steele), and every
work-item re-scans its chunk from its prefix, writing the results and map-outs. The other segred
kernels are in `segred_teams.py` and `segred_vector.py`.
"""

from __future__ import annotations

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import KValue
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.kernel import GlobalSizeOp
from soac.lowering.strategies.group_code import EachFn, ElementFn, GroupCode, neutral_values, write_values
from soac.lowering.strategies.outputs import SegOutputs
from xdsl.dialects import arith
from xdsl.ir import SSAValue


class _SegmentKernel:
    """A kernel over the segments of a segred or segscan, and the element and write code of segment `s`."""

    def __init__(self, lw: HostLowering, op: soac.SegredOp | soac.SegscanOp, seg: SegOutputs, kind: str):
        self.op = op
        self.scan = isinstance(op, soac.SegscanOp)
        self.k = len(op.neutral)
        self.segments = lw.m.product(seg.dims[:-1], "segments")
        self.kb = kb = lw.kernel(("segscan" if self.scan else "segred") + "_" + kind)
        self.inliner = Inliner(kb)
        kdims = [kb.scalar(d) for d in seg.dims]
        self.outer, self.inner = kdims[:-1], kdims[-1]
        self.combined_views = [kb.array(c) for c in seg.combined]
        self.map_views = [kb.array(a, r.name_hint) for a, r in zip(seg.map_outs, list(op.outs)[self.k :])]
        self.names = [a.name_hint for a in op.body.block.args]

    def element_for(self, s: SSAValue) -> ElementFn:
        """The lambda at index `j` of segment `s`."""
        prefix = self.kb.m.unflatten(s, self.outer, self.names[:-1]) if self.outer else []
        return lambda j: self.inliner.inline(self.op.body, [*prefix, j])

    def each_for(self, s: SSAValue) -> EachFn:
        """Writes the map-outs (and, for a segscan, the prefix) of index `j` of segment `s`."""
        kb = self.kb

        def each(j: SSAValue, values: list[KValue], acc: list[SSAValue]) -> None:
            flat = kb.m.add(kb.m.mul(s, self.inner), j, "flat")
            write_values(kb, values[self.k :], self.map_views, flat)
            if self.scan:
                write_values(kb, acc, self.combined_views, flat)

        return each


def per_thread(lw: HostLowering, op: soac.SegredOp | soac.SegscanOp, seg: SegOutputs, chosen: SSAValue | None = None) -> None:
    """One work-item per segment, folding it sequentially; launched only where the host value `chosen` is true."""
    sk = _SegmentKernel(lw, op, seg, "thread")
    kb, m, k = sk.kb, lw.m, sk.k
    gid = kb.global_id()
    kb.thread_id = gid
    gsize = kb.m.insert(GlobalSizeOp(0), "gsize")
    neutral = neutral_values(kb, lw, op.neutral)

    def segment(s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        element, each = sk.element_for(s), sk.each_for(s)

        def step(j: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
            values = element(j)
            new = sk.inliner.inline_scalars(op.combine, [*accs, *values[:k]])  # pyright: ignore[reportArgumentType]
            each(j, values, new)
            return new

        accs = kb.for_loop(kb.m.c(0), sk.inner, kb.m.c(1), neutral, "j", step)
        if not sk.scan:
            for value, view in zip(accs, sk.combined_views):
                kb.store(value, view, s)
        return []

    kb.for_loop(gid, kb.scalar(sk.segments), gsize, [], "s", segment)
    global_size, local_size = lw.grid(m.max(sk.segments, m.c(1)))
    if chosen is not None:
        global_size = m.insert(arith.SelectOp(chosen, global_size, m.c(0)), "global_size")
    lw.add_kernel(kb, global_size, local_size)


def segscan_per_group(lw: HostLowering, op: soac.SegscanOp, seg: SegOutputs, skip: SSAValue | None = None) -> None:
    """A work-group per segment: chunks folded, their totals scanned in local memory, the chunks re-scanned; no
    work-items where the host value `skip` is true."""
    sk = _SegmentKernel(lw, op, seg, "group")
    kb, m, k = sk.kb, lw.m, sk.k
    code = GroupCode(lw, kb, sk.inliner, op.combine, [v.type for v in op.neutral])
    neutral = neutral_values(kb, lw, op.neutral)

    def segment(s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        code.barrier()
        lo, hi = code.chunk(sk.inner, kb.m.c(0), kb.m.c(1), kb.m.c(0))
        accs = code.fold(lo, hi, kb.m.c(1), neutral, k, sk.element_for(s))
        code.store_locals(accs, code.t)
        code.barrier()
        code.inclusive_scan_locals()
        first = kb.m.eq(code.t, kb.m.c(0), "first")
        prefix = code.kb.if_values(
            first, [v.type for v in op.neutral], lambda: neutral, lambda: code.load_locals(kb.m.sub(code.t, kb.m.c(1)))
        )
        code.fold(lo, hi, kb.m.c(1), prefix, k, sk.element_for(s), sk.each_for(s))
        return []

    kb.for_loop(code.g, kb.scalar(sk.segments), code.num_groups, [], "s", segment)
    groups = m.max(m.min(sk.segments, m.c(lw.max_groups)), m.c(1), "num_groups")
    global_size = m.mul(groups, m.c(lw.group_size), "global_size")
    if skip is not None:
        global_size = m.insert(arith.SelectOp(skip, m.c(0), global_size), "global_size")
    lw.add_kernel(kb, global_size, m.c(lw.group_size))
