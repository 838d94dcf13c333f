"""Differential testing of soac-fuse: random SOAC programs give the same results before and after.

CI runs 500 programs; set SOAC_FUZZ_EXAMPLES=10000 to run more locally.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from soac.context import make_context
from soac.interpreter import run_function
from soac.parsing import parse_module
from soac.passes.soac_fuse import SoacFusePass

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from programs import Program, module_of_soacs, programs

EXAMPLES = int(os.environ.get("SOAC_FUZZ_EXAMPLES", "500"))
OPTIONS = st.sampled_from([(True, True), (True, True), (True, False), (False, True)])


def run(text: str, args: list[object], fuse: tuple[bool, bool] | None) -> tuple[object, ...]:
    ctx = make_context()
    module = parse_module(ctx, text, "generated")
    if fuse is not None:
        SoacFusePass(vertical=fuse[0], horizontal=fuse[1]).apply(ctx, module)
        module.verify()
    return run_function(module, "main", args)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 500,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(program=programs(), options=OPTIONS)
@pytest.mark.slow
def test_fusion_keeps_results(program: Program, options: tuple[bool, bool]) -> None:
    expected = run(program.text, program.args, None)
    got = run(program.text, program.args, options)
    assert len(got) == len(expected)
    for want, have in zip(expected, got):
        np.testing.assert_array_equal(np.asarray(have), np.asarray(want))


@pytest.mark.slow
def test_large_module_keeps_results() -> None:
    """A module of about 400 SOACs (the scaling benchmark's shape) fuses and gives the same results."""
    program = module_of_soacs(400, seed=7)
    expected = run(program.text, program.args, None)
    got = run(program.text, program.args, (True, True))
    for want, have in zip(expected, got, strict=True):
        np.testing.assert_array_equal(np.asarray(have), np.asarray(want))
