"""Which versions of a map nest are worth making: Futhark's `worthSequentialising` and `worthIntrablock`.

Read from Futhark's `src/Futhark/Pass/Flatten/Incremental.hs`. Both score the
body of a map's lambda; a version is made when its score exceeds 1.

* *Sequentialising* (the outer-parallel version: one thread per element of
  the nest, the body sequential): an inner map counts what its own body counts;
  a reduce, scan, redomap or scanomap counts 1 plus its lambda's score, and 1
  more for a reduce or redomap directly in the body (often tileable); a loop
  counts 10 times its body, a branch twice its larger branch. Scatters,
  histograms and scalar code count 0. So a map of one reduction (`map (\\row ->
  reduce (+) 0 row)`, score 2) gets an outer-parallel version, and a map of a
  map of one (score 1) gets none: the inner map gets its own versions. A
  partition (not Futhark's, whose `partition` is a scan and a scatter) counts
  2 plus its lambda's score, as a reduction directly in the body does: a map
  of partitions gets an outer-parallel version (each row partitioned by one
  thread, a counting sort) beside the segmented partitions of
  `flatten_partition`, which cost a pass per 8-bit digit of the row id.
* *Intra-group* (one work-group per element, the body's SOACs shared out over
  the group): every inner SOAC of a width that is no constant below 32 counts
  1 (a map the larger of that and its body's score) plus its lambda's score; a
  loop counts 10 times its body, a branch its larger branch. So a map of one
  reduction (score 1) gets no intra-group version, as in Futhark, and softmax's
  row (a max, an exp map, a sum, a division map: score 4) gets one.

    map (\\row -> let m = reduce max row in map (\\x -> x - m) row)   -- seq 3, intra 2: both versions
    map (\\row -> reduce (+) 0 row)                                  -- seq 2, intra 1: outer-parallel only
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from soac.dialect import MapOp, PartitionOp, RedomapOp, ReduceOp, ScanomapOp, ScanOp
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, Operation, Region, SSAValue

MIN_INNER_PAR = 32
"""Futhark's `intraMinInnerPar`: an inner SOAC of a constant width below this does not fill a work-group."""
FILLS_ANY_DEVICE = 2**21
"""Outer parallelism (a constant) that fills any device (2M work-items: more than 132 SMs x 2048 of an H200, or
304 CUs x 2560 of an MI300X); the intra-group version, which gives each element of it a work-group, is not made."""

_LOOPS = (scf.ForOp, scf.WhileOp)
_COMBINING = (ReduceOp, ScanOp, RedomapOp, ScanomapOp)


def constant_width(width: SSAValue) -> int | None:
    """The value of a width that is an `arith.constant`, else None."""
    owner = width.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(value := owner.value, IntegerAttr):
        return value.value.data
    return None


def fills_group(width: SSAValue) -> bool:
    """False only for a constant width below `MIN_INNER_PAR` (Futhark's `zeroIfTooSmall`)."""
    value = constant_width(width)
    return value is None or value >= MIN_INNER_PAR


def _lambda(op: Operation) -> Block | None:
    """The block of the per-row lambda of a SOAC (None for reduce and scan, which have none)."""
    body = getattr(op, "body", None)
    return body.block if isinstance(body, Region) else None


def _regions_max(op: Operation, score: Callable[[Block], int]) -> int:
    return max((score(block) for region in op.regions for block in region.blocks), default=0)


def sequential_score(block: Block, depth: int = 0) -> int:
    """Futhark's `worthSequentialising` score of a lambda body at nesting `depth`."""
    total = 0
    for op in block.ops:
        if isinstance(op, MapOp):
            total += sequential_score(op.body.block, depth + 1)
        elif isinstance(op, _COMBINING):
            inner = _lambda(op)
            tileable = isinstance(op, ReduceOp | RedomapOp) and depth == 0
            total += 1 + (sequential_score(inner, depth + 1) if inner else 0) + int(tileable)
        elif isinstance(op, PartitionOp):
            total += 2 + sequential_score(op.body.block, depth + 1)
        elif isinstance(op, _LOOPS):
            total += 10 * sum(sequential_score(b, depth + 1) for r in op.regions for b in r.blocks)
        elif isinstance(op, scf.IfOp):
            total += 2 * _regions_max(op, lambda b: sequential_score(b, depth + 1))
    return total


def intra_score(block: Block) -> int:
    """Futhark's `worthIntrablock` score of a lambda body."""
    total = 0
    for op in block.ops:
        if isinstance(op, MapOp):
            total += max(int(fills_group(op.width)), intra_score(op.body.block))
        elif isinstance(op, _COMBINING):
            inner = _lambda(op)
            total += int(fills_group(op.width)) + (intra_score(inner) if inner else 0)
        elif isinstance(op, _LOOPS):
            total += 10 * sum(intra_score(b) for r in op.regions for b in r.blocks)
        elif isinstance(op, scf.IfOp):
            total += _regions_max(op, intra_score)
    return total


def worth_sequentialising(block: Block) -> bool:
    """An outer-parallel version of the map whose lambda body is `block` is worth making."""
    return sequential_score(block) > 1


def worth_intra_group(block: Block) -> bool:
    """An intra-group version of the map whose lambda body is `block` is worth making."""
    return intra_score(block) > 1


def intra_may_fill(outer: Sequence[SSAValue], inner: Sequence[SSAValue]) -> bool:
    """False where constants show that an intra-group version cannot pay: an inner width (the work-group's
    parallelism) is below `MIN_INNER_PAR`, or the outer widths' product reaches `FILLS_ANY_DEVICE`."""
    if not all(fills_group(width) for width in inner):
        return False
    sizes = [constant_width(width) for width in outer]
    return any(size is None for size in sizes) or math.prod(sizes) < FILLS_ANY_DEVICE  # pyright: ignore[reportArgumentType]
