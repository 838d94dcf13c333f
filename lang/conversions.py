"""Conversions between the element types of symbolic scalars, and of weak values to the types they meet.

These are the conversions that the combinators need below Python's operators (`soac.lang.operators`, which builds
element-wise application on `soac.lang.soacs`): numpy's casts between element types (`convert_scalar`), a weak
scalar taking the type it meets (`retyped`; a Python int argument narrowed with a run-time check) and sizes and
positions as `index` values (`as_index`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from soac import dialect as soac
from soac.lang import dtypes
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTypeError, located, user_location
from soac.lang.tracer import Tracer
from soac.lang.values import Scalar, Value, constant, emit_value, use
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, TensorType, i64
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue


def convert_scalar(x: Scalar, dtype: DType) -> Scalar:  # noqa: C901
    """`x` as `dtype`, with numpy's meaning: integers wrap (sign- or zero-extended by the source's signedness),
    floats truncate towards zero, anything to bool is `!= 0`."""
    src = x.dtype
    if src == dtype:
        return x
    v = use(x)
    if src.kind == "x":  # index: through i64
        v = _emit(arith.IndexCastOp(v, i64))
        src = dtypes.int64
        if dtype == src:
            return Scalar(v, Tracer.current("").scope, dtype, user_location())
    if dtype.kind == "x":
        if src.is_float:
            v = _emit(arith.FPToSIOp(v, i64))
        elif src.kind in "bu":
            v = _emit(arith.ExtUIOp(v, i64) if src.bits < 64 else arith.BitcastOp(v, i64))
        return emit_value(arith.IndexCastOp(v, IndexType()), dtype)
    if dtype.kind == "b":
        zero = constant(0, src).ssa
        return emit_value(arith.CmpfOp(v, zero, "une") if src.is_float else arith.CmpiOp(v, zero, "ne"), dtype)
    if src.kind == "b":
        op = arith.UIToFPOp(v, dtype.ir) if dtype.is_float else arith.ExtUIOp(v, dtype.ir)  # pyright: ignore[reportArgumentType]
        return emit_value(op, dtype)
    if src.is_float and dtype.is_float:
        op = arith.ExtFOp(v, dtype.ir) if dtype.bits > src.bits else arith.TruncFOp(v, dtype.ir)
    elif src.is_float:
        op = (arith.FPToUIOp if dtype.is_unsigned else arith.FPToSIOp)(v, dtype.ir)  # pyright: ignore[reportArgumentType]
    elif dtype.is_float:
        op = (arith.UIToFPOp if src.is_unsigned else arith.SIToFPOp)(v, dtype.ir)  # pyright: ignore[reportArgumentType]
    elif dtype.bits > src.bits:
        op = (arith.ExtUIOp if src.is_unsigned else arith.ExtSIOp)(v, dtype.ir)  # pyright: ignore[reportArgumentType]
    elif dtype.bits < src.bits:
        op = arith.TruncIOp(v, dtype.ir)  # pyright: ignore[reportArgumentType]
    else:  # the same bits, read with the other signedness
        op = arith.BitcastOp(v, dtype.ir)
    return emit_value(op, dtype)


def _emit(op: Operation) -> SSAValue:
    """Emit `op` (one result) and return its SSA value."""
    Tracer.current(op.name).emit(op)
    return op.results[0]


def retyped(value: Value, t: Attribute) -> Value:
    """`value` as IR type `t` if it is a weak scalar of another type (else `value` itself)."""
    if not (isinstance(value, Scalar) and value.weak) or value.ir_type == t or isinstance(t, TensorType):
        return value
    dtype = dtypes.from_ir(t)
    owner = value.ssa.owner
    if isinstance(owner, arith.ConstantOp):
        return constant(owner.value.value.data, dtype)  # pyright: ignore[reportAttributeAccessIssue]
    if value.dtype.is_float and not dtype.is_float:
        raise SoacTypeError(
            located(
                f"a float computed from Python constants or passed as a Python float where a {dtype} is needed; "
                f"convert explicitly, e.g. sl.{dtype.name}(x)"
            )
        )
    if isinstance(value.ssa, BlockArgument) and value.scope.parent is None and dtype.is_integer and dtype.bits < value.dtype.bits:
        return _narrowed_argument(value, dtype)
    return convert_scalar(value, dtype)


def _narrowed_argument(value: Scalar, dtype: DType) -> Scalar:
    """A Python int argument as the narrower integer type it meets (`i * steps` with an i32 `i`), converted once in
    the function's body and checked when the program runs: a value that does not fit is an error, not a wrap."""
    known = value.narrowed.get(dtype)
    if known is not None:
        return known
    tracer = Tracer.current("a Python int argument")
    inner = tracer.scope
    tracer.scope = value.scope
    try:
        narrow = convert_scalar(value, dtype)
        fits = emit_value(arith.CmpiOp(use(convert_scalar(narrow, value.dtype)), use(value), "eq"), dtypes.bool_)
        message = f"a Python int argument ({{0}}) does not fit in {dtype}, the type of what it meets"
        tracer.emit(soac.AssertOp(fits.ssa, message, [value.ssa]))
    finally:
        tracer.scope = inner
    narrow.weak = True
    value.narrowed[dtype] = narrow
    return narrow


def as_index(value: Any, what: str = "an index") -> SSAValue:
    """An `index` SSA value for a size or position given as an int constant or an integer scalar."""
    integer = isinstance(value, Scalar) and value.dtype.is_integer
    if isinstance(value, bool | np.bool_) or (isinstance(value, Value) and not integer):
        got = value.describe() if isinstance(value, Value) else "bool"
        raise SoacTypeError(located(f"{what} must be an integer, not a {got}"))
    if not isinstance(value, Value):
        return constant(value, dtypes.index).ssa
    return use(convert_scalar(value, dtypes.index))
