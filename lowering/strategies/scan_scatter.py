"""A scan whose results only a scatter reads: the scan kernel scatters, and its results are never stored.

    %pos = soac.scanomap %n (%ks) ... post(...) { ...; soac.yield %place : i32 }
    %out = soac.scatter %n (%pos, %ks) into(%dest) lambda(%q: i32, %k: i32) { ...; soac.yield %i, %k : index, i32 }

lowers to one scan (`lookback_bodies`) whose store step runs the scatter's lambda on each element's post results and
rows and writes into the scatter's destination (a copy, or the destination itself when a replicate made it for the
scatter alone; see `maps.scatter_destinations`), so `%pos` is neither written nor read back (a radix sort's pass:
examples/radix_sort.mlir). It applies when the scatter takes every result of the scan (and nothing else reads them),
has the scan's width and is in the scan's block, and its other inputs and its destinations are there before the scan
(defined earlier in the block or outside it); the scan has no map-outs.
"""

from __future__ import annotations

from soac import dialect as soac
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
