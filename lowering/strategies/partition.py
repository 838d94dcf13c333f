"""`soac.partition` at the top level: tiles of rows ranked by bucket in work-groups with local-memory counters.

    %counts, %ys = soac.partition %n buckets 256 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
        lambda(%x: i32) { ... soac.yield %bucket, %x : index, i32 }

The rows fall into `C = k + 1` classes (the `k` buckets, then every row whose bucket is outside them). A tile is
`G * E` consecutive rows, one work-group of `G` work-items each. Three kernels and a scan:

* `partition_count`: each work-group counts its tile's rows per class in local memory and writes the counts
  class-major, `tile_counts[c * tiles + t]`.
* the inclusive scan of `tile_counts` (the device-wide scan of the target, `lower_scan`): in class-major order it
  gives each (class, tile) the place where the tile's rows of that class begin, `scanned - tile_counts`.
* `partition_rank`: each work-group ranks its tile stably with counters in local memory (CUB's `BlockRadixRank`):
  a `C x columns` counter matrix, one column per part of the tile in row order; a first pass counts each part's
  rows per class, each class's counts are scanned across the columns, and a second pass gives every row the next
  place of its column and class, moved by where the tile's rows of that class begin. The values are written
  there (the lambda runs again: nothing per row is stored between the kernels).
* `partition_counts`: `counts[b]`, from the scan's ends of each class.

How a tile is split into columns is the target's:

* with warps (`nvidia`, `emulated-warps`): a column per warp, whose `E` rounds read 32 consecutive rows (coalesced);
  the lanes of a round holding one class find each other with a ballot per bit of the class (CUB's
  `BlockRadixRankMatch`), their leader adds their number to the warp's counter with one local atomic and hands the
  old value to the others by a shuffle, each adding its rank among them (the set lanes below it). The counter
  matrix is small (C x G / 32), so work-groups stay large;
* elsewhere: a column per work-item, whose `E` consecutive rows it counts and places alone (no atomics, no
  sub-groups); the matrix limits the work-group to what fits `LOCAL_BYTES` (32 work-items for 8-bit digits).

With warps the ranked values are staged in local memory by class when they fit (`STAGE_BYTES`), so that consecutive
work-items write consecutive places of the result (CUB's scatter through shared memory).

Onesweep (Adinets and Merrill 2022): when the partition is given its bucket counts (`counts(...)`, e.g. from one
histogram of a radix sort's digit place) and the target's scan has forward progress (`lookback`),
there is no count kernel and no scan: `partition_init` clears one status word per tile and class and computes where
each class begins; `partition_onesweep` takes tiles by ticket, ranks a tile as above, publishes its rows per class
(an aggregate, or inclusive for the first tile) and looks back over the tiles before it for each class (decoupled
look-back, `device_intrinsics.spin_status`), so each partition reads its rows once and writes them once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from soac import dialect as soac
from soac.lowering.conversion.device_intrinsics import (
    ballot,
    lowest_set_bit,
    match_any,
    pack_status,
    shuffle,
    spin_status,
    status_flag,
    store_status,
    unpack_value,
)
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import (
    HostArray,
    KernelBuilder,
    KValue,
    LoweringError,
    View,
    building_at,
    describe,
    tensor_element,
)
from soac.lowering.conversion.options import LoweringOptions
from soac.lowering.conversion.sequential import Inliner, _to_index, scatter_in_bounds
from soac.lowering.kernel import BarrierOp, GlobalSizeOp, GroupIdOp, LocalAllocOp, LocalIdOp, PrivateAllocOp
from soac.lowering.kernel.memory import AtomicLoadOp, AtomicOp, element_bytes
from soac.lowering.strategies.index_width import index_versions
from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType, i1, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

LOCAL_BYTES = 44 * 1024
"""The local memory a partition's work-group may take: its counter matrix, two arrays of a count per class and any
staged values (NVIDIA allows 48 KiB a work-group)."""
TILE_ROWS = 4096
"""The rows of a tile, when the options do not say how many per work-item."""
BALLOT_LANES = 32
"""The ranking matches a warp's lanes by 32-bit ballots: it takes warps where the target's sub-group is that wide."""
LOOKBACK_WINDOW = 2
"""The status words a Onesweep look-back step reads at once, when the options do not say."""

Scan = Callable[[HostLowering, soac.ScanOp], None]


def local_bytes(classes: int, columns: int, staged: int = 0) -> int:
    """The local memory of a rank kernel: the counter matrix, the classes' bases and totals, `staged` bytes."""
    return 4 * classes * (columns + 2) + staged + 64


def columns_of(options: LoweringOptions, group: int) -> int:
    """Counter columns of a work-group: one per warp where the target has warps, else one per work-item."""
    return group // BALLOT_LANES if _warps(options, group) else group


def tile_shape(options: LoweringOptions, classes: int) -> tuple[int, int]:
    """(work-items, rows per work-item) of a tile: the group size, halved until the counters fit `LOCAL_BYTES` (with
    warps a column per warp, so 8-bit digits keep 256 work-items; else a column per work-item)."""
    group = options.group_size
    while group > 1 and local_bytes(classes, columns_of(options, group)) > LOCAL_BYTES:
        group //= 2
    items = options.partition_items or max(1, TILE_ROWS // group)
    return group, items


def _warps(options: LoweringOptions, group: int) -> bool:
    return options.device_target.subgroup_width == BALLOT_LANES and group >= BALLOT_LANES


def lower_partition(lw: HostLowering, op: soac.PartitionOp, lower_scan: Scan) -> None:
    m = lw.m
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    classes = op.bucket_count + 1
    group, items = tile_shape(lw.options, classes)
    warps = _warps(lw.options, group)
    if local_bytes(classes, columns_of(lw.options, group)) > LOCAL_BYTES:
        most = (LOCAL_BYTES - 64) // 12 - 1
        raise LoweringError(
            f"{describe(op)}: {op.bucket_count} buckets need more local memory for their counters than a work-group "
            f"has; a partition outside a lambda takes at most {most} buckets (partition by digits, in several passes)"
        )
    tiles = m.ceildiv(width, m.c(group * items), "tiles")
    launch = (m.mul(tiles, m.c(group), "global_size"), m.c(group))
    outs = [lw.alloc(tensor_element(r.type), [width], r.name_hint) for r in op.outs]
    versions = _index_versions(lw, width, m.mul(tiles, m.c(classes)), group * items, launch)
    if op.known is not None and lw.scan_strategy == "lookback":
        look_back = _LookBack.prepare(lw, op, tiles)
        for bits, sized in versions:
            _rank(lw, op, look_back, outs, tiles, group, items, warps, sized, bits)
        lw.env[op.counts] = lw.array(op.known)
    else:
        tile_counts = lw.alloc(i32, [m.mul(m.c(classes), tiles)], "tile_counts")
        for bits, sized in versions:
            _count(lw, op, tile_counts, tiles, group, items, warps, sized, bits)
        scanned = _scan(lw, tile_counts, lower_scan)
        for bits, sized in versions:
            _rank(lw, op, _Scanned(tile_counts, scanned), outs, tiles, group, items, warps, sized, bits)
        lw.env[op.counts] = _counts(lw, op, scanned, tiles)
    for result, out in zip(op.outs, outs):
        lw.env[result] = out


def _index_versions(
    lw: HostLowering, width: SSAValue, words: SSAValue, tile_rows: int, launch: tuple[SSAValue, SSAValue]
) -> list[tuple[int, tuple[SSAValue, SSAValue]]]:
    """The index widths of the partition's kernels, each with its launch: 64 bits alone, or (`partition-index`) a
    32-bit version and a 64-bit one, the host giving the other no work-items (a launch of none is skipped); the
    32-bit one where its rows (with a tile past the end) and status words stay below 2^31."""
    return index_versions(lw, lw.options.partition_index, [lw.m.add(width, lw.m.c(tile_rows)), words], launch)


class _Tile:
    """One tile's work-group: its ids, the rows of its columns, the class of a row and the matching of a warp."""

    def __init__(
        self,
        lw: HostLowering,
        kb: KernelBuilder,
        op: soac.PartitionOp,
        group: int,
        items: int,
        warps: bool,
        tile: SSAValue | None = None,
    ):
        m = kb.m
        self.kb, self.op, self.width = kb, op, kb.scalar(lw.scalar(op.width), "n")
        self.inputs = [kb.array(lw.array(x), x.name_hint) for x in op.inputs]
        self.inliner = Inliner(kb)
        self.classes = op.bucket_count + 1
        self.tile = tile if tile is not None else m.insert(GroupIdOp(0), "tile")
        self.tid = m.insert(LocalIdOp(0), "tid")
        kb.thread_id = kb.global_id()
        self.start = m.mul(self.tile, m.c(group * items), "tile_start")
        self.group, self.items, self.warps = group, items, warps
        self.match = lw.options.partition_match == "match"
        self.round: SSAValue | None = None
        self.unrolled = False
        """Whether the rounds are unrolled (their rows' values then live in registers: `_RankRegisters`)."""
        self.preloaded: dict[int, View] | None = None
        """The work-item's rows of every round of some inputs (by input), in private arrays by round (`preload`)."""
        self.columns = group // BALLOT_LANES if warps else group
        if warps:
            self.lane = m.rem(self.tid, m.c(BALLOT_LANES), "lane")
            self.column = m.div(self.tid, m.c(BALLOT_LANES), "warp")
            self.first = m.add(self.start, m.mul(self.column, m.c(BALLOT_LANES * items)), "warp_start")
        else:
            self.column = self.tid
            self.first = m.add(self.start, m.mul(self.tid, m.c(items)), "first")
        if preloads(lw.options, self):
            self.preload()

    def row_at(self, e: SSAValue) -> SSAValue:
        """The row of round `e` of this work-item: consecutive rows per round in a warp, else per work-item."""
        m = self.kb.m
        return m.add(self.first, m.add(m.mul(e, m.c(BALLOT_LANES)), self.lane) if self.warps else e, "row")

    def preload(self) -> None:
        """Each round's rows of the inputs the bucket depends on (`bucket_inputs`) loaded into the work-item's
        private arrays before the first round, in one unrolled loop (CUB loads a thread's keys so): their loads are
        issued together, rather than one a round between the matching's warp operations, and the later rounds read
        registers (`rows_at`). Inputs only moved (a sort's values) are read where they move."""
        kb, m = self.kb, self.kb.m
        last = m.sub(self.width, m.c(1), "last")
        self.unrolled = True
        views = {
            k: View(self._private(self.inputs[k]), m.c(0), [m.c(self.items)], self.inputs[k].element) for k in self.bucket_inputs
        }

        def load(e: SSAValue) -> None:
            i = m.min(self.row_at(e), last)
            for k, view in views.items():
                kb.store(kb.row(self.inputs[k], i), view, e)

        self.rounds(load)
        self.preloaded = views

    @property
    def bucket_inputs(self) -> list[int]:
        """The inputs whose rows the lambda's bucket depends on (all of them where the lambda has regions)."""
        block = self.op.body.block
        terminator = block.last_op
        assert terminator is not None
        if any(op.regions for op in block.ops):
            return list(range(len(self.inputs)))
        needed: set[SSAValue] = set()
        pending = [terminator.operands[0]]
        while pending:
            value = pending.pop()
            if value in needed:
                continue
            needed.add(value)
            if isinstance(value.owner, Operation) and value.owner.parent is block:
                pending.extend(value.owner.operands)
        return [k for k, arg in enumerate(block.args) if arg in needed]

    def _private(self, view: View) -> SSAValue:
        return self.kb.m.insert(PrivateAllocOp(self.items, view.element), f"{view.buffer.name_hint or 'row'}_rows")

    def rows_at(self, i: SSAValue) -> list[KValue]:
        """The inputs' rows at `i` (the current round's row of the work-item, from registers where `preload`ed)."""
        if self.preloaded is not None and self.round is not None:
            preloaded, round_ = self.preloaded, self.round
            return [
                self.kb.load(preloaded[k], round_) if k in preloaded else self.kb.row(v, i) for k, v in enumerate(self.inputs)
            ]
        return [self.kb.row(v, i) for v in self.inputs]

    def row(self, i: SSAValue) -> tuple[SSAValue, list[SSAValue]]:
        """Row `i`'s class (its bucket, or `k` outside the buckets) and the values it moves."""
        kb, m = self.kb, self.kb.m
        k = self.op.bucket_count
        bucket, *values = self.inliner.inline_scalars(self.op.body, self.rows_at(i))
        j = _to_index(kb.b, bucket)
        return m.select(scatter_in_bounds(kb, j, m.c(k)), j, m.c(k), "class"), values

    def row_in_tile(self) -> SSAValue:
        """The place of the current round's row among the tile's rows (`row_at` less the tile's start)."""
        assert self.round is not None
        return self.kb.m.sub(self.row_at(self.round), self.start, "in_tile_row")

    def values_of(self, i: SSAValue) -> list[SSAValue]:
        """The values row `i` moves (the rows themselves where the lambda moves its arguments)."""
        rows = self.rows_at(i)
        return rows if self.moves_its_arguments else self.row(i)[1]

    def class_of_values(self, values: list[SSAValue]) -> SSAValue:
        """The class of a row whose values (the lambda's arguments) are `values`."""
        m = self.kb.m
        bucket, *_ = self.inliner.inline_scalars(self.op.body, values)
        j = _to_index(self.kb.b, bucket)
        return m.select(scatter_in_bounds(self.kb, j, m.c(self.op.bucket_count)), j, m.c(self.op.bucket_count), "class")

    @property
    def moves_its_arguments(self) -> bool:
        """Whether the values the lambda moves are its arguments (a sort's keys): a moved row's class can then be
        computed again from its moved values."""
        block = self.op.body.block
        terminator = block.last_op
        assert terminator is not None
        return list(terminator.operands[1:]) == list(block.args)

    def rounds(self, body: Callable[[SSAValue], None]) -> None:
        """`body(e)` for each round `e` of the work-item (every lane of a warp runs every round)."""
        m = self.kb.m

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self.round = e
            body(e)
            self.round = None
            return []

        self.kb.for_loop(m.c(0), m.c(self.items), m.c(1), [], "e", step, unroll=self.unrolled)

    def each_row(self, body: Callable[[SSAValue], None]) -> None:
        """`body(i)` for each row `i` of the work-item inside the array (no sub-group ops in `body`)."""
        m = self.kb.m

        def round_(e: SSAValue) -> None:
            i = self.row_at(e)
            self.kb.if_then(m.lt(i, self.width, "inside"), lambda: body(i))

        self.rounds(round_)

    def warp_rows(self, body: Callable[[SSAValue, SSAValue, SSAValue, list[SSAValue]], None]) -> None:
        """`body(inside, class, peers, values)` for each round of the warp: whether the lane's row is inside the
        array, its class (C outside it), the lanes of the round with the same class (an i32 mask) and its values."""
        m = self.kb.m
        last = m.sub(self.width, m.c(1), "last")

        def round_(e: SSAValue) -> None:
            i = self.row_at(e)
            inside = m.lt(i, self.width, "inside")
            c, values = self.row(m.min(i, last))  # every lane runs the lambda on a row: the ballots need all of them
            c = m.select(inside, c, m.c(self.classes), "class")
            body(inside, c, self.peers(c), values)

        self.rounds(round_)

    def peers(self, c: SSAValue) -> SSAValue:
        """The lanes whose class equals this lane's: one match, or a ballot per bit of the class (0 to C)."""
        m = self.kb.m
        if self.match:
            return match_any(self.kb, c)
        bits = m.insert(arith.IndexCastOp(c, i32), "class_bits")
        all_lanes = m.const(-1, i32)
        peers = all_lanes
        for b in range(self.classes.bit_length()):
            shifted = m.insert(arith.ShRUIOp(bits, m.const(b, i32)))
            bit = m.insert(arith.TruncIOp(shifted, i1), f"bit{b}")
            votes = ballot(self.kb, bit)
            other = m.insert(arith.XOrIOp(votes, all_lanes))
            peers = m.insert(arith.AndIOp(peers, m.select(bit, votes, other)), "peers")
        return peers

    def lanes_below(self) -> SSAValue:
        """The mask of the lanes below this one."""
        m = self.kb.m
        lane = m.insert(arith.IndexCastOp(self.lane, i32))
        bit = m.insert(arith.ShLIOp(m.const(1, i32), lane))
        return m.insert(arith.SubiOp(bit, m.const(1, i32)), "below")


def _popcount(kb: KernelBuilder, bits: SSAValue, name: str) -> SSAValue:
    return kb.m.insert(math.CtPopOp(bits), name)


def _warp_add(tile: _Tile, counters: View, slot: SSAValue, inside: SSAValue, peers: SSAValue, hand_back: bool = True) -> SSAValue:
    """The leader of `peers` (its lowest lane) adds their number to `counters[slot]`; every lane gets the old value
    (by a shuffle from the leader, unless not `hand_back`: then the leader's own)."""
    kb, m = tile.kb, tile.kb.m
    leader = lowest_set_bit(kb, peers)
    leads = m.both(inside, m.eq(tile.lane, leader), "leads")
    number = _popcount(kb, peers, "number")
    (old,) = kb.if_values(
        leads, [i32], lambda: [m.insert(AtomicOp("add", counters.buffer, slot, number), "old")], lambda: [m.const(0, i32)]
    )
    return shuffle(kb, "idx", old, leader) if hand_back else old


def _local(kb: KernelBuilder, size: int, name: str) -> View:
    return View(kb.m.insert(LocalAllocOp(size, i32), name), kb.m.c(0), [kb.m.c(size)], i32)


def _loop(
    kb: KernelBuilder, lower: SSAValue, upper: SSAValue, step: SSAValue, name: str, body: Callable[[SSAValue], None]
) -> None:
    def step_body(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        body(i)
        return []

    kb.for_loop(lower, upper, step, [], name, step_body)


def _barrier(kb: KernelBuilder) -> None:
    kb.b.insert(BarrierOp(local=True))


def _add(kb: KernelBuilder, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
    return kb.m.insert(arith.AddiOp(a, b), name)


def _count(
    lw: HostLowering,
    op: soac.PartitionOp,
    tile_counts: HostArray,
    tiles: SSAValue,
    group: int,
    items: int,
    warps: bool,
    launch: tuple[SSAValue, SSAValue],
    index_bits: int = 64,
) -> None:
    """`partition_count`: each tile's rows per class, class-major (with warps, one atomic per class of a round)."""
    kb = lw.kernel("partition_count")
    kb.index_bits = index_bits
    m = kb.m
    t = _Tile(lw, kb, op, group, items, warps)
    classes = t.classes
    out, k_tiles = kb.array(tile_counts, "tile_counts"), kb.scalar(tiles, "tiles")
    counters = _local(kb, classes, "counters")
    _loop(kb, t.tid, m.c(classes), m.c(group), "c", lambda c: kb.store(m.const(0, i32), counters, c))
    _barrier(kb)

    def count_round(inside: SSAValue, c: SSAValue, peers: SSAValue, _: list[SSAValue]) -> None:
        _warp_add(t, counters, c, inside, peers, hand_back=False)

    def count_row(i: SSAValue) -> None:
        m.insert(AtomicOp("add", counters.buffer, t.row(i)[0], m.const(1, i32)))

    t.warp_rows(count_round) if warps else t.each_row(count_row)
    _barrier(kb)
    _loop(
        kb, t.tid, m.c(classes), m.c(group), "c", lambda c: kb.store(kb.load(counters, c), out, m.add(m.mul(c, k_tiles), t.tile))
    )
    lw.add_kernel(kb, *launch)


def _scan(lw: HostLowering, source: HostArray, lower_scan: Scan) -> HostArray:
    """The inclusive sum of `source` by the device-wide scan of the target: a `soac.scan` made for it, lowered with
    its values bound to `source`."""
    vector = TensorType(i32, [DYNAMIC_INDEX])
    block = Block(arg_types=[IndexType(), vector])
    zero = arith.ConstantOp(IntegerAttr(0, i32))
    block.add_op(zero)
    combine = Block(arg_types=[i32, i32])
    total = arith.AddiOp(combine.args[0], combine.args[1])
    combine.add_ops([total, soac.YieldOp(total.result)])
    scan = soac.ScanOp(block.args[0], [zero.result], [block.args[1]], Region(combine))
    block.add_op(scan)
    lw.env[block.args[0]] = source.dims[0]
    lw.env[block.args[1]] = source
    lw.env[zero.result] = lw.m.const(0, i32)
    lower_scan(lw, scan)
    scanned = lw.array(scan.outs[0])
    for value in (block.args[0], block.args[1], zero.result, scan.outs[0]):
        del lw.env[value]
    return scanned


def _rank(
    lw: HostLowering,
    op: soac.PartitionOp,
    places: _Scanned | _LookBack,
    outs: list[HostArray],
    tiles: SSAValue,
    group: int,
    items: int,
    warps: bool,
    launch: tuple[SSAValue, SSAValue],
    index_bits: int = 64,
) -> None:
    """`partition_rank`: the stable ranks of a tile's rows (see the module docstring) and the moves."""
    kb = lw.kernel("partition_onesweep" if isinstance(places, _LookBack) else "partition_rank")
    kb.index_bits = index_bits
    m = kb.m
    t = _Tile(lw, kb, op, group, items, warps, places.tile_id(kb))
    classes, columns = t.classes, t.columns
    begin = places.begin(kb, t, kb.scalar(tiles, "tiles"))
    out_views = [kb.array(o, r.name_hint) for o, r in zip(outs, op.outs)]
    counters = _local(kb, classes * columns, "counters")  # class c, column w at c * columns + w
    base = _local(kb, classes, "base")
    totals = _local(kb, classes, "totals")
    one = m.const(1, i32)
    elements = [tensor_element(r.type) for r in op.outs]
    stage = _Stage(t, elements, totals) if warps and stages(op, group, items, columns) else None

    def slot_of(c: SSAValue) -> SSAValue:
        return m.add(m.mul(c, m.c(columns)), t.column, "slot")

    _loop(kb, t.tid, m.c(classes * columns), m.c(group), "s", lambda s: kb.store(m.const(0, i32), counters, s))
    _barrier(kb)

    def count(i: SSAValue) -> None:
        slot = slot_of(t.row(i)[0])
        kb.store(_add(kb, kb.load(counters, slot), one), counters, slot)

    kept = _carried_ranks(lw.options, t, counters, slot_of, stage, elements)

    def count_round(inside: SSAValue, c: SSAValue, peers: SSAValue, values: list[SSAValue]) -> None:
        before = _warp_add(t, counters, slot_of(c), inside, peers, hand_back=kept is not None)
        if kept is not None:
            kept.keep(c, peers, before, values)

    t.warp_rows(count_round) if warps else t.each_row(count)
    _barrier(kb)

    _class_places(t, counters, base, totals, begin, places.publish(kb, t) if isinstance(places, _LookBack) else None)
    if stage is not None:
        stage.class_starts(base)

    def write(c: SSAValue, place: SSAValue, values: list[SSAValue]) -> None:
        to = _to_index(kb.b, _add(kb, kb.load(base, c), place, "place"))
        for value, out in zip(values, out_views):
            kb.store(value, out, to)

    def move(i: SSAValue) -> None:
        c, values = t.row(i)
        slot = slot_of(c)
        place = kb.load(counters, slot, "local")
        kb.store(_add(kb, place, one), counters, slot)
        write(c, place, values)

    def move_warp(inside: SSAValue, c: SSAValue, peers: SSAValue, values: list[SSAValue]) -> None:
        before = _warp_add(t, counters, slot_of(c), inside, peers)
        rank = _popcount(kb, m.insert(arith.AndIOp(peers, t.lanes_below())), "rank")
        place = _add(kb, before, rank, "place_in_class")
        kb.if_then(inside, lambda: stage.keep(c, place, values) if stage is not None else write(c, place, values))

    if kept is not None:
        t.each_row(kept.move)
    else:
        t.warp_rows(move_warp) if warps else t.each_row(move)
    if stage is not None:
        _barrier(kb)
        stage.write_out(base, out_views)
    lw.add_kernel(kb, *launch)


class _KeptRanks:
    """Each row's class and place among its column's rows of the class (`class << 16 | place`), kept in local memory
    by the counting round, so that the moving round reads them instead of matching the warps again."""

    def __init__(self, tile: _Tile, counters: View, slot_of: Callable[[SSAValue], SSAValue], stage: _Stage):
        self.tile, self.counters, self.slot_of, self.stage = tile, counters, slot_of, stage
        self.view = _local(tile.kb, tile.group * tile.items, "ranked")

    def keep(self, c: SSAValue, peers: SSAValue, before: SSAValue, values: list[SSAValue]) -> None:
        """In a counting round: the lane's place is its column's rows of class c before the round and its rank
        among the round's lanes of the class."""
        del values
        self.tile.kb.store(_packed_rank(self.tile, c, peers, before), self.view, self.tile.row_in_tile())

    def move(self, i: SSAValue) -> None:
        """Row i to its staged place: its class's start in the tile, its column's, and its place in the column."""
        t, kb, m = self.tile, self.tile.kb, self.tile.kb.m
        packed = kb.load(self.view, t.row_in_tile(), "packed")
        c = m.insert(arith.IndexCastOp(m.insert(arith.ShRUIOp(packed, m.const(16, i32))), IndexType()), "class")
        in_column = m.insert(arith.AndIOp(packed, m.const(0xFFFF, i32)))
        self.stage.keep(c, _add(kb, kb.load(self.counters, self.slot_of(c)), in_column, "place_in_class"), t.values_of(i))


def _carried_ranks(
    options: LoweringOptions,
    t: _Tile,
    counters: View,
    slot_of: Callable[[SSAValue], SSAValue],
    stage: _Stage | None,
    elements: list[Attribute],
) -> _KeptRanks | _RankRegisters | None:
    """How the tile's ranks go from counting to moving (`partition-ranks`), where the tile is staged."""
    if stage is None:
        return None
    if options.partition_ranks == "registers":
        return _RankRegisters(t, counters, slot_of, stage, elements)
    if keeps_ranks(options, t.op, t.group, t.items):
        return _KeptRanks(t, counters, slot_of, stage)
    return None


def _packed_rank(t: _Tile, c: SSAValue, peers: SSAValue, before: SSAValue) -> SSAValue:
    """`c << 16 | place`: a row's class and its place among its column's rows of the class (its column's rows of
    the class before the round, and its rank among the round's lanes of the class)."""
    kb, m = t.kb, t.kb.m
    rank = _popcount(kb, m.insert(arith.AndIOp(peers, t.lanes_below())), "rank")
    place = _add(kb, before, rank, "place_in_column")
    high = m.insert(arith.ShLIOp(m.insert(arith.IndexCastOp(c, i32)), m.const(16, i32)))
    return m.insert(arith.OrIOp(high, place), "packed")


class _RankRegisters:
    """Each round's packed rank (`_packed_rank`) and moved values in the work-item's private arrays, indexed by the
    round, whose loops are unrolled so that they stay in registers (CUB keeps a thread's keys so): the moving round
    then reads neither the rows again nor local memory."""

    def __init__(
        self, tile: _Tile, counters: View, slot_of: Callable[[SSAValue], SSAValue], stage: _Stage, elements: list[Attribute]
    ):
        m = tile.kb.m
        self.tile, self.counters, self.slot_of, self.stage = tile, counters, slot_of, stage
        tile.unrolled = True

        def private(element: Attribute, name: str) -> View:
            return View(m.insert(PrivateAllocOp(tile.items, element), name), m.c(0), [m.c(tile.items)], element)

        self.packed = private(i32, "ranks")
        self.values = [private(e, "row_values") for e in elements]

    def keep(self, c: SSAValue, peers: SSAValue, before: SSAValue, values: list[SSAValue]) -> None:
        t = self.tile
        assert t.round is not None
        t.kb.store(_packed_rank(t, c, peers, before), self.packed, t.round)
        for value, view in zip(values, self.values):
            t.kb.store(value, view, t.round)

    def move(self, i: SSAValue) -> None:
        """The round's row i to its staged place."""
        del i
        t, kb, m = self.tile, self.tile.kb, self.tile.kb.m
        assert t.round is not None
        packed = kb.load(self.packed, t.round, "packed")
        c = m.insert(arith.IndexCastOp(m.insert(arith.ShRUIOp(packed, m.const(16, i32))), IndexType()), "class")
        in_column = m.insert(arith.AndIOp(packed, m.const(0xFFFF, i32)))
        place = _add(kb, kb.load(self.counters, self.slot_of(c)), in_column, "place_in_class")
        self.stage.keep(c, place, [kb.load(view, t.round) for view in self.values])


def _class_places(
    t: _Tile,
    counters: View,
    base: View,
    totals: View,
    begin: Callable[[SSAValue, SSAValue], SSAValue],
    publish: Callable[[SSAValue, SSAValue], None] | None,
) -> None:
    """Each class's counters become the places of each column's first row among the tile's rows of the class,
    `totals[c]` their number (published first, with a look-back), then `base[c]` where they begin in the result
    (`begin(c, total)`)."""
    kb, m = t.kb, t.kb.m

    def class_places(c: SSAValue) -> None:
        first = m.mul(c, m.c(t.columns), "first")

        def step(w: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
            slot = m.add(first, w)
            here = kb.load(counters, slot, "here")
            kb.store(acc[0], counters, slot)
            return [_add(kb, acc[0], here, "running")]

        (total,) = kb.for_loop(m.c(0), m.c(t.columns), m.c(1), [m.const(0, i32)], "w", step)
        kb.store(total, totals, c)
        if publish is not None:
            publish(c, total)

    _loop(kb, t.tid, m.c(t.classes), m.c(t.group), "c", class_places)
    _barrier(kb)
    _loop(kb, t.tid, m.c(t.classes), m.c(t.group), "c", lambda c: kb.store(begin(c, kb.load(totals, c)), base, c))
    _barrier(kb)


PRELOAD_VALUES = 16
"""The most rows' values (rounds times inputs) a work-item preloads into registers."""


def preloads(options: LoweringOptions, t: _Tile) -> bool:
    """Whether the tile's work-items load the rows their buckets depend on into registers before the rounds
    (`partition-rows`; `auto`: with warps, where the rows are scalars, the bucket depends on every input and they are
    at most `PRELOAD_VALUES` a work-item). A sort's keys alone gain (10^8 keys: 4.30 ms against 5.37 on an H200); with
    values beside them, preloading the keys made the pairs slower (8.75 ms against 6.65)."""
    scalars = all(len(v.dims) == 1 for v in t.inputs)
    if options.partition_rows == "load" or not scalars:
        return False
    if options.partition_rows == "registers":
        return True
    every = len(t.bucket_inputs) == len(t.inputs)
    return t.warps and every and t.items * len(t.inputs) <= PRELOAD_VALUES


def keeps_ranks(options: LoweringOptions, op: soac.PartitionOp, group: int, items: int) -> bool:
    """Whether a staged tile keeps each row's class and place among its warp's rows of the class in local memory
    from the counting round to the moving one (which then matches no warp again), by `partition-ranks` and where it
    fits beside the staged values."""
    if options.partition_ranks == "again":
        return False
    classes, columns = op.bucket_count + 1, group // BALLOT_LANES
    staged = sum(element_bytes(tensor_element(r.type)) or 8 for r in op.outs) * group * items
    fits = classes < 1 << 15 and BALLOT_LANES * items < 1 << 16
    return fits and local_bytes(classes, columns, staged + 4 * group * items) <= LOCAL_BYTES


STAGE_BYTES = 36 * 1024
"""The local memory a tile's staged values may take (with warps, beside the counters: 8 KiB for 8-bit digits)."""


def stages(op: soac.PartitionOp, group: int, items: int, columns: int) -> bool:
    """Whether a tile's moved values fit `STAGE_BYTES` of local memory beside the counters."""
    staged = sum(element_bytes(tensor_element(r.type)) or 8 for r in op.outs) * group * items
    return staged <= STAGE_BYTES and local_bytes(op.bucket_count + 1, columns, staged) <= LOCAL_BYTES


class _Stage:
    """A tile's values ordered by class in local memory before they are written (CUB's scatter through shared memory):
    the work-items then write consecutive places of the result, mostly within one class (coalesced), where the
    rows of a warp round would write up to 32 places far apart."""

    def __init__(self, tile: _Tile, elements: list[Attribute], totals: View):
        kb, m = tile.kb, tile.kb.m
        self.tile, self.kb, self.m = tile, kb, m
        self.rows = tile.group * tile.items
        self.starts = totals
        self.values = [View(m.insert(LocalAllocOp(self.rows, e), "staged"), m.c(0), [m.c(self.rows)], e) for e in elements]

    def class_starts(self, base: View) -> None:
        """`starts[c]` (each class's rows in the tile) becomes where class c begins in the tile (warp 0 scans them: a
        lane per run of consecutive classes, then across the lanes by shuffles), and `base[c]` where the result
        place of the tile's row j of class c is `base[c] + j`."""
        t, kb, m = self.tile, self.kb, self.m
        classes = t.classes
        per = -(-classes // BALLOT_LANES)

        def scan() -> None:
            first = m.mul(t.lane, m.c(per), "first_class")

            def inside(s: SSAValue) -> SSAValue:
                return m.lt(m.add(first, s), m.c(classes))

            def add(s: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                return [_add(kb, acc[0], kb.load_if(inside(s), self.starts, m.add(first, s)), "own")]

            (own,) = kb.for_loop(m.c(0), m.c(per), m.c(1), [m.const(0, i32)], "s", add)
            total = own
            for delta in (1, 2, 4, 8, 16):
                below = shuffle(kb, "up", total, m.c(delta))
                total = m.select(m.cmp(t.lane, m.c(delta), "uge"), _add(kb, total, below), total, "inclusive")
            start = m.insert(arith.SubiOp(total, own), "lane_start")

            def place(s: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                c = m.add(first, s)
                here = kb.load_if(inside(s), self.starts, c, "here")
                kb.if_then(inside(s), lambda: kb.store(acc[0], self.starts, c))
                return [_add(kb, acc[0], here)]

            kb.for_loop(m.c(0), m.c(per), m.c(1), [start], "s", place)

        kb.if_then(m.eq(t.column, m.c(0)), scan)
        _barrier(kb)

        def rebase(c: SSAValue) -> None:
            kb.store(m.insert(arith.SubiOp(kb.load(base, c), kb.load(self.starts, c))), base, c)

        _loop(kb, t.tid, m.c(classes), m.c(t.group), "c", rebase)
        _barrier(kb)

    def keep(self, c: SSAValue, place: SSAValue, values: list[SSAValue]) -> None:
        """Stage a row's values at its place in the tile: its class's start and its place among the class's rows."""
        at = _to_index(self.kb.b, _add(self.kb, self.kb.load(self.starts, c), place, "in_tile"))
        for value, view in zip(values, self.values):
            self.kb.store(value, view, at)

    def class_of(self, j: SSAValue) -> SSAValue:
        """The class of the tile's row j: the last class starting at or before it (a binary search of the starts)."""
        m = self.m
        j32 = m.insert(arith.IndexCastOp(j, i32))
        low, size = m.c(0), self.tile.classes
        while size > 1:
            half = size // 2
            middle = m.add(low, m.c(half))
            low = m.select(m.cmp(self.kb.load(self.starts, middle), j32, "sle"), middle, low, "low")
            size -= half
        return low

    def write_out(self, base: View, outs: list[View]) -> None:
        """The staged rows to the result: work-item w writes rows w, w + G, ... of the tile, each at its class's base
        plus w (its class computed again from its values where the lambda moves its arguments, else found among the
        class starts)."""
        t, kb, m = self.tile, self.kb, self.m
        count = m.min(m.c(self.rows), m.sub(t.width, t.start), "tile_rows")

        def write(j: SSAValue) -> None:
            values = [kb.load(view, j) for view in self.values]
            c = t.class_of_values(values) if t.moves_its_arguments else self.class_of(j)
            to = _to_index(kb.b, _add(kb, kb.load(base, c), m.insert(arith.IndexCastOp(j, i32))))
            for value, out in zip(values, outs):
                kb.store(value, out, to)

        _loop(kb, t.tid, count, m.c(t.group), "j", write)


@dataclass
class _Scanned:
    """Where a tile's rows of a class begin, from the scan of the class-major tile counts."""

    tile_counts: HostArray
    scanned: HostArray

    def tile_id(self, kb: KernelBuilder) -> SSAValue | None:
        return None

    def begin(self, kb: KernelBuilder, t: _Tile, tiles: SSAValue) -> Callable[[SSAValue, SSAValue], SSAValue]:
        m = kb.m
        counts, scanned = kb.array(self.tile_counts, "tile_counts"), kb.array(self.scanned, "scanned")

        def begin(c: SSAValue, _total: SSAValue) -> SSAValue:
            at = m.add(m.mul(c, tiles), t.tile)
            return m.insert(arith.SubiOp(kb.load(scanned, at), kb.load(counts, at)), "begin")

        return begin


AGGREGATE, INCLUSIVE = 1, 2
"""Status flags of a tile's class count: its own rows, or with those of every tile before it."""


@dataclass
class _LookBack:
    """Onesweep: the bucket counts are known (`counts(...)`), so where each class begins is known before the rows are
    read; a tile takes the next ticket, publishes its rows per class, and looks back over the tiles before it for the
    rows of each class there (decoupled look-back, one status word per tile and class)."""

    starts: HostArray
    status: HostArray
    ticket: HostArray
    window: int = 1
    """Status words a look-back step reads at once (`partition-lookback`)."""

    @classmethod
    def prepare(cls, lw: HostLowering, op: soac.PartitionOp, tiles: SSAValue) -> _LookBack:
        """`partition_init`: the status words cleared, the ticket at 0, and where each class begins (the known
        counts' exclusive scan, by one work-item)."""
        assert op.known is not None
        m = lw.m
        known = lw.array(op.known)
        k, classes = op.bucket_count, op.bucket_count + 1
        lw.check(
            m.eq(known.dims[0], m.c(k)), op, "the known bucket counts have {0} entries, expected {1}", [known.dims[0], m.c(k)]
        )
        look_back = cls(
            lw.alloc(i32, [m.c(classes)], "starts"),
            lw.alloc(i64, [m.mul(tiles, m.c(classes))], "status"),
            lw.alloc(i32, [m.c(1)], "ticket"),
            lw.options.partition_lookback or LOOKBACK_WINDOW,
        )
        kb = lw.kernel("partition_init")
        km = kb.m
        status, ticket = kb.array(look_back.status, "status"), kb.array(look_back.ticket, "ticket")
        starts, counts = kb.array(look_back.starts, "starts"), kb.array(known, "known")
        words = status.dims[0]
        gid = kb.global_id()

        def first() -> None:
            kb.store(km.const(0, i32), ticket, km.c(0))

            def step(c: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                kb.store(acc[0], starts, c)
                return [_add(kb, acc[0], kb.load(counts, c))]

            (total,) = kb.for_loop(km.c(0), km.c(k), km.c(1), [km.const(0, i32)], "c", step)
            kb.store(total, starts, km.c(k))

        kb.if_then(km.eq(gid, km.c(0)), first)
        _loop(kb, gid, words, km.insert(GlobalSizeOp(0), "gsize"), "w", lambda w: kb.store(km.const(0, i64), status, w))
        lw.add_kernel(kb, *lw.grid(m.add(m.mul(tiles, m.c(classes)), m.c(1))))
        return look_back

    def tile_id(self, kb: KernelBuilder) -> SSAValue:
        """The work-group's ticket: tiles run in the order they start, so the tiles a tile waits for are running."""
        m = kb.m
        ticket, slot = kb.array(self.ticket, "ticket"), _local(kb, 1, "tile_slot")
        kb.if_then(
            m.eq(m.insert(LocalIdOp(0)), m.c(0)),
            lambda: kb.store(m.insert(AtomicOp("add", ticket.buffer, m.c(0), m.const(1, i32))), slot, m.c(0)),
        )
        _barrier(kb)
        return m.insert(arith.IndexCastOp(kb.load(slot, m.c(0)), IndexType()), "tile")

    def _slot(self, kb: KernelBuilder, t: _Tile, tile: SSAValue, c: SSAValue) -> SSAValue:
        return kb.m.add(kb.m.mul(tile, kb.m.c(t.classes)), c, "status_slot")

    def publish(self, kb: KernelBuilder, t: _Tile) -> Callable[[SSAValue, SSAValue], None]:
        """The tile's rows of class c: inclusive for the first tile, else an aggregate."""
        m = kb.m
        status = kb.array(self.status, "status")
        first = m.eq(t.tile, m.c(0), "first_tile")

        def publish(c: SSAValue, total: SSAValue) -> None:
            word = m.select(first, pack_status(kb, INCLUSIVE, total), pack_status(kb, AGGREGATE, total), "word")
            store_status(kb, word, status, self._slot(kb, t, t.tile, c))

        return publish

    def begin(self, kb: KernelBuilder, t: _Tile, tiles: SSAValue) -> Callable[[SSAValue, SSAValue], SSAValue]:
        """Where the tile's rows of class c begin: the class's start plus the rows of class c in the tiles before
        (summed back to the first inclusive word, `window` tiles a step); then the tile's inclusive word."""
        del tiles
        m = kb.m
        status, starts = kb.array(self.status, "status"), kb.array(self.starts, "starts")

        def begin(c: SSAValue, total: SSAValue) -> SSAValue:
            before = Block(arg_types=[IndexType(), i32, i1])
            p, prefix, going = before.args
            before.add_op(scf.ConditionOp(going, p, prefix))
            after = Block(arg_types=[IndexType(), i32])
            with building_at(kb.b, InsertPoint.at_end(after)):
                step = self._step if self.window == 1 else self._window_step
                kb.b.insert(scf.YieldOp(*step(kb, t, status, c, after.args[0], after.args[1])))
            start = [m.sub(t.tile, m.c(1)), m.const(0, i32), m.lt(m.c(0), t.tile, "has_before")]
            loop = kb.b.insert(scf.WhileOp(start, [IndexType(), i32], Region(before), Region(after)))
            prefix_total = loop.results[1]
            kb.if_then(
                m.lt(m.c(0), t.tile),
                lambda: store_status(
                    kb, pack_status(kb, INCLUSIVE, _add(kb, prefix_total, total)), status, self._slot(kb, t, t.tile, c)
                ),
            )
            return _add(kb, kb.load(starts, c), prefix_total, "begin")

        return begin

    def _step(self, kb: KernelBuilder, t: _Tile, status: View, c: SSAValue, p: SSAValue, prefix: SSAValue) -> list[SSAValue]:
        """One tile a step: wait for tile p's word, add its rows; go on to p - 1 unless it was inclusive."""
        m = kb.m
        (word,) = spin_status(kb, [status], self._slot(kb, t, p, c))
        more = m.insert(arith.CmpiOp(status_flag(kb, word), m.const(INCLUSIVE, i32), "ne"), "more")
        return [m.sub(p, m.c(1)), _add(kb, prefix, unpack_value(kb, word, i32), "prefix"), more]

    def _window_step(
        self, kb: KernelBuilder, t: _Tile, status: View, c: SSAValue, p: SSAValue, prefix: SSAValue
    ) -> list[SSAValue]:
        """`window` tiles a step: the words of tiles p, p - 1, ... read at once (independent loads, so their latencies
        overlap), then taken in order: a published word adds its rows, an inclusive one ends the look-back, and an
        unpublished one ends the step, which starts again at that tile."""
        m = kb.m
        words = []
        for j in range(self.window):
            tile = p if j == 0 else m.select(m.lt(m.c(j - 1), p), m.sub(p, m.c(j)), m.c(0))
            words.append(m.insert(AtomicLoadOp(status.buffer, self._slot(kb, t, tile, c), "relaxed", "device"), "word"))
        stopped, found = m.const(0, i1), m.const(0, i1)
        after, true = m.sub(p, m.c(self.window)), m.const(1, i1)
        for j, word in enumerate(words):
            flag = status_flag(kb, word)
            live = m.insert(arith.XOrIOp(stopped, true))
            published = m.insert(arith.CmpiOp(flag, m.const(0, i32), "ne"))
            adds = m.both(live, published)
            prefix = m.select(adds, _add(kb, prefix, unpack_value(kb, word, i32)), prefix, "prefix")
            ends = m.both(adds, m.eq(flag, m.const(INCLUSIVE, i32)))
            found = m.insert(arith.OrIOp(found, ends), "found")
            waits = m.both(live, m.insert(arith.XOrIOp(published, true)))
            after = m.select(waits, m.sub(p, m.c(j)) if j else p, after, "next_tile")
            stopped = m.insert(arith.OrIOp(stopped, m.insert(arith.OrIOp(waits, ends))), "stopped")
        return [after, prefix, m.insert(arith.XOrIOp(found, true), "more")]


def _counts(lw: HostLowering, op: soac.PartitionOp, scanned: HostArray, tiles: SSAValue) -> HostArray:
    """`partition_counts`: bucket b's rows, the scan's end of class b less that of class b - 1."""
    k = op.bucket_count
    counts = lw.alloc(i32, [lw.m.c(k)], op.counts.name_hint or "counts")
    kb = lw.kernel("partition_counts")
    m = kb.m
    view, out, k_tiles = kb.array(scanned, "scanned"), kb.array(counts, "counts"), kb.scalar(tiles, "tiles")
    b = kb.global_id("b")
    zero = m.const(0, i32)

    def end_of(c: SSAValue) -> SSAValue:
        """The scan's value at the end of class c - 1 (0 before class 0 or without tiles)."""
        inside = m.both(m.lt(m.c(0), c), m.lt(m.c(0), k_tiles), "has_end")
        (value,) = kb.if_values(inside, [i32], lambda: [kb.load(view, m.sub(m.mul(c, k_tiles), m.c(1)))], lambda: [zero])
        return value

    def store() -> None:
        kb.store(m.insert(arith.SubiOp(end_of(m.add(b, m.c(1))), end_of(b)), "count"), out, b)

    kb.if_then(m.lt(b, m.c(k)), store)
    lw.add_kernel(kb, *lw.grid(lw.m.c(k)))
    return counts
