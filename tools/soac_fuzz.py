"""`soac-fuzz`: the differential fuzz tests with long counts, run locally (CI runs them with small ones).

    soac-fuzz                          # every suite at its local count (about an hour on a 2-core machine)
    soac-fuzz nested random -n 500     # some suites, 500 programs each
    soac-fuzz --list                   # the suites, their CI and local counts
    soac-fuzz fuse -- -x --tb=short    # arguments after `--` go to pytest

Each suite is a test file of a soac checkout (`tests/` beside the installed `soac.tools`, or `--tests DIR`) whose
program count is an environment variable; `soac-fuzz` runs it in its own pytest process with that variable set and
prints one line per suite. Hypothesis draws the programs from a fixed seed, so a longer run extends a shorter one:
it checks the CI programs first, then more. `bench/check_nested.py` runs nested programs by the thousand by seed,
across processes, on any device.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from soac.tools.diagnostics import fail, run_cleanly


@dataclass(frozen=True)
class FuzzSuite:
    """A fuzz test file, the variables that set its program count, and that count in CI and locally."""

    name: str
    path: str
    variables: tuple[str, ...]
    ci: int
    local: int
    checks: str


SUITES = (
    FuzzSuite(
        name="random",
        path="lowering/test_random_programs.py",
        variables=("SOAC_FUZZ_EXAMPLES",),
        ci=100,
        local=2000,
        checks="random flat SOAC programs on OpenCL against the interpreter",
    ),
    FuzzSuite(
        name="nested",
        path="lowering/test_nested_programs.py",
        variables=("SOAC_NESTED_EXAMPLES",),
        ci=60,
        local=1000,
        checks="random nested programs through five pipelines, every version forced, on the interpreter and OpenCL",
    ),
    FuzzSuite(
        name="fuse",
        path="passes/test_soac_fuse_differential.py",
        variables=("SOAC_FUZZ_EXAMPLES",),
        ci=300,
        local=10000,
        checks="soac-fuse keeps the results of random programs (interpreter)",
    ),
    FuzzSuite(
        name="canonicalize",
        path="passes/test_canonicalize.py",
        variables=("SOAC_FUZZ_EXAMPLES",),
        ci=200,
        local=3000,
        checks="the canonicalisation patterns keep the results of random programs (interpreter)",
    ),
    FuzzSuite(
        name="simplify",
        path="passes/test_soac_simplify.py",
        variables=("SOAC_FUZZ_EXAMPLES", "SOAC_NESTED_EXAMPLES"),
        ci=60,
        local=2000,
        checks="soac-simplify keeps results and never adds a kernel (interpreter and OpenCL)",
    ),
)
"""The suites. `ci` is the count a plain pytest run uses (the test file's default), `local` what `soac-fuzz` runs."""


def ci_count(name: str, variable: str) -> int:
    """The program count of suite `name` in a plain pytest run: `variable` from the environment, else the CI count."""
    suite = next(s for s in SUITES if s.name == name)
    return int(os.environ.get(variable, suite.ci))


def tests_folder(given: Path | None) -> Path:
    """The `tests/` folder to run: `given`, else the one of the checkout this package is installed from."""
    folder = given if given is not None else Path(__file__).resolve().parents[1] / "tests"
    if not (folder / "lowering").is_dir():
        fail(f"error: no soac tests in {folder}: soac-fuzz runs a checkout's tests (pass --tests DIR)")
    return folder


def run_suite(suite: FuzzSuite, tests: Path, count: int, pytest_args: Sequence[str]) -> bool:
    """Run one suite with `count` programs; print its outcome and time, and say whether it passed."""
    environment = os.environ | dict.fromkeys(suite.variables, str(count))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests / suite.path), *pytest_args]
    print(f"== {suite.name}: {count} programs ({suite.checks})", flush=True)
    start = time.perf_counter()
    status = subprocess.run(command, env=environment, cwd=tests.parent, check=False).returncode
    print(f"== {suite.name}: {'passed' if status == 0 else 'FAILED'} in {time.perf_counter() - start:.0f} s", flush=True)
    return status == 0


def run(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    pytest_args = args[args.index("--") + 1 :] if "--" in args else []
    args = args[: args.index("--")] if "--" in args else args
    names = [s.name for s in SUITES]
    parser = argparse.ArgumentParser(
        prog="soac-fuzz", description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("suites", nargs="*", metavar="SUITE", help=f"the suites to run (default: all): {', '.join(names)}")
    parser.add_argument("-n", "--count", type=int, help="programs per suite (default: each suite's local count)")
    parser.add_argument("--tests", type=Path, help="the tests/ folder of a soac checkout (default: this one's)")
    parser.add_argument("--list", action="store_true", help="list the suites with their CI and local counts")
    options = parser.parse_args(args)
    if options.list:
        for suite in SUITES:
            print(f"{suite.name:13} CI {suite.ci:5}  local {suite.local:6}  tests/{suite.path}: {suite.checks}")
        return
    unknown = [name for name in options.suites if name not in names]
    if unknown:
        fail(f"error: no fuzz suite named '{unknown[0]}' (the suites: {', '.join(names)})")
    if options.count is not None and options.count < 1:
        fail(f"error: --count must be at least 1, not {options.count}")
    tests = tests_folder(options.tests)
    chosen = [s for s in SUITES if not options.suites or s.name in options.suites]
    failed = [s.name for s in chosen if not run_suite(s, tests, options.count or s.local, pytest_args)]
    if failed:
        fail(f"soac-fuzz: {', '.join(failed)} failed")


def main() -> None:
    run_cleanly(run)


if __name__ == "__main__":
    main()
