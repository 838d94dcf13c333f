"""The programs in examples/ give the interpreter's results on OpenCL."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ARGS = {
    "radix_sort_step.mlir": lambda rng: [rng.integers(0, 1000, 300).astype(np.int32), np.int32(3)],
    "locvolcalib.mlir": lambda rng: [
        rng.uniform(0, 1, (6, 9)).astype(np.float32),
        rng.uniform(0, 1, 9).astype(np.float32),
        np.int64(3),
    ],
    "inplace_update.mlir": lambda rng: [rng.integers(0, 7, 50).astype(np.int32), np.int64(7)],
    "map_scan.mlir": None,
    "jacobi.mlir": lambda rng: [rng.uniform(-1, 1, (23, 70)).astype(np.float32), np.int64(5)],
}


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.mlir")), ids=lambda p: p.name)
def test_example(path: Path, random_args, assert_same, rng):
    module = parse_module(make_context(), path.read_text(), str(path))
    make = ARGS.get(path.name)
    args = make(rng) if make is not None else random_args(module, "main", 23)
    assert_same(interpret(module, "main", args), compile_module(module).call("main", args))
