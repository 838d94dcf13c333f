"""`soac.hist` at the top level: every row updates its bin with one hardware atomic.

    %h = soac.hist %n (%is : tensor<?xindex>) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) { %s = arith.addi %a, %b : i32 ... } lambda(%i: index) { ... }

becomes a copy of the bins and a grid-stride kernel whose work-item `i` runs the lambda on row `i` and, when the
index is inside the bins (compared unsigned, so negative ones are out), does

    %old = kernel.atomic add %bins[%index], %value : !kernel.buffer<global, i32>, i32

The operator must be one integer op of its two parameters that OpenCL has an atomic for (`addi`, `minsi`,
`maxsi`, `minui`, `maxui`, `andi`, `ori`, `xori`) on one destination of i32 or i64, or `addf` on f32 (a
compare-and-swap loop on the bits; the sum's rounding then depends on the order of the rows). Other operators are refused
with a diagnostic; inside a lambda a histogram runs sequentially per work-item and takes any operator.

Two strategies (`SOAC_HIST=global|local` forces one; by default `local` on GPUs, `global` on CPUs):

* `global`: every row's atomic goes to the bins in global memory; fast when the bins are many (little
  contention), slow for few bins, where every work-item hits the same handful of addresses.
* `local`: each work-group keeps a subhistogram of the bins in local memory (up to `LOCAL_BINS` bins), starts it
  at the neutral element, applies its rows with local atomics, and merges its non-neutral bins into the global
  ones with one global atomic each (the subhistograms of the SC'20 paper "Compiling Generalized Histograms for
  GPU", at one subhistogram per work-group). With more bins than fit, the kernel takes the `global` path; i64
  bins always do (PoCL 3.1 aborts building some 64-bit atomics on local memory).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from soac import dialect as soac
from soac.lowering.conversion.kernel_builder import KernelBuilder, LoweringError, View, describe
from soac.lowering.conversion.sequential import Inliner, _to_index, scatter_in_bounds
from soac.lowering.conversion.soac_to_kernel import HostLowering
from soac.lowering.kernel import AtomicOp, BarrierOp, GlobalSizeOp, LocalAllocOp, LocalIdOp, LocalSizeOp
from soac.lowering.strategies.maps import fresh_copy, grid_stride
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, TensorType, f32
from xdsl.ir import SSAValue

ATOMIC_KINDS = {
    arith.AddiOp: "add",
    arith.AddfOp: "add",
    arith.MinSIOp: "min",
    arith.MaxSIOp: "max",
    arith.MinUIOp: "umin",
    arith.MaxUIOp: "umax",
    arith.AndIOp: "and",
    arith.OrIOp: "or",
    arith.XOrIOp: "xor",
}
"""The operators a histogram can apply with one `kernel.atomic`, by the arith op that computes them."""

LOCAL_BINS = 4096
"""The most bins a work-group's subhistogram holds in local memory (16 KiB of i32, 32 KiB of i64)."""
STRATEGIES = ("global", "local")


def atomic_kind(op: soac.HistOp) -> str | None:
    """The `kernel.atomic` kind that applies `op`'s operator, if it is one atomic integer op of both parameters."""
    if len(op.dests) != 1:
        return None
    dest = op.dests[0].type
    element = dest.get_element_type() if isinstance(dest, TensorType) else None
    block = op.combine.block
    ops = list(block.ops)
    if len(ops) != 2:
        return None
    first, last = ops
    if isinstance(first, arith.AddfOp) != (element == f32):
        return None
    if element != f32 and (not isinstance(element, IntegerType) or element.width.data not in (32, 64)):
        return None
    kind = ATOMIC_KINDS.get(type(first))  # pyright: ignore[reportArgumentType]
    if kind is None or set(first.operands) != set(block.args) or list(last.operands) != [first.results[0]]:
        return None
    return kind


def lower_hist(lw: HostLowering, op: soac.HistOp) -> None:
    kind = atomic_kind(op)
    if kind is None:
        raise LoweringError(
            f"{describe(op)}: a histogram outside a lambda needs an operator with an atomic (one of arith."
            f"{', arith.'.join(sorted(t.name.removeprefix('arith.') for t in ATOMIC_KINDS if t is not arith.AddfOp))} "
            "of both parameters on one destination of i32 or i64, or arith.addf on f32); compare-and-swap and locking "
            "for other operators are not implemented yet"
        )
    strategy = os.environ.get("SOAC_HIST") or ("global" if lw.contiguous else "local")
    if strategy not in STRATEGIES:
        raise LoweringError(f"SOAC_HIST must be one of {', '.join(STRATEGIES)}, got '{strategy}'")
    if strategy == "local" and _element_width(op) == 64:
        strategy = "global"  # 64-bit atomics on local memory: PoCL 3.1 aborts building `atom_and` on a local long
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    (dest,) = [fresh_copy(lw, lw.array(d), r.name_hint) for d, r in zip(op.dests, op.outs)]
    lw.env[op.outs[0]] = dest
    kb = lw.kernel(f"hist_{strategy}")
    rows = RowUpdates(kb, op, [kb.array(lw.array(x), x.name_hint) for x in op.inputs], kind)
    bins = kb.array(dest, op.outs[0].name_hint)
    if strategy == "global":
        grid_stride(lw, kb, width, "i", lambda i: rows.apply(i, bins))
        return
    subhistograms(kb, rows, bins, kb.scalar(lw.scalar(op.neutral[0])), kb.scalar(width))
    lw.add_kernel(kb, *lw.grid(width))


def _element_width(op: soac.HistOp) -> int:
    dest = op.dests[0].type
    assert isinstance(dest, TensorType)
    element = dest.get_element_type()
    return element.width.data if isinstance(element, IntegerType) else 32


class RowUpdates:
    """The update of row `i`: run the lambda, and if the index is inside the bins, apply the value atomically."""

    def __init__(self, kb: KernelBuilder, op: soac.HistOp, inputs: list[View], kind: str):
        self.kb, self.op, self.inputs, self.kind = kb, op, inputs, kind
        self.inliner = Inliner(kb)

    def apply(self, i: SSAValue, bins: View, local_if: SSAValue | None = None, local: View | None = None) -> None:
        """Update `bins` with row `i`; or `local`, the work-group's subhistogram, when `local_if` holds."""
        kb = self.kb
        index, value = self.inliner.inline(self.op.body, [kb.row(v, i) for v in self.inputs])
        assert isinstance(index, SSAValue)
        assert isinstance(value, SSAValue)
        j = _to_index(kb.b, index)

        def update(target: View) -> None:
            kb.b.insert(AtomicOp(self.kind, target.buffer, kb.m.add(target.offset, j), value))

        def either() -> None:
            if local_if is None or local is None:
                update(bins)
                return
            kb.if_then(local_if, lambda: update(local))
            kb.if_then(kb.m.insert(arith.XOrIOp(local_if, kb.m.const(1, local_if.type)), "global_bins"), lambda: update(bins))

        kb.if_then(scatter_in_bounds(kb, j, bins.dims[0]), either)


def _loop(
    kb: KernelBuilder, lower: SSAValue, upper: SSAValue, step: SSAValue, name: str, body: Callable[[SSAValue], None]
) -> None:
    """`for (name = lower; name < upper; name += step) body(name)`, carrying nothing."""

    def step_body(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        body(i)
        return []

    kb.for_loop(lower, upper, step, [], name, step_body)


def subhistograms(kb: KernelBuilder, rows: RowUpdates, bins: View, neutral: SSAValue, work: SSAValue) -> None:
    """The `local` strategy's kernel body (see the module docstring). The barriers stay outside any branch (PoCL
    corrupted its heap running barriers inside a uniform `if`): with too many bins the local loops run no steps
    and each row goes to the global bins."""
    m = kb.m
    gid, gsize = kb.global_id(), m.insert(GlobalSizeOp(0), "gsize")
    kb.thread_id = gid
    tid, lsize = m.insert(LocalIdOp(0), "tid"), m.insert(LocalSizeOp(0), "lsize")
    count = bins.dims[0]
    fits = m.lt(count, m.c(LOCAL_BINS + 1), "fits")
    local_count = m.insert(arith.SelectOp(fits, count, m.c(0)), "local_bins")
    local = View(m.insert(LocalAllocOp(LOCAL_BINS, bins.element), "sub"), m.c(0), [count], bins.element)

    def each_local_bin(body: Callable[[SSAValue], None]) -> None:
        _loop(kb, tid, local_count, lsize, "b", body)

    each_local_bin(lambda b: kb.store(neutral, local, b))
    kb.b.insert(BarrierOp(local=True))
    _loop(kb, gid, work, gsize, "i", lambda i: rows.apply(i, bins, local_if=fits, local=local))
    kb.b.insert(BarrierOp(local=True))

    def merge(b: SSAValue) -> None:
        value = kb.load(local, b, "partial")
        differs = arith.CmpfOp(value, neutral, "une") if bins.element == f32 else arith.CmpiOp(value, neutral, "ne")
        changed = m.insert(differs, "changed")
        kb.if_then(changed, lambda: kb.b.insert(AtomicOp(rows.kind, bins.buffer, m.add(bins.offset, b), value)))

    each_local_bin(merge)
