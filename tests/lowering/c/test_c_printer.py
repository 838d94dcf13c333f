"""The plain C printer (`soac.lowering.c`) against the interpreter, and the layering of the target-neutral kernel
layer (no OpenCL below the emitter).

The C printer's scalar code and control flow are what every C-like emitter shares, so they are checked as plain
C99: a scalar function printed by `CPrinter`, compiled by the host's C compiler with optimisation (which exploits
undefined behaviour, so wrapping, shifts by the width and unsigned division must be spelt out right), run on the
edges of i32, and compared with the reference interpreter.
"""

from __future__ import annotations

import ast
import io
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from soac.interpreter import run_function as interpret
from soac.lowering.c.operators import EmitError
from soac.lowering.c.printer import CPrinter
from soac.lowering.opencl.emitter import KernelPrinter
from xdsl.dialects import func

from ..conftest import parse

ROOT = Path(__file__).resolve().parents[3]

SCALAR_FUNCTION = """
func.func @f(%a: i32, %b: i32) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 5 : index
  %sum = arith.addi %a, %b : i32
  %product = arith.muli %a, %b : i32
  %shifted = arith.shli %a, %b : i32
  %signed_shift = arith.shrsi %product, %b : i32
  %one = arith.constant 1 : i32
  %nonzero = arith.ori %b, %one : i32
  %quotient = arith.divui %a, %nonzero : i32
  %rest = arith.remui %sum, %nonzero : i32
  %below = arith.cmpi ult, %a, %b : i32
  %low = arith.select %below, %quotient, %rest : i32
  %top = arith.maxsi %low, %signed_shift : i32
  %unsigned_min = arith.minui %top, %shifted : i32
  %looped = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %unsigned_min) -> (i32) {
    %k = arith.index_cast %i : index to i32
    %twice = arith.muli %acc, %sum : i32
    %next = arith.addi %twice, %k : i32
    scf.yield %next : i32
  }
  %negative = arith.cmpi slt, %looped, %one : i32
  %picked = scf.if %negative -> (i32) {
    %flipped = arith.subi %one, %looped : i32
    scf.yield %flipped : i32
  } else {
    %counted = math.ctpop %looped : i32
    scf.yield %counted : i32
  }
  %wide = arith.extsi %picked : i32 to i64
  %wide_b = arith.extui %b : i32 to i64
  %result = arith.xori %wide, %wide_b : i64
  func.return %result : i64
}
"""

EDGES = [-(2**31), -(2**31) + 1, -33, -32, -31, -1, 0, 1, 2, 31, 32, 33, 12345, 2**31 - 2, 2**31 - 1]


class PlainC(CPrinter):
    """Plain C99 with the one builtin the test function needs beyond C's operators."""

    def bit_count(self, op: object, x: str) -> str:
        return f"(int32_t)__builtin_popcount((uint32_t){x})"


def c_function(module: object) -> str:
    """`int64_t f(int32_t a, int32_t b) { ... }` printed by the plain C printer."""
    (function,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]  # pyright: ignore[reportAttributeAccessIssue]
    out = io.StringIO()
    printer = PlainC(out)
    params = [f"{printer.c_type(arg.type)} {printer.define(arg)}" for arg in function.body.block.args]
    *body, ret = function.body.block.ops
    assert isinstance(ret, func.ReturnOp)
    for op in body:
        printer.print_op(op)
    printer.line(f"return {printer.expr(ret.operands[0])};")
    return f"int64_t f({', '.join(params)}) {{\n{out.getvalue()}}}\n"


MAIN = """
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  for (int k = 1; k + 1 < argc; k += 2)
    printf("%lld\\n", (long long)f((int32_t)strtoll(argv[k], 0, 10), (int32_t)strtoll(argv[k + 1], 0, 10)));
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs the host's C compiler")
def test_plain_c_of_scalar_code_matches_the_interpreter(tmp_path: Path) -> None:
    module = parse(SCALAR_FUNCTION)
    source = "#include <stdint.h>\n#include <stdbool.h>\n#include <math.h>\n" + c_function(module) + MAIN
    (tmp_path / "f.c").write_text(source)
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Werror", "-o", str(tmp_path / "f"), str(tmp_path / "f.c")], check=True)
    pairs = [(a, b) for a in EDGES for b in EDGES]
    arguments = [str(v) for pair in pairs for v in pair]
    run = subprocess.run([str(tmp_path / "f"), *arguments], capture_output=True, text=True, check=True)
    got = [int(line) for line in run.stdout.split()]
    expected = [int(interpret(module, "f", [np.int32(a), np.int32(b)])[0]) for a, b in pairs]  # pyright: ignore[reportArgumentType]
    assert got == expected


def test_plain_c_names_its_types_and_refuses_builtins_it_lacks() -> None:
    bitcast = "%counted = arith.bitcast %looped : i32 to i32"
    module = parse(SCALAR_FUNCTION.replace("%counted = math.ctpop %looped : i32", bitcast))
    (function,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    printer = CPrinter(io.StringIO())
    for arg in function.body.block.args:
        printer.define(arg)
    for op in function.body.block.ops:
        if op.name == "scf.if":
            break
        printer.print_op(op)
    (cast,) = [op for op in function.walk() if op.name == "arith.bitcast"]
    with pytest.raises(EmitError, match=r"'arith\.bitcast' has no C form"):
        printer.arith(cast)
    text = printer.out.getvalue()  # pyright: ignore[reportAttributeAccessIssue]
    assert "const int32_t sum = (int32_t)((uint32_t)a + (uint32_t)b);" in text
    assert "int32_t looped = unsigned_min;" in text


def test_the_opencl_printer_spells_the_same_code_in_opencl_types() -> None:
    module = parse(SCALAR_FUNCTION)
    (function,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    out = io.StringIO()
    printer = KernelPrinter(out)
    for arg in function.body.block.args:
        printer.define(arg)
    for op in list(function.body.block.ops)[:-1]:
        printer.print_op(op)
    text = out.getvalue()
    assert "const int sum = (int)((uint)a + (uint)b);" in text
    assert "const int counted = (int)popcount(looped);" in text
    assert "const long wide_b = (long)(uint)b;" in text


NEUTRAL_FOLDERS = ("lowering/kernel", "lowering/conversion", "lowering/strategies", "lowering/c")


@pytest.mark.parametrize("folder", NEUTRAL_FOLDERS)
def test_the_target_neutral_layers_do_not_import_opencl(folder: str) -> None:
    """The kernel dialect, soac-to-kernel, its strategies and the C printer know no target language: a CUDA target
    would add a folder beside lowering/opencl/ and change nothing here (imports inside functions included)."""
    found = []
    for path in sorted((ROOT / folder).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            found += [f"{path.name}:{node.lineno} {name}" for name in names if name.startswith("soac.lowering.opencl")]
    assert not found, found
