"""`soac-test` as users call it: stanzas that pass, every way a case can fail, and bad input that still lets the rest run."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from soac.passes import DEFAULT_PIPELINE
from soac.tools.futhark_data import format_binary
from soac.tools.soac_test import main as soac_test_main

from .conftest import run_tool

ROOT = Path(__file__).resolve().parents[2]

MAP_SCAN_BODY = """
func.func @main(%xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %three = arith.constant 3 : i32
    %one = arith.constant 1 : i32
    %x3 = arith.muli %x, %three : i32
    %y = arith.addi %x3, %one : i32
    soac.yield %y : i32
  }
  %zero = arith.constant 0 : i32
  %sums = soac.scan %n (%ys : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  func.return %sums : tensor<?xi32>
}
"""

# Indexes xs at i: out of bounds is a run-time error.
INDEX_BODY = """
func.func @main(%xs: tensor<?xi32>, %i: index) -> i32 {
  %x = soac.index %xs[%i] : tensor<?xi32> -> i32
  func.return %x : i32
}
"""

SUM_ROWS_BODY = """
func.func @main(%xss: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %sums = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
    %zero = arith.constant 0.0 : f32
    %s = soac.reduce %m (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
    soac.yield %s : f32
  }
  func.return %sums : tensor<?xf32>
}
"""


def program(stanzas: str, body: str = MAP_SCAN_BODY) -> str:
    return "// A test program.\n// ==\n" + "".join(f"// {line}\n" for line in stanzas.strip().splitlines()) + body


def soac_test(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`soac-test ARGS...` in `cwd`, run in this process (`run_tool`)."""
    return run_tool(soac_test_main, args, cwd=cwd)


def summary(done: subprocess.CompletedProcess[str]) -> tuple[int, int, int]:
    """(programs, passed, failed) from the summary line, which is the last line printed."""
    last = done.stdout.strip().splitlines()[-1]
    match = re.fullmatch(r"soac-test: (\d+) programs, \d+ runs: (\d+) passed, (\d+) failed \([\d.]+ s\)", last)
    assert match, done.stdout
    programs, passed, failed = (int(g) for g in match.groups())
    return programs, passed, failed


def test_passing_cases_with_both_backends(tmp_path: Path) -> None:
    (tmp_path / "prog.mlir").write_text(
        program("""
input { [1, 2, 3, 4] }
output { [4, 11, 21, 34] }
input { empty([0]i32) } output { empty([0]i32) }
random input { [1000]i32 }
input { [1i32, 2i32] } auto output
structure { soac.scanomap 1 soac.map 0 }
structure pipeline() { soac.map 1 soac.scan 1 /soac.scan 1 }
""")
    )
    done = soac_test("prog.mlir", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    # 4 cases x 2 pipelines x 2 backends, and 2 structure checks.
    assert summary(done) == (1, 18, 0)
    assert "FAIL" not in done.stdout


def test_wrong_output_says_where_the_results_differ(tmp_path: Path) -> None:
    (tmp_path / "prog.mlir").write_text(program("input { [1, 2, 3, 4] } output { [4, 11, 20, 34] }"))
    done = soac_test("prog.mlir", "--backend", "interp", cwd=tmp_path)
    assert done.returncode == 1
    assert summary(done) == (1, 0, 2)
    assert 'FAIL prog.mlir @main #0 ("[1, 2, 3, 4]") interp as written:' in done.stdout
    assert "result #0 differs at [2]: expected 20, got 21 (1 of 4 elements differ)" in done.stdout


def test_wrong_count_shape_and_type_of_expected_results(tmp_path: Path) -> None:
    (tmp_path / "prog.mlir").write_text(
        program("""
input { [1, 2] } output { [4, 11] [1] }
input { [1, 2] } output { [4, 11, 0] }
input { [1, 2] } output { [4i64, 11i64] }
""")
    )
    done = soac_test("prog.mlir", "--backend", "interp", cwd=tmp_path)
    assert summary(done) == (1, 0, 6)
    assert "prog.mlir:3: @main returns 1 value, the data has 2" in done.stdout
    assert "result #0 has shape (2,), the case expects shape (3,)" in done.stdout
    assert "prog.mlir:5: value #0 (tensor<?xi32>): the data holds i64 values, expected tensor<?xi32>" in done.stdout


def test_floats_compare_with_a_tolerance(tmp_path: Path) -> None:
    (tmp_path / "prog.mlir").write_text(
        program(
            """
input { [[1, 2, 3], [0.5, 0.25, 0]] } output { [6.001f32, 0.75f32] }
input { [[1, 2, 3], [0.5, 0.25, 0]] } output { [6.1f32, 0.75f32] }
""",
            SUM_ROWS_BODY,
        )
    )
    done = soac_test("prog.mlir", "--backend", "interp", cwd=tmp_path)
    assert summary(done) == (1, 2, 2)
    assert '#1 ("[[1, 2, 3], [0.5, 0.25, 0]]")' in done.stdout
    assert "#0 (" not in done.stdout


def test_error_cases(tmp_path: Path) -> None:
    (tmp_path / "prog.mlir").write_text(
        program(
            """
input { [1, 2, 3] 5i64 } error: out of bounds
input { [1, 2, 3] 1i64 } error: out of bounds
input { [1, 2, 3] 7i64 } error: ^division by zero$
input { [1, 2, 3] 2i64 } output { 3 }
""",
            INDEX_BODY,
        )
    )
    done = soac_test("prog.mlir", cwd=tmp_path)
    assert summary(done) == (1, 8, 8)
    assert "expected an error matching 'out of bounds', but the call succeeded" in done.stdout
    assert re.search(r"the error '.*out of bounds.*' does not match '\^division by zero\$'", done.stdout)


def test_structure_failures(tmp_path: Path) -> None:
    (tmp_path / "prog.mlir").write_text(
        program(
            """
structure { soac.segred 1 soac.map 1 }
structure pipeline() { soac.map/soac.reduce 1 /soac.reduce 0 soac.mapp 1 }
structure pipeline(soac-fuse,no-such-pass) { soac.map 1 }
""",
            SUM_ROWS_BODY,
        )
    )
    done = soac_test("prog.mlir", "--backend", "interp", cwd=tmp_path)
    assert summary(done) == (1, 0, 3)
    assert f"FAIL prog.mlir:3 structure after {DEFAULT_PIPELINE}:\n  soac.map: expected 1, found 0" in done.stdout
    assert "FAIL prog.mlir:4 structure after nothing:\n  unknown op 'soac.mapp' (did you mean 'soac.map'?)" in done.stdout
    assert "FAIL prog.mlir:5 structure after soac-fuse,no-such-pass:\n  the pipeline fails:" in done.stdout


def test_bad_input_is_reported_and_the_rest_runs(tmp_path: Path) -> None:
    (tmp_path / "good.mlir").write_text(program("input { [1] } output { [4] }"))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "stanza.mlir").write_text(program("input { [1] } outptu { [4] }"))
    (tmp_path / "sub" / "syntax.mlir").write_text(program("input { [1] } output { [4] }", "func.func @main( {\n"))
    (tmp_path / "sub" / "data.mlir").write_text(program("input { [1, } output { [4] }\ninput @ missing.in\ninput { [1] }"))
    (tmp_path / "sub" / "entry.mlir").write_text(program("entry: nowhere\ninput { [1] } output { [4] }"))
    done = soac_test(".", "--backend", "interp", "-j", "2", cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    assert "FAIL sub/stanza.mlir:3: expected 'input', 'output', 'error:', 'structure', 'entry:' or 'tags', found 'outptu'" in (
        done.stdout
    )
    assert "FAIL sub/syntax.mlir:\n  sub/syntax.mlir:" in done.stdout
    assert "sub/data.mlir:3: the '[' is never closed" in done.stdout
    assert re.search(r"sub/missing\.in.*(no such file|not found|cannot)", done.stdout, re.IGNORECASE)
    assert "no function @nowhere in the program (functions: @main)" in done.stdout
    programs, passed, failed = summary(done)
    assert programs == 5
    assert passed == 2 + 2  # good.mlir's case, and data.mlir's third case, as written and optimised
    assert failed > 0


def test_random_input_too_large_for_memory_fails_its_case_only(tmp_path: Path) -> None:
    (tmp_path / "huge.mlir").write_text(program("random input { [100000000000000]i32 }\ninput { [1] } output { [4] }"))
    done = soac_test("huge.mlir", "--backend", "interp", cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    assert 'huge.mlir:3: random input "[100000000000000]i32" does not fit in memory' in done.stdout
    assert summary(done) == (1, 2, 2)


def test_data_files_beside_the_program(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    xs = np.arange(10, dtype=np.int32)
    (tmp_path / "data" / "xs.in").write_bytes(format_binary([xs]))
    (tmp_path / "data" / "sums.out").write_text("-- the expected sums\n" + str((3 * xs + 1).cumsum().tolist()) + "\n")
    (tmp_path / "prog.mlir").write_text(program("input @ data/xs.in output @ data/sums.out"))
    done = soac_test(tmp_path / "prog.mlir", "--backend", "interp")
    assert done.returncode == 0, done.stdout
    assert summary(done) == (1, 2, 0)


def test_excluded_tags_and_programs_without_stanzas(tmp_path: Path) -> None:
    (tmp_path / "prog.mlir").write_text(program("tags { slow }\ninput { [1] } output { [5] }"))
    (tmp_path / "plain.mlir").write_text(MAP_SCAN_BODY)
    done = soac_test(".", "--backend", "interp", "--exclude", "slow", cwd=tmp_path)
    assert done.returncode == 0
    assert summary(done) == (2, 0, 0)


def test_unsigned_data_for_a_signless_program(tmp_path: Path) -> None:
    """`u8` and `u32` values (given, expected and random) for the i8 and i32 of a signless program: the bits pass as
    they are, both backends agree with the cases, and a difference is shown unsigned."""
    stanzas = ROOT / "tests" / "stanzas" / "unsigned_histogram.mlir"
    done = soac_test(stanzas)
    assert done.returncode == 0, done.stdout
    assert summary(done) == (1, 12, 0)
    (tmp_path / "prog.mlir").write_text(stanzas.read_text().replace("0u8, 255u8] }", "0u8, 254u8] }"))
    done = soac_test("prog.mlir", "--backend", "interp", cwd=tmp_path)
    assert "result #3 differs at [3]: expected 254, got 255 (1 of 4 elements differ)" in done.stdout


def test_command_line_errors(tmp_path: Path) -> None:
    done = soac_test("missing.mlir", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == "error: no such file or directory: missing.mlir"
    done = soac_test(".", "--backend", "cuda", cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown backend 'cuda' (backends: interp, opencl)" in done.stderr


@pytest.mark.parametrize("backend", ["interp", "opencl"])
@pytest.mark.slow
def test_the_examples_carry_passing_tests(backend: str) -> None:
    """The examples, the Futhark cases of examples/futhark and the regression programs of tests/stanzas."""
    done = soac_test("examples", "tests/stanzas", "--backend", backend, "-j", "2")
    assert done.returncode == 0, done.stdout
    programs, passed, failed = summary(done)
    assert programs >= 20
    assert failed == 0
    assert passed >= 9 * 3


THRESHOLD_BODY = """
func.func @main(%n: index) -> i1 {
  %t = soac.threshold "suff_outer_par_0" %n default 1000
  func.return %t : i1
}
"""


def test_a_tuning_file_beside_the_program_sets_thresholds(tmp_path: Path) -> None:
    (tmp_path / "prog.mlir").write_text(program("input { 10i64 } output { true }", THRESHOLD_BODY))
    done = soac_test("prog.mlir", "--backend", "interp", cwd=tmp_path)
    assert summary(done) == (1, 0, 2)
    assert "result #0 expected true, got false" in done.stdout
    (tmp_path / "prog.mlir.tuning").write_text("# below 10\nsuff_outer_par_0=5\n")
    done = soac_test("prog.mlir", "--backend", "interp", cwd=tmp_path)
    assert summary(done) == (1, 2, 0)
    (tmp_path / "prog.mlir.tuning").write_text("suff_outer_par_0=five\n")
    done = soac_test("prog.mlir", "--backend", "interp", cwd=tmp_path)
    message = "prog.mlir.tuning:1: threshold 'suff_outer_par_0' needs an integer value, got 'five'"
    assert f"FAIL prog.mlir.tuning:\n  {message}" in done.stdout
    (tmp_path / "prog.mlir.tuning").write_text("soac-to-kernel.scan=chunked\nsuff_outer_par_0=5\n")
    done = soac_test("prog.mlir", "--backend", "interp,opencl", cwd=tmp_path)  # the lowering options apply on OpenCL
    assert summary(done) == (1, 4, 0)
    (tmp_path / "prog.mlir.tuning").write_text("soac-to-kernel.scan=fast\n")
    done = soac_test("prog.mlir", "--backend", "interp", cwd=tmp_path)
    message = "prog.mlir.tuning:1: soac-to-kernel: scan must be one of auto, reduce-then-scan"
    assert f"FAIL prog.mlir.tuning:\n  {message}" in done.stdout


def test_a_data_file_that_does_not_fit_is_named_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "xs.in").write_text("-- one value too wide\n\n[1i64, 2i64]\n")
    (tmp_path / "prog.mlir").write_text(program("input @ xs.in"))
    done = soac_test("prog.mlir", "--backend", "interp", cwd=tmp_path)
    assert summary(done) == (1, 0, 2)
    assert "xs.in:3: value #0 (tensor<?xi32>): the data holds i64 values, expected tensor<?xi32>" in done.stdout
