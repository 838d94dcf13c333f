"""Scanomaps whose lambda forwards values to the post lambda run on OpenCL (PoCL) as on the interpreter, under every
scan strategy: random programs (tests/programs.py) holding such scanomaps as written or after fusion, compiled as
written, fused, and through the default pipeline (every version its thresholds select)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.dialect import ScanomapOp
from soac.interpreter import run_function as interpret
from soac.lowering.conversion.soac_to_kernel import SCAN_STRATEGIES
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes import DEFAULT_PIPELINE
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from soac.tools.soac_test import all_passes
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from programs import Generator, Program, make_args  # pyright: ignore[reportMissingImports]

PROGRAMS = 10


def transformed(text: str, pipeline: str) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, text, "generated")
    if pipeline:
        PassPipeline.parse_spec(all_passes(), pipeline).apply(ctx, module)
        module.verify()
    return module


def forwards(module: ModuleOp) -> bool:
    return any(isinstance(op, ScanomapOp) and op.num_forwarded > 0 for op in module.walk())


def forwarding_programs(count: int, seed: int) -> list[Program]:
    """`count` seeded random programs that hold a forwarding scanomap as written or after soac-fuse."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        n_arrays = rng.randint(1, 3)
        text = Generator(rng.randint).function(n_arrays, rng.randint(2, 8))
        if forwards(transformed(text, "")) or forwards(transformed(text, "soac-fuse")):
            found.append(Program(text, make_args(rng.choice([1, 6, 130]), rng.randint(1, 5), n_arrays, rng.randint(0, 2**16))))
    return found


CASES = forwarding_programs(PROGRAMS, 302)


def batch_module(pipeline: str) -> ModuleOp:
    text = "\n".join(p.text.replace("func.func @main(", f"func.func @main_{k}(", 1) for k, p in enumerate(CASES))
    return transformed(text, pipeline)


def test_the_programs_forward() -> None:
    fused = batch_module("soac-fuse")
    assert sum(isinstance(op, ScanomapOp) and op.num_forwarded > 0 for op in fused.walk()) >= PROGRAMS


QUICK = {("soac-fuse", "chunked"), (DEFAULT_PIPELINE, "chunked")}
"""PoCL builds the look-back and reduce-then-scan kernels slowly (about a minute for these programs): slow tier."""


@pytest.mark.parametrize(
    ("pipeline", "scan"),
    [
        pytest.param(pipeline, scan, marks=() if (pipeline, scan) in QUICK else pytest.mark.slow)
        for pipeline in ("", "soac-fuse", DEFAULT_PIPELINE)
        for scan in SCAN_STRATEGIES
    ],
)
def test_forwarding_scanomaps_match_the_interpreter(pipeline: str, scan: str) -> None:
    written = batch_module("")
    module = batch_module(pipeline)
    program = compile_module(module, scan=scan)
    names = sorted({t.name for t in list_thresholds(module) if t.name})
    versions = [dict.fromkeys(names, MAX_THRESHOLD), dict.fromkeys(names, 0)] if names else [{}]
    for k, case in enumerate(CASES):
        expected = interpret(written, f"main_{k}", case.args)
        for thresholds in versions:
            got = program.call(f"main_{k}", case.args, thresholds)
            assert len(got) == len(expected)
            for j, (e, g) in enumerate(zip(expected, got)):
                np.testing.assert_array_equal(np.asarray(g), np.asarray(e), err_msg=f"result #{j}, {thresholds}\n{case.text}")
