"""`soac.tiled_redomap` as one kernel with block and register tiling (seed 004, "Block tiling").

A work-group computes a block of `block[0] x block[1]` results (the strip-mined outer segmap);
each of its `block[d] / reg[d]` work-items per dimension holds a `reg[0] x reg[1]` block of
accumulators in registers. The reduction runs in chunks of `chunk` elements (the strip-mined,
interchanged redomap); for each chunk, the group copies the part of every *shared* read (one
that lacks an outer symbol, like `%a[d0, k]`) into a local tile, `tile[kk][e]` for chunk
position `kk` and block position `e`, with a barrier before and after; then every work-item
folds the chunk from local memory, reading its `reg[d]` consecutive elements of a tile row with
one vector load:

    kernel.func @main_tiled_0(...) {
      %a_tile = kernel.local_alloc 1024 : !kernel.buffer<local, f32>      // chunk x block[0]
      %bt_tile = kernel.local_alloc 1024 : !kernel.buffer<local, f32>     // chunk x block[1]
      %accs = scf.for %c0 = %c0 to %full step %chunk iter_args(...) {    // full chunks
        kernel.barrier local
        (cooperative copy of a[rows, c0 .. c0 + chunk] and bt[cols, c0 .. c0 + chunk])
        kernel.barrier local
        scf.for %kk = %c0 to %chunk step %c1 iter_args(...) {
          %x0, %x1, %x2, %x3 = kernel.vector_load %a_tile[...] ...        // reg[0] rows
          %y0, %y1, %y2, %y3 = kernel.vector_load %bt_tile[...] ...       // reg[1] columns
          (acc[r][c] = combine(acc[r][c], lambda(x_r, y_c)) for every r, c)
        }
      }
      (the last, partial chunk the same way, with its length as the bound)
      (each in-bounds result written)
    }

Reads with every outer symbol are read from global memory in the fold (except in a `staged_rows`
op: `soac-coalesce`'s row-tiles rule stages a work-item's own row `%x[d0, k]` like a shared read,
so the group's copies of G rows x chunk are coalesced); reads without `k` are read once per
result before the chunks. Rows and columns beyond the index space compute on
zeros and are not written, so any size is correct. A read along its outer symbol (`b[k, d1]`,
as `soac-tile{untranspose}` makes) is copied 4 elements of a row at a time where b's rows allow.

Variants (soac-to-kernel options, for timing on GPUs; tests/filecheck/lowering/tiled-variants.mlir):
`tile-index` adds a 32-bit version launched where every index fits (`index_width.py`; the nvidia
target's default), `tile-warps` places the work-items warp by warp (`thread_place`),
`tile-buffers=2` alternates two tiles per read with one barrier a chunk (`fold_chunks_alternating`),
and `tile-unroll` unrolls the fold of each full chunk.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from soac import dialect as soac
from soac.lowering.conversion import device_intrinsics as ix
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, View
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.kernel import BarrierOp, GroupIdOp, LoadOp, LocalAllocOp, LocalIdOp, StoreOp
from soac.lowering.strategies.index_width import index_versions
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.rewriter import Rewriter

VECTOR_WIDTHS = (4, 2)
"""Vector widths for reading a work-item's elements of a tile row, widest first (16 bytes at most for f32)."""
GLOBAL_VECTOR = 4
"""Elements of `k` a work-item copies with one vector load when a read's rows run along `k` (and `k` is a
multiple of it, so the loads are aligned)."""
SPLIT_RANKS = (1,)
"""Ranks of index space whose reduction is split into slices when the launch would have too few work-items: a
1-D space (nbody's bodies) has far fewer results than a GPU has threads; a 2-D one (matrix products) has enough."""
SPLIT_ITEMS = 1 << 19
"""Work-items a split launch of shared reads aims at (about 4000 per streaming multiprocessor of an H100 or H200:
nbody at 65536 bodies 4.29 -> 4.03 ms, all-pairs 0.404 -> 0.386 ms on an H200 against 2^17)."""
ROW_SPLIT_ITEMS = 1 << 17
"""Work-items a split launch of staged rows aims at: their fold is light and memory-bound, and more slices cost more
partials (softmax's row tiles at 65536 rows: 0.355 ms at 2^17, 0.370 at 2^19)."""
BANK_PADDING = 4
"""Extra elements per tile row when the group stores a chunk along `k`: consecutive work-items then hit
different memory banks. A multiple of every vector width, so vector reads stay aligned."""


@dataclass
class SharedRead:
    """A read whose chunks are copied to local memory: `tile[kk * stride + e]`."""

    view: View
    access: tuple[int, ...]
    outer: int | None
    """The outer symbol the read has (its block position `e`), or None for a read of `k` alone."""
    extent: int
    stride: int
    """Elements per tile row: `extent`, padded where the group's stores would hit one memory bank."""
    tile: SSAValue
    lanes: int
    """Consecutive elements along `k` each work-item copies at once: one vector load where `k` is innermost."""


def lower_tiled_redomap(lw: HostLowering, op: soac.TiledRedomapOp) -> None:
    """The tiled kernel on targets with local-memory tiles, else a result per work-item (`per_result`)."""
    if lw.target.local_tiles:
        TiledKernel(lw, op).lower()
    else:
        per_result(lw, op)


def per_result(lw: HostLowering, op: soac.TiledRedomapOp) -> None:
    """A grid-stride kernel over the results, each folding its reads from global memory in order of `k`."""
    from soac.lowering.strategies.maps import grid_stride

    dims = [lw.scalar(d) for d in op.dims]
    width = lw.scalar(op.width)
    check_reads(lw, op, dims, width)
    outs = alloc_results(lw, op, dims)
    kb = lw.kernel("tiled")
    inliner = Inliner(kb)
    m = kb.m
    kdims, kwidth = [kb.scalar(d) for d in dims], kb.scalar(width)
    views = [kb.array(lw.array(a), a.name_hint) for a in op.reads]
    out_views = [kb.array(out, result.name_hint) for out, result in zip(outs, op.outs)]
    neutral = kernel_neutral(lw, kb, op)

    def result(p: SSAValue) -> None:
        coords = m.unflatten(p, kdims, [f"i{d}" for d in range(len(kdims))])

        def step(k: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
            args = []
            for view, access in zip(views, op.accesses):
                indices = [k if s == soac.REDUCED else coords[s] for s in access]
                args.append(kb.load(view, m.row_major(indices, view.dims)))
            return inliner.inline_scalars(op.combine, [*acc, *inliner.inline_scalars(op.body, args)])

        accs = kb.for_loop(m.c(0), kwidth, m.c(1), neutral, "k", step)
        for acc, out_view in zip(accs, out_views):
            kb.store(acc, out_view, p)

    grid_stride(lw, kb, lw.m.product(dims, "count"), "p", result)


def alloc_results(lw: HostLowering, op: soac.TiledRedomapOp, dims: Sequence[SSAValue]) -> list[SSAValue]:
    """One result array per component of the accumulator, bound to the op's results."""
    outs = []
    for result in op.outs:
        out = lw.alloc(_element(result.type), dims, result.name_hint)
        lw.env[result] = out
        outs.append(out)
    return outs


def kernel_neutral(lw: HostLowering, kb: KernelBuilder, op: soac.TiledRedomapOp) -> list[SSAValue]:
    """The neutral elements as kernel scalars."""
    return [kb.scalar(lw.scalar(ne), ne.name_hint or "ne") for ne in op.neutral]


def combine_slices(
    lw: HostLowering,
    op: soac.TiledRedomapOp,
    partials: Sequence[HostArray],
    outs: Sequence[HostArray],
    slices: SSAValue,
    count: SSAValue,
) -> None:
    """The second kernel of a split reduction: each result combines its slices' partial results in order."""
    from soac.lowering.strategies.maps import grid_stride

    kb = lw.kernel("tiled_slices")
    inliner, m = Inliner(kb), kb.m
    views = [kb.array(p, "partial") for p in partials]
    out_views = [kb.array(out, result.name_hint) for out, result in zip(outs, op.outs)]
    kslices, kcount = kb.scalar(slices), kb.scalar(count)
    neutral = kernel_neutral(lw, kb, op)

    def result(p: SSAValue) -> None:
        def step(piece: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
            place = m.add(m.mul(piece, kcount), p)
            return inliner.inline_scalars(op.combine, [*acc, *(kb.load(v, place) for v in views)])

        for acc, out_view in zip(kb.for_loop(m.c(0), kslices, m.c(1), neutral, "slice", step), out_views):
            kb.store(acc, out_view, p)

    grid_stride(lw, kb, count, "p", result)


def check_reads(lw: HostLowering, op: soac.TiledRedomapOp, dims: Sequence[SSAValue], width: SSAValue) -> None:
    """Each read's reduced dimension has the reduction's width and its outer dimensions cover the index space."""
    m = lw.m
    for r, (array, access) in enumerate(zip(op.reads, op.accesses)):
        sizes = lw.array(array).dims
        for p, symbol in enumerate(access):
            if sizes[p] is (width if symbol == soac.REDUCED else dims[symbol]):
                continue
            if symbol == soac.REDUCED:
                lw.check(
                    m.eq(sizes[p], width),
                    op,
                    f"read #{r} has {{0}} elements in dimension {p}, but the reduction has width {{1}}",
                    [sizes[p], width],
                )
            else:
                lw.check(
                    m.cmp(dims[symbol], sizes[p], "ule"),
                    op,
                    f"read #{r}: d{symbol} of size {{0}} is out of bounds for dimension {p} of size {{1}}",
                    [dims[symbol], sizes[p]],
                )


@dataclass
class _HostPlan:
    """What the host computes once for every index width of a tiled kernel."""

    dims: list[SSAValue]
    width: SSAValue
    outs: list[HostArray]
    group_counts: list[SSAValue]
    body_groups: SSAValue
    slices: SSAValue | None
    """Slices of a split reduction (None: not split)."""
    slice_length: SSAValue | None
    count: SSAValue
    partials: list[HostArray]


class TiledKernel:
    """Builds the kernel of one `soac.tiled_redomap` and its launch: with `tile-index`, a 32-bit version and a 64-bit
    one (`index_width.index_versions`)."""

    def __init__(self, lw: HostLowering, op: soac.TiledRedomapOp):
        self.lw, self.op = lw, op
        self.sizes = op.sizes
        self.rank = len(op.dims)
        self.threads = [b // r for b, r in zip(self.sizes.block, self.sizes.reg)]
        self.buffers = lw.options.tile_buffers

    def lower(self) -> None:
        lw, op, hm = self.lw, self.op, self.lw.m
        dims = [lw.scalar(d) for d in op.dims]
        width = lw.scalar(op.width)
        check_reads(lw, op, dims, width)
        outs = alloc_results(lw, op, dims)
        group_counts = [hm.ceildiv(d, hm.c(b)) for d, b in zip(dims, self.sizes.block)]
        body_groups = hm.product(group_counts, "body_groups")
        group_size = self.sizes.group_size
        split = self.rank in SPLIT_RANKS
        slices = slice_length = None
        if split:
            slices, slice_length = self.slices(hm.mul(body_groups, hm.c(group_size)), width)
            groups = hm.max(hm.mul(body_groups, slices), hm.c(1), "num_groups")
        else:
            groups = hm.max(body_groups, hm.c(1), "num_groups")
        count = hm.product(dims, "count")
        partials = [lw.alloc(_element(r.type), [slices, count], "partial") for r in op.outs] if slices is not None else []
        host = _HostPlan(dims, width, outs, group_counts, body_groups, slices, slice_length, count, partials)
        launch = (hm.mul(groups, hm.c(group_size), "global_size"), hm.c(group_size))
        for bits, sized in index_versions(lw, lw.options.tile_index, self.index_bounds(host, launch[0]), launch):
            self.build(host, bits, sized)
        if slices is not None:
            combine_slices(lw, op, partials, outs, slices, count)

    def index_bounds(self, host: _HostPlan, global_size: SSAValue) -> list[SSAValue]:
        """Host values at least as large as any index the kernel computes: each array's element count with every
        dimension padded by what the kernel reads past the end (a block, a chunk ahead, a vector), the results'
        (with the slices of a split reduction) and the launch's work-items."""
        hm = self.lw.m
        pad = hm.c(max(self.sizes.block) + 2 * self.sizes.chunk + GLOBAL_VECTOR)

        def padded(sizes: Sequence[SSAValue]) -> SSAValue:
            return hm.product([hm.add(d, pad) for d in sizes])

        bounds = [padded(self.lw.array(a).dims) for a in self.op.reads]
        results = padded(host.dims)
        if host.slices is not None and host.slice_length is not None:
            results = hm.mul(hm.add(host.slices, hm.c(1)), results)
            bounds.append(hm.mul(hm.add(host.slices, hm.c(1)), hm.add(host.slice_length, pad)))
        return [*bounds, results, hm.add(host.width, pad), global_size]

    def build(self, host: _HostPlan, bits: int, launch: tuple[SSAValue, SSAValue]) -> None:
        """The kernel with `bits`-wide indices, launched as `launch` says."""
        lw, op = self.lw, self.op
        self.kb = kb = lw.kernel("tiled")
        kb.index_bits = bits
        self.inliner = Inliner(kb)
        self.dims = [kb.scalar(d) for d in host.dims]
        self.width = kb.scalar(host.width)
        self.k_aligned = kb.m.eq(kb.m.rem(self.width, kb.m.c(GLOBAL_VECTOR)), kb.m.c(0), "k_aligned")
        self.tiles = self.alloc_tiles()
        group = kb.m.insert(GroupIdOp(0), "group")
        if host.slices is not None and host.slice_length is not None:
            kbody_groups = kb.scalar(host.body_groups)
            self.place(kb.m.rem(group, kbody_groups), [kb.scalar(g) for g in host.group_counts])
            piece = kb.m.div(group, kbody_groups, "slice")
            lo = kb.m.mul(piece, kb.scalar(host.slice_length), "lo")
            hi = kb.m.min(kb.m.add(lo, kb.scalar(host.slice_length)), self.width, "hi")
            targets = [kb.array(p, "partial") for p in host.partials]
            offset: SSAValue | None = kb.m.mul(piece, kb.scalar(host.count))
        else:
            self.place(group, [kb.scalar(g) for g in host.group_counts])
            lo, hi = kb.m.c(0), self.width
            targets = [kb.array(out, result.name_hint) for out, result in zip(host.outs, op.outs)]
            offset = None
        self.private_views = [kb.array(lw.array(a), a.name_hint) for a in op.reads]
        self.fixed = self.read_fixed()
        accs = self.fold_chunks(lo, hi) if self.buffers == 1 else self.fold_chunks_alternating(lo, hi)
        for cell, cell_accs in zip(self.cells, self.per_cell(accs)):

            def store(cell: tuple[int, ...] = cell, cell_accs: list[SSAValue] = cell_accs) -> None:
                place = kb.m.row_major(self.coords[cell], self.dims)
                if offset is not None:
                    place = kb.m.add(offset, place)
                for acc, target in zip(cell_accs, targets):
                    kb.store(acc, target, place)

            kb.when(self.in_space[cell], store)
        contract_multiply_adds(kb.block)
        lw.add_kernel(kb, *launch)

    def slices(self, items: SSAValue, width: SSAValue) -> tuple[SSAValue, SSAValue]:
        """Into how many slices of whole chunks the reduction is split, and their length: enough for the launch to
        have `SPLIT_ITEMS` work-items (`ROW_SPLIT_ITEMS` for staged rows; the `tile-split-items` option), no empty
        slice, and one slice of `chunk` when the width is 0."""
        hm, chunk = self.lw.m, self.lw.m.c(self.sizes.chunk)
        target_items = self.lw.options.tile_split_items or (ROW_SPLIT_ITEMS if self.op.stages_rows else SPLIT_ITEMS)
        wanted = hm.ceildiv(hm.c(target_items), hm.max(items, hm.c(1)), "wanted_slices")
        length = hm.mul(hm.ceildiv(hm.ceildiv(width, wanted), chunk), chunk)
        length = hm.max(length, chunk, "slice_length")
        return hm.max(hm.ceildiv(width, length), hm.c(1), "slices"), length

    def place(self, group_id: SSAValue, group_counts: list[SSAValue]) -> None:
        """The work-group's block of the index space, the work-item's register block in it, and its cells'
        coordinates and whether they lie in the index space."""
        m = self.kb.m
        group = m.unflatten(group_id, group_counts, [f"g{d}" for d in range(self.rank)])
        self.tid = m.insert(LocalIdOp(0), "tid")
        thread = self.thread_place()
        self.base = [m.mul(g, m.c(b), f"base{d}") for d, (g, b) in enumerate(zip(group, self.sizes.block))]
        self.widths = [vector_width(r) for r in self.sizes.reg]
        self.first = [m.mul(t, m.c(w), f"first{d}") for d, (t, w) in enumerate(zip(thread, self.widths))]
        self.cells = list(itertools.product(*(range(r) for r in self.sizes.reg)))
        starts = [m.add(b, f, f"start{d}") for d, (b, f) in enumerate(zip(self.base, self.first))]
        coord = [[m.add(s, m.c(self.offset(d, r))) for r in range(reg)] for d, (s, reg) in enumerate(zip(starts, self.sizes.reg))]
        inside = [[m.lt(c, n) for c in cs] for cs, n in zip(coord, self.dims)]
        self.coords = {cell: [coord[d][r] for d, r in enumerate(cell)] for cell in self.cells}
        self.in_space: dict[tuple[int, ...], SSAValue | None] = {}
        for cell in self.cells:
            ok: SSAValue | None = None
            for d, r in enumerate(cell):
                ok = m.both(ok, inside[d][r])
            self.in_space[cell] = ok

    def warp_shape(self) -> tuple[int, int] | None:
        """The work-items of a warp as (rows, columns) of the group's 2-D arrangement (`tile-warps`), or None: the
        option is off, or the arrangement is not whole warps of that shape."""
        choice = self.lw.options.tile_warps
        if choice == "off" or self.rank != 2:
            return None
        rows, columns = (int(x) for x in choice.split("x"))
        if self.threads[0] % rows or self.threads[1] % columns:
            return None
        return rows, columns

    def thread_place(self) -> list[SSAValue]:
        """This work-item's place `(t0, t1)` in the group's arrangement of `block / reg` work-items per dimension:
        row-major by local id, or with `tile-warps` warp by warp, each warp a `rows x columns` sub-arrangement
        (warps row-major over the group, lanes row-major in the warp)."""
        m = self.kb.m
        names = ["t0", "t1"][: self.rank]
        shape = self.warp_shape()
        if shape is None:
            return m.unflatten(self.tid, [m.c(t) for t in self.threads], names)
        rows, columns = shape
        warp, lane = m.div(self.tid, m.c(rows * columns), "warp"), m.rem(self.tid, m.c(rows * columns), "lane")
        warp_row, warp_column = m.unflatten(warp, [m.c(self.threads[0] // rows), m.c(self.threads[1] // columns)], ["wr", "wc"])
        lane_row, lane_column = m.unflatten(lane, [m.c(rows), m.c(columns)], ["lr", "lc"])
        return [
            m.add(m.mul(warp_row, m.c(rows)), lane_row, "t0"),
            m.add(m.mul(warp_column, m.c(columns)), lane_column, "t1"),
        ]

    def offset(self, d: int, r: int) -> int:
        """Where cell `r` of a work-item's register block lies along dimension `d`, from its first element.

        The block is `reg / w` runs of `w` (the vector width) consecutive elements, the runs `block / (reg / w)`
        apart, so that the work-items' vector reads of a tile row are consecutive (no bank conflicts).
        """
        w = self.widths[d]
        span = self.sizes.block[d] // (self.sizes.reg[d] // w)
        return (r // w) * span + r % w

    def chunking(self, lo: SSAValue, hi: SSAValue) -> tuple[list[SSAValue], int, SSAValue, SSAValue]:
        """The accumulators' neutral values, how many values the accumulators of every cell are, the chunk size, and
        where the full chunks of `lo <= k < hi` end."""
        m = self.kb.m
        neutral = kernel_neutral(self.lw, self.kb, self.op)
        chunk = m.c(self.sizes.chunk)
        if m.constant_of(lo) == 0:
            full = m.mul(m.div(hi, chunk), chunk, "full")
        else:
            full = m.add(lo, m.mul(m.div(m.sub(hi, lo), chunk), chunk), "full")
        return neutral, len(self.cells) * len(neutral), chunk, full

    def fold_chunks(self, lo: SSAValue, hi: SSAValue) -> list[SSAValue]:
        """The accumulators after every chunk of `lo <= k < hi`: full chunks in a loop that loads each next chunk
        ahead, then the partial one."""
        kb, m = self.kb, self.kb.m
        neutral, count, chunk, full = self.chunking(lo, hi)

        def full_chunk(c0: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
            self.store_chunk(carried[count:])
            ahead = self.load_chunk(m.add(c0, chunk))
            return [*self.fold_chunk(c0, carried[:count], chunk), *ahead]

        carried = kb.for_loop(lo, full, chunk, neutral * len(self.cells) + self.load_chunk(lo), "c0", full_chunk)
        accs, ahead = carried[:count], carried[count:]
        tail = m.sub(hi, full, "tail")

        def last_chunk() -> list[SSAValue]:
            self.store_chunk(ahead)
            return self.fold_chunk(full, accs, tail)

        if not self.lw.options.tile_tail_branch:  # PoCL: no barriers in a branch (`LoweringOptions.tile_tail_branch`)
            return last_chunk()
        return kb.if_values(m.cmp(tail, m.c(0), "ugt"), [a.type for a in accs], last_chunk, lambda: accs)

    def fold_chunks_alternating(self, lo: SSAValue, hi: SSAValue) -> list[SSAValue]:
        """`fold_chunks` with two local tiles per read used in turn (`tile-buffers=2`): while the group folds a chunk
        from one, each work-item loads the next chunk and stores it into the other, then one barrier. A tile is
        overwritten only a chunk after its fold, and every work-item has passed the barrier after that fold."""
        kb, m = self.kb, self.kb.m
        neutral, count, chunk, full = self.chunking(lo, hi)
        self.store_chunk(self.load_chunk(lo), m.c(0), barrier_before=False)

        def full_chunk(c0: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
            accs, front = carried[:count], carried[count]
            ahead = self.load_chunk(m.add(c0, chunk))
            folded = self.fold_chunk(c0, accs, chunk, front)
            back = m.sub(m.c(1), front, "back")
            self.store_chunk(ahead, back, barrier_before=False)
            return [*folded, back]

        carried = kb.for_loop(lo, full, chunk, [*(neutral * len(self.cells)), m.c(0)], "c0", full_chunk)
        accs, front = carried[:count], carried[count]
        front.name_hint = "front"
        tail = m.sub(hi, full, "tail")
        last_chunk = lambda: self.fold_chunk(full, accs, tail, front)  # noqa: E731
        return kb.if_values(m.cmp(tail, m.c(0), "ugt"), [a.type for a in accs], last_chunk, lambda: accs)

    def per_cell(self, accs: Sequence[SSAValue]) -> list[list[SSAValue]]:
        """The flat list of accumulators (cell by cell, each a tuple) split by cell."""
        size = len(self.op.neutral)
        return [list(accs[c * size : (c + 1) * size]) for c in range(len(self.cells))]

    # -- the reads -------------------------------------------------------------

    def alloc_tiles(self) -> dict[int, SharedRead]:
        """A local tile per read that has `k` and misses an outer symbol, and (`staged_rows`) per read of a
        work-item's own row (`%x[d0, k]` of a 1-D index space)."""
        tiles: dict[int, SharedRead] = {}
        for r, (array, access) in enumerate(zip(self.op.reads, self.op.accesses)):
            outer = [s for s in access if s != soac.REDUCED]
            own_row = self.op.stages_rows and self.rank == 1 and access == (0, soac.REDUCED)
            if soac.REDUCED not in access or (len(outer) == self.rank and not own_row):
                continue
            extent = self.sizes.block[outer[0]] if outer else 1
            k_innermost = access[-1] == soac.REDUCED
            stride = extent + (self.bank_padding(own_row) if k_innermost and extent >= 32 else 0)
            element = _element(array.type)
            size = self.sizes.chunk * stride * self.buffers
            tile = self.kb.m.insert(LocalAllocOp(size, element), f"{array.name_hint or 'read'}_tile")
            view = self.kb.array(self.lw.array(array), array.name_hint)
            along = self.sizes.chunk if k_innermost else extent
            lanes = GLOBAL_VECTOR if along % GLOBAL_VECTOR == 0 and _vectorizable(element) else 1
            tiles[r] = SharedRead(view, access, outer[0] if outer else None, extent, stride, tile, lanes)
        return tiles

    def bank_padding(self, own_row: bool) -> int:
        """Padding of a tile row stored along `k`: `BANK_PADDING`, which keeps the work-items' vector reads of the row
        aligned; one element for a staged row read one element at a time (`reg` 1): the group's stores, 4
        consecutive elements of `k` a work-item, then fall in 32 distinct banks."""
        return 1 if own_row and vector_width(self.sizes.reg[0]) == 1 else BANK_PADDING

    def read_fixed(self) -> dict[tuple[int, tuple[int, ...]], SSAValue]:
        """The reads without `k`, once per result cell (zero outside the index space)."""
        values: dict[tuple[int, tuple[int, ...]], SSAValue] = {}
        for r, access in enumerate(self.op.accesses):
            if soac.REDUCED in access:
                continue
            for cell in self.cells:
                key = (r, tuple(cell[s] for s in access))
                if key not in values:
                    indices = [self.coords[cell][s] for s in access]
                    ok = self.all_below(indices, [self.dims[s] for s in access])
                    view = self.private_views[r]
                    values[key] = self.kb.load_if(ok, view, self.kb.m.row_major(indices, view.dims))
        return values

    def all_of(self, *conditions: SSAValue | None) -> SSAValue | None:
        """The conjunction of the conditions given (None: no condition, always true)."""
        ok: SSAValue | None = None
        for condition in conditions:
            if condition is not None:
                ok = self.kb.m.both(ok, condition)
        return ok

    def all_below(self, indices: Sequence[SSAValue], limits: Sequence[SSAValue]) -> SSAValue | None:
        ok: SSAValue | None = None
        for i, n in zip(indices, limits):
            ok = self.kb.m.both(ok, self.kb.m.lt(i, n))
        return ok

    # -- one chunk ---------------------------------------------------------------

    def shares(self, shared: SharedRead) -> list[tuple[SSAValue, SSAValue, SSAValue | None]]:
        """The tile positions `(kk, q)` this work-item copies, `shared.lanes` consecutive ones along `k` from each,
        with the condition that the position exists."""
        m = self.kb.m
        chunk, extent, group, lanes = self.sizes.chunk, shared.extent, self.sizes.group_size, shared.lanes
        count = chunk * extent // lanes
        positions = []
        for p in range(-(-count // group)):
            v = m.add(self.tid, m.c(p * group), "v")
            exists = m.lt(v, m.c(count)) if (p + 1) * group > count else None
            e = m.mul(v, m.c(lanes), "e")
            if shared.access[-1] == soac.REDUCED:
                positions.append((m.rem(e, m.c(chunk), "kk"), m.div(e, m.c(chunk), "q"), exists))
            else:
                positions.append((m.div(e, m.c(extent), "kk"), m.rem(e, m.c(extent), "q"), exists))
        return positions

    def load_chunk(self, c0: SSAValue) -> list[SSAValue]:
        """This work-item's share of the chunk at `c0` of every shared read, in registers (zero outside the arrays):
        loaded one chunk ahead, so that the loads run while the group folds the chunk before."""
        kb, m = self.kb, self.kb.m
        values: list[SSAValue] = []
        for shared in self.tiles.values():
            for kk, q, exists in self.shares(shared):
                k = m.add(c0, kk, "k")
                indices = [k if s == soac.REDUCED else m.add(self.base[s], q) for s in shared.access]
                rows = [i for i, s in zip(indices, shared.access) if s != soac.REDUCED]
                row_ok = self.all_of(exists, self.all_below(rows, [self.dims[s] for s in shared.access if s != soac.REDUCED]))
                flat = m.row_major(indices, shared.view.dims)
                if shared.lanes == 1:
                    values.append(kb.load_if(self.all_of(row_ok, m.lt(k, self.width)), shared.view, flat, "ahead"))
                    continue

                def scalars(k: SSAValue = k, flat: SSAValue = flat, row_ok: SSAValue | None = row_ok) -> list[SSAValue]:
                    return [
                        kb.load_if(self.all_of(row_ok, m.lt(m.add(k, m.c(j)), self.width)), shared.view, m.add(flat, m.c(j)))
                        for j in range(shared.lanes)
                    ]

                if shared.access[-1] != soac.REDUCED:
                    values.extend(self.load_row_lanes(shared, k, indices, flat, exists))
                    continue
                whole = self.all_of(row_ok, self.k_aligned, m.lt(k, self.width))
                assert whole is not None
                vector = lambda flat=flat: ix.vector_load(kb, shared.view, flat, shared.lanes)  # noqa: E731
                loaded = kb.if_values(whole, [shared.view.element] * shared.lanes, vector, scalars)
                for value in loaded:
                    value.name_hint = "ahead"
                values.extend(loaded)
        return values

    def load_row_lanes(
        self, shared: SharedRead, k: SSAValue, indices: list[SSAValue], flat: SSAValue, exists: SSAValue | None
    ) -> list[SSAValue]:
        """`shared.lanes` consecutive elements along the read's outer symbol (its innermost dimension, as b's rows in
        `b[k, d1]`) at `indices`: one vector load where all lie inside the index space and the array's rows are a
        multiple of the vector (so the load is aligned), else one guarded load each."""
        kb, m = self.kb, self.kb.m
        assert shared.outer is not None
        last, limit = indices[-1], self.dims[shared.outer]
        k_ok = self.all_of(exists, m.lt(k, self.width), *self.all_rows_below(shared, indices[:-1]))

        def scalars() -> list[SSAValue]:
            return [
                kb.load_if(self.all_of(k_ok, m.lt(m.add(last, m.c(j)), limit)), shared.view, m.add(flat, m.c(j)))
                for j in range(shared.lanes)
            ]

        row_aligned = m.eq(m.rem(shared.view.dims[-1], m.c(shared.lanes)), m.c(0), "row_aligned")
        whole = self.all_of(k_ok, row_aligned, m.lt(m.add(last, m.c(shared.lanes - 1)), limit))
        assert whole is not None
        vector = lambda: ix.vector_load(kb, shared.view, flat, shared.lanes)  # noqa: E731
        loaded = kb.if_values(whole, [shared.view.element] * shared.lanes, vector, scalars)
        for value in loaded:
            value.name_hint = "ahead"
        return loaded

    def all_rows_below(self, shared: SharedRead, leading: list[SSAValue]) -> list[SSAValue]:
        """That each of the leading indices of a read (all but its innermost) of an outer symbol is in the index
        space (for `b[k, d1]`, none: its only other index is `k`)."""
        return [self.kb.m.lt(i, self.dims[s]) for i, s in zip(leading, shared.access) if s != soac.REDUCED]

    def store_chunk(self, values: list[SSAValue], buffer: SSAValue | None = None, barrier_before: bool = True) -> None:
        """The group writes the chunk it loaded into the tiles (into their `buffer`-th half with two), between
        barriers (only after, where the tiles alternate)."""
        kb, m = self.kb, self.kb.m
        if barrier_before:
            kb.b.insert(BarrierOp(local=True))
        loaded = iter(values)
        for shared in self.tiles.values():
            start = self.buffer_start(shared, buffer)
            for kk, q, exists in self.shares(shared):
                for j in range(shared.lanes):
                    value = next(loaded)
                    if shared.access[-1] == soac.REDUCED:  # the lanes run along k, else along the tile row
                        place = m.add(m.mul(m.add(kk, m.c(j)), m.c(shared.stride)), q)
                    else:
                        place = m.add(m.mul(kk, m.c(shared.stride)), m.add(q, m.c(j)))
                    place = m.add(place, start)
                    kb.when(exists, lambda v=value, t=shared.tile, place=place: kb.b.insert(StoreOp(v, t, place)))
        kb.b.insert(BarrierOp(local=True))

    def buffer_start(self, shared: SharedRead, buffer: SSAValue | None) -> SSAValue:
        """Where tile `buffer` (0 or 1) of a read begins in its local array (0 with one tile)."""
        m = self.kb.m
        return m.c(0) if buffer is None else m.mul(buffer, m.c(self.sizes.chunk * shared.stride))

    def fold_chunk(self, c0: SSAValue, accs: list[SSAValue], length: SSAValue, buffer: SSAValue | None = None) -> list[SSAValue]:
        m = self.kb.m
        starts = {r: self.buffer_start(shared, buffer) for r, shared in self.tiles.items()}
        choice = self.lw.options.tile_unroll
        wanted = choice == "on" or (choice == "auto" and self.rank == 2)
        unroll = wanted and m.constant_of(length) is not None  # a full chunk (`tile-unroll`)
        step = lambda kk, acc: self.fold_step(c0, kk, acc, starts)  # noqa: E731
        return self.kb.for_loop(m.c(0), length, m.c(1), accs, "kk", step, unroll=unroll)

    def fold_step(
        self, c0: SSAValue, kk: SSAValue, accs: list[SSAValue], starts: dict[int, SSAValue] | None = None
    ) -> list[SSAValue]:
        """`acc[cell] = combine(acc[cell], lambda(reads at cell, c0 + kk))` for every cell of the work-item (each
        accumulator a tuple of `len(neutral)` values); `starts`: where each read's tile begins in its local array."""
        m = self.kb.m
        starts = starts or {}
        tile_values = {r: self.tile_row(shared, kk, starts.get(r)) for r, shared in self.tiles.items()}
        k = m.add(c0, kk, "k")
        new: list[SSAValue] = []
        for cell, acc in zip(self.cells, self.per_cell(accs)):
            args: list[SSAValue] = []
            for r, access in enumerate(self.op.accesses):
                if r in tile_values:
                    shared = self.tiles[r]
                    args.append(tile_values[r][cell[shared.outer] if shared.outer is not None else 0])
                elif soac.REDUCED in access:
                    args.append(self.read_private(r, cell, k))
                else:
                    args.append(self.fixed[(r, tuple(cell[s] for s in access))])
            mapped = self.inliner.inline_scalars(self.op.body, args)
            new.extend(self.inliner.inline_scalars(self.op.combine, [*acc, *mapped]))
        return new

    def tile_row(self, shared: SharedRead, kk: SSAValue, start: SSAValue | None = None) -> list[SSAValue]:
        """The elements of the tile (from `start` in its local array) at chunk position `kk` that this work-item
        uses: `reg[outer]` of them."""
        kb, m = self.kb, self.kb.m
        row = m.mul(kk, m.c(shared.stride))
        if start is not None:
            row = m.add(row, start)
        if shared.outer is None:
            return [m.insert(LoadOp(shared.tile, row))]
        d = shared.outer
        count, width = self.sizes.reg[d], self.widths[d]
        start = m.add(row, self.first[d])
        if width == 1 or not _vectorizable(shared.view.element):
            return [m.insert(LoadOp(shared.tile, m.add(start, m.c(self.offset(d, r))))) for r in range(count)]
        tile = View(shared.tile, m.c(0), [], shared.view.element)
        return [x for v in range(0, count, width) for x in ix.vector_load(kb, tile, m.add(start, m.c(self.offset(d, v))), width)]

    def read_private(self, r: int, cell: tuple[int, ...], k: SSAValue) -> SSAValue:
        """A read with every outer symbol and `k`, from global memory (zero outside the index space)."""
        view = self.private_views[r]
        indices = [k if s == soac.REDUCED else self.coords[cell][s] for s in self.op.accesses[r]]
        return self.kb.load_if(self.in_space[cell], view, self.kb.m.row_major(indices, view.dims))


def vector_width(reg: int) -> int:
    """The widest vector that divides a register block of `reg` elements (1: none)."""
    return max((w for w in VECTOR_WIDTHS if reg % w == 0), default=1)


def _element(t: Attribute) -> Attribute:
    assert isinstance(t, TensorType)
    return t.get_element_type()


def _vectorizable(element: Attribute) -> bool:
    return not (isinstance(element, IntegerType) and element.width.data == 1)


def contract_multiply_adds(block: Block) -> None:
    """`addf(x, mulf(a, b))` -> `math.fma(a, b, x)` where the product has no other use, as OpenCL C contracts
    `a * b + x` written as one expression (the kernel's statements are separate, so its compiler would not)."""
    for op in list(block.walk()):
        if not isinstance(op, arith.AddfOp):
            continue
        for product, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            mul = product.owner
            if isinstance(mul, arith.MulfOp) and product.has_one_use() and mul.parent_block() is op.parent_block():
                fma = mathd.FmaOp(mul.lhs, mul.rhs, other)
                fma.result.name_hint = op.result.name_hint
                Rewriter.replace_op(op, fma)
                Rewriter.erase_op(mul)
                break
