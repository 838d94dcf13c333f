"""Host plans (soac.lowering.runtime.host_plan): scalar ops on Python ints give `eval_scalar`'s results (the interpreter's
fixed-width arithmetic on numpy scalars, overflow and edges included), a function's plan is built once, and whole
host functions (loops, branches, calls, kernel arguments of every scalar type) agree with the interpreter."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.interpreter.errors import SoacRuntimeError
from soac.lowering.runtime import compile_module, host_plan
from soac.lowering.runtime.errors import OpenCLRuntimeError, ProgramError
from soac.lowering.runtime.host_scalars import eval_scalar, python_int_function, scalar_function, to_numpy, to_python
from soac.parsing import parse_module
from xdsl.dialects import func
from xdsl.ir import Operation

from ..conftest import assert_same

INTEGER_TYPES = ["i8", "i16", "i32", "i64", "index"]
BINARY_OPS = [
    "addi",
    "subi",
    "muli",
    "andi",
    "ori",
    "xori",
    "shli",
    "shrsi",
    "shrui",
    "divsi",
    "remsi",
    "divui",
    "remui",
    "floordivsi",
    "ceildivsi",
    "ceildivui",
    "minsi",
    "maxsi",
    "minui",
    "maxui",
]
PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


def host_ops(body: str, params: str) -> list[Operation]:
    """The ops of `func.func @f(params)` with `body` (parsed, so that they have locations for their messages)."""
    text = f"func.func @f({params}) {{\n{body}\n  func.return\n}}"
    module = parse_module(make_context(), text, "host.mlir")
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    return [op for op in function.body.block.ops if not isinstance(op, func.ReturnOp)]


def bits_of(t: str) -> int:
    return 64 if t == "index" else int(t[1:])


def operand_values(t: str, rng: np.random.Generator) -> list[int]:
    """The edges of `t` (the most negative and positive values, around zero, around the width) and random values."""
    bits = bits_of(t)
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    edges = [low, low + 1, -bits - 1, -bits, -2, -1, 0, 1, 2, 3, bits - 1, bits, bits + 1, high - 1, high]
    return edges + [int(v) for v in rng.integers(low, high, 12, endpoint=True)]


def numpy_result(op: Operation, args: list[object]) -> object:
    """`eval_scalar` on numpy scalars (the interpreter's arithmetic), division by zero an error."""
    values = [to_numpy(v.type)(a) for v, a in zip(op.operands, args)]
    if op.name.split(".")[1] in ("divsi", "remsi", "divui", "remui", "floordivsi", "ceildivsi", "ceildivui") and not values[1]:
        return ProgramError
    with np.errstate(all="ignore"):
        return eval_scalar(op, values)


def assert_same_scalar(op: Operation, args: list[object]) -> None:
    expected = numpy_result(op, args)
    function = scalar_function(op)
    if expected is ProgramError:
        with pytest.raises(ProgramError, match=r"host\.mlir:\d+:\d+: 'arith\.\w+': integer division by zero"):
            function(*args)
        return
    got = function(*args)
    result_type = op.results[0].type
    assert type(got) is type(to_python(result_type)(expected)), (op.name, args, got)
    converted = to_numpy(result_type)(got)
    assert converted.dtype == np.asarray(expected).dtype, (op.name, args)
    assert converted == expected, f"{op.name} {args}: {got}, numpy gives {expected}"


@pytest.mark.parametrize("t", INTEGER_TYPES)
def test_binary_integer_ops_give_numpys_results(t: str) -> None:
    body = "\n".join(f"  %{name} = arith.{name} %a, %b : {t}" for name in BINARY_OPS)
    ops = host_ops(body, f"%a: {t}, %b: {t}")
    assert all(python_int_function(op) is not None for op in ops), "every integer op has a Python-int form"
    values = operand_values(t, np.random.default_rng(bits_of(t)))
    for op in ops:
        for a, b in itertools.product(values, values):
            assert_same_scalar(op, [a, b])


@pytest.mark.parametrize("t", ["i1", *INTEGER_TYPES])
def test_comparisons_give_numpys_results(t: str) -> None:
    body = "\n".join(f"  %{p} = arith.cmpi {p}, %a, %b : {t}" for p in PREDICATES)
    ops = host_ops(body, f"%a: {t}, %b: {t}")
    values = [False, True] if t == "i1" else operand_values(t, np.random.default_rng(7))
    for op in ops:
        for a, b in itertools.product(values, values):
            assert_same_scalar(op, [a, b])


def test_boolean_ops_and_select() -> None:
    ops = host_ops(
        "\n".join(f"  %{name} = arith.{name} %p, %q : i1" for name in ("andi", "ori", "xori"))
        + "\n  %s = arith.select %p, %a, %b : index",
        "%p: i1, %q: i1, %a: index, %b: index",
    )
    for op in ops[:3]:
        for p, q in itertools.product([False, True], repeat=2):
            assert_same_scalar(op, [p, q])
    for p in (False, True):
        assert_same_scalar(ops[3], [p, -5, 2**63 - 1])


def test_casts_give_numpys_results() -> None:
    types = ["i1", *INTEGER_TYPES]
    lines, params = [], ", ".join(f"%{t}: {t}" for t in types)
    for source, target in itertools.permutations(types, 2):
        if source != "index" and target != "index":
            kind = "extsi" if bits_of(source) < bits_of(target) else "trunci" if bits_of(source) > bits_of(target) else None
            if kind:
                lines.append(f"  %{kind}_{source}_{target} = arith.{kind} %{source} : {source} to {target}")
            if kind == "extsi":
                lines.append(f"  %extui_{source}_{target} = arith.extui %{source} : {source} to {target}")
        elif "i1" not in (source, target):
            lines.append(f"  %cast_{source}_{target} = arith.index_cast %{source} : {source} to {target}")
    rng = np.random.default_rng(3)
    for op in host_ops("\n".join(lines), params):
        source = str(op.operands[0].type)
        for value in [False, True] if source == "i1" else operand_values(source, rng):
            assert_same_scalar(op, [value])


def test_float_ops_keep_numpy_scalars() -> None:
    ops = host_ops(
        "  %s = arith.addf %x, %y : f32\n  %q = arith.divf %x, %y : f32\n  %c = arith.cmpf olt, %x, %y : f32\n"
        "  %i = arith.fptosi %x : f32 to i32\n  %f = arith.sitofp %n : i64 to f32\n  %m = math.fma %x, %y, %x : f32",
        "%x: f32, %y: f32, %n: i64",
    )
    pairs = [(np.float32(1.5), np.float32(0.0)), (np.float32(-3.25), np.float32(2.0)), (np.float32(3e38), np.float32(0.5))]
    for x, y in pairs:
        for op in ops:
            args = {"arith.sitofp": [2**40 + 1]}.get(op.name, [x, y, x][: len(op.operands)])
            assert_same_scalar(op, args)


def test_constants_and_ops_the_host_cannot_evaluate() -> None:
    """Constants are Python ints; an op without a host form fails only when it runs, naming itself."""
    constant, extended = host_ops(
        "  %c = arith.constant -7 : i16\n  %s, %o = arith.addui_extended %a, %b : i32, i1", "%a: i32, %b: i32"
    )
    value = scalar_function(constant)()
    assert value == -7
    assert type(value) is int
    run = scalar_function(extended)
    with pytest.raises(OpenCLRuntimeError, match=r"the host cannot evaluate 'arith\.addui_extended'"):
        run(np.int32(1), np.int32(2))


# ---------------------------------------------------------------------------
# Whole host functions
# ---------------------------------------------------------------------------

HOST_FUNCTIONS = """
func.func @step(%x: i64, %k: i64) -> i64 {
  %c3 = arith.constant 3 : i64
  %m = arith.muli %x, %c3 : i64
  %s = arith.addi %m, %k : i64
  %q = arith.divsi %s, %k : i64
  %r = arith.remui %s, %k : i64
  %t = arith.xori %q, %r : i64
  func.return %t : i64
}
func.func @main(%n: index, %seed: i64, %k: i64) -> (i64, index, i1, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 9223372036854775807 : i64
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%x = %seed) -> (i64) {
    %y = func.call @step(%x, %k) : (i64, i64) -> i64
    %w = arith.addi %y, %big : i64
    %neg = arith.cmpi slt, %w, %x : i64
    %z = scf.if %neg -> (i64) {
      %d = arith.shrui %w, %k : i64
      scf.yield %d : i64
    } else {
      scf.yield %w : i64
    }
    scf.yield %z : i64
  }
  %steps = scf.while (%j = %n) : (index) -> index {
    %more = arith.cmpi sgt, %j, %c1 : index
    scf.condition(%more) %j : index
  } do {
  ^bb0(%j2: index):
    %half = arith.divui %j2, %c1 : index
    %next = arith.subi %half, %c1 : index
    scf.yield %next : index
  }
  %odd = arith.cmpi ult, %acc, %seed : i64
  %low = arith.trunci %acc : i64 to i32
  func.return %acc, %steps, %odd, %low : i64, index, i1, i32
}
"""


@pytest.mark.parametrize(("n", "seed", "k"), [(0, 5, 3), (7, 12345, 3), (20, -(2**62), 7), (5, 2**63 - 1, 2)])
def test_host_function_matches_the_interpreter(n: int, seed: int, k: int) -> None:
    module = parse_module(make_context(), HOST_FUNCTIONS, "host.mlir")
    args = [np.int64(n), np.int64(seed), np.int64(k)]
    assert_same(interpret(module, "main", args), compile_module(module).call("main", args))


def test_a_plan_is_built_once_per_function(monkeypatch) -> None:
    built: list[str] = []
    compile_function = host_plan.compile_function

    def counting(device, function, *options):
        built.append(function.sym_name.data)
        return compile_function(device, function, *options)

    monkeypatch.setattr(host_plan, "compile_function", counting)
    module = parse_module(make_context(), HOST_FUNCTIONS, "host.mlir")
    program = compile_module(module)
    for n in range(4):
        program.call("main", [np.int64(n + 3), np.int64(n), np.int64(3)])
    assert sorted(built) == ["main", "step"]


def test_division_by_zero_on_the_host_names_the_op() -> None:
    module = parse_module(make_context(), HOST_FUNCTIONS, "host.mlir")
    args = [np.int64(2), np.int64(1), np.int64(0)]
    message = r"host\.mlir:6:3: 'arith\.divsi': integer division by zero"
    with pytest.raises(ProgramError, match=message):
        compile_module(module).call("main", args)
    with pytest.raises(SoacRuntimeError, match=message):
        interpret(module, "main", args)


KERNEL_ARGUMENTS = """
func.func @main(%xs: tensor<?xi32>, %flag: i1, %small: i8, %mid: i16, %wide: i64, %scale: f32, %shift: f64) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %r = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xf64> lambda(%x: i32) {
    %a = arith.extsi %small : i8 to i32
    %b = arith.extsi %mid : i16 to i32
    %s = arith.addi %x, %a : i32
    %t = arith.select %flag, %s, %b : i32
    %u = arith.extsi %t : i32 to i64
    %v = arith.addi %u, %wide : i64
    %f = arith.sitofp %v : i64 to f64
    %g = arith.extf %scale : f32 to f64
    %h = arith.mulf %f, %g : f64
    %y = arith.addf %h, %shift : f64
    soac.yield %y : f64
  }
  func.return %r : tensor<?xf64>
}
"""


@pytest.mark.parametrize("flag", [False, True])
def test_scalar_kernel_arguments_of_every_type(flag: bool) -> None:
    """Kernels are launched with their scalar parameters' types declared to pyopencl: bools, narrow and wide
    integers, f32 and f64 arrive as the interpreter has them."""
    module = parse_module(make_context(), KERNEL_ARGUMENTS, "args.mlir")
    args = [np.arange(-5, 95, dtype=np.int32), np.bool_(flag), np.int8(-7), np.int16(300), np.int64(2**40), np.float32(0.5), 1.25]
    program = compile_module(module)
    assert_same(interpret(module, "main", args), program.call("main", args))


DIVIDED = """
func.func @main(%xs: tensor<?xf32>, %k: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.divf %x, %k : f32
    soac.yield %y : f32
  }
  func.return %r : tensor<?xf32>
}
"""


def test_a_launch_sets_a_zero_of_the_other_sign() -> None:
    """A launch sets only the scalar arguments that changed since the kernel's last launch; -0.0 == 0.0, yet it
    is another argument (1 / -0.0 is -inf), so a call with -0.0 after one with 0.0 (and back) sets it."""
    module = parse_module(make_context(), DIVIDED, "divided.mlir")
    program = compile_module(module)
    xs = np.ones(4, np.float32)
    for k in (0.0, -0.0, -0.0, 0.0, 2.0):
        args = [xs, np.float32(k)]
        assert_same(interpret(module, "main", args), program.call("main", args))


def test_arguments_that_need_converting_still_do() -> None:
    """Arrays of the parameter's element type, C-contiguous, go to the device as they are; others through the
    interpreter's checks and conversions (a strided view, a narrower type, another byte order; a wrong type or rank)."""
    module = parse_module(make_context(), KERNEL_ARGUMENTS, "args.mlir")
    program = compile_module(module)
    rest = [np.bool_(True), np.int8(1), np.int16(2), np.int64(3), np.float32(2.0), 0.0]
    base = np.arange(40, dtype=np.int32)
    for xs in (base, base[::2], base.astype(np.int16), base.astype(">i4")):
        assert_same(interpret(module, "main", [xs, *rest]), program.call("main", [xs, *rest]))
    with pytest.raises(Exception, match=r"argument #0 of @main: expected tensor<\?xi32>, got int64 array"):
        program.call("main", [base.astype(np.int64), *rest])
    with pytest.raises(Exception, match=r"argument #0 of @main: expected tensor<\?xi32>, got int32 array of shape \(2, 20\)"):
        program.call("main", [base.reshape(2, 20), *rest])


REPEATED_SCALARS = """
func.func @main(%n: index, %x: f32) -> (index, f32, i1) {
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  %m = arith.muli %n, %c3 : index
  %big = soac.threshold "suff_outer_par_0" %m default 10
  %r = scf.if %big -> (index) {
    %d = arith.divui %m, %n : index
    scf.yield %d : index
  } else {
    scf.yield %m : index
  }
  %inv = arith.divf %one, %x : f32
  func.return %r, %inv, %big : index, f32, i1
}
"""


def test_repeated_calls_reuse_the_scalars_of_their_key() -> None:
    """A call with the integer arguments and thresholds of an earlier one sets the scalars that depend only on them
    at once; other arguments, other thresholds and float arguments (1 / -0.0 is not 1 / 0.0) give their own."""
    module = parse_module(make_context(), REPEATED_SCALARS, "host.mlir")
    program = compile_module(module)
    body = program.function_plan("main").body
    assert len(body.static_slots) == 3, program.module  # muli, the threshold, cmpi
    for n, x, thresholds in [(4, 0.0, {}), (4, -0.0, {}), (2, 2.0, {}), (4, 0.5, {"suff_outer_par_0": 100}), (4, 0.0, {})]:
        got = program.call("main", [np.int64(n), np.float32(x)], thresholds)
        expected = interpret(module, "main", [np.int64(n), np.float32(x)], thresholds)
        assert_same(expected, got)
    assert len(body.known) == 3
    with pytest.raises(ProgramError, match="division by zero"):
        program.call("main", [np.int64(0), np.float32(1.0)], {"suff_outer_par_0": 0})
