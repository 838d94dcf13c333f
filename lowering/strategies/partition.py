"""`soac.partition` at the top level: tiles of rows ranked by bucket in work-groups with local-memory counters.

    %counts, %ys = soac.partition %n buckets 256 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
        lambda(%x: i32) { ... soac.yield %bucket, %x : index, i32 }

The rows fall into `C = k + 1` classes (the `k` buckets, then every row whose bucket is outside them). A tile is
`G * E` consecutive rows, one work-group each (`G` work-items of `E` rows; `G` from the counters that fit local
memory). Three kernels and a scan:

* `partition_count`: each work-group counts its tile's rows per class with local atomics and writes the counts
  class-major, `tile_counts[c * tiles + t]`.
* the inclusive scan of `tile_counts` (the device-wide scan of the target, `lower_scan`): in class-major order it
  gives each (class, tile) the place where the tile's rows of that class begin, `scanned - tile_counts`.
* `partition_rank`: each work-group ranks its tile stably as CUB's `BlockRadixRank` does with counters in local
  memory: work-item `w` takes rows `w * E ...` of the tile and counts them in its own column of a `C x G` counter
  matrix; the matrix's exclusive scan (class-major: each work-item scans `C` counters in turn, one work-item the
  `G` sums) gives every (class, work-item) the tile-local place of its first row; each work-item then walks its
  rows again, giving each the next place of its column, moved by where the tile's rows of that class begin
  globally. The values are written there (the lambda runs again: nothing per row is stored between the kernels).
* `partition_counts`: `counts[b]`, from the scan's ends of each class.

Decoupled look-back (one pass per partition, Onesweep) and ballot-based ranking on NVIDIA are not done yet: the
rows are read twice and written once.
"""

from __future__ import annotations

from collections.abc import Callable

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, View, tensor_element
from soac.lowering.conversion.options import LoweringOptions
from soac.lowering.conversion.sequential import Inliner, _to_index, scatter_in_bounds
from soac.lowering.kernel import BarrierOp, GroupIdOp, LocalAllocOp, LocalIdOp
from soac.lowering.kernel.memory import AtomicOp
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType, i32
from xdsl.ir import Block, Region, SSAValue

COUNTER_BYTES = 40 * 1024
"""The local memory a work-group's counter matrix may take (NVIDIA allows 48 KiB a work-group)."""
TILE_ROWS = 4096
"""The rows of a tile, when the options do not say how many per work-item."""

Scan = Callable[[HostLowering, soac.ScanOp], None]


def tile_shape(options: LoweringOptions, classes: int) -> tuple[int, int]:
    """(work-items, rows per work-item) of a tile: as many work-items as counter columns fit `COUNTER_BYTES` (a power
    of two, at most the group size)."""
    group = 1
    while group * 2 <= options.group_size and group * 2 * classes * 4 <= COUNTER_BYTES:
        group *= 2
    items = options.partition_items or max(1, TILE_ROWS // group)
    return group, items


def lower_partition(lw: HostLowering, op: soac.PartitionOp, lower_scan: Scan) -> None:
    m = lw.m
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    classes = op.bucket_count + 1
    group, items = tile_shape(lw.options, classes)
    tiles = m.ceildiv(width, m.c(group * items), "tiles")
    tile_counts = lw.alloc(i32, [m.mul(m.c(classes), tiles)], "tile_counts")
    launch = (m.mul(tiles, m.c(group), "global_size"), m.c(group))
    _count(lw, op, tile_counts, tiles, group, items, launch)
    scanned = _scan(lw, tile_counts, lower_scan)
    outs = [lw.alloc(tensor_element(r.type), [width], r.name_hint) for r in op.outs]
    _rank(lw, op, tile_counts, scanned, outs, tiles, group, items, launch)
    lw.env[op.counts] = _counts(lw, op, scanned, tiles)
    for result, out in zip(op.outs, outs):
        lw.env[result] = out


class _Tile:
    """The kernel-side ids of one tile's work-group and the class of a row."""

    def __init__(self, lw: HostLowering, kb: KernelBuilder, op: soac.PartitionOp, group: int, items: int):
        m = kb.m
        self.kb, self.op, self.width = kb, op, kb.scalar(lw.scalar(op.width), "n")
        self.inputs = [kb.array(lw.array(x), x.name_hint) for x in op.inputs]
        self.inliner = Inliner(kb)
        self.tile = m.insert(GroupIdOp(0), "tile")
        self.tid = m.insert(LocalIdOp(0), "tid")
        kb.thread_id = kb.global_id()
        self.start = m.mul(self.tile, m.c(group * items), "tile_start")
        self.group, self.items = group, items

    def row(self, i: SSAValue) -> tuple[SSAValue, list[SSAValue]]:
        """Row `i`'s class (its bucket, or `k` outside the buckets) and the values it moves."""
        kb, m = self.kb, self.kb.m
        k = self.op.bucket_count
        bucket, *values = self.inliner.inline_scalars(self.op.body, [kb.row(v, i) for v in self.inputs])
        j = _to_index(kb.b, bucket)
        return m.select(scatter_in_bounds(kb, j, m.c(k)), j, m.c(k), "class"), values

    def each_row(self, row_of: Callable[[SSAValue], SSAValue], body: Callable[[SSAValue], None]) -> None:
        """`body(i)` for each of the work-item's rows `i = row_of(e)` inside the array."""
        kb, m = self.kb, self.kb.m

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            i = row_of(e)
            kb.if_then(m.lt(i, self.width, "inside"), lambda: body(i))
            return []

        kb.for_loop(m.c(0), m.c(self.items), m.c(1), [], "e", step)


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
    launch: tuple[SSAValue, SSAValue],
) -> None:
    """`partition_count`: each tile's rows per class, class-major."""
    kb = lw.kernel("partition_count")
    m = kb.m
    classes = op.bucket_count + 1
    t = _Tile(lw, kb, op, group, items)
    out, k_tiles = kb.array(tile_counts, "tile_counts"), kb.scalar(tiles, "tiles")
    counters = _local(kb, classes, "counters")
    _loop(kb, t.tid, m.c(classes), m.c(group), "c", lambda c: kb.store(m.const(0, i32), counters, c))
    _barrier(kb)

    def count(i: SSAValue) -> None:
        c, _values = t.row(i)
        m.insert(AtomicOp("add", counters.buffer, c, m.const(1, i32)))

    t.each_row(lambda e: m.add(t.start, m.add(m.mul(e, m.c(group)), t.tid)), count)  # striped: coalesced reads
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
    tile_counts: HostArray,
    scanned: HostArray,
    outs: list[HostArray],
    tiles: SSAValue,
    group: int,
    items: int,
    launch: tuple[SSAValue, SSAValue],
) -> None:
    """`partition_rank`: the stable ranks of a tile's rows (see the module docstring) and the moves."""
    kb = lw.kernel("partition_rank")
    m = kb.m
    classes = op.bucket_count + 1
    t = _Tile(lw, kb, op, group, items)
    counts_view, scanned_view = kb.array(tile_counts, "tile_counts"), kb.array(scanned, "scanned")
    out_views = [kb.array(o, r.name_hint) for o, r in zip(outs, op.outs)]
    k_tiles = kb.scalar(tiles, "tiles")
    counters = _local(kb, classes * group, "counters")  # class c, work-item w at c * group + w
    sums = _local(kb, group, "sums")
    base = _local(kb, classes, "base")
    one = m.const(1, i32)

    def blocked(e: SSAValue) -> SSAValue:
        return m.add(t.start, m.add(m.mul(t.tid, m.c(items)), e))

    def column(c: SSAValue) -> SSAValue:
        return m.add(m.mul(c, m.c(group)), t.tid, "slot")

    _loop(kb, t.tid, m.c(classes * group), m.c(group), "s", lambda s: kb.store(m.const(0, i32), counters, s))
    _barrier(kb)

    def count(i: SSAValue) -> None:
        slot = column(t.row(i)[0])
        kb.store(_add(kb, kb.load(counters, slot), one), counters, slot)

    t.each_row(blocked, count)
    _barrier(kb)
    # The exclusive scan of the counter matrix: work-item w scans slots [w * C, (w + 1) * C) ...
    first = m.mul(t.tid, m.c(classes), "first")

    def add_slot(s: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
        return [_add(kb, acc[0], kb.load(counters, m.add(first, s)), "sum")]

    (own,) = kb.for_loop(m.c(0), m.c(classes), m.c(1), [m.const(0, i32)], "s", add_slot)
    kb.store(own, sums, t.tid)
    _barrier(kb)

    def scan_sums() -> None:  # ... work-item 0 the sums of the work-items ...
        def step(w: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
            here = kb.load(sums, w, "here")
            kb.store(acc[0], sums, w)
            return [_add(kb, acc[0], here, "running")]

        kb.for_loop(m.c(0), m.c(group), m.c(1), [m.const(0, i32)], "w", step)

    kb.if_then(m.eq(t.tid, m.c(0)), scan_sums)
    _barrier(kb)

    def place_slot(s: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:  # ... and each its slots from its sum on.
        slot = m.add(first, s)
        here = kb.load(counters, slot, "here")
        kb.store(acc[0], counters, slot)
        return [_add(kb, acc[0], here, "running")]

    kb.for_loop(m.c(0), m.c(classes), m.c(1), [kb.load(sums, t.tid)], "s", place_slot)
    _barrier(kb)

    def tile_base(c: SSAValue) -> None:
        """Where the tile's rows of class c go, less their tile-local start (column 0's place)."""
        at = m.add(m.mul(c, k_tiles), t.tile)
        begin = m.insert(arith.SubiOp(kb.load(scanned_view, at), kb.load(counts_view, at)), "begin")
        kb.store(m.insert(arith.SubiOp(begin, kb.load(counters, m.mul(c, m.c(group)))), "base"), base, c)

    _loop(kb, t.tid, m.c(classes), m.c(group), "c", tile_base)
    _barrier(kb)

    def move(i: SSAValue) -> None:
        c, values = t.row(i)
        slot = column(c)
        local = kb.load(counters, slot, "local")
        kb.store(_add(kb, local, one), counters, slot)
        to = _to_index(kb.b, _add(kb, kb.load(base, c), local, "place"))
        for value, out in zip(values, out_views):
            kb.store(value, out, to)

    t.each_row(blocked, move)
    lw.add_kernel(kb, *launch)


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
