"""`soac-fuse`: Futhark-style fusion of SOACs, bottom-up over every block.

For each block, innermost first (lambdas, loop and branch bodies before the
block that holds them), vertical and horizontal fusion run to a fixpoint:

* vertical: every SOAC, taken as consumer from the bottom of the block up,
  absorbs the SOACs that produce its input arrays (`fuse_vertical`);
* horizontal: SOACs of the same width that share an input and do not depend
  on each other become one (`fuse_horizontal`).

Only ops of the same block fuse, so no computation ever moves into a loop or a
lambda, where it would be repeated; no producer is ever duplicated (results
still needed elsewhere become map-out arrays). Options:
`soac-fuse{vertical=false}`, `soac-fuse{horizontal=false}`.

    %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) { ... yield %y }
    %s = soac.reduce %n (%ys : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) { ... }
becomes
    %s = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) { ... }
        lambda(%x: f32) { ... yield %y }
"""

from __future__ import annotations

from dataclasses import dataclass

from soac.passes.fuse_across import ARRAY_OPS, pull_out_of_nest, push_into_nest
from soac.passes.fuse_horizontal import inputs_of, is_fusible, try_fuse_horizontal
from soac.passes.fuse_vertical import try_fuse_vertical
from soac.passes.fusion_graph import BlockGraph
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import region_dce


@dataclass
class BlockFuser:
    """Runs the fusion rules on one block until nothing changes."""

    vertical: bool
    horizontal: bool

    def fuse_regions(self, op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                self.fuse_block(block)

    def fuse_block(self, block: Block) -> None:
        for op in list(block.ops):
            self.fuse_regions(op)
        for op in list(block.ops):
            if isinstance(op, ARRAY_OPS) and push_into_nest(op) is None:
                pull_out_of_nest(op)
        created: list[Operation] = []
        graph = BlockGraph(block)
        changed = True
        while changed:
            changed = False
            if self.vertical:
                changed |= self.vertical_sweep(graph, created)
            if self.horizontal:
                changed |= self.horizontal_sweep(graph, created)
        for op in created:
            if op.parent_block() is block:
                for region in op.regions:
                    region_dce(region)
                self.fuse_regions(op)

    def vertical_sweep(self, graph: BlockGraph, created: list[Operation]) -> bool:
        changed = False
        for consumer in reversed(list(graph.block.ops)):
            if consumer.parent_block() is not graph.block or not is_fusible(consumer):
                continue
            while (fused := self.fuse_some_producer(graph, consumer)) is not None:
                created.append(fused)
                consumer = fused
                changed = True
        return changed

    def fuse_some_producer(self, graph: BlockGraph, consumer: Operation) -> Operation | None:
        producers = {v.owner for v in inputs_of(consumer)}
        for producer in sorted(producers, key=lambda p: -graph.pos.get(p, -1.0)):  # pyright: ignore
            if isinstance(producer, Operation) and producer.parent_block() is graph.block:
                if (fused := try_fuse_vertical(graph, producer, consumer)) is not None:
                    return fused
        return None

    def horizontal_sweep(self, graph: BlockGraph, created: list[Operation]) -> bool:
        changed = False
        for op in list(graph.block.ops):
            if op.parent_block() is not graph.block or not is_fusible(op):
                continue
            while (fused := self.fuse_some_partner(graph, op)) is not None:
                created.append(fused)
                op = fused
                changed = True
        return changed

    def fuse_some_partner(self, graph: BlockGraph, op: Operation) -> Operation | None:
        partners = {
            use.operation
            for value in inputs_of(op)
            for use in value.uses
            if use.operation is not op and use.operation.parent_block() is graph.block and is_fusible(use.operation)
        }
        for other in sorted(partners, key=lambda p: graph.pos[p]):
            first, second = (op, other) if graph.pos[op] < graph.pos[other] else (other, op)
            if (fused := try_fuse_horizontal(graph, first, second)) is not None:
                return fused
        return None


@dataclass(frozen=True)
class SoacFusePass(ModulePass):
    """Fuse SOACs vertically (producer->consumer) and horizontally (shared inputs)."""

    name = "soac-fuse"

    vertical: bool = True
    """Fuse producers into consumers."""
    horizontal: bool = True
    """Fuse independent SOACs of the same width that share an input."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        BlockFuser(self.vertical, self.horizontal).fuse_regions(op)
