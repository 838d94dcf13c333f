"""A uniform view of map, reduce, scan, redomap and scanomap for the fusion rules.

Futhark fuses one construct, `Screma`: a pre-lambda (the map function) that
yields the values to scan, then the values to reduce, then map-out values; a
scan part (operator, neutral elements, and here an optional post lambda) and
a reduction part (operator, neutral elements). Every combining SOAC of our
dialect is an instance:

| op | kind | pre-lambda | scan part | reduction part | map-outs |
|---|---|---|---|---|---|
| `soac.map` | map | its lambda | - | - | all results |
| `soac.reduce` | red | identity | - | all results | none |
| `soac.redomap` | red | its lambda | - | first k | the rest |
| `soac.scan` | scan | identity | all results | - | none |
| `soac.scanomap` | scan | its lambda | post (or scan) results | - | the rest |
| `soac.scanomap ... reduce(...)` | scanred | its lambda | post (or scan) results | the next k | the rest |

A scanomap's pre-lambda may also forward values to its post lambda: its last
yields, after the map-outs, which the post lambda takes after the input rows.

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

Kind = Literal["map", "red", "scan", "scanred"]

SCREMA_OPS = (MapOp, ReduceOp, ScanOp, RedomapOp, ScanomapOp)


@dataclass
class Screma:
    """One combining SOAC seen as a Futhark `Screma`."""

    op: Operation
    width: SSAValue
    inputs: list[SSAValue]
    pre: Block | None
    """The map function; None for the identity (reduce, scan)."""
    scan_neutral: list[SSAValue]
    scan_combine: Block | None
    post: Block | None
    scanned: list[OpResult]
    """The scanned (or post) arrays."""
    red_neutral: list[SSAValue]
    red_combine: Block | None
    commutative: bool
    """The reduction part is marked commutative."""
    reduced: list[OpResult]
    """The reduced scalars."""
    mapouts: list[OpResult]
    """Arrays of per-element values of the pre-lambda."""
    forwarded: int = 0
    """The number of values the pre-lambda forwards to the post lambda (its last yields)."""

    @property
    def kind(self) -> Kind:
        if self.scan_combine is not None:
            return "scanred" if self.red_combine is not None else "scan"
        return "red" if self.red_combine is not None else "map"

    @property
    def neutral(self) -> list[SSAValue]:
        """All neutral elements, in the order the pre-lambda yields the combined values: scans, then reductions."""
        return [*self.scan_neutral, *self.red_neutral]

    @property
    def combined(self) -> list[OpResult]:
        """The scanned arrays, then the reduced scalars (the results before the map-outs)."""
        return [*self.scanned, *self.reduced]

    @property
    def input_rows(self) -> list[Attribute]:
        return [_row(v) for v in self.inputs]


def _row(value: SSAValue) -> Attribute:
    row = row_type(value.type)
    assert row is not None
    return row


def _block(region: Region | None) -> Block | None:
    return region.block if region is not None and region.blocks else None


def as_screma(op: Operation) -> Screma | None:
    """The Screma view of `op`, or None if `op` is not a map/reduce/scan/redomap/scanomap."""
    if isinstance(op, MapOp):
        return Screma(op, op.width, list(op.inputs), op.body.block, [], None, None, [], [], None, False, [], list(op.outs))
    if not isinstance(op, ReduceOp | ScanOp | RedomapOp | ScanomapOp):
        return None
    pre = op.body.block if isinstance(op, RedomapOp | ScanomapOp) else None
    outs = list(op.outs)
    if isinstance(op, ReduceOp | RedomapOp):
        k = len(op.neutral)
        return Screma(
            op, op.width, list(op.inputs), pre, [], None, None, [], list(op.neutral), op.combine.block,
            op.commutative is not None, outs[:k], outs[k:],
        )  # fmt: skip
    post = _block(op.post) if isinstance(op, ScanomapOp) else None
    n_scanned = op.num_scanned if isinstance(op, ScanomapOp) else len(op.neutral)
    red_neutral = list(op.reduce_neutral) if isinstance(op, ScanomapOp) else []
    red_combine = _block(op.reduce_combine) if isinstance(op, ScanomapOp) else None
    commutative = isinstance(op, ScanomapOp) and op.reduce_commutative is not None
    n_combined = n_scanned + len(red_neutral)
    return Screma(
        op, op.width, list(op.inputs), pre, list(op.neutral), op.combine.block, post, outs[:n_scanned],
        red_neutral, red_combine, commutative, outs[n_scanned:n_combined], outs[n_combined:],
        op.num_forwarded if isinstance(op, ScanomapOp) else 0,
    )  # fmt: skip


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


@dataclass
class PreValues:
    """What a pre-lambda yields, as seen in the block it was moved into."""

    scan: list[SSAValue]
    red: list[SSAValue]
    mapouts: list[SSAValue]
    forwarded: list[SSAValue] = field(default_factory=list[SSAValue])
    """The values forwarded to the post lambda."""


def apply_pre(screma: Screma, target: Block, rows: Sequence[SSAValue]) -> PreValues:
    """Move the pre-lambda into `target` (the identity for reduce and scan): values to scan, to reduce, map-outs,
    values forwarded to the post lambda."""
    ks, kr = len(screma.scan_neutral), len(screma.red_neutral)
    if screma.pre is None:
        return PreValues(list(rows[:ks]), list(rows[ks : ks + kr]), [])
    yielded = move_lambda(screma.pre, target, rows)
    end = len(yielded) - screma.forwarded
    return PreValues(yielded[:ks], yielded[ks : ks + kr], yielded[ks + kr : end], yielded[end:])


def forwarded_types(screma: Screma) -> list[Attribute]:
    """The types of the values `screma`'s pre-lambda forwards to its post lambda (its post's last parameters)."""
    if screma.post is None or not screma.forwarded:
        return []
    return [arg.type for arg in screma.post.args[len(screma.post.args) - screma.forwarded :]]


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


def combine_operators(parts: Sequence[tuple[Block | None, Sequence[SSAValue]]]) -> Region:
    """The tupled operator `(a_1.., a_2.., b_1.., b_2..) -> (op_1(a_1, b_1).., op_2(a_2, b_2)..)`.

    `parts` are `(operator block, neutral elements)`; those without an operator are left out.
    """
    with_ops = [(combine, neutral) for combine, neutral in parts if combine is not None]
    types = [v.type for _, neutral in with_ops for v in neutral]
    block = new_block(types + types)
    half = len(types)
    lefts, rights = block.args[:half], block.args[half:]
    yielded: list[SSAValue] = []
    offset = 0
    for combine, neutral in with_ops:
        k = len(neutral)
        args = [*lefts[offset : offset + k], *rights[offset : offset + k]]
        yielded += move_lambda(combine, block, args)
        offset += k
    block.add_op(YieldOp(*yielded))
    return Region(block)


def scan_operator(parts: Sequence[Screma]) -> Region | None:
    """The tupled scan operator of `parts`, or None if none scans."""
    scans = [(p.scan_combine, p.scan_neutral) for p in parts if p.scan_combine is not None]
    return combine_operators(scans) if scans else None


def reduce_operator(parts: Sequence[Screma]) -> Region | None:
    """The tupled reduce operator of `parts`, or None if none reduces."""
    reds = [(p.red_combine, p.red_neutral) for p in parts if p.red_combine is not None]
    return combine_operators(reds) if reds else None


@dataclass
class Combining:
    """One part of a fused Screma: neutral elements and a finished operator region."""

    neutral: Sequence[SSAValue]
    operator: Region


def build_screma(
    width: SSAValue,
    inputs: Sequence[SSAValue],
    pre: Block,
    scan: Combining | None,
    post: Block | None,
    red: Combining | None,
    commutative: bool,
) -> Operation:
    """Create the op for the finished regions (the pre-lambda ends in its yield).

    No scan and no reduction: a map; only a reduction: a redomap; a scan: a
    scanomap, with a reduction part if there is a reduction.
    """
    yield_op = pre.last_op
    assert isinstance(yield_op, YieldOp)
    yielded = [v.type for v in yield_op.arguments]
    ks = len(scan.neutral) if scan is not None else 0
    kr = len(red.neutral) if red is not None else 0
    forwarded = len(post.args) - ks - len(inputs) if post is not None else 0
    mapouts = [array_of(t) for t in yielded[ks + kr : len(yielded) - forwarded]]
    if scan is None and red is None:
        return MapOp(width, inputs, mapouts, Region(pre))
    if scan is None:
        assert red is not None
        return RedomapOp(width, red.neutral, inputs, [*yielded[:kr], *mapouts], red.operator, Region(pre), commutative)
    scanned = yielded[:ks]
    if post is not None:
        post_yield = post.last_op
        assert isinstance(post_yield, YieldOp)
        scanned = [v.type for v in post_yield.arguments]
    result_types = [*(array_of(t) for t in scanned), *yielded[ks : ks + kr], *mapouts]
    return ScanomapOp(
        width,
        scan.neutral,
        inputs,
        result_types,
        scan.operator,
        Region(pre),
        Region(post) if post else None,
        reduce_neutral=red.neutral if red is not None else (),
        reduce_combine=red.operator if red is not None else None,
        reduce_commutative=red is not None and commutative,
    )
