"""A uniform view of map, reduce, scan, redomap and scanomap for the fusion rules.

Futhark fuses one construct, `Screma`: a pre-lambda (the map function) that
yields the values to combine and then map-out values, an optional operator
(reduce or scan) with neutral elements, and for scans an optional post lambda.
Every combining SOAC of our dialect is an instance:

| op | kind | pre-lambda | combined results | map-outs |
|---|---|---|---|---|
| `soac.map` | map | its lambda | none | all results |
| `soac.reduce` | red | identity | all results | none |
| `soac.redomap` | red | its lambda | first k | the rest |
| `soac.scan` | scan | identity | all results | none |
| `soac.scanomap` | scan | its lambda | post (or scan) results | the rest |

The fusion builders (`screma_merge`) assemble a fused op from pieces of such
views by moving their lambdas' ops into fresh blocks (`move_lambda`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from soac.dialect import MapOp, RedomapOp, ReduceOp, ScanomapOp, ScanOp, YieldOp
from soac.types import array_of, row_type
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue

Kind = Literal["map", "red", "scan"]

SCREMA_OPS = (MapOp, ReduceOp, ScanOp, RedomapOp, ScanomapOp)


@dataclass
class Screma:
    """One combining SOAC seen as a Futhark `Screma`."""

    op: Operation
    kind: Kind
    width: SSAValue
    inputs: list[SSAValue]
    neutral: list[SSAValue]
    pre: Block | None
    """The map function; None for the identity (reduce, scan)."""
    combine: Block | None
    post: Block | None
    commutative: bool
    combined: list[OpResult]
    """Reduced scalars, or scanned (post) arrays."""
    mapouts: list[OpResult]
    """Arrays of per-element values of the pre-lambda."""

    @property
    def input_rows(self) -> list[Attribute]:
        return [_row(v) for v in self.inputs]


def _row(value: SSAValue) -> Attribute:
    row = row_type(value.type)
    assert row is not None
    return row


def _block(region: Region) -> Block | None:
    return region.block if region.blocks else None


def as_screma(op: Operation) -> Screma | None:
    """The Screma view of `op`, or None if `op` is not a map/reduce/scan/redomap/scanomap."""
    if isinstance(op, MapOp):
        return Screma(op, "map", op.width, list(op.inputs), [], op.body.block, None, None, False, [], list(op.outs))
    if not isinstance(op, ReduceOp | ScanOp | RedomapOp | ScanomapOp):
        return None
    kind: Kind = "red" if isinstance(op, ReduceOp | RedomapOp) else "scan"
    commutative = isinstance(op, ReduceOp | RedomapOp) and op.commutative is not None
    pre = op.body.block if isinstance(op, RedomapOp | ScanomapOp) else None
    post = _block(op.post) if isinstance(op, ScanomapOp) else None
    n_combined = len(op.neutral)
    if post is not None:
        yield_op = post.last_op
        assert isinstance(yield_op, YieldOp)
        n_combined = len(yield_op.arguments)
    outs = list(op.outs)
    return Screma(
        op,
        kind,
        op.width,
        list(op.inputs),
        list(op.neutral),
        pre,
        op.combine.block,
        post,
        commutative,
        outs[:n_combined],
        outs[n_combined:],
    )


def move_lambda(source: Block, target: Block, args: Sequence[SSAValue]) -> list[SSAValue]:
    """Move the ops of `source` (a lambda) to the end of `target`, its parameters bound to `args`.

    Returns the values the lambda yields, as seen in `target`. The op owning
    `source` is about to be erased (fusion replaces it), so the ops are moved
    rather than copied: fusing into a large op costs no copy of its lambda.
    """
    for arg, value in zip(source.args, args, strict=True):
        if value.name_hint is None and arg.name_hint is not None:
            value.name_hint = arg.name_hint
        arg.replace_all_uses_with(value)
    yield_op = source.last_op
    assert isinstance(yield_op, YieldOp)
    for op in list(source.ops):
        if op is yield_op:
            break
        op.detach()
        target.add_op(op)
    return list(yield_op.arguments)


def apply_pre(screma: Screma, target: Block, rows: Sequence[SSAValue]) -> tuple[list[SSAValue], list[SSAValue]]:
    """Clone the pre-lambda into `target`; return (values to combine, map-out values)."""
    if screma.pre is None:
        return list(rows), []
    yielded = move_lambda(screma.pre, target, rows)
    k = len(screma.neutral)
    return yielded[:k], yielded[k:]


def new_block(types: Sequence[Attribute], hints: Sequence[str | None] = ()) -> Block:
    block = Block(arg_types=types)
    for arg, hint in zip(block.args, hints):
        arg.name_hint = hint
    return block


@dataclass
class InputList:
    """The de-duplicated inputs of a fused op and the pre-lambda parameter of each."""

    values: list[SSAValue] = field(default_factory=list[SSAValue])
    hints: list[str | None] = field(default_factory=list[str | None])

    def add(self, value: SSAValue, hint: str | None) -> None:
        if value not in self.values:
            self.values.append(value)
            self.hints.append(hint)

    def index(self, value: SSAValue) -> int:
        return self.values.index(value)

    def rows(self) -> list[Attribute]:
        return [_row(v) for v in self.values]


def param_hints(block: Block | None, count: int) -> list[str | None]:
    if block is None:
        return [None] * count
    return [arg.name_hint for arg in block.args]


def combine_operators(parts: Sequence[Screma]) -> Region:
    """The tupled operator `(a_1.., a_2.., b_1.., b_2..) -> (op_1(a_1, b_1).., op_2(a_2, b_2)..)`."""
    with_ops = [p for p in parts if p.combine is not None]
    types = [v.type for p in with_ops for v in p.neutral]
    block = new_block(types + types)
    half = len(types)
    lefts, rights = block.args[:half], block.args[half:]
    yielded: list[SSAValue] = []
    offset = 0
    for part in with_ops:
        assert part.combine is not None
        k = len(part.neutral)
        args = [*lefts[offset : offset + k], *rights[offset : offset + k]]
        yielded += move_lambda(part.combine, block, args)
        offset += k
    block.add_op(YieldOp(*yielded))
    return Region(block)


def build_screma(
    kind: Kind,
    width: SSAValue,
    neutral: Sequence[SSAValue],
    inputs: Sequence[SSAValue],
    pre: Block,
    combine: Region | None,
    post: Block | None,
    commutative: bool,
) -> Operation:
    """Create the op of `kind` from finished regions (the pre-lambda ends in its yield)."""
    yield_op = pre.last_op
    assert isinstance(yield_op, YieldOp)
    yielded = [v.type for v in yield_op.arguments]
    k = len(neutral)
    if kind == "map":
        return MapOp(width, inputs, [array_of(t) for t in yielded], Region(pre))
    assert combine is not None
    if kind == "red":
        result_types = [*yielded[:k], *(array_of(t) for t in yielded[k:])]
        return RedomapOp(width, neutral, inputs, result_types, combine, Region(pre), commutative)
    scanned = yielded[:k]
    if post is not None:
        post_yield = post.last_op
        assert isinstance(post_yield, YieldOp)
        scanned = [v.type for v in post_yield.arguments]
    result_types = [array_of(t) for t in (*scanned, *yielded[k:])]
    return ScanomapOp(width, neutral, inputs, result_types, combine, Region(pre), Region(post) if post else None)
