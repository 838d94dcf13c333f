"""Differential testing of soac-fuse: random SOAC programs give the same results before and after.

CI runs a few hundred programs (`soac-fuzz --list`); `soac-fuzz fuse` runs 10,000 (or set SOAC_FUZZ_EXAMPLES).
"""

from __future__ import annotations

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
from soac.tools.soac_fuzz import ci_count

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from programs import T1, T2, Generator, Program, make_args, module_of_soacs, programs

EXAMPLES = ci_count("fuse", "SOAC_FUZZ_EXAMPLES")
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


@st.composite
def hist_pair_programs(draw: st.DrawFn) -> Program:
    """Programs of maps and pairs of histograms over one bin array (`Generator.stmt_hist_pair`)."""
    generator = Generator(lambda lo, hi: draw(st.integers(lo, hi)))
    n_arrays = draw(st.integers(1, 2))
    generator.arrays, generator.matrices = [f"%a{i}" for i in range(n_arrays)], ["%mat"]
    for _ in range(draw(st.integers(1, 3))):
        (generator.stmt_hist_pair if draw(st.booleans()) else generator.stmt_map)()
    generator.stmt_hist_pair()
    results = generator.arrays[n_arrays:]
    params = ", ".join(["%n: index", "%m: index", *(f"%a{i}: {T1}" for i in range(n_arrays)), f"%mat: {T2}"])
    text = "\n".join(
        [
            f"func.func @main({params}) -> ({', '.join([T1] * len(results))}) {{",
            *generator.lines,
            f"  func.return {', '.join(results)} : {', '.join([T1] * len(results))}",
            "}",
        ]
    )
    n, seed = draw(st.integers(1, 12)), draw(st.integers(0, 2**16))
    return Program(text, make_args(n, 2, n_arrays, seed))


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(program=hist_pair_programs())
def test_hist_pairs_fuse_and_keep_results(program: Program) -> None:
    """Every pair of histograms over one bin array fuses (at least the last pair), with the interpreter's results
    on random inputs, bins out of bounds included (`x & 7` into `%n` bins)."""
    expected = run(program.text, program.args, None)
    ctx = make_context()
    module = parse_module(ctx, program.text, "generated")
    before = sum(op.name == "soac.hist" for op in module.walk())
    SoacFusePass().apply(ctx, module)
    module.verify()
    after = [op for op in module.walk() if op.name == "soac.hist"]
    assert len(after) < before
    assert any(len(op.results) >= 2 for op in after)
    got = run_function(module, "main", program.args)
    for want, have in zip(expected, got, strict=True):
        np.testing.assert_array_equal(np.asarray(have), np.asarray(want))
