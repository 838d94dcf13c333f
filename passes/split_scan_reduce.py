"""`soac-split-scan-reduce`: a scanomap with a reduction part becomes a scanomap and a redomap.

Horizontal scan+reduce fusion (`soac-fuse`, FU-23) gives a `soac.scanomap`
with a reduction part, Futhark's Screma with scans and reductions. The
flattening rules know scanomaps and redomaps only, so `soac-flatten` first
splits such ops nested in lambdas into two ops over the same inputs: the
lambda is cloned into both, and each clone yields only what its op needs
(dead code is then removed). The map part is thus computed twice, once per op.
`soac-to-kernel` splits the others too, except where its look-back scan kernel
scans and reduces in one pass over the input (`fuses_scan_reduce` in
`lowering/strategies/choice.py`); this pass, run before it, forces the split.

    %s, %t, %m = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) reduce(%one : i32)
        -> (tensor<?xi32>, i32, tensor<?xi32>) combine(...) { S } reduce_combine(...) { R }
        lambda(%x: i32) { ... soac.yield %a, %b, %c : i32, i32, i32 } post(...) { P }
becomes
    %s, %m = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>)
        combine(...) { S } lambda(%x: i32) { ... soac.yield %a, %c : i32, i32 } post(...) { P }
    %t = soac.redomap %n (%xs : tensor<?xi32>) neutral(%one : i32) -> i32
        combine(...) { R } lambda(%x: i32) { ... soac.yield %b : i32 }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from soac.dialect import RedomapOp, ScanomapOp, YieldOp
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import region_dce


def _lambda_yielding(body: Region, keep: Sequence[int]) -> Region:
    """A clone of the lambda `body` that yields only its values at positions `keep`."""
    region = body.clone()
    yield_op = region.block.last_op
    assert isinstance(yield_op, YieldOp)
    values = list(yield_op.arguments)
    region.block.insert_op_before(YieldOp(*(values[i] for i in keep)), yield_op)
    region.block.erase_op(yield_op)
    region_dce(region)
    return region


def split_scan_reduce(op: ScanomapOp) -> tuple[ScanomapOp, RedomapOp]:
    """Replace `op` (which has a reduction part) by a scanomap and a redomap inserted before it."""
    assert op.reduce_combine is not None
    ks, kr = len(op.neutral), len(op.reduce_neutral)
    yield_op = op.body.block.last_op
    assert isinstance(yield_op, YieldOp)
    yielded = len(yield_op.arguments)
    scan_keep = [*range(ks), *range(ks + kr, yielded)]
    red_keep = list(range(ks, ks + kr))
    n_scanned = op.num_scanned
    outs = list(op.outs)
    scanned, reduced, mapouts = outs[:n_scanned], outs[n_scanned : n_scanned + kr], outs[n_scanned + kr :]
    scan = ScanomapOp(
        op.width,
        op.neutral,
        op.inputs,
        [r.type for r in (*scanned, *mapouts)],
        op.combine.clone(),
        _lambda_yielding(op.body, scan_keep),
        op.post.clone() if op.post.blocks else None,
    )
    red = RedomapOp(
        op.width,
        op.reduce_neutral,
        op.inputs,
        [r.type for r in reduced],
        op.reduce_combine.clone(),
        _lambda_yielding(op.body, red_keep),
        op.reduce_commutative is not None,
    )
    scan.location = red.location = op.location  # run-time errors point at the source op
    block = op.parent_block()
    assert block is not None
    block.insert_ops_before([scan, red], op)
    for old, new in zip([*scanned, *mapouts, *reduced], [*scan.results, *red.results], strict=True):
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    block.erase_op(op)
    return scan, red


def in_soac_lambda(op: Operation) -> bool:
    """Whether `op` sits inside the lambda of a SOAC (so that it runs sequentially inside a kernel)."""
    parent = op.parent_op()
    while parent is not None:
        if parent.dialect_name() == "soac":
            return True
        parent = parent.parent_op()
    return False


def split_scan_reductions(root: Operation, keep: Callable[[ScanomapOp], bool] | None = None) -> None:
    """Split every scanomap with a reduction part nested in `root`, innermost first, except those `keep` holds for."""
    for op in reversed(list(root.walk())):
        if isinstance(op, ScanomapOp) and op.has_reduction and not (keep is not None and keep(op)):
            split_scan_reduce(op)


@dataclass(frozen=True)
class SplitScanReducePass(ModulePass):
    """Split each scanomap with a reduction part into a scanomap and a redomap over the same inputs.

    `scope=lambdas` splits only those inside SOAC lambdas (the flattening rules know scanomaps and redomaps, not both
    in one op; soac.passes.DEFAULT_PIPELINE runs it so before `soac-flatten`): top-level ones stay whole for
    soac-to-kernel, whose look-back kernel may scan and reduce in one pass."""

    name = "soac-split-scan-reduce"

    scope: Literal["all", "lambdas"] = "all"
    """Which scanomaps: `all`, or only those in SOAC lambdas."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        split_scan_reductions(op, keep=(lambda s: not in_soac_lambda(s)) if self.scope == "lambdas" else None)
