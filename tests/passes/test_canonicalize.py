"""Differential testing of the soac canonicalisation patterns: random programs (fused or not) give the same results
after `canonicalize`, which drops unused SOAC results, ignored inputs, unused map-outs and post results, and unused
operator parts.

CI runs 300 programs; set SOAC_FUZZ_EXAMPLES to run more.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from soac.context import make_context
from soac.dialect import MapOp, RedomapOp, ReduceOp, ScanomapOp, ScanOp
from soac.interpreter import run_function
from soac.parsing import parse_module
from soac.passes.soac_fuse import SoacFusePass
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.canonicalize import CanonicalizePass

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from programs import Program, programs

EXAMPLES = int(os.environ.get("SOAC_FUZZ_EXAMPLES", "300"))


def soac_parts(module: ModuleOp) -> int:
    """Results, inputs and operator values of the maps, reduces, scans, redomaps and scanomaps of `module`."""
    total = 0
    for op in module.walk():
        if isinstance(op, MapOp | ReduceOp | ScanOp | RedomapOp | ScanomapOp):
            total += len(op.results) + len(op.inputs)
        if isinstance(op, ReduceOp | ScanOp | RedomapOp | ScanomapOp):
            total += len(op.neutral)
        if isinstance(op, ScanomapOp):
            total += len(op.reduce_neutral)
    return total


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(program=programs(), fuse_first=st.booleans())
def test_canonicalize_keeps_results(program: Program, fuse_first: bool) -> None:
    ctx = make_context()
    module = parse_module(ctx, program.text, "generated")
    expected = run_function(module, "main", program.args)
    if fuse_first:
        SoacFusePass().apply(ctx, module)
    before = soac_parts(module)
    CanonicalizePass().apply(ctx, module)
    module.verify()
    assert soac_parts(module) <= before
    got = run_function(module, "main", program.args)
    assert len(got) == len(expected)
    for want, have in zip(expected, got):
        np.testing.assert_array_equal(np.asarray(have), np.asarray(want))
