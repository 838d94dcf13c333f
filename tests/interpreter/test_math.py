"""`math` ops: floats keep their precision, integer ops wrap."""

from __future__ import annotations

import math

import numpy as np
import pytest

VALUES = [0.0, -0.0, 0.25, 0.5, -0.5, 1.5, 2.5, -2.5, 0.9, -0.9, 3.0, 10.0, -7.25, 1e-4]


def program(name: str, arity: int, t: str) -> str:
    params = ", ".join(f"%x{i}: {t}" for i in range(arity))
    inputs = ", ".join(f"%xs{i}" for i in range(arity))
    types = ", ".join(f"tensor<?x{t}>" for _ in range(arity))
    tensors = ", ".join(f"%xs{i}: tensor<?x{t}>" for i in range(arity))
    args = ", ".join(f"%x{i}" for i in range(arity))
    return f"""
func.func @main(%n: index, {tensors}) -> tensor<?x{t}> {{
  %r = soac.map %n ({inputs} : {types}) -> tensor<?x{t}> lambda({params}) {{
    %z = {name} {args} : {t}
    soac.yield %z : {t}
  }}
  func.return %r : tensor<?x{t}>
}}
"""


def _round_half_away(x):
    return np.copysign(np.floor(np.abs(x.astype(np.float64)) + 0.5), x).astype(x.dtype)


UNARY = {
    "math.absf": np.abs,
    "math.ceil": np.ceil,
    "math.floor": np.floor,
    "math.trunc": np.trunc,
    "math.round": _round_half_away,
    "math.roundeven": np.rint,
    "math.exp": np.exp,
    "math.exp2": np.exp2,
    "math.expm1": np.expm1,
    "math.log": np.log,
    "math.log2": np.log2,
    "math.log10": np.log10,
    "math.log1p": np.log1p,
    "math.sqrt": np.sqrt,
    "math.rsqrt": lambda x: 1 / np.sqrt(x),
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
    "math.erf": np.vectorize(math.erf),
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float(run, name, t):
    dtype = np.float32 if t == "f32" else np.float64
    xs = np.array(VALUES, dtype)
    (got,) = run(program(name, 1, t), len(xs), xs)
    assert got.dtype == dtype
    with np.errstate(all="ignore"):
        expected = np.asarray(UNARY[name](xs.astype(np.float64))).astype(dtype)
    np.testing.assert_allclose(got, expected, rtol=2e-6 if t == "f32" else 1e-14, equal_nan=True)


def test_rounding_edge_cases(run):
    xs = np.array([0.49999997, 0.5, 1.5, 2.5, -0.5, -2.5, -0.49999997], np.float32)
    (r,) = run(program("math.round", 1, "f32"), len(xs), xs)
    np.testing.assert_array_equal(r, [0, 1, 2, 3, -1, -3, -0.0])
    (e,) = run(program("math.roundeven", 1, "f32"), len(xs), xs)
    np.testing.assert_array_equal(e, [0, 0, 2, 2, -0.0, -2, -0.0])


BINARY = {"math.atan2": np.arctan2, "math.powf": np.power, "math.copysign": np.copysign}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float(run, name):
    xs = np.array(VALUES, np.float32)
    ys = xs[::-1].copy()
    (got,) = run(program(name, 2, "f32"), len(xs), xs, ys)
    with np.errstate(all="ignore"):
        expected = BINARY[name](xs, ys)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-6, equal_nan=True)


def test_fma_rounds_once(run):
    a = np.array([1 + 2**-12, 3.0], np.float32)
    b = np.array([1 - 2**-12, 0.5], np.float32)
    c = np.array([-1.0, 1.0], np.float32)
    (got,) = run(program("math.fma", 3, "f32"), 2, a, b, c)
    np.testing.assert_array_equal(got, np.array([-(2.0**-24), 2.5], np.float32))


INT_MATH = """
func.func @main(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>)
    -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %a, %p, %l, %t, %w = soac.map %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>)
      -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) lambda(%x: i32, %y: i32) {
    %a = math.absi %x : i32
    %p = math.ctpop %x : i32
    %l = math.ctlz %x : i32
    %t = math.cttz %x : i32
    %w = math.ipowi %x, %y : i32
    soac.yield %a, %p, %l, %t, %w : i32, i32, i32, i32, i32
  }
  func.return %a, %p, %l, %t, %w : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}
"""


def _wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - 2**32 if v >= 2**31 else v


def test_integer_math(run):
    xs = np.array([0, 1, -1, 8, -(2**31), 2**31 - 1, 12, 3, -1, 1, 0, 2], np.int32)
    ys = np.array([3, 5, 3, 2, 1, 2, 0, 21, -3, -4, 0, -1], np.int32)
    a, p, lz, tz, w = run(INT_MATH, len(xs), xs, ys)
    assert list(a) == [_wrap32(abs(int(x))) for x in xs]
    assert list(p) == [bin(int(x) & 0xFFFFFFFF).count("1") for x in xs]
    assert list(lz) == [32 - (int(x) & 0xFFFFFFFF).bit_length() for x in xs]
    assert list(tz) == [32 if x == 0 else ((int(x) & 0xFFFFFFFF) & -(int(x) & 0xFFFFFFFF)).bit_length() - 1 for x in xs]

    def ipow(x: int, y: int) -> int:
        if y >= 0:
            return _wrap32(x**y)
        return 1 if x == 1 else (-1 if y % 2 else 1) if x == -1 else 0

    assert list(w) == [ipow(int(x), int(y)) for x, y in zip(xs, ys)]


def test_fpowi(run):
    src = """
func.func @main(%x: f64, %y: i32) -> f64 {
  %z = math.fpowi %x, %y : f64, i32
  func.return %z : f64
}
"""
    assert run(src, 2.0, -2) == (0.25,)
    assert run(src, -3.0, 3) == (-27.0,)
