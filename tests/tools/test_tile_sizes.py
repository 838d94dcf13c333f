"""Tile sizes as tuning parameters: listed by `soac-run --list-thresholds`, set like thresholds (and checked), and
tuned by `soac-autotune --backend opencl`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from soac.context import make_context
from soac.dialect import TiledRedomapOp
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.soac_tile import SoacTilePass
from soac.passes.tile_sizes import TileSizeError, list_tile_parameters, tile_values, with_tile_sizes

ROOT = Path(__file__).resolve().parents[2]


def tiled_example(name: str) -> str:
    ctx = make_context()
    module = parse_module(ctx, (ROOT / "examples" / name).read_text(), name)
    SoacFlattenPass().apply(ctx, module)
    SoacTilePass().apply(ctx, module)
    return str(module)


@pytest.fixture
def tiled_matmul(tmp_path: Path) -> Path:
    path = tmp_path / "matmul.mlir"
    path.write_text(tiled_example("matmul.mlir"))
    return path


def tool(name: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", f"soac.tools.{name}", *(str(a) for a in args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_parameters_of_every_tiled_op_with_their_paths() -> None:
    module = parse_module(make_context(), tiled_example("matmul.mlir"), "matmul.mlir")
    parameters = list_tile_parameters(module)
    assert [p.name for p in parameters[:5]] == [
        "tile_0_block_0",
        "tile_0_block_1",
        "tile_0_reg_0",
        "tile_0_reg_1",
        "tile_0_chunk",
    ]
    assert [p.default for p in parameters[:5]] == [128, 128, 8, 8, 8]
    assert parameters[0].path == (("suff_outer_par_0", True),)
    assert {p.tile for p in parameters} == {"tile_0", "tile_1"}


def test_sizes_apply_to_a_copy_and_are_checked() -> None:
    module = parse_module(make_context(), tiled_example("matmul.mlir"), "matmul.mlir")
    values = {"tile_0_block_1": 32, "tile_0_reg_1": 2, "tile_0_chunk": 5, "suff_outer_par_0": 7}
    sized = with_tile_sizes(module, values)
    first, second = (op for op in sized.walk() if isinstance(op, TiledRedomapOp))
    assert (first.sizes.block, first.sizes.reg, first.sizes.chunk) == ((128, 32), (8, 2), 5)
    assert (second.sizes.block, second.sizes.reg, second.sizes.chunk) == ((128, 128), (8, 8), 8)
    original = next(op for op in module.walk() if isinstance(op, TiledRedomapOp))
    assert original.sizes.chunk == 8
    assert tile_values(module, values) == (("tile_0_block_1", 32), ("tile_0_chunk", 5), ("tile_0_reg_1", 2))
    assert with_tile_sizes(module, {"suff_outer_par_0": 7}) is module
    with pytest.raises(TileSizeError, match=r"matmul.mlir:\d+:\d+: tile sizes tile_1_reg_0=3: .* reg size 3 does not divide"):
        with_tile_sizes(module, {"tile_1_reg_0": 3})
    with pytest.raises(TileSizeError, match="makes work-groups of 2048 > 1024"):
        with_tile_sizes(module, {"tile_0_reg_0": 1, "tile_0_reg_1": 8})


def test_soac_run_lists_and_sets_tile_sizes(tiled_matmul: Path) -> None:
    listed = tool("soac_run", tiled_matmul, "--list-thresholds")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert "suff_outer_par_0=32768" in lines
    assert 'tile_0_chunk=8  # elements of k per chunk in tile "tile_0", when suff_outer_par_0' in lines
    forced = ["--threshold", "suff_outer_par_0=0", "--threshold", "tile_0_block_0=6", "--threshold", "tile_0_reg_0=3"]
    inputs = ["--input", "[[1,2],[3,4],[5,6]]", "[[5,6,1],[7,8,1]]"]
    for backend in ("interp", "opencl"):
        done = tool("soac_run", tiled_matmul, *forced, *inputs, "--backend", backend)
        assert done.returncode == 0, done.stderr
        assert " ".join(done.stdout.split()) == "result #0 : tensor<?x?xf32> = [[19. 22. 3.] [43. 50. 7.] [67. 78. 11.]]"
    bad = tool("soac_run", tiled_matmul, *inputs, "--threshold", "tile_1_chunk=0")
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr
    assert "tile sizes tile_1_chunk=0: 'soac.tiled_redomap' tile sizes must be positive" in bad.stderr


def test_autotune_tunes_the_tile_sizes_the_datasets_run_on_opencl(tmp_path: Path) -> None:
    program = tmp_path / "all_pairs.mlir"
    program.write_text(tiled_example("all_pairs.mlir"))
    np.save(tmp_path / "xs.npy", np.random.default_rng(0).standard_normal(700).astype(np.float32))
    out = tmp_path / "t.tuning"
    done = tool("soac_autotune", program, "--dataset", tmp_path / "xs.npy", "--backend", "opencl", "--runs", "1", "--output", out)
    assert done.returncode == 0, done.stderr
    tuned = dict(line.split("=") for line in out.read_text().splitlines())
    # The dataset runs one of the two tiled ops (which one depends on the tuned thresholds); the other keeps its
    # defaults and is not in the file.
    run = [name for name in ("tile_0", "tile_1") if f"{name}_chunk" in tuned]
    assert len(run) == 1
    assert {f"{run[0]}_block_0", f"{run[0]}_reg_0", f"{run[0]}_chunk"} <= tuned.keys()
    skipped = "tile_1" if run == ["tile_0"] else "tile_0"
    assert f"{skipped}_chunk: no dataset runs it, keeping" in done.stderr
    assert f"{run[0]}_chunk=4:" in done.stderr
    values = {name: int(value) for name, value in tuned.items()}
    check = tool("soac_run", program, "--tuning", out, "--input", "[1, 2, 3]", "--backend", "opencl")
    assert check.returncode == 0, check.stderr
    assert " ".join(check.stdout.split()) == "result #0 : tensor<?xf32> = [ 9. 12. 15.]"
    assert values[f"{run[0]}_reg_0"] in (1, 2, 4, 8)


def test_autotune_on_the_interpreter_keeps_the_tile_sizes(tiled_matmul: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.tuning"
    done = tool("soac_autotune", tiled_matmul, "--dataset", "[[1,2],[3,4]]", "[[1],[2]]", "--runs", "1", "--output", out)
    assert done.returncode == 0, done.stderr
    assert "10 tile size(s) keep their defaults: they change only speed on OpenCL (--backend opencl)" in done.stderr
    assert "tile_" not in out.read_text()
