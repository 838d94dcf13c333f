"""`soac-opt` on broken programs: one clean diagnostic at the problem, a non-zero exit, never a traceback.

Each file in tests/broken/ says in its header what is expected (see tests/broken/README.md):
`// ARGS:` extra arguments, `// AT:` the `line:col` (or `pass-pipeline:line:col`) of the
problem, and `// ERROR:` text that the message must contain.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from soac.dialect import MapOp
from soac.tools.diagnostics import run_cleanly
from soac.tools.soac_opt import SoacOptMain
from soac.tools.soac_opt import main as soac_opt_main
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, f64
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from .conftest import run_tool

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "broken"
BROKEN_FILES = sorted(BROKEN.glob("*.mlir"))


def soac_opt(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`soac-opt ARGS...` (the console script's entry, run in this process by `run_tool`), without SOAC_TRACEBACK."""
    environment = {k: v for k, v in os.environ.items() if k != "SOAC_TRACEBACK"}
    return run_tool(soac_opt_main, args, cwd=cwd, stdin=stdin, environment=environment)


@dataclass
class Expectation:
    args: list[str]
    at: str
    error: str


def expectation(path: Path) -> Expectation:
    header = path.read_text()
    fields = {key: value for key, value in re.findall(r"^// (ARGS|AT|ERROR): (.*)$", header, re.MULTILINE)}
    assert "AT" in fields, f"{path.name} has no `// AT:` line"
    assert "ERROR" in fields, f"{path.name} has no `// ERROR:` line"
    return Expectation(fields.get("ARGS", "").split(), fields["AT"].strip(), fields["ERROR"].strip())


def assert_clean_failure(result: subprocess.CompletedProcess[str], no_output: bool = True) -> None:
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Traceback" not in output, output
    assert "internal error" not in output, output
    if no_output:
        assert result.stdout == "", "a failing run prints its diagnostic on stderr only"


@pytest.mark.parametrize("path", BROKEN_FILES, ids=[p.stem for p in BROKEN_FILES])
def test_broken_program(path: Path):
    expected = expectation(path)
    result = soac_opt(str(path), *expected.args)
    assert_clean_failure(result)
    stderr = result.stderr
    where = expected.at if expected.at.startswith("pass-pipeline:") else f"{path}:{expected.at}"
    lines = stderr.rstrip("\n").splitlines()
    assert lines[0] == where, stderr
    assert expected.error in stderr, stderr
    # One concise diagnostic: the location, the source line, a caret under the problem, the message.
    assert len(lines) == 4, stderr
    assert set(lines[2].strip()) == {"^"}, stderr
    assert lines[3].strip().removeprefix("error: ").startswith(expected.error[:20]), stderr


def test_corpus_covers_the_kinds_of_breakage():
    names = {p.stem for p in BROKEN_FILES}
    for required in (
        "truncated-lambda",
        "unknown-op",
        "unknown-dialect",
        "lambda-arity",
        "element-types",
        "result-types",
        "undefined-value",
        "missing-yield",
        "bad-pass-name",
        "bad-pass-option",
    ):
        assert required in names


def test_truncated_file_says_unexpected_end_of_file():
    path = BROKEN / "truncated-lambda.mlir"
    result = soac_opt(str(path))
    assert_clean_failure(result)
    assert "unexpected end of file, expected '}' to close the region opened at" in result.stderr
    assert f"{path}:5:" in result.stderr  # where the unclosed lambda starts
    assert "in block definition" not in result.stderr


def test_location_is_relative_to_the_invocation(tmp_path: Path):
    (tmp_path / "bad.mlir").write_text((BROKEN / "lambda-arity.mlir").read_text())
    result = soac_opt("bad.mlir", cwd=tmp_path)
    assert_clean_failure(result)
    assert result.stderr.startswith("bad.mlir:5:3\n")


def test_stdin_is_named_stdin():
    result = soac_opt(stdin=(BROKEN / "undefined-value.mlir").read_text())
    assert_clean_failure(result)
    assert result.stderr.startswith("stdin:6:25\n")


def test_split_input_file_reports_lines_of_the_whole_file(tmp_path: Path):
    good = "func.func @good(%x: f32) -> f32 {\n  func.return %x : f32\n}\n"
    bad = (BROKEN / "result-types.mlir").read_text()
    path = tmp_path / "split.mlir"
    path.write_text(f"{good}// -----\n{bad}")
    result = soac_opt(str(path), "--split-input-file")
    assert_clean_failure(result, no_output=False)  # the good chunk before it is printed
    assert result.stderr.startswith(f"{path}:9:3\n"), result.stderr


def test_split_input_file_parse_error_lines(tmp_path: Path):
    good = "func.func @good(%x: f32) -> f32 {\n  func.return %x : f32\n}\n"
    path = tmp_path / "split.mlir"
    path.write_text(f"{good}// -----\n{(BROKEN / 'unknown-op.mlir').read_text()}")
    result = soac_opt(str(path), "--split-input-file")
    assert_clean_failure(result, no_output=False)  # the good chunk before it is printed
    assert result.stderr.startswith(f"{path}:9:8\n"), result.stderr


def test_empty_input():
    result = soac_opt(stdin="// nothing here\n")
    assert_clean_failure(result)
    assert "unexpected end of file, expected an operation" in result.stderr


def test_missing_input_file(tmp_path: Path):
    result = soac_opt(str(tmp_path / "nope.mlir"))
    assert_clean_failure(result)
    assert result.stderr.strip() == f"error: No such file or directory: {tmp_path / 'nope.mlir'}"


def test_input_is_a_directory(tmp_path: Path):
    result = soac_opt(str(tmp_path))
    assert_clean_failure(result)
    assert str(tmp_path) in result.stderr


def test_unknown_target(tmp_path: Path):
    result = soac_opt(str(BROKEN / "bad-pass-name.mlir"), "-t", "cuda")
    assert_clean_failure(result)
    assert "'cuda'" in result.stderr


def test_unknown_pass_among_several():
    result = soac_opt(str(BROKEN / "bad-pass-name.mlir"), "-p", "dce,canonicalize,cse-all")
    assert_clean_failure(result)
    assert result.stderr.startswith("pass-pipeline:1:18\n")
    assert "unknown pass 'cse-all'" in result.stderr


def test_pass_option_without_value():
    result = soac_opt(str(BROKEN / "bad-pass-name.mlir"), "-p", "soac-fuse{vertical}")
    assert_clean_failure(result)
    assert "option 'vertical' of pass 'soac-fuse' takes a value of type bool, but none was given" in result.stderr


def test_verify_diagnostics_prints_and_succeeds():
    result = soac_opt(str(BROKEN / "lambda-arity.mlir"), "--verify-diagnostics")
    assert result.returncode == 0
    assert "'soac.map' lambda takes 1 parameter but 2 are expected" in result.stdout


def test_parsing_diagnostics_prints_and_succeeds():
    result = soac_opt(str(BROKEN / "unknown-op.mlir"), "--parsing-diagnostics")
    assert result.returncode == 0
    assert "unknown operation 'soac.mapp'" in result.stdout


# ---------------------------------------------------------------------------
# run_cleanly itself
# ---------------------------------------------------------------------------


def test_internal_error_has_no_traceback(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("SOAC_TRACEBACK", raising=False)

    def broken() -> None:
        raise KeyError("oops")

    with pytest.raises(SystemExit) as exit_info:
        run_cleanly(broken)
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "error: KeyError: 'oops'" in err
    assert "SOAC_TRACEBACK=1" in err


def test_internal_error_traceback_on_request(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SOAC_TRACEBACK", "1")

    def broken() -> None:
        raise KeyError("oops")

    with pytest.raises(KeyError):
        run_cleanly(broken)


def test_value_error_is_one_line(capsys: pytest.CaptureFixture[str]):
    def broken() -> None:
        raise ValueError("bad value")

    with pytest.raises(SystemExit):
        run_cleanly(broken)
    assert capsys.readouterr().err == "error: bad value\n"


def test_lowering_error_is_a_user_error(capsys: pytest.CaptureFixture[str]):
    """A program soac-to-kernel cannot lower is the program's problem: its message, no 'internal error'."""
    from soac.lowering.conversion.kernel_builder import LoweringError

    def broken() -> None:
        raise LoweringError("'soac.reduce' at f.mlir:7:3: its operator combines arrays")

    with pytest.raises(SystemExit):
        run_cleanly(broken)
    assert capsys.readouterr().err == "error: 'soac.reduce' at f.mlir:7:3: its operator combines arrays\n"


# ---------------------------------------------------------------------------
# A pass that breaks the IR
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _BreakLambda(ModulePass):
    """Gives the first map lambda an extra parameter, which its map does not pass."""

    name = "test-break-lambda"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if isinstance(inner, MapOp):
                inner.body.block.insert_arg(f64, len(inner.body.block.args))
                return


class _OptWithBreakingPass(SoacOptMain):
    def register_all_passes(self) -> None:
        super().register_all_passes()
        self.register_pass(_BreakLambda.name, lambda: _BreakLambda)


def test_ir_broken_by_a_pass_is_reported_at_the_op_and_names_the_pass():
    path = BROKEN / "bad-pass-name.mlir"
    main = _OptWithBreakingPass(args=[str(path), "-p", "test-break-lambda"])
    with pytest.raises(VerifyException) as error:
        main.run()
    assert str(error.value) == (
        f"{path}:6:3\n"
        "error: after pass 'test-break-lambda': 'soac.map' lambda takes 2 parameters but 1 is expected "
        "(the input rows: (f32))"
    )
