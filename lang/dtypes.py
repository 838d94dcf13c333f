"""The element types of the embedding and their numpy and IR counterparts.

`soac.lang.i32` and friends are both type tags (`iota(n, dtype=i32)`) and
conversions: `f32(x)` converts a symbolic scalar (or array, element-wise), and
`f32(2.5)` makes a typed constant (`DType.__call__`, which `soac.lang.methods`
attaches, as conversions build on the modules above this one).

Unsigned integers (`u8` ... `u64`, numpy's `uint8` ...) are traced as MLIR's unsigned integer types (`ui8`), so that
every symbolic value knows its signedness and its operators pick the unsigned `arith` ops (`divui`, `cmpi ult`,
`extui`, `uitofp`, ...). soac's IR itself is signless: `soac.signless.erase_signedness` turns the traced `ui8` into
`i8` before the passes, and `@jit` hands results back as the unsigned numpy arrays and scalars they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from soac.lang.errors import SoacTypeError, located
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute


@dataclass(frozen=True)
class DType:
    """An element type: its name, its IR type and its numpy dtype; `kind` is 'b' (bool), 'i', 'u' (unsigned), 'f' or 'x'
    (index)."""

    name: str
    ir: Attribute = field(repr=False)
    numpy: np.dtype[Any] = field(repr=False)
    kind: str = field(repr=False)
    weak: bool = field(default=False, repr=False)
    """The type of a Python int or float argument of a jitted function, which takes the type of what it meets."""

    @property
    def bits(self) -> int:
        return 64 if self.kind == "x" else self.numpy.itemsize * 8 if self.kind != "b" else 1

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.kind in "iux"

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "u"

    def __str__(self) -> str:
        return self.name


bool_ = DType("bool", i1, np.dtype(np.bool_), "b")
int8 = DType("i8", i8, np.dtype(np.int8), "i")
int16 = DType("i16", i16, np.dtype(np.int16), "i")
int32 = DType("i32", i32, np.dtype(np.int32), "i")
int64 = DType("i64", i64, np.dtype(np.int64), "i")
uint8 = DType("u8", IntegerType(8, Signedness.UNSIGNED), np.dtype(np.uint8), "u")
uint16 = DType("u16", IntegerType(16, Signedness.UNSIGNED), np.dtype(np.uint16), "u")
uint32 = DType("u32", IntegerType(32, Signedness.UNSIGNED), np.dtype(np.uint32), "u")
uint64 = DType("u64", IntegerType(64, Signedness.UNSIGNED), np.dtype(np.uint64), "u")
float32 = DType("f32", f32, np.dtype(np.float32), "f")
float64 = DType("f64", f64, np.dtype(np.float64), "f")
index = DType("index", IndexType(), np.dtype(np.int64), "x")
"""Sizes and positions (`xs.shape[0]`, the counter of `loop`): MLIR's `index`, held as int64."""

ALL = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, index)
_BY_NUMPY = {t.numpy: t for t in ALL if t is not index}
_BY_IR = {t.ir: t for t in ALL}


def from_numpy(dtype: np.dtype[Any]) -> DType | None:
    """The element type of numpy `dtype`, or None if the embedding has none (complex, float16, ...)."""
    return _BY_NUMPY.get(np.dtype(dtype))


def element_type(dtype: object, what: str) -> DType:
    """`dtype` as an element type: one of the embedding's (`sl.f32`) or a numpy dtype that has one (`np.float32`,
    `"float32"`); SoacTypeError names the user's line otherwise."""
    if isinstance(dtype, DType):
        return dtype
    try:
        found = from_numpy(np.dtype(dtype)) if dtype is not None else None  # pyright: ignore[reportArgumentType]
    except TypeError:
        found = None
    if found is None:
        given = getattr(dtype, "__name__", repr(dtype))
        types = "sl.bool_, sl.i8 ... sl.i64, sl.u8 ... sl.u64, sl.f32, sl.f64"
        raise SoacTypeError(located(f"{what} must be an element type ({types}), not {given}"))
    return found


def from_ir(t: Attribute) -> DType:
    found = _BY_IR.get(t)
    if found is None:
        raise ValueError(f"no element type of the embedding for {t}")
    return found


def of_python(value: object) -> DType | None:
    """The type a Python or numpy constant takes when nothing else fixes it (numpy's defaults: i64, f64)."""
    if isinstance(value, bool | np.bool_):
        return bool_
    if isinstance(value, np.generic):
        return from_numpy(value.dtype)
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return float64
    return None


_WEAK_INT = replace(int64, weak=True)
_WEAK_FLOAT = replace(float64, weak=True)


def of_argument(value: object) -> DType | None:
    """The type of a scalar argument of a jitted function: a Python int or float is weak (JAX's weak types)."""
    if isinstance(value, int | float) and not isinstance(value, bool | np.generic):
        return _WEAK_INT if isinstance(value, int) else _WEAK_FLOAT
    return of_python(value)


def is_ir_float(t: Attribute) -> bool:
    return isinstance(t, Float32Type | Float64Type)


def is_ir_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType | IndexType)
