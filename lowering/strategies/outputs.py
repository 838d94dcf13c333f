"""The arrays a reduction, scan or segmented op writes, allocated before `choice.py` picks its strategy.

Every strategy of an op writes the same arrays, so they are made once, up front:

    reduce / redomap     the map-outs (the reduced values come from the strategy, read by the host);
    scan / scanomap      the scanned (post-lambda) arrays and the map-outs, bound to the op's results at once (the
                         reduced values of a reduction part come from the look-back kernel, read by the host);
    segred / segscan     one array of segment results per combined value (one element per segment for
                         segred, one per element for segscan) and the map-outs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, HValue, tensor_element
from soac.lowering.kernel import ReadOp
from xdsl.ir import SSAValue


def bind(lw: HostLowering, results: Sequence[SSAValue], values: Sequence[HValue]) -> None:
    for result, value in zip(results, values):
        lw.env[result] = value


def reduce_outputs(lw: HostLowering, op: soac.ReduceOp | soac.RedomapOp) -> tuple[SSAValue, list[HostArray]]:
    """The width (its inputs checked against it) and the allocated map-outs of a reduce or redomap."""
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    k = len(op.neutral)
    lam = op.body if isinstance(op, soac.RedomapOp) else None
    map_results = list(op.outs)[k:]
    map_outs = [
        lw.alloc(tensor_element(r.type), [width, *dims], r.name_hint)
        for r, dims in zip(map_results, lw.row_dims(op, lam, map_results, k) if lam else [])
    ]
    return width, map_outs


@dataclass
class ScanOutputs:
    """The width of a scan or scanomap, its scanned results and their arrays, its map-out results and arrays, and
    the results of its reduction part (bound by the strategy)."""

    width: SSAValue
    outs: list[HostArray]
    scanned: list[SSAValue]
    map_outs: list[HostArray]
    map_results: list[SSAValue]
    reduced: list[SSAValue] = field(default_factory=list)


def scan_outputs(lw: HostLowering, op: soac.ScanOp | soac.ScanomapOp) -> ScanOutputs:
    """Check the inputs, allocate the scanned arrays and the map-outs, and bind them to the op's results (not those of
    a reduction part: scalars its strategy computes)."""
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    k = len(op.neutral)
    lam = op.body if isinstance(op, soac.ScanomapOp) else None
    post = op.post if isinstance(op, soac.ScanomapOp) and op.post.blocks else None
    kr = len(op.reduce_neutral) if isinstance(op, soac.ScanomapOp) else 0
    n_map_outs = len(lam.block.last_op.operands) - k - kr if lam is not None else 0  # pyright: ignore[reportOptionalMemberAccess]
    n_scanned = len(op.outs) - n_map_outs - kr
    scanned = list(op.outs)[:n_scanned]
    reduced = list(op.outs)[n_scanned : n_scanned + kr]
    map_results = list(op.outs)[n_scanned + kr :]
    scanned_dims = lw.row_dims(op, post, scanned) if post is not None else [[] for _ in scanned]
    map_dims = lw.row_dims(op, lam, map_results, k + kr) if lam is not None else []
    outs = [lw.alloc(tensor_element(r.type), [width, *d], r.name_hint) for r, d in zip(scanned, scanned_dims)]
    map_outs = [lw.alloc(tensor_element(r.type), [width, *d], r.name_hint) for r, d in zip(map_results, map_dims)]
    bind(lw, [*scanned, *map_results], [*outs, *map_outs])
    return ScanOutputs(width, outs, scanned, map_outs, map_results, reduced)


@dataclass
class SegOutputs:
    """The dims of a segred or segscan, its segment results (one array per combined value) and its map-outs."""

    dims: list[SSAValue]
    combined: list[HostArray]
    map_outs: list[HostArray]


def seg_outputs(lw: HostLowering, op: soac.SegredOp | soac.SegscanOp) -> SegOutputs:
    dims = [lw.scalar(d) for d in op.dims]
    k = len(op.neutral)
    combined_dims = dims if isinstance(op, soac.SegscanOp) else dims[:-1]
    combined = [
        lw.alloc(v.type, combined_dims or [lw.m.c(1)], (r.name_hint or "acc") + ("" if combined_dims else "_result"))
        for v, r in zip(op.neutral, op.outs)
    ]
    map_results = list(op.outs)[k:]
    map_outs = [
        lw.alloc(tensor_element(r.type), [*dims, *d], r.name_hint)
        for r, d in zip(map_results, lw.row_dims(op, op.body, map_results, k))
    ]
    return SegOutputs(dims, combined, map_outs)


def bind_seg_results(lw: HostLowering, op: soac.SegredOp | soac.SegscanOp, seg: SegOutputs) -> None:
    """Bind the op's results; a segred over one dimension gives scalars, which the host reads."""
    m = lw.m
    scalar = isinstance(op, soac.SegredOp) and len(seg.dims) == 1
    values: list[HValue] = [
        m.insert(ReadOp(c.buffer, m.c(0)), r.name_hint) if scalar else c for c, r in zip(seg.combined, op.outs)
    ]
    bind(lw, op.outs, [*values, *seg.map_outs])
