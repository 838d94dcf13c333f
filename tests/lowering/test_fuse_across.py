"""Fusion across transpose, reverse and reshape (tests/filecheck/passes/soac-fuse/across.mlir) keeps every
program's results on both backends, fuses as Futhark does (one top-level map or reduction where the FileCheck tests
say so), and never adds a kernel."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from soac.context import make_context
from soac.dialect import MapOp, RedomapOp, ReverseOp, TransposeOp
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module, lower_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_fuse import SoacFusePass
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

ACROSS = Path(__file__).resolve().parents[1] / "filecheck" / "passes" / "soac-fuse" / "across.mlir"
CHUNKS = {chunk.split("func.func @")[1].split("(")[0]: chunk for chunk in ACROSS.read_text().split("// -----")}


def _matrix(rng: np.random.Generator, n: int, m: int, dtype: Any) -> np.ndarray:
    return (rng.standard_normal((n, m)) if dtype == np.float32 else rng.integers(-99, 99, (n, m))).astype(dtype)


ARGS: dict[str, Callable[[np.random.Generator, int, int], list[Any]]] = {
    "across_transpose": lambda rng, n, m: [_matrix(rng, n, m, np.int32)],
    "across_reshape_transpose_reverse": lambda rng, n, m: [np.int64(n)],
    "across_flatten": lambda rng, n, m: [_matrix(rng, n, m, np.float32), np.int64(n * m)],
    "not_across": lambda rng, n, m: [_matrix(rng, n, m, np.int32), rng.integers(-9, 9, n).astype(np.int32)],
    "across_flatten_free": lambda rng, n, m: [
        rng.standard_normal(n).astype(np.float32),
        rng.standard_normal(m).astype(np.float32),
    ],
}
FUSED = {
    "across_transpose": 1,
    "across_reshape_transpose_reverse": 1,
    "across_flatten": 1,
    "not_across": 1,
    "across_flatten_free": 1,
}
"""The top-level SOACs after soac-fuse (not_across: its three nests join horizontally, their array ops stay)."""


def _module(name: str, *passes: Any) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, CHUNKS[name], "across.mlir")
    for p in passes:
        p.apply(ctx, module)
    module.verify()
    return module


def _kernels(module: ModuleOp) -> int:
    return sum(1 for op in lower_module(module).walk() if op.name == "kernel.launch")


@pytest.mark.parametrize("name", sorted(ARGS))
def test_fusion_across_keeps_results_on_both_backends(name: str, assert_same: Callable[..., None]) -> None:
    original = _module(name)
    fused = _module(name, SoacFusePass())
    function = next(op for op in fused.walk() if isinstance(op, func.FuncOp))
    top = [op for op in function.body.block.ops if isinstance(op, MapOp | RedomapOp)]
    assert len(top) == FUSED[name]
    if name == "not_across":
        assert [op.name for op in function.body.block.ops if isinstance(op, ReverseOp | TransposeOp)] == [
            "soac.reverse",
            "soac.reverse",
            "soac.transpose",
        ]
    assert _kernels(fused) <= _kernels(original)
    programs = [compile_module(m) for m in (original, fused, _module(name, SoacFusePass(), SoacFlattenPass()))]
    rng = np.random.default_rng(7)
    for n, m in [(0, 3), (1, 1), (3, 3), (5, 2), (40, 17)]:
        args = ARGS[name](rng, n, m)
        expected = interpret(original, name, args)
        assert_same(expected, interpret(fused, name, args))
        for program in programs:
            assert_same(expected, program.call(name, args))
