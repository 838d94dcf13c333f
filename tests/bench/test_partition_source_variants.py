"""bench/partition_source_variants.py's edits of the one-pass partition kernel (the GPU run is the benchmark's
business): each edit applies to the nvidia kernel of the lowering the script selects by default, and changes it as
named."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import partition_source_variants as variants  # noqa: E402  # pyright: ignore[reportMissingImports]


@pytest.fixture(scope="module")
def source() -> str:
    from soac.context import make_context
    from soac.lowering.opencl.emitter import opencl_source
    from soac.parsing import parse_module
    from soac.passes import DEFAULT_PIPELINE, get_all_passes
    from xdsl.passes import PassPipeline

    ctx = make_context()
    module = parse_module(ctx, (ROOT / "examples" / "radix_sort_onesweep.mlir").read_text(), "onesweep.mlir")
    PassPipeline.parse_spec(get_all_passes(), DEFAULT_PIPELINE).apply(ctx, module)
    spec = "target=nvidia partition-index=i64 partition-rows=load partition-lookback=1"
    PassPipeline.parse_spec(get_all_passes(), f"soac-to-kernel{{{spec}}}").apply(make_context(), module)
    return opencl_source(module)


def kernel(text: str) -> str:
    return text[text.index("partition_onesweep") :]


def test_each_edit_changes_the_kernel_as_named(source: str) -> None:
    assert variants.edit(source, "base") == source
    assert "const int tile_start" in kernel(variants.edit(source, "i32"))
    pre = kernel(variants.edit(source, "pre"))
    assert "int kpre[16];" in pre
    assert "= kpre[e];" in pre
    keep = kernel(variants.edit(source, "keep"))
    assert keep.count("kpre[e_") == 1  # the moving round reads the registers too
    assert "if (!full_tile)" in kernel(variants.edit(source, "full8"))
    assert "asm volatile" not in kernel(variants.edit(source, "novol"))
    assert "has_before = false;" in kernel(variants.edit(source, "nolb"))
    combined = kernel(variants.edit(source, "i32+keep+full8"))
    assert "if (!full_tile)" in combined
    assert "kpre[" in combined
