"""`arith` ops, with MLIR semantics, on whole batches at once.

Integers wrap; unsigned ops reinterpret the bits; `i1` is stored as numpy bool
and computed on as a one-bit integer (signed: true is -1). Shifts by at least
the bit width (poison in MLIR) give 0 (`shli`, `shrui`) or the sign fill
(`shrsi`). Float-to-integer casts of NaN or out-of-range values (poison) give
whatever numpy's cast gives.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from soac.interpreter.core import SoacInterpreter
from soac.interpreter.errors import fail
from soac.interpreter.frame import Frame
from soac.interpreter.registry import implements
from soac.interpreter.values import Val, align, bitwidth, dtype_of, unsigned_dtype
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr
from xdsl.ir import Operation

Binary = Callable[[np.ndarray, np.ndarray], np.ndarray]


# -- integer views ------------------------------------------------------------


def signed(x: np.ndarray) -> np.ndarray:
    """The two's-complement values (i1 true is -1)."""
    return -(x.astype(np.int8)) if x.dtype == np.bool_ else x


def unsigned(x: np.ndarray) -> np.ndarray:
    return x.astype(np.uint8) if x.dtype == np.bool_ else x.view(unsigned_dtype(x.dtype))


def back(res: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Wrap an integer result to `dtype`."""
    res = np.asarray(res)
    if dtype == np.bool_:
        return (res & 1).astype(np.bool_)
    if res.dtype.itemsize == dtype.itemsize and res.dtype.kind in "iu":
        return res.view(dtype)
    return res.astype(dtype)


def _on_signed(fn: Binary) -> Binary:
    return lambda x, y: back(fn(signed(x), signed(y)), x.dtype)


def _on_unsigned(fn: Binary) -> Binary:
    return lambda x, y: back(fn(unsigned(x), unsigned(y)), x.dtype)


# -- integer arithmetic ---------------------------------------------------------


def _divsi(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    q = np.floor_divide(x, y)
    return q + (((x - q * y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)


def _ceildiv(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    q = np.floor_divide(x, y)
    return q + ((x - q * y) != 0).astype(q.dtype)


def _shift(kind: str) -> Binary:
    def shift(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        width = bitwidth(x.dtype)
        amount = unsigned(y).astype(np.uint64)
        clamped = np.minimum(amount, width - 1)
        if kind == "shrsi":
            return back(np.right_shift(signed(x), clamped.astype(signed(x).dtype)), x.dtype)
        u = unsigned(x)
        moved = np.left_shift(u, clamped.astype(u.dtype)) if kind == "shli" else np.right_shift(u, clamped.astype(u.dtype))
        return back(np.where(amount >= width, np.zeros_like(u), moved), x.dtype)

    return shift


INT_BINARY: dict[str, Binary] = {
    "arith.addi": _on_signed(np.add),
    "arith.subi": _on_signed(np.subtract),
    "arith.muli": _on_signed(np.multiply),
    "arith.divsi": _on_signed(_divsi),
    "arith.remsi": _on_signed(np.fmod),
    "arith.floordivsi": _on_signed(np.floor_divide),
    "arith.ceildivsi": _on_signed(_ceildiv),
    "arith.divui": _on_unsigned(np.floor_divide),
    "arith.remui": _on_unsigned(np.remainder),
    "arith.ceildivui": _on_unsigned(_ceildiv),
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
    "arith.maxsi": _on_signed(np.maximum),
    "arith.minsi": _on_signed(np.minimum),
    "arith.maxui": _on_unsigned(np.maximum),
    "arith.minui": _on_unsigned(np.minimum),
    "arith.shli": _shift("shli"),
    "arith.shrsi": _shift("shrsi"),
    "arith.shrui": _shift("shrui"),
}

DIVISIONS = frozenset(
    {"arith.divsi", "arith.remsi", "arith.floordivsi", "arith.ceildivsi", "arith.divui", "arith.remui", "arith.ceildivui"}
)


# -- floats -------------------------------------------------------------------


def maximumf(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """IEEE maximum: NaN if either is NaN, and +0 > -0."""
    return np.where(x == y, np.where(np.signbit(x), y, x), np.maximum(x, y))


def minimumf(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(x == y, np.where(np.signbit(x), x, y), np.minimum(x, y))


FLOAT_BINARY: dict[str, Binary] = {
    "arith.addf": np.add,
    "arith.subf": np.subtract,
    "arith.mulf": np.multiply,
    "arith.divf": np.divide,
    "arith.remf": np.fmod,
    "arith.maximumf": maximumf,
    "arith.minimumf": minimumf,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
}

BINARY: dict[str, Binary] = INT_BINARY | FLOAT_BINARY


def lookup_aligned(frame: Frame, op: Operation) -> tuple[list[np.ndarray], int]:
    """The operands of `op`, aligned to their common batch rank."""
    vals = [frame.lookup(v) for v in op.operands]
    rank = max(r for _, r in vals)
    return [align(a, r, rank) for a, r in vals], rank


@implements(*BINARY)
def binary_op(interp: SoacInterpreter, frame: Frame, op: Operation) -> list[Val]:
    (x, y), rank = lookup_aligned(frame, op)
    if op.name in DIVISIONS and not np.all(y):
        raise fail(op, "integer division by zero")
    return [(np.asarray(BINARY[op.name](x, y)), rank)]


@implements("arith.negf")
def negf(interp: SoacInterpreter, frame: Frame, op: Operation) -> list[Val]:
    x, rank = frame.lookup(op.operands[0])
    return [(np.negative(x), rank)]


# -- comparisons ----------------------------------------------------------------

_CMPI: list[Callable[[np.ndarray, np.ndarray], np.ndarray]] = [
    lambda x, y: x == y,
    lambda x, y: x != y,
    lambda x, y: signed(x) < signed(y),
    lambda x, y: signed(x) <= signed(y),
    lambda x, y: signed(x) > signed(y),
    lambda x, y: signed(x) >= signed(y),
    lambda x, y: unsigned(x) < unsigned(y),
    lambda x, y: unsigned(x) <= unsigned(y),
    lambda x, y: unsigned(x) > unsigned(y),
    lambda x, y: unsigned(x) >= unsigned(y),
]


def _unordered(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.isnan(x) | np.isnan(y)


_CMPF: list[Callable[[np.ndarray, np.ndarray], np.ndarray]] = [
    lambda x, y: np.zeros(np.broadcast(x, y).shape, np.bool_),
    lambda x, y: x == y,
    lambda x, y: x > y,
    lambda x, y: x >= y,
    lambda x, y: x < y,
    lambda x, y: x <= y,
    lambda x, y: (x != y) & ~_unordered(x, y),
    lambda x, y: ~_unordered(x, y),
    lambda x, y: (x == y) | _unordered(x, y),
    lambda x, y: (x > y) | _unordered(x, y),
    lambda x, y: (x >= y) | _unordered(x, y),
    lambda x, y: (x < y) | _unordered(x, y),
    lambda x, y: (x <= y) | _unordered(x, y),
    lambda x, y: x != y,
    _unordered,
    lambda x, y: np.ones(np.broadcast(x, y).shape, np.bool_),
]


@implements("arith.cmpi", "arith.cmpf")
def compare(interp: SoacInterpreter, frame: Frame, op: Operation) -> list[Val]:
    assert isinstance(op, arith.CmpiOp | arith.CmpfOp)
    (x, y), rank = lookup_aligned(frame, op)
    table = _CMPI if isinstance(op, arith.CmpiOp) else _CMPF
    return [(np.asarray(table[op.predicate.value.data](x, y)), rank)]


@implements("arith.select")
def select(interp: SoacInterpreter, frame: Frame, op: Operation) -> list[Val]:
    (c, x, y), rank = lookup_aligned(frame, op)
    extra = max(x.ndim, y.ndim) - c.ndim
    if extra > 0:
        c = c.reshape(c.shape + (1,) * extra)
    return [(np.asarray(np.where(c, x, y)), rank)]


# -- casts ----------------------------------------------------------------------


def _to_int(x: np.ndarray, dtype: np.dtype, is_unsigned: bool) -> np.ndarray:
    """Convert integers (or float results already truncated) to `dtype`, wrapping."""
    wide = unsigned(x).astype(np.uint64) if is_unsigned else signed(x).astype(np.int64)
    return back(wide, dtype)


def _fp_to_int(x: np.ndarray, dtype: np.dtype, is_unsigned: bool) -> np.ndarray:
    t = np.trunc(x)
    return back(t.astype(np.uint64) if is_unsigned else t.astype(np.int64), dtype)


def _bitcast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return x.astype(dtype) if x.dtype == np.bool_ or dtype == np.bool_ else x.view(dtype)


_CASTS: dict[str, Callable[[np.ndarray, np.dtype], np.ndarray]] = {
    "arith.index_cast": lambda x, d: _to_int(x, d, False),
    "arith.index_castui": lambda x, d: _to_int(x, d, True),
    "arith.extsi": lambda x, d: _to_int(x, d, False),
    "arith.extui": lambda x, d: _to_int(x, d, True),
    "arith.trunci": lambda x, d: _to_int(x, d, False),
    "arith.sitofp": lambda x, d: signed(x).astype(d),
    "arith.uitofp": lambda x, d: unsigned(x).astype(d),
    "arith.fptosi": lambda x, d: _fp_to_int(x, d, False),
    "arith.fptoui": lambda x, d: _fp_to_int(x, d, True),
    "arith.extf": lambda x, d: x.astype(d),
    "arith.truncf": lambda x, d: x.astype(d),
    "arith.bitcast": _bitcast,
}


@implements(*_CASTS)
def cast(interp: SoacInterpreter, frame: Frame, op: Operation) -> list[Val]:
    x, rank = frame.lookup(op.operands[0])
    return [(np.asarray(_CASTS[op.name](x, dtype_of(op.results[0].type))), rank)]


def elementwise(op: Operation) -> Callable[..., np.ndarray] | None:
    """The function of operand arrays that computes `op` as the interpreter does, for the `arith` ops that are one
    (binary ops, comparisons, `select`, casts, `negf`); None for any other op. Divisions by zero are the caller's to
    check. The OpenCL runtime evaluates the host's scalar ops with it, so that host and interpreter agree."""
    if isinstance(op, arith.CmpiOp | arith.CmpfOp):
        return (_CMPI if isinstance(op, arith.CmpiOp) else _CMPF)[op.predicate.value.data]
    if isinstance(op, arith.SelectOp):
        return np.where
    if op.name == "arith.negf":
        return np.negative
    if (binary := BINARY.get(op.name)) is not None:
        return binary
    if (convert := _CASTS.get(op.name)) is not None:
        dtype = dtype_of(op.results[0].type)
        return lambda x: convert(x, dtype)
    return None


# -- constants --------------------------------------------------------------------


def _int_value(value: int, dtype: np.dtype) -> int | bool:
    if dtype == np.bool_:
        return bool(value & 1)
    width = bitwidth(dtype)
    value &= (1 << width) - 1
    return value - (1 << width) if value >= 1 << (width - 1) else value


def constant_array(op: arith.ConstantOp) -> np.ndarray:
    """The (read-only) value of an `arith.constant`."""
    attr = op.value
    dtype = dtype_of(op.result.type)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        shape = tuple(attr.get_shape())
        if attr.is_splat():
            first = next(iter(attr.iter_values()))
            values = np.full(shape, _int_value(first, dtype) if dtype.kind in "bi" else first, dtype)
        else:
            raw = attr.get_values()
            values = np.array([_int_value(v, dtype) for v in raw] if dtype.kind in "bi" else raw, dtype).reshape(shape)
    elif isinstance(attr, IntegerAttr):
        values = np.array(_int_value(attr.value.data, dtype), dtype)
    elif isinstance(attr, FloatAttr):
        values = np.array(attr.value.data, dtype)
    else:
        raise fail(op, f"unsupported constant {attr}")
    values.flags.writeable = False
    return values


@implements("arith.constant")
def constant(interp: SoacInterpreter, frame: Frame, op: Operation) -> list[Val]:
    assert isinstance(op, arith.ConstantOp)
    values = interp.cache.get(op)
    if values is None:
        values = interp.cache[op] = constant_array(op)
    return [(values, 0)]  # pyright: ignore[reportReturnType]
