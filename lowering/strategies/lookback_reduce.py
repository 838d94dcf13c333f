"""The reduction part of a scanomap inside its look-back scan kernel (`lookback_scan.py`).

A scanomap with a reduction part (what horizontal scan+reduce fusion makes, Futhark's Screma with scans and
reductions) runs as one look-back kernel on targets whose scan strategy is `lookback`: the reduced values need
no look-back, so they never touch the status words. In every tile

1. each work-item folds the reduced values of its items in registers, in item order, beside the scan;
2. after the look-back (off its critical path: the other warps do it while warp 0 looks back), the work-group
   combines the work-items' values in work-item order (`GroupCombine`): on NVIDIA a warp shuffle tree, lane 0 of
   each warp writing to local memory before the barrier that follows the look-back, and work-item 0 folding the
   warps after it; elsewhere an order-preserving tree in local memory;
3. work-item 0 writes the tile's value to `partials[tile]`, fences global memory at device scope and takes a
   ticket of its block's counter; tiles come in blocks of `fan_in` (the group size) consecutive tiles;
4. the tile that takes its block's last ticket combines the block's partials (one per work-item) into
   `block_partials[block]`, fences, and takes a ticket of the counter of all blocks;
5. the tile that takes that counter's last ticket combines the block partials (a contiguous run per
   work-item) and writes `result[0]`, which the host reads.

The two levels keep the last tile's work to a few loads per work-item (2^28 elements in tiles of 8192 make 32768
tiles: 256 blocks of 128, two block partials per work-item), where one level would leave a work-group 256 loads
per work-item. Partials are combined in tile order, so the operator need not be commutative (a non-commutative
one makes the scan take contiguous tiles: a work-item's items then adjoin). The barriers stay outside branches
(PoCL corrupts its heap with barriers in a uniform `if`, see `histogram.py`): tiles that are not last run the
combining steps on neutral elements. Partials are read with volatile loads after a device-scope fence
(`kernel.atomic_load relaxed`, 32 or 64 bits: i1, i8 and i16 values travel as i32), so that no cache holds an
older copy. A scan of no elements runs no tile: the host then gives the neutral elements.

    %partials = kernel.alloc %tiles : !kernel.buffer<global, i32>       // one of each per value of the reduction
    %block_partials = kernel.alloc %blocks : !kernel.buffer<global, i32>
    %reduce_tickets = kernel.alloc %blocks_and_one : !kernel.buffer<global, i32>   // zeroed by scan_init
    %reduced = kernel.alloc %c1 : !kernel.buffer<global, i32>
    kernel.launch @main_scan_init_0(...)
    kernel.launch @main_scan_lookback_0(...)
    %no_elements = arith.cmpi eq, %n, %c0 : index
    %read = kernel.read %reduced[%c0] : !kernel.buffer<global, i32> -> i32
    %total = arith.select %no_elements, %zero, %read : i32
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from soac.lowering.conversion import device_intrinsics as ix
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, View, building_at
from soac.lowering.kernel import AtomicLoadOp, AtomicOp, BarrierOp, FenceOp, LoadOp, LocalAllocOp, ReadOp, StoreOp
from soac.lowering.kernel.memory import element_bytes
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.rewriter import InsertPoint

Values = list[SSAValue]
Combine = Callable[[Values, Values], Values]

REDUCED_TYPES = ("i1", "i8", "i16", "i32", "i64", "f32", "f64", "index")
"""Types a reduction part carried by the look-back kernel may have (scalars a partial can hold)."""


def fan_in(group: int, forced: int = 0) -> int:
    """Tiles per block: the group size, or soac-to-kernel's `scan-reduce-fan-in` where not 0 (at most the group size).
    Tests set fewer, so that a small input makes more blocks than work-items and the last block folds several block
    partials per work-item."""
    return min(forced, group) if forced > 0 else group


def supports(types: Sequence[Attribute]) -> bool:
    return bool(types) and all(str(t) in REDUCED_TYPES for t in types)


@dataclass
class TileReduction:
    """The reduction part of a look-back scan: its value types, neutral elements (in the kernel and on the host),
    operator, and whether the operator is commutative (which lets a tile's work-items hold striped items)."""

    types: list[Attribute]
    neutral: Callable[[], Values]
    host_neutral: list[SSAValue]
    combine: Combine
    commutative: bool

    def fold(self, items: Sequence[Values]) -> Values:
        """The items' values combined in order."""
        acc = list(items[0])
        for item in items[1:]:
            acc = self.combine(acc, list(item))
        return acc


def _stored(t: Attribute) -> Attribute:
    """The element type of a partial holding a `t`: `t` itself for 32- and 64-bit values, else i32."""
    return t if element_bytes(t) in (4, 8) else i32


@dataclass
class ReductionArrays:
    """The host arrays of a reduction part: per-tile and per-block partials, the tickets, the results."""

    partials: list[HostArray]
    block_partials: list[HostArray]
    tickets: HostArray
    """One i32 counter per block of tiles, then the counter of finished blocks."""
    results: list[HostArray]
    blocks: SSAValue
    fan_in: int
    """Tiles per block (`fan_in`)."""

    @staticmethod
    def allocate(lw: HostLowering, types: Sequence[Attribute], tiles: SSAValue, fan_in: int) -> ReductionArrays:
        m = lw.m
        blocks = m.max(m.ceildiv(tiles, m.c(fan_in)), m.c(1), "blocks")
        slots = m.max(tiles, m.c(1))
        return ReductionArrays(
            [lw.alloc(_stored(t), [slots], f"partials_{j}") for j, t in enumerate(types)],
            [lw.alloc(_stored(t), [blocks], f"block_partials_{j}") for j, t in enumerate(types)],
            lw.alloc(i32, [m.add(blocks, m.c(1))], "reduce_tickets"),
            [lw.alloc(t, [m.c(1)], f"reduced_{j}") for j, t in enumerate(types)],
            blocks,
            fan_in,
        )

    def zero_tickets(self, kb: KernelBuilder, i: SSAValue) -> None:
        """Init-kernel code for element `i` of the tiles: zero ticket counter `i` (and the last one at `i = 0`)."""
        tickets = kb.array(self.tickets)
        blocks = kb.scalar(self.blocks)
        zero = kb.m.const(0, i32)
        kb.if_then(kb.m.lt(i, blocks), lambda: kb.store(zero, tickets, i))
        kb.if_then(kb.m.eq(i, kb.m.c(0)), lambda: kb.store(zero, tickets, blocks))

    def host_results(self, lw: HostLowering, n: SSAValue, neutral: Sequence[SSAValue]) -> list[SSAValue]:
        """The reduced values the host reads; the neutral elements when there are no elements (no tile ran)."""
        m = lw.m
        empty = m.eq(n, m.c(0), "no_elements")
        reads = [m.insert(ReadOp(r.buffer, m.c(0)), f"reduced_{j}") for j, r in enumerate(self.results)]
        return [m.insert(arith.SelectOp(empty, ne, read)) for ne, read in zip(neutral, reads)]


def _local(kb: KernelBuilder, size: int, t: Attribute, name: str) -> SSAValue:
    with building_at(kb.b, InsertPoint.at_start(kb.block)):
        return kb.m.insert(LocalAllocOp(size, t), name)


def _barrier(kb: KernelBuilder) -> None:
    kb.b.insert(BarrierOp(local=True))


class GroupCombine:
    """Combining one value set per work-item over the work-group in work-item order: `start` runs in every work-item
    (no branch around it); after a barrier, `total()` in work-item 0 gives the combination."""

    def __init__(self, kb: KernelBuilder, red: TileReduction, t: SSAValue, group: int, warps: bool, name: str):
        self.kb, self.red, self.t, self.group = kb, red, t, group
        self.shuffles = warps and all(ix.fits_32(ty) for ty in red.types)
        size = group // kb.warp if self.shuffles else group
        self.locals = [_local(kb, size, ty, f"{name}_{j}") for j, ty in enumerate(red.types)]

    def start(self, values: Values) -> None:
        kb, m = self.kb, self.kb.m
        if not self.shuffles:
            self._tree(values)
            return
        lane = m.insert(arith.AndIOp(self.t, m.c(kb.warp - 1)), "lane")
        warp = m.insert(arith.ShRUIOp(self.t, m.c(ix.log_warp(kb))), "warp")
        step = 1
        while step < kb.warp:  # lane l ends with lanes l ... l + 2 step - 1 combined, in order
            other = [ix.shuffle(kb, "down", v, m.c(step)) for v in values]
            inside = m.lt(m.add(lane, m.c(step)), m.c(kb.warp))
            combined = self.red.combine(values, other)
            values = [m.insert(arith.SelectOp(inside, c, v)) for c, v in zip(combined, values)]
            step *= 2
        kb.if_then(m.eq(lane, m.c(0)), lambda: self._store(values, warp))

    def total(self) -> Values:
        m = self.kb.m
        if not self.shuffles:
            return self._load(m.c(0))
        return self.red.fold([self._load(m.c(w)) for w in range(self.group // self.kb.warp)])

    def _tree(self, values: Values) -> None:
        """At stride 1, 2, 4, ... work-item `t` combines with `t + stride` when `t` is a multiple of twice the stride."""
        kb, m = self.kb, self.kb.m
        self._store(values, self.t)
        _barrier(kb)
        stride = 1
        while stride < self.group:
            active = m.eq(m.insert(arith.AndIOp(self.t, m.c(2 * stride - 1))), m.c(0))
            s = m.c(stride)
            kb.if_then(
                active, lambda s=s: self._store(self.red.combine(self._load(self.t), self._load(m.add(self.t, s))), self.t)
            )
            _barrier(kb)
            stride *= 2

    def _store(self, values: Values, index: SSAValue) -> None:
        for value, local in zip(values, self.locals):
            self.kb.b.insert(StoreOp(value, local, index))

    def _load(self, index: SSAValue) -> Values:
        return [self.kb.m.insert(LoadOp(local, index)) for local in self.locals]


class TileReducer:
    """The reduction part's code in the look-back kernel, in the order `_build_scan` calls it: `start_tile` (after
    the look-back), `publish_tile` (after the barrier that follows it), `combine_tiles` (after the tile's stores)."""

    def __init__(
        self,
        kb: KernelBuilder,
        red: TileReduction,
        arrays: ReductionArrays,
        ids: tuple[SSAValue, SSAValue, SSAValue],
        group: int,
        warps: bool,
    ):
        """`ids`: the work-item's local id, the tile's index and the number of tiles."""
        self.kb, self.red, self.group, self.warps = kb, red, group, warps
        self.t, self.tile, self.tiles = ids
        self.fan_in = arrays.fan_in
        self.partials = [kb.array(p) for p in arrays.partials]
        self.block_partials = [kb.array(p) for p in arrays.block_partials]
        self.tickets = kb.array(arrays.tickets)
        self.results = [kb.array(r) for r in arrays.results]
        self.tile_combine = GroupCombine(kb, red, self.t, group, warps, "tile_reduced")
        self.last_block_tile = _local(kb, 1, i32, "last_of_block")
        self.last_block = _local(kb, 1, i32, "last_block")

    def start_tile(self, values: Values) -> None:
        """Every work-item's fold of its items."""
        self.tile_combine.start(values)

    def publish_tile(self) -> None:
        """Work-item 0: write the tile's partial, take a ticket of its block; whether it was the block's last goes to
        local memory (read after the next barrier)."""
        kb, m, tile = self.kb, self.kb.m, self.tile

        def leader() -> None:
            for value, view in zip(self.tile_combine.total(), self.partials):
                kb.store(_to_stored(kb, value, view), view, tile)
            block = m.div(tile, m.c(self.fan_in), "block")
            last = self._ticket(block, self._tiles_in_block(block))
            kb.b.insert(StoreOp(last, self.last_block_tile, m.c(0)))

        kb.if_then(m.eq(self.t, m.c(0)), leader)

    def combine_tiles(self) -> None:
        """Every work-item: the last tile of each block combines the block's partials, the last block all blocks'."""
        kb, m, tile, tiles = self.kb, self.kb.m, self.tile, self.tiles
        zero = m.c(0)
        _barrier(kb)
        last_of_block = self._flag(self.last_block_tile)
        block = m.div(tile, m.c(self.fan_in), "block")
        in_block = self._tiles_in_block(block)
        reads = m.insert(arith.AndIOp(last_of_block, m.lt(self.t, in_block)))
        index = m.add(m.mul(block, m.c(self.fan_in)), self.t)
        mine = kb.if_values(reads, self.red.types, lambda: self._read(self.partials, index), self.red.neutral)
        blocks_combine = GroupCombine(kb, self.red, self.t, self.group, self.warps, "block_reduced")
        blocks_combine.start(mine)
        _barrier(kb)
        blocks = m.ceildiv(tiles, m.c(self.fan_in), "blocks")

        def leader() -> None:
            def publish() -> list[SSAValue]:
                for value, view in zip(blocks_combine.total(), self.block_partials):
                    kb.store(_to_stored(kb, value, view), view, block)
                return [self._ticket(blocks, blocks)]

            (last,) = kb.if_values(last_of_block, [i32], publish, lambda: [m.const(0, i32)])
            kb.b.insert(StoreOp(last, self.last_block, zero))

        kb.if_then(m.eq(self.t, zero), leader)
        _barrier(kb)
        last_block = self._flag(self.last_block)
        per = m.ceildiv(blocks, m.c(self.group), "per_thread")
        lo = m.min(m.mul(self.t, per), blocks, "lo")
        hi = m.insert(arith.SelectOp(last_block, m.min(m.add(lo, per), blocks), lo), "hi")
        kb.if_then(last_block, self._fence)

        def fold(i: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
            return self.red.combine(acc, self._read(self.block_partials, i, fence=False))

        run = kb.for_loop(lo, hi, m.c(1), self.red.neutral(), "b", fold)
        final = GroupCombine(kb, self.red, self.t, self.group, self.warps, "all_reduced")
        final.start(run)
        _barrier(kb)

        def write() -> None:
            for value, view in zip(final.total(), self.results):
                kb.store(value, view, zero)

        kb.if_then(m.insert(arith.AndIOp(last_block, m.eq(self.t, zero))), write)

    def _tiles_in_block(self, block: SSAValue) -> SSAValue:
        m = self.kb.m
        return m.min(m.c(self.fan_in), m.sub(self.tiles, m.mul(block, m.c(self.fan_in))), "tiles_in_block")

    def _ticket(self, counter: SSAValue, count: SSAValue) -> SSAValue:
        """After a device-scope fence (the partials written before it are seen before the ticket), take a ticket of
        `tickets[counter]`; 1 (i32) when it was the last of `count`, else 0."""
        m = self.kb.m
        self._fence()
        old = m.insert(AtomicOp("add", self.tickets.buffer, m.add(self.tickets.offset, counter), m.const(1, i32)), "taken")
        last = m.eq(m.add(m.insert(arith.IndexCastOp(old, IndexType())), m.c(1)), count, "last")
        return m.insert(arith.ExtUIOp(last, i32))

    def _fence(self) -> None:
        self.kb.b.insert(FenceOp(["global"], "device"))

    def _flag(self, local: SSAValue) -> SSAValue:
        m = self.kb.m
        return m.insert(arith.CmpiOp(m.insert(LoadOp(local, m.c(0))), m.const(0, i32), "ne"))

    def _read(self, views: list[View], index: SSAValue, fence: bool = True) -> Values:
        """The partials at `index`, read past caches (after a device-scope fence)."""
        kb = self.kb
        if fence:
            self._fence()
        words = [kb.m.insert(AtomicLoadOp(v.buffer, kb.m.add(v.offset, index), "relaxed", "device")) for v in views]
        return [_from_stored(kb, w, t) for w, t in zip(words, self.red.types)]


def _to_stored(kb: KernelBuilder, value: SSAValue, view: View) -> SSAValue:
    return value if view.element == value.type else ix.to_bits32(kb, value)


def _from_stored(kb: KernelBuilder, word: SSAValue, t: Attribute) -> SSAValue:
    return word if word.type == t else ix.from_bits32(kb, word, t)
