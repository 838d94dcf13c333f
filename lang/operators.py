"""Python's operators, conversions and element-wise application on symbolic values.

Scalars get `arith` and `math` ops with Python's and numpy's meaning: `//` and
`%` round towards minus infinity, `/` on integers is an error (use `//`), integer
`**` needs a constant exponent (a float `x ** 2` is `x * x`, as numpy computes it);
on arrays every operator is element-wise (a `soac.map`, nested for higher ranks),
with numpy's broadcasting of scalars, of arrays of lower rank and of dimensions of
size 1. Operand types must agree, except that weak values (Python constants and
arguments, what is computed from them only, and arrays made of them) and sizes take
the type of the other operand.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

from soac.arith_remf import RemFOp
from soac.lang import dtypes
from soac.lang.conversions import convert_scalar, retyped
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTypeError, located
from soac.lang.soacs import map_, retype_array
from soac.lang.tracer import Tracer
from soac.lang.values import Array, Scalar, Value, as_scalar, constant, emit_value, known_dim, use
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Operation, SSAValue

# ---------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------


def convert(value: Any, dtype: DType) -> Any:
    """`dtype(value)`: converts a symbolic value (element-wise for arrays), or makes a constant."""
    if isinstance(value, Array):
        return value.astype(dtype)
    if isinstance(value, Scalar):
        return convert_scalar(value, dtype)
    if Tracer.current_or_none() is None:
        return dtype.numpy.type(value)
    kind = dtypes.of_python(value)
    if kind is None:
        raise SoacTypeError(located(f"cannot convert {type(value).__name__} {value!r} to {dtype}"))
    if dtype.is_integer and kind.is_float:
        value = int(value)  # pyright: ignore[reportArgumentType]
    return constant(value, dtype)


# ---------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------

_INT_OPS: dict[str, Callable[[SSAValue, SSAValue], Operation]] = {
    "+": arith.AddiOp,
    "-": arith.SubiOp,
    "*": arith.MuliOp,
    "//": arith.FloorDivSIOp,
    "&": arith.AndIOp,
    "|": arith.OrIOp,
    "^": arith.XOrIOp,
    "<<": arith.ShLIOp,
    ">>": arith.ShRSIOp,
}
_FLOAT_OPS: dict[str, Callable[[SSAValue, SSAValue], Operation]] = {
    "+": arith.AddfOp,
    "-": arith.SubfOp,
    "*": arith.MulfOp,
    "/": arith.DivfOp,
    "**": mathd.PowFOp,
}
_BOOL_OPS = {"&": arith.AndIOp, "|": arith.OrIOp, "^": arith.XOrIOp}
_UNSIGNED_OPS: dict[str, Callable[[SSAValue, SSAValue], Operation]] = {
    **_INT_OPS,
    "//": arith.DivUIOp,
    "%": arith.RemUIOp,
    ">>": arith.ShRUIOp,
}
"""Unsigned integers: floor division and modulo are the unsigned quotient and remainder, `>>` fills with zeros."""
_INT_COMPARE = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
_UNSIGNED_COMPARE = {"<": "ult", "<=": "ule", ">": "ugt", ">=": "uge", "==": "eq", "!=": "ne"}
_FLOAT_COMPARE = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}


def _operand_types(symbol: str, a: Any, b: Any) -> DType:
    """The type both operands of `a symbol b` take: the symbolic one's; two symbolic ones must agree."""
    sa, sb = isinstance(a, Value), isinstance(b, Value)
    ta = a.dtype if sa else None
    tb = b.dtype if sb else None
    if ta is not None and tb is not None and ta != tb:
        raise SoacTypeError(located(f"'{symbol}' of {ta} and {tb}: the types must agree; {_conversion_hint(ta, tb)}"))
    result = ta or tb
    assert result is not None
    return result


def _conversion_hint(ta: DType, tb: DType) -> str:
    """Which conversion to suggest for operands of types `ta` (left) and `tb` (right): the integer to the float, else
    the narrower to the wider type (numpy's promotion), so that no value is cut."""
    if ta.is_float != tb.is_float:
        target, side = (ta, "right") if ta.is_float else (tb, "left")
    elif ta.bits != tb.bits:
        target, side = (ta, "right") if ta.bits > tb.bits else (tb, "left")
    else:
        target, side = tb, "left"
    name = target.name if target.kind != "b" else "i32"
    return f"convert the {side} operand explicitly, e.g. sl.{name}(x)"


def unify(a: Any, b: Any) -> tuple[Any, Any]:
    """Two operands of one type where the rules allow: a weak scalar takes the type of a typed one, and a size
    (`index`) the type of another integer (`n - 1 - i` with `i: i64` is an i64)."""
    if isinstance(a, Scalar) and isinstance(b, Scalar) and a.dtype != b.dtype:
        if a.weak != b.weak:
            return (retyped(a, b.ir_type), b) if a.weak else (a, retyped(b, a.ir_type))
        if a.dtype.kind == "x" and b.dtype.kind in "iu":
            return convert_scalar(a, b.dtype), b
        if b.dtype.kind == "x" and a.dtype.kind in "iu":
            return a, convert_scalar(b, a.dtype)
    return a, b


def weak(*values: Any) -> bool:
    """A result is weak when every symbolic operand is (Python constants are)."""
    return all(v.weak for v in values if isinstance(v, Scalar))


def binary(symbol: str, a: Any, b: Any) -> Any:
    """`a symbol b` on symbolic values (at least one of them), element-wise on arrays."""
    if isinstance(a, Array) or isinstance(b, Array):
        return elementwise(lambda x, y: binary(symbol, x, y), [a, b])
    a, b = unify(a, b)
    dtype = _operand_types(symbol, a, b)
    x = as_scalar(a, dtype, f"the left operand of '{symbol}'")
    y = as_scalar(b, dtype, f"the right operand of '{symbol}'")
    return scalar_binary(symbol, x, y)


def scalar_binary(symbol: str, x: Scalar, y: Scalar) -> Scalar:  # noqa: C901
    dtype = x.dtype
    u, v = use(x), use(y)
    w = weak(x, y)
    if symbol in _INT_COMPARE:
        if dtype.is_float:
            return emit_value(arith.CmpfOp(u, v, _FLOAT_COMPARE[symbol]), dtypes.bool_, w)
        if dtype.kind == "b" and symbol not in ("==", "!="):
            raise SoacTypeError(located(f"'{symbol}' on booleans; convert them to integers first"))
        predicates = _UNSIGNED_COMPARE if dtype.is_unsigned else _INT_COMPARE
        return emit_value(arith.CmpiOp(u, v, predicates[symbol]), dtypes.bool_, w)
    if dtype.kind == "b":
        if symbol not in _BOOL_OPS:
            raise SoacTypeError(located(f"'{symbol}' on booleans; convert them to integers first (sl.i32(b))"))
        return emit_value(_BOOL_OPS[symbol](u, v), dtype, w)
    if dtype.is_float:
        if symbol == "//":
            return _float_floor_divide(x, y)
        if symbol == "%":
            return _float_mod(x, y)
        if symbol not in _FLOAT_OPS:
            raise SoacTypeError(located(f"'{symbol}' on floats ({dtype}); it needs integers"))
        if symbol == "**" and (special := _special_power(x, y)) is not None:
            return special
        return emit_value(_FLOAT_OPS[symbol](u, v), dtype, w)
    if symbol == "/":
        raise SoacTypeError(
            located(f"'/' on integers ({dtype}): use '//' for integer division, or convert to a float type first")
        )
    if symbol == "**":
        return _integer_power(x, y)
    if dtype.is_unsigned:
        return emit_value(_UNSIGNED_OPS[symbol](u, v), dtype, w)
    if symbol == "%":
        return _python_mod(x, y, emit_value(arith.RemSIOp(u, v), dtype, w))
    return emit_value(_INT_OPS[symbol](u, v), dtype, w)


def select(flag: Scalar, x: Scalar, y: Scalar) -> Scalar:
    """`x if flag else y` on scalars of one type (`arith.select`; `sl.where` is this with numpy's rules on top)."""
    return emit_value(arith.SelectOp(use(flag), use(x), use(y)), x.dtype, weak(x, y))


def _fmod(x: Scalar, y: Scalar) -> tuple[Scalar, Scalar]:
    """C's exact `fmod(x, y)` (sign of x), and whether Python's modulo (sign of y) adds y to it."""
    remainder = emit_value(RemFOp(use(x), use(y)), x.dtype, weak(x, y))
    zero = constant(0, x.dtype)
    return remainder, (remainder != zero) & ((remainder < zero) ^ (y < zero))


def _float_mod(x: Scalar, y: Scalar) -> Scalar:
    """numpy's float remainder (`npy_divmod`): fmod, moved to the sign of y; NaN for y == 0."""
    remainder, adjust = _fmod(x, y)
    return select(adjust, scalar_binary("+", remainder, y), remainder)


def _float_floor_divide(x: Scalar, y: Scalar) -> Scalar:
    """numpy's float floor division (`npy_divmod`): (x - fmod(x, y)) / y, an integer up to rounding, minus one where
    the remainder moves to the sign of y, then snapped to the nearest integer; x / y (inf or NaN) for y == 0."""
    remainder, adjust = _fmod(x, y)
    div = scalar_binary("/", scalar_binary("-", x, remainder), y)
    div = select(adjust, scalar_binary("-", div, constant(1, x.dtype, weak=True)), div)
    down = unary("floor", div)
    snapped = select(scalar_binary(">", scalar_binary("-", div, down), constant(0.5, x.dtype, weak=True)), down + 1, down)
    zero = constant(0, x.dtype)
    return select(y == zero, scalar_binary("/", x, y), snapped)


def _python_mod(x: Scalar, y: Scalar, remainder: Scalar) -> Scalar:
    """Python's (and numpy's) modulo, whose sign is the divisor's, from C's remainder, whose sign is the dividend's."""
    zero = constant(0, x.dtype)
    differs = (remainder != zero) & ((remainder < zero) ^ (y < zero))
    return select(differs, remainder + y, remainder)


def _special_power(x: Scalar, y: Scalar) -> Scalar | None:
    """`x ** c` for the constant exponents numpy computes without `pow` (its fast scalar powers): `x ** 2` is
    `x * x`, `x ** 0.5` is `sqrt(x)`, `x ** -1` is `1 / x`, `x ** 1` is x and `x ** 0` is 1; None for others."""
    owner = y.ssa.owner
    if not isinstance(owner, arith.ConstantOp):
        return None
    exponent = owner.value.value.data  # pyright: ignore[reportAttributeAccessIssue]
    if exponent == 2:
        return scalar_binary("*", x, x)
    if exponent == 0.5:
        return unary("sqrt", x)
    if exponent == -1:
        return scalar_binary("/", constant(1, x.dtype, weak=True), x)
    if exponent == 1:
        return x
    if exponent == 0:
        return constant(1, x.dtype, weak=x.weak)
    return None


def _integer_power(x: Scalar, y: Scalar) -> Scalar:
    owner = y.ssa.owner
    if isinstance(owner, arith.BitcastOp):  # an unsigned constant (see soac.signless)
        owner = owner.input.owner
    if not (isinstance(owner, arith.ConstantOp) and isinstance(owner.value.type, IntegerType | IndexType)):
        raise SoacTypeError(located("'**' on integers needs a constant non-negative exponent; use floats for others"))
    exponent = owner.value.value.data  # pyright: ignore[reportAttributeAccessIssue]
    if exponent < 0:
        raise SoacTypeError(located("'**' on integers needs a non-negative exponent"))
    result = constant(1, x.dtype)
    for _ in range(exponent):
        result = scalar_binary("*", result, x)
    return result


_FLOAT_UNARY: dict[str, Callable[[SSAValue], Operation]] = {
    "-": arith.NegfOp,
    "abs": mathd.AbsFOp,
    "floor": mathd.FloorOp,
    "ceil": mathd.CeilOp,
    "sqrt": mathd.SqrtOp,
    "exp": mathd.ExpOp,
    "log": mathd.LogOp,
    "log2": mathd.Log2Op,
    "exp2": mathd.Exp2Op,
    "sin": mathd.SinOp,
    "cos": mathd.CosOp,
    "tan": mathd.TanOp,
    "tanh": mathd.TanhOp,
    "atan": mathd.AtanOp,
    "erf": mathd.ErfOp,
    "rsqrt": mathd.RsqrtOp,
}


def unary(name: str, a: Any) -> Any:
    """`name(a)` for an operator or math function of one operand, element-wise on arrays."""
    if isinstance(a, Array):
        return elementwise(lambda x: unary(name, x), [a])
    if not isinstance(a, Scalar):
        a = as_scalar(a, None, f"the operand of {name}")
    dtype = a.dtype
    if dtype.is_float:
        if name == "~":
            raise SoacTypeError(located(f"'~' on a float ({dtype})"))
        return emit_value(_FLOAT_UNARY[name](use(a)), dtype, a.weak)
    if name == "-":
        return scalar_binary("-", constant(0, dtype, weak=True), a)
    if name == "abs" and dtype.is_unsigned:
        return a
    if name == "abs":
        return select(a < constant(0, dtype, weak=True), -a, a)
    if name == "~":
        ones = True if dtype.kind == "b" else (1 << dtype.bits) - 1 if dtype.is_unsigned else -1
        return scalar_binary("^", a, constant(ones, dtype, weak=True))
    if name in ("floor", "ceil"):
        return a
    raise SoacTypeError(located(f"{name} needs a float, not a {a.describe()}; convert first, e.g. sl.f32(x)"))


def elementwise(fn: Callable[..., Any], operands: Sequence[Any]) -> Any:
    """`fn` applied to the elements of the array operands, with numpy's broadcasting: scalars and arrays of lower
    rank (aligned on the last dimensions) are passed whole to each row of the arrays of highest rank, and so is an
    array whose outer size is a constant 1 (`m.max(axis=1, keepdims=True)`) where others have other sizes. A weak
    array (made from Python constants) first takes the type of the typed operands."""
    operands = unify_arrays(operands)
    arrays = [o for o in operands if isinstance(o, Array)]
    if not arrays:
        return fn(*operands)
    rank = builtins.max(a.rank for a in arrays)
    top = [a for a in arrays if a.rank == rank]
    stretched = [a for a in top if known_size(a, 0) == 1]
    if len(stretched) == len(top):
        stretched = []
    operands = [o[0] if any(o is a for a in stretched) else o for o in operands]
    positions = [i for i, o in enumerate(operands) if isinstance(o, Array) and o.rank == rank]

    def on_rows(*rows: Any) -> Any:
        args = list(operands)
        for position, row in zip(positions, rows):
            args[position] = row
        return elementwise(fn, args)

    return map_(on_rows, *(operands[i] for i in positions))


def known_size(array: Array, k: int) -> int | None:
    """Dimension `k` of `array` when it is a constant known while tracing (else None); makes no IR."""
    known = known_dim(array, k)
    if known is not None and isinstance(owner := known.ssa.owner, arith.ConstantOp):
        return owner.value.value.data  # pyright: ignore[reportAttributeAccessIssue]
    return None


def unify_arrays(operands: Sequence[Any]) -> list[Any]:
    """The operands with each weak array (`sl.replicate(n, 0)`) converted to the type of the typed operands, when
    they agree on one and the conversion cuts nothing (a weak float array stays a float array)."""
    operands = list(operands)
    if not any(isinstance(o, Array) and o.weak for o in operands):
        return operands
    typed = {o.dtype for o in operands if isinstance(o, Array | Scalar) and not o.weak}
    if len(typed) != 1:
        return operands
    (dtype,) = typed
    return [retype_array(o, dtype) if isinstance(o, Array) and o.weak else o for o in operands]
