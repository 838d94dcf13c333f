"""The C operators and functions that `arith` and `math` ops print as, and C literals of constants.

Tables, not printers: `printer.CPrinter.arith` reads them. Where C's operators differ from MLIR's semantics
(signed overflow, `i1` read as -1 by signed ops, shifts by the width or more, NaN-propagating min and max) the
printer wraps them; the notes on each table say how.
"""

from __future__ import annotations

import math

from soac.arith_remf import RemFOp
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType, UnitAttr
from xdsl.ir import Attribute, SSAValue


class EmitError(Exception):
    """Something in a kernel that has no form in the language printed."""


BINARY = {
    arith.AddiOp: "+",
    arith.SubiOp: "-",
    arith.MuliOp: "*",
    arith.DivSIOp: "/",
    arith.RemSIOp: "%",
    arith.AndIOp: "&",
    arith.OrIOp: "|",
    arith.XOrIOp: "^",
    arith.AddfOp: "+",
    arith.SubfOp: "-",
    arith.MulfOp: "*",
    arith.DivfOp: "/",
}
UNSIGNED_BINARY = {arith.DivUIOp: "/", arith.RemUIOp: "%"}
WRAPPING = {arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*"}
"""Integer add, sub and mul wrap (as in the interpreter); signed overflow is undefined in C, and compilers use that
(PoCL folded `min(x, x + 3)` to `x`). On integer types they compute in unsigned arithmetic (32-bit for up to 32
bits: `ushort * ushort` would overflow a promoted `int`); `index` arithmetic, the kernels' own, stays signed."""
INTEGER_MIN_MAX = {arith.MaxSIOp: ">", arith.MinSIOp: "<", arith.MaxUIOp: ">", arith.MinUIOp: "<"}
"""Integer max/min print as `a > b ? a : b` (compared as unsigned for maxui/minui): PoCL calls the `max`/`min`
builtins out of line, which keeps a chunk fold with `max` from vectorising (23 ms against 3.0 ms for 2^24 int32).
Float max/min are `fmax`/`fmin`, which return the other operand of a NaN: right for `maxnumf`/`minnumf`, while
`maximumf`/`minimumf` (NaN wins, as numpy's maximum) print through `NAN_PROPAGATING`."""
NAN_PROPAGATING = {arith.MaximumfOp: "fmax", arith.MinimumfOp: "fmin"}
"""`maximumf(a, b)` prints as `isnan(a) || isnan(b) ? a + b : fmax(a, b)`: a NaN operand gives NaN."""
CALLS = {
    arith.MaxnumfOp: "fmax",
    arith.MinnumfOp: "fmin",
    mathd.ExpOp: "exp",
    mathd.LogOp: "log",
    mathd.SqrtOp: "sqrt",
    mathd.SinOp: "sin",
    mathd.CosOp: "cos",
    mathd.TanOp: "tan",
    mathd.TanhOp: "tanh",
    mathd.AtanOp: "atan",
    mathd.Atan2Op: "atan2",
    mathd.AbsFOp: "fabs",
    mathd.PowFOp: "pow",
    mathd.FmaOp: "fma",
    mathd.FloorOp: "floor",
    mathd.CeilOp: "ceil",
    mathd.ErfOp: "erf",
    mathd.RsqrtOp: "rsqrt",
    mathd.Exp2Op: "exp2",
    mathd.Log2Op: "log2",
    mathd.Log10Op: "log10",
    mathd.Log1pOp: "log1p",
    mathd.ExpM1Op: "expm1",
    mathd.RoundOp: "round",
    mathd.TruncOp: "trunc",
    mathd.CopySignOp: "copysign",
    RemFOp: "fmod",
    mathd.SinhOp: "sinh",
    mathd.CoshOp: "cosh",
    mathd.AsinOp: "asin",
    mathd.AcosOp: "acos",
    mathd.CbrtOp: "cbrt",
    mathd.AcoshOp: "acosh",
    mathd.AsinhOp: "asinh",
    mathd.AtanhOp: "atanh",
    mathd.RoundEvenOp: "rint",
}
"""Functions of C99's math.h (and `rsqrt`, which the GPU languages have) by op."""
BOOLEAN_BINARY = {
    arith.AddiOp: "^",
    arith.SubiOp: "^",
    arith.MuliOp: "&",
    arith.MinSIOp: "|",
    arith.MaxSIOp: "&",
}
"""`i1` ops as C operators on `bool`s (0 and 1): MLIR's `i1` wraps, and signed ops read true as -1 (so the signed
minimum of true and false is true)."""
BOOLEAN_DIVISIONS = (
    arith.DivSIOp,
    arith.DivUIOp,
    arith.RemSIOp,
    arith.RemUIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
)
SHIFTS = (arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp)
CASTS = (
    arith.IndexCastOp,
    arith.ExtSIOp,
    arith.TruncIOp,
    arith.SIToFPOp,
    arith.FPToSIOp,
    arith.ExtFOp,
    arith.TruncFOp,
)
UNSIGNED_CASTS = (arith.ExtUIOp, arith.UIToFPOp)
CMPI = {
    "eq": "==",
    "ne": "!=",
    "slt": "<",
    "sle": "<=",
    "sgt": ">",
    "sge": ">=",
    "ult": "<",
    "ule": "<=",
    "ugt": ">",
    "uge": ">=",
}
CMPF = {"oeq": "==", "ogt": ">", "oge": ">=", "olt": "<", "ole": "<=", "une": "!="}
CMPF_UNORDERED = {"ueq": "!=", "ugt": "<=", "uge": "<", "ult": ">=", "ule": ">"}


def is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def bit_width(t: Attribute) -> int:
    return 64 if isinstance(t, IndexType) else t.width.data  # pyright: ignore[reportAttributeAccessIssue]


def constant_value(value: SSAValue) -> int | None:
    if isinstance(op := value.owner, arith.ConstantOp) and isinstance(attr := op.value, IntegerAttr):
        return attr.value.data
    return None


def literal(attr: Attribute, t: Attribute) -> str:
    """A C literal for a constant."""
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "true" if value else "false"
        if isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data == 64):
            return f"({value + 1}L - 1)" if value == -(2**63) else f"{value}L"
        if value == -(2**31):  # `-2147483648` is a long in C (the literal is 2147483648, negated)
            return "(-2147483647 - 1)"
        return str(value)
    if isinstance(attr, FloatAttr):
        value = attr.value.data
        suffix = "f" if str(t) == "f32" else ""
        if math.isnan(value):
            return "NAN"
        if math.isinf(value):
            return "INFINITY" if value > 0 else "-INFINITY"
        text = repr(float(value))
        return text + suffix
    if isinstance(attr, UnitAttr):
        return "true"
    raise EmitError(f"no C literal for {attr}")
