"""`soac-recompute-forwarded`: a scanomap's post lambda recomputes the values its lambda forwards.

The lambda of a `soac.scanomap` may forward per-element values to the post lambda (its last yields, the post
lambda's parameters after the input rows). The kernels of `soac-to-kernel` apply the post lambda to the scanned
values and the input rows only, so this pass, which `soac-to-kernel` runs first, gives the post lambda a copy of
the lambda (on the same input rows) and keeps of it only what the forwarded values need; the lambda no longer
yields them. Nothing is stored: the forwarded values are computed twice per element.

    %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(...) { ... }
        lambda(%x: i32) { %y = F(%x); %f = G(%x); soac.yield %y, %f : i32, i32 }
        post(%s: i32, %x: i32, %f: i32) { P(%s, %f) }
becomes
    %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(...) { ... }
        lambda(%x: i32) { %y = F(%x); soac.yield %y : i32 }
        post(%s: i32, %x: i32) { %f = G(%x); P(%s, %f) }
"""

from __future__ import annotations

from dataclasses import dataclass

from soac.dialect import ScanomapOp, YieldOp
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.transforms.dead_code_elimination import region_dce


def _without_last_yields(body: Region, count: int) -> Region:
    """A clone of the lambda `body` that does not yield its last `count` values."""
    region = body.clone()
    yield_op = region.block.last_op
    assert isinstance(yield_op, YieldOp)
    values = list(yield_op.arguments)
    region.block.insert_op_before(YieldOp(*values[: len(values) - count]), yield_op)
    region.block.erase_op(yield_op)
    region_dce(region)
    return region


def _post_recomputing(op: ScanomapOp) -> Region:
    """A clone of the post lambda that computes its forwarded parameters from its input rows, and lacks them."""
    f, k = op.num_forwarded, len(op.neutral)
    post = op.post.clone()
    block = post.block
    rows = block.args[k : k + len(op.inputs)]
    pre = op.body.clone().block
    for arg, row in zip(pre.args, rows, strict=True):
        arg.replace_all_uses_with(row)
    pre_yield = pre.last_op
    assert isinstance(pre_yield, YieldOp)
    forwarded = list(pre_yield.arguments)[-f:]
    first = block.first_op
    for inner in list(pre.ops)[:-1]:
        inner.detach()
        if first is None:
            block.add_op(inner)
        else:
            block.insert_op_before(inner, first)
    for param, value in zip(block.args[k + len(op.inputs) :], forwarded, strict=True):
        param.replace_all_uses_with(value)
    for param in list(block.args[k + len(op.inputs) :]):
        block.erase_arg(param)
    region_dce(post)
    return post


def recompute_forwarded(op: ScanomapOp) -> ScanomapOp:
    """Replace `op`, whose lambda forwards values to its post lambda, by one whose post lambda recomputes them."""
    assert op.num_forwarded > 0
    new = ScanomapOp(
        op.width,
        op.neutral,
        op.inputs,
        op.outs.types,
        op.combine.clone(),
        _without_last_yields(op.body, op.num_forwarded),
        _post_recomputing(op),
        reduce_neutral=op.reduce_neutral,
        reduce_combine=op.reduce_combine.clone() if op.reduce_combine is not None else None,
        reduce_commutative=op.reduce_commutative is not None,
    )
    new.location = op.location
    new.attributes.update(op.attributes)
    for old, result in zip(op.outs, new.outs, strict=True):
        result.name_hint = old.name_hint
    Rewriter.replace_op(op, new)
    return new


def recompute_all_forwarded(root: Operation) -> None:
    """Make every scanomap nested in `root` (innermost first) recompute the values its lambda forwards."""
    for op in reversed(list(root.walk())):
        if isinstance(op, ScanomapOp) and op.num_forwarded > 0:
            recompute_forwarded(op)


@dataclass(frozen=True)
class RecomputeForwardedPass(ModulePass):
    """Make each scanomap's post lambda recompute the values its lambda forwards to it."""

    name = "soac-recompute-forwarded"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        recompute_all_forwarded(op)
