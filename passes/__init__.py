"""SOAC-to-SOAC passes: fusion, flattening and their helpers (one pass per file)."""

from collections.abc import Callable

from xdsl.passes import ModulePass

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

TILED_PIPELINE = f"{DEFAULT_PIPELINE},soac-tile"
"""The standard pipeline for targets whose work-groups share local memory (GPUs): `DEFAULT_PIPELINE`, then block and
register tiling of the thread-level nests that reuse what they read (`soac-tile`). Tiling is correct at every size;
on CPUs (PoCL) it does not pay, so soac.lang leaves it out there (`standard_pipeline`).
`soac-opt -p soac-standard` runs it (`soac-standard{tile=false}`: `DEFAULT_PIPELINE`)."""


def standard_pipeline(local_tiles: bool) -> str:
    """soac.lang's pipeline for a device: `TILED_PIPELINE` on GPUs whose work-groups share local memory, else
    `DEFAULT_PIPELINE`."""
    return TILED_PIPELINE if local_tiles else DEFAULT_PIPELINE


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:  # noqa: C901 (one lazy getter per pass)
    """The passes this package defines, by pipeline name, imported lazily."""

    def get_soac_fuse() -> type[ModulePass]:
        from soac.passes.soac_fuse import SoacFusePass

        return SoacFusePass

    def get_soac_flatten() -> type[ModulePass]:
        from soac.passes.soac_flatten import SoacFlattenPass

        return SoacFlattenPass

    def get_soac_tile() -> type[ModulePass]:
        from soac.passes.soac_tile import SoacTilePass

        return SoacTilePass

    def get_soac_to_kernel() -> type[ModulePass]:
        from soac.lowering.conversion.soac_to_kernel import SoacToKernelPass

        return SoacToKernelPass

    def get_soac_split_scan_reduce() -> type[ModulePass]:
        from soac.passes.split_scan_reduce import SplitScanReducePass

        return SplitScanReducePass

    def get_soac_recompute_forwarded() -> type[ModulePass]:
        from soac.passes.recompute_forwarded import RecomputeForwardedPass

        return RecomputeForwardedPass

    def get_soac_split_unfused_scan_reduce() -> type[ModulePass]:
        from soac.lowering.conversion.pipeline import SplitUnfusedScanReducePass

        return SplitUnfusedScanReducePass

    def get_soac_signless() -> type[ModulePass]:
        from soac.signless import SoacSignless

        return SoacSignless

    def get_soac_coalesce() -> type[ModulePass]:
        from soac.passes.soac_coalesce import SoacCoalescePass

        return SoacCoalescePass

    def get_soac_simplify() -> type[ModulePass]:
        from soac.passes.soac_simplify import SoacSimplifyPass

        return SoacSimplifyPass

    def get_soac_vectorised_operators() -> type[ModulePass]:
        from soac.passes.vectorised_operators import VectorisedOperatorsPass

        return VectorisedOperatorsPass

    def get_soac_standard() -> type[ModulePass]:
        from soac.passes.soac_standard import SoacStandardPass

        return SoacStandardPass

    def get_soac_hist_rows() -> type[ModulePass]:
        from soac.passes.hist_rows import HistRowsPass

        return HistRowsPass

    return {
        "soac-fuse": get_soac_fuse,
        "soac-hist-rows": get_soac_hist_rows,
        "soac-flatten": get_soac_flatten,
        "soac-recompute-forwarded": get_soac_recompute_forwarded,
        "soac-signless": get_soac_signless,
        "soac-simplify": get_soac_simplify,
        "soac-coalesce": get_soac_coalesce,
        "soac-split-scan-reduce": get_soac_split_scan_reduce,
        "soac-split-unfused-scan-reduce": get_soac_split_unfused_scan_reduce,
        "soac-standard": get_soac_standard,
        "soac-tile": get_soac_tile,
        "soac-to-kernel": get_soac_to_kernel,
        "soac-vectorised-operators": get_soac_vectorised_operators,
    }
