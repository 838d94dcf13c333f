"""Vertical (producer->consumer) fusion of two SOACs of one block.

Rules (Futhark's Screma∘Screma, futhark-notes §1.4-1.5):

* a producer's per-element values (all results of a map, the map-outs of a
  redomap or scanomap) fuse into any consumer of the same width: map->map,
  map->reduce (redomap), map->scan (scanomap), map->redomap, map->scanomap,
  redomap->reduce of its map-outs, map->scatter, map->hist (into the histogram's lambda);
* a cheap map into a stencil, and a stencil into a map (`fuse_stencil.py`);
* a scan or scanomap (with or without a reduction part) fuses into a consumer
  *map* of its scanned arrays through the post lambda (scanomap->map); the
  map may read the producer's map-outs too, which the pre-lambda forwards to
  the post lambda (`map f -> scan -> map2 g` is one scanomap);
* a scan part and a reduction part join in one scanomap with a reduction part
  (e.g. a scanomap whose map-outs feed a reduce);
* the consumer must use the producer's results only as input arrays: a whole
  array used inside its lambda, or a reduce/scan result it needs whole, stops
  fusion;
* results of the producer still used elsewhere stay results of the fused op
  (map-out arrays, thesis §6.3); a scatter or hist has no map-outs, so a map
  whose results are also used elsewhere does not fuse into one, nor one that
  reads the destinations it would update;
* the fused op sits where the consumer was, or where the producer was, when
  that keeps all values defined before use and no read moves across an
  in-place update of what it reads (`BlockGraph.can_sink`/`can_hoist`).

    %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) { ... yield %y }
    %zs = soac.map %n (%ys : tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32) { ... yield %z }
    func.return %ys, %zs
becomes
    %zs, %ys = soac.map %n (%xs : tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) lambda(%x: f32) {
      ... soac.yield %z, %y : f32, f32
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from soac.dialect import AssertOp, HistOp, MapOp, PartitionOp, ScatterOp, StencilOp
from soac.passes.fuse_stencil import try_fuse_stencil
from soac.passes.fusion_graph import BlockGraph, free_values
from soac.passes.screma import SCREMA_OPS, Screma, as_screma
from soac.passes.screma_merge import (
    Fused,
    fuse_into_hist,
    fuse_into_partition,
    fuse_into_post,
    fuse_into_scatter,
    merge_scremas,
)
from soac.passes.simplify_sizes import has_size
from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue


def input_operands(op: Operation) -> tuple[int, int]:
    """The operand index range `[start, end)` of `op`'s input arrays."""
    if isinstance(op, ScatterOp | HistOp | MapOp | PartitionOp):
        return 1, 1 + len(op.inputs)
    if isinstance(op, StencilOp):
        return len(op.dims), len(op.dims) + len(op.inputs)
    assert isinstance(op, SCREMA_OPS)
    start = 1 + len(op.neutral)
    return start, start + len(op.inputs)


def consumed_inputs(producer: Operation, consumer: Operation) -> set[SSAValue] | None:
    """The producer's results the consumer takes as inputs; None if it uses one in another way."""
    start, end = input_operands(consumer)
    consumed: set[SSAValue] = set()
    for result in producer.results:
        for use in result.uses:
            if use.operation is consumer and start <= use.index < end:
                consumed.add(result)
            elif consumer.is_ancestor(use.operation):
                return None
    return consumed


def used_elsewhere(values: Sequence[SSAValue], consumer: Operation) -> set[SSAValue]:
    """The values that something other than `consumer` uses."""
    return {v for v in values if any(use.operation is not consumer for use in v.uses)}


def build_vertical(p: Screma, consumer: Operation, consumed: set[SSAValue]) -> Fused | None:
    """The fused op, if some rule applies to this producer/consumer pair."""
    if isinstance(consumer, PartitionOp):
        if p.kind != "map" or used_elsewhere(list(p.op.results), consumer):
            return None
        return fuse_into_partition(p, consumer)
    if isinstance(consumer, ScatterOp | HistOp):
        if p.kind != "map" or used_elsewhere(list(p.op.results), consumer):
            return None
        if set(consumer.dests) & free_values(p.op):
            return None
        return fuse_into_scatter(p, consumer) if isinstance(consumer, ScatterOp) else fuse_into_hist(p, consumer)
    c = as_screma(consumer)
    assert c is not None
    if consumed <= set(p.mapouts):
        return merge_scremas(p, c, consumed, used_elsewhere(p.mapouts, consumer))
    scanned = consumed & set(p.scanned)
    if scanned and consumed <= {*p.scanned, *p.mapouts} and p.scan_combine is not None and isinstance(consumer, MapOp):
        return fuse_into_post(p, c, used_elsewhere(p.scanned, consumer), used_elsewhere(p.mapouts, consumer))
    return None


def check_widths(graph: BlockGraph, producer: Operation, consumer: Operation, anchor: Operation) -> None:
    """Keep the consumer's check of the producer's width, before the fused op, where the two widths are two values.

    The consumer takes a result of the producer as an input array, so its width must equal the producer's
    (`soac.map %m (%ys)` with `%ys` of `soac.map %n` fails unless m == n); soac.lang writes `map2 (+) row (map f p)`
    with the widths `dim row` and `dim p`. The fused op takes the consumer's width, and this check, with the
    consumer's message and location, stands where the consumer checked its input, unless the fused op checks it
    anyway: an input of the producer provably has the producer's width as its rows.

        %ys = soac.map %n (%xs) ...
        %zs = soac.map %m (%row, %ys) ...
    becomes
        %same = arith.cmpi eq, %m, %n : index
        soac.assert %same, "'soac.map': width {0} does not match the outer size {1} of input #1" (%m, %n : index, index)
        %zs = soac.map %m (%row, %xs) ...
    """
    width, produced = consumer.operands[0], producer.operands[0]
    if width == produced:
        return
    start, end = input_operands(producer)
    if any(has_size(producer, x, 0, produced) for x in producer.operands[start:end]):
        return  # the fused op checks that input against the width
    start, end = input_operands(consumer)
    position = next(i - start for i in range(start, end) if consumer.operands[i].owner is producer)
    same = arith.CmpiOp(width, produced, "eq")
    check = AssertOp(
        same, f"'{consumer.name}': width {{0}} does not match the outer size {{1}} of input #{position}", [width, produced]
    )
    check.location = consumer.location
    graph.insert_before([same, check], anchor)


def try_fuse_vertical(graph: BlockGraph, producer: Operation, consumer: Operation) -> Operation | None:
    """Fuse `producer` into `consumer` (both ops of `graph.block`); return the fused op or None."""
    if isinstance(producer, StencilOp) or isinstance(consumer, StencilOp):
        return try_fuse_stencil(graph, producer, consumer)
    if not isinstance(producer, SCREMA_OPS) or not isinstance(consumer, (ScatterOp, HistOp, PartitionOp, *SCREMA_OPS)):
        return None
    consumed = consumed_inputs(producer, consumer)
    if not consumed:
        return None
    if (anchor := graph.vertical_anchor(producer, consumer)) is None:
        return None
    p = as_screma(producer)
    assert p is not None
    if (fused := build_vertical(replace(p, width=consumer.operands[0]), consumer, consumed)) is None:
        return None
    check_widths(graph, producer, consumer, anchor)
    return graph.replace_pair(fused, anchor, consumer, producer)
