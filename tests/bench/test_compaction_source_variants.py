"""bench/compaction_source_variants.py's edits of the compaction's look-back kernel (the GPU run is the benchmark's
business): each edit applies to the nvidia kernel of the lowering without staging and changes it as named."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import compaction_source_variants as variants  # noqa: E402  # pyright: ignore[reportMissingImports]


@pytest.fixture(scope="module")
def source() -> str:
    from soac.context import make_context
    from soac.lowering.opencl.emitter import opencl_source
    from soac.parsing import parse_module
    from soac.passes import get_all_passes
    from xdsl.passes import PassPipeline

    module = parse_module(make_context(), (ROOT / "bench" / "programs" / "compaction_iota.mlir").read_text(), "c.mlir")
    spec = "target=nvidia scan-stage=false"
    passes = f"soac-fuse,soac-recompute-forwarded,soac-vectorised-operators,soac-to-kernel{{{spec}}}"
    PassPipeline.parse_spec(get_all_passes(), passes).apply(make_context(), module)
    return opencl_source(module)


def test_each_edit_changes_the_kernel_as_named(source: str) -> None:
    assert variants.edit(source, "base") == source
    staged = variants.edit(source, "stage")
    assert "__local int stage[8192];" in staged
    assert "fresh[(long)" in staged
    assert "stage[qi" in staged
    kept = variants.edit(source, "keep")
    store = kept[kept.rindex("  if (full) {") :]
    assert "= xs[" not in store[: store.index("} else {")]  # the full tile's store step loads nothing
    assert "fresh[qi" not in variants.edit(source, "nostore").split("  if (full) {")[2].split("} else {")[0]
    assert "const bool has_prefix = false;" in variants.edit(source, "nolb")
