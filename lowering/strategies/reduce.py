"""reduce / redomap as a two-stage tree reduction.

Stage one, kernel `reduce`, launches `g = min(ceil(n / group), max-groups)` work-groups;
each work-item folds its elements sequentially (strided when the operator is `commutative` or provably commutes,
a contiguous chunk otherwise, so the order of operands is kept), applying the map lambda on
the fly and writing map-outs; then the group combines its work-items' values in local memory
with an order-preserving tree and writes one partial per group. Stage two, kernel
`reduce_partials`, is one work-group reducing the partials the same way. The host reads the
result:

    %partials = kernel.alloc %num_groups : !kernel.buffer<global, i32>
    kernel.launch @main_reduce_0(%n, %xs, %partials, %num_groups : ...) global %global_size local %group_size
    %result = kernel.alloc %c1 : !kernel.buffer<global, i32>
    kernel.launch @main_reduce_partials_0(%num_groups, %partials, %result : ...) global %group_size local %group_size
    %s = kernel.read %result[%c0] : !kernel.buffer<global, i32> -> i32

A commutative reduction without map-outs over whole 1-D arrays of 32-bit values folds 16-byte
vectors in stage one instead, `VECTOR_STREAMS` independent loads in flight per work-item.
"""

from __future__ import annotations

from collections.abc import Callable

from soac import dialect as soac
from soac.lowering.conversion import device_intrinsics as ix
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KValue, View
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.kernel import GlobalSizeOp, ReadOp
from soac.lowering.strategies.group_code import (
    GroupCode,
    alloc_like,
    commutes,
    neutral_values,
    tree_to,
    vectorizable,
    write_values,
)
from xdsl.ir import SSAValue

VECTOR_STREAMS = 4
"""Independent 16-byte loads in flight per work-item and iteration in a vectorised commutative reduction."""


def two_stage_reduce(
    lw: HostLowering, op: soac.ReduceOp | soac.RedomapOp, width: SSAValue, map_outs: list[HostArray]
) -> list[SSAValue]:
    """A reduce or redomap whose map-outs are allocated; gives the reduced values (read by the host)."""
    k = len(op.neutral)
    lam = op.body if isinstance(op, soac.RedomapOp) else None
    map_results = list(op.outs)[k:]
    m = lw.m
    groups = m.max(m.min(m.ceildiv(width, m.c(lw.group_size)), m.c(lw.max_groups)), m.c(1), "num_groups")
    partials = alloc_like(lw, list(op.neutral), groups, "partials")

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
        write_values(kb, values[k:], map_views, i)

    commutative = op.commutative is not None or commutes(op.combine)
    if commutative and not map_views and views and all(vectorizable(v) for v in views):
        accs = _fold_vectors(
            code, n, views, neutral_values(kb, lw, op.neutral), lambda rows: inliner.inline(lam, rows) if lam else rows, k
        )
    else:
        if commutative:
            lo, hi, step = code.gid, n, kb.m.insert(GlobalSizeOp(0), "gsize")
        else:
            (lo, hi), step = code.chunk(n, kb.m.c(0), code.num_groups, code.g), kb.m.c(1)
        accs = code.fold(lo, hi, step, neutral_values(kb, lw, op.neutral), k, element, write_map_outs)
    tree_to(code, accs, partial_views, code.g)
    lw.add_kernel(kb, m.mul(groups, m.c(lw.group_size), "global_size"), m.c(lw.group_size))

    return _reduce_partials(lw, op, partials, groups)


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


def _reduce_partials(
    lw: HostLowering, op: soac.ReduceOp | soac.RedomapOp, partials: list[HostArray], groups: SSAValue
) -> list[SSAValue]:
    """Stage two: one work-group reduces the per-group partials; the host reads the result."""
    m = lw.m
    finals = alloc_like(lw, list(op.neutral), m.c(1), "result")
    kb = lw.kernel("reduce_partials")
    inliner = Inliner(kb)
    code = GroupCode(lw, kb, inliner, op.combine, [v.type for v in op.neutral])
    count = kb.scalar(groups)
    views = [kb.array(p) for p in partials]
    lo, hi = code.chunk(count, kb.m.c(0), kb.m.c(1), kb.m.c(0))
    accs = code.fold(lo, hi, kb.m.c(1), neutral_values(kb, lw, op.neutral), len(views), lambda i: [kb.load(v, i) for v in views])
    tree_to(code, accs, [kb.array(f) for f in finals], kb.m.c(0))
    lw.add_kernel(kb, m.c(lw.group_size), m.c(lw.group_size))
    return [m.insert(ReadOp(f.buffer, m.c(0)), r.name_hint) for f, r in zip(finals, op.outs)]
