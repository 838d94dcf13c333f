"""What `soac-flatten` needs to know about ops: which are SOACs, which are cheap, which can move out of a nest.

* A *SOAC* is map, reduce, scan, redomap, scanomap, scatter or hist; the combining
  ones (reduce, scan, redomap, scanomap) become `soac.segred`/`soac.segscan`, a
  hist becomes a `soac.seghist`.
* A *cheap* op is scalar code (arith, math, an element or row read) that the
  flattener recomputes in every kernel that needs it, rather than storing its
  results in arrays over the nest ("skipping scalar computation", seed 004 (d)).
* A *hoistable* op cannot fail and has no side effect, so when its operands do
  not depend on the nest it is computed once, before the nest (constants,
  `iota`, `replicate`, `transpose`, `reverse`, non-trapping arithmetic).
"""

from __future__ import annotations

from collections.abc import Iterable

from soac.dialect import (
    HistOp,
    IndexOp,
    MapOp,
    PartitionOp,
    RedomapOp,
    ReduceOp,
    ScanomapOp,
    ScanOp,
    ScatterOp,
    SeghistOp,
    SegmapOp,
    SegredOp,
    SegscanOp,
    SliceOp,
)
from soac.passes.fusion_graph import consumed_values
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

SOACS = (MapOp, ReduceOp, ScanOp, RedomapOp, ScanomapOp, ScatterOp, HistOp, PartitionOp)
COMBINING = (ReduceOp, ScanOp, RedomapOp, ScanomapOp)
SEGOPS = (SegmapOp, SegredOp, SegscanOp, SeghistOp)

_TRAPPING = frozenset({"divsi", "divui", "remsi", "remui", "ceildivsi", "ceildivui", "floordivsi"})
_SAFE = frozenset(
    {"arith.constant", "soac.iota", "soac.replicate", "soac.transpose", "soac.reverse", "soac.rotate", "tensor.dim"}
)
_CHEAP = frozenset({"soac.index", "soac.slice", "tensor.dim", "tensor.extract"})


def contains_soac(op: Operation) -> bool:
    """True if `op` is or contains a SOAC (parallelism that flattening could exploit)."""
    return any(isinstance(inner, SOACS) for inner in op.walk())


def in_lambda(op: Operation) -> bool:
    """True if `op` lies inside the lambda of a SOAC or of a segmented op (where code runs sequentially)."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, SOACS + SEGOPS):
            return True
        parent = parent.parent_op()
    return False


def is_hoistable(op: Operation) -> bool:
    """An op without regions that can neither fail nor write: safe to compute once, before a nest."""
    if op.regions:
        return False
    if op.name in _SAFE or op.name.startswith("math."):
        return True
    dialect, _, name = op.name.partition(".")
    return dialect == "arith" and name not in _TRAPPING


def is_consumed(value: SSAValue) -> bool:
    """True if an op updates the array `value` in place (a destination of hist or scatter, an updated array...)."""
    return any(value in consumed_values(use.operation) for use in value.uses)


def is_cheap(op: Operation) -> bool:
    """Scalar code (or a row read) that each kernel recomputes instead of reading it from an array."""
    if op.regions or not (op.name in _CHEAP or op.name.startswith(("arith.", "math."))):
        return False
    return isinstance(op, IndexOp | SliceOp) or not any(isinstance(t, TensorType) for t in op.result_types)


def defined_in(value: SSAValue, op: Operation) -> bool:
    """True if `value` is defined inside `op` (a result of a nested op, or an argument of a nested block)."""
    owner = value.owner
    if isinstance(owner, Block):
        return op.is_ancestor(owner)
    return owner is not op and op.is_ancestor(owner)


def free_values(op: Operation) -> list[SSAValue]:
    """The values that `op` and the ops nested in it use but do not define, in order of first use."""
    seen: dict[SSAValue, None] = {}
    for inner in op.walk():
        for operand in inner.operands:
            if operand not in seen and not defined_in(operand, op) and operand.owner is not op:
                seen[operand] = None
    return list(seen)


def region_free_values(region: Region) -> list[SSAValue]:
    """The values that the ops of `region` use but that are defined outside it."""
    seen: dict[SSAValue, None] = {}
    for inner in region.walk():
        for operand in inner.operands:
            owner = operand.owner
            if operand not in seen and not region.is_ancestor(owner):
                seen[operand] = None
    return list(seen)


def body_op(op: Operation, block: Block) -> Operation | None:
    """The op of `block` that is or contains `op`, if any."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def used_after(values: Iterable[SSAValue], group: Iterable[Operation], block: Block) -> list[SSAValue]:
    """Those `values` that some op of `block` outside `group` uses (directly or in its regions)."""
    members = set(group)
    needed: list[SSAValue] = []
    for value in values:
        users = (body_op(use.operation, block) for use in value.uses)
        if any(user is not None and user not in members for user in users):
            needed.append(value)
    return needed
