"""The tile of each `soac.stencil` as a tuning parameter: listed in program order with the default by rank (or the
op's own `tile`), applied before lowering, refused with the op's place when a work-group cannot hold it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from soac.context import make_context
from soac.dialect import StencilOp
from soac.parsing import parse_module
from soac.passes.tile_sizes import TileSizeError, list_tile_parameters, tile_values, with_tile_sizes

ROOT = Path(__file__).resolve().parents[2]


def blur():
    return parse_module(make_context(), (ROOT / "examples" / "blur.mlir").read_text(), "blur.mlir")


def test_listed_with_their_defaults() -> None:
    parameters = list_tile_parameters(blur())
    assert [(p.name, p.default) for p in parameters] == [("stencil_0_block_0", 16), ("stencil_0_block_1", 128)]
    all_ops = parse_module(make_context(), (ROOT / "docs" / "all-ops.mlir").read_text(), "all-ops.mlir")
    names = [p.name for p in list_tile_parameters(all_ops) if p.tile.startswith("stencil")]
    assert names == ["stencil_0_block_0", "stencil_0_block_1", "stencil_1_block_0"]
    assert [p.default for p in list_tile_parameters(all_ops) if p.tile == "stencil_1"] == [128]


def test_applied_to_a_copy() -> None:
    module = blur()
    sized = with_tile_sizes(module, {"stencil_0_block_1": 32})
    (op,) = [o for o in sized.walk() if isinstance(o, StencilOp)]
    assert op.tile_shape == (16, 32)
    assert next(o for o in module.walk() if isinstance(o, StencilOp)).tile_shape is None
    assert tile_values(module, {"stencil_0_block_1": 32, "other": 1}) == (("stencil_0_block_1", 32),)


def test_too_large_a_tile_is_refused() -> None:
    expected = r"blur.mlir:24:3: tile sizes stencil_0_block_1=4096: 'soac.stencil' tile \[16, 4096\]"
    with pytest.raises(TileSizeError, match=expected):
        with_tile_sizes(blur(), {"stencil_0_block_1": 4096})


def test_soac_run_lists_them() -> None:
    command = [sys.executable, "-m", "soac.tools.soac_run", str(ROOT / "examples" / "blur.mlir"), "--list-thresholds"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert 'stencil_0_block_0=16  # elements per work-group along d0 in tile "stencil_0"' in done.stdout
