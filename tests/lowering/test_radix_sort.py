"""examples/radix_sort.mlir sorts like numpy (as unsigned 32-bit keys) on the interpreter and on OpenCL (PoCL).

The keys cover duplicates, all-equal keys, keys with the top bit set (negative as i32, last when sorted),
n = 0 and 1, and sizes that are not multiples of the tiles (look-back tiles of 64 x 16 on PoCL). OpenCL runs
the program after soac-fuse (as the benchmark does) with each scan strategy and each histogram strategy, and
as written with the default ones.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes import get_all_passes
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

PROGRAM = Path(__file__).resolve().parents[2] / "examples" / "radix_sort.mlir"


def load(passes: str = "") -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, PROGRAM.read_text(), str(PROGRAM))
    if passes:
        PassPipeline.parse_spec(get_all_passes(), passes).apply(ctx, module)
    return module


def keys_of(kind: str, n: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    if kind == "random":
        return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.int32)
    if kind == "duplicates":
        return rng.choice(np.array([7, -1, 0x10000, 7 << 28, 3], np.int32), n)
    if kind == "equal":
        return np.full(n, -12345, np.int32)
    if kind == "top_bit":
        return (rng.integers(0, 2**31, n, dtype=np.int64) | 2**31).astype(np.uint32).view(np.int32)
    raise ValueError(kind)


def sorted_keys(keys: np.ndarray) -> np.ndarray:
    return np.sort(keys.view(np.uint32)).view(np.int32)


CASES = [("random", 0), ("random", 1), ("random", 1025), ("random", 3001), ("duplicates", 2050), ("equal", 1500)]
CASES += [("top_bit", 777), ("random", 20011)]


@pytest.mark.parametrize(("kind", "n"), CASES, ids=[f"{k}-{n}" for k, n in CASES])
def test_interpreter_sorts(kind: str, n: int):
    keys = keys_of(kind, n)
    (result,) = interpret(load(), "main", [keys])
    np.testing.assert_array_equal(result, sorted_keys(keys))


@pytest.mark.parametrize(("kind", "n"), CASES, ids=[f"{k}-{n}" for k, n in CASES])
def test_opencl_sorts_after_fusion(kind: str, n: int):
    keys = keys_of(kind, n)
    (result,) = compile_module(load("soac-fuse"), "pocl").call("main", [keys])
    np.testing.assert_array_equal(result, sorted_keys(keys))


def test_opencl_sorts_as_written():
    keys = keys_of("random", 3001)
    (result,) = compile_module(load(), "pocl").call("main", [keys])
    np.testing.assert_array_equal(result, sorted_keys(keys))


@pytest.mark.slow
@pytest.mark.parametrize("scan", ["lookback", "reduce-then-scan"])
@pytest.mark.parametrize("hist", ["local", "global"])
def test_opencl_strategies(scan: str, hist: str):
    program = compile_module(load("soac-fuse"), "pocl", scan=scan, hist=hist)
    for kind, n in [("random", 5003), ("duplicates", 1024), ("top_bit", 1), ("random", 0)]:
        keys = keys_of(kind, n)
        (result,) = program.call("main", [keys])
        np.testing.assert_array_equal(result, sorted_keys(keys), err_msg=f"{kind}, n = {n}")
