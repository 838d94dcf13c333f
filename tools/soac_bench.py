"""`soac-bench`: times the datasets of soac programs, like `futhark bench`.

    soac-bench FILE|DIR ... [--backend opencl|interp] [-r RUNS] [--pipeline P] [--json OUT]
                            [--tuning FILE] [--threshold NAME=VALUE ...] [--exclude TAG]
    soac-bench compare OLD.json NEW.json

Each `input` stanza of a program (see `soac.tools.test_spec`; not `nobench` ones, nor
those that expect an error) is a dataset. The program goes through the pipeline
(default `canonicalize,soac-fuse,soac-flatten`), one warm-up call compiles it and checks
the results against the stanza's `output` when it has one, then `-r` calls are timed
with a wall clock: each time covers the whole call, copying the inputs to the device and
the results back included. A tuning file `PROGRAM.tuning` beside a program applies
unless `--tuning` or `--threshold` is given. `--json` writes Futhark's format:
`{"FILE:ENTRY": {"datasets": {"NAME": {"runtimes": [microseconds...], "stderr": ""}}}}`,
which `soac-bench compare` (and Futhark's own comparison scripts) read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from soac.context import make_context
from soac.parsing import parse_module
from soac.tools.diagnostics import fail, run_cleanly
from soac.tools.futhark_data import DataError
from soac.tools.program_inputs import InputError, case_arguments, expected_results
from soac.tools.soac_run import read_thresholds
from soac.tools.soac_test import (
    CaseFailure,
    compare,
    describe_call_error,
    find_programs,
    runner,
    transformed,
)
from soac.tools.test_spec import DEFAULT_PIPELINE, SpecError, TestCase, parse_test_spec
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.utils.exceptions import DiagnosticException, ParseError

Report = dict[str, dict[str, dict[str, dict[str, Any]]]]
"""Futhark's benchmark JSON: program:entry → "datasets" → dataset name → {"runtimes": [µs, ...], "stderr": ...}."""


@dataclass(frozen=True)
class Settings:
    backend: str
    runs: int
    pipeline: str
    thresholds: dict[str, int] | None
    exclude: tuple[str, ...]


class BenchError(Exception):
    """A dataset that cannot be timed: the message says why."""


def summary(runtimes: Sequence[float]) -> str:
    """Futhark's one-line summary: the mean, the relative standard deviation, and the extremes relative to the mean."""
    mean = statistics.fmean(runtimes)
    spread = statistics.pstdev(runtimes) / mean if mean else 0.0
    low, high = min(runtimes) / mean - 1 if mean else 0.0, max(runtimes) / mean - 1 if mean else 0.0
    return f"{mean:10.0f}μs (RSD: {spread:.3f}; min: {low:+.0%}; max: {high:+.0%})"


def progress(text: str) -> None:
    if sys.stderr.isatty():
        print(f"\r\x1b[K{text}", end="", file=sys.stderr, flush=True)


def time_case(module: ModuleOp, function: FuncOp, case: TestCase, path: Path, settings: Settings) -> list[float]:
    """The wall-clock microseconds of `settings.runs` calls, after one checked warm-up call."""
    run = runner(settings.backend)
    try:
        arguments = case_arguments(function, case.input, str(path), seed=case.index)
    except (InputError, DataError) as error:
        raise BenchError(str(error)) from None
    try:
        with np.errstate(all="ignore"):
            results = run(module, case.entry, arguments, thresholds=settings.thresholds)
            if case.output is not None:
                compare(expected_results(function, case.output, str(path)), results, "the case expects")
            runtimes: list[float] = []
            for done in range(settings.runs):
                progress(f"{path}:{case.entry} {case.input.describe()}: run {done + 1}/{settings.runs}")
                start = time.perf_counter()
                run(module, case.entry, arguments, thresholds=settings.thresholds)
                runtimes.append((time.perf_counter() - start) * 1e6)
    except CaseFailure as failure:
        raise BenchError(f"wrong results: {failure}") from None
    except (InputError, DataError) as error:
        raise BenchError(str(error)) from None
    except Exception as error:
        raise BenchError(describe_call_error(error)) from None
    return runtimes


def program_thresholds(path: Path, settings: Settings, given: bool) -> Settings:
    tuning = path.with_name(path.name + ".tuning")
    if given or not tuning.is_file():
        return settings
    return Settings(settings.backend, settings.runs, settings.pipeline, read_thresholds(str(tuning), []), settings.exclude)


def bench_program(path: Path, settings: Settings, report: Report) -> int:
    """Time every dataset of one program into `report`; the number of datasets that failed."""
    try:
        source = path.read_text()
        spec = parse_test_spec(path, source)
        ctx = make_context()
        module = transformed(ctx, parse_module(ctx, source, str(path)), settings.pipeline)
    except (OSError, UnicodeDecodeError, SpecError, ParseError, DiagnosticException) as error:
        print(f"{path}: {str(error).strip()}")
        return 1
    functions = {op.sym_name.data: op for op in module.walk() if isinstance(op, FuncOp) and op.body.blocks}
    failed = 0
    for case in spec.cases:
        if case.no_bench or case.error is not None or set(case.tags) & set(settings.exclude):
            continue
        if case.entry not in functions:
            print(f"{path}: no function @{case.entry}")
            failed += 1
            continue
        name = f"#{case.index} ({case.input.describe()})" if case.input.file is None else case.input.describe()
        try:
            runtimes = time_case(module, functions[case.entry], case, path, settings)
        except BenchError as error:
            progress("")
            print(f"{path}:{case.entry} {name}: FAILED: {error}", flush=True)
            failed += 1
            continue
        progress("")
        print(f"{path}:{case.entry} {name}: {summary(runtimes)}", flush=True)
        datasets = report.setdefault(f"{path}:{case.entry}", {"datasets": {}})["datasets"]
        datasets[name] = {"runtimes": [round(t) for t in runtimes], "stderr": ""}
    return failed


# ---------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------


def load_report(path: str) -> Report:
    try:
        report = json.loads(Path(path).read_text())
    except OSError as error:
        fail(f"error: cannot read '{path}': {error.strerror or error}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        fail(f"error: '{path}' is not benchmark JSON: {error}")
    if not isinstance(report, dict) or not all(isinstance(v, dict) and "datasets" in v for v in report.values()):
        fail(f'error: \'{path}\' is not benchmark JSON: expected {{"FILE:ENTRY": {{"datasets": ...}}}}')
    return report


def mean_runtime(entry: Any) -> float | None:
    runtimes = entry.get("runtimes") if isinstance(entry, dict) else None
    if not runtimes or not all(isinstance(t, int | float) for t in runtimes):
        return None
    return statistics.fmean(runtimes)


def compare_reports(old: Report, new: Report) -> list[str]:
    """A line per dataset in both reports: the speedup of NEW over OLD (mean runtimes)."""
    lines: list[str] = []
    for program in sorted(set(old) & set(new)):
        old_sets, new_sets = old[program]["datasets"], new[program]["datasets"]
        for dataset in [d for d in old_sets if d in new_sets]:
            before, after = mean_runtime(old_sets[dataset]), mean_runtime(new_sets[dataset])
            if before is None or after is None or after == 0:
                continue
            speedup = before / after
            verdict = "faster" if speedup >= 1 else "slower"
            factor = speedup if speedup >= 1 else 1 / speedup
            lines.append(f"{program} {dataset}: {before:.0f}μs -> {after:.0f}μs, {factor:.2f}x {verdict}")
    only = sorted(set(old) ^ set(new))
    lines.extend(f"{program}: only in {'the first' if program in old else 'the second'} report" for program in only)
    return lines


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        fail(f"error: {message} (see 'soac-bench --help')", 2)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="soac-bench", description="Time the datasets of soac programs (see also 'compare').")
    parser.add_argument("paths", metavar="FILE|DIR", nargs="+", help="programs, or directories searched for *.mlir")
    parser.add_argument("--backend", choices=("opencl", "interp"), default="opencl", help="how to run (default: opencl)")
    parser.add_argument("-r", "--runs", type=int, default=10, help="timed calls per dataset (default: 10)")
    parser.add_argument("--pipeline", default=DEFAULT_PIPELINE, help=f"passes applied first (default: {DEFAULT_PIPELINE})")
    parser.add_argument("--json", metavar="OUT", help="write the runtimes as Futhark's benchmark JSON")
    parser.add_argument("--tuning", metavar="FILE", help="a tuning file of 'name=value' lines")
    parser.add_argument("--threshold", metavar="NAME=VALUE", action="append", default=[], help="set a threshold")
    parser.add_argument("--exclude", metavar="TAG", action="append", default=[], help="skip datasets with this tag")
    return parser


def run_compare(argv: Sequence[str]) -> None:
    if len(argv) != 2:
        fail("error: usage: soac-bench compare OLD.json NEW.json", 2)
    lines = compare_reports(load_report(argv[0]), load_report(argv[1]))
    print("\n".join(lines) if lines else "no dataset appears in both reports")


def run(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["compare"]:
        run_compare(argv[1:])
        return
    args = build_parser().parse_args(argv)
    if args.runs < 1:
        fail("error: -r wants at least one run", 2)
    thresholds = read_thresholds(args.tuning, args.threshold)
    settings = Settings(args.backend, args.runs, args.pipeline, thresholds, tuple(args.exclude))
    report: Report = {}
    failed = 0
    for path in find_programs(args.paths):
        failed += bench_program(path, program_thresholds(path, settings, thresholds is not None), report)
    if args.json is not None:
        try:
            Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
        except OSError as error:
            fail(f"error: cannot write '{args.json}': {error.strerror or error}")
    if failed:
        sys.exit(1)


def main() -> None:
    run_cleanly(run)


if __name__ == "__main__":
    main()
