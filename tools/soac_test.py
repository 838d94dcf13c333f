"""`soac-test`: runs the test stanzas that soac programs carry, like `futhark test`.

    soac-test FILE|DIR ... [--backend interp,opencl] [--pipeline P] [-j N] [--exclude TAG] [-v]

Every case of every program (`*.mlir` under each directory, recursively; see
`soac.tools.test_spec` for the stanza syntax) runs with each backend on the program as
written and after the default pipeline (`canonicalize,soac-fuse,soac-flatten`, or
`--pipeline`). Results are compared with the case's `output` (floats within a relative
1e-3, or 1e-6 absolute near zero; NaN equals NaN), with the `error:` regex, or, for a
case with neither, with the reference interpreter's results on the program as written.
`structure` checks count ops after their pipeline. A tuning file `PROGRAM.tuning` beside a
program sets thresholds (and lowering options: `soac-to-kernel.hist=global`) for its runs, as Futhark's
`.tuning` files do. Failures are printed with what
differs, then a summary; the exit status is 1 when anything failed.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from soac.context import make_context
from soac.parsing import did_you_mean, parse_module
from soac.passes.pipelines import all_passes as all_passes
from soac.passes.tuning import read_tuning
from soac.tools.diagnostics import fail, run_cleanly
from soac.tools.futhark_data import DataError
from soac.tools.program_inputs import InputError, case_arguments, expected_results
from soac.tools.test_spec import DEFAULT_PIPELINE, SpecError, StructureCheck, TestCase, TestSpec, parse_test_spec
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import DiagnosticException, ParseError

BACKENDS = ("interp", "opencl")
RELATIVE_TOLERANCE = 1e-3
ABSOLUTE_TOLERANCE = 1e-6


@dataclass
class Outcome:
    """What one program's tests gave: a line per failure, and counts."""

    path: Path
    failures: list[str] = field(default_factory=list[str])
    passed: int = 0
    cases: int = 0


@dataclass(frozen=True)
class Options:
    backends: tuple[str, ...]
    pipeline: str
    exclude: tuple[str, ...]
    verbose: bool


class CaseFailure(Exception):
    """A run that did not give what its case expects."""


def transformed(ctx: Context, module: ModuleOp, pipeline: str) -> ModuleOp:
    """A copy of `module` after a `soac-opt -p` pipeline (the module itself for an empty one)."""
    if not pipeline:
        return module
    copy = module.clone()
    PassPipeline.parse_spec(all_passes(), pipeline).apply(ctx, copy)
    copy.verify()
    return copy


def one_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0] if "\n" not in text[:200] else " ".join(text.split())[:400]


# ---------------------------------------------------------------------------
# Running cases
# ---------------------------------------------------------------------------


def runner(backend: str) -> Callable[..., tuple[Any, ...]]:
    if backend == "interp":
        from soac.interpreter import run_function

        return run_function
    from soac.lowering import runtime

    return runtime.run_function


def call(
    backend: str,
    module: ModuleOp,
    entry: str,
    arguments: list[Any],
    thresholds: dict[str, int] | None = None,
    lowering: dict[str, object] | None = None,
) -> tuple[Any, ...] | BaseException:
    """The results of a call, or the error it failed with (a run-time error of the program or of the backend);
    `lowering` sets soac-to-kernel's options on OpenCL."""
    extra = {"lowering": lowering} if lowering and backend == "opencl" else {}
    try:
        with np.errstate(all="ignore"):
            return runner(backend)(module, entry, arguments, thresholds=thresholds, **extra)
    except Exception as error:
        return error


def describe_call_error(error: BaseException) -> str:
    from soac.interpreter import SoacRuntimeError

    if isinstance(error, SoacRuntimeError) or type(error).__module__.startswith("soac.lowering"):
        return one_line(error)
    return f"internal error: {type(error).__name__}: {one_line(error)}"


def first_difference(expected: np.ndarray, got: np.ndarray) -> str | None:
    """Where and how `got` differs from `expected` (same shape), or None when they agree."""
    if expected.dtype.kind == "f" or got.dtype.kind == "f":
        close = np.isclose(got, expected, rtol=RELATIVE_TOLERANCE, atol=ABSOLUTE_TOLERANCE, equal_nan=True)
    else:
        close = got == expected
    if np.all(close):
        return None
    wrong = np.argwhere(~np.asarray(close))
    if expected.ndim == 0:
        return f"expected {show(expected[()])}, got {show(got[()])}"
    where = tuple(int(i) for i in wrong[0])
    index = "[" + ", ".join(map(str, where)) + "]"
    counts = f"{len(wrong)} of {expected.size} elements differ"
    return f"differs at {index}: expected {show(expected[where])}, got {show(got[where])} ({counts})"


def show(value: Any) -> str:
    """A value as Futhark writes it (`true`, not `True`)."""
    return str(value).lower() if isinstance(value, bool | np.bool_) else str(value)


def compare(expected: Sequence[np.ndarray], got: Sequence[Any], what: str) -> None:
    if len(expected) != len(got):
        raise CaseFailure(f"{what} {len(expected)} results, the call returned {len(got)}")
    for index, (want, value) in enumerate(zip(expected, got)):
        have = np.asarray(value)
        if want.dtype.kind == "u" and have.dtype.kind == "i" and want.dtype.itemsize == have.dtype.itemsize:
            have = have.view(want.dtype)  # a signless result that the case gives as unsigned (`255u8`)
        if want.shape != have.shape:
            raise CaseFailure(f"result #{index} has shape {have.shape}, {what} shape {want.shape}")
        if (difference := first_difference(want, have)) is not None:
            raise CaseFailure(f"result #{index} {difference}")


class ProgramTester:
    """Runs the cases and structure checks of one program."""

    def __init__(self, spec: TestSpec, module: ModuleOp, ctx: Context, options: Options):
        self.spec, self.module, self.ctx, self.options = spec, module, ctx, options
        self.outcome = Outcome(spec.path)
        self.references: dict[TestCase, tuple[Any, ...] | BaseException] = {}
        self.arguments: dict[TestCase, list[Any]] = {}
        self.thresholds: dict[str, int] | None = None
        """From `PROGRAM.tuning` beside the program, as Futhark's `.tuning` files."""
        self.lowering: dict[str, object] = {}
        """The lowering options of `PROGRAM.tuning` (`soac-to-kernel.OPTION=VALUE` lines)."""

    def record(self, label: str, problem: str | None) -> None:
        self.outcome.cases += 1
        if problem is None:
            self.outcome.passed += 1
            if self.options.verbose:
                self.outcome.failures.append(f"PASS {label}")
        else:
            self.outcome.failures.append(f"FAIL {label}:\n  {problem}")

    def functions(self, module: ModuleOp) -> dict[str, FuncOp]:
        return {op.sym_name.data: op for op in module.walk() if isinstance(op, FuncOp) and op.body.blocks}

    def run(self) -> Outcome:
        tuning = self.spec.path.with_name(self.spec.path.name + ".tuning")
        if tuning.is_file():
            try:
                thresholds, self.lowering = read_tuning(tuning)
                self.thresholds = thresholds or None
            except InputError as error:
                self.record(str(tuning), str(error))
                return self.outcome
        known = self.functions(self.module)
        for entry, line in self.spec.entries.items():
            if entry not in known:
                names = ", ".join(f"@{name}" for name in known) or "none"
                self.record(f"{self.spec.path}:{line}", f"no function @{entry} in the program (functions: {names})")
        for check in self.spec.structures:
            self.check_structure(check)
        cases = [c for c in self.spec.cases if c.entry in known and not set(c.tags) & set(self.options.exclude)]
        for pipeline in ("", self.options.pipeline):
            try:
                module = transformed(self.ctx, self.module, pipeline)
            except Exception as error:
                self.record(f"{self.spec.path} after {pipeline}", f"the pipeline fails: {one_line(error)}")
                continue
            for backend in self.options.backends:
                for case in cases:
                    if not (case.compiled_only and backend == "interp"):
                        label = f"{self.spec.path} {case.name} {backend} {'after ' + pipeline if pipeline else 'as written'}"
                        self.record(label, self.run_case(case, module, backend))
        return self.outcome

    def run_case(self, case: TestCase, module: ModuleOp, backend: str) -> str | None:
        try:
            arguments = self.case_arguments(case)
            result = call(backend, module, case.entry, arguments, self.thresholds, self.lowering)
            self.check_result(case, result, self.functions(module)[case.entry])
        except (CaseFailure, InputError, DataError) as failure:
            return str(failure)
        return None

    def case_arguments(self, case: TestCase) -> list[Any]:
        """The case's arguments, read (or drawn, seeded by the case's place in the file) once for all its runs."""
        if case not in self.arguments:
            seed = self.spec.cases.index(case)
            self.arguments[case] = case_arguments(self.functions(self.module)[case.entry], case.input, str(self.spec.path), seed)
        return self.arguments[case]

    def check_result(self, case: TestCase, result: tuple[Any, ...] | BaseException, function: FuncOp) -> None:
        if case.error is not None:
            if not isinstance(result, BaseException):
                raise CaseFailure(f"expected an error matching '{case.error}', but the call succeeded")
            message = describe_call_error(result)
            if not re.search(case.error, message):
                raise CaseFailure(f"the error '{message}' does not match '{case.error}'")
            return
        if isinstance(result, BaseException):
            raise CaseFailure(f"the call fails: {describe_call_error(result)}")
        if case.output is not None:
            compare(expected_results(function, case.output, str(self.spec.path)), result, "the case expects")
            return
        reference = self.reference(case)
        if isinstance(reference, BaseException):
            raise CaseFailure(f"the reference interpreter fails on the program as written: {describe_call_error(reference)}")
        compare([np.asarray(v) for v in reference], result, "the reference interpreter gives")

    def reference(self, case: TestCase) -> tuple[Any, ...] | BaseException:
        if case not in self.references:
            self.references[case] = call("interp", self.module, case.entry, self.case_arguments(case))
        return self.references[case]

    def check_structure(self, check: StructureCheck) -> None:
        label = f"{self.spec.path}:{check.line} structure after {check.pipeline or 'nothing'}"
        try:
            module = transformed(self.ctx, self.module, check.pipeline)
        except Exception as error:
            self.record(label, f"the pipeline fails: {one_line(error)}")
            return
        counts = structure_counts(module)
        problems: list[str] = []
        for key, want in check.counts:
            unknown = [name for name in key.strip("/").split("/") if self.ctx.get_optional_op(name) is None]
            if unknown:
                problems.append(f"unknown op '{unknown[0]}'{did_you_mean(unknown[0], known_op_names(self.ctx))}")
            elif counts.get(key, 0) != want:
                problems.append(f"{key}: expected {want}, found {counts.get(key, 0)}")
        self.record(label, "; ".join(problems) or None)


def known_op_names(ctx: Context) -> list[str]:
    """The names of the ops of every dialect the context knows (loading them)."""
    dialects = [ctx.get_optional_dialect(name) for name in ctx.registered_dialect_names]
    return [op.name for dialect in dialects if dialect is not None for op in dialect.operations]


def structure_counts(module: ModuleOp) -> dict[str, int]:
    """Op counts by Futhark's structure keys: an op `k` nested in ops `c1 ... cj` (below its function) counts
    for `k`, `cj/k`, ..., `c1/.../cj/k`, and for the rooted key `/c1/.../cj/k`."""
    counts: dict[str, int] = {}
    for op in module.walk():
        chain: list[str] = []
        parent = op.parent_op()
        while parent is not None and not isinstance(parent, FuncOp | ModuleOp):
            chain.append(parent.name)
            parent = parent.parent_op()
        path = [*reversed(chain), op.name]
        for key in ["/".join(path[start:]) for start in range(len(path))] + ["/" + "/".join(path)]:
            counts[key] = counts.get(key, 0) + 1
    return counts


def test_program(path: Path, options: Options) -> Outcome:
    """Every case of the program at `path`; a program that does not parse or verify is one failure."""
    try:
        source = path.read_text()
        spec = parse_test_spec(path, source)
    except (OSError, UnicodeDecodeError) as error:
        outcome = Outcome(path, cases=1)
        outcome.failures.append(f"FAIL {path}:\n  cannot read it: {getattr(error, 'strerror', None) or error}")
        return outcome
    except SpecError as error:
        outcome = Outcome(path, cases=1)
        outcome.failures.append(f"FAIL {error}")
        return outcome
    ctx = make_context()
    try:
        module = parse_module(ctx, source, str(path))
    except (ParseError, DiagnosticException) as error:
        outcome = Outcome(path, cases=1)
        outcome.failures.append(f"FAIL {path}:\n  {str(error).strip()}")
        return outcome
    return ProgramTester(spec, module, ctx, options).run()


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------


def find_programs(paths: Sequence[str]) -> list[Path]:
    programs: list[Path] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            programs.extend(sorted(p for p in path.rglob("*.mlir") if p.is_file()))
        elif path.is_file():
            programs.append(path)
        else:
            fail(f"error: no such file or directory: {text}")
    return programs


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        fail(f"error: {message} (see 'soac-test --help')", 2)


def parse_backends(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    for name in names:
        if name not in BACKENDS:
            raise argparse.ArgumentTypeError(f"unknown backend '{name}' (backends: {', '.join(BACKENDS)})")
    return names


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="soac-test", description="Run the test stanzas of soac programs.")
    parser.add_argument("paths", metavar="FILE|DIR", nargs="+", help="programs, or directories searched for *.mlir")
    parser.add_argument(
        "--backend", type=parse_backends, default=BACKENDS, help="comma-separated: interp, opencl (default: both)"
    )
    parser.add_argument("--pipeline", default=DEFAULT_PIPELINE, help=f"the optimising pipeline (default: {DEFAULT_PIPELINE})")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="programs tested in parallel (default: 1)")
    parser.add_argument("--exclude", metavar="TAG", action="append", default=[], help="skip cases with this tag")
    parser.add_argument("-v", "--verbose", action="store_true", help="also list the runs that pass")
    return parser


def progress(done: int, total: int, path: Path) -> None:
    if sys.stderr.isatty():
        print(f"\r\x1b[K[{done}/{total}] {path}", end="", file=sys.stderr, flush=True)


def run(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    programs = find_programs(args.paths)
    options = Options(args.backend, args.pipeline, tuple(args.exclude), args.verbose)
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    if args.jobs > 1 and len(programs) > 1:
        spawn = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=spawn) as pool:
            futures = [pool.submit(test_program, path, options) for path in programs]
            for future in concurrent.futures.as_completed(futures):
                outcomes.append(report(future.result(), len(outcomes) + 1, len(programs)))
    else:
        for path in programs:
            outcomes.append(report(test_program(path, options), len(outcomes) + 1, len(programs)))
    if sys.stderr.isatty():
        print("\r\x1b[K", end="", file=sys.stderr)
    cases = sum(o.cases for o in outcomes)
    passed = sum(o.passed for o in outcomes)
    seconds = time.perf_counter() - started
    print(f"soac-test: {len(programs)} programs, {cases} runs: {passed} passed, {cases - passed} failed ({seconds:.1f} s)")
    if passed != cases:
        sys.exit(1)


def report(outcome: Outcome, done: int, total: int) -> Outcome:
    if outcome.failures:
        print("\r\x1b[K" if sys.stderr.isatty() else "", end="", file=sys.stderr)
        print("\n".join(outcome.failures), flush=True)
    progress(done, total, outcome.path)
    return outcome


def main() -> None:
    run_cleanly(run)


if __name__ == "__main__":
    main()
