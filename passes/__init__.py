"""SOAC-to-SOAC passes: fusion, flattening and their helpers (one pass per file)."""

from collections.abc import Callable

from soac.passes.standard import DEFAULT_PIPELINE as DEFAULT_PIPELINE
from soac.passes.standard import GPU_COPIES_PIPELINE as GPU_COPIES_PIPELINE
from soac.passes.standard import GPU_PIPELINE as GPU_PIPELINE
from soac.passes.standard import TILED_PIPELINE as TILED_PIPELINE
from soac.passes.standard import standard_pipeline as standard_pipeline
from xdsl.passes import ModulePass


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

    def get_soac_small_intra() -> type[ModulePass]:
        from soac.passes.soac_small_intra import SoacSmallIntraPass

        return SoacSmallIntraPass

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
        "soac-small-intra": get_soac_small_intra,
        "soac-to-kernel": get_soac_to_kernel,
        "soac-vectorised-operators": get_soac_vectorised_operators,
    }
