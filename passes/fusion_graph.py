"""The dependency information of one block that the fusion rules consult.

Like Futhark's fusion graph (futhark-notes §1.3), but read directly off the IR:
an edge from a consumer to a producer is a use of the producer's result; a use
as a SOAC *input array* is fusible, any other use (indexing, a free variable of
a lambda, a loop operand, a function result) is not. In-place updates
(`soac.update`, the destinations of `soac.scatter`, `soac.hist` and `soac.seghist`, arrays handed to a loop)
consume their array, and no computation that reads an array may move across
the point where it is consumed.

A fused op is placed either where the consumer was (the producer moves down)
or where the producer was (the consumer moves up); `can_sink` and `can_hoist`
say whether that keeps every value defined before its uses and every read
before the consumption of what it reads. Fusion never moves an op into a
nested region, so no work is ever repeated by a loop or a lambda.
"""

from __future__ import annotations

from collections.abc import Iterable

from soac.dialect import HistOp, ScatterOp, SeghistOp, UpdateOp
from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType, UnknownLoc
from xdsl.ir import Block, BlockArgument, Operation, SSAValue


def free_values(op: Operation) -> set[SSAValue]:
    """The values `op` reads that are defined outside it (operands and free variables of its regions)."""
    inner: set[Block] = set(op.walk_blocks())
    free: set[SSAValue] = set(op.operands)
    for nested in op.walk():
        if nested is op:
            continue
        for value in nested.operands:
            if _defining_block(value) not in inner:
                free.add(value)
    return free


def _defining_block(value: SSAValue) -> Block | None:
    if isinstance(value, BlockArgument):
        return value.block
    owner = value.owner
    assert isinstance(owner, Operation)
    return owner.parent_block()


def consumed_values(op: Operation) -> list[SSAValue]:
    """The arrays that `op` consumes (updates in place), directly or in a nested op."""
    consumed: list[SSAValue] = []
    for nested in op.walk():
        if isinstance(nested, UpdateOp):
            consumed.append(nested.array)
        elif isinstance(nested, ScatterOp | HistOp | SeghistOp):
            consumed.extend(nested.dests)
        elif isinstance(nested, scf.ForOp | scf.WhileOp):
            consumed.extend(v for v in nested.operands if _is_array(v))
    return consumed


def _is_array(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType)


class BlockGraph:
    """Positions of the ops of one block, kept valid while fused ops replace old ones."""

    def __init__(self, block: Block):
        self.block = block
        self.pos: dict[Operation, float] = {op: float(i) for i, op in enumerate(block.ops)}
        self._free: dict[Operation, set[SSAValue]] = {}
        self._consumed: dict[Operation, list[SSAValue]] = {}

    def free(self, op: Operation) -> set[SSAValue]:
        """`free_values(op)`, cached: the pass changes no op of the block in place."""
        if (found := self._free.get(op)) is None:
            found = self._free[op] = free_values(op)
        return found

    def consumed(self, op: Operation) -> list[SSAValue]:
        """`consumed_values(op)`, cached."""
        if (found := self._consumed.get(op)) is None:
            found = self._consumed[op] = consumed_values(op)
        return found

    def top(self, op: Operation) -> Operation | None:
        """The op of this block that is or contains `op`; None if `op` is not inside the block."""
        current: Operation | None = op
        while current is not None and current.parent_block() is not self.block:
            current = current.parent_op()
        return current

    def position_of_definition(self, value: SSAValue) -> float:
        """Where `value` is defined: -1 for values from outside the block or its arguments."""
        if isinstance(value, BlockArgument):
            return -1.0
        owner = value.owner
        assert isinstance(owner, Operation)
        top = self.top(owner)
        return -1.0 if top is None else self.pos[top]

    def users(self, value: SSAValue) -> Iterable[tuple[Operation, Operation]]:
        """(top-level op of this block, using op) for every use of `value` inside the block."""
        for use in value.uses:
            if (top := self.top(use.operation)) is not None:
                yield top, use.operation

    def insert_before(self, ops: Iterable[Operation], anchor: Operation) -> None:
        """Insert `ops` (reading nothing the block defines at or after `anchor`) right before `anchor`."""
        for op in ops:
            self.block.insert_op_before(op, anchor)
            self.pos[op] = self.pos[anchor] - 0.5

    def replaced(self, old: Operation, new: Operation) -> None:
        self.pos[new] = self.pos[old]

    def forget_users(self, values: Iterable[SSAValue]) -> None:
        """Drop the cached reads of the ops that use `values`, before their operands change."""
        for value in values:
            for top, _ in self.users(value):
                self._free.pop(top, None)
                self._consumed.pop(top, None)

    def consumed_between(self, values: Iterable[SSAValue], low: float, high: float) -> bool:
        """True if an op strictly between positions `low` and `high` consumes one of `values`."""
        for value in values:
            if not _is_array(value):
                continue
            for top, _ in self.users(value):
                if low < self.pos[top] < high and value in self.consumed(top):
                    return True
        return False

    def used_between(self, values: Iterable[SSAValue], low: float, high: float) -> bool:
        """True if an op strictly between positions `low` and `high` uses one of `values`."""
        return any(low < self.pos[top] < high for value in values for top, _ in self.users(value))

    def defined_before(self, values: Iterable[SSAValue], position: float) -> bool:
        return all(self.position_of_definition(v) < position for v in values)

    def can_sink(self, producer: Operation, consumer: Operation) -> bool:
        """Can `producer`'s computation move down to `consumer`'s place?

        No op in between may use its results (they would be used before they
        exist) or consume an array it reads (it would read the updated array).
        """
        low, high = self.pos[producer], self.pos[consumer]
        if self.used_between(producer.results, low, high):
            return False
        return not self.consumed_between(self.free(producer), low, high)

    def can_hoist(self, consumer: Operation, producer: Operation, exempt: Iterable[SSAValue] = ()) -> bool:
        """Can `consumer`'s computation move up to `producer`'s place?

        Everything it reads (except `exempt`, the producer's results) must be
        defined before the producer, and no op in between may read an array
        that it consumes.
        """
        low, high = self.pos[producer], self.pos[consumer]
        skip = set(exempt)
        if not self.defined_before((v for v in self.free(consumer) if v not in skip), low):
            return False
        return not self.used_between(self.consumed(consumer), low, high)

    def vertical_anchor(self, producer: Operation, consumer: Operation) -> Operation | None:
        """Where `producer` and `consumer` may stand fused: the consumer's place if the producer can sink there, else
        the producer's if the consumer can rise there; None if neither, or if the consumer consumes an array the
        producer reads."""
        if set(self.consumed(consumer)) & self.free(producer):
            return None
        if self.can_sink(producer, consumer):
            return consumer
        if self.can_hoist(consumer, producer, producer.results):
            return producer
        return None

    def replace_pair(
        self, fused: tuple[Operation, dict[SSAValue, SSAValue]], anchor: Operation, later: Operation, earlier: Operation
    ) -> Operation:
        """Insert the fused op before `anchor`, rewire the old results and erase both old ops."""
        new_op, replacements = fused
        if isinstance(new_op.location, UnknownLoc):  # errors of the fused op name the first combinator's line
            new_op.location = earlier.location
        self.block.insert_op_before(new_op, anchor)
        self.replaced(anchor, new_op)
        self.forget_users(replacements)
        for old, new in replacements.items():
            old.replace_all_uses_with(new)
        self.block.erase_op(later)
        self.block.erase_op(earlier)
        return new_op
