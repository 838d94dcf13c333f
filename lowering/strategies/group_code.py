"""Work-group building blocks that the reduction, scan and segmented strategies share.

`GroupCode` sets up one kernel for work-group cooperation: it reads the ids

    %local = kernel.local_alloc 256 : !kernel.buffer<local, i32>    // one local array per combined value
    %tid = kernel.local_id 0
    %group = kernel.group_id 0
    %num_groups = kernel.num_groups 0
    %gid = kernel.global_id 0

and builds on them: `chunk` (the contiguous range a work-item folds) and `fold`, `tree_reduce` (an
order-preserving tree over the group's values in local memory: at stride 1, 2, 4, ... work-item `t`
combines with `t + stride` when `t` is a multiple of twice the stride), `team_tree` (the same within teams
of adjacent work-items) and `inclusive_scan_locals` (Hillis-Steele).

Next to it, helpers used by several strategies: the neutral values in a kernel, writing rows, allocating
one array per combined value, `tree_to` (a tree whose first work-item writes the group's value), the
commutativity check `is_commutative`, `fold_streams` (a strided fold with several accumulators in flight),
`pow2_at_most` and `vectorizable` (can a view move in 16-byte vectors).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from soac.lowering.conversion import device_intrinsics as ix
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, IndexMath, KernelBuilder, KValue, View, building_at
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.kernel import BarrierOp, GroupIdOp, LoadOp, LocalAllocOp, LocalIdOp, NumGroupsOp, StoreOp
from xdsl.dialects import arith
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.rewriter import InsertPoint

ElementFn = Callable[[SSAValue], list[KValue]]
"""The values of element `i`: the map lambda's results (combined values first, then map-outs)."""

EachFn = Callable[[SSAValue, list[KValue], list[SSAValue]], None]
"""Called at every step of a fold with the index, the element's values and the new accumulators."""


class GroupCode:
    """Work-group level building blocks for one kernel: ids, local arrays, trees and scans."""

    def __init__(self, lw: HostLowering, kb: KernelBuilder, inliner: Inliner, combine: Region, types: Sequence[Attribute]):
        self.lw, self.kb, self.inliner, self.combine = lw, kb, inliner, combine
        self.group_size = lw.group_size
        m = kb.m
        self.t = m.insert(LocalIdOp(0), "tid")
        self.g = m.insert(GroupIdOp(0), "group")
        self.num_groups = m.insert(NumGroupsOp(0), "num_groups")
        self.gid = kb.global_id()
        kb.thread_id = self.gid
        self.G = m.c(self.group_size, "group_size")
        with building_at(kb.b, InsertPoint.at_start(kb.block)):
            self.locals = [m.insert(LocalAllocOp(self.group_size, t), f"local_{k}") for k, t in enumerate(types)]

    def apply(self, a: Sequence[SSAValue], b: Sequence[SSAValue]) -> list[SSAValue]:
        return self.inliner.inline_scalars(self.combine, [*a, *b])

    def barrier(self) -> None:
        self.kb.b.insert(BarrierOp(local=True))

    def load_locals(self, index: SSAValue) -> list[SSAValue]:
        m = self.kb.m
        return [m.insert(LoadOp(local, index)) for local in self.locals]

    def store_locals(self, values: Sequence[SSAValue], index: SSAValue) -> None:
        for value, local in zip(values, self.locals):
            self.kb.b.insert(StoreOp(value, local, index))

    def log_steps(self) -> SSAValue:
        return self.kb.m.c(self.group_size.bit_length() - 1, "log_group_size")

    def stride(self, e: SSAValue) -> SSAValue:
        return self.kb.m.insert(arith.ShLIOp(self.kb.m.c(1), e), "stride")

    def tree_reduce(self, values: Sequence[SSAValue]) -> None:
        """Leave the ordered combination of every work-item's `values` in `locals[0]`."""
        kb, m = self.kb, self.kb.m
        self.store_locals(values, self.t)
        self.barrier()

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            s = self.stride(e)
            active = m.eq(m.rem(self.t, m.add(s, s)), m.c(0), "active")

            def combine() -> None:
                partner = m.add(self.t, s)
                self.store_locals(self.apply(self.load_locals(self.t), self.load_locals(partner)), self.t)

            kb.if_then(active, combine)
            self.barrier()
            return []

        kb.for_loop(m.c(0), self.log_steps(), m.c(1), [], "e", step)

    def team_tree(self, values: Sequence[SSAValue], member: SSAValue, log_team: SSAValue) -> list[SSAValue]:
        """The combination of `values` over each team of 2^log_team adjacent work-items, at the team's first member
        (`member` = index in the team); every work-item must reach it."""
        return self._tree_from(values, member, self.kb.m.c(0), log_team)

    def warp_team_tree(self, values: Sequence[SSAValue], member: SSAValue, log_team: SSAValue) -> list[SSAValue]:
        """`team_tree` for an operator that commutes, on a target with warps (`shuffles_values`): each aligned run of
        up to a warp's members combines by butterfly shuffles (no local memory, no barrier); a team wider than a warp
        then combines its warps' totals in local memory. The totals are at the team's first member (and, in a team
        of at most a warp, at every member)."""
        kb, m = self.kb, self.kb.m
        types = [v.type for v in values]
        log_warp = m.c(ix.log_warp(kb), "log_warp")
        in_warp = m.min(log_team, log_warp, "log_in_warp")

        def shuffle_step(e: SSAValue, current: list[SSAValue]) -> list[SSAValue]:
            distance = m.insert(arith.ShLIOp(m.c(1), e), "distance")
            return self.apply(current, [ix.shuffle(kb, "xor", v, distance) for v in current])

        totals = kb.for_loop(m.c(0), in_warp, m.c(1), list(values), "e", shuffle_step)
        wider = m.insert(arith.CmpiOp(log_team, log_warp, "ugt"), "wider_than_warp")
        return kb.if_values(wider, types, lambda: self._tree_from(totals, member, in_warp, log_team), lambda: totals)

    def _tree_from(self, values: Sequence[SSAValue], member: SSAValue, first: SSAValue, log_team: SSAValue) -> list[SSAValue]:
        """Steps `first` to `log_team` of `team_tree` (runs of 2^first members already combined)."""
        kb, m = self.kb, self.kb.m
        self.store_locals(values, self.t)
        self.barrier()

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            stride = self.stride(e)
            combines = m.eq(m.insert(arith.AndIOp(member, m.sub(m.add(stride, stride), m.c(1)))), m.c(0), "combines")
            kb.if_then(
                combines,
                lambda: self.store_locals(self.apply(self.load_locals(self.t), self.load_locals(m.add(self.t, stride))), self.t),
            )
            self.barrier()
            return []

        kb.for_loop(first, log_team, m.c(1), [], "e", step)
        return self.load_locals(self.t)

    def inclusive_scan_locals(self) -> None:
        """Hillis-Steele inclusive scan of `locals[0..group)`."""
        kb, m = self.kb, self.kb.m
        types = [local.type.element_type for local in self.locals]  # pyright: ignore[reportAttributeAccessIssue]

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            s = self.stride(e)
            has_partner = m.insert(arith.CmpiOp(self.t, s, "uge"), "has_partner")
            own = self.load_locals(self.t)
            combined = self.kb.if_values(
                has_partner, types, lambda: self.apply(self.load_locals(m.sub(self.t, s)), own), lambda: own
            )
            self.barrier()
            self.store_locals(combined, self.t)
            self.barrier()
            return []

        kb.for_loop(m.c(0), self.log_steps(), m.c(1), [], "e", step)

    def chunk(self, n: SSAValue, start: SSAValue, groups: SSAValue, group: SSAValue) -> tuple[SSAValue, SSAValue]:
        """The contiguous range `[lo, hi)` of `[start, start + n)` that this work-item of group `group` folds."""
        m = self.kb.m
        per_group = m.ceildiv(n, groups, "per_group")
        per_thread = m.ceildiv(per_group, self.G, "per_thread")
        group_start = m.mul(group, per_group)
        lo = m.add(group_start, m.mul(self.t, per_thread), "lo")
        hi = m.min(m.min(m.add(lo, per_thread), m.add(group_start, per_group)), n, "hi")
        return m.add(start, lo), m.add(start, hi)

    def fold(
        self,
        lo: SSAValue,
        hi: SSAValue,
        step: SSAValue,
        neutral: Sequence[SSAValue],
        k: int,
        element: ElementFn,
        each: EachFn | None = None,
    ) -> list[SSAValue]:
        """Fold elements `lo, lo+step, ... < hi` into `neutral`; `each(i, values, acc)` sees every step."""

        def body(i: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
            values = element(i)
            new = self.apply(accs, values[:k])  # pyright: ignore[reportArgumentType]
            if each is not None:
                each(i, values, new)
            return new

        return self.kb.for_loop(lo, hi, step, list(neutral), "i", body)


def neutral_values(kb: KernelBuilder, lw: HostLowering, neutral: Sequence[SSAValue]) -> list[SSAValue]:
    return [kb.scalar(lw.scalar(v), v.name_hint or "ne") for v in neutral]


def write_values(kb: KernelBuilder, values: Sequence[KValue], views: Sequence[View], index: SSAValue) -> None:
    for value, view in zip(values, views):
        kb.write_row(value, view, index)


def alloc_like(lw: HostLowering, values: Sequence[SSAValue], count: SSAValue, suffix: str) -> list[HostArray]:
    return [lw.alloc(v.type, [count], f"{v.name_hint or 'acc'}_{suffix}") for v in values]


def tree_to(code: GroupCode, accs: Sequence[SSAValue], outs: Sequence[View], index: SSAValue) -> None:
    """Combine the work-items' `accs` and let work-item 0 write the group's value at `outs[index]`."""
    kb = code.kb
    code.tree_reduce(accs)
    first = kb.m.eq(code.t, kb.m.c(0), "first")

    def write() -> None:
        for value, out in zip(code.load_locals(kb.m.c(0)), outs):
            kb.store(value, out, index)

    kb.if_then(first, write)


def vectorizable(view: View) -> bool:
    """A whole 1-D array of 32-bit elements: tiles of it can move in 16-byte vectors."""
    return len(view.dims) == 1 and str(view.element) in ("i32", "f32") and IndexMath.constant_of(view.offset) == 0


_COMMUTATIVE = (
    arith.AddiOp,
    arith.MuliOp,
    arith.AndIOp,
    arith.OrIOp,
    arith.XOrIOp,
    arith.MaxSIOp,
    arith.MinSIOp,
    arith.MaxUIOp,
    arith.MinUIOp,
    arith.AddfOp,
    arith.MulfOp,
    arith.MaximumfOp,
    arith.MinimumfOp,
    arith.MaxnumfOp,
    arith.MinnumfOp,
)


def is_commutative(combine: Region) -> bool:
    """A single-value operator whose body is one commutative arith op on its two parameters."""
    block = combine.block
    ops = list(block.ops)
    if len(block.args) != 2 or len(ops) != 2 or not isinstance(ops[0], _COMMUTATIVE):
        return False
    return set(ops[0].operands) == set(block.args) and list(ops[1].operands) == [ops[0].results[0]]


def componentwise_commutative(combine: Region) -> bool:
    """An operator over k values whose result j is one commutative arith op on parameters j and k + j (what
    horizontal fusion makes of several commutative reductions), yielded in order."""
    block = combine.block
    args = list(block.args)
    k = len(args) // 2
    ops = list(block.ops)
    if not k or len(args) != 2 * k or len(ops) != k + 1:
        return False
    computed = ops[:-1]
    for j, op in enumerate(computed):
        if not isinstance(op, _COMMUTATIVE) or set(op.operands) != {args[j], args[k + j]}:
            return False
    return list(ops[-1].operands) == [op.results[0] for op in computed]


def shuffles_values(lw: HostLowering, types: Sequence[Attribute]) -> bool:
    """Whether warp shuffles can exchange values of these types on `lw`'s target (at most 32 bits each)."""
    return lw.warps and all(ix.fits_shuffle(t) for t in types)


def commutes(combine: Region) -> bool:
    """Whether the operator provably commutes: one commutative arith op on its two parameters, or one per value of a
    tuple (`componentwise_commutative`). Its operands may then be combined in any order, so work-items can read
    neighbouring elements (coalesced) instead of contiguous chunks."""
    return is_commutative(combine) or componentwise_commutative(combine)


SEG_STREAMS = 8
"""Independent loads in flight per work-item in the strided (commutative) fold of a segmented reduction."""


def streams_of(code: GroupCode) -> int:
    """`SEG_STREAMS`, or the `seg-streams` option."""
    return code.lw.options.seg_streams or SEG_STREAMS


def rounds_end(code: GroupCode, lo: SSAValue, hi: SSAValue, step: SSAValue, streams: int) -> SSAValue:
    """Where the main loop of a strided fold over `lo, lo + step, ... < hi` ends (its rounds take `streams` elements
    at once): after every whole round of the work-item's elements (`ceil((hi - lo) / step)` of them), or, without
    `seg-uniform-rounds`, after the rounds that fit `hi - lo` (one fewer for a work-item that starts after its
    team's first element, as a team's members do: the rest of its elements in the guarded tail)."""
    km = code.kb.m
    count = km.insert(arith.SelectOp(km.lt(lo, hi), km.sub(hi, lo), km.c(0)))
    wide = km.mul(step, km.c(streams), "wide_step")
    if not code.lw.options.seg_uniform_rounds:
        return km.add(lo, km.mul(km.div(count, wide), wide), "main_end")
    rounds = km.div(km.ceildiv(count, step, "own"), km.c(streams), "rounds")
    return km.add(lo, km.mul(rounds, wide), "main_end")


def fold_streams(
    code: GroupCode,
    lo: SSAValue,
    hi: SSAValue,
    step: SSAValue,
    neutral: list[SSAValue],
    k: int,
    element: ElementFn,
    each: EachFn,
) -> list[SSAValue]:
    """`code.fold` for a commutative operator, `SEG_STREAMS` (`seg-streams`) elements per iteration into separate
    accumulators; the rest (fewer than a round's) through `code.fold`."""
    km = code.kb.m
    streams = streams_of(code)
    wide = km.mul(step, km.c(streams), "wide_step")
    main_end = rounds_end(code, lo, hi, step, streams)

    def body(i: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
        new: list[SSAValue] = []
        for q in range(streams):
            index = km.add(i, km.mul(step, km.c(q)))
            values = element(index)
            each(index, values, [])
            new.extend(code.apply(accs[q * k : (q + 1) * k], values[:k]))  # pyright: ignore[reportArgumentType]
        return new

    carried = code.kb.for_loop(lo, main_end, wide, list(neutral) * streams, "i", body)
    accs = carried[:k]
    for q in range(1, streams):
        accs = code.apply(accs, carried[q * k : (q + 1) * k])
    return code.fold(main_end, hi, step, accs, k, element, each)


def pow2_at_most(m: IndexMath, value: SSAValue, low: int, high: int) -> tuple[SSAValue, SSAValue]:
    """The largest power of two in `[low, high]` that is at most `value` (`low` if none), and its log2."""
    size, log = m.c(low), m.c(low.bit_length() - 1)
    p = low * 2
    while p <= high:
        fits = m.insert(arith.CmpiOp(value, m.c(p), "uge"))
        size = m.insert(arith.SelectOp(fits, m.c(p), size))
        log = m.insert(arith.SelectOp(fits, m.c(p.bit_length() - 1), log))
        p *= 2
    return size, log
