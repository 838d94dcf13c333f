"""A scan whose results only a scatter reads: the scan kernel scatters, and its results are never stored.

    %pos = soac.scanomap %n (%ks) ... post(...) { ...; soac.yield %place : i32 }
    %out = soac.scatter %n (%pos, %ks) into(%dest) lambda(%q: i32, %k: i32) { ...; soac.yield %i, %k : index, i32 }

lowers to one scan (`lookback_bodies`, or `chunked_scan` on CPUs) whose store step runs the scatter's lambda on each
element's post results and rows and writes into the scatter's destination (a copy, or the destination itself when a
replicate made it for the scatter alone; see `maps.scatter_destinations`), so `%pos` is neither written nor read
back (a radix sort's pass: examples/radix_sort.mlir); reduce-then-scan keeps the two apart. It applies when the
scatter takes every result of the scan (and nothing else reads them), has the scan's width and is in the scan's
block, and its other inputs and its destinations are there before the scan (defined earlier in the block or outside
it); the scan has no map-outs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, KValue, View
from soac.lowering.conversion.sequential import Inliner, _to_index, scatter_in_bounds
from soac.lowering.strategies.generated_inputs import InputRows
from xdsl.ir import Operation, SSAValue


def scatter_of(op: soac.ScanOp | soac.ScanomapOp) -> soac.ScatterOp | None:
    """The scatter that `op`'s kernel can do, if there is one."""
    if isinstance(op, soac.ScanomapOp) and len(op.body.block.last_op.operands) != len(op.neutral):  # pyright: ignore[reportOptionalMemberAccess]
        return None  # map-outs
    if not op.outs or not all(r.has_one_use() for r in op.outs):
        return None
    users = {r.get_user_of_unique_use() for r in op.outs}
    if len(users) != 1:
        return None
    scatter = users.pop()
    if not isinstance(scatter, soac.ScatterOp) or scatter.parent is not op.parent or scatter.width is not op.width:
        return None
    for value in (*(x for x in scatter.inputs if x not in op.outs), *scatter.dests):
        maker = value.owner
        if isinstance(maker, Operation) and maker.parent is op.parent and not maker.is_before_in_block(op):
            return None
    return scatter


def other_inputs(op: soac.ScanOp | soac.ScanomapOp, scatter: soac.ScatterOp) -> list[SSAValue]:
    """The scatter's inputs that are not results of the scan."""
    return [x for x in scatter.inputs if x not in op.outs]


@dataclass
class ScatterSink:
    """A scatter that takes a scan's results (`scatter_of`) and the buffers it writes."""

    op: soac.ScatterOp
    dests: list[HostArray]


Redirect = dict[int, Callable[[SSAValue, KValue], None]]
"""Writes of some destinations done otherwise: `redirect[d](index, value)` instead of destination d's store."""


def scatter_row(
    kb: KernelBuilder,
    inliner: Inliner,
    op: soac.ScatterOp,
    rows: Sequence[KValue],
    dests: Sequence[View],
    redirect: Redirect | None = None,
) -> None:
    """Run `op`'s lambda on one row's values and write them where it says, dropping indices out of bounds."""
    values = inliner.inline(op.body, list(rows))
    k = len(dests)
    for d, (dest, index, value) in enumerate(zip(dests, values[:k], values[k:])):
        assert isinstance(index, SSAValue)
        j = _to_index(kb.b, index)
        write = (redirect or {}).get(d, lambda j, v, dest=dest: kb.write_row(v, dest, j))
        kb.if_then(scatter_in_bounds(kb, j, dest.dims[0]), lambda j=j, v=value, write=write: write(j, v))


def sink_writer(
    lw: HostLowering, kb: KernelBuilder, inliner: Inliner, scan: soac.ScanOp | soac.ScanomapOp, sink: ScatterSink
) -> Callable[[SSAValue, Sequence[KValue], Redirect | None], None]:
    """`write(index, results, redirect)`: scatter element `index` of the scan, whose (post) results are `results`."""
    dests = sink_views(kb, sink)
    outs = list(scan.outs)
    others = other_inputs(scan, sink.op)
    inputs = InputRows(lw, kb, others)  # iotas and replicates computed, not read (`generated_inputs.py`)

    def write(index: SSAValue, results: Sequence[KValue], redirect: Redirect | None = None) -> None:
        rows = [results[outs.index(x)] if x in outs else inputs.row(others.index(x), index) for x in sink.op.inputs]
        scatter_row(kb, inliner, sink.op, rows, dests, redirect)

    return write


def sink_views(kb: KernelBuilder, sink: ScatterSink) -> list[View]:
    """The kernel's views of the scatter's destinations."""
    return [kb.array(d, r.name_hint) for d, r in zip(sink.dests, sink.op.dests)]
