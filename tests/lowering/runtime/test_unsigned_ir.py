"""Unsigned values through soac's signless IR, on the interpreter and on OpenCL, against numpy's unsigned arithmetic.

A program takes `iN` arrays and scalars; numpy's `uintN` arrays and scalars are accepted for them (their bits), and
the unsigned ops (`divui`, `remui`, `shrui`, `cmpi ult/ule/ugt/uge`, `maxui`, `minui`, `extui`, `uitofp`,
`fptoui`) read those bits as numpy does, at every width, on the edges of the type. A program whose types are
`ui8` itself is refused with the reason (soac's integers are signless) and the way out (`soac-signless`)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from soac.interpreter import SoacInterpreter
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from xdsl.utils.exceptions import VerifyException

from ..conftest import parse

WIDTHS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def program(bits: int) -> str:
    t = f"i{bits}"
    binary = ["divui", "remui", "shrui", "maxui", "minui"]
    predicates = ["ult", "ule", "ugt", "uge"]
    lines = [f"%{op} = arith.{op} %x, %y : {t}" for op in binary]
    lines += [f"%{p} = arith.cmpi {p}, %x, %y : {t}" for p in predicates]
    lines += [f"%wide = arith.extui %x : {t} to i64" if bits < 64 else "%wide = arith.addi %x, %zero : i64"]
    lines += [f"%float = arith.uitofp %x : {t} to f64", f"%back = arith.fptoui %float : f64 to {t}"]
    names = [*binary, *predicates, "wide", "float", "back"]
    types = [t] * len(binary) + ["i1"] * len(predicates) + ["i64", "f64", t]
    body = "\n    ".join(lines)
    results = ", ".join(f"tensor<?x{r}>" for r in types)
    return f"""
func.func @main(%xs: tensor<?x{t}>, %ys: tensor<?x{t}>, %s: {t}) -> ({results}) {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?x{t}>
  %r:{len(names)} = soac.map %n (%xs, %ys : tensor<?x{t}>, tensor<?x{t}>) -> ({results}) lambda(%x0: {t}, %y: {t}) {{
    %zero = arith.constant 0 : i64
    %x = arith.addi %x0, %s : {t}
    {body}
    soac.yield {", ".join(f"%{n}" for n in names)} : {", ".join(types)}
  }}
  func.return {", ".join(f"%r#{k}" for k in range(len(names)))} : {results}
}}
"""


def expected(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """numpy's results; the last (a float back to the type) only where the float is in the type's range (the
    largest u64 rounds up to 2^64, out of range: poison in MLIR, undefined in C and numpy)."""
    bits = a.dtype.itemsize * 8
    shifted = np.where(b < bits, a >> np.minimum(b, bits - 1), 0).astype(a.dtype)  # MLIR: poison past the width; soac: 0
    in_range = a.astype(np.float64) < 2.0**bits
    return [
        a // b, a % b, shifted, np.maximum(a, b), np.minimum(a, b),
        a < b, a <= b, a > b, a >= b,
        a.astype(np.uint64), a.astype(np.float64), np.where(in_range, a, 0).astype(np.float64).astype(a.dtype),
    ]  # fmt: skip


def edge_pairs(dtype: type[np.unsignedinteger]) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    high = 1 << (info.bits - 1)
    edges = [0, 1, 2, high - 1, high, high + 1, int(info.max) - 1, int(info.max)]
    a, b = zip(*((x, y) for x, y in itertools.product(edges, repeat=2) if y != 0))
    return np.array(a, dtype), np.array(b, dtype)


@pytest.mark.parametrize("backend", ["interp", "opencl"])
@pytest.mark.parametrize("bits", WIDTHS)
def test_unsigned_ops_on_unsigned_arguments_against_numpy(bits: int, backend: str) -> None:
    dtype = WIDTHS[bits]
    a, b = edge_pairs(dtype)
    module = parse(program(bits))
    args = [a, b, dtype(0)]
    results = interpret(module, "main", args) if backend == "interp" else compile_module(module).call("main", args)
    in_range = a.astype(np.float64) < 2.0**bits
    for k, (got, want) in enumerate(zip(results, expected(a, b), strict=True)):
        got = np.asarray(got)
        if got.dtype.kind == "i" and want.dtype.kind == "u":  # the signless iN results hold the unsigned values' bits
            got = got.view(want.dtype)
        if k == len(results) - 1:
            got = np.where(in_range, got, 0).astype(got.dtype)
        assert got.dtype == want.dtype, k
        np.testing.assert_array_equal(got, want, err_msg=f"result {k}")


@pytest.mark.parametrize("backend", ["interp", "opencl"])
def test_an_unsigned_scalar_argument_is_its_bits(backend: str) -> None:
    """np.uint8(200) for an i8 parameter is the i8 -56, which `addi` adds as the unsigned 200 (mod 256)."""
    module = parse(program(8))
    a, b = np.array([0, 55, 56], np.uint8), np.array([1, 1, 1], np.uint8)
    args = [a, b, np.uint8(200)]
    results = interpret(module, "main", args) if backend == "interp" else compile_module(module).call("main", args)
    np.testing.assert_array_equal(np.asarray(results[3]).view(np.uint8), [200, 255, 1])  # maxui of x = a + 200 and 1


UNSIGNED_TYPED = """
func.func @main(%xs: tensor<?xui8>) -> tensor<?xui8> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xui8>
  %r = soac.map %n (%xs : tensor<?xui8>) -> tensor<?xui8> lambda(%x: ui8) {
    %m = arith.divui %x, %x : ui8
    soac.yield %m : ui8
  }
  func.return %r : tensor<?xui8>
}
"""


def test_unsigned_integer_types_are_refused_with_the_way_out() -> None:
    module = parse(UNSIGNED_TYPED, "typed.mlir")
    message = r"typed.mlir:2:1: 'func.func': soac's integers are signless: ui8 is i8, .* soac-opt -p soac-signless"
    with pytest.raises(VerifyException, match=message):
        SoacInterpreter(module)
    with pytest.raises(VerifyException, match=message):
        compile_module(module)
