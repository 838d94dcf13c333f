"""Common subexpression elimination that respects in-place updates.

xDSL's CSE merges two ops that compute the same value (same op, operands, properties and structurally equal
regions), inside lambdas too, where the first one dominates the second:

    %i = soac.iota %n : tensor<?xindex>
    %j = soac.iota %n : tensor<?xindex>
    %a = soac.map %n (%i : ...) ...
    %b = soac.redomap %n (%j : ...) ...
  becomes
    %i = soac.iota %n : tensor<?xindex>
    %a = soac.map %n (%i : ...) ...
    %b = soac.redomap %n (%i : ...) ...

which lets horizontal fusion see the shared input. Two equal arrays are still two arrays when one of them is
consumed (`soac.update`, `soac.scatter`, `soac.hist`, directly, through a loop or branch that may return it, or as
the input whose rows a lambda consumes): merging them would consume the other one too, so such ops are left alone,
as Futhark's CSE leaves consumed arrays.
"""

from __future__ import annotations

from soac import dialect as soac
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.transforms.common_subexpression_elimination import CSEDriver

_MAX_DEPTH = 16


def consumes(op: Operation, index: int) -> bool:
    """Whether operand `index` of `op` is an array that `op` consumes."""
    match op:
        case soac.UpdateOp():
            return index == 0
        case soac.ScatterOp() | soac.HistOp() | soac.SeghistOp():
            return op.operands[index] in op.dests
        case func.CallOp():
            return True
        case _:
            return False


def _lambda_parameter(op: Operation, index: int) -> SSAValue | None:
    """The lambda parameter that receives the rows of operand `index` of a SOAC."""
    inputs = getattr(op, "inputs", None)
    body = getattr(op, "body", None)
    if inputs is None or body is None or not body.blocks or isinstance(op, soac.StencilOp):
        return None
    value = op.operands[index]
    if value not in inputs:
        return None
    position = list(inputs).index(value)
    args = body.block.args
    return args[position] if position < len(args) else None


def possibly_consumed(value: SSAValue, depth: int = 0) -> bool:
    """Whether `value`, or an array that may share its memory, is consumed anywhere."""
    if depth > _MAX_DEPTH:
        return True
    for alias in soac.aliases(value):
        for use in alias.uses:
            if consumes(use.operation, use.index):
                return True
            parameter = _lambda_parameter(use.operation, use.index)
            if parameter is not None and isinstance(parameter.type, TensorType):
                if possibly_consumed(parameter, depth + 1):
                    return True
    return False


class ConsumptionAwareCSE(CSEDriver):
    """xDSL's CSE driver, leaving alone every op that makes an array that is (or may be) consumed."""

    def _simplify_operation(self, op: Operation) -> None:
        if any(isinstance(r.type, TensorType) and possibly_consumed(r) for r in op.results):
            return
        super()._simplify_operation(op)
