"""`soac.seghist`: a histogram per segment (what flattening `map (hist ...)` makes).

    %h = soac.seghist thread (%n, %m) into(%bins : tensor<?x?xi32>) neutral(%z : i32) -> tensor<?x?xi32>
        combine(%a: i32, %b: i32) { %s = arith.addi %a, %b : i32 ... } lambda(%i: index, %j: index) { ... }

The destinations are copied, then one of two kernels updates the copies (`soac-to-kernel{seghist=segment}` forces the second
for every seghist; `atomic`, the default, takes the first wherever the operator allows):

* `seghist_atomic` (when every destination's part of the operator is one op with a hardware atomic, as
  `hist_updates.ATOMIC_KINDS` lists: integer add, min, max, and, or, xor on i32/i64, add on f32): a grid-stride loop
  over all points of the index space; point `(i.., j)` runs the lambda and, when its bin is inside the rows,
  applies each value to bin `(i.., bin)` of its destination with one global atomic, as

      %old = kernel.atomic add %bins[%segment * %num_bins + %bin], %value : !kernel.buffer<global, i32>, i32

  Segments and rows all run in parallel, however few the segments.
* `seghist_segment` (any operator): a work-item per segment (grid-stride over the segments) runs its rows in
  order and combines each value into its bins with plain loads and stores; no two work-items share a bin.
"""

from __future__ import annotations

from collections.abc import Sequence

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, View
from soac.lowering.conversion.sequential import Inliner, _to_index, scatter_in_bounds  # pyright: ignore[reportPrivateUsage]
from soac.lowering.kernel import AtomicOp, GlobalSizeOp
from soac.lowering.strategies.hist_updates import atomic_kinds
from soac.lowering.strategies.maps import consumed_target, grid_stride
from xdsl.ir import SSAValue

STRATEGIES = ("atomic", "segment")


def _apply_atomically(kb: KernelBuilder, views: Sequence[View], kinds: Sequence[str], flat: SSAValue, values: Sequence) -> None:
    for view, kind, value in zip(views, kinds, values, strict=True):
        kb.b.insert(AtomicOp(kind, view.buffer, kb.m.add(view.offset, flat), value))


def _copies(lw: HostLowering, op: soac.SeghistOp | soac.HistOp) -> list[HostArray]:
    """The destinations (copies unless they were made for the op alone: it consumes them), bound to its results."""
    dests = [consumed_target(lw, op, d, r.name_hint) for d, r in zip(op.dests, op.outs, strict=True)]
    for result, dest in zip(op.outs, dests, strict=True):
        lw.env[result] = dest
    return dests


def _check_destinations(lw: HostLowering, op: soac.SeghistOp, dims: Sequence[SSAValue], dests: Sequence[HostArray]) -> None:
    """The interpreter's check that each destination has a row per segment, of as many bins as destination #0."""
    want = [*dims[:-1], dests[0].dims[-1]]
    rank = len(want)
    shape = ", ".join(f"{{{i}}}" for i in range(rank))
    segments = ", ".join(f"{{{rank + i}}}" for i in range(rank - 1))
    for k, dest in enumerate(dests):
        ok: SSAValue | None = None
        for have, size in zip(dest.dims, want, strict=True):
            if have is not size:
                ok = lw.m.both(ok, lw.m.eq(have, size), "same_shape")
        if ok is not None:
            problem = f"destination #{k} has shape [{shape}], expected [{segments}] segments of {{{2 * rank - 1}}} bins"
            lw.check(ok, op, problem, [*dest.dims, *want])


def lower_seghist(lw: HostLowering, op: soac.SeghistOp) -> None:
    dims = [lw.scalar(d) for d in op.dims]
    dests = _copies(lw, op)
    _check_destinations(lw, op, dims, dests)
    kinds = atomic_kinds(op.combine, [d.element for d in dests])
    if lw.options.seghist == "atomic" and kinds is not None:
        _atomic_points(lw, op, dims, dests, kinds)
    else:
        _per_segment(lw, op, dims, dests)


def _kernel(
    lw: HostLowering, name: str, op: soac.SeghistOp, dims: list[SSAValue], dests: list[HostArray]
) -> tuple[KernelBuilder, Inliner, list[View], list[SSAValue], list[str | None]]:
    """A new kernel with its inliner, the destinations' views, the index space's sizes and the lambda's index names."""
    kb = lw.kernel(name)
    views = [kb.array(d, r.name_hint) for d, r in zip(dests, op.outs, strict=True)]
    return kb, Inliner(kb), views, [kb.scalar(d) for d in dims], [a.name_hint for a in op.body.block.args]


def _atomic_points(lw: HostLowering, op: soac.SeghistOp, dims: list[SSAValue], dests: list[HostArray], kinds: list[str]) -> None:
    kb, inliner, views, kdims, names = _kernel(lw, "seghist_atomic", op, dims, dests)
    num_bins = views[0].dims[-1]

    def point(p: SSAValue) -> None:
        indices = kb.m.unflatten(p, kdims, names)
        index, *values = inliner.inline_scalars(op.body, indices)
        j = _to_index(kb.b, index)
        segment = kb.m.row_major(indices[:-1], kdims[:-1])
        kb.if_then(
            scatter_in_bounds(kb, j, num_bins),
            lambda: _apply_atomically(kb, views, kinds, kb.m.add(kb.m.mul(segment, num_bins), j, "bin"), values),
        )

    grid_stride(lw, kb, lw.m.product(dims, "points"), "p", point)


def _per_segment(lw: HostLowering, op: soac.SeghistOp, dims: list[SSAValue], dests: list[HostArray]) -> None:
    kb, inliner, views, kdims, names = _kernel(lw, "seghist_segment", op, dims, dests)
    num_bins = views[0].dims[-1]
    segments = lw.m.product(dims[:-1], "segments")
    gid = kb.global_id()
    kb.thread_id = gid
    gsize = kb.m.insert(GlobalSizeOp(0), "gsize")

    def segment(s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        prefix = kb.m.unflatten(s, kdims[:-1], names[:-1]) if len(kdims) > 1 else []
        base = kb.m.mul(s, num_bins, "first_bin")

        def row(j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            index, *values = inliner.inline_scalars(op.body, [*prefix, j])
            b = _to_index(kb.b, index)

            def update() -> None:
                flat = kb.m.add(base, b, "bin")
                current = [kb.load(view, flat) for view in views]
                for view, new in zip(views, inliner.inline_scalars(op.combine, [*current, *values]), strict=True):
                    kb.store(new, view, flat)

            kb.if_then(scatter_in_bounds(kb, b, num_bins), update)
            return []

        kb.for_loop(kb.m.c(0), kdims[-1], kb.m.c(1), [], "j", row)
        return []

    kb.for_loop(gid, kb.scalar(segments), gsize, [], "s", segment)
    global_size, local_size = lw.grid(lw.m.max(segments, lw.m.c(1)))
    lw.add_kernel(kb, global_size, local_size)
