"""`soac-run` as users call it: a subprocess with literal and .npy inputs, options and errors."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from soac.tools.futhark_data import format_binary, parse_data
from soac.tools.soac_run import main as soac_run_main

from .conftest import run_tool

ROOT = Path(__file__).resolve().parents[2]
MAP_SCAN = str(ROOT / "examples" / "map_scan.mlir")

TWO_FUNCTIONS = """
func.func @double(%xs: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.addf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %ys : tensor<?xf32>
}
func.func @main(%xs: tensor<?xf32>, %z: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %s = soac.reduce %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : f32
}
"""

THRESHOLD = """
func.func @big(%n: index) -> i1 {
  %t = soac.threshold "suff_outer_par_0" %n default 1000
  func.return %t : i1
}
"""

# The width %n is a parameter: giving it a value other than the length of %xs is a run-time error.
EXPLICIT_WIDTH = """
func.func @main(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %ys : tensor<?xf32>
}
"""


def soac_run(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`soac-run ARGS...` in `cwd`, run in this process (`run_tool`)."""
    return run_tool(soac_run_main, args, cwd=cwd)


def ok(*args: str | Path) -> list[str]:
    done = soac_run(*args)
    if "opencl backend is not available" in done.stderr:
        pytest.skip(done.stderr.strip())
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def error(*args: str | Path) -> str:
    """The one-line error of a failing run."""
    done = soac_run(*args)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: "), done.stderr
    return lines[0]


@pytest.fixture
def program(tmp_path: Path):
    def write(text: str, name: str = "prog.mlir") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


# ---------------------------------------------------------------------------
# Inputs and results
# ---------------------------------------------------------------------------


def test_literal_input() -> None:
    assert ok(MAP_SCAN, "--input", "[1,2,3,4]") == ["result #0 : tensor<?xi32> = [ 4 11 21 34]"]


def test_inputs_in_several_options_and_scalars(program) -> None:
    path = program(TWO_FUNCTIONS)
    assert ok(path, "--input", "[1, 2.5]", "--input", "0.5") == ["result #0 : f32 = 4.0"]
    assert ok(path, "--input", "[]", "-1") == ["result #0 : f32 = -1.0"]


def test_npy_input_and_output(tmp_path: Path) -> None:
    xs = np.arange(-5, 20, dtype=np.int32)
    np.save(tmp_path / "xs.npy", xs)
    lines = ok(MAP_SCAN, "--input", tmp_path / "xs.npy", "--output", tmp_path / "out")
    result = np.load(tmp_path / "out" / "result0.npy")
    assert result.dtype == np.int32
    np.testing.assert_array_equal(result, np.cumsum(3 * xs + 1))
    # The printed values (wrapped over several lines) are those written.
    printed = " ".join(lines)
    assert printed.startswith("result #0 : tensor<?xi32> = [")
    np.testing.assert_array_equal(np.array(printed.split("=", 1)[1].strip(" []").split(), dtype=np.int32), result)


def test_futhark_data_inputs(program, tmp_path: Path) -> None:
    path = program(TWO_FUNCTIONS)
    (tmp_path / "call.in").write_text("-- xs and z\n[1f32, 2.5f32]\n0.5f32\n")
    assert ok(path, "--input", tmp_path / "call.in") == ["result #0 : f32 = 4.0"]
    (tmp_path / "call.bin").write_bytes(format_binary([np.array([1, 2.5], np.float32), np.float32(-1)]))
    assert ok(path, "--input", tmp_path / "call.bin") == ["result #0 : f32 = 2.5"]
    assert ok(path, "--input", "empty([0]f32) 2f32") == ["result #0 : f32 = 2.0"]
    assert ok(path, "--input", "[1, 2]", "--input", "f32.inf") == ["result #0 : f32 = inf"]
    # Untyped values, several in one argument or file, convert as literals do.
    assert ok(path, "--input", "[1, 2] 3") == ["result #0 : f32 = 6.0"]
    (tmp_path / "untyped.in").write_text("[1, 2.5]\n-1\n")
    assert ok(path, "--input", tmp_path / "untyped.in") == ["result #0 : f32 = 2.5"]


def test_futhark_data_input_errors(program, tmp_path: Path) -> None:
    path = program(TWO_FUNCTIONS)
    assert error(path, "--input", "[1f64, 2f64] 0.5f32") == (
        "error: input #0 (%xs : tensor<?xf32>): the data holds f64 values, expected tensor<?xf32>"
    )
    assert error(path, "--input", "[1i64, 2") == (
        "error: input #0 (%xs : tensor<?xf32>): cannot read '[1i64, 2': the '[' is never closed"
    )
    assert error(path, "--input", "[1, 2] x") == (
        "error: input #0 (%xs : tensor<?xf32>): cannot read '[1, 2] x': expected a number, true/false, or a list like [1, 2, 3]"
    )
    (tmp_path / "bad.in").write_text("[1f32]\n[2f32,\n")
    assert error(path, "--input", tmp_path / "bad.in") == f"error: {tmp_path / 'bad.in'}:2: the '[' is never closed"
    (tmp_path / "three.in").write_text("[1f32] 2f32 3f32")
    assert error(path, "--input", tmp_path / "three.in").endswith("takes 2 inputs (%xs : tensor<?xf32>, %z : f32), got 3")


def test_futhark_data_output(tmp_path: Path) -> None:
    path = ROOT / "examples" / "scanomap_scanomap.mlir"
    ok(path, "--input", "[3,-1,4]", "--output", tmp_path / "results.out")
    assert (tmp_path / "results.out").read_text() == "[9i32, 10i32, 26i32]\n[3i32, 3i32, 4i32]\n"
    ok(path, "--input", "[3,-1,4]", "--output", tmp_path / "results.bin", "-b")
    back = parse_data((tmp_path / "results.bin").read_bytes())
    assert [v.value.tolist() for v in back] == [[9, 10, 26], [3, 3, 4]]
    assert all(v.value.dtype == np.int32 for v in back)
    command = [sys.executable, "-m", "soac.tools.soac_run", str(path), "--input", "[3,-1,4]", "--output", "-", "-b"]
    done = subprocess.run(command, capture_output=True, cwd=ROOT, timeout=120, check=True)
    assert [v.value.tolist() for v in parse_data(done.stdout)] == [[9, 10, 26], [3, 3, 4]]
    assert ok(path, "--input", "[3,-1,4]", "--output", "-") == ["[9i32, 10i32, 26i32]", "[3i32, 3i32, 4i32]"]


def test_binary_output_needs_a_data_file(tmp_path: Path) -> None:
    done = soac_run(MAP_SCAN, "--input", "[1]", "-b")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: -b writes a data file: give --output FILE (with an extension) or --output -"


def test_several_results_written(tmp_path: Path) -> None:
    path = ROOT / "examples" / "scanomap_scanomap.mlir"
    lines = ok(path, "--input", "[3,-1,4]", "--output", tmp_path)
    assert lines == ["result #0 : tensor<?xi32> = [ 9 10 26]", "result #1 : tensor<?xi32> = [3 3 4]"]
    np.testing.assert_array_equal(np.load(tmp_path / "result0.npy"), [9, 10, 26])
    np.testing.assert_array_equal(np.load(tmp_path / "result1.npy"), [3, 3, 4])


def test_two_dimensional_input_and_summary(tmp_path: Path) -> None:
    path = ROOT / "examples" / "sum_rows.mlir"
    assert ok(path, "--input", "[[1,2,3],[4,5,6]]") == ["result #0 : tensor<?xf32> = [ 6. 15.]"]
    np.save(tmp_path / "big.npy", np.ones((5000, 3), dtype=np.float64))
    (line,) = ok(path, "--input", tmp_path / "big.npy")
    assert line.startswith("result #0 : tensor<?xf32> = [3. 3. 3.")
    assert "..." in line


def test_entry(program) -> None:
    path = program(TWO_FUNCTIONS)
    assert ok(path, "--entry", "double", "--input", "[1,2]") == ["result #0 : tensor<?xf32> = [2. 4.]"]
    assert "no function @triple" in error(path, "--entry", "triple", "--input", "[1]")


def test_only_function_is_the_default(program) -> None:
    assert ok(program(THRESHOLD), "--input", "5") == ["result #0 : i1 = False"]


# ---------------------------------------------------------------------------
# Thresholds
# ---------------------------------------------------------------------------


def test_threshold_option(program) -> None:
    path = program(THRESHOLD)
    assert ok(path, "--input", "5", "--threshold", "suff_outer_par_0=4") == ["result #0 : i1 = True"]
    assert ok(path, "--input", "5", "--threshold", "suff_outer_par_0=6") == ["result #0 : i1 = False"]


def test_tuning_file(program, tmp_path: Path) -> None:
    path = program(THRESHOLD)
    tuning = tmp_path / "prog.tuning"
    tuning.write_text("# tuned on a laptop\n\nsuff_outer_par_0 = 3  # small\nother=7\n")
    assert ok(path, "--input", "5", "--tuning", tuning) == ["result #0 : i1 = True"]
    # --threshold overrides the tuning file.
    assert ok(path, "--input", "5", "--tuning", tuning, "--threshold", "suff_outer_par_0=9") == ["result #0 : i1 = False"]


def test_bad_tuning_line(program, tmp_path: Path) -> None:
    tuning = tmp_path / "bad.tuning"
    tuning.write_text("a=1\nb 2\n")
    assert error(program(THRESHOLD), "--input", "5", "--tuning", tuning) == (
        f"error: {tuning}:2: expected 'name=value', got 'b 2'"
    )
    tuning.write_text("# x\na=many\n")
    assert f"{tuning}:2: threshold 'a' needs an integer value" in error(program(THRESHOLD), "--input", "5", "--tuning", tuning)
    tuning.write_text("soac-to-kernel.hist=shared\n")
    assert error(program(THRESHOLD), "--input", "5", "--tuning", tuning).startswith(
        f"error: {tuning}:1: soac-to-kernel: hist must be one of auto, global"
    )


def test_a_tuning_files_lowering_options_apply_on_opencl(program, tmp_path: Path) -> None:
    """`soac-to-kernel.OPTION=VALUE` lines are the lowering the thresholds were tuned with (soac-autotune writes the
    environment's); both backends accept them, OpenCL lowers with them."""
    tuning = tmp_path / "prog.tuning"
    tuning.write_text("soac-to-kernel.scan=reduce-then-scan\nsoac-to-kernel.hist=global\nsuff_outer_par_0=3\n")
    for backend in ("interp", "opencl"):
        assert ok(program(THRESHOLD), "--input", "5", "--tuning", tuning, "--backend", backend) == ["result #0 : i1 = True"]


def test_bad_threshold_option(program) -> None:
    assert "expected 'name=value'" in error(program(THRESHOLD), "--input", "5", "--threshold", "t0")
    assert "must not be negative" in error(program(THRESHOLD), "--input", "5", "--threshold", "t0=-1")
    assert "cannot read tuning file" in error(program(THRESHOLD), "--input", "5", "--tuning", "nope.tuning")


def test_output_to_a_closed_pipe_stops_quietly(program) -> None:
    # `soac-run ... | head -1`: the reader is gone before the results are printed.
    read_end, write_end = os.pipe()
    os.close(read_end)
    command = [sys.executable, "-m", "soac.tools.soac_run", str(program(THRESHOLD)), "--input", "5"]
    done = subprocess.run(command, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(write_end)
    assert done.returncode == 1
    assert done.stderr == ""


def test_threshold_option_naming_no_threshold_of_the_program(program) -> None:
    # A misspelt name would change nothing; a tuning file may hold other programs' names, an option may not.
    assert error(program(THRESHOLD), "--input", "5", "--threshold", "suff_outer_par0=4") == (
        "error: --threshold: the program has no threshold or tile size 'suff_outer_par0' (did you mean "
        "'suff_outer_par_0'?) (its thresholds and tile sizes: suff_outer_par_0)"
    )


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


def test_missing_program() -> None:
    assert error("no/such/prog.mlir") == "error: No such file or directory: no/such/prog.mlir"


def test_missing_input_file() -> None:
    assert error(MAP_SCAN, "--input", "foo.npy") == ("error: input #0 (%xs : tensor<?xi32>): cannot read 'foo.npy': no such file")


def test_wrong_number_of_inputs() -> None:
    message = error(MAP_SCAN, "--input", "[1]", "2")
    assert message == "error: @main takes 1 input (%xs : tensor<?xi32>), got 2"
    assert error(MAP_SCAN).endswith("got 0")


@pytest.mark.parametrize(
    ("literal", "complaint"),
    [
        ("[1, 2", "cannot read '[1, 2': expected a number"),
        ("[1.5, 2]", "expected integers for int32"),
        ("[[1, 2]]", "expected a 1-D array, got a 2-D array"),
        ("7", "expected a 1-D array, got a scalar"),
        ("[3000000000]", "values out of range for int32"),
        ("[[1], [2, 3]]", "the rows have different lengths"),
    ],
)
def test_bad_literal(literal: str, complaint: str) -> None:
    message = error(MAP_SCAN, "--input", literal)
    assert message.startswith("error: input #0 (%xs : tensor<?xi32>): ")
    assert complaint in message


def test_unsigned_inputs_are_the_bits_of_signless_integers(tmp_path: Path) -> None:
    """u8 data and uint8 .npy files for an i8 parameter; an untyped 200 is out of i8's range, and the error says how
    to give the bits; a program typed ui8 is refused with the way out."""
    program = ROOT / "tests" / "stanzas" / "unsigned_histogram.mlir"
    np.save(tmp_path / "pixels.npy", np.array([1, 200], np.uint8))
    for given in ("[1u8, 200u8]", str(tmp_path / "pixels.npy")):
        assert ok(program, "--input", given)[-1] == "result #3 : tensor<?xi8> = [-56   1   0   0]"
    assert error(program, "--input", "[1, 200]").endswith("[-128, 127] (for an unsigned value's bits give it typed: 200u8)")
    typed = tmp_path / "typed.mlir"
    typed.write_text("func.func @main(%x: ui8) -> ui8 {\n  func.return %x : ui8\n}\n")
    assert "soac's integers are signless: ui8 is i8" in error(typed, "--input", "1u8")


def test_bad_npy(tmp_path: Path) -> None:
    np.save(tmp_path / "floats.npy", np.array([1.5, 2.0]))
    np.save(tmp_path / "matrix.npy", np.zeros((2, 2), dtype=np.int32))
    (tmp_path / "text.npy").write_text("1 2 3")
    assert "holds float64 values, which do not convert to int32" in error(MAP_SCAN, "--input", tmp_path / "floats.npy")
    assert "expected a 1-D array, got a 2-D array of shape (2, 2)" in error(MAP_SCAN, "--input", tmp_path / "matrix.npy")
    assert "not a .npy file" in error(MAP_SCAN, "--input", tmp_path / "text.npy")


def test_parse_error_has_location(program) -> None:
    path = program("func.func @main() {\n  %x = soac.nope\n}\n")
    done = soac_run(path)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert f"{path}:2:" in done.stderr


@pytest.mark.parametrize("backend", ["interp", "opencl"])
def test_runtime_size_mismatch(program, backend: str) -> None:
    path = program(EXPLICIT_WIDTH)
    assert ok(path, "--input", "3", "[1,2,3]", "--backend", backend) == ["result #0 : tensor<?xf32> = [1. 4. 9.]"]
    message = error(path, "--input", "5", "[1,2,3]", "--backend", backend)
    if "opencl backend is not available" not in message:
        assert re.search(re.escape(str(path)) + r":3:\d+", message), message


def test_opencl_backend_runs_or_says_why() -> None:
    done = soac_run(MAP_SCAN, "--input", "[1,2,3,4]", "--backend", "opencl")
    assert "Traceback" not in done.stderr
    if done.returncode == 0:
        assert done.stdout.splitlines() == ["result #0 : tensor<?xi32> = [ 4 11 21 34]"]
    else:
        assert done.stderr.startswith("error: "), done.stderr


def test_usage_errors_are_one_line() -> None:
    assert error().startswith("error: the following arguments are required: FILE")
    assert "invalid choice: 'cuda'" in error(MAP_SCAN, "--backend", "cuda")


def test_program_from_stdin() -> None:
    command = [sys.executable, "-m", "soac.tools.soac_run", "-", "--input", "[[1,2]]", "[[1],[2],[3]]"]
    matmul = (ROOT / "examples" / "matmul.mlir").read_text()
    done = subprocess.run(command, input=matmul, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode != 0
    assert re.fullmatch(r"error: <stdin>:\d+:\d+: 'soac.redomap': .*\n", done.stderr), done.stderr


# ---------------------------------------------------------------------------
# --autotune
# ---------------------------------------------------------------------------

ROW_SUMS = """
func.func @main(%xss: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
    %s = soac.reduce %m (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      soac.yield %t : f32
    }
    soac.yield %s : f32
  }
  func.return %r : tensor<?xf32>
}
"""


def test_autotune_searches_once_per_size_class(program, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOAC_CACHE_DIR", str(tmp_path / "cache"))
    flat = subprocess.run(
        [sys.executable, "-m", "soac.tools.soac_opt", str(program(ROW_SUMS)), "-p", "soac-flatten"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    source, data = program(flat, "flat.mlir"), tmp_path / "xss.npy"
    np.save(data, np.arange(60 * 70, dtype=np.float32).reshape(60, 70))
    first = soac_run(source, "--backend", "opencl", "--autotune", "--input", data, "--output", tmp_path / "out")
    assert first.returncode == 0, first.stderr
    assert re.search(r"autotune: \[2\^6x2\^7\]: .* in [0-9.]+ s \(defaults [0-9.]+ ms, outer_par_0", first.stderr)
    expected = np.arange(60 * 70, dtype=np.float32).reshape(60, 70).sum(1)
    np.testing.assert_allclose(np.load(tmp_path / "out" / "result0.npy"), expected, rtol=1e-5)
    again = soac_run(source, "--backend", "opencl", "--autotune", "--input", data)
    assert again.returncode == 0, again.stderr
    assert "autotune:" not in again.stderr  # the size class's choice, kept beside the cache


def test_autotune_needs_a_device(program) -> None:
    assert "add --backend opencl" in error(program(ROW_SUMS), "--autotune", "--input", "[[1.0]]")
