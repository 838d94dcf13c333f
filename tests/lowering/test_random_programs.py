"""Random SOAC programs (tests/programs.py) give the interpreter's results on OpenCL (PoCL in CI).

CI runs a few (`soac-fuzz --list`); `soac-fuzz random` runs thousands (or set SOAC_FUZZ_EXAMPLES). PoCL takes about a
second to build a source, so programs run in batches of ten functions per module.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.tools.soac_fuzz import ci_count

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from programs import Program, programs  # pyright: ignore[reportMissingImports]

BATCH = 10
EXAMPLES = ci_count("random", "SOAC_FUZZ_EXAMPLES")


@settings(max_examples=max(EXAMPLES // BATCH, 1), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(batch=st.lists(programs(), min_size=BATCH, max_size=BATCH))
@pytest.mark.slow
def test_random_programs_match_the_interpreter(batch: list[Program]):
    text = "\n".join(p.text.replace("func.func @main(", f"func.func @main_{k}(", 1) for k, p in enumerate(batch))
    module = parse_module(make_context(), text, "random.mlir")
    program = compile_module(module)
    for k, case in enumerate(batch):
        expected = interpret(module, f"main_{k}", case.args)
        got = program.call(f"main_{k}", case.args)
        assert len(got) == len(expected)
        for j, (e, g) in enumerate(zip(expected, got)):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(e), err_msg=f"result #{j}\n{case.text}")
