"""`soac-standard`: the standard optimising pipeline as one pass, for `soac-opt -p soac-standard` and xDSL pipelines.

    soac-opt prog.mlir -p soac-standard                # soac.passes.TILED_PIPELINE: what soac.lang runs for GPUs
    soac-opt prog.mlir -p 'soac-standard{tile=false}'  # soac.passes.DEFAULT_PIPELINE: what it runs for CPUs

Its steps are passes of their own (the simplifier, fusion, flattening, then block tiling); `soac-opt -p` with the
pipeline's text runs the same steps one by one.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass, PassPipeline


@dataclass(frozen=True)
class SoacStandardPass(ModulePass):
    """Simplify, fuse and flatten (`DEFAULT_PIPELINE`), then tile (`soac-tile`) unless `tile=false`."""

    name = "soac-standard"

    tile: bool = True
    """Block and register tiling at the end (for targets whose work-groups share local memory)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        from soac.passes import get_all_passes, standard_pipeline

        PassPipeline.parse_spec(get_all_passes(), standard_pipeline(self.tile)).apply(ctx, op)
