"""The standard pass pipelines as text (soac.lang's, soac-opt's `soac-standard`, soac-test's and soac-bench's)."""

from __future__ import annotations

DEFAULT_PIPELINE = (
    "soac-simplify,soac-vectorised-operators,soac-fuse,soac-simplify,"
    "soac-split-scan-reduce{scope=lambdas},soac-vectorised-operators,soac-hist-rows,soac-flatten{prepare=false},"
    "soac-simplify"
)
"""The standard optimising pipeline (soac.lang's, and soac-test's and soac-bench's), every step a pass of its own: the
simplifier before and after fusion and after flattening, as Futhark runs its simplifier around every major pass;
operators on rows turned into maps of scalar operators before fusion and again before flattening (fusion makes
new ones), the scanomaps in lambdas split into a scanomap and a redomap and the histograms of rows made histograms of
their elements, which the flattening rules take. `soac-coalesce` (reads through transposes) is not in it: on the
H200 it made batched 16x16 products slower (see bench/RESULTS.md).
The lowering pipeline that follows it (soac-to-kernel and its steps) is `soac.lowering.conversion.pipeline`'s."""

TILED_PIPELINE = f"{DEFAULT_PIPELINE},soac-tile{{untranspose=true}},soac-small-intra"
"""The standard pipeline for targets whose work-groups share local memory (GPUs): `DEFAULT_PIPELINE`, then block and
register tiling of the thread-level nests that reuse what they read (`soac-tile`), and the intra-group version of
nests over many small blocks, staged in local memory (`soac-small-intra`: batches of small matrix products). Both
are correct at every size; on CPUs (PoCL) they do not pay, so soac.lang runs it on GPUs only (`standard_pipeline`).
`soac-opt -p soac-standard` runs it (`soac-standard{tile=false}`: `DEFAULT_PIPELINE`)."""


COALESCE_STEP = "soac-coalesce{read-through=false}"
"""The rows a thread-level kernel over rows writes computed by a kernel of their own, one element a work-item
(`coalesce_rows.py`); its walks along rows read them through local-memory tiles shared by the work-group
(`coalesce_row_tiles.py`); transposed copies for the other kernels whose work-items walk along rows
(`coalesce_manifest.py`)."""

GPU_PIPELINE = f"{TILED_PIPELINE},{COALESCE_STEP}"
"""`TILED_PIPELINE`, then coalescing by transposed copies (after tiling, which takes the nests whose reads it shares
through local memory; the copies are made by a tiled transpose kernel). Opt-in (`pipeline=GPU_PIPELINE`,
`soac-standard{coalesce=true}`): on the H200 the copies made no version faster (softmax's outer-parallel version
4.58 ms with them, 4.30 without; matvec's 0.480 and 0.285: its rows' scratch and results are still written a row
apart; bench/RESULTS.md, session 37). Since session 40 the rows are written by a kernel of their own; since session 41
the walks along rows read them through local-memory tiles, without a copy (not yet timed on a GPU:
`bench/real/run.py --variants coalesce,rowtiles`)."""


GPU_COPIES_PIPELINE = f"{TILED_PIPELINE},soac-coalesce{{read-through=false row-tiles=false}}"
"""`GPU_PIPELINE` without row tiles (session 40's): the walks along rows read a transposed copy."""


def standard_pipeline(local_tiles: bool, coalesce: bool = False) -> str:
    """soac.lang's pipeline for a device: `TILED_PIPELINE` on GPUs whose work-groups share local memory (with the
    coalescing copies when `coalesce`: `GPU_PIPELINE`), else `DEFAULT_PIPELINE`."""
    if not local_tiles:
        return DEFAULT_PIPELINE
    return GPU_PIPELINE if coalesce else TILED_PIPELINE
