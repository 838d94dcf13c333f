"""Both program generators (tests/programs.py, tests/nested_programs.py) through soac.lang's GPU pipeline
(`GPU_PIPELINE`: soac-tile and soac-coalesce's transposed copies forced on), lowered for the `generic` target
(local-memory tiles, also on PoCL): every
version soac-tile can change forced (`versions`), against the interpreter on the program as written. Integer
programs: results must be equal.

The nested programs are made with all-pairs nests (maps whose lambdas fold whole arrays, with tuples and scalar code
around the fold), which soac-tile rewrites; `test_the_all_pairs_nests_are_tiled` checks that it does. Few programs
per run (set SOAC_TILED_EXAMPLES for more).
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from soac.context import make_context
from soac.dialect import TiledRedomapOp
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes import GPU_PIPELINE, get_all_passes
from soac.passes.thresholds import MAX_THRESHOLD, list_thresholds
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from nested_programs import NestedGenerator, nested_args  # pyright: ignore[reportMissingImports]
from programs import Program, programs  # pyright: ignore[reportMissingImports]

BATCH = 10
EXAMPLES = int(os.environ.get("SOAC_TILED_EXAMPLES", "30"))


def tiled(text: str) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, text, "generated.mlir")
    PassPipeline.parse_spec(get_all_passes(), GPU_PIPELINE).apply(ctx, module)
    module.verify()
    return module


def batch_text(batch: list[Program]) -> str:
    return "\n".join(p.text.replace("func.func @main(", f"func.func @main_{k}(", 1) for k, p in enumerate(batch))


def versions(module: ModuleOp) -> list[dict[str, int]]:
    """Every outer-parallel version on and off, alone and together. The intra-group versions (`suff_intra_par_*`)
    are never taken: soac-tile does not change them, tests/lowering/test_nested_programs.py runs them on the cpu
    target, and PoCL computes wrong results for some of their cooperative kernels on targets with group-level
    segmaps (`DeviceTarget.group_segmaps`; seen here with DEFAULT_PIPELINE too)."""
    names = [t.name for t in list_thresholds(module) if t.name]
    never = {n: MAX_THRESHOLD for n in names if n.startswith("suff_intra_par")}
    outer = [n for n in names if n not in never]
    settings_ = [dict.fromkeys(outer, MAX_THRESHOLD), dict.fromkeys(outer, 0)]
    settings_ += [dict.fromkeys(outer, MAX_THRESHOLD) | {n: 0} for n in outer]
    return [never | s for s in settings_]


def check_batch(batch: list[Program]) -> None:
    text = batch_text(batch)
    original = parse_module(make_context(), text, "generated.mlir")
    module = tiled(text)
    program = compile_module(module, target="generic")
    for k, case in enumerate(batch):
        expected = interpret(original, f"main_{k}", case.args)
        for thresholds in versions(module):
            got = program.call(f"main_{k}", case.args, thresholds)
            assert len(got) == len(expected)
            for j, (g, e) in enumerate(zip(got, expected)):
                np.testing.assert_array_equal(np.asarray(g), np.asarray(e), err_msg=f"#{j}, {thresholds}\n{case.text}")


def all_pairs_programs(count: int, first_seed: int) -> list[Program]:
    """Nested programs with all-pairs nests (`NestedGenerator(all_pairs=True)`), by seed."""
    made = []
    for seed in range(first_seed, first_seed + count):
        rng = random.Random(seed)
        text = NestedGenerator(rng.randint, all_pairs=True).function(rng.randint(2, 5))
        made.append(Program(text, nested_args(rng.randint(0, 9), rng.randint(0, 4), rng.randint(0, 3), seed)))
    return made


@pytest.mark.slow
@pytest.mark.parametrize("first_seed", range(0, EXAMPLES, BATCH))
def test_nested_programs_with_all_pairs_nests(first_seed: int) -> None:
    check_batch(all_pairs_programs(BATCH, first_seed))


@settings(max_examples=max(EXAMPLES // BATCH, 1), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(batch=st.lists(programs(), min_size=BATCH, max_size=BATCH))
@pytest.mark.slow
def test_random_programs_through_the_tiled_pipeline(batch: list[Program]) -> None:
    check_batch(batch)


def test_the_all_pairs_nests_are_tiled() -> None:
    """The generator's all-pairs nests are tiled (so the differential tests above run tiled kernels)."""
    batch = all_pairs_programs(BATCH, 0)
    module = tiled(batch_text(batch))
    tiled_ops = [op for op in module.walk() if isinstance(op, TiledRedomapOp)]
    assert len(tiled_ops) >= sum(p.text.count("soac.redomap %n") for p in batch)


def test_some_nested_programs_get_transposed_copies() -> None:
    """Some generated nests walk along rows in their outer-parallel version, so the differential tests above run
    soac-coalesce's transposed copies (the tiled transpose kernel) too."""
    from soac.passes import TILED_PIPELINE

    with_copies = 0
    for program in all_pairs_programs(max(EXAMPLES, 30), 0):
        ctx = make_context()
        module = parse_module(ctx, program.text, "generated.mlir")
        PassPipeline.parse_spec(get_all_passes(), TILED_PIPELINE).apply(ctx, module)
        with_copies += str(tiled(program.text)).count("soac.transpose") > str(module).count("soac.transpose")
    assert with_copies >= 3


def test_some_nested_programs_read_rows_through_tiles() -> None:
    """Some generated nests' outer-parallel versions walk along their work-items' rows with scalar results, so the
    differential tests above run soac-coalesce's row tiles (staged tiled ops) too."""
    staged = sum("attributes {staged_rows}" in str(tiled(p.text)) for p in all_pairs_programs(max(EXAMPLES, 30), 0))
    assert staged >= 2
