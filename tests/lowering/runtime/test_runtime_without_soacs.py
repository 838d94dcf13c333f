"""Programs with arrays but no SOAC (returning an argument, reading a size) run on OpenCL as in the interpreter:
they are lowered too, so that the host holds the arrays as buffers."""

from __future__ import annotations

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import run_function
from soac.parsing import parse_module

PROGRAMS = {
    "identity": "func.func @main(%xs: tensor<?x?xi32>) -> tensor<?x?xi32> {\n  func.return %xs : tensor<?x?xi32>\n}",
    "size": """func.func @main(%xs: tensor<?xf32>, %k: index) -> (index, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %m = arith.addi %n, %k : index
  func.return %m, %xs : index, tensor<?xf32>
}""",
    "scalars": "func.func @main(%a: f32) -> f32 {\n  %b = arith.addf %a, %a : f32\n  func.return %b : f32\n}",
}
ARGS = {
    "identity": [np.arange(6, dtype=np.int32).reshape(2, 3)],
    "size": [np.ones(4, np.float32), 3],
    "scalars": [np.float32(2.5)],
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_without_soacs_on_opencl(name: str) -> None:
    module = parse_module(make_context(), PROGRAMS[name], f"{name}.mlir")
    expected = interpret(module, "main", ARGS[name])
    got = run_function(module, "main", ARGS[name])
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
