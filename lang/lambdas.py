"""Tracing Python functions into the regions of ops, and emitting ops with their results wrapped.

The low layer that every combinator shares (`soac.lang.soacs`, `control`, `stencil`, `sorting`): `trace_block`
calls a Python function on symbolic block arguments inside a new scope and ends the block with the values it
returns; `trace_lambda` does so for the lambda of a SOAC (a `soac.yield`), checking what it returns against the
types the op expects.

    region, yielded = trace_lambda(lambda x: x * 2, [f32], "the lambda of sl.map", where)
    # ^bb0(%x: f32): %0 = arith.mulf %x, %c2 : f32; soac.yield %0 : f32
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from soac import dialect as soac
from soac.lang import dtypes
from soac.lang.conversions import retyped
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTraceError, SoacTypeError, SourceLocation, located
from soac.lang.tracer import Scope, Tracer, arity, call_capturing_locals, location_of, parameter_names, set_name
from soac.lang.values import Array, Scalar, Value, as_array, as_value, describe_types, ir_types, name_locals, type_name, wrap
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region


def trace_block(
    tracer: Tracer,
    fn: Callable[..., Any],
    arg_types: Sequence[Attribute],
    wrap_argument: Callable[[BlockArgument, Scope], Value],
    what: str,
    where: SourceLocation,
    finish: Callable[[Any], Sequence[Value]],
    terminator: Callable[..., Operation],
) -> tuple[Block, list[Value]]:
    """Trace `fn` on fresh block arguments of `arg_types` (each made a symbolic value by `wrap_argument`) into a new
    block ended by `terminator`, in a scope inside `tracer`'s current one.

    `finish` turns what `fn` returned into the values to yield (it runs inside the block, so that the
    constants it makes land there). Returns the block and those values.
    """
    block = Block(arg_types=arg_types)
    scope = Scope(block, tracer.scope, what)
    for arg, name in zip(block.args, parameter_names(fn)):
        set_name(arg, name)
    wrapped = [wrap_argument(arg, scope) for arg in block.args]
    if (takes := arity(fn)) is not None and takes != len(wrapped):
        raise SoacTraceError(located(f"{what} gets {len(wrapped)} argument(s), but the Python function takes {takes}", where))
    tracer.scope = scope
    try:
        result, local_names, _ = call_capturing_locals(fn, wrapped)
        name_locals(local_names, scope)
        yielded = list(finish(result))
        end = terminator(*(v.ssa for v in yielded))
        end.location = location_of(where)
        block.add_op(end)
    finally:
        tracer.scope = scope.parent  # pyright: ignore[reportAttributeAccessIssue]
    scope.closed = True
    return block, yielded


def results_list(result: Any) -> list[Any]:
    """What a Python function returned as a list of results: a tuple's or list's items, else the one value."""
    return list(result) if isinstance(result, tuple | list) else [result]


def scalar_dtype_of(t: Attribute) -> DType | None:
    """The element type of a scalar IR type (None for an array type)."""
    return None if isinstance(t, TensorType) else dtypes.from_ir(t)


def checked_results(
    what: str, where: SourceLocation, expected: Sequence[Attribute] | None = None
) -> Callable[[Any], list[Value]]:
    """Turn what a lambda returned into values (constants take the expected types) and check them."""

    def finish(result: Any) -> list[Value]:
        items = results_list(result)
        if expected is not None and len(items) != len(expected):
            raise SoacTypeError(located(f"{what} returns {len(items)} value(s), expected {len(expected)}", where))
        likes = [scalar_dtype_of(t) for t in expected] if expected is not None else [None] * len(items)
        values = [as_value(item, like, f"a result of {what}") for item, like in zip(items, likes)]
        if expected is not None:
            values = [retyped(v, t) for v, t in zip(values, expected)]
        if expected is not None and ir_types(values) != list(expected):
            want = "(" + ", ".join(type_name(t) for t in expected) + ")"
            raise SoacTypeError(located(f"{what} returns {describe_types(values)}, expected {want}", where))
        if not values:
            raise SoacTypeError(located(f"{what} returns nothing", where))
        return values

    return finish


def row_wrapper(arrays: Sequence[Array]) -> Callable[[BlockArgument, Scope], Value]:
    """Wraps the lambda parameter of each array's rows, the inner sizes of a row being its array's."""
    remaining = list(arrays)

    def wrap_row(arg: BlockArgument, scope: Scope) -> Value:
        return wrap(arg, scope, row_of=remaining[arg.index] if arg.index < len(remaining) else None)

    return wrap_row


def plain_wrapper(arg: BlockArgument, scope: Scope) -> Value:
    return wrap(arg, scope)


def trace_lambda(
    fn: Callable[..., Any],
    arg_types: Sequence[Attribute],
    what: str,
    where: SourceLocation,
    expected: Sequence[Attribute] | None = None,
    wrapper: Callable[[BlockArgument, Scope], Value] = plain_wrapper,
) -> tuple[Region, list[Value]]:
    tracer = Tracer.current(what)
    if not callable(fn):
        raise SoacTypeError(located(f"{what} must be a Python function (a lambda or def), not {type(fn).__name__}", where))
    finish = checked_results(what, where, expected)
    block, yielded = trace_block(tracer, fn, arg_types, wrapper, what, where, finish, soac.YieldOp)
    return Region(block), yielded


def array_arguments(arrays: Sequence[Any], what: str) -> list[Array]:
    if not arrays:
        raise SoacTypeError(located(f"{what} needs at least one array"))
    return [as_array(a, f"argument {k + 1} of {what}") for k, a in enumerate(arrays)]


def emit_at(op: Operation, where: SourceLocation) -> Operation:
    """Emit `op` into the innermost block, located at `where` (the line of the combinator's call)."""
    return Tracer.current(op.name).emit(op, where)


def wrap_results(op: Operation, width: Scalar | None) -> list[Value]:
    """The symbolic values of `op`'s results; arrays have `width` rows (when given)."""
    tracer = Tracer.current(op.name)
    out: list[Value] = []
    for result in op.results:
        value = wrap(result, tracer.scope)
        if isinstance(value, Array) and width is not None:
            value._dims[0] = width
        out.append(value)
    return out


def single(values: list[Value]) -> Any:
    """One value as itself, several as a tuple (what a combinator returns)."""
    return values[0] if len(values) == 1 else tuple(values)
