"""Scalar `arith` and `math` ops on the host: the index arithmetic a host function does between its launches.

`eval_scalar` evaluates an op on numpy scalars, `arith` ops as the interpreter does (MLIR's semantics). It is the
reference. `scalar_function` makes, once per op, a function of the op's operand values for the host plans
(`host_plan`), where integers and indices are Python ints (`i1` a bool): an `arith.addi` of two Python ints costs
a tenth of one on numpy scalars. Each such function gives `eval_scalar`'s result: where the exact result leaves the
type's range, or at an edge where numpy's arithmetic is not the exact one (the most negative value of a signed
division, a shift by the width or more), it hands its operands to `eval_scalar`. Everything else (floats, casts
from or to `i1`, ops without a Python-int form) runs through `eval_scalar` with the operands as numpy scalars.

    %q = arith.divui %a, %b : index     ->  lambda a, b: signed((a & MASK) // (b & MASK))   (after checking b != 0)
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from soac.interpreter.arith import constant_array, elementwise
from soac.interpreter.math_ops import FUNCTIONS as MATH_FUNCTIONS
from soac.lowering.conversion.sizes import DIVISIONS
from soac.lowering.runtime.errors import OpenCLRuntimeError, ProgramError
from soac.messages import DIVISION_PROBLEM, error_message
from soac.types import numpy_dtype
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation

ScalarFunction = Callable[..., Any]


def dtype_of(t: Attribute) -> np.dtype[Any]:
    if (dtype := numpy_dtype(t)) is None:
        raise OpenCLRuntimeError(f"no numpy type for {t}")
    return dtype


# ---------------------------------------------------------------------------
# The reference: one op on numpy scalars
# ---------------------------------------------------------------------------


_CMPI = {
    "eq": operator.eq,
    "ne": operator.ne,
    "slt": operator.lt,
    "sle": operator.le,
    "sgt": operator.gt,
    "sge": operator.ge,
    "ult": operator.lt,
    "ule": operator.le,
    "ugt": operator.gt,
    "uge": operator.ge,
}


def numpy_evaluator(op: Operation) -> Callable[[list[Any]], Any]:
    """`op` as a function of its operands as numpy scalars, its result a numpy scalar of the result's type.

    It computes as the interpreter does, with its functions (`soac.interpreter.arith.elementwise`, the `math` ops'
    `FUNCTIONS`): MLIR's wrapping integers, `i1` true read as -1 by signed ops and casts, shifts by the width or more
    giving 0 or the sign. Division by zero is the caller's to check."""
    if isinstance(op, arith.ConstantOp):
        if not isinstance(op.value, IntegerAttr | FloatAttr):
            return _cannot_evaluate(op)
        constant = constant_array(op)[()]
        return lambda args: constant
    function = elementwise(op) or MATH_FUNCTIONS.get(op.name)
    if function is None or len(op.results) != 1:
        return _cannot_evaluate(op)
    dtype = dtype_of(op.results[0].type)

    def evaluate(args: list[Any]) -> Any:
        with np.errstate(all="ignore"):
            return np.asarray(function(*[np.asarray(a) for a in args])).astype(dtype)[()]

    return evaluate


def _cannot_evaluate(op: Operation) -> Callable[[list[Any]], Any]:
    def fail(args: list[Any]) -> Any:
        raise OpenCLRuntimeError(f"the host cannot evaluate '{op.name}'")

    return fail


def eval_scalar(op: Operation, args: list[Any]) -> Any:
    """Evaluate a scalar arith/math op on the host, on numpy scalars (see `numpy_evaluator`)."""
    return numpy_evaluator(op)(args)


# ---------------------------------------------------------------------------
# Host values: integers as Python ints
# ---------------------------------------------------------------------------


def int_bits(t: Attribute) -> int | None:
    """The width of an integer or index type, whose values the host plans hold as Python ints (an `i1` as a bool);
    None for any other type (its values stay numpy scalars)."""
    if not isinstance(t, IntegerType | IndexType) or (dtype := numpy_dtype(t)) is None:
        return None
    return 1 if dtype.kind == "b" else dtype.itemsize * 8


def _same(value: Any) -> Any:
    return value


def to_python(t: Attribute) -> Callable[[Any], Any]:
    """How a value of type `t` enters a plan: `int` (or `bool` for `i1`) for integers, as it is otherwise."""
    bits = int_bits(t)
    return _same if bits is None else bool if bits == 1 else int


def to_numpy(t: Attribute) -> Callable[[Any], Any]:
    """How a value of type `t` leaves a plan (for `eval_scalar`, or as a result): the numpy scalar of its dtype."""
    return _same if int_bits(t) is None else dtype_of(t).type


def numpy_function(op: Operation) -> ScalarFunction:
    """`op` through `eval_scalar`, on its operands as numpy scalars; an integer result back as a Python int."""
    inputs = tuple(to_numpy(v.type) for v in op.operands)
    output = to_python(op.results[0].type) if len(op.results) == 1 else _same
    evaluate = numpy_evaluator(op)
    message = error_message(op, DIVISION_PROBLEM).format() if isinstance(op, DIVISIONS) else None

    def run(*args: Any) -> Any:
        values = [convert(a) for convert, a in zip(inputs, args)]
        if message is not None and not values[1]:
            raise ProgramError(message)
        return output(evaluate(values))

    return run


def scalar_function(op: Operation) -> ScalarFunction:
    """`op` as a function of its operand values in a plan (integers as Python ints), with `eval_scalar`'s results."""
    return python_int_function(op) or numpy_function(op)


# ---------------------------------------------------------------------------
# Integer ops on Python ints
# ---------------------------------------------------------------------------


class IntRange:
    """The values of a signless integer type of `bits` bits, held signed, and its unsigned reading."""

    def __init__(self, bits: int):
        self.bits = bits
        self.low = -(1 << (bits - 1))
        self.high = (1 << (bits - 1)) - 1
        self.mask = (1 << bits) - 1


Maker = Callable[[IntRange, ScalarFunction, str], ScalarFunction]


def _checked(exact: Callable[[int, int], int]) -> Maker:
    """An op whose exact result is numpy's wherever it fits the type (numpy wraps where it does not)."""

    def make(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
        low, high = r.low, r.high

        def run(a: int, b: int) -> int:
            x = exact(a, b)
            return x if low <= x <= high else slow(a, b)

        return run

    return make


def _floordiv(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
    low, high = r.low, r.high

    def run(a: int, b: int) -> int:
        if not b:
            raise ProgramError(message)
        x = a // b
        return x if low <= x <= high else slow(a, b)

    return run


def _divsi(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
    low = r.low

    def run(a: int, b: int) -> int:
        if not b:
            raise ProgramError(message)
        if a == low or b == low:  # numpy's abs() wraps there
            return slow(a, b)
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q

    return run


def _remsi(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
    low = r.low

    def run(a: int, b: int) -> int:
        if not b:
            raise ProgramError(message)
        if a == low or b == low:
            return slow(a, b)
        x = abs(a) % abs(b)
        return x if a >= 0 else -x

    return run


def _ceildivsi(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
    low, high = r.low, r.high

    def run(a: int, b: int) -> int:
        if not b:
            raise ProgramError(message)
        if a == low:  # numpy's -a wraps there
            return slow(a, b)
        x = -((-a) // b)
        return x if low <= x <= high else slow(a, b)

    return run


def _unsigned_division(quotient: Callable[[int, int], int]) -> Maker:
    """`divui`, `remui`, `ceildivui`: `quotient` of the unsigned readings, read back as signed."""

    def make(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
        mask, high, span = r.mask, r.high, r.mask + 1

        def run(a: int, b: int) -> int:
            if not b:
                raise ProgramError(message)
            x = quotient(a & mask, b & mask)
            return x - span if x > high else x

        return run

    return make


def _ceildiv(a: int, b: int) -> int:
    q, rest = divmod(a, b)
    return q + (rest != 0)


def _shli(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
    bits, low, high = r.bits, r.low, r.high

    def run(a: int, b: int) -> int:
        if 0 <= b < bits:
            x = a << b
            if low <= x <= high:
                return x
        return slow(a, b)

    return run


def _shrsi(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
    bits = r.bits
    return lambda a, b: a >> b if 0 <= b < bits else slow(a, b)


def _shrui(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
    bits, mask, high, span = r.bits, r.mask, r.high, r.mask + 1

    def run(a: int, b: int) -> int:
        if not 0 <= b < bits:
            return slow(a, b)
        x = (a & mask) >> b
        return x - span if x > high else x

    return run


def _minui(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
    mask = r.mask
    return lambda a, b: a if (a & mask) <= (b & mask) else b


def _maxui(r: IntRange, slow: ScalarFunction, message: str) -> ScalarFunction:
    mask = r.mask
    return lambda a, b: a if (a & mask) >= (b & mask) else b


def _plain(function: ScalarFunction) -> Maker:
    """An op whose Python result always fits the type and is numpy's."""
    return lambda r, slow, message: function


_BITWISE: dict[type[Operation], Maker] = {
    arith.AndIOp: _plain(operator.and_),
    arith.OrIOp: _plain(operator.or_),
    arith.XOrIOp: _plain(operator.xor),
}
_INTEGER: dict[type[Operation], Maker] = {
    **_BITWISE,
    arith.AddiOp: _checked(operator.add),
    arith.SubiOp: _checked(operator.sub),
    arith.MuliOp: _checked(operator.mul),
    arith.MinSIOp: _plain(min),
    arith.MaxSIOp: _plain(max),
    arith.MinUIOp: _minui,
    arith.MaxUIOp: _maxui,
    arith.ShLIOp: _shli,
    arith.ShRSIOp: _shrsi,
    arith.ShRUIOp: _shrui,
    arith.DivSIOp: _divsi,
    arith.RemSIOp: _remsi,
    arith.FloorDivSIOp: _floordiv,
    arith.CeilDivSIOp: _ceildivsi,
    arith.DivUIOp: _unsigned_division(operator.floordiv),
    arith.RemUIOp: _unsigned_division(operator.mod),
    arith.CeilDivUIOp: _unsigned_division(_ceildiv),
}


def _select(condition: Any, a: Any, b: Any) -> Any:
    return a if condition else b


def python_int_function(op: Operation) -> ScalarFunction | None:
    """`op` on Python ints (`eval_scalar`'s results), or None where it has no such form."""
    if isinstance(op, arith.SelectOp):
        return _select
    if isinstance(op, arith.CmpiOp):
        return _compare(op)
    if isinstance(op, arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp | arith.IndexCastOp):
        return _cast(op)
    make = _INTEGER.get(type(op))
    if make is None or len(op.operands) != 2 or len(op.results) != 1:
        return None
    bits = int_bits(op.results[0].type)
    if bits is None or any(int_bits(v.type) != bits for v in op.operands) or (bits == 1 and type(op) not in _BITWISE):
        return None
    message = error_message(op, DIVISION_PROBLEM).format() if isinstance(op, DIVISIONS) else ""
    return make(IntRange(bits), numpy_function(op), message)


def _compare(op: arith.CmpiOp) -> ScalarFunction | None:
    bits = int_bits(op.lhs.type)
    if bits is None:
        return None
    predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    compare = _CMPI[predicate]
    if bits == 1 and predicate[0] == "s":  # signed, an i1 true is -1
        return lambda a, b: compare(-a, -b)
    if not predicate.startswith("u"):
        return compare
    mask = IntRange(bits).mask
    return lambda a, b: compare(a & mask, b & mask)


def _cast(op: Operation) -> ScalarFunction | None:
    """Casts between integer types of 8 bits or more: the value's bits (sign-extended, zero-extended for `extui`)
    cut to the result's width and read as signed, as numpy's `astype` does."""
    source, result = int_bits(op.operands[0].type), int_bits(op.results[0].type)
    if source is None or result is None or min(source, result) == 1:
        return None
    target = IntRange(result)
    keep = IntRange(source).mask if isinstance(op, arith.ExtUIOp) else target.mask
    high, span = target.high, target.mask + 1

    def cast(a: int) -> int:
        x = a & keep
        return x - span if x > high else x

    return cast
