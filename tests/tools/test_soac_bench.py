"""`soac-bench` as users call it: Futhark's JSON for every dataset, checked results, `compare`, and clean errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from soac.tools.soac_bench import main as soac_bench_main

from .conftest import run_tool

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "examples" / "map_scan.mlir"


def soac_bench(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`soac-bench ARGS...` in `cwd`, run in this process (`run_tool`)."""
    return run_tool(soac_bench_main, args, cwd=cwd)


def stanza_program(stanzas: str) -> str:
    text = PROGRAM.read_text()
    code = text[text.index("func.func") :]
    return "// ==\n" + "".join(f"// {line}\n" for line in stanzas.strip().splitlines()) + "\n" + code


@pytest.mark.parametrize("backend", ["interp", "opencl"])
def test_json_in_futharks_format(tmp_path: Path, backend: str) -> None:
    out = tmp_path / "bench.json"
    done = soac_bench(PROGRAM, "--backend", backend, "-r", "3", "--json", out)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    key = f"{PROGRAM}:main"
    assert list(report) == [key]
    datasets = report[key]["datasets"]
    assert list(datasets) == ['#0 ("[1, 2, 3, 4]")', '#1 ("empty([0]i32)")', '#2 ("[1000000]i32")']
    for dataset in datasets.values():
        assert len(dataset["runtimes"]) == 3
        assert all(isinstance(t, int) and t > 0 for t in dataset["runtimes"])
        assert dataset["stderr"] == ""
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f'{key} #0 ("[1, 2, 3, 4]"): ')
    assert "μs (RSD: " in lines[0]


def test_wrong_results_are_not_timed(tmp_path: Path) -> None:
    (tmp_path / "prog.mlir").write_text(
        stanza_program("input { [1, 2] } output { [4, 12] }\ninput { [1, 2] } output { [4, 11] }\nnobench input { [3] }")
    )
    done = soac_bench("prog.mlir", "--backend", "interp", "-r", "2", "--json", "out.json", cwd=tmp_path)
    assert done.returncode == 1
    assert 'prog.mlir:main #0 ("[1, 2]"): FAILED: wrong results: result #0 differs at [1]: expected 12, got 11' in done.stdout
    report = json.loads((tmp_path / "out.json").read_text())
    assert list(report["prog.mlir:main"]["datasets"]) == ['#1 ("[1, 2]")']


def test_a_tuning_file_beside_the_program_applies(tmp_path: Path) -> None:
    (tmp_path / "prog.mlir").write_text(stanza_program("input { [1, 2] }"))
    (tmp_path / "prog.mlir.tuning").write_text("not a threshold line\n")
    done = soac_bench("prog.mlir", "--backend", "interp", "-r", "1", cwd=tmp_path)
    assert done.returncode == 1
    assert "prog.mlir.tuning:1: expected 'name=value'" in done.stderr


def test_compare(tmp_path: Path) -> None:
    old = {
        "p.mlir:main": {"datasets": {"#0": {"runtimes": [100, 100]}, "#1": {"runtimes": [50]}}},
        "q.mlir:main": {"datasets": {}},
    }
    new = {"p.mlir:main": {"datasets": {"#0": {"runtimes": [40, 60]}, "#1": {"runtimes": [100]}}}}
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    done = soac_bench("compare", "old.json", "new.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "p.mlir:main #0: 100μs -> 50μs, 2.00x faster",
        "p.mlir:main #1: 50μs -> 100μs, 2.00x slower",
        "q.mlir:main: only in the first report",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "error: cannot read 'bad.json': No such file or directory"),
        ("{", "error: 'bad.json' is not benchmark JSON: Expecting property name"),
        ('{"p": 3}', 'error: \'bad.json\' is not benchmark JSON: expected {"FILE:ENTRY": {"datasets": ...}}'),
    ],
)
def test_compare_rejects_what_is_not_benchmark_json(tmp_path: Path, content: str | None, message: str) -> None:
    if content is not None:
        (tmp_path / "bad.json").write_text(content)
    (tmp_path / "good.json").write_text("{}")
    done = soac_bench("compare", "bad.json", "good.json", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(message)
    assert "Traceback" not in done.stderr
