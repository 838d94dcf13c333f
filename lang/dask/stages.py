"""The programs of a chunked run, as soac.lang functions built from the traced program's own IR.

A stage other than the user's function itself reuses pieces of it: the terminal
SOAC's operator and neutral element, or the whole function with one operand
changed. `Inliner` copies such IR into the function being traced (so that the
copies keep the user's locations), which makes each stage an ordinary
`sl.jit` function, compiled and cached as any other:

    reduce-combine:  lambda *partials: sl.reduce(op, ne, *partials)     # the partial results of the chunks
    scan-carry:      lambda carry, ys: sl.map(lambda y: op(carry, y), ys)  # adds the carry into a scanned chunk
    scan-input:      the function up to its scan, returning the scan's input (for several chunked inputs)
    scan-chunk:      lambda ys: sl.scan(op, ne, ys)
    hist-chunk:      the function with the hist's destination replaced by sl.replicate(len(dest), ne)
    hist-combine:    lambda a, b: sl.map(op, a, b)                       # two partial histograms
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from soac.dialect import HistOp, ReduceOp, ScanOp
from soac.lang.dask.plan import Plan, SoacDaskError, refuse
from soac.lang.soacs import map_, reduce, replicate, scan
from soac.lang.tracer import Tracer
from soac.lang.values import Value, wrap
from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

ROLES = ("program", "reduce-combine", "scan-carry", "scan-input", "scan-chunk", "hist-chunk", "hist-combine")


class Inliner:
    """Copies ops of a traced function into the function being traced now, through one value map."""

    def __init__(self, mapping: dict[SSAValue, SSAValue] | None = None):
        self.tracer = Tracer.current("soac.lang.dask")
        self.mapping: dict[SSAValue, SSAValue] = dict(mapping or {})

    def value(self, value: SSAValue, user: Operation) -> SSAValue:
        """`value` in the new function: mapped already, or a copy of its pure, region-free definition (a constant)."""
        if (found := self.mapping.get(value)) is not None:
            return found
        owner = value.owner
        if not isinstance(owner, Operation) or owner.regions or owner.name.split(".")[0] not in ("arith", "math"):
            raise refuse(user, "uses a value computed outside its operator (only constants can be copied into a combining stage)")
        for operand in owner.operands:
            self.value(operand, user)
        self.emit(owner)
        return self.mapping[value]

    def emit(self, op: Operation) -> None:
        for inner in [op, *(o for r in op.regions for o in r.walk())]:
            for operand in inner.operands:
                if operand not in self.mapping and not _defined_inside(operand, op):
                    self.value(operand, op)
        copy = op.clone(value_mapper=self.mapping)
        copy.location = op.location
        self.tracer.scope.block.add_op(copy)

    def block(self, block: Block, args: Sequence[Value], stop: Operation | None = None) -> list[Value]:
        """Copy `block`'s ops with its arguments bound to `args`; the values its terminator yields (or, with `stop`,
        the operands of `stop`, which is not copied)."""
        for arg, value in zip(block.args, args):
            self.mapping[arg] = value.ssa
        for op in block.ops:
            if op is stop or op is block.last_op:
                return [wrap(self.mapping[o], self.tracer.scope) for o in op.operands]
            self.emit(op)
        raise SoacDaskError("an empty block")


def _defined_inside(value: SSAValue, op: Operation) -> bool:
    owner = value.owner
    parent = owner.parent_op() if isinstance(owner, Block) else owner
    while parent is not None:
        if parent is op:
            return True
        parent = parent.parent_op()
    return False


def _operator(op: ReduceOp | ScanOp | HistOp) -> Callable[..., Any]:
    """The operator as soac.lang's combinators call it: `op(a, b)`, or `op((a1, a2), (b1, b2))` on tuples."""
    if len(op.neutral) == 1:
        return lambda a, b: Inliner().block(op.combine.block, [a, b])[0]
    return lambda a, b: tuple(Inliner().block(op.combine.block, [*a, *b]))


def _neutral(op: ReduceOp | ScanOp | HistOp) -> Any:
    inliner = Inliner()
    values = [wrap(inliner.value(ne, op), inliner.tracer.scope) for ne in op.neutral]
    return values[0] if len(values) == 1 else tuple(values)


def stage_function(plan: Plan, role: str, user_fn: Callable[..., Any]) -> Callable[..., Any]:
    """The Python function (for `sl.jit`) of one stage of `plan`."""
    terminal = plan.terminal
    if role == "program":
        return user_fn
    if isinstance(terminal, ReduceOp) and role == "reduce-combine":
        commutative = terminal.commutative is not None
        return lambda *partials: reduce(_operator(terminal), _neutral(terminal), *partials, commutative=commutative)
    if isinstance(terminal, ScanOp) and role == "scan-carry":
        return lambda carry, ys: map_(lambda y: _operator(terminal)(carry, y), ys)
    if isinstance(terminal, ScanOp) and role == "scan-chunk":
        return lambda ys: scan(_operator(terminal), _neutral(terminal), ys)
    if isinstance(terminal, ScanOp) and role == "scan-input":
        return _whole_function(plan.function, stop=terminal)
    if isinstance(terminal, HistOp) and role == "hist-chunk":
        return _whole_function(plan.function, neutral_dest=terminal)
    if isinstance(terminal, HistOp) and role == "hist-combine":
        return lambda a, b: map_(_operator(terminal), a, b)
    raise SoacDaskError(f"no stage {role!r} for a {plan.kind} program")


def _whole_function(function: func.FuncOp, stop: ScanOp | None = None, neutral_dest: HistOp | None = None) -> Callable[..., Any]:
    """The traced function copied whole: up to `stop` (returning its input), or with `neutral_dest`'s destination
    replaced by fresh bins holding its neutral element."""

    def copied(*args: Value) -> Any:
        inliner = Inliner()
        block = function.body.block
        for arg, value in zip(block.args, args):
            inliner.mapping[arg] = value.ssa
        for op in block.ops:
            if op is stop:
                return wrap(inliner.mapping[op.inputs[0]], inliner.tracer.scope)
            if op is neutral_dest:
                dest = wrap(inliner.mapping[op.dests[0]], inliner.tracer.scope)
                ne = wrap(inliner.mapping[op.neutral[0]], inliner.tracer.scope)
                inliner.mapping[op.dests[0]] = replicate(dest.shape[0], ne).ssa  # pyright: ignore[reportAttributeAccessIssue]
            if isinstance(op, func.ReturnOp):
                results = [wrap(inliner.mapping[o], inliner.tracer.scope) for o in op.operands]
                return results[0] if len(results) == 1 else tuple(results)
            inliner.emit(op)
        raise SoacDaskError(f"@{function.sym_name.data} has no return")

    return copied
