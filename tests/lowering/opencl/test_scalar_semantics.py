"""Integer `arith` semantics on OpenCL against the interpreter (MLIR's: wrapping, two's complement, `i1` true is -1).

Every integer op the project supports, at every width, on the edges of each type (the most negative and positive
values and their neighbours, around zero, around the width for shifts) and random values, in two places: on the
host (a compiled function doing the op on its arguments, through its plan and `eval_scalar`) and in a kernel (a
`soac.map` over arrays of operand pairs). Divisions by zero are left out of the maps (they fail, and
`test_division_by_zero_*` checks how), and so are float-to-integer casts of values out of the target's range
(poison in MLIR)."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest
from soac.interpreter import run_function as interpret
from soac.interpreter.errors import SoacRuntimeError
from soac.lowering.runtime import compile_module
from soac.lowering.runtime.errors import ProgramError
from xdsl.dialects.builtin import ModuleOp

from ..conftest import parse

INTEGER_TYPES = ["i1", "i8", "i16", "i32", "i64", "index"]
PLAIN_OPS = ["addi", "subi", "muli", "andi", "ori", "xori", "shli", "shrsi", "shrui", "minsi", "maxsi", "minui", "maxui"]
DIVISION_OPS = ["divsi", "divui", "remsi", "remui", "ceildivsi", "ceildivui", "floordivsi"]
PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
FLOAT_TYPES = ["f32", "f64"]


def bits_of(t: str) -> int:
    return 64 if t == "index" else int(t[1:])


def edge_values(t: str, seed: int = 0) -> list[int]:
    """The edges of `t` (its extremes and their neighbours, around zero, around the width) and random values."""
    if t == "i1":
        return [0, -1]
    bits = bits_of(t)
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    edges = [low, low + 1, low // 3, -bits, -3, -2, -1, 0, 1, 2, 3, 5, bits - 1, bits, bits + 1, high // 3, high - 1, high]
    rng = np.random.default_rng(seed + bits)
    return sorted(set(edges + [int(v) for v in rng.integers(low, high, 6, endpoint=True)]))


DTYPES = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64}
DTYPES |= {"f32": np.float32, "f64": np.float64}


def as_array(values: list[int], t: str) -> np.ndarray:
    return np.array([v & 1 for v in values], np.bool_) if t == "i1" else np.array(values, DTYPES[t])


# ---------------------------------------------------------------------------
# The ops, as lines of MLIR on %a and %b of type t
# ---------------------------------------------------------------------------


def cast_lines(t: str) -> list[tuple[str, str]]:
    """(line, result type) for every integer cast and integer-to-float cast from `t`, and its bitcast to a float."""
    lines = []
    for target in INTEGER_TYPES:
        if target == t:
            continue
        if "index" in (t, target):
            lines.append((f"arith.index_cast %a : {t} to {target}", target))
        elif bits_of(t) < bits_of(target):
            lines += [(f"arith.{k} %a : {t} to {target}", target) for k in ("extsi", "extui")]
        else:
            lines.append((f"arith.trunci %a : {t} to {target}", target))
    if t != "index":
        lines += [(f"arith.{k} %a : {t} to {f}", f) for k in ("sitofp", "uitofp") for f in FLOAT_TYPES]
    if t in ("i32", "i64"):
        float_type = f"f{t[1:]}"
        lines.append((f"arith.bitcast %a : {t} to {float_type}", float_type))
    return lines


def op_lines(t: str, divisions: bool) -> list[tuple[str, str]]:
    """(line, result type) for the ops of `t` on %a and %b: the divisions, or everything else."""
    if divisions:
        return [(f"arith.{name} %a, %b : {t}", t) for name in DIVISION_OPS]
    lines = [(f"arith.{name} %a, %b : {t}", t) for name in PLAIN_OPS]
    lines += [(f"arith.cmpi {p}, %a, %b : {t}", "i1") for p in PREDICATES]
    lines.append((f"arith.select %c, %a, %b : {t}", t))
    return lines + cast_lines(t)


SELECT_CONDITION = "arith.cmpi ugt, %b, %a"


def body(lines: list[tuple[str, str]], indent: str) -> str:
    text = f"{indent}%c = {SELECT_CONDITION} : {{t}}\n"
    return text + "".join(f"{indent}%r{k} = {line}\n" for k, (line, _) in enumerate(lines))


def map_module(t: str, divisions: bool) -> str:
    """`@ops(%as, %bs)`: a `soac.map` over operand pairs whose element applies every op."""
    lines = op_lines(t, divisions)
    outs = ", ".join(f"tensor<?x{r}>" for _, r in lines)
    yields = ", ".join(f"%r{k}" for k in range(len(lines)))
    types = ", ".join(r for _, r in lines)
    return (
        f"func.func @ops(%as: tensor<?x{t}>, %bs: tensor<?x{t}>) -> ({outs}) {{\n"
        "  %c0 = arith.constant 0 : index\n"
        f"  %n = tensor.dim %as, %c0 : tensor<?x{t}>\n"
        f"  %r:{len(lines)} = soac.map %n (%as, %bs : tensor<?x{t}>, tensor<?x{t}>) -> ({outs}) "
        f"lambda(%a: {t}, %b: {t}) {{\n" + body(lines, "    ").format(t=t) + f"    soac.yield {yields} : {types}\n"
        "  }\n"
        f"  func.return %r#0{''.join(f', %r#{k}' for k in range(1, len(lines)))} : {outs}\n"
        "}\n"
    )


def host_module(t: str, divisions: bool) -> str:
    """`@op<k>(%a, %b)` for every op: the op on the function's arguments, on the host."""
    functions = []
    for k, (line, result) in enumerate(op_lines(t, divisions)):
        functions.append(
            f"func.func @op{k}(%a: {t}, %b: {t}) -> {result} {{\n"
            f"  %c = {SELECT_CONDITION} : {t}\n"
            f"  %r = {line}\n"
            f"  func.return %r : {result}\n"
            "}\n"
        )
    return "".join(functions)


def operand_pairs(t: str, divisions: bool) -> tuple[np.ndarray, np.ndarray]:
    values = edge_values(t)
    pairs = [(a, b) for a, b in itertools.product(values, values) if not divisions or b != 0]
    return as_array([a for a, _ in pairs], t), as_array([b for _, b in pairs], t)


@cache
def expected(t: str, divisions: bool) -> tuple[ModuleOp, tuple[np.ndarray, np.ndarray], list[np.ndarray]]:
    module = parse(map_module(t, divisions), f"ops_{t}.mlir")
    operands = operand_pairs(t, divisions)
    return module, operands, [np.asarray(r) for r in interpret(module, "ops", list(operands))]


def disagreement(what: str, got: np.ndarray, want: np.ndarray, a: np.ndarray, b: np.ndarray) -> list[str]:
    """What is wrong in `got` (the first wrong element and how many), or nothing."""
    if got.dtype != want.dtype:
        return [f"{what}: dtype {got.dtype}, the interpreter's is {want.dtype}"]
    same = (got == want) | (np.isnan(got) & np.isnan(want)) if want.dtype.kind == "f" else got == want
    wrong = np.flatnonzero(~same)
    if not wrong.size:
        return []
    k = wrong[0]
    return [f"{what} on ({a[k]!r}, {b[k]!r}): {got[k]!r}, the interpreter gives {want[k]!r} ({wrong.size} wrong)"]


def assert_no_disagreement(problems: list[str]) -> None:
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------
# On the host
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("divisions", [False, True], ids=["ops", "divisions"])
@pytest.mark.parametrize("t", INTEGER_TYPES)
def test_host_scalar_ops_match_the_interpreter(t: str, divisions: bool) -> None:
    _, (xs, ys), results = expected(t, divisions)
    program = compile_module(parse(host_module(t, divisions), f"host_{t}.mlir"))
    problems = []
    for k, (line, _) in enumerate(op_lines(t, divisions)):
        got = np.array([program.call(f"op{k}", [x, y])[0] for x, y in zip(xs, ys)])
        problems += disagreement(f"host {line}", got, results[k], xs, ys)
    assert_no_disagreement(problems)


@pytest.mark.parametrize("t", INTEGER_TYPES)
def test_division_by_zero_on_the_host_fails_as_in_the_interpreter(t: str) -> None:
    module = parse(host_module(t, True), f"host_{t}.mlir")
    program = compile_module(module)
    zero = as_array([0], t)[0]
    for k, (line, _) in enumerate(op_lines(t, True)):
        message = rf"host_{t}\.mlir:{5 * k + 3}:3: '{line.split()[0]}': integer division by zero"
        for a in as_array(edge_values(t)[:3], t):
            with pytest.raises(ProgramError, match=message):
                program.call(f"op{k}", [a, zero])
            with pytest.raises(SoacRuntimeError, match=message):
                interpret(module, f"op{k}", [a, zero])


# ---------------------------------------------------------------------------
# In kernels
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("divisions", [False, True], ids=["ops", "divisions"])
@pytest.mark.parametrize("t", INTEGER_TYPES)
def test_kernel_scalar_ops_match_the_interpreter(t: str, divisions: bool) -> None:
    module, (xs, ys), results = expected(t, divisions)
    got = compile_module(module).call("ops", [xs, ys])
    problems = []
    for k, (line, _) in enumerate(op_lines(t, divisions)):
        problems += disagreement(f"kernel {line}", np.asarray(got[k]), results[k], xs, ys)
    assert_no_disagreement(problems)


FLOAT_TO_INT = """
func.func @host(%x: {f}, %y: {f}) -> ({t}, {t}) {{
  %s = arith.fptosi %x : {f} to {t}
  %u = arith.fptoui %y : {f} to {t}
  func.return %s, %u : {t}, {t}
}}
func.func @kernel(%xs: tensor<?x{f}>, %ys: tensor<?x{f}>) -> (tensor<?x{t}>, tensor<?x{t}>) {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?x{f}>
  %r:2 = soac.map %n (%xs, %ys : tensor<?x{f}>, tensor<?x{f}>) -> (tensor<?x{t}>, tensor<?x{t}>) lambda(%x: {f}, %y: {f}) {{
    %s = arith.fptosi %x : {f} to {t}
    %u = arith.fptoui %y : {f} to {t}
    soac.yield %s, %u : {t}, {t}
  }}
  func.return %r#0, %r#1 : tensor<?x{t}>, tensor<?x{t}>
}}
"""


def in_range_floats(t: str) -> list[float]:
    """Negative values whose truncation fits `t` signed, their magnitudes fitting it unsigned (f32 holds them)."""
    if t == "i1":
        return [-0.0, -0.5, -0.75, -1.0, -1.5]
    bits = bits_of(t)
    top = float(2 ** (bits - 1) - 2 ** max(0, bits - 24))
    return [0.0, -0.0, -0.5, -0.75, -1.0, -2.9, -7.5, -100.25, -top / 3, -top, -(2.0 ** (bits - 2)) - 0.5, -(2.0 ** (bits - 1))]


@pytest.mark.parametrize("f", FLOAT_TYPES)
@pytest.mark.parametrize("t", ["i1", "i8", "i16", "i32", "i64"])
def test_float_to_integer_casts_in_range(t: str, f: str) -> None:
    """`fptosi` and `fptoui` of values whose truncation fits the result type (the others are poison)."""
    xs = np.array(in_range_floats(t), DTYPES[f])
    ys = np.abs(xs)
    module = parse(FLOAT_TO_INT.format(t=t, f=f), "casts.mlir")
    program = compile_module(module)
    want = [np.asarray(r) for r in interpret(module, "kernel", [xs, ys])]
    got = program.call("kernel", [xs, ys])
    problems = []
    for k, name in enumerate(["fptosi", "fptoui"]):
        problems += disagreement(f"kernel {name} {f} to {t}", np.asarray(got[k]), want[k], xs, ys)
        host = np.array([program.call("host", [x, y])[k] for x, y in zip(xs, ys)])
        problems += disagreement(f"host {name} {f} to {t}", host, want[k], xs, ys)
    assert_no_disagreement(problems)
