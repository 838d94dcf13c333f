"""`soac.hist` at the top level: every row updates its bin with one hardware atomic.

    %h = soac.hist %n (%is : tensor<?xindex>) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) { %s = arith.addi %a, %b : i32 ... } lambda(%i: index) { ... }

becomes a copy of the bins and a grid-stride kernel whose work-item `i` runs the lambda on row `i` and, when the
index is inside the bins (compared unsigned, so negative ones are out), does

    %old = kernel.atomic add %bins[%index], %value : !kernel.buffer<global, i32>, i32

The operator must be one integer op of its two parameters that OpenCL has an atomic for (`addi`, `minsi`,
`maxsi`, `minui`, `maxui`, `andi`, `ori`, `xori`) on one destination of i32 or i64. Other operators are refused
with a diagnostic; inside a lambda a histogram runs sequentially per work-item and takes any operator.
"""

from __future__ import annotations

from soac import dialect as soac
from soac.lowering.conversion.kernel_builder import LoweringError, describe
from soac.lowering.conversion.sequential import Inliner, _to_index, scatter_in_bounds
from soac.lowering.conversion.soac_to_kernel import HostLowering
from soac.lowering.kernel import AtomicOp
from soac.lowering.strategies.maps import fresh_copy, grid_stride
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import SSAValue

ATOMIC_KINDS = {
    arith.AddiOp: "add",
    arith.MinSIOp: "min",
    arith.MaxSIOp: "max",
    arith.MinUIOp: "umin",
    arith.MaxUIOp: "umax",
    arith.AndIOp: "and",
    arith.OrIOp: "or",
    arith.XOrIOp: "xor",
}
"""The operators a histogram can apply with one `kernel.atomic`, by the arith op that computes them."""


def atomic_kind(op: soac.HistOp) -> str | None:
    """The `kernel.atomic` kind that applies `op`'s operator, if it is one atomic integer op of both parameters."""
    if len(op.dests) != 1:
        return None
    dest = op.dests[0].type
    element = dest.get_element_type() if isinstance(dest, TensorType) else None
    if not isinstance(element, IntegerType) or element.width.data not in (32, 64):
        return None
    block = op.combine.block
    ops = list(block.ops)
    if len(ops) != 2:
        return None
    first, last = ops
    kind = ATOMIC_KINDS.get(type(first))  # pyright: ignore[reportArgumentType]
    if kind is None or set(first.operands) != set(block.args) or list(last.operands) != [first.results[0]]:
        return None
    return kind


def lower_hist(lw: HostLowering, op: soac.HistOp) -> None:
    kind = atomic_kind(op)
    if kind is None:
        raise LoweringError(
            f"{describe(op)}: a histogram outside a lambda needs an operator with a hardware atomic (one of arith."
            f"{', arith.'.join(sorted(t.name.removeprefix('arith.') for t in ATOMIC_KINDS))} of both parameters, on "
            "one destination of i32 or i64); compare-and-swap and local-memory histograms for other operators are "
            "not implemented yet"
        )
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    (dest,) = [fresh_copy(lw, lw.array(d), r.name_hint) for d, r in zip(op.dests, op.outs)]
    lw.env[op.outs[0]] = dest
    kb = lw.kernel("hist")
    inliner = Inliner(kb)
    views = [kb.array(lw.array(x), x.name_hint) for x in op.inputs]
    bins = kb.array(dest, op.outs[0].name_hint)

    def body(i: SSAValue) -> None:
        index, value = inliner.inline(op.body, [kb.row(v, i) for v in views])
        assert isinstance(index, SSAValue)
        assert isinstance(value, SSAValue)
        j = _to_index(kb.b, index)

        def update() -> None:
            kb.b.insert(AtomicOp(kind, bins.buffer, kb.m.add(bins.offset, j), value))

        kb.if_then(scatter_in_bounds(kb, j, bins.dims[0]), update)

    grid_stride(lw, kb, width, "i", body)
