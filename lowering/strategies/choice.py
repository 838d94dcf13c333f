"""Where the lowering strategy of every op is chosen; the strategy modules only implement.

`strategies()` is the table op type -> lowering function that soac-to-kernel looks ops up in.
Reductions, scans and segmented ops have several strategies; their `lower_*` functions below
allocate the op's outputs (`outputs.py`), pick one strategy, and bind the results:

    reduce / redomap   chunked_scan.py (scan strategy `chunked`) | reduce.py
    scan / scanomap    lookback_bodies.py (`lookback`, 32-bit values) | chunked_scan.py (`chunked`) | reduce_then_scan.py;
                       the first two also do a scatter that takes every result (scan_scatter.py); a scanomap with a
                       reduction part gets the look-back kernel with the reduction in it (lookback_reduce.py) where
                       `fuses_scan_reduce` says so, else soac-to-kernel splits it first (passes/split_scan_reduce.py)
    segred             chosen by the host from the segment length n: segmented.py (a work-item per segment: n <= SEG_TINY,
                       or on CPUs as many segments as groups) | segred_teams.py (teams sized by n, long segments over
                       several groups and a second stage) | segred_vector.py (rows of 32-bit values read
                       contiguously along j, e.g. matvec's a[i, j] * v[j])
    segscan            lookback_bodies.py (`lookback`, 32-bit values, one op with its identity as neutral element: one
                       flat scan, any n) | else chosen by the host: segmented.py, a work-item per segment (2n < group
                       size, or many segments on CPUs) or a group per segment

Segred and segscan at function level are run by the whole device (level `thread`; nested in a group-level segmap's
lambda they are the group's, `intragroup.py`); soac-to-kernel's `segred`/`segscan` options force one strategy.
    partition          partition.py: tiles ranked with local counters, the tiles' class counts scanned by `scan`
    hist               histogram.py: local subhistograms | global copies | passes | the bins (see there)
    seghist            seghist.py: an atomic per point (operators with atomics) | a work-item per segment

The scan strategy `lw.scan_strategy` (`SCAN_STRATEGIES` in conversion/options.py) is the pass's `scan` option or
its target's default (`kernel/target.py`); whether kernels may use warp shuffles and ballots (`lw.warps`) is
the target's too. Group-level segmaps choose in `intragroup.lower_segmap`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import get_args

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import LoweringError, describe
from soac.lowering.conversion.options import option_fields
from soac.lowering.strategies import (
    chunked_scan,
    histogram,
    intragroup,
    lookback_bodies,
    lookback_reduce,
    lookback_scan,
    maps,
    outputs,
    partition,
    reduce,
    reduce_then_scan,
    scan_scatter,
    seghist,
    segmented,
    segred_teams,
    segred_vector,
    stencil,
    tiled,
)
from soac.lowering.strategies.outputs import SegOutputs
from soac.passes.split_scan_reduce import in_soac_lambda
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Attribute, Operation, SSAValue

SEGRED_STRATEGIES: tuple[str, ...] = get_args(option_fields()["segred"])
SEGSCAN_STRATEGIES: tuple[str, ...] = get_args(option_fields()["segscan"])
SEG_TINY = 4
"""Segments of at most this many elements get a work-item each (a team of `seg-min-team` would mostly idle)."""


def strategies() -> dict[type[Operation], Callable[[HostLowering, Operation], None]]:
    """The lowering function of every op type that soac-to-kernel turns into kernels."""
    return {
        soac.MapOp: maps.lower_map,
        soac.ScatterOp: maps.lower_scatter,
        soac.HistOp: histogram.lower_hist,
        soac.PartitionOp: lambda lw, op: partition.lower_partition(lw, op, lower_scan),
        soac.SeghistOp: seghist.lower_seghist,
        soac.IotaOp: maps.lower_iota,
        soac.ReplicateOp: maps.lower_replicate,
        soac.TransposeOp: maps.lower_transpose,
        soac.ReverseOp: maps.lower_reverse,
        soac.RotateOp: maps.lower_rotate,
        soac.ReshapeOp: maps.lower_reshape,
        soac.SegmapOp: intragroup.lower_segmap,
        soac.SegredOp: lower_segred,
        soac.SegscanOp: lower_segscan,
        soac.TiledRedomapOp: tiled.lower_tiled_redomap,
        soac.StencilOp: stencil.lower_stencil,
        soac.IndexOp: maps.lower_index,
        soac.SliceOp: maps.lower_slice,
        soac.UpdateOp: maps.lower_update,
        tensor.EmptyOp: maps.lower_empty,
        tensor.ExtractOp: maps.lower_extract,
        tensor.InsertOp: maps.lower_insert,
        soac.ReduceOp: lower_reduce,
        soac.RedomapOp: lower_reduce,
        soac.ScanOp: lower_scan,
        soac.ScanomapOp: lower_scan,
    }  # pyright: ignore[reportReturnType]


def _lookback(lw: HostLowering, types: Sequence[Attribute]) -> bool:
    """The device has forward progress (scan strategy `lookback`) and every value fits a tile's packed status word."""
    return lw.scan_strategy == "lookback" and lookback_scan.supports(types)


def fuses_scan_reduce(op: soac.ScanomapOp, scan_strategy: str) -> bool:
    """Whether the look-back kernel scans and reduces `op` (a scanomap with a reduction part) in one pass: a top-level
    op (ops in lambdas run sequentially) under the `lookback` strategy whose scanned values fit status words and whose
    reduced values are scalars a partial can hold."""
    return (
        scan_strategy == "lookback"
        and not in_soac_lambda(op)
        and lookback_scan.supports([v.type for v in op.neutral])
        and lookback_reduce.supports([v.type for v in op.reduce_neutral])
    )


def require_scalar_operator(
    op: soac.ReduceOp | soac.RedomapOp | soac.ScanOp | soac.ScanomapOp | soac.SegredOp | soac.SegscanOp,
) -> None:
    """Kernels combine scalars: an operator on arrays outside a lambda is an error that says what does run."""
    arrays = [v.type for v in op.neutral if isinstance(v.type, TensorType)]
    if not arrays:
        return
    raise LoweringError(
        f"{describe(op)}: its operator combines arrays ({', '.join(map(str, arrays))}), which no kernel does outside "
        "a lambda; an element-wise operator (one soac.map of a scalar operator over the two rows) becomes a "
        "reduction or scan per column where the map's width is the inputs' row length (their tensor.dim 1; "
        "soac-to-kernel does so, and soac-flatten with mode=full in map nests); else write it as a map over the columns"
    )


def lower_reduce(lw: HostLowering, op: soac.ReduceOp | soac.RedomapOp) -> None:
    require_scalar_operator(op)
    width, map_outs = outputs.reduce_outputs(lw, op)
    if lw.scan_strategy == "chunked":
        # CPUs: one sequential loop per contiguous chunk, no local memory, no barriers.
        results = chunked_scan.lower_reduce(lw, op, map_outs)
    else:
        # GPUs: work-items fold, a tree in local memory combines each group, a second kernel the groups.
        results = reduce.two_stage_reduce(lw, op, width, map_outs)
    outputs.bind(lw, op.outs, [*results, *map_outs])


def lower_scan(lw: HostLowering, op: soac.ScanOp | soac.ScanomapOp) -> None:
    require_scalar_operator(op)
    lookback = _lookback(lw, [v.type for v in op.neutral])
    if isinstance(op, soac.ScanomapOp) and op.has_reduction:
        # soac-to-kernel left it whole (`fuses_scan_reduce`): the reduced values are carried in the tiles' partials.
        assert lookback
        assert fuses_scan_reduce(op, lw.scan_strategy)
        lookback_bodies.lookback_scan_1d(lw, op, outputs.scan_outputs(lw, op), warps=lw.warps)
        return
    if (lookback or lw.scan_strategy == "chunked") and (scatter := scan_scatter.scatter_of(op)) is not None:
        # The scatter that takes every result runs in the scan's last kernel: the results are never stored.
        width = lw.scalar(op.width)
        lw.check_rows(op, width, op.inputs)
        lw.check_rows(scatter, width, scatter.inputs, skipped=op.outs)
        sink = scan_scatter.ScatterSink(scatter, maps.scatter_destinations(lw, scatter))
        lw.lowered_with.add(scatter)
        if lookback:
            lookback_bodies.lookback_scan_1d(lw, op, outputs.ScanOutputs(width, [], list(op.outs), [], []), lw.warps, sink)
        else:
            chunked_scan.lower_scan(lw, op, [], list(op.outs), [], [], sink)
        return
    out = outputs.scan_outputs(lw, op)
    if lookback:
        # One pass over the input: each tile waits for the prefix of the tiles before it.
        lookback_bodies.lookback_scan_1d(lw, op, out, warps=lw.warps)
    elif lw.scan_strategy == "chunked":
        # CPUs: one sequential loop per contiguous chunk, no local memory, no barriers.
        chunked_scan.lower_scan(lw, op, out.outs, out.scanned, out.map_outs, out.map_results)
    else:
        # Any device (no work-group waits for another): three kernels, the input read twice.
        reduce_then_scan.reduce_then_scan(lw, op, out)


def lower_segred(lw: HostLowering, op: soac.SegredOp) -> None:
    require_scalar_operator(op)
    seg = outputs.seg_outputs(lw, op)
    if lw.segred == "thread":
        segmented.per_thread(lw, op, seg)
    elif lw.segred == "teams":
        segred_teams.segred_teams(lw, op, seg, vector_rows=False)
    else:
        # The host launches one of: a work-item per segment (tiny segments), the vector kernel (plain rows of 32-bit
        # values whose length suits it), teams sized by the length (long segments over several groups).
        tiny = _per_thread_segments(lw, seg, lw.m.cmp(seg.dims[-1], lw.m.c(SEG_TINY), "ule", "tiny"))
        vector_rows = segred_vector.applies(lw, op, seg.dims)
        if vector_rows:  # no kernel checks the reads `v[j]` of 1-D arrays: the host checks `v`'s length once
            segred_vector.check_reads(lw, op, seg.dims)
        segred_teams.segred_teams(lw, op, seg, vector_rows, skip=tiny)
        segmented.per_thread(lw, op, seg, chosen=tiny)
    outputs.bind_seg_results(lw, op, seg)


def lower_segscan(lw: HostLowering, op: soac.SegscanOp) -> None:
    require_scalar_operator(op)
    seg = outputs.seg_outputs(lw, op)
    lookback = _lookback(lw, [i1, *(v.type for v in op.neutral)])
    if lw.segscan == "lookback" and not lookback:
        raise LoweringError(
            f"{describe(op)}: segscan=lookback needs the `lookback` scan strategy and values that fit a status word "
            f"(scan strategy '{lw.scan_strategy}', values {', '.join(str(v.type) for v in op.neutral)})"
        )
    if lw.segscan == "thread":
        segmented.per_thread(lw, op, seg)
    elif lw.segscan == "group":
        segmented.segscan_per_group(lw, op, seg)
    elif lw.segscan == "lookback" or (lookback and lw.segscan == "auto" and _has_true_neutral(op)):
        # One flat look-back scan over all elements, the segment-start flag (i1) lifted into the operator. It starts
        # each segment with its first element where the interpreter (and the other strategies) combine the neutral
        # element on the left: the same only for a neutral element that is one, so `auto` takes it for those.
        lookback_bodies.lookback_segscan(lw, op, seg, warps=lw.warps)
    else:
        # The host launches a work-item per segment for short ones, else a work-group per segment.
        m = lw.m
        short = _per_thread_segments(lw, seg, m.lt(m.mul(seg.dims[-1], m.c(2)), m.c(lw.group_size), "short"))
        segmented.segscan_per_group(lw, op, seg, skip=short)
        segmented.per_thread(lw, op, seg, chosen=short)
    outputs.bind_seg_results(lw, op, seg)


_IDENTITIES: dict[type[Operation], Callable[[float], bool]] = {
    arith.AddiOp: lambda v: v == 0,
    arith.AddfOp: lambda v: v == 0,
    arith.OrIOp: lambda v: v == 0,
    arith.XOrIOp: lambda v: v == 0,
    arith.MuliOp: lambda v: v == 1,
    arith.MulfOp: lambda v: v == 1,
    arith.MaximumfOp: lambda v: v == float("-inf"),
    arith.MinimumfOp: lambda v: v == float("inf"),
}


def _has_true_neutral(op: soac.SegscanOp) -> bool:
    """Whether the operator is one `arith` op of a known identity and the neutral element is that identity (then
    where a segment's scan starts does not change its results)."""
    block = op.combine.block
    first, terminator = block.first_op, block.last_op
    if len(op.neutral) != 1 or first is None or terminator is None or first.next_op is not terminator:
        return False
    if list(terminator.operands) != list(first.results) or set(first.operands) != set(block.args):
        return False
    is_identity = _IDENTITIES.get(type(first))
    constant = op.neutral[0].owner
    if is_identity is None or not isinstance(constant, arith.ConstantOp):
        return False
    value = getattr(constant.value, "value", None)
    data = getattr(value, "data", None)
    return isinstance(data, int | float) and is_identity(data)


def _per_thread_segments(lw: HostLowering, seg: SegOutputs, short: SSAValue) -> SSAValue:
    """Host value: whether a work-item per segment runs the op, for `short` segments; on CPUs (the `chunked` scan
    strategy) also wherever the segments alone give every group of the grid work."""
    m = lw.m
    if lw.scan_strategy != "chunked":
        return short
    many = m.cmp(m.product(seg.dims[:-1]), m.c(lw.max_groups), "uge", "many_segments")
    return m.insert(arith.OrIOp(short, many), "per_thread")
