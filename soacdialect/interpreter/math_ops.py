"""`math` ops. Float results keep the operand precision (f32 stays f32).

`erf` uses Python's `math.erf` per element (in f64, then rounded); `fma` on
f16/f32 is exact before its final rounding (computed in f64), on f64 it rounds
twice.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from soac.interpreter.arith import back, lookup_aligned, signed, unsigned
from soac.interpreter.core import SoacInterpreter
from soac.interpreter.frame import Frame
from soac.interpreter.registry import implements
from soac.interpreter.values import Val, bitwidth
from xdsl.ir import Operation

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _round(x: np.ndarray) -> np.ndarray:
    """Round half away from zero."""
    t = np.trunc(x)
    return t + np.copysign((np.abs(x - t) >= 0.5).astype(x.dtype), x)


def _leading_zeros(x: np.ndarray) -> np.ndarray:
    u = unsigned(x).astype(np.uint64)
    count, v = np.zeros(u.shape, np.int64), u
    for s in (32, 16, 8, 4, 2, 1):
        top_empty = (v >> np.uint64(64 - s)) == 0
        count += np.where(top_empty, s, 0)
        v = np.where(top_empty, v << np.uint64(s), v)
    return np.where(u == 0, 64, count) - (64 - bitwidth(x.dtype))


def _trailing_zeros(x: np.ndarray) -> np.ndarray:
    u = unsigned(x).astype(np.uint64)
    count, v = np.zeros(u.shape, np.int64), u
    for s in (32, 16, 8, 4, 2, 1):
        low_empty = (v & np.uint64((1 << s) - 1)) == 0
        count += np.where(low_empty, s, 0)
        v = np.where(low_empty, v >> np.uint64(s), v)
    return np.where(u == 0, bitwidth(x.dtype), count)


def _ipowi(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    base, exponent = signed(x).astype(np.int64), signed(y).astype(np.int64)
    result = np.ones(np.broadcast(base, exponent).shape, np.int64)
    e = np.maximum(exponent, 0)
    power = np.broadcast_to(base, result.shape).copy()
    while np.any(e):
        result = np.where(e & 1, result * power, result)
        power = power * power
        e = e >> 1
    negative = np.where(base == 1, 1, np.where(base == -1, np.where(exponent & 1, -1, 1), 0))
    return back(np.where(exponent < 0, negative, result), x.dtype)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    if a.dtype == np.float64:
        return a * b + c
    return (a.astype(np.float64) * b + c).astype(a.dtype)


FUNCTIONS: dict[str, Callable[..., np.ndarray]] = {
    "math.absf": np.abs,
    "math.absi": lambda x: back(np.abs(signed(x)), x.dtype),
    "math.ceil": np.ceil,
    "math.floor": np.floor,
    "math.trunc": np.trunc,
    "math.round": _round,
    "math.roundeven": np.rint,
    "math.exp": np.exp,
    "math.exp2": np.exp2,
    "math.expm1": np.expm1,
    "math.log": np.log,
    "math.log2": np.log2,
    "math.log10": np.log10,
    "math.log1p": np.log1p,
    "math.sqrt": np.sqrt,
    "math.rsqrt": lambda x: np.reciprocal(np.sqrt(x)),
    "math.cbrt": np.cbrt,
    "math.sin": np.sin,
    "math.cos": np.cos,
    "math.tan": np.tan,
    "math.sinh": np.sinh,
    "math.cosh": np.cosh,
    "math.tanh": np.tanh,
    "math.asin": np.arcsin,
    "math.acos": np.arccos,
    "math.atan": np.arctan,
    "math.asinh": np.arcsinh,
    "math.acosh": np.arccosh,
    "math.atanh": np.arctanh,
    "math.erf": lambda x: _erf(x.astype(np.float64)).astype(x.dtype),
    "math.atan2": np.arctan2,
    "math.powf": np.power,
    "math.copysign": np.copysign,
    "math.fpowi": lambda x, y: np.power(x, signed(y).astype(x.dtype)),
    "math.ipowi": _ipowi,
    "math.fma": _fma,
    "math.ctpop": lambda x: back(np.bitwise_count(unsigned(x)), x.dtype),
    "math.ctlz": lambda x: back(_leading_zeros(x), x.dtype),
    "math.cttz": lambda x: back(_trailing_zeros(x), x.dtype),
}


@implements(*FUNCTIONS)
def math_op(interp: SoacInterpreter, frame: Frame, op: Operation) -> list[Val]:
    arrays, rank = lookup_aligned(frame, op)
    return [(np.asarray(FUNCTIONS[op.name](*arrays)), rank)]
