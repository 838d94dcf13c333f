"""Differential testing of soac-simplify: random programs give the same results after it, alone and in the default
pipeline with every version forced, and never launch more kernels.

CI runs 60 flat and 60 nested programs on the interpreter and 40 of each on OpenCL (PoCL) for the kernel counts;
`soac-fuzz simplify` runs thousands (or set SOAC_FUZZ_EXAMPLES and SOAC_NESTED_EXAMPLES; about 1 s per 10 programs on
OpenCL).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from soac.context import make_context
from soac.interpreter import run_function
from soac.lowering.runtime import Program as CompiledProgram
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes import DEFAULT_PIPELINE
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from soac.tools.soac_fuzz import ci_count
from soac.tools.soac_test import all_passes
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from nested_programs import nested_programs  # pyright: ignore[reportMissingImports]
from programs import Program, programs  # pyright: ignore[reportMissingImports]

EXAMPLES = ci_count("simplify", "SOAC_FUZZ_EXAMPLES")
NESTED = ci_count("simplify", "SOAC_NESTED_EXAMPLES")
BATCH = 10
UNSIMPLIFIED = "canonicalize,soac-fuse,soac-flatten"


def transformed(text: str, pipeline: str) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, text, "generated")
    if pipeline:
        PassPipeline.parse_spec(all_passes(), pipeline).apply(ctx, module)
        module.verify()
    return module


def assert_same(got: tuple[object, ...], expected: tuple[object, ...], what: str) -> None:
    assert len(got) == len(expected), what
    for j, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e), err_msg=f"result #{j}, {what}")


def forced_versions(module: ModuleOp) -> list[dict[str, int]]:
    """None of the thresholds taken, all taken, and each one alone."""
    names = sorted({t.name for t in list_thresholds(module) if t.name})
    return [dict.fromkeys(names, MAX_THRESHOLD), dict.fromkeys(names, 0)] + [
        dict.fromkeys(names, MAX_THRESHOLD) | {n: 0} for n in names
    ]


def check_pipelines(program: Program) -> None:
    expected = run_function(transformed(program.text, ""), "main", program.args)
    alone = transformed(program.text, "soac-simplify")
    assert_same(run_function(alone, "main", program.args), expected, f"soac-simplify\n{program.text}")
    module = transformed(program.text, DEFAULT_PIPELINE)
    for thresholds in forced_versions(module):
        got = run_function(module, "main", program.args, thresholds)
        assert_same(got, expected, f"{DEFAULT_PIPELINE}, thresholds {thresholds}\n{program.text}")


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(program=programs())
@pytest.mark.slow
def test_simplify_keeps_results(program: Program) -> None:
    check_pipelines(program)


@settings(max_examples=NESTED, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(program=nested_programs())
@pytest.mark.slow
def test_simplify_keeps_results_of_nests(program: Program) -> None:
    check_pipelines(program)


@contextmanager
def counted_launches(program: CompiledProgram) -> Iterator[list[int]]:
    """Counts the kernel launches of `program` (the runtime looks each kernel up at its launch)."""
    count = [0]

    class Counting(dict[str, Any]):
        def __getitem__(self, name: str) -> Any:
            count[0] += 1
            return super().__getitem__(name)

    kernels = program.kernels
    program.kernels = Counting(kernels)
    try:
        yield count
    finally:
        program.kernels = kernels


def launches(program: CompiledProgram, name: str, args: list[object], thresholds: dict[str, int]) -> int:
    with counted_launches(program) as count:
        program.call(name, args, thresholds)
    return count[0]


def check_launches(batch: list[Program]) -> None:
    """Each program, with its thresholds at their defaults, launches no more kernels after the simplifier."""
    text = "\n".join(p.text.replace("func.func @main(", f"func.func @main_{k}(", 1) for k, p in enumerate(batch))
    plain = compile_module(transformed(text, UNSIMPLIFIED))
    simplified = compile_module(transformed(text, DEFAULT_PIPELINE))
    for k, case in enumerate(batch):
        before = launches(plain, f"main_{k}", case.args, {})
        after = launches(simplified, f"main_{k}", case.args, {})
        assert after <= before, f"{after} launches after soac-simplify, {before} without\n{case.text}"


@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(programs(), min_size=BATCH, max_size=BATCH))
@pytest.mark.slow
def test_simplify_launches_no_more_kernels(batch: list[Program]) -> None:
    check_launches(batch)


@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(nested_programs(), min_size=BATCH, max_size=BATCH))
@pytest.mark.slow
def test_simplify_launches_no_more_kernels_in_nests(batch: list[Program]) -> None:
    check_launches(batch)


INVARIANT_IOTAS = """
func.func @main(%x: tensor<?xf32>, %steps: index) -> (tensor<?xindex>, tensor<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %a = soac.iota %n : tensor<?xindex>
  %l = scf.for %t = %c0 to %steps step %c1 iter_args(%v = %a) -> (tensor<?xindex>) {
    %b = soac.iota %n : tensor<?xindex>
    scf.yield %b : tensor<?xindex>
  }
  %c = soac.iota %n : tensor<?xindex>
  func.return %l, %c : tensor<?xindex>, tensor<?xindex>
}
"""


@pytest.mark.parametrize(("options", "iotas", "in_loop"), [("", 1, 0), ("{cse=false}", 3, 0), ("{hoist=false cse=false}", 3, 1)])
def test_pass_options(options: str, iotas: int, in_loop: int) -> None:
    """`hoist=false` keeps the loop's invariant iota in it, `cse=false` keeps the three iotas apart."""
    module = transformed(INVARIANT_IOTAS, f"soac-simplify{options}")
    loops = [op for op in module.walk() if op.name == "scf.for"]
    assert sum(op.name == "soac.iota" for op in module.walk()) == iotas
    assert sum(op.name == "soac.iota" for loop in loops for op in loop.walk()) == in_loop


INVARIANT_CHECK = """
func.func @main(%m: index, %k: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %same = arith.cmpi eq, %m, %k : index
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.assert %same, "'soac.map': width {0} does not match the outer size {1} of input #1" (%m, %k : index, index)
    %y = arith.mulf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %r : tensor<?xf32>
}
"""


@pytest.mark.parametrize("backend", ["interp", "opencl"])
def test_a_hoisted_check_fails_where_the_lambda_failed(backend: str) -> None:
    """The check leaves the lambda: it still fails for a non-empty map and still holds for an empty one."""
    from soac.dialect import AssertOp
    from soac.interpreter.errors import SoacRuntimeError

    module = transformed(INVARIANT_CHECK, DEFAULT_PIPELINE)
    checks = [op for op in module.walk() if isinstance(op, AssertOp)]
    assert [check.parent_op().name for check in checks] == ["func.func"], str(module)  # type: ignore[union-attr]
    compiled = compile_module(module) if backend == "opencl" else None

    def run(*args: object) -> tuple[object, ...]:
        return compiled.call("main", args) if compiled else run_function(module, "main", args)

    xs, empty = np.arange(4, dtype=np.float32), np.zeros(0, np.float32)
    assert_same(run(3, 3, xs), (xs * xs,), "m = k")
    assert_same(run(3, 4, empty), (empty,), "m != k, no element")
    with pytest.raises(SoacRuntimeError, match="width 3 does not match the outer size 4 of input #1"):
        run(3, 4, xs)
