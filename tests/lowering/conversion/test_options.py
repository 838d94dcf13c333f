"""soac-to-kernel's options (`LoweringOptions`): parsed from a pipeline, checked, mapped from the environment by the
runtime's entry only, spelt out in the lowering pipeline, and read by the strategies (no `os.environ` there)."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pytest
from soac.context import make_context
from soac.lowering.conversion.options import ENVIRONMENT, LoweringOptions, lowering_options, options_from_environment
from soac.lowering.conversion.pipeline import lowering_pipeline
from soac.lowering.opencl.emitter import opencl_source
from soac.parsing import parse_module
from soac.passes import DEFAULT_PIPELINE, get_all_passes
from soac.passes.pipelines import all_passes, check_pipeline
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import ParseError

ROOT = Path(__file__).resolve().parents[3]


def lowered_source(path: str, pipeline: str) -> str:
    ctx = make_context()
    module = parse_module(ctx, (ROOT / path).read_text(), path)
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(ctx, module)
    return opencl_source(module)


def test_options_parse_from_a_pipeline() -> None:
    (lowering,) = PassPipeline.parse_spec(get_all_passes(), "soac-to-kernel{hist=global scan-items=8 target=nvidia}").passes
    options = lowering.options  # pyright: ignore[reportAttributeAccessIssue]
    assert options == LoweringOptions(target="nvidia", hist="global", scan_items=8)
    assert options.option_text() == "hist=global scan-items=8 target=nvidia"
    assert options.scan_strategy == "lookback"  # the target's
    assert not options.contiguous


def test_a_bad_option_is_reported_at_its_place() -> None:
    with pytest.raises(ParseError, match="option 'hist' of pass 'soac-to-kernel' takes a value of type Literal"):
        check_pipeline("soac-fuse,soac-to-kernel{hist=shared}", all_passes())
    with pytest.raises(ValueError, match="scan-items must be a multiple of 4, got 6"):
        LoweringOptions(scan_items=6)
    with pytest.raises(ValueError, match="group-size must be a power of two, got 96"):
        LoweringOptions(group_size=96)


def test_the_environment_maps_onto_options() -> None:
    """Each variable of the table sets its option; explicit options win; a bad value names the variable."""
    assert options_from_environment({"SOAC_HIST": "copies", "SOAC_SCAN_NO_LOOKBACK": "1", "SOAC_SEG_MIN_TEAM": "2"}) == {
        "hist": "copies",
        "scan_lookback": False,
        "seg_min_team": 2,
    }
    assert options_from_environment({"SOAC_HIST": ""}) == {}
    assert lowering_options({"SOAC_HIST": "copies"}, hist="passes").hist == "passes"
    with pytest.raises(ValueError, match="SOAC_SCAN_ITEMS=many: soac-to-kernel: scan-items must be a whole number"):
        options_from_environment({"SOAC_SCAN_ITEMS": "many"})
    fields = {f.name for f in dataclasses.fields(LoweringOptions)}
    assert {name for name, _ in ENVIRONMENT.values()} <= fields


def test_options_reach_the_kernels() -> None:
    """A forced option changes the kernels it names, and the spelt-out lowering pipeline gives soac-to-kernel's."""
    default = lowered_source("examples/histogram.mlir", "soac-fuse,soac-to-kernel")
    forced = lowered_source("examples/histogram.mlir", "soac-fuse,soac-to-kernel{hist=passes}")
    assert "main_hist_local_0" in default
    assert "main_hist_passes_0" in forced
    options = LoweringOptions(target="nvidia", scan_items=32, scan_group=64)
    spelt = lowered_source("examples/map_scan.mlir", f"soac-fuse,{lowering_pipeline(options)}")
    alone = lowered_source("examples/map_scan.mlir", "soac-fuse,soac-to-kernel{target=nvidia scan-items=32 scan-group=64}")
    assert spelt == alone
    assert "tile * 2048L" in spelt  # 64 work-items x 32 elements


def test_the_default_pipeline_spells_out_the_flattening_steps() -> None:
    """soac-flatten{prepare=false} after the explicit steps flattens as soac-flatten alone does."""
    first, last = "soac-split-scan-reduce{scope=lambdas}", "soac-flatten{prepare=false}"
    start, end = DEFAULT_PIPELINE.index(first), DEFAULT_PIPELINE.index(last) + len(last)
    alone = DEFAULT_PIPELINE[:start] + "soac-flatten" + DEFAULT_PIPELINE[end:]
    assert alone != DEFAULT_PIPELINE
    for path in ("examples/locvolcalib.mlir", "examples/sum_rows.mlir"):
        ctx = make_context()
        modules = [parse_module(ctx, (ROOT / path).read_text(), path) for _ in range(2)]
        PassPipeline.parse_spec(get_all_passes(), DEFAULT_PIPELINE).apply(ctx, modules[0])
        PassPipeline.parse_spec(get_all_passes(), alone).apply(ctx, modules[1])
        assert str(modules[0]) == str(modules[1]), path


def test_no_strategy_reads_the_environment() -> None:
    for path in sorted((ROOT / "lowering" / "strategies").glob("*.py")):
        assert not re.search(r"\bos\.environ|\bgetenv\b|^import os$", path.read_text(), re.MULTILINE), path.name


def test_the_lowering_modules_import_no_cycle() -> None:
    """Lazy imports included (bench/import_graph.py): the strategies import HostLowering, not the pass."""
    sys.path.insert(0, str(ROOT / "bench"))
    import import_graph  # pyright: ignore[reportMissingImports]

    edges = import_graph.graph()
    lowering = {
        m: {t for t in targets if t.startswith("soac.lowering")} for m, targets in edges.items() if m.startswith("soac.lowering")
    }
    assert import_graph.cycles(lowering) == []
    assert "soac.lowering.conversion.soac_to_kernel" not in edges["soac.lowering.strategies.choice"]
