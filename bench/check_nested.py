"""Run many random nested programs (tests/nested_programs.py) through every pipeline and version, on a device.

    python bench/check_nested.py --start 0 --count 10000 [--device gpu] [--jobs 2]

Program `seed` is drawn from `random.Random(seed)`, so a failure is reproduced by its seed alone
(`--start SEED --count 1 --show`). Every program runs on the interpreter and on OpenCL after each of
tests/lowering/test_nested_programs.py's pipelines, with every version forced by its thresholds, and must
give the original program's results. Prints one line per failing program (a mismatch, or an error of any
kind: a program that verifies must lower and run), and a summary: programs, runs, mismatches, errors.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "lowering")]

from nested_programs import NestedGenerator, nested_args  # noqa: E402  # pyright: ignore[reportMissingImports]
from soac.context import make_context  # noqa: E402
from soac.interpreter import run_function as interpret  # noqa: E402
from soac.lowering.runtime import choose_device, compile_module  # noqa: E402
from soac.parsing import parse_module  # noqa: E402
from test_nested_programs import PIPELINES, assert_same, transformed, versions  # noqa: E402  # pyright: ignore[reportMissingImports]


def program(seed: int) -> tuple[str, list[object]]:
    rng = random.Random(seed)
    text = NestedGenerator(lambda lo, hi: rng.randint(lo, hi)).function(rng.randint(1, 4))
    return text, nested_args(rng.randint(0, 5), rng.randint(0, 4), rng.randint(0, 3), seed)


def check(seed: int, device_spec: str | None) -> tuple[int, str | None]:
    """The number of runs of program `seed`, and what went wrong (None if nothing)."""
    text, args = program(seed)
    device = choose_device(device_spec)
    runs = 0
    try:
        expected = interpret(parse_module(make_context(), text, "nested.mlir"), "main", args)
        for pipeline in PIPELINES:
            module = transformed(text, pipeline)
            compiled = compile_module(module, device)
            for thresholds in versions(module, "main"):
                what = f"{pipeline}, thresholds {thresholds}"
                interpreted = interpret(module, "main", args, thresholds)
                ran = compiled.call("main", args, thresholds)
                runs += 1
                try:
                    assert_same(interpreted, expected, f"interpreter, {what}")
                    assert_same(ran, expected, f"OpenCL, {what}")
                except AssertionError as error:
                    return runs, "mismatch: " + " | ".join(str(error).strip().splitlines()[:2])
    except Exception as error:  # every error counts: a verified program must lower and run
        return runs, f"error: {type(error).__name__}: {str(error).strip().splitlines()[0][:300]}"
    return runs, None


def _check(job: tuple[int, str | None]) -> tuple[int, int, str | None]:
    return (job[0], *check(*job))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--device", default=None, help="as SOAC_OPENCL_DEVICE (default: the first GPU, else PoCL)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--show", action="store_true", help="print each program's text")
    options = parser.parse_args()
    print(f"device: {choose_device(options.device).name}", flush=True)
    jobs = [(seed, options.device) for seed in range(options.start, options.start + options.count)]
    started, runs, mismatches, errors = time.time(), 0, 0, 0
    # Fresh workers now and then: a worker that has built thousands of PoCL kernels runs out of memory mappings.
    spawn = multiprocessing.get_context("spawn")
    with spawn.Pool(options.jobs, maxtasksperchild=200) if options.jobs > 1 else contextlib.nullcontext() as pool:
        results = pool.imap_unordered(_check, jobs) if pool is not None else map(_check, jobs)
        for done, (seed, count, problem) in enumerate(results, 1):
            runs += count
            if done % 500 == 0:
                print(f"... {done} programs, {runs} runs, {time.time() - started:.0f} s", flush=True)
            if options.show:
                print(program(seed)[0])
            if problem is not None:
                mismatches += problem.startswith("mismatch")
                errors += problem.startswith("error")
                print(f"seed {seed}: {problem}", flush=True)
    print(
        f"{options.count} programs (seeds {options.start}..{options.start + options.count - 1}), {runs} runs: "
        f"{mismatches} mismatches, {errors} errors, {time.time() - started:.0f} s"
    )
    return 1 if mismatches or errors else 0


if __name__ == "__main__":
    sys.exit(main())
