"""Random nested programs (tests/nested_programs.py) keep their results through soac-fuse and soac-flatten (every
mode; every version of `incremental` forced; and soac-tile, soac-coalesce after it), on the interpreter and on
OpenCL (PoCL in CI).

CI runs a few (`soac-fuzz --list`); `soac-fuzz nested` runs a thousand (or set SOAC_NESTED_EXAMPLES), and
bench/check_nested.py runs thousands by seed (10,000 on PoCL, seeds 8600..18599, 0 mismatches and 0 internal errors;
the counts are in bench/RESULTS.md).
Programs run in batches of ten functions per module, so that each pipeline's module is built once per batch.
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
from soac.passes import DEFAULT_PIPELINE, get_all_passes
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from soac.tools.soac_fuzz import ci_count
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from nested_programs import nested_programs  # pyright: ignore[reportMissingImports]
from programs import Program  # pyright: ignore[reportMissingImports]

BATCH = 10
EXAMPLES = ci_count("nested", "SOAC_NESTED_EXAMPLES")
PIPELINES = [
    "soac-fuse",
    "soac-fuse,soac-flatten{mode=moderate}",
    "soac-simplify,soac-fuse,soac-simplify,soac-flatten{mode=full},soac-simplify",
    DEFAULT_PIPELINE,
    "soac-fuse,soac-flatten,soac-tile",
    "soac-fuse,soac-flatten,soac-coalesce",
]


def transformed(text: str, pipeline: str) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, text, "nested.mlir")
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(ctx, module)
    module.verify()
    return module


def versions(module: ModuleOp, name: str) -> list[dict[str, int]]:
    """Threshold settings that force every version of `@name`: none taken, all taken, and each one alone."""
    names = [t.name for t in list_thresholds(module) if t.name]
    settings_ = [dict.fromkeys(names, MAX_THRESHOLD), dict.fromkeys(names, 0)]
    return settings_ + [dict.fromkeys(names, MAX_THRESHOLD) | {n: 0} for n in names]


def assert_same(got: tuple[object, ...], expected: tuple[object, ...], what: str) -> None:
    assert len(got) == len(expected), what
    for j, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e), err_msg=f"result #{j}, {what}")


@settings(max_examples=max(EXAMPLES // BATCH, 1), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(batch=st.lists(nested_programs(), min_size=BATCH, max_size=BATCH))
@pytest.mark.slow
def test_nested_programs_keep_their_results(batch: list[Program]) -> None:
    text = "\n".join(p.text.replace("func.func @main(", f"func.func @main_{k}(", 1) for k, p in enumerate(batch))
    original = parse_module(make_context(), text, "nested.mlir")
    expected = [interpret(original, f"main_{k}", case.args) for k, case in enumerate(batch)]
    for pipeline in PIPELINES:
        module = transformed(text, pipeline)
        program = compile_module(module)
        for k, case in enumerate(batch):
            for thresholds in versions(module, f"main_{k}"):
                what = f"{pipeline}, thresholds {thresholds}\n{case.text}"
                assert_same(interpret(module, f"main_{k}", case.args, thresholds), expected[k], f"interpreter, {what}")
                assert_same(program.call(f"main_{k}", case.args, thresholds), expected[k], f"OpenCL, {what}")
