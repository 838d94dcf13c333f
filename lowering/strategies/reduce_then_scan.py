"""scan / scanomap as reduce-then-scan in three kernels.

It works on any OpenCL device, PoCL included, because no work-group waits for another:

1. `scan_reduce`: as stage one of a reduction over contiguous chunks (`reduce.py`), also
   keeping each work-item's aggregate;
2. `scan_carries`: one work-item scans the group aggregates into exclusive group prefixes;
3. `scan_final`: each group scans its work-items' aggregates in local memory
   (Hillis-Steele), and each work-item re-scans its chunk from its prefix,
   applying the map lambda, the post lambda, and writing map-outs.

    kernel.launch @main_scan_reduce_0(...) global %global_size local %group_size     // thread_aggs, group_aggs
    kernel.launch @main_scan_carries_0(...) global %c1 local %c1                    // group_prefix
    kernel.launch @main_scan_final_0(...) global %global_size local %group_size      // the scanned arrays, map-outs
"""

from __future__ import annotations

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import KernelBuilder, KValue
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.strategies.generated_inputs import InputRows
from soac.lowering.strategies.group_code import ElementFn, GroupCode, alloc_like, neutral_values, tree_to, write_values
from soac.lowering.strategies.outputs import ScanOutputs
from xdsl.ir import SSAValue


def reduce_then_scan(lw: HostLowering, op: soac.ScanOp | soac.ScanomapOp, out: ScanOutputs) -> None:
    """A scan or scanomap whose outputs `out` are allocated."""
    k = len(op.neutral)
    lam = op.body if isinstance(op, soac.ScanomapOp) else None
    post = op.post if isinstance(op, soac.ScanomapOp) and op.post.blocks else None
    width = out.width
    m = lw.m
    groups = m.max(m.min(m.ceildiv(width, m.c(lw.group_size)), m.c(lw.max_groups)), m.c(1), "num_groups")
    global_size = m.mul(groups, m.c(lw.group_size), "global_size")
    neutral = list(op.neutral)
    thread_aggs = alloc_like(lw, neutral, global_size, "thread_aggs")
    group_aggs = alloc_like(lw, neutral, groups, "group_aggs")
    group_prefix = alloc_like(lw, neutral, groups, "group_prefix")

    def element_fn(kb: KernelBuilder, inliner: Inliner) -> tuple[ElementFn, InputRows]:
        inputs = InputRows(lw, kb, op.inputs)  # iotas and replicates computed, not read (`generated_inputs.py`)

        def element(i: SSAValue) -> list[KValue]:
            rows = inputs.at(i)
            return inliner.inline(lam, rows) if lam is not None else rows

        return element, inputs

    # Phase 1: per-work-item and per-group aggregates.
    kb = lw.kernel("scan_reduce")
    inliner = Inliner(kb)
    code = GroupCode(lw, kb, inliner, op.combine, [v.type for v in neutral])
    element, _ = element_fn(kb, inliner)
    lo, hi = code.chunk(kb.scalar(width), kb.m.c(0), code.num_groups, code.g)
    accs = code.fold(lo, hi, kb.m.c(1), neutral_values(kb, lw, neutral), k, element)
    for value, agg in zip(accs, thread_aggs):
        kb.store(value, kb.array(agg), code.gid)
    tree_to(code, accs, [kb.array(a) for a in group_aggs], code.g)
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
    element, inputs = element_fn(kb, inliner)
    out_views = [kb.array(a, r.name_hint) for a, r in zip(out.outs, out.scanned)]
    map_views = [kb.array(a, r.name_hint) for a, r in zip(out.map_outs, out.map_results)]
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
            finals = inliner.inline(post, [*acc, *inputs.at(i)])
        write_values(kb, finals, out_views, i)
        write_values(kb, values[k:], map_views, i)

    code.fold(lo, hi, kb.m.c(1), prefix, k, element, write)
    lw.add_kernel(kb, global_size, m.c(lw.group_size))
