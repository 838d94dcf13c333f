"""`soac-standard`: the standard optimising pipeline as one pass, for `soac-opt -p soac-standard` and xDSL pipelines.

    soac-opt prog.mlir -p soac-standard                   # soac.passes.TILED_PIPELINE: what soac.lang runs for GPUs
    soac-opt prog.mlir -p 'soac-standard{coalesce=true}'  # soac.passes.GPU_PIPELINE: row kernels coalesced
    soac-opt prog.mlir -p 'soac-standard{tile=false}'     # soac.passes.DEFAULT_PIPELINE: what it runs for CPUs

Its steps are passes of their own (the simplifier, fusion, flattening, then block tiling and the coalescing of
row-walking kernels: their rows written by a kernel of their own, their walks through local-memory row tiles,
transposed copies for the rest); `soac-opt -p` with the pipeline's text runs the same steps one by one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from soac.passes.standard import COALESCE_STEP, DEFAULT_PIPELINE, TILED_PIPELINE
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass, PassPipeline


@dataclass(frozen=True)
class SoacStandardPass(ModulePass):
    """Simplify, fuse and flatten (`DEFAULT_PIPELINE`), then tile (`soac-tile`, `soac-small-intra`) unless `tile=false`,
    then, if `coalesce=true`, coalesce row-walking kernels (`soac-coalesce{read-through=false}`: the rows rule, row
    tiles, transposed copies)."""

    name = "soac-standard"

    tile: bool = True
    """Block and register tiling at the end (for targets whose work-groups share local memory)."""
    coalesce: bool = False
    """Coalescing of kernels whose work-items walk along rows, after tiling (opt-in: see `GPU_PIPELINE`)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        base = TILED_PIPELINE if self.tile else DEFAULT_PIPELINE
        pipeline = f"{base},{COALESCE_STEP}" if self.coalesce else base
        PassPipeline.parse_spec(_steps(), pipeline).apply(ctx, op)


def _steps() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes of the standard pipelines, by name (imported here, not through `soac.passes`' registry, which
    registers this pass)."""
    from soac.passes.hist_rows import HistRowsPass
    from soac.passes.soac_coalesce import SoacCoalescePass
    from soac.passes.soac_flatten import SoacFlattenPass
    from soac.passes.soac_fuse import SoacFusePass
    from soac.passes.soac_simplify import SoacSimplifyPass
    from soac.passes.soac_small_intra import SoacSmallIntraPass
    from soac.passes.soac_tile import SoacTilePass
    from soac.passes.split_scan_reduce import SplitScanReducePass
    from soac.passes.vectorised_operators import VectorisedOperatorsPass

    passes: list[type[ModulePass]] = [
        HistRowsPass,
        SoacCoalescePass,
        SoacFlattenPass,
        SoacFusePass,
        SoacSimplifyPass,
        SoacSmallIntraPass,
        SoacTilePass,
        SplitScanReducePass,
        VectorisedOperatorsPass,
    ]
    return {p.name: (lambda p=p: p) for p in passes}
