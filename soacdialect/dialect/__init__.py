"""The `soac` dialect: Futhark's second-order array combinators over builtin tensors.

Every SOAC takes its width `%n : index` explicitly, several arrays in, several
arrays out ("tuples of arrays"), and lambdas as single-block regions ending in
`soac.yield`:

    %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.mulf %x, %x : f32
      soac.yield %y : f32
    }
    %s = soac.reduce commutative %n (%ys : tensor<?xf32>) neutral(%zero : f32) -> f32
        combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }

The ops live in one module per family (as xDSL's `dialects/linalg/` and `dialects/riscv/`), and every name is
re-exported here, so `from soac.dialect import MapOp` is the way to import them:

| module | holds |
|---|---|
| `attributes.py` | `Level` (`#soac<level thread>`), `OnDevice` |
| `base.py` | `soac.yield`, the `Canonicalization` trait |
| `canonicalization.py` | the patterns `canonicalize` applies to the ops (named by their `Canonicalization` trait) |
| `lambdas.py` | the checks of lambdas every verifier shares |
| `consumption.py` | the uniqueness rules of ops that consume an array (`check_consumed`, `aliases`) |
| `screma.py` | `map`, `reduce`, `scan`, `redomap`, `scanomap` |
| `scatter.py` | `scatter` |
| `partition.py` | `partition` |
| `histograms.py` | `hist`, `seghist` and their base `HistogramOp` |
| `segmented.py` | `segmap`, `segred`, `segscan` |
| `stencil.py` | `stencil` and its tile limits |
| `tiled.py` | `tiled_redomap` and `TileSizes` |
| `array_ops.py` | `iota`, `replicate`, `transpose`, `reshape`, `reverse`, `rotate`, `index`, `slice`, `update` |
| `control.py` | `threshold`, `assert` |
| `sizes.py` | `ResultDimsInterface`: where the dimensions of each op's results come from |
"""

from soac.dialect import canonicalization  # registers the patterns that the ops' Canonicalization traits name
from soac.dialect.array_ops import (
    STAGED,
    STAGED_CAPACITY,
    IndexOp,
    IotaOp,
    ReplicateOp,
    ReshapeOp,
    ReverseOp,
    RotateOp,
    SliceOp,
    TransposeOp,
    UpdateOp,
)
from soac.dialect.attributes import Level, LevelAttr, OnDevice, StencilBoundary, StencilBoundaryAttr
from soac.dialect.base import Canonicalization, YieldOp, runs_lambdas
from soac.dialect.consumption import aliases, check_consumed, defined_inside, later_in_block
from soac.dialect.control import AssertOp, ThresholdOp, parse_on_device, print_on_device, verify_on_device
from soac.dialect.histograms import HistogramOp, HistOp, SeghistOp
from soac.dialect.partition import PARTITION_MAX_BUCKETS, PartitionOp
from soac.dialect.scatter import ScatterOp
from soac.dialect.screma import MapOp, RedomapOp, ReduceOp, ScanomapOp, ScanOp
from soac.dialect.segmented import SegmapOp, SegredOp, SegscanOp
from soac.dialect.sizes import DimOf, Extent, ResultDimsInterface
from soac.dialect.stencil import (
    STENCIL_BOUNDARIES,
    STENCIL_DEFAULT_TILES,
    STENCIL_LISTED_PARAMETERS,
    STENCIL_MAX_GROUP,
    STENCIL_MAX_RANK,
    STENCIL_MAX_ROWS,
    StencilOp,
    stencil_offsets,
    stencil_rows,
    stencil_tile_problem,
)
from soac.dialect.tiled import REDUCED, STAGED_ROWS, TiledRedomapOp, TileSizes
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation

SOAC_WITH_LAMBDAS: tuple[type[IRDLOperation], ...] = (
    MapOp,
    ReduceOp,
    ScanOp,
    RedomapOp,
    ScanomapOp,
    ScatterOp,
    HistOp,
    PartitionOp,
    SegmapOp,
    SegredOp,
    SegscanOp,
    SeghistOp,
    TiledRedomapOp,
    StencilOp,
)
"""The SOACs whose regions are lambdas ending in `soac.yield` (`runs_lambdas` says it of an op)."""

Soac = Dialect(
    "soac",
    [
        *SOAC_WITH_LAMBDAS,
        IotaOp,
        ReplicateOp,
        TransposeOp,
        ReshapeOp,
        ReverseOp,
        RotateOp,
        IndexOp,
        SliceOp,
        UpdateOp,
        ThresholdOp,
        AssertOp,
        YieldOp,
    ],
    [LevelAttr, StencilBoundaryAttr],
)

__all__ = [
    "PARTITION_MAX_BUCKETS",
    "REDUCED",
    "SOAC_WITH_LAMBDAS",
    "STAGED",
    "STAGED_CAPACITY",
    "STAGED_ROWS",
    "STENCIL_BOUNDARIES",
    "STENCIL_DEFAULT_TILES",
    "STENCIL_LISTED_PARAMETERS",
    "STENCIL_MAX_GROUP",
    "STENCIL_MAX_RANK",
    "STENCIL_MAX_ROWS",
    "AssertOp",
    "Canonicalization",
    "DimOf",
    "Extent",
    "HistOp",
    "HistogramOp",
    "IndexOp",
    "IotaOp",
    "Level",
    "LevelAttr",
    "MapOp",
    "OnDevice",
    "PartitionOp",
    "RedomapOp",
    "ReduceOp",
    "ReplicateOp",
    "ReshapeOp",
    "ResultDimsInterface",
    "ReverseOp",
    "RotateOp",
    "ScanOp",
    "ScanomapOp",
    "ScatterOp",
    "SeghistOp",
    "SegmapOp",
    "SegredOp",
    "SegscanOp",
    "SliceOp",
    "Soac",
    "StencilBoundary",
    "StencilBoundaryAttr",
    "StencilOp",
    "ThresholdOp",
    "TileSizes",
    "TiledRedomapOp",
    "TransposeOp",
    "UpdateOp",
    "YieldOp",
    "aliases",
    "canonicalization",
    "check_consumed",
    "defined_inside",
    "later_in_block",
    "parse_on_device",
    "print_on_device",
    "runs_lambdas",
    "stencil_offsets",
    "stencil_rows",
    "stencil_tile_problem",
    "verify_on_device",
]
