"""`arith` ops with MLIR semantics, evaluated both per lane (inside a map) and on the host."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

DTYPES = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64}
DTYPES |= {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def binary_program(op: str, t: str, r: str, pred: str = "") -> str:
    """`@lanes` applies `op` inside a map; `@host` applies it to scalars."""
    head = f"{op} {pred}, " if pred else f"{op} "
    return f"""
func.func @lanes(%n: index, %xs: tensor<?x{t}>, %ys: tensor<?x{t}>) -> tensor<?x{r}> {{
  %r = soac.map %n (%xs, %ys : tensor<?x{t}>, tensor<?x{t}>) -> tensor<?x{r}> lambda(%x: {t}, %y: {t}) {{
    %z = {head}%x, %y : {t}
    soac.yield %z : {r}
  }}
  func.return %r : tensor<?x{r}>
}}
func.func @host(%x: {t}, %y: {t}) -> {r} {{
  %z = {head}%x, %y : {t}
  func.return %z : {r}
}}
"""


def run_both(run, program: str, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    (lanes,) = run(program, len(xs), xs, ys, name="lanes")
    host = [run(program, x, y, name="host")[0] for x, y in zip(xs[:40], ys[:40])]
    np.testing.assert_array_equal(lanes[:40], np.array(host, dtype=lanes.dtype))
    return lanes


# -- integers: a Python reference on unbounded ints ------------------------------


def wrap(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >= 1 << (w - 1) else v


def u(v: int, w: int) -> int:
    return v & ((1 << w) - 1)


def tdiv(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


INT_REF = {
    "arith.addi": lambda x, y, w: wrap(x + y, w),
    "arith.subi": lambda x, y, w: wrap(x - y, w),
    "arith.muli": lambda x, y, w: wrap(x * y, w),
    "arith.divsi": lambda x, y, w: wrap(tdiv(x, y), w),
    "arith.remsi": lambda x, y, w: wrap(x - y * tdiv(x, y), w),
    "arith.floordivsi": lambda x, y, w: wrap(x // y, w),
    "arith.ceildivsi": lambda x, y, w: wrap(-((-x) // y), w),
    "arith.divui": lambda x, y, w: wrap(u(x, w) // u(y, w), w),
    "arith.remui": lambda x, y, w: wrap(u(x, w) % u(y, w), w),
    "arith.ceildivui": lambda x, y, w: wrap(-((-u(x, w)) // u(y, w)), w),
    "arith.andi": lambda x, y, w: wrap(x & y, w),
    "arith.ori": lambda x, y, w: wrap(x | y, w),
    "arith.xori": lambda x, y, w: wrap(x ^ y, w),
    "arith.maxsi": lambda x, y, w: max(x, y),
    "arith.minsi": lambda x, y, w: min(x, y),
    "arith.maxui": lambda x, y, w: wrap(max(u(x, w), u(y, w)), w),
    "arith.minui": lambda x, y, w: wrap(min(u(x, w), u(y, w)), w),
    "arith.shli": lambda x, y, w: wrap(x << u(y, w), w) if u(y, w) < w else 0,
    "arith.shrsi": lambda x, y, w: x >> min(u(y, w), w - 1),
    "arith.shrui": lambda x, y, w: wrap(u(x, w) >> u(y, w), w) if u(y, w) < w else 0,
}
DIVIDING = {"arith.divsi", "arith.remsi", "arith.floordivsi", "arith.ceildivsi", "arith.divui", "arith.remui", "arith.ceildivui"}

CMPI_REF = {
    "eq": lambda x, y, w: x == y,
    "ne": lambda x, y, w: x != y,
    "slt": lambda x, y, w: x < y,
    "sle": lambda x, y, w: x <= y,
    "sgt": lambda x, y, w: x > y,
    "sge": lambda x, y, w: x >= y,
    "ult": lambda x, y, w: u(x, w) < u(y, w),
    "ule": lambda x, y, w: u(x, w) <= u(y, w),
    "ugt": lambda x, y, w: u(x, w) > u(y, w),
    "uge": lambda x, y, w: u(x, w) >= u(y, w),
}


def edge_values(w: int) -> list[int]:
    if w == 1:
        return [0, -1]
    lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
    return sorted({0, 1, -1, 2, -2, 3, -7, 7, w - 1, w, w + 1, hi, lo, hi - 1, lo + 1, wrap(123456789, w)})


def int_pairs(t: str, dividing: bool) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    w = 1 if t == "i1" else 64 if t == "index" else int(t[1:])
    pairs = [
        (x, y)
        for x, y in itertools.product(edge_values(w), repeat=2)
        if not dividing or (y != 0 and not (x == -(1 << (w - 1)) and y == -1 and w > 1))
    ]
    dtype = DTYPES[t]
    as_array = (lambda vs: np.array([v != 0 for v in vs])) if t == "i1" else (lambda vs: np.array(vs, dtype=dtype))
    return as_array([x for x, _ in pairs]), as_array([y for _, y in pairs]), pairs


@pytest.mark.parametrize("t", ["i1", "i8", "i16", "i32", "i64", "index"])
@pytest.mark.parametrize("op", sorted(INT_REF))
def test_integer_binary(run, op, t):
    w = 1 if t == "i1" else 64 if t == "index" else int(t[1:])
    xs, ys, pairs = int_pairs(t, op in DIVIDING)
    got = run_both(run, binary_program(op, t, t), xs, ys)
    expected = [INT_REF[op](x, y, w) for x, y in pairs]
    if t == "i1":
        expected = [v != 0 for v in expected]
    assert got.dtype == DTYPES[t]
    assert [int(v) if t != "i1" else bool(v) for v in got] == expected


@pytest.mark.parametrize("t", ["i1", "i8", "i32", "i64", "index"])
@pytest.mark.parametrize("pred", sorted(CMPI_REF))
def test_cmpi(run, pred, t):
    w = 1 if t == "i1" else 64 if t == "index" else int(t[1:])
    xs, ys, pairs = int_pairs(t, False)
    got = run_both(run, binary_program("arith.cmpi", t, "i1", pred), xs, ys)
    assert got.dtype == np.bool_
    assert list(got) == [CMPI_REF[pred](x, y, w) for x, y in pairs]


def test_integer_semantics_examples(run):
    prog = binary_program("arith.divsi", "i32", "i32")
    assert run(prog, -7, 2, name="host") == (-3,)
    assert run(binary_program("arith.remsi", "i32", "i32"), -7, 2, name="host") == (-1,)
    assert run(binary_program("arith.remsi", "i32", "i32"), 7, -2, name="host") == (1,)
    assert run(binary_program("arith.floordivsi", "i32", "i32"), -7, 2, name="host") == (-4,)
    assert run(binary_program("arith.ceildivsi", "i32", "i32"), 7, 2, name="host") == (4,)
    assert run(binary_program("arith.divui", "i8", "i8"), -2, 3, name="host") == (84,)  # 254 / 3
    assert run(binary_program("arith.addi", "i32", "i32"), 2**31 - 1, 1, name="host") == (-(2**31),)
    assert run(binary_program("arith.cmpi", "i32", "i1", "ult"), 1, -1, name="host") == (True,)
    assert run(binary_program("arith.cmpi", "i32", "i1", "slt"), 1, -1, name="host") == (False,)


# -- floats ------------------------------------------------------------------------

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -3.75, 1e-3, 1e30, -1e30, math.inf, -math.inf, math.nan]

FLOAT_REF = {
    "arith.addf": np.add,
    "arith.subf": np.subtract,
    "arith.mulf": np.multiply,
    "arith.divf": np.divide,
}


def float_pairs(t: str) -> tuple[np.ndarray, np.ndarray]:
    pairs = list(itertools.product(SPECIAL, repeat=2))
    with np.errstate(over="ignore"):
        return np.array([x for x, _ in pairs], DTYPES[t]), np.array([y for _, y in pairs], DTYPES[t])


@pytest.mark.parametrize("t", ["f16", "f32", "f64"])
@pytest.mark.parametrize("op", sorted(FLOAT_REF))
def test_float_binary(run, op, t):
    xs, ys = float_pairs(t)
    got = run_both(run, binary_program(op, t, t), xs, ys)
    with np.errstate(all="ignore"):
        expected = FLOAT_REF[op](xs, ys)
    assert got.dtype == DTYPES[t]
    np.testing.assert_array_equal(got, expected)


def _ieee(fn, x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == y == 0:
        return fn(math.copysign(1, x), math.copysign(1, y)) * 0.0
    return fn(x, y)


MINMAX_REF = {
    "arith.maximumf": lambda x, y: _ieee(max, x, y),
    "arith.minimumf": lambda x, y: _ieee(min, x, y),
    "arith.maxnumf": lambda x, y: y if math.isnan(x) else x if math.isnan(y) else max(x, y),
    "arith.minnumf": lambda x, y: y if math.isnan(x) else x if math.isnan(y) else min(x, y),
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", sorted(MINMAX_REF))
def test_float_min_max(run, op, t):
    xs, ys = float_pairs(t)
    got = run_both(run, binary_program(op, t, t), xs, ys)
    expected = np.array([MINMAX_REF[op](float(x), float(y)) for x, y in zip(xs, ys)], DTYPES[t])
    np.testing.assert_array_equal(got, expected)
    if op in ("arith.maximumf", "arith.minimumf"):
        zeros = (xs == 0) & (ys == 0)
        np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(expected[zeros]))


CMPF_REF = {
    "false": lambda x, y: False,
    "oeq": lambda x, y: x == y,
    "ogt": lambda x, y: x > y,
    "oge": lambda x, y: x >= y,
    "olt": lambda x, y: x < y,
    "ole": lambda x, y: x <= y,
    "one": lambda x, y: not (math.isnan(x) or math.isnan(y)) and x != y,
    "ord": lambda x, y: not (math.isnan(x) or math.isnan(y)),
    "ueq": lambda x, y: math.isnan(x) or math.isnan(y) or x == y,
    "ugt": lambda x, y: math.isnan(x) or math.isnan(y) or x > y,
    "uge": lambda x, y: math.isnan(x) or math.isnan(y) or x >= y,
    "ult": lambda x, y: math.isnan(x) or math.isnan(y) or x < y,
    "ule": lambda x, y: math.isnan(x) or math.isnan(y) or x <= y,
    "une": lambda x, y: math.isnan(x) or math.isnan(y) or x != y,
    "uno": lambda x, y: math.isnan(x) or math.isnan(y),
    "true": lambda x, y: True,
}


@pytest.mark.parametrize("pred", sorted(CMPF_REF))
def test_cmpf(run, pred):
    xs, ys = float_pairs("f32")
    got = run_both(run, binary_program("arith.cmpf", "f32", "i1", pred), xs, ys)
    assert got.dtype == np.bool_
    assert list(got) == [CMPF_REF[pred](float(x), float(y)) for x, y in zip(xs, ys)]


def unary_program(line: str, t: str, r: str) -> str:
    return f"""
func.func @lanes(%n: index, %xs: tensor<?x{t}>) -> tensor<?x{r}> {{
  %r = soac.map %n (%xs : tensor<?x{t}>) -> tensor<?x{r}> lambda(%x: {t}) {{
    %z = {line}
    soac.yield %z : {r}
  }}
  func.return %r : tensor<?x{r}>
}}
func.func @host(%x: {t}) -> {r} {{
  %z = {line}
  func.return %z : {r}
}}
"""


def run_unary(run, program: str, xs: np.ndarray) -> np.ndarray:
    (lanes,) = run(program, len(xs), xs, name="lanes")
    host = [run(program, x, name="host")[0] for x in xs]
    np.testing.assert_array_equal(lanes, np.array(host, dtype=lanes.dtype))
    return lanes


def test_negf(run):
    xs = np.array(SPECIAL, np.float32)
    got = run_unary(run, unary_program("arith.negf %x : f32", "f32", "f32"), xs)
    np.testing.assert_array_equal(got, -xs)
    assert np.signbit(got[0])
    assert not np.signbit(got[1])


CASTS = [
    # (line, source type, result type, inputs, expected)
    ("arith.extsi %x : i8 to i32", "i8", "i32", [-128, -1, 0, 127], [-128, -1, 0, 127]),
    ("arith.extui %x : i8 to i32", "i8", "i32", [-128, -1, 0, 127], [128, 255, 0, 127]),
    ("arith.extsi %x : i1 to i32", "i1", "i32", [True, False], [-1, 0]),
    ("arith.extui %x : i1 to i64", "i1", "i64", [True, False], [1, 0]),
    ("arith.trunci %x : i32 to i8", "i32", "i8", [255, 256, -129, 127], [-1, 0, 127, 127]),
    ("arith.trunci %x : i32 to i1", "i32", "i1", [2, 3, -1, 0], [False, True, True, False]),
    ("arith.index_cast %x : i32 to index", "i32", "index", [-5, 7], [-5, 7]),
    ("arith.index_cast %x : index to i16", "index", "i16", [70000, -1], [4464, -1]),
    ("arith.sitofp %x : i32 to f32", "i32", "f32", [-3, 16777217], [-3.0, 16777216.0]),
    ("arith.uitofp %x : i8 to f64", "i8", "f64", [-1, 3], [255.0, 3.0]),
    ("arith.sitofp %x : i1 to f32", "i1", "f32", [True, False], [-1.0, 0.0]),
    ("arith.uitofp %x : i1 to f32", "i1", "f32", [True, False], [1.0, 0.0]),
    ("arith.fptosi %x : f32 to i32", "f32", "i32", [-2.7, 2.7, -0.5, 1e9], [-2, 2, 0, 1000000000]),
    ("arith.fptoui %x : f64 to i8", "f64", "i8", [255.9, 3.2, 128.0], [-1, 3, -128]),
    ("arith.extf %x : f16 to f64", "f16", "f64", [0.1, -2.0], [float(np.float16(0.1)), -2.0]),
    ("arith.truncf %x : f64 to f32", "f64", "f32", [0.1, 1e40], [np.float32(0.1), np.inf]),
    ("arith.bitcast %x : f32 to i32", "f32", "i32", [1.0, -0.0], [0x3F800000, -(2**31)]),
    ("arith.bitcast %x : i64 to f64", "i64", "f64", [0x4000000000000000], [2.0]),
]


@pytest.mark.parametrize(
    ("line", "t", "r", "inputs", "expected"), CASTS, ids=[c[0].split()[0] + "-" + c[1] + c[2] for c in CASTS]
)
def test_casts(run, line, t, r, inputs, expected):
    xs = np.array(inputs, DTYPES[t])
    got = run_unary(run, unary_program(line, t, r), xs)
    assert got.dtype == DTYPES[r]
    np.testing.assert_array_equal(got, np.array(expected, DTYPES[r]))


SELECT = """
func.func @main(%n: index, %cs: tensor<?xi1>, %xs: tensor<?xf32>, %c: i1, %a: tensor<?xf32>, %b: tensor<?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>) {
  %r = soac.map %n (%cs, %xs : tensor<?xi1>, tensor<?xf32>) -> tensor<?xf32> lambda(%k: i1, %x: f32) {
    %m = arith.constant -1.0 : f32
    %s = arith.select %k, %x, %m : f32
    soac.yield %s : f32
  }
  %t = arith.select %c, %a, %b : tensor<?xf32>
  func.return %r, %t : tensor<?xf32>, tensor<?xf32>
}
"""


def test_select(run):
    cs = np.array([True, False, True])
    xs = np.array([1, 2, 3], np.float32)
    r, t = run(SELECT, 3, cs, xs, False, xs, xs * 2)
    np.testing.assert_array_equal(r, [1, -1, 3])
    np.testing.assert_array_equal(t, xs * 2)


CONSTANTS = """
func.func @main() -> (tensor<3xf32>, tensor<2x2xi32>, i1, i32, tensor<4xi1>, f16, f32, index, i8, tensor<2xi64>) {
  %a = arith.constant dense<[1.0, 2.5, 3.0]> : tensor<3xf32>
  %b = arith.constant dense<7> : tensor<2x2xi32>
  %c = arith.constant true
  %d = arith.constant 4294967295 : i32
  %e = arith.constant dense<[true, false, true, true]> : tensor<4xi1>
  %f = arith.constant 0x7C00 : f16
  %g = arith.constant 0.1 : f32
  %h = arith.constant -3 : index
  %i = arith.constant 200 : i8
  %j = arith.constant dense<[-1, 9223372036854775807]> : tensor<2xi64>
  func.return %a, %b, %c, %d, %e, %f, %g, %h, %i, %j
      : tensor<3xf32>, tensor<2x2xi32>, i1, i32, tensor<4xi1>, f16, f32, index, i8, tensor<2xi64>
}
"""


def test_constants(run):
    a, b, c, d, e, f, g, h, i, j = run(CONSTANTS)
    np.testing.assert_array_equal(a, np.array([1, 2.5, 3], np.float32))
    np.testing.assert_array_equal(b, np.full((2, 2), 7, np.int32))
    assert c is np.True_ or c == np.bool_(True)
    assert d == -1
    assert isinstance(d, np.int32)
    np.testing.assert_array_equal(e, [True, False, True, True])
    assert f == np.inf
    assert isinstance(f, np.float16)
    assert g == np.float32(0.1)
    assert isinstance(g, np.float32)
    assert h == -3
    assert isinstance(h, np.int64)
    assert i == -56
    assert isinstance(i, np.int8)
    np.testing.assert_array_equal(j, [-1, 2**63 - 1])
    assert a.dtype == np.float32
    assert b.dtype == np.int32
    assert e.dtype == np.bool_


F32_STAYS_F32 = """
func.func @main(%x: f32) -> f32 {
  %c = arith.constant 0.1 : f32
  %y = arith.addf %x, %c : f32
  %z = arith.mulf %y, %y : f32
  func.return %z : f32
}
"""


def test_f32_arithmetic_stays_f32(run):
    (z,) = run(F32_STAYS_F32, np.float32(0.2))
    y = np.float32(0.2) + np.float32(0.1)
    assert isinstance(z, np.float32)
    assert z == y * y
    (z,) = run(F32_STAYS_F32, 0.2)  # a Python float rounds to f32 first
    assert z == y * y
