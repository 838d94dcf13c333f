"""The uniqueness rules of in-place updates: an array an op consumes is used by nothing after it, nor is any
array that may share its memory (Futhark's aliasing of loop and branch results)."""

from __future__ import annotations

from soac.dialect.base import runs_lambdas
from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, OpResult, Region, SSAValue
from xdsl.utils.exceptions import VerifyException


def _enclosing_soac(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and not runs_lambdas(parent):
        parent = parent.parent_op()
    return parent


def defined_inside(value: SSAValue, op: Operation) -> bool:
    """True if `value` is defined by `op` or by an op (or block) nested in it."""
    owner = value.owner
    defining = owner if isinstance(owner, Operation) else owner.parent_op()
    while defining is not None:
        if defining is op:
            return True
        defining = defining.parent_op()
    return False


def later_in_block(user: Operation, op: Operation) -> bool:
    """True if `user` is (or is nested in) an op that comes after `op` in `op`'s block."""
    block = op.parent_block()
    while user is not None and user.parent_block() is not block:
        user = user.parent_op()
    if user is None or user is op or block is None:
        return False
    return block.get_operation_index(user) > block.get_operation_index(op)


def _yielded_from_outside(op: Operation, region: Region, index: int) -> list[SSAValue]:
    """The value that `region`'s terminator passes on as result `index` of `op`, where `op` does not define it."""
    terminator = region.block.last_op if region.blocks else None
    if terminator is None or index >= len(terminator.operands):
        return []
    value = terminator.operands[index]
    return [] if defined_inside(value, op) else [value]


def _linked_arrays(value: SSAValue) -> list[SSAValue]:
    """The arrays that may share `value`'s memory one step away, by Futhark's rule that a loop's or a branch's results
    alias the arrays it starts from or yields from outside (a loop that runs no iteration gives its initial arrays
    back): the results that `value` may become, and the arrays a result of a loop or branch may be."""
    linked: list[SSAValue] = []
    for use in value.uses:
        user = use.operation
        if isinstance(user, scf.ForOp) and use.index >= 3:
            linked.append(user.results[use.index - 3])
        elif isinstance(user, scf.WhileOp):
            linked.extend(r for r in user.results if r.type == value.type)
        elif isinstance(user, scf.YieldOp) and isinstance(parent := user.parent_op(), scf.ForOp | scf.IfOp):
            linked.append(parent.results[use.index])
        elif isinstance(user, scf.ConditionOp) and isinstance(parent := user.parent_op(), scf.WhileOp) and use.index:
            linked.append(parent.results[use.index - 1])
    if isinstance(value, OpResult):
        owner, index = value.op, value.index
        if isinstance(owner, scf.ForOp):
            linked.append(owner.iter_args[index])
            linked.extend(_yielded_from_outside(owner, owner.body, index))
        elif isinstance(owner, scf.IfOp):
            for region in (owner.true_region, owner.false_region):
                linked.extend(_yielded_from_outside(owner, region, index))
        elif isinstance(owner, scf.WhileOp):
            linked.extend(a for a in owner.arguments if a.type == value.type)
            linked.extend(_yielded_from_outside(owner, owner.before_region, index + 1))  # after scf.condition's flag
    return [v for v in linked if isinstance(v.type, TensorType)]


def aliases(value: SSAValue) -> list[SSAValue]:
    """`value` and every array linked to it, directly or through others (`_linked_arrays`)."""
    aliases = [value]
    for alias in aliases:
        aliases.extend(v for v in _linked_arrays(alias) if v not in aliases)
    return aliases


def check_consumed(op: Operation, value: SSAValue) -> None:
    """Check the uniqueness rules for an array that `op` updates in place.

    The array may not be used after `op`, nor may an array that can share its memory (a loop's or branch's result
    and the arrays it starts from), and a lambda may not consume an array from outside itself (that would update it
    once per element).
    """
    name = f"%{value.name_hint}" if value.name_hint else "its array"
    soac = _enclosing_soac(op)
    if soac is not None and not defined_inside(value, soac):
        raise VerifyException(f"'{op.name}' consumes {name} from outside the enclosing '{soac.name}' lambda")
    for alias in aliases(value):
        for use in alias.uses:
            if not later_in_block(use.operation, op):
                continue
            if alias is value:
                raise VerifyException(f"'{op.name}' consumes {name}, but '{use.operation.name}' uses it afterwards")
            other = f"%{alias.name_hint}" if alias.name_hint else "an array"
            raise VerifyException(
                f"'{op.name}' consumes {name}, but '{use.operation.name}' uses {other} afterwards, which may be the same "
                "array (a loop's or branch's results alias the arrays it starts from or yields)"
            )
