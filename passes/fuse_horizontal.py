"""Horizontal fusion of two independent SOACs of one block (rule F2, thesis §6.4).

Two SOACs fuse horizontally when they have the same width (the same SSA value),
share at least one input array, and neither depends on the other, directly or
through other ops (Futhark: not reachable from each other in the graph). Pairs:
map+map, map+redomap, redomap+redomap (tupled operator), scanomap+scanomap
(tupled operator, both post lambdas side by side), map+scanomap,
reduce+reduce, scatter+scatter, hist+hist of one bin per row into destinations
of one length (`hist_merge`), and scan(omap)+reduce/redomap: a scanomap with
a reduction part, Futhark's Screma with scans and reductions (FU-23).

    %a = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) { ... yield %y }
    %b = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) { ... yield %z }
becomes
    %a, %b = soac.map %n (%xs : tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) lambda(%x: f32) {
      ... soac.yield %y, %z : f32, f32
    }

and

    %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(...) { ... }
    %t = soac.reduce %n (%xs : tensor<?xi32>) neutral(%one : i32) -> i32 combine(...) { ... }
becomes
    %s, %t = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) reduce(%one : i32)
        -> (tensor<?xi32>, i32) combine(...) { ... } reduce_combine(...) { ... }
        lambda(%x: i32) { soac.yield %x, %x : i32, i32 }
"""

from __future__ import annotations

from soac.dialect import HistOp, PartitionOp, ScatterOp, StencilOp
from soac.passes.fuse_vertical import input_operands
from soac.passes.fusion_graph import BlockGraph
from soac.passes.hist_merge import merge_hists, same_bin, same_length
from soac.passes.hist_rows import has_row_bins
from soac.passes.screma import SCREMA_OPS, as_screma
from soac.passes.screma_merge import Fused, merge_scatters, merge_scremas
from xdsl.ir import Operation, SSAValue


def inputs_of(op: Operation) -> list[SSAValue]:
    start, end = input_operands(op)
    return list(op.operands[start:end])


def is_fusible(op: Operation) -> bool:
    return isinstance(op, (ScatterOp, HistOp, PartitionOp, StencilOp, *SCREMA_OPS))


def build_horizontal(first: Operation, second: Operation) -> Fused | None:
    if isinstance(first, ScatterOp) and isinstance(second, ScatterOp):
        return merge_scatters(first, second)
    if isinstance(first, HistOp) and isinstance(second, HistOp):
        if has_row_bins(first) or has_row_bins(second):  # soac-hist-rows lowers one element-wise map of rows, alone
            return None
        return merge_hists(first, second) if same_bin(first, second) and same_length(first, second) else None
    a, b = as_screma(first), as_screma(second)
    if a is None or b is None:
        return None
    return merge_scremas(a, b, set(), set(a.mapouts))


def independent(graph: BlockGraph, first: Operation, second: Operation) -> bool:
    """Neither reads what the other consumes, and `second` does not use `first`'s results."""
    free_first, free_second = graph.free(first), graph.free(second)
    if set(graph.consumed(first)) & free_second or set(graph.consumed(second)) & free_first:
        return False
    return not (set(first.results) & free_second)


def try_fuse_horizontal(graph: BlockGraph, first: Operation, second: Operation) -> Operation | None:
    """Fuse two SOACs of `graph.block` (`first` before `second`); return the fused op or None."""
    if first.operands[0] != second.operands[0] or not set(inputs_of(first)) & set(inputs_of(second)):
        return None
    if not independent(graph, first, second):
        return None
    if graph.can_sink(first, second):
        anchor = second
    elif graph.can_hoist(second, first):
        anchor = first
    else:
        return None
    if (fused := build_horizontal(first, second)) is None:
        return None
    return graph.replace_pair(fused, anchor, second, first)
