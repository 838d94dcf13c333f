"""`soac.hist` at the top level: the rows update their bins concurrently, through subhistograms that the bin count
decides, with the update method the operator allows (`hist_updates.py`: hardware atomic, compare-and-swap,
packed compare-and-swap, lock).

    %h = soac.hist %n (%is : tensor<?xindex>) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) { %s = arith.addi %a, %b : i32 ... } lambda(%i: index) { ... }

becomes a copy of the bins (packed into one i64 array for `packed`; with a zeroed lock word per bin for `lock`)
and a kernel whose work-item runs the lambda on its rows and, for each row whose index lies inside the bins
(compared unsigned, so negative ones are out), applies the value, e.g.

    %old = kernel.atomic add %bins[%index], %value : !kernel.buffer<global, i32>, i32

Where the value goes is the strategy (`soac-to-kernel{hist=global|local|copies|passes}` forces one; by default `local` on
GPUs and `global` on CPUs); the kernel names say it (`main_hist_local_0`):

* `global`: straight to the bins in global memory. Fast with many bins; slow with few, where every work-item
  hits the same handful of addresses.
* `local`: each work-group keeps subhistograms in local memory (`local_slots` slots, 4096 for 32-bit bins), starts
  them at the neutral element, applies its rows to them, and at the end combines each bin across its
  subhistograms (a segmented reduction in the work-group) and applies the non-neutral ones to the global bins.
  With few bins it keeps several subhistograms (the cooperation level of the SC'20 paper: `copies` =
  min(slots / bins, `MAX_LOCAL_COPIES`), lane `t` of the group using subhistogram `t mod copies`), which cuts the
  contention on local atomics. When the bins do not fit, the same kernel takes the `copies` path below, with the
  copies the bin count allows (decided at run time, from the bin count, on the host), or, where only one copy fits
  the budget, updates the bins themselves as `global` does.
* `copies`: global-memory subhistograms: `K` = min(`COPY_BYTES` / bytes of the bins, `MAX_GLOBAL_COPIES`) copies of
  the bins in a scratch array (at least one), started at the neutral element (`hist_fill`); work-item `g` updates
  copy `g mod K`, which spreads the contention of a bin over `K` addresses; `hist_merge` then combines each bin
  across the copies into the result, one work-item per bin.
* `passes`: local subhistograms over ranges of `local_slots` bins, one range after the other in one kernel, each
  pass over all the rows (for histograms too large for local memory and small enough for a few passes).

`hist-copies=K` forces the number of global copies (benchmarks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, View
from soac.lowering.conversion.sequential import Inliner, _to_index, scatter_in_bounds
from soac.lowering.kernel import BarrierOp, GlobalSizeOp, LocalAllocOp, LocalIdOp, LocalSizeOp
from soac.lowering.kernel.memory import element_bytes
from soac.lowering.strategies.generated_inputs import Row, row_source
from soac.lowering.strategies.hist_updates import ATOMIC_KINDS, BinUpdate, atomic_kinds, choose_update
from soac.lowering.strategies.maps import consumed_target, grid_stride
from xdsl.dialects import arith
from xdsl.dialects.builtin import i32
from xdsl.ir import SSAValue

__all__ = ["ATOMIC_KINDS", "LOCAL_BINS", "STRATEGIES", "RowUpdates", "atomic_kinds", "lower_hist", "subhistograms"]

Update = Callable[[SSAValue, list[SSAValue]], None]
"""Applies a row's values to bin `j` of some histogram: `update(j, values)`."""

LOCAL_BINS = 4096
"""The most bins a work-group's subhistograms hold in local memory."""
LOCAL_BYTES = 32 * 1024
"""The local memory the subhistograms of a work-group may take (lock words included)."""
MAX_LOCAL_COPIES = 32
"""The most subhistograms a work-group keeps in local memory (one per lane of a warp)."""
COPY_BYTES = 4 * 1024 * 1024
"""The global memory the copies of the `copies` strategy may take, beyond the bins (they stay in the L2 cache)."""
MAX_GLOBAL_COPIES = 16
STRATEGIES = ("global", "local", "copies", "passes")


def local_slots(update: BinUpdate) -> int:
    """How many bins fit the local subhistograms of a work-group."""
    per_bin = sum(element_bytes(e) or 8 for e in update.storage) + (4 if update.locked else 0)
    return min(LOCAL_BINS, LOCAL_BYTES // per_bin)


def lower_hist(lw: HostLowering, op: soac.HistOp) -> None:
    update = choose_update(op, lw.options.hist_update)
    forced = lw.options.hist
    strategy = ("global" if lw.contiguous else "local") if forced == "auto" else forced
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    dests = [lw.array(d) for d in op.dests]
    count = dests[0].dims[0]
    storage = _storage(lw, update, op, dests)
    neutral = [lw.scalar(n) for n in op.neutral]
    m = lw.m
    copies: SSAValue | None = None
    if strategy in ("local", "copies"):
        copies = _global_copies(lw, update, count)
        if strategy == "local":  # no copies where the bins fit local memory, nor where one would be all
            wanted = m.both(m.lt(m.c(local_slots(update)), count), m.lt(m.c(1), copies), "wanted")
            copies = m.select(wanted, copies, m.c(0), "copies")
    scratch_size = m.mul(copies, count, "scratch_size") if copies is not None else m.c(0)
    scratch = [lw.alloc(e, [scratch_size], "copies") for e in update.storage] if copies is not None else []
    locks = lw.alloc(i32, [m.add(count, scratch_size)], "locks") if update.locked else None
    if scratch or locks:
        _fill(lw, update, scratch, neutral, scratch_size, locks)
    kernel = HistKernel(lw, op, update, storage, locks, scratch, copies)
    if strategy == "global":
        kernel.global_updates()
    elif strategy == "passes":
        kernel.passes()
    else:
        kernel.local_subhistograms(neutral, use_local=strategy == "local")
    if scratch:
        _merge_copies(lw, update, storage, scratch, copies, count)
    for result, array in zip(op.outs, _results(lw, update, storage, dests, [r.name_hint for r in op.outs])):
        lw.env[result] = array


def _global_copies(lw: HostLowering, update: BinUpdate, count: SSAValue) -> SSAValue:
    """How many copies of the bins the `copies` strategy keeps: as many as fit `COPY_BYTES`, 1 to 16."""
    m = lw.m
    if forced := lw.options.hist_copies:
        return m.c(forced)
    per_bin = sum(element_bytes(e) or 8 for e in update.storage)
    fit = m.div(m.c(COPY_BYTES // per_bin), m.max(count, m.c(1)), "fit")
    return m.max(m.min(fit, m.c(MAX_GLOBAL_COPIES)), m.c(1), "copies")


def _storage(lw: HostLowering, update: BinUpdate, op: soac.HistOp, dests: list[HostArray]) -> list[HostArray]:
    """The arrays the updates go to: the destinations (copies unless they were made for the hist alone), or the
    destinations packed into one i64 array."""
    names = [r.name_hint for r in op.outs]
    if update.method != "packed":
        return [consumed_target(lw, op, d, n) for d, n in zip(op.dests, names)]
    count = dests[0].dims[0]
    (packed,) = [lw.alloc(e, [count], "packed") for e in update.storage]
    kb = lw.kernel("hist_pack")
    sources = [kb.array(d, n) for d, n in zip(dests, names)]
    target = kb.array(packed, "packed")
    grid_stride(lw, kb, count, "b", lambda b: kb.store(update.to_storage(kb, [kb.load(s, b) for s in sources])[0], target, b))
    return [packed]


def _results(
    lw: HostLowering, update: BinUpdate, storage: list[HostArray], dests: list[HostArray], names: Sequence[str | None]
) -> list[HostArray]:
    if update.method != "packed":
        return storage
    count = dests[0].dims[0]
    outs = [lw.alloc(d.element, [count], n) for d, n in zip(dests, names)]
    kb = lw.kernel("hist_unpack")
    source = kb.array(storage[0], "packed")
    targets = [kb.array(o, n) for o, n in zip(outs, names)]

    def body(b: SSAValue) -> None:
        for value, target in zip(update.from_storage(kb, [kb.load(source, b)]), targets):
            kb.store(value, target, b)

    grid_stride(lw, kb, count, "b", body)
    return outs


def _fill(
    lw: HostLowering,
    update: BinUpdate,
    scratch: list[HostArray],
    neutral: list[SSAValue],
    size: SSAValue,
    locks: HostArray | None,
) -> None:
    """Start the global copies at the neutral element and the lock words at 0."""
    work = size if locks is None else locks.dims[0]
    kb = lw.kernel("hist_fill")
    views = [kb.array(s, "copies") for s in scratch]
    lock_view = kb.array(locks, "locks") if locks is not None else None
    ne = [kb.scalar(n, "ne") for n in neutral]
    fill_size = kb.scalar(size, "fill_size") if scratch else None

    def body(i: SSAValue) -> None:
        if lock_view is not None:
            kb.store(kb.m.const(0, i32), lock_view, i)
        if fill_size is not None:
            kb.when(
                kb.m.lt(i, fill_size) if lock_view is not None else None,
                lambda: _store_all(kb, update.to_storage(kb, ne), views, i),
            )

    grid_stride(lw, kb, work, "i", body)


def _store_all(kb: KernelBuilder, values: Sequence[SSAValue], views: Sequence[View], index: SSAValue) -> None:
    for value, view in zip(values, views):
        kb.store(value, view, index)


def _merge_copies(
    lw: HostLowering,
    update: BinUpdate,
    storage: list[HostArray],
    scratch: list[HostArray],
    copies: SSAValue | None,
    count: SSAValue,
) -> None:
    """`hist_merge`: each bin combined across the global copies into the result (nothing to do without copies)."""
    assert copies is not None
    m = lw.m
    work = m.select(m.lt(m.c(0), copies), count, m.c(0), "merged_bins")
    kb = lw.kernel("hist_merge")
    bins = [kb.array(s) for s in storage]
    views = [kb.array(s, "copies") for s in scratch]
    k_copies, k_count = kb.scalar(copies, "num_copies"), kb.scalar(count, "bins")

    def body(b: SSAValue) -> None:
        start = update.from_storage(kb, [kb.load(v, b) for v in bins])

        def step(k: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
            slot = kb.m.add(kb.m.mul(k, k_count), b)
            return update.combine(kb, acc, update.from_storage(kb, [kb.load(v, slot, "part") for v in views]))

        total = kb.for_loop(kb.m.c(0), k_copies, kb.m.c(1), start, "k", step)
        _store_all(kb, update.to_storage(kb, total), bins, b)

    grid_stride(lw, kb, work, "b", body)


class RowUpdates:
    """The update of row `i`: run the lambda and, if the index is inside the bins, hand the index and values on."""

    def __init__(self, kb: KernelBuilder, op: soac.HistOp, inputs: list[View | Row], update: BinUpdate):
        self.kb, self.op, self.inputs, self.update = kb, op, inputs, update
        self.inliner = Inliner(kb)

    def apply(self, i: SSAValue, count: SSAValue, target: Update) -> None:
        """Run row `i`; `target(j, values)` applies its values to bin `j` if `j < count` (unsigned)."""
        kb = self.kb
        rows = [v(i) if callable(v) else kb.row(v, i) for v in self.inputs]
        index, *values = self.inliner.inline(self.op.body, rows)
        assert isinstance(index, SSAValue)
        assert all(isinstance(v, SSAValue) for v in values)
        j = _to_index(kb.b, index)
        kb.if_then(scatter_in_bounds(kb, j, count), lambda: target(j, values))  # pyright: ignore[reportArgumentType]


class HistKernel:
    """The histogram kernel of one strategy: the views it updates and the code of each strategy."""

    def __init__(
        self,
        lw: HostLowering,
        op: soac.HistOp,
        update: BinUpdate,
        storage: list[HostArray],
        locks: HostArray | None,
        scratch: list[HostArray],
        copies: SSAValue | None,
    ):
        self.lw, self.op, self.update = lw, op, update
        self.width = lw.scalar(op.width)
        self.storage, self.locks, self.scratch, self.copies = storage, locks, scratch, copies

    def _begin(self, strategy: str) -> tuple[KernelBuilder, RowUpdates, list[View], View | None]:
        lw = self.lw
        kb = lw.kernel(f"hist_{strategy}")
        inputs = [row_source(lw, kb, x) or kb.array(lw.array(x), x.name_hint) for x in self.op.inputs]
        rows = RowUpdates(kb, self.op, inputs, self.update)
        names = ["bins"] if self.update.method == "packed" else [r.name_hint for r in self.op.outs]
        bins = [kb.array(s, n) for s, n in zip(self.storage, names)]
        locks = kb.array(self.locks, "locks") if self.locks is not None else None
        return kb, rows, bins, locks

    def _to_bins(self, kb: KernelBuilder, bins: list[View], locks: View | None) -> Update:
        return lambda j, values: self.update.apply(kb, bins, j, values, locks)

    def _to_copies(self, kb: KernelBuilder, gid: SSAValue, count: SSAValue, locks: View | None) -> Update:
        """Updates of work-item `gid`'s global copy (`gid mod copies`)."""
        assert self.copies is not None
        m = kb.m
        views = [kb.array(s, "copies") for s in self.scratch]
        copies = kb.scalar(self.copies, "num_copies")
        offset = m.mul(m.rem(gid, m.max(copies, m.c(1))), count, "copy")
        targets = [View(v.buffer, offset, [count], v.element) for v in views]
        copy_locks = View(locks.buffer, m.add(count, offset), [count], i32) if locks is not None else None
        return lambda j, values: self.update.apply(kb, targets, j, values, copy_locks)

    def global_updates(self) -> None:
        kb, rows, bins, locks = self._begin("global")
        grid_stride(self.lw, kb, self.width, "i", lambda i: rows.apply(i, bins[0].dims[0], self._to_bins(kb, bins, locks)))

    def local_subhistograms(self, neutral: list[SSAValue], use_local: bool) -> None:
        """`local` (subhistograms in local memory when the bins fit, else the global copies) or `copies`."""
        lw = self.lw
        kb, rows, bins, locks = self._begin("local" if use_local else "copies")
        count = bins[0].dims[0]
        work = kb.scalar(self.width)
        if not use_local:
            gid = kb.global_id()
            to_copies = self._to_copies(kb, gid, count, locks)
            grid_stride(lw, kb, self.width, "i", lambda i: rows.apply(i, count, to_copies))
            return
        ne = [kb.scalar(n, "ne") for n in neutral]
        subhistograms(kb, rows, bins, locks, ne, work, lambda gid: self._beyond_local(kb, gid, bins, locks))
        lw.add_kernel(kb, *lw.grid(self.width))

    def _beyond_local(self, kb: KernelBuilder, gid: SSAValue, bins: list[View], locks: View | None) -> Update:
        """Where `local` sends the rows when the bins do not fit: the global copies, or the bins without them."""
        assert self.copies is not None
        m = kb.m
        to_copies = self._to_copies(kb, gid, bins[0].dims[0], locks)
        to_bins = self._to_bins(kb, bins, locks)
        has_copies = m.lt(m.c(0), kb.scalar(self.copies, "num_copies"), "has_copies")
        no_copies = m.insert(arith.XOrIOp(has_copies, m.const(1, has_copies.type)), "no_copies")

        def update(j: SSAValue, values: list[SSAValue]) -> None:
            kb.if_then(has_copies, lambda: to_copies(j, values))
            kb.if_then(no_copies, lambda: to_bins(j, values))

        return update

    def passes(self) -> None:
        lw = self.lw
        kb, rows, bins, locks = self._begin("passes")
        ne = [kb.scalar(lw.scalar(n), "ne") for n in self.op.neutral]
        passes_over_ranges(kb, rows, bins, locks, ne, kb.scalar(self.width))
        lw.add_kernel(kb, *lw.grid(self.width))


def _loop(
    kb: KernelBuilder, lower: SSAValue, upper: SSAValue, step: SSAValue, name: str, body: Callable[[SSAValue], None]
) -> None:
    """`for (name = lower; name < upper; name += step) body(name)`, carrying nothing."""

    def step_body(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        body(i)
        return []

    kb.for_loop(lower, upper, step, [], name, step_body)


class LocalBins:
    """A work-group's subhistograms in local memory: `copies` interleaved copies of `count` bins (bin `b` of copy `k`
    at slot `b * copies + k`, so that the lanes of a warp updating one bin touch neighbouring banks). Made at the
    top of the kernel (local arrays are static); `count` may change between passes."""

    def __init__(self, kb: KernelBuilder, update: BinUpdate, count: SSAValue, copies: SSAValue):
        slots = local_slots(update)
        self.kb, self.update, self.count, self.copies = kb, update, count, copies
        self.arrays = [kb.m.insert(LocalAllocOp(slots, e), "sub") for e in update.storage]
        self.lock_words = kb.m.insert(LocalAllocOp(slots, i32), "sub_locks") if update.locked else None

    def views(self, offset: SSAValue) -> tuple[list[View], View | None]:
        views = [View(a, offset, [self.count], e) for a, e in zip(self.arrays, self.update.storage)]
        locks = View(self.lock_words, offset, [self.count], i32) if self.lock_words is not None else None
        return views, locks

    def clear(self, tid: SSAValue, lsize: SSAValue, neutral: list[SSAValue]) -> None:
        kb, m = self.kb, self.kb.m
        views, locks = self.views(m.c(0))
        stored = self.update.to_storage(kb, neutral)

        def body(s: SSAValue) -> None:
            _store_all(kb, stored, views, s)
            if locks is not None:
                kb.store(m.const(0, i32), locks, s)

        _loop(kb, tid, m.mul(self.count, self.copies), lsize, "s", body)

    def update_from(self, lane: SSAValue, lower: SSAValue) -> Update:
        """Updates of bin `j` (global numbering, from `lower` on) in copy `lane`."""
        kb, m = self.kb, self.kb.m

        def apply(j: SSAValue, values: list[SSAValue]) -> None:
            views, locks = self.views(m.c(0))
            slot = m.add(m.mul(m.sub(j, lower), self.copies), lane, "slot")
            self.update.apply(kb, views, slot, values, locks)

        return apply

    def merge(
        self,
        tid: SSAValue,
        lsize: SSAValue,
        neutral: list[SSAValue],
        into: Update,
        lower: SSAValue,
    ) -> None:
        """Combine each bin across the copies (a segmented reduction) and send the non-neutral ones `into` bin
        `lower + b`."""
        kb, m = self.kb, self.kb.m
        views, _ = self.views(m.c(0))
        update = self.update

        def load(slot: SSAValue) -> list[SSAValue]:
            return update.from_storage(kb, [kb.load(v, slot, "partial") for v in views])

        def body(b: SSAValue) -> None:
            first = m.mul(b, self.copies)

            def step(k: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                return update.combine(kb, acc, load(m.add(first, k)))

            total = kb.for_loop(m.c(1), self.copies, m.c(1), load(first), "k", step)
            kb.if_then(update.differs(kb, total, neutral), lambda: into(m.add(lower, b), total))

        _loop(kb, tid, self.count, lsize, "b", body)


def _group_ids(kb: KernelBuilder) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
    m = kb.m
    gid, gsize = kb.global_id(), m.insert(GlobalSizeOp(0), "gsize")
    kb.thread_id = gid
    return gid, gsize, m.insert(LocalIdOp(0), "tid"), m.insert(LocalSizeOp(0), "lsize")


def subhistograms(
    kb: KernelBuilder,
    rows: RowUpdates,
    bins: list[View],
    locks: View | None,
    neutral: list[SSAValue],
    work: SSAValue,
    beyond: Callable[[SSAValue], Update],
) -> None:
    """The `local` strategy's kernel body (see the module docstring). The barriers stay outside any branch (PoCL
    corrupted its heap running barriers inside a uniform `if`): with too many bins the local loops run no steps
    and each row goes where `beyond(gid)` sends it."""
    m = kb.m
    update = rows.update
    slots = local_slots(update)
    gid, gsize, tid, lsize = _group_ids(kb)
    count = bins[0].dims[0]
    fits = m.lt(count, m.c(slots + 1), "fits")
    local_count = m.insert(arith.SelectOp(fits, count, m.c(0)), "local_bins")
    copies = m.max(m.min(m.div(m.c(slots), m.max(local_count, m.c(1))), m.min(lsize, m.c(MAX_LOCAL_COPIES))), m.c(1), "coop")
    local = LocalBins(kb, update, local_count, copies)
    local.clear(tid, lsize, neutral)
    kb.b.insert(BarrierOp(local=True))
    to_local = local.update_from(m.rem(tid, copies, "lane"), m.c(0))
    to_global = beyond(gid)

    def either(j: SSAValue, values: list[SSAValue]) -> None:
        kb.if_then(fits, lambda: to_local(j, values))
        kb.if_then(m.insert(arith.XOrIOp(fits, m.const(1, fits.type)), "global_bins"), lambda: to_global(j, values))

    _loop(kb, gid, work, gsize, "i", lambda i: rows.apply(i, count, either))
    kb.b.insert(BarrierOp(local=True))
    local.merge(tid, lsize, neutral, lambda b, values: update.apply(kb, bins, b, values, locks), m.c(0))


def passes_over_ranges(
    kb: KernelBuilder, rows: RowUpdates, bins: list[View], locks: View | None, neutral: list[SSAValue], work: SSAValue
) -> None:
    """The `passes` strategy's kernel body: for each range of `local_slots` bins, the local strategy restricted to
    the rows whose bins lie in it."""
    m = kb.m
    update = rows.update
    slots = m.c(local_slots(update))
    gid, gsize, tid, lsize = _group_ids(kb)
    count = bins[0].dims[0]

    local = LocalBins(kb, update, count, m.c(1))

    def one_pass(lower: SSAValue) -> None:
        size = m.min(slots, m.sub(count, lower), "range")
        local.count = size
        local.clear(tid, lsize, neutral)
        kb.b.insert(BarrierOp(local=True))
        to_local = local.update_from(m.c(0), lower)

        def in_range(j: SSAValue, values: list[SSAValue]) -> None:
            kb.if_then(m.lt(m.sub(j, lower), size, "in_range"), lambda: to_local(j, values))

        _loop(kb, gid, work, gsize, "i", lambda i: rows.apply(i, count, in_range))
        kb.b.insert(BarrierOp(local=True))
        local.merge(tid, lsize, neutral, lambda b, values: update.apply(kb, bins, b, values, locks), lower)
        kb.b.insert(BarrierOp(local=True))

    _loop(kb, m.c(0), count, slots, "lower", one_pass)
