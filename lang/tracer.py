"""Tracing: running Python functions on symbolic values to build soac IR with xDSL.

A `Tracer` holds the stack of open blocks (the function body, then one per
lambda being traced). Every operation a symbolic value takes part in is appended
at once to the innermost block, with the user's Python line as its location, so
an expression computed once is one SSA value however often it is used: sharing
is kept by construction, never recovered. Lambdas are traced by calling the
Python function on symbolic block arguments (`soac.lang.lambdas.trace_block`);
Python names of parameters and of local variables become the IR's value names.
"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from soac.lang.dtypes import DType, is_ir_float
from soac.lang.errors import SoacTraceError, SourceLocation, frame_location, is_user_code, located, user_location
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

_CURRENT: contextvars.ContextVar[Tracer | None] = contextvars.ContextVar("soac_lang_tracer", default=None)


@dataclass(eq=False)
class Scope:
    """An open block: the function body or the body of a lambda being traced."""

    block: Block
    parent: Scope | None
    what: str
    """What the block is, for messages: 'the function', 'the lambda of sl.map', ..."""
    constants: dict[tuple[Attribute, object], SSAValue] = field(default_factory=dict)
    prologue_end: Operation | None = None
    """The last op of the block's prologue (index constants and sizes of its arguments), which stays first."""
    closed: bool = False

    def is_open_in(self, innermost: Scope) -> bool:
        scope: Scope | None = innermost
        while scope is not None:
            if scope is self:
                return True
            scope = scope.parent
        return False


class Tracer:
    """Builds one function: a stack of open scopes and the helpers that emit ops into them."""

    def __init__(self, function_block: Block):
        self.scope = Scope(function_block, None, "the function")
        self.default_float: DType | None = None
        """The type of Python floats that nothing else types (None: numpy's f64), set from the arguments."""

    # -- the current tracer -------------------------------------------------

    @staticmethod
    def current(what: str) -> Tracer:
        tracer = _CURRENT.get()
        if tracer is None:
            raise SoacTraceError(
                located(f"{what} works on symbolic values, inside a function decorated with @soac.lang.jit (or traced)")
            )
        return tracer

    @staticmethod
    def current_or_none() -> Tracer | None:
        return _CURRENT.get()

    @contextmanager
    def active(self) -> Iterator[Tracer]:
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)

    # -- emitting ops -------------------------------------------------------

    def emit(self, op: Operation, where: SourceLocation | None = None) -> Operation:
        """Append `op` to the innermost block, located at the user's line."""
        op.location = location_of(where or user_location())
        self.scope.block.add_op(op)
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as error:  # the embedding checks first; this is a last line of defence
            raise SoacTraceError(located(f"'{op.name}': {error}", where)) from None
        return op

    def emit_prologue(self, scope: Scope, op: Operation) -> Operation:
        """Put `op` in `scope`'s prologue: after the block's earlier prologue ops, before anything else."""
        if scope.prologue_end is None:
            if (first := scope.block.first_op) is None:
                scope.block.add_op(op)
            else:
                scope.block.insert_op_before(op, first)
        else:
            scope.block.insert_op_after(op, scope.prologue_end)
        scope.prologue_end = op
        return op

    def emit_after(self, value: SSAValue, scope: Scope, op: Operation) -> Operation:
        """Put `op` just after the definition of `value` (a result in `scope`'s block, or an argument)."""
        owner = value.owner
        if isinstance(owner, Operation) and owner.parent_block() is scope.block:
            scope.block.insert_op_after(op, owner)
            if scope.prologue_end is owner:
                scope.prologue_end = op
            return op
        return self.emit_prologue(scope, op)

    def constant(self, value: int | float | bool, t: Attribute, scope: Scope | None = None) -> SSAValue:
        """A constant of IR type `t`, one per block and value (made where first needed)."""
        scope = scope or self.scope
        key = (t, float(value).hex() if _is_float_type(t) else int(value))  # -0.0 is not 0.0
        if (found := scope.constants.get(key)) is not None:
            return found
        location = location_of(user_location())
        ops = _constant_ops(value, t)
        for op in ops:
            op.location = location
            if scope is self.scope:
                scope.block.add_op(op)
            else:
                self.emit_prologue(scope, op)
        result = ops[-1].results[0]
        scope.constants[key] = result
        return result

    def index_constant(self, value: int, scope: Scope) -> SSAValue:
        """An `index` constant in `scope`'s prologue (for sizes, which are made just after their arrays)."""
        key = (IndexType(), ("prologue", value))
        if (found := scope.constants.get(key)) is not None:
            return found
        op = self.emit_prologue(scope, arith.ConstantOp(IntegerAttr(value, IndexType())))
        op.results[0].name_hint = f"c{value}"
        scope.constants[key] = op.results[0]
        return op.results[0]


def _constant_ops(value: int | float | bool, t: Attribute) -> list[Operation]:
    """The ops that make a constant of `t`: one `arith.constant`, or for an unsigned integer type (which `arith`'s
    constants refuse) a signless constant of the same bits and an `arith.bitcast` to `t`, which
    `soac.signless.erase_signedness` removes."""
    if _is_float_type(t):
        return [arith.ConstantOp(FloatAttr(float(value), t))]  # pyright: ignore[reportArgumentType]
    if isinstance(t, IntegerType) and t.signedness.data != Signedness.SIGNLESS:
        width = t.width.data
        bits = int(value) & ((1 << width) - 1)
        signless = IntegerType(width)
        constant = arith.ConstantOp(IntegerAttr(bits - (1 << width) if bits >> (width - 1) else bits, signless))
        return [constant, arith.BitcastOp(constant.result, t)]
    return [arith.ConstantOp(IntegerAttr(int(value), t))]  # pyright: ignore[reportArgumentType]


def _is_float_type(t: Attribute) -> bool:
    return is_ir_float(t)


def location_of(where: SourceLocation) -> FileLineColLoc:
    """The IR location of a place in the user's program."""
    return FileLineColLoc(StringAttr(where.filename), IntAttr(where.line), IntAttr(where.column))


def parameter_names(fn: Callable[..., Any]) -> list[str]:
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    return list(code.co_varnames[: code.co_argcount])


def arity(fn: Callable[..., Any]) -> int | None:
    """The number of positional parameters of a plain Python function (None when it has *args or is no function)."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_flags & 0x04 or getattr(fn, "__defaults__", None):
        return None
    return code.co_argcount - (1 if hasattr(fn, "__self__") else 0)


def call_capturing_locals(fn: Callable[..., Any], args: Sequence[Any]) -> tuple[Any, list[dict[str, Any]], SourceLocation | None]:
    """Call `fn(*args)`; return its result, the local variables of each user function that returned meanwhile
    (`fn` itself last), so that values can be named after the variables that hold them, and the place of `fn`'s
    `return` (None for a callable without Python code)."""
    captured: list[dict[str, Any]] = []
    returned_at: list[SourceLocation] = []
    code = getattr(fn, "__code__", None)
    previous = sys.getprofile()

    def profiler(frame: Any, event: str, arg: Any) -> None:
        if event == "return" and is_user_code(frame.f_code):
            captured.append(dict(frame.f_locals))
            if frame.f_code is code:
                returned_at.append(frame_location(frame))
        if previous is not None:
            previous(frame, event, arg)

    sys.setprofile(profiler)
    try:
        result = fn(*args)
    finally:
        sys.setprofile(previous)
    return result, captured, returned_at[-1] if returned_at else None


def set_name(value: SSAValue, name: str) -> None:
    if SSAValue.is_valid_name(name) and not name.isdigit():
        value.name_hint = name
