"""A single-pass scan with decoupled look-back (Merrill & Garland 2016) for `soac.scan`, `soac.scanomap` and segmented scans.

Two kernels: `scan_init` zeroes one 64-bit status word per tile (and the ticket
counter); `scan_lookback` launches one work-group per tile of
`group_size * items` elements (soac-to-kernel's `scan-group` and `scan-items`, see `_tile_shape`):

1. work-item 0 takes a ticket (`kernel.atomic add`): tiles are numbered in the order in
   which work-groups start, so a group only ever waits for groups that already
   run (forward progress without a guarantee from OpenCL);
2. every work-item loads its `items` consecutive elements (16-byte
   vector loads for 1-D 32-bit inputs when the tile is full), applies the map
   lambda, writes map-outs and scans its items sequentially;
3. the group scans the work-items' aggregates: with warp shuffles (`kernel.shuffle`)
   and one barrier on NVIDIA, with a local-memory Hillis-Steele
   scan elsewhere;
4. look-back: the group publishes its aggregate (flag A) in its status word,
   then reads its predecessors' words until it finds an inclusive prefix (flag
   P), and publishes its own (tile 0 publishes P at once). A status word packs
   the flag (high 32 bits) and the value's bits (low 32 bits), so one relaxed
   64-bit atomic store (`kernel.atomic_store`) publishes both and no fence is needed; operators over several
   values use one word per value, kept side by side and written and read two at a
   time in volatile 16-byte accesses (`scan-status=paired`), and accept a predecessor
   only when all its words carry the same flag. On NVIDIA warp 0 inspects 32
   predecessors per step (ballot + shuffle reduction cut at the nearest P); elsewhere
   work-item 0 walks back one tile at a time;
5. every work-item combines the tile prefix, its group prefix and its items'
   prefixes, applies the post lambda and stores (vector stores when possible).

A scanomap's reduction part (`ScanBody.reduction`) is folded beside the scan and combined over the tiles
without the look-back (`lookback_reduce.py`); a non-commutative one makes NVIDIA tiles contiguous.

Regular segmented scans (`ScanBody.segment_start`) publish no flag, skip the look-back
in tiles that start a segment, and, with many rows longer than a tile, use a second
kernel whose tiles follow the rows (`scan_lookback_rows`, see `lookback_scan`).

Values must fit in 32 bits (i1, i8, i16, i32, f32); `lower_scan` falls back to
reduce-then-scan otherwise. On targets with 32-lane sub-groups (`nvidia`) the
group scan and the look-back use `kernel.shuffle` and `kernel.ballot` and the
tiles are shaped for NVIDIA; elsewhere (PoCL in the tests) they use local memory
and a serial look-back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from soac.lowering.conversion import device_intrinsics as ix
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, View, building_at
from soac.lowering.conversion.options import LoweringOptions
from soac.lowering.kernel import BarrierOp, LoadOp, LocalAllocOp, LocalIdOp, StoreOp
from soac.lowering.strategies.lookback_reduce import ReductionArrays, TileReducer, TileReduction, fan_in
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, i1, i32, i64
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

ROWS_MIN_SEGMENTS = 64
"""Fewest rows for the row-major segmented scan kernel. Measured on an H200 (2^27 i32, 128 x 32 tiles): with 128
rows of 2^20 row-major tiles gave 0.61 of memcpy bandwidth against 0.54 flat; with 32 rows of 2^22, 0.46 against
0.53."""


Values = list[SSAValue]
Combine = Callable[[Values, Values], Values]


class Staging(Protocol):
    """A full tile's stores gathered in local memory (a compaction: `dense_places.py`)."""

    def fits(self, tile_size: int) -> bool:
        """Whether a tile's staging area fits."""
        ...

    def begin(self, tile_prefix: Values, tile_total: Values, tile_size: int) -> None:
        """Before a full tile's stores."""
        ...

    def end(self, t: SSAValue, group: int) -> None:
        """After them: write out what they gathered."""
        ...


@dataclass
class ScanBody:
    """What a look-back scan computes, as callbacks that build code in the scan kernel.

    `load(base, count, full, end)` gives the `count` elements from `base` (each a list
    of the scanned values), writing map-outs on the way; when `full` is false it must
    guard every element with `base + j < end` and give the neutral element outside.
    `store(base, scanned, full)` writes the scanned (inclusive) values likewise. Both get the tile's
    `end` (exclusive) as their last argument: the bound of the guards when `full` is false.

    A segmented scan sets `segment_start(index)` (an i1: a segment starts at flat
    element `index`); its first value is then the segment flag of the lifted operator
    `(f1, v1) . (f2, v2) = (f1 | f2, f2 ? v2 : v1 . v2)`. The flag is not published:
    a tile whose aggregate carries it publishes its inclusive prefix at once, so an
    aggregate read in a look-back never does, and a tile that starts a segment does
    not look back at all. With `flagged` false the body scans the plain values: only
    right when segments start nowhere inside a tile (segments a whole number of tiles).
    """

    types: list[Attribute]
    neutral: Callable[[], Values]
    combine: Combine
    load: Callable[[SSAValue, int, bool, SSAValue], list[Values]]
    store: Callable[[SSAValue, list[Values], bool, SSAValue], None]
    segment_start: Callable[[SSAValue], SSAValue] | None = None
    flagged: bool = True
    scatters: bool = False
    """`store` scatters the results (scan_scatter.py) rather than storing them in place."""

    @property
    def has_flag(self) -> bool:
        return self.segment_start is not None and self.flagged

    reduction: TileReduction | None = None
    """A reduction part (`lookback_reduce.py`): each loaded item then has its reduced values after the scanned ones."""
    staging: Staging | None = None
    """Full tiles store through local memory (`Staging`)."""

    def published(self, kb: KernelBuilder) -> ScanBody:
        """The part of the scan that status words carry: all values, or all but the segment flag."""
        if not self.has_flag:
            return self
        no_flag = kb.m.const(0, i1)

        def combine(a: Values, b: Values) -> Values:
            return self.combine([no_flag, *a], [no_flag, *b])[1:]

        return ScanBody(self.types[1:], lambda: self.neutral()[1:], combine, self.load, self.store)


def supports(types: Sequence[Attribute]) -> bool:
    return bool(types) and all(ix.fits_32(t) for t in types)


# ---------------------------------------------------------------------------
# Small builders
# ---------------------------------------------------------------------------


def select(kb: KernelBuilder, cond: SSAValue, a: Values, b: Values) -> Values:
    return [kb.m.insert(arith.SelectOp(cond, x, y)) for x, y in zip(a, b)]


def while_loop(
    kb: KernelBuilder, inits: Values, names: Sequence[str], body: Callable[[Values], tuple[SSAValue, Values]]
) -> Values:
    """`state = inits; do { go_on, state = body(state) } while (go_on)`; gives the final state."""
    types = [v.type for v in inits]
    before = Block(arg_types=types)
    after = Block(arg_types=types)
    for arg, arg2, name in zip(before.args, after.args, names):
        arg.name_hint = name
        arg2.name_hint = name
    with building_at(kb.b, InsertPoint.at_end(before)):
        go_on, state = body(list(before.args))
        kb.b.insert(scf.ConditionOp(go_on, *state))
    with building_at(kb.b, InsertPoint.at_end(after)):
        kb.b.insert(scf.YieldOp(*after.args))
    op = scf.WhileOp(inits, types, Region(before), Region(after))
    kb.b.insert(op)
    return list(op.results)


def cmp(kb: KernelBuilder, a: SSAValue, b: SSAValue, predicate: str, name: str | None = None) -> SSAValue:
    return kb.m.insert(arith.CmpiOp(a, b, predicate), name)


def local_array(kb: KernelBuilder, size: int, t: Attribute, name: str) -> SSAValue:
    with building_at(kb.b, InsertPoint.at_start(kb.block)):
        return kb.m.insert(LocalAllocOp(size, t), name)


def lload(kb: KernelBuilder, local: SSAValue, index: SSAValue) -> SSAValue:
    return kb.m.insert(LoadOp(local, index))


def lstore(kb: KernelBuilder, value: SSAValue, local: SSAValue, index: SSAValue) -> None:
    kb.b.insert(StoreOp(value, local, index))


def barrier(kb: KernelBuilder) -> None:
    kb.b.insert(BarrierOp(local=True))


# ---------------------------------------------------------------------------
# The scan
# ---------------------------------------------------------------------------


def lookback_scan(
    lw: HostLowering,
    n: SSAValue,
    make_body: Callable[[KernelBuilder], ScanBody],
    warps: bool,
    rows: tuple[SSAValue, SSAValue] | None = None,
    make_aligned: Callable[[KernelBuilder], ScanBody] | None = None,
) -> list[SSAValue]:
    """Launch the init and look-back kernels scanning `n` elements (a host value); give the reduced values (host
    values read after the kernel) of the body's reduction part (`lookback_reduce.py`), if it has one.

    `rows = (segments, length)` (host values) describes a regular segmented scan. When there are at least
    ROWS_MIN_SEGMENTS rows, each longer than a tile (and a multiple of 4), a second kernel runs instead,
    whose tiles follow the rows: ticket `t` takes chunk `t / segments` of row `t % segments` and looks back over
    tickets `t - segments, t - 2 segments, ...`. A row's consecutive tiles are then `segments` tickets apart, so
    rows make progress side by side instead of one look-back chain running through the whole array.
    `make_aligned` gives the body of a third kernel, scanning without segment flags, that runs instead of both where
    every row is a whole number of its tiles (soac-to-kernel's `segscan-aligned=false` turns it off, for timing).
    """
    m = lw.m
    # The kernel is built first (it knows how many values are scanned); its launch goes after the init kernel's.
    kb = lw.kernel("scan_lookback")
    body = make_body(kb)
    group, items = _tile_shape(lw, body, kb, warps)
    tile_size = group * items
    tiles = m.ceildiv(n, m.c(tile_size), "tiles")
    flat_size = m.mul(tiles, m.c(group), "global_size")
    by_rows = aligned = None
    if rows is not None:
        segments, length = rows
        many = m.insert(arith.CmpiOp(segments, m.c(ROWS_MIN_SEGMENTS), "uge"))
        long_rows = m.insert(arith.AndIOp(many, m.insert(arith.CmpiOp(length, m.c(tile_size), "ugt"))))
        by_rows = m.insert(arith.AndIOp(long_rows, m.eq(m.rem(length, m.c(4)), m.c(0))), "tiles_by_rows")
        row_tiles = m.mul(segments, m.ceildiv(length, m.c(tile_size)))
        tiles = m.insert(arith.SelectOp(by_rows, row_tiles, tiles), "tiles")
    aligned_kb = None
    if rows is not None and make_aligned is not None and lw.options.segscan_aligned:
        aligned_kb = lw.kernel("scan_lookback_aligned")
        aligned_body = make_aligned(aligned_kb)
        aligned_shape = _tile_shape(lw, aligned_body, aligned_kb, warps)
        aligned_tile = m.c(aligned_shape[0] * aligned_shape[1])
        aligned = m.eq(m.rem(rows[1], aligned_tile), m.c(0), "rows_of_whole_tiles")
        assert by_rows is not None
        by_rows = m.insert(arith.AndIOp(by_rows, m.insert(arith.XOrIOp(aligned, m.const(1, i1)))), "tiles_by_rows")
    if by_rows is not None:
        skip = by_rows if aligned is None else m.insert(arith.OrIOp(by_rows, aligned))
        flat_size = m.insert(arith.SelectOp(skip, m.c(0), flat_size), "global_size")
    status = _Status.allocate(lw, tiles, len(body.published(kb).types))
    counter = lw.alloc(i32, [m.c(1)], "tickets")
    red = body.reduction
    blocks_of = fan_in(group, lw.options.scan_reduce_fan_in)
    reduced = ReductionArrays.allocate(lw, red.types, tiles, blocks_of) if red is not None else None
    _init_kernel(lw, tiles, status, counter, reduced)
    shape = (group, items, warps)
    _build_scan(kb, body, n, shape, status, counter, None, lw.options, reduced)
    lw.add_kernel(kb, flat_size, m.c(group))
    if rows is not None and by_rows is not None:
        kb = lw.kernel("scan_lookback_rows")
        _build_scan(kb, make_body(kb), n, shape, status, counter, rows, lw.options)
        lw.add_kernel(kb, m.insert(arith.SelectOp(by_rows, m.mul(tiles, m.c(group)), m.c(0)), "global_size"), m.c(group))
    if aligned_kb is not None and aligned is not None:
        _build_scan(aligned_kb, aligned_body, n, (*aligned_shape, warps), status, counter, None, lw.options)
        size = m.mul(m.div(n, aligned_tile), m.c(aligned_shape[0]))
        lw.add_kernel(aligned_kb, m.insert(arith.SelectOp(aligned, size, m.c(0)), "global_size"), m.c(aligned_shape[0]))
    if red is None or reduced is None:
        return []
    return reduced.host_results(lw, n, red.host_neutral)


def _tile_shape(lw: HostLowering, body: ScanBody, kb: KernelBuilder, warps: bool) -> tuple[int, int]:
    """(work-items, items per work-item) of a look-back tile of `body`: soac-to-kernel's `scan-group` and
    `scan-items`, where not 0.

    Items per work-item (a multiple of 4): on NVIDIA 64 for one 32-bit value, 96 for two published values of a plain
    scan (`_two_value_tiles`), 32 for up to 4, 16 for more (`_nvidia_items`); 16 on other devices.

    Work-group size of the NVIDIA kernel: 128 for one published value (segment flags are not published) and for two
    values of a plain scan, 256 for more. Measured on an H200, 2^28 i32 map->scan: 128 x 64 items 0.733 ms, 256 x 64
    0.767 ms; two values (scan_scan): 256 x 32 1.343 ms, 128 x 32 1.461 ms; regular segmented scan of 2^27 i32 with
    rows of 16 ... 4096: 128 x 32 0.333 ms, 256 x 32 0.350 ms, 128 x 64 0.417 ms. Issue 17, one call
    (bench/results/h200_issue17_variants_sweep2_*.txt): map->scan 128 x 64 0.681 ms, 128 x 96 0.704, 128 x 128 0.737,
    256 x 64 0.720; scan_scan 128 x 96 1.159 ms, 256 x 32 1.295, 128 x 64 1.331, 256 x 64 1.234, 128 x 128 1.421.
    """
    two_values = _two_value_tiles(body)
    forced_group, forced_items = lw.options.scan_group, lw.options.scan_items
    group = (forced_group or (128 if len(body.published(kb).types) == 1 or two_values else 256)) if warps else lw.group_size
    if warps and group % kb.warp:
        raise ValueError(f"the NVIDIA look-back scan needs a group size that is a multiple of {kb.warp}, not {group}")
    items = forced_items or ((96 if two_values else _nvidia_items(len(body.types))) if warps else 16)
    if items % 4 or items <= 0:
        raise ValueError(f"look-back scan: items per work-item must be a positive multiple of 4, not {items}")
    return group, items


def _two_value_tiles(body: ScanBody) -> bool:
    """Whether a scan takes NVIDIA's two-value tiles (128 x 96): two scanned values, no segment flag, no scatter.
    On the H200 (2^28 i32, scan_scan fused, one call) 128 x 96 took 1.159 ms against 1.295 for 256 x 32, although
    ptxas spills 32 bytes a work-item at 255 registers; 128 x 128 spilled 548 bytes and took 1.421. With paired status
    words (H100, one call) 128 x 96 took 1.253 ms against 1.325 for 128 x 64 (224 registers, no spills)."""
    return len(body.types) == 2 and body.segment_start is None and not body.scatters


def _nvidia_items(values: int) -> int:
    """Items per work-item on NVIDIA for `values` scanned values: 64 for one, 32 for up to 4, 16 for more. For 16 values
    (a radix sort's one-hot digit counters, 10^8 keys, H200, contiguous tiles) the scans of 8 passes took 20.98 ms
    of kernel time with 16 items, 22.89 with 8 and 34.07 with 4 (striped; bench/results/h200_issue12_sort_variants.txt)."""
    if values == 1:
        return 64
    if values <= 4:
        return 32
    return 16


def _striped(values: int, layout: str) -> bool:
    """Whether an NVIDIA tile is warp-striped. A striped tile scans each of its work-items' vectors across the warp
    (`items / 4` warp scans of every value), a contiguous one a work-item's items once: for many values (a radix
    sort's 16 digit counters) the shuffles, not the loads, are the larger cost: with 8 items, 22.89 ms contiguous
    against 23.65 striped on the H200 (bench/results/h200_issue12_sort_variants.txt; soac-to-kernel's `scan-layout`
    forces one)."""
    if layout != "auto":
        return layout == "striped"
    return values <= 4


def _build_scan(  # noqa: C901
    kb: KernelBuilder,
    body: ScanBody,
    n: SSAValue,
    shape: tuple[int, int, bool],
    status: _Status,
    counter: HostArray,
    rows: tuple[SSAValue, SSAValue] | None,
    options: LoweringOptions,
    reduced: ReductionArrays | None = None,
) -> None:
    """The look-back kernel's code: tiles of the flat array, or of the rows `rows = (segments, length)`; with
    `reduced`, the body's reduction part too (flat tiles only). `options.scan_lookback` false skips the look-back
    (timing experiments only: wrong results)."""
    group, items, warps = shape
    k = len(body.types)
    red = body.reduction
    assert (red is None) == (reduced is None)
    assert red is None or rows is None
    shared = body.published(kb)
    tile_size = group * items

    kn = kb.scalar(n, "n")
    status_words = status.in_kernel(kb)
    counter_view = kb.array(counter)
    t = kb.m.insert(LocalIdOp(0), "tid")
    zero = kb.m.c(0)

    ticket_local = local_array(kb, 1, IndexType(), "ticket")
    kb.if_then(kb.m.eq(t, zero), lambda: lstore(kb, ix.atomic_ticket(kb, counter_view), ticket_local, zero))
    barrier(kb)
    tile = lload(kb, ticket_local, zero)
    tile.name_hint = "tile"
    tile_base = kb.m.mul(tile, kb.m.c(tile_size), "tile_base")
    tile_end = kb.m.min(kb.m.add(tile_base, kb.m.c(tile_size)), kn, "tile_end")
    stride = kb.m.c(1)
    if rows is not None:
        segments, length = kb.scalar(rows[0]), kb.scalar(rows[1])
        row_start = kb.m.mul(kb.m.rem(tile, segments), length, "row_start")
        tile_base = kb.m.add(row_start, kb.m.mul(kb.m.div(tile, segments), kb.m.c(tile_size)), "tile_base")
        tile_end = kb.m.min(kb.m.add(tile_base, kb.m.c(tile_size)), kb.m.add(row_start, length), "tile_end")
        stride = segments
    staging = body.staging if body.staging is not None and body.staging.fits(tile_size) else None
    # a non-commutative reduction folds in order
    striped = warps and _striped(k, options.scan_layout) and (red is None or red.commutative)
    if striped:
        # Warp-striped: vector q of lane l of warp w starts at element w*items*32 + q*128 + l*4 of the tile, so each
        # vector load of a warp reads 512 contiguous bytes; scan order is (warp, q, lane, element of the vector).
        lane, warp = _lane_and_warp(kb, t)
        warp_base = kb.m.add(tile_base, kb.m.mul(warp, kb.m.c(items * kb.warp)), "warp_base")
        bases = [kb.m.add(warp_base, kb.m.add(kb.m.c(q * 4 * kb.warp), kb.m.mul(lane, kb.m.c(4)))) for q in range(items // 4)]
        full = kb.m.insert(arith.CmpiOp(kb.m.add(tile_base, kb.m.c(tile_size)), tile_end, "ule"), "full")
    else:
        bases = [kb.m.add(tile_base, kb.m.mul(t, kb.m.c(items)), "base")]
        # staged stores meet at a barrier: the whole tile must take the same branch
        ends = kb.m.add(tile_base, kb.m.c(tile_size)) if staging is not None else kb.m.add(bases[0], kb.m.c(items))
        full = kb.m.insert(arith.CmpiOp(ends, tile_end, "ule"), "full")
    per_base = items // len(bases)
    flat_types = [ty for _ in range(items) for ty in body.types]

    def loaded(is_full: bool) -> Values:
        """The scanned values of every item, then the work-item's fold of their reduced values (if any)."""
        loaded_items = [item for b in bases for item in body.load(b, per_base, is_full, tile_end)]
        scanned = [v for item in loaded_items for v in item[:k]]
        return scanned if red is None else [*scanned, *red.fold([item[k:] for item in loaded_items])]

    xs = kb.if_values(full, flat_types + (red.types if red else []), lambda: loaded(True), lambda: loaded(False))
    xs, reduced_values = xs[: len(flat_types)], xs[len(flat_types) :]
    runs: list[list[Values]] = []  # per base: the inclusive prefixes of its items
    for r in range(len(bases)):
        chunk = xs[r * per_base * k : (r + 1) * per_base * k]
        prefixes: list[Values] = [chunk[0:k]]
        for j in range(1, per_base):
            prefixes.append(body.combine(prefixes[-1], chunk[j * k : (j + 1) * k]))
        runs.append(prefixes)

    if striped:
        lane, warp = _lane_and_warp(kb, t)
        running = body.neutral()
        starts: list[Values] = []
        for prefixes in runs:
            inclusive = _warp_scan(kb, body, lane, prefixes[-1])
            shifted = [ix.shuffle(kb, "up", v, kb.m.c(1)) for v in inclusive]
            exclusive = select(kb, kb.m.eq(lane, zero), body.neutral(), shifted)
            starts.append(body.combine(running, exclusive))
            running = body.combine(running, [ix.shuffle(kb, "idx", v, kb.m.c(kb.warp - 1)) for v in inclusive])
        warp_prefix, total = _block_scan_warps(kb, body, t, running, group, inclusive=False)
        thread_prefixes = [body.combine(warp_prefix, start) for start in starts]
    else:
        aggregate = runs[0][-1]
        if warps:
            thread_prefix, total = _block_scan_warps(kb, body, t, aggregate, group)
        else:
            thread_prefix, total = _block_scan_local(kb, body, t, aggregate, group)
        thread_prefixes = [thread_prefix]

    reducer = None
    if red is not None and reduced is not None:
        reducer = TileReducer(kb, red, reduced, (t, tile, kb.m.ceildiv(kn, kb.m.c(tile_size), "tiles")), group, warps)
    prefix_local = [local_array(kb, 1, ty, f"tile_prefix_{j}") for j, ty in enumerate(shared.types)]
    first_tile = kb.m.eq(tile, zero)
    alone, ready, total_shared = first_tile, first_tile, total
    if body.segment_start is not None:
        alone = ready = kb.m.insert(arith.OrIOp(first_tile, body.segment_start(tile_base)), "starts_segment")
    if body.has_flag:
        ready = kb.m.insert(arith.OrIOp(first_tile, total[0]), "has_segment_start")
        total_shared = total[1:]
    has_prefix = kb.m.insert(arith.XOrIOp(alone, kb.m.const(1, i1)), "has_prefix")
    look_back = _look_back_warp if warps else _look_back_serial
    if options.scan_lookback:  # skipping it is for timing experiments only: wrong results
        look_back(_LookBack(kb, shared, tile, stride, has_prefix, ready, total_shared, status_words, prefix_local), t)
    if reducer is not None:  # after the look-back, off its critical path: the other warps do it meanwhile
        reducer.start_tile(reduced_values)
    barrier(kb)
    if reducer is not None:
        reducer.publish_tile()
    neutral = body.neutral()
    loaded_prefix = [lload(kb, p, zero) for p in prefix_local]
    if body.has_flag:
        loaded_prefix = [kb.m.const(0, i1), *loaded_prefix]
    tile_prefix = select(kb, has_prefix, loaded_prefix, neutral)
    scanned_runs: list[list[Values]] = []
    for prefixes, thread_prefix in zip(runs, thread_prefixes * len(runs) if not striped else thread_prefixes):
        start = body.combine(tile_prefix, thread_prefix)
        scanned_runs.append([body.combine(start, p) for p in prefixes])

    then, other = Block(), Block()
    for block, is_full in ((then, True), (other, False)):
        with building_at(kb.b, InsertPoint.at_end(block)):
            if is_full and staging is not None:
                staging.begin(tile_prefix, total, tile_size)
            for b, scanned in zip(bases, scanned_runs):
                body.store(b, scanned, is_full, tile_end)
            if is_full and staging is not None:
                staging.end(t, group)
            kb.b.insert(scf.YieldOp())
    kb.b.insert(scf.IfOp(full, [], Region(then), Region(other)))
    if reducer is not None:
        reducer.combine_tiles()


def _init_kernel(lw: HostLowering, tiles: SSAValue, status: _Status, counter: HostArray, reduced: ReductionArrays | None) -> None:
    from soac.lowering.strategies.maps import grid_stride

    kb = lw.kernel("scan_init")
    views = status.in_kernel(kb).views
    counter_view = kb.array(counter)

    def body(i: SSAValue) -> None:
        for view in views:
            kb.store(kb.m.const(0, i64), view, i)
        kb.if_then(kb.m.eq(i, kb.m.c(0)), lambda: kb.store(kb.m.const(0, i32), counter_view, kb.m.c(0)))
        if reduced is not None:
            reduced.zero_tickets(kb, i)

    # Packed words are zeroed one per work-item and step, as consecutive work-items write consecutive words.
    grid_stride(lw, kb, lw.m.mul(tiles, lw.m.c(status.packed)) if status.packed else tiles, "i", body)


def _block_scan_local(kb: KernelBuilder, body: ScanBody, t: SSAValue, aggregate: Values, group: int) -> tuple[Values, Values]:
    """Exclusive prefix of every work-item's aggregate and the group total, by Hillis-Steele in local memory."""
    locals_ = [local_array(kb, group, ty, f"block_{j}") for j, ty in enumerate(body.types)]
    for value, local in zip(aggregate, locals_):
        lstore(kb, value, local, t)
    barrier(kb)
    stride = 1
    while stride < group:
        s = kb.m.c(stride)
        has = kb.m.insert(arith.CmpiOp(t, s, "uge"), "has_partner")
        own = [lload(kb, local, t) for local in locals_]
        partner_index = kb.m.insert(arith.SelectOp(has, kb.m.sub(t, s), t))
        partner = [lload(kb, local, partner_index) for local in locals_]
        new = select(kb, has, body.combine(partner, own), own)
        barrier(kb)
        for value, local in zip(new, locals_):
            lstore(kb, value, local, t)
        barrier(kb)
        stride *= 2
    first = kb.m.eq(t, kb.m.c(0))
    before = kb.m.insert(arith.SelectOp(first, t, kb.m.sub(t, kb.m.c(1))))
    prefix = select(kb, first, body.neutral(), [lload(kb, local, before) for local in locals_])
    total = [lload(kb, local, kb.m.c(group - 1)) for local in locals_]
    barrier(kb)
    return prefix, total


def _lane_and_warp(kb: KernelBuilder, t: SSAValue) -> tuple[SSAValue, SSAValue]:
    lane = kb.m.insert(arith.AndIOp(t, kb.m.c(kb.warp - 1)), "lane")
    warp = kb.m.insert(arith.ShRUIOp(t, kb.m.c(ix.log_warp(kb))), "warp")
    return lane, warp


def _warp_scan(kb: KernelBuilder, body: ScanBody, lane: SSAValue, values: Values) -> Values:
    """Inclusive scan across the warp with `shfl.sync.up`."""
    step = 1
    while step < kb.warp:
        other = [ix.shuffle(kb, "up", v, kb.m.c(step)) for v in values]
        has = kb.m.insert(arith.CmpiOp(lane, kb.m.c(step), "uge"))
        values = select(kb, has, body.combine(other, values), values)
        step *= 2
    return values


def _block_scan_warps(
    kb: KernelBuilder, body: ScanBody, t: SSAValue, aggregate: Values, group: int, inclusive: bool = True
) -> tuple[Values, Values]:
    """Exclusive prefix of every work-item's aggregate and the group total: warp shuffles, one barrier.

    With `inclusive=False`, `aggregate` is already the warp's total (the same in every lane) and the
    result is the exclusive prefix of the warp.
    """
    lane, warp = _lane_and_warp(kb, t)
    warps = group // kb.warp
    scanned = _warp_scan(kb, body, lane, aggregate) if inclusive else aggregate
    sums = [local_array(kb, warps, ty, f"warp_sums_{j}") for j, ty in enumerate(body.types)]
    last = kb.m.eq(lane, kb.m.c(kb.warp - 1))
    kb.if_then(last, lambda: [lstore(kb, v, s, warp) for v, s in zip(scanned, sums)] and None)
    barrier(kb)
    running = body.neutral()
    warp_prefix = running
    for w in range(warps):
        is_mine = kb.m.eq(warp, kb.m.c(w))
        warp_prefix = select(kb, is_mine, running, warp_prefix)
        running = body.combine(running, [lload(kb, s, kb.m.c(w)) for s in sums])
    if not inclusive:
        return warp_prefix, running
    shifted = [ix.shuffle(kb, "up", v, kb.m.c(1)) for v in scanned]
    exclusive = select(kb, kb.m.eq(lane, kb.m.c(0)), body.neutral(), shifted)
    return body.combine(warp_prefix, exclusive), running


@dataclass
class _Status:
    """The tiles' status words (host arrays): one array per published value, or (`packed`, the number of words per
    tile) one array holding each tile's words side by side, an even number of them (an odd count of values gets a
    word more, carrying only the flag), accessed in pairs."""

    arrays: list[HostArray]
    packed: int

    @staticmethod
    def allocate(lw: HostLowering, tiles: SSAValue, values: int) -> _Status:
        m = lw.m
        count = m.max(tiles, m.c(1))
        if values >= 2 and lw.options.scan_status == "paired":
            words = values + values % 2
            return _Status([lw.alloc(i64, [m.mul(count, m.c(words))], "status_pairs")], words)
        return _Status([lw.alloc(i64, [count], f"status_{j}") for j in range(values)], 0)

    def in_kernel(self, kb: KernelBuilder) -> _StatusWords:
        return _StatusWords([kb.array(a) for a in self.arrays], self.packed)


@dataclass
class _StatusWords:
    """A kernel's views of the status arrays (`_Status`): how it publishes a tile's words and waits for them."""

    views: list[View]
    packed: int

    def publish(self, kb: KernelBuilder, flag: SSAValue, values: Values, tile: SSAValue) -> None:
        words = [kb.m.insert(arith.OrIOp(ix.pack_status(kb, 0, value), flag)) for value in values]
        if self.packed:
            words += [flag] * (self.packed - len(words))
            ix.store_status_pairs(kb, words, self.views[0], tile)
            return
        for word, view in zip(words, self.views):
            ix.store_status(kb, word, view, tile)

    def spin(self, kb: KernelBuilder, tile: SSAValue, values: int) -> Values:
        """The words of the `values` published values of `tile` once it has published them (`ix.spin_status`)."""
        return ix.spin_status(kb, self.views, tile, self.packed)[:values]


def _flag(kb: KernelBuilder, flag: int) -> SSAValue:
    return kb.m.const(flag << 32, i64)


@dataclass
class _LookBack:
    """What a tile's look-back needs: the published part of the scan, its tile (and the distance to the previous
    one), whether it must walk back (`has_prefix`), whether its aggregate is already its inclusive prefix
    (`ready`, published as such at once), its aggregate, the status words and the local slots for its prefix."""

    kb: KernelBuilder
    body: ScanBody
    tile: SSAValue
    stride: SSAValue
    has_prefix: SSAValue
    ready: SSAValue
    total: Values
    status: _StatusWords
    prefix_local: list[SSAValue]

    def spin(self, position: SSAValue) -> Values:
        return self.status.spin(self.kb, position, len(self.total))

    def publish_aggregate(self) -> None:
        flag = self.kb.m.insert(arith.SelectOp(self.ready, _flag(self.kb, 2), _flag(self.kb, 1)))
        self.status.publish(self.kb, flag, self.total, self.tile)

    def finish(self, prefix: Values) -> None:
        """Publish the inclusive prefix (unless the aggregate already was it) and keep `prefix` for the group."""
        kb = self.kb
        not_ready = kb.m.insert(arith.XOrIOp(self.ready, kb.m.const(1, i1)))
        inclusive = self.body.combine(prefix, self.total)
        kb.if_then(not_ready, lambda: self.status.publish(kb, _flag(kb, 2), inclusive, self.tile))
        for value, local in zip(prefix, self.prefix_local):
            lstore(kb, value, local, kb.m.c(0))


def _look_back_serial(lb: _LookBack, t: SSAValue) -> None:
    """Work-item 0 publishes the tile's aggregate, walks back one predecessor at a time, publishes the inclusive prefix."""
    kb, body = lb.kb, lb.body

    def walk() -> None:
        def step(state: Values) -> tuple[SSAValue, Values]:
            position, *prefix = state
            words = lb.spin(position)
            values = [ix.unpack_value(kb, w, ty) for w, ty in zip(words, body.types)]
            prefix = body.combine(values, prefix)
            inclusive = kb.m.insert(arith.CmpiOp(ix.status_flag(kb, words[0]), kb.m.const(2, i32), "eq"))
            go_on = kb.m.insert(arith.XOrIOp(inclusive, kb.m.const(1, i1)))
            return go_on, [kb.m.sub(position, lb.stride), *prefix]

        names = ["position", *("prefix" for _ in lb.total)]
        _, *prefix = while_loop(kb, [kb.m.sub(lb.tile, lb.stride), *body.neutral()], names, step)
        lb.finish(prefix)

    def leader() -> None:
        lb.publish_aggregate()
        kb.if_then(lb.has_prefix, walk)

    kb.if_then(kb.m.eq(t, kb.m.c(0)), leader)


def _look_back_warp(lb: _LookBack, t: SSAValue) -> None:
    """Warp 0 looks back over 32 predecessors per step (ballot to find the nearest P, shuffles to reduce the window)."""
    kb, body = lb.kb, lb.body
    zero = kb.m.c(0)
    lane, warp = _lane_and_warp(kb, t)
    is_lane0 = kb.m.eq(lane, zero)

    def step(state: Values) -> tuple[SSAValue, Values]:
        position, *prefix = state
        valid = cmp(kb, position, zero, "sge", "valid")
        inclusive_neutral = [kb.m.insert(arith.OrIOp(ix.pack_status(kb, 0, v), _flag(kb, 2))) for v in body.neutral()]
        words = kb.if_values(
            valid,
            [i64] * len(lb.total),
            lambda: lb.spin(position),
            lambda: inclusive_neutral,
        )
        values = [ix.unpack_value(kb, w, ty) for w, ty in zip(words, body.types)]
        is_p = kb.m.insert(arith.CmpiOp(ix.status_flag(kb, words[0]), kb.m.const(2, i32), "eq"))
        votes = ix.ballot(kb, is_p)
        nearest = ix.lowest_set_bit(kb, votes)
        values = select(kb, cmp(kb, lane, nearest, "ule"), values, body.neutral())
        step_size = 1
        while step_size < kb.warp:
            other = [ix.shuffle(kb, "down", v, kb.m.c(step_size)) for v in values]
            inside = cmp(kb, kb.m.add(lane, kb.m.c(step_size)), kb.m.c(kb.warp), "ult")
            values = select(kb, inside, body.combine(other, values), values)
            step_size *= 2
        window = [ix.shuffle(kb, "idx", v, zero) for v in values]
        prefix = body.combine(window, prefix)
        go_on = kb.m.insert(arith.CmpiOp(votes, kb.m.const(0, i32), "eq"))
        return go_on, [kb.m.sub(position, kb.m.mul(lb.stride, kb.m.c(kb.warp))), *prefix]

    def walk() -> None:
        start = kb.m.sub(lb.tile, kb.m.mul(lb.stride, kb.m.add(lane, kb.m.c(1))), "position")
        _, *prefix = while_loop(kb, [start, *body.neutral()], ["position", *("prefix" for _ in lb.total)], step)
        kb.if_then(is_lane0, lambda: lb.finish(prefix))

    def warp0() -> None:
        kb.if_then(is_lane0, lb.publish_aggregate)
        kb.if_then(lb.has_prefix, walk)

    kb.if_then(kb.m.eq(warp, zero), warp0)
