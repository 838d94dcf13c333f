"""`soac-standard`: the standard optimising pipeline as one pass, for `soac-opt -p soac-standard` and xDSL pipelines.

    soac-opt prog.mlir -p soac-standard                # soac.passes.TILED_PIPELINE: what soac.lang runs for GPUs
    soac-opt prog.mlir -p 'soac-standard{tile=false}'  # soac.passes.DEFAULT_PIPELINE: what it runs for CPUs

Its steps are passes of their own (the simplifier, fusion, flattening, then block tiling); `soac-opt -p` with the
pipeline's text runs the same steps one by one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from soac.passes.standard import standard_pipeline
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass, PassPipeline


@dataclass(frozen=True)
class SoacStandardPass(ModulePass):
    """Simplify, fuse and flatten (`DEFAULT_PIPELINE`), then tile (`soac-tile`, `soac-small-intra`) unless `tile=false`."""

    name = "soac-standard"

    tile: bool = True
    """Block and register tiling at the end (for targets whose work-groups share local memory)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PassPipeline.parse_spec(_steps(), standard_pipeline(self.tile)).apply(ctx, op)


def _steps() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes of the standard pipelines, by name (imported here, not through `soac.passes`' registry, which
    registers this pass)."""
    from soac.passes.hist_rows import HistRowsPass
    from soac.passes.soac_flatten import SoacFlattenPass
    from soac.passes.soac_fuse import SoacFusePass
    from soac.passes.soac_simplify import SoacSimplifyPass
    from soac.passes.soac_small_intra import SoacSmallIntraPass
    from soac.passes.soac_tile import SoacTilePass
    from soac.passes.split_scan_reduce import SplitScanReducePass
    from soac.passes.vectorised_operators import VectorisedOperatorsPass

    passes: list[type[ModulePass]] = [
        HistRowsPass,
        SoacFlattenPass,
        SoacFusePass,
        SoacSimplifyPass,
        SoacSmallIntraPass,
        SoacTilePass,
        SplitScanReducePass,
        VectorisedOperatorsPass,
    ]
    return {p.name: (lambda p=p: p) for p in passes}
