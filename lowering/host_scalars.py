"""Scalar `arith` and `math` ops on the host: the index arithmetic a host function does between its launches.

`eval_scalar` evaluates an op on numpy scalars: C's fixed-width, wrapping arithmetic through numpy's types. It is
the reference. `scalar_function` makes, once per op, a function of the op's operand values for the host plans
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
from soac.lowering.conversion.kernel_builder import DIVISION_PROBLEM, DIVISIONS, error_message
from soac.lowering.errors import OpenCLRuntimeError, ProgramError
from soac.types import numpy_dtype
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
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


def _unsigned(x: Any) -> Any:
    return x.astype(np.dtype(f"u{x.dtype.itemsize}")) if x.dtype.kind == "i" else x


def _wrap(op: Operation, value: Any) -> Any:
    return np.asarray(value).astype(dtype_of(op.results[0].type))[()]


def _ceildiv_unsigned(a: Any, b: Any) -> Any:
    """`ceil(a / b)` of unsigned numbers as `a / b + (a % b != 0)`: `(a + b - 1) / b` would wrap for large `a`."""
    return a // b + (a % b != 0).astype(a.dtype)


_BINARY: dict[type[Operation], Callable[[Any, Any], Any]] = {
    arith.AddiOp: operator.add,
    arith.SubiOp: operator.sub,
    arith.MuliOp: operator.mul,
    arith.AddfOp: operator.add,
    arith.SubfOp: operator.sub,
    arith.MulfOp: operator.mul,
    arith.DivfOp: operator.truediv,
    arith.AndIOp: operator.and_,
    arith.OrIOp: operator.or_,
    arith.XOrIOp: operator.xor,
    arith.ShLIOp: operator.lshift,
    arith.ShRSIOp: operator.rshift,
    arith.DivSIOp: lambda a, b: np.sign(a) * np.sign(b) * (abs(a) // abs(b)),
    arith.RemSIOp: np.fmod,
    arith.DivUIOp: lambda a, b: _unsigned(a) // _unsigned(b),
    arith.RemUIOp: lambda a, b: _unsigned(a) % _unsigned(b),
    arith.ShRUIOp: lambda a, b: _unsigned(a) >> _unsigned(b),
    arith.MinUIOp: lambda a, b: min(_unsigned(a), _unsigned(b)),
    arith.MaxUIOp: lambda a, b: max(_unsigned(a), _unsigned(b)),
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
    arith.MaximumfOp: np.maximum,
    arith.MinimumfOp: np.minimum,
    arith.MaxnumfOp: np.fmax,
    arith.MinnumfOp: np.fmin,
    arith.FloorDivSIOp: operator.floordiv,
    arith.CeilDivSIOp: lambda a, b: -((-a) // b),
    arith.CeilDivUIOp: lambda a, b: _ceildiv_unsigned(_unsigned(a), _unsigned(b)),
    mathd.PowFOp: np.power,
    mathd.Atan2Op: np.arctan2,
    mathd.CopySignOp: np.copysign,
}
_UNARY: dict[type[Operation], Callable[[Any], Any]] = {
    arith.NegfOp: operator.neg,
    mathd.ExpOp: np.exp,
    mathd.LogOp: np.log,
    mathd.SqrtOp: np.sqrt,
    mathd.SinOp: np.sin,
    mathd.CosOp: np.cos,
    mathd.TanhOp: np.tanh,
    mathd.AbsFOp: np.abs,
    mathd.AbsIOp: np.abs,
    mathd.FloorOp: np.floor,
    mathd.CeilOp: np.ceil,
    mathd.Log2Op: np.log2,
    mathd.Log10Op: np.log10,
    mathd.Exp2Op: np.exp2,
    mathd.TruncOp: np.trunc,
    mathd.RsqrtOp: lambda x: 1 / np.sqrt(x),
}
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


def _cmpf(predicate: str, a: Any, b: Any) -> bool:
    unordered = bool(np.isnan(a) or np.isnan(b))
    base = predicate[1:] if predicate[0] in "ou" else predicate
    if predicate == "ord":
        return not unordered
    if predicate == "uno":
        return unordered
    if predicate in ("true", "false"):
        return predicate == "true"
    result = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": a != b}[base]
    return bool(result) if predicate[0] == "o" else unordered or bool(result)


def eval_scalar(op: Operation, args: list[Any]) -> Any:
    """Evaluate a scalar arith/math op on the host, on numpy scalars."""
    kind = type(op)
    if isinstance(op, arith.ConstantOp):
        value = op.value
        assert isinstance(value, IntegerAttr | FloatAttr)
        return _wrap(op, value.value.data)
    if kind in _BINARY:
        return _wrap(op, _BINARY[kind](*args))
    if kind in _UNARY:
        return _wrap(op, _UNARY[kind](*args))
    if isinstance(op, arith.CmpiOp):
        predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        a, b = args
        if predicate.startswith("u"):
            a, b = _unsigned(np.asarray(a)), _unsigned(np.asarray(b))
        return np.bool_(_CMPI[predicate](a, b))
    if isinstance(op, arith.CmpfOp):
        return np.bool_(_cmpf(arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data], *args))
    if isinstance(op, arith.SelectOp):
        return args[1] if args[0] else args[2]
    if isinstance(op, mathd.FmaOp):
        return _wrap(op, args[0] * args[1] + args[2])
    if isinstance(op, arith.ExtUIOp | arith.UIToFPOp):
        return _wrap(op, _unsigned(np.asarray(args[0])))
    if len(op.operands) == 1 and len(op.results) == 1 and op.name.startswith("arith."):
        return _wrap(op, args[0])  # casts
    raise OpenCLRuntimeError(f"the host cannot evaluate '{op.name}'")


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
    evaluate = _numpy_evaluator(op)
    message = error_message(op, DIVISION_PROBLEM).format() if isinstance(op, DIVISIONS) else None

    def run(*args: Any) -> Any:
        values = [convert(a) for convert, a in zip(inputs, args)]
        if message is not None and not values[1]:
            raise ProgramError(message)
        with np.errstate(all="ignore"):
            return output(evaluate(values))

    return run


def _numpy_evaluator(op: Operation) -> Callable[[list[Any]], Any]:
    """`eval_scalar` for `op`, with the lookup of its function and result type done once where that is possible."""
    function = _BINARY.get(type(op)) or _UNARY.get(type(op))
    dtype = numpy_dtype(op.results[0].type) if len(op.results) == 1 else None
    if function is None or dtype is None:
        return lambda args: eval_scalar(op, args)
    return lambda args: np.asarray(function(*args)).astype(dtype)[()]


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
