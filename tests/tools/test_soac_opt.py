"""`soac-opt` as a tool: round trips of every op, the generic form, the xdsl-opt entry point, --version."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from soac.parsing import LocatingParser, parse_module
from soac.tools.soac_opt import SoacOptMain, pipeline_mentions
from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc
from xdsl.universe import Universe

ROOT = Path(__file__).resolve().parents[2]
ALL_OPS = ROOT / "docs" / "all-ops.mlir"
BIN = Path(sys.executable).parent


def run(*args: str, stdin: str | None = None, tool: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    command = tool or [sys.executable, "-m", "soac.tools.soac_opt"]
    result = subprocess.run([*command, *args], input=stdin, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def soac_opt(*args: str, stdin: str | None = None) -> str:
    result = run(*args, stdin=stdin)
    assert result.returncode == 0, result.stderr
    return result.stdout


def context() -> Context:
    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    return ctx


def in_process(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    SoacOptMain(args=args).run()
    return capsys.readouterr().out


def test_all_ops_round_trip_custom_generic_custom():
    custom = soac_opt(str(ALL_OPS))
    generic = soac_opt(str(ALL_OPS), "--print-op-generic")
    assert "soac.map %n" in custom
    assert '"soac.map"(%n' in generic
    assert soac_opt(stdin=generic) == custom
    assert soac_opt(stdin=custom) == custom


def test_every_op_of_the_dialect_has_round_trip_and_invalid_tests():
    from soac.dialect import Soac

    dialect_tests = ROOT / "tests" / "filecheck" / "dialect"
    ops = (dialect_tests / "ops.mlir").read_text()
    invalid = (dialect_tests / "invalid.mlir").read_text()
    for op in Soac.operations:
        assert f'"{op.name}"' in ops, f"ops.mlir has no generic check of {op.name}"
        assert f"{op.name} " in ops, f"ops.mlir has no custom check of {op.name}"
        if op.name not in ("soac.threshold",):  # threshold has no rule of its own beyond its syntax
            assert f"'{op.name}'" in invalid, f"invalid.mlir has no error of {op.name}"


def test_generic_output_reparses_to_the_same_module():
    ctx = context()
    original = parse_module(ctx, ALL_OPS.read_text(), str(ALL_OPS))
    generic = soac_opt(str(ALL_OPS), "--print-op-generic")
    again = parse_module(ctx, generic, "generic.mlir")
    assert again.is_structurally_equivalent(original)


def test_generic_output_is_stable():
    generic = soac_opt(str(ALL_OPS), "--print-op-generic")
    assert soac_opt("--print-op-generic", stdin=generic) == generic


def test_in_process_matches_console_script(capsys: pytest.CaptureFixture[str]):
    assert in_process([str(ALL_OPS)], capsys) == soac_opt(str(ALL_OPS))


def test_console_script_is_installed():
    script = shutil.which("soac-opt") or shutil.which("soac-opt", path=str(BIN))
    if script is None:
        pytest.skip("the soac-opt console script is not installed")
    result = run(str(ALL_OPS), tool=[script])
    assert result.returncode == 0, result.stderr
    assert result.stdout == soac_opt(str(ALL_OPS))


def test_xdsl_opt_parses_soac_through_the_universe_entry_point():
    script = shutil.which("xdsl-opt", path=str(BIN)) or shutil.which("xdsl-opt")
    if script is None:
        pytest.skip("xdsl-opt is not installed")
    result = run(str(ALL_OPS), tool=[script])
    assert result.returncode == 0, result.stderr
    assert result.stdout == soac_opt(str(ALL_OPS))


def test_universe_entry_point_lists_the_soac_dialect():
    universe = Universe.get_multiverse()
    assert "soac" in universe.all_dialects
    assert universe.all_dialects["soac"]().name == "soac"


def test_version():
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"soac-opt built on xdsl {version('xdsl')}"


def test_parsed_ops_carry_their_source_location():
    ctx = context()
    text = ALL_OPS.read_text()
    parser = LocatingParser(ctx, text, "all-ops.mlir")
    module = parser.parse_module()
    for op in module.walk():
        if op is module:
            continue
        loc = op.location
        assert isinstance(loc, FileLineColLoc), op.name
        assert loc.filename.data == "all-ops.mlir"
        line = text.splitlines()[loc.line.data - 1]
        assert line[loc.column.data - 1 :].startswith(("%", op.name)), (op.name, line)


def test_locations_are_not_printed_by_default():
    assert "loc(" not in soac_opt(str(ALL_OPS))


def test_locations_printed_with_debuginfo_reparse():
    with_locs = soac_opt(str(ALL_OPS), "--print-debuginfo")
    assert 'loc("' in with_locs
    # The printed locations survive another round (only the module, now parsed explicitly, gains one).
    again = soac_opt("--print-debuginfo", stdin=with_locs)
    assert again.rstrip().splitlines()[:-1] == with_locs.rstrip().splitlines()[:-1]


def test_split_input_file_round_trip():
    text = ALL_OPS.read_text()
    out = soac_opt("--split-input-file", stdin=f"{text}\n// -----\n{text}")
    single = soac_opt(str(ALL_OPS))
    assert out == f"{single}// -----\n{single}"


def test_a_pass_pipeline_runs():
    out = soac_opt(str(ALL_OPS), "-p", "canonicalize")
    assert soac_opt(stdin=out) == out


def test_pipeline_mentions_spans():
    mentions = pipeline_mentions("dce,soac-fuse{vertical=true horizontal=false},cse")
    assert [m.name.text for m in mentions] == ["dce", "soac-fuse", "cse"]
    assert {k: v.text for k, v in mentions[1].options.items()} == {"vertical": "vertical=true", "horizontal": "horizontal=false"}


@pytest.mark.skipif(shutil.which("lit", path=str(BIN)) is None, reason="lit is not installed")
def test_lit_dialect_tests_pass():
    """The FileCheck tests of the dialect, so that a pytest run covers them too."""
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    result = subprocess.run(
        [str(BIN / "lit"), "-q", str(ROOT / "tests" / "filecheck" / "dialect")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_printer_of_the_dialect_has_no_unregistered_fallback():
    """Every soac op prints in custom syntax: no generic `"soac.` form in the default output."""
    out = soac_opt(str(ALL_OPS))
    assert '"soac.' not in out


def test_soac_opt_parses_arith_remf_which_soac_lang_emits_for_float_modulo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`xs % 0.7` in soac.lang traces to `arith.remf` (soac.arith_remf); soac-opt reads such IR back."""
    import numpy as np
    import soac.lang as sl

    monkeypatch.setenv("SOAC_CACHE_DIR", "off")
    traced = sl.jit(lambda xs: xs % 0.7, backend="interp").ir(np.ones(2, np.float32))
    assert "arith.remf" in traced
    source = tmp_path / "remf.mlir"
    source.write_text(traced)
    assert "arith.remf" in in_process([str(source)], capsys)
