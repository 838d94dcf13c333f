"""The lowering pipeline: the steps from optimised soac IR to the kernel dialect, spelt out as passes.

    soac-recompute-forwarded,
    soac-split-unfused-scan-reduce{OPTIONS},
    soac-vectorised-operators,
    soac-hist-rows,
    soac-to-kernel{OPTIONS prepare=false}

`OPTIONS` are the `LoweringOptions` (`conversion/options.py`), the same for both passes that take them. The runtime
and `soac.lang` lower through `apply_lowering_pipeline`; `lowering_pipeline` gives the text for `soac-opt -p`.
`soac-to-kernel` alone (`prepare=true`, its default) runs the first four steps itself.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from soac.lowering.conversion.options import LoweringOptions
from soac.lowering.conversion.soac_to_kernel import SoacToKernelPass, split_unfused_scan_reduce
from soac.passes.hist_rows import HistRowsPass
from soac.passes.recompute_forwarded import RecomputeForwardedPass
from soac.passes.vectorised_operators import VectorisedOperatorsPass
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline


@dataclass(frozen=True)
class SplitUnfusedScanReducePass(LoweringOptions, ModulePass):
    """Split each scanomap with a reduction part into a scanomap and a redomap (as `soac-split-scan-reduce`), except
    the top-level ones that soac-to-kernel's look-back kernel scans and reduces in one pass (`scan-reduce=fused`
    under the `lookback` scan, values that fit its status words: `strategies/choice.py`'s `fuses_scan_reduce`).
    It takes soac-to-kernel's options, which decide that."""

    name = "soac-split-unfused-scan-reduce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        split_unfused_scan_reduce(op, self)


def _options_of(options: LoweringOptions) -> dict[str, object]:
    return {f.name: getattr(options, f.name) for f in fields(LoweringOptions)}


def lowering_passes(options: LoweringOptions) -> tuple[ModulePass, ...]:
    """The steps of the lowering pipeline for `options`."""
    return (
        RecomputeForwardedPass(),
        SplitUnfusedScanReducePass(**_options_of(options)),
        VectorisedOperatorsPass(),
        HistRowsPass(),
        SoacToKernelPass(**_options_of(options), prepare=False),
    )


def lowering_pipeline(options: LoweringOptions | None = None) -> str:
    """The lowering pipeline as `soac-opt -p` text (its options where they differ from the defaults)."""
    return ",".join(str(p.spec()) for p in lowering_passes(options or LoweringOptions()))


def apply_lowering_pipeline(ctx: Context, module: ModuleOp, options: LoweringOptions) -> None:
    """Lower `module` in place with the lowering pipeline."""
    PassPipeline(lowering_passes(options)).apply(ctx, module)
