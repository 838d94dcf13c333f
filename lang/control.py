"""Sequential control flow (`loop`, `while_loop`, `cond`), selection and math functions.

Python's own `if` and `while` run while tracing, on values not yet known, so
they cannot decide on a symbolic value (that raises `SymbolicBoolError`);
these combinators build `scf.for`, `scf.while` and `scf.if` instead, whose
bodies are traced Python functions as the lambdas of SOACs are.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

from soac.lang import dtypes
from soac.lang.conversions import as_index, retyped
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTypeError, SourceLocation, located, user_location
from soac.lang.lambdas import results_list, single, trace_block
from soac.lang.operators import elementwise, select, unary, unify, weak
from soac.lang.soacs import retype_array
from soac.lang.tracer import Scope, Tracer
from soac.lang.values import (
    Array,
    Scalar,
    Value,
    as_scalar,
    as_value,
    describe_types,
    emit_value,
    ir_types,
    type_name,
    use,
    wrap,
)
from xdsl.dialects import arith, scf
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region


def _values(items: Sequence[Any], likes: Sequence[Value | None], what: str) -> list[Value]:
    return [as_value(item, like.dtype if isinstance(like, Scalar) else None, f"{what}") for item, like in zip(items, likes)]


class _WeakStateTyped(Exception):
    """A loop's body made typed values of a state that started weak (`sl.replicate(n, 0)`, `0`): trace it again
    from a state of those types."""

    def __init__(self, types: dict[int, DType]):
        super().__init__("internal: a weak loop state takes the body's types")
        self.types = types


def _checked_finish(what: str, where: SourceLocation, expected: Sequence[Attribute], likes: Sequence[Value | None]):
    def finish(result: Any) -> list[Value]:
        items = results_list(result)
        if len(items) != len(expected):
            raise SoacTypeError(located(f"{what} returns {len(items)} value(s), expected {len(expected)}", where))
        values = [retyped(v, t) for v, t in zip(_values(items, likes, f"a result of {what}"), expected)]
        typed = {
            k: v.dtype
            for k, (v, like) in enumerate(zip(values, likes))
            if v.ir_type != expected[k] and _is_weak(like) and not _is_weak(v) and isinstance(v, type(like))
        }
        if typed:
            raise _WeakStateTyped(typed)
        if ir_types(values) != list(expected):
            want = "(" + ", ".join(type_name(t) for t in expected) + ")"
            raise SoacTypeError(located(f"{what} returns {describe_types(values)}, expected {want}", where))
        return values

    return finish


def _is_weak(value: Any) -> bool:
    return isinstance(value, Scalar | Array) and value.weak


def _state_wrapper(start: Sequence[Value], first: int = 0) -> Callable[[BlockArgument, Scope], Value]:
    """Wraps the state parameters of a loop body (from argument `first` on): weak where the initial state is."""

    def wrap_state(arg: BlockArgument, scope: Scope) -> Value:
        value = wrap(arg, scope)
        if isinstance(value, Scalar | Array) and _is_weak(start[arg.index - first]):
            value.weak = True
        return value

    return wrap_state


def _typed_state(start: list[Value], types: dict[int, DType]) -> list[Value]:
    """The initial state with its weak values of the types that the body gave them."""
    return [
        (retype_array(v, types[k]) if isinstance(v, Array) else retyped(v, types[k].ir)) if k in types else v
        for k, v in enumerate(start)
    ]


def loop(n: Any, init: Any, body: Callable[..., Any]) -> Any:
    """Futhark's `loop state = init for i < n do body i state`: `body(i, *state)` returns the next state.

    The state is one value or a tuple of values (scalars or arrays), of fixed types.
    """
    where = user_location()
    tracer = Tracer.current("sl.loop")
    upper = as_index(n, "the trip count of sl.loop")
    start = [as_value(item, None, "the initial state of sl.loop") for item in results_list(init)]
    types = ir_types(start)
    zero = tracer.constant(0, IndexType())
    one = tracer.constant(1, IndexType())

    def trace_body() -> Block:
        state = _state_wrapper(start, 1)
        block, _ = trace_block(
            tracer,
            body,
            [IndexType(), *types],
            lambda arg, scope: Scalar(arg, scope, dtypes.index) if arg.index == 0 else state(arg, scope),
            "the body of sl.loop",
            where,
            _checked_finish("the body of sl.loop", where, types, start),
            scf.YieldOp,
        )
        return block

    try:
        block = trace_body()
    except _WeakStateTyped as typed:
        start = _typed_state(start, typed.types)
        types = ir_types(start)
        block = trace_body()
    op = scf.ForOp(zero, upper, one, [use(v) for v in start], Region(block))
    tracer.emit(op, where)
    return single([wrap(r, tracer.scope) for r in op.results])


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], init: Any) -> Any:
    """`while cond(*state): state = body(*state)`, starting from `init`; returns the final state."""
    where = user_location()
    tracer = Tracer.current("sl.while_loop")
    start = [as_value(item, None, "the initial state of sl.while_loop") for item in results_list(init)]
    types = ir_types(start)

    def test(result: Any) -> list[Value]:
        flag = as_scalar(result, dtypes.bool_, "the condition of sl.while_loop")
        if flag.dtype != dtypes.bool_:
            raise SoacTypeError(located(f"the condition of sl.while_loop must be a bool, not {flag.dtype}", where))
        return [flag]

    def trace_both() -> tuple[Block, Block]:
        before_args: list[BlockArgument] = []
        state = _state_wrapper(start)

        def keep(arg: BlockArgument, scope: Scope) -> Value:
            before_args.append(arg)
            return state(arg, scope)

        before, _ = trace_block(
            tracer,
            cond,
            types,
            keep,
            "the condition of sl.while_loop",
            where,
            test,
            lambda flag: scf.ConditionOp(flag, *before_args),
        )
        after, _ = trace_block(
            tracer,
            body,
            types,
            state,
            "the body of sl.while_loop",
            where,
            _checked_finish("the body of sl.while_loop", where, types, start),
            scf.YieldOp,
        )
        return before, after

    try:
        before, after = trace_both()
    except _WeakStateTyped as typed:
        start = _typed_state(start, typed.types)
        types = ir_types(start)
        before, after = trace_both()
    op = scf.WhileOp([use(v) for v in start], types, Region(before), Region(after))
    tracer.emit(op, where)
    return single([wrap(r, tracer.scope) for r in op.results])


def cond(pred: Any, then_fn: Callable[[], Any], else_fn: Callable[[], Any]) -> Any:
    """`if pred then then_fn() else else_fn()` on a symbolic bool: both branches return values of the same types."""
    where = user_location()
    if isinstance(pred, bool):
        return then_fn() if pred else else_fn()
    tracer = Tracer.current("sl.cond")
    flag = as_scalar(pred, None, "the condition of sl.cond")
    if flag.dtype != dtypes.bool_:
        raise SoacTypeError(located(f"the condition of sl.cond must be a bool, not {flag.dtype}"))
    then_block, then_values = trace_block(
        tracer,
        then_fn,
        [],
        lambda arg, scope: wrap(arg, scope),
        "the then branch of sl.cond",
        where,
        lambda result: [as_value(item, None, "a result of sl.cond") for item in results_list(result)],
        scf.YieldOp,
    )
    types = ir_types(then_values)
    else_block, _ = trace_block(
        tracer,
        else_fn,
        [],
        lambda arg, scope: wrap(arg, scope),
        "the else branch of sl.cond",
        where,
        _checked_finish("the else branch of sl.cond", where, types, then_values),
        scf.YieldOp,
    )
    op = scf.IfOp(use(flag), types, Region(then_block), Region(else_block))
    tracer.emit(op, where)
    return single([wrap(r, tracer.scope) for r in op.results])


def where(pred: Any, a: Any, b: Any) -> Any:
    """`a if pred else b`, element-wise on arrays: both sides are computed (arith.select)."""
    if any(isinstance(x, Array) for x in (pred, a, b)):
        return elementwise(lambda p, x, y: where(p, x, y), [pred, a, b])
    if not isinstance(pred, Value):
        return a if pred else b
    flag = as_scalar(pred, dtypes.bool_, "the condition of sl.where")
    if flag.dtype != dtypes.bool_:
        raise SoacTypeError(located(f"the condition of sl.where must be a bool, not {flag.dtype}"))
    a, b = unify(a, b)
    like = a.dtype if isinstance(a, Scalar) else b.dtype if isinstance(b, Scalar) else None
    x = as_scalar(a, like, "the second argument of sl.where")
    y = as_scalar(b, like, "the third argument of sl.where")
    if x.dtype != y.dtype:
        raise SoacTypeError(located(f"sl.where of {x.dtype} and {y.dtype}: the types must agree"))
    return select(flag, x, y)


def _extremum(a: Any, b: Any, largest: bool) -> Any:
    if isinstance(a, Array) or isinstance(b, Array):
        return elementwise(lambda x, y: _extremum(x, y, largest), [a, b])
    if not isinstance(a, Value) and not isinstance(b, Value):  # Python values: computed now, still Python values
        return builtins.max(a, b) if largest else builtins.min(a, b)
    a, b = unify(a, b)
    like = a.dtype if isinstance(a, Scalar) else b.dtype if isinstance(b, Scalar) else None
    x = as_scalar(a, like, "an argument")
    y = as_scalar(b, like, "an argument")
    if x.dtype != y.dtype:
        raise SoacTypeError(located(f"{'maximum' if largest else 'minimum'} of {x.dtype} and {y.dtype}: the types must agree"))
    if x.dtype.is_float:
        op = arith.MaximumfOp(use(x), use(y)) if largest else arith.MinimumfOp(use(x), use(y))
    elif x.dtype.kind == "b":
        op = arith.OrIOp(use(x), use(y)) if largest else arith.AndIOp(use(x), use(y))
    else:
        op = _integer_extremum(x.dtype, largest)(use(x), use(y))
    return emit_value(op, x.dtype, weak(x, y))


def _integer_extremum(dtype: DType, largest: bool) -> type[Operation]:
    if dtype.is_unsigned:
        return arith.MaxUIOp if largest else arith.MinUIOp
    return arith.MaxSIOp if largest else arith.MinSIOp


def maximum(a: Any, b: Any) -> Any:
    """The larger of a and b (numpy's maximum: NaN wins), element-wise on arrays."""
    return _extremum(a, b, True)


def minimum(a: Any, b: Any) -> Any:
    """The smaller of a and b (numpy's minimum: NaN wins), element-wise on arrays."""
    return _extremum(a, b, False)


def _float_binary(name: str, op_type: type, a: Any, b: Any) -> Any:
    if isinstance(a, Array) or isinstance(b, Array):
        return elementwise(lambda x, y: _float_binary(name, op_type, x, y), [a, b])
    a, b = unify(a, b)
    like = a.dtype if isinstance(a, Scalar) else b.dtype if isinstance(b, Scalar) else None
    x = as_scalar(a, like, f"an argument of sl.{name}")
    y = as_scalar(b, like, f"an argument of sl.{name}")
    if x.dtype != y.dtype or not x.dtype.is_float:
        raise SoacTypeError(located(f"sl.{name} takes two floats of one type, not {x.dtype} and {y.dtype}"))
    return emit_value(op_type(use(x), use(y)), x.dtype, weak(x, y))


def atan2(y: Any, x: Any) -> Any:
    return _float_binary("atan2", mathd.Atan2Op, y, x)


def power(x: Any, y: Any) -> Any:
    return _float_binary("power", mathd.PowFOp, x, y)


def _math(name: str) -> Callable[[Any], Any]:
    def function(x: Any) -> Any:
        return unary(name, x)

    function.__name__ = name
    function.__doc__ = f"{name}(x), element-wise on arrays (floats; floor and ceil keep integers as they are)."
    return function


sqrt = _math("sqrt")
exp = _math("exp")
log = _math("log")
log2 = _math("log2")
exp2 = _math("exp2")
sin = _math("sin")
cos = _math("cos")
tan = _math("tan")
tanh = _math("tanh")
atan = _math("atan")
erf = _math("erf")
floor = _math("floor")
ceil = _math("ceil")


def isnan(x: Any) -> Any:
    """True where x is NaN."""
    if isinstance(x, Array):
        return elementwise(isnan, [x])
    value = as_scalar(x, None, "the argument of sl.isnan")
    if not value.dtype.is_float:
        raise SoacTypeError(located(f"sl.isnan takes a float, not {value.dtype}"))
    return emit_value(arith.CmpfOp(use(value), use(value), "uno"), dtypes.bool_, value.weak)


def shift_right_logical(x: Any, k: Any) -> Any:
    """`x >> k` filling with zeros (on the bits of a signed integer; `>>` keeps the sign as Python does)."""
    if isinstance(x, Array) or isinstance(k, Array):
        return elementwise(shift_right_logical, [x, k])
    x, k = unify(x, k)
    like = x.dtype if isinstance(x, Scalar) else k.dtype if isinstance(k, Scalar) else None
    a = as_scalar(x, like, "the value of sl.shift_right_logical")
    b = as_scalar(k, like, "the shift of sl.shift_right_logical")
    if a.dtype != b.dtype or a.dtype.kind not in "iux":
        raise SoacTypeError(located(f"sl.shift_right_logical takes integers of one type, not {a.dtype} and {b.dtype}"))
    return emit_value(arith.ShRUIOp(use(a), use(b)), a.dtype, weak(a, b))


def clip(xs: Any, lo: Any = None, hi: Any = None) -> Any:
    """numpy's clip: `minimum(maximum(xs, lo), hi)` (either bound may be None), element-wise."""
    if lo is None and hi is None:
        raise SoacTypeError(located("sl.clip needs a lower or an upper bound (or both)"))
    result = xs if lo is None else maximum(xs, lo)
    return result if hi is None else minimum(result, hi)


def rsqrt(x: Any) -> Any:
    """`1 / sqrt(x)` (JAX's lax.rsqrt; OpenCL's rsqrt), element-wise on arrays."""
    return unary("rsqrt", x)


def abs(x: Any) -> Any:
    """numpy's abs (`abs(x)`), element-wise on arrays."""
    return unary("abs", x) if isinstance(x, Value) else builtins.abs(x)


def square(x: Any) -> Any:
    """numpy's square, `x * x`, element-wise on arrays."""
    return x * x
