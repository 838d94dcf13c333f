"""A transpose of the two innermost dimensions through local memory: both its reads and its writes coalesced.

`soac.transpose %xs [.., r-1, r-2]` (batch dimensions in place, the last two swapped) is the copy that `soac-coalesce`
makes before a kernel whose work-items walk along rows. A grid-stride copy (`maps.lower_transpose`) reads or writes
one of the two sides a whole row apart between neighbouring work-items; here each work-group moves a `TILE` x `TILE`
tile of one batch: it reads the tile's rows (consecutive work-items, consecutive columns), writes it into local
memory, and after a barrier writes the tile's columns as rows of the result (again consecutive addresses). The local
tile has `TILE + 1` columns, so that the column reads hit distinct banks:

    kernel.func @f_transpose_tiled_0(%src: !kernel.buffer<global, f32>, %dst: !kernel.buffer<global, f32>, ...) {
      %tile = kernel.local_alloc 1056 : !kernel.buffer<local, f32>    (32 x 33)
      %tid = kernel.local_id 0       %tx = %tid % 32       %ty = %tid / 32      (256 work-items: 8 rows of 32)
      scf.for %t = group_id to %tiles step num_groups {
        (%b, %r0, %c0) = the tile's batch, first row and column
        for k in 0..3:  tile[(ty + 8k) * 33 + tx] = src[b, r0 + ty + 8k, c0 + tx]      (inside the array)
        kernel.barrier local
        for k in 0..3:  dst[b, c0 + ty + 8k, r0 + tx] = tile[tx * 33 + ty + 8k]
        kernel.barrier local
      }
    }

The groups loop over the tiles (at most `max-groups * 8` groups), so a launch never asks for more groups than a device
takes; every work-item of a group runs the same iterations, so the barriers are reached by all of it.
"""

from __future__ import annotations

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray
from soac.lowering.kernel import BarrierOp, GroupIdOp, LoadOp, LocalAllocOp, LocalIdOp, NumGroupsOp, StoreOp
from soac.lowering.strategies.index_width import index_versions
from xdsl.ir import SSAValue

TILE = 32
"""The side of a tile (one warp's worth of 32-bit columns: a 128-byte line per row)."""
ROWS = 8
"""Rows of work-items per group: each moves `TILE // ROWS` rows of its tile."""
GROUP_SIZE = TILE * ROWS
STRIDE = TILE + 1
"""Elements per row of the local tile: one more than a row, so that a column's elements fall in distinct banks."""
MAX_GROUPS_FACTOR = 8
"""The launch's groups: at most `max-groups` times this (each loops over its share of the tiles)."""


def swaps_last_two(perm: tuple[int, ...]) -> bool:
    """Whether `perm` keeps every dimension but the last two, which it swaps."""
    rank = len(perm)
    return rank >= 2 and tuple(perm) == (*range(rank - 2), rank - 1, rank - 2)


def tiled(lw: HostLowering, op: soac.TransposeOp) -> bool:
    """Whether `op` takes the tiled kernel: it swaps the last two dimensions, and the `transpose` option (or, with
    `auto`, the target's local tiles) says so."""
    choice = lw.options.transpose
    if choice == "simple" or not swaps_last_two(tuple(op.perm)):
        return False
    return choice == "tiled" or lw.options.device_target.local_tiles


def lower_tiled_transpose(lw: HostLowering, op: soac.TransposeOp) -> None:
    """One kernel that moves the array tile by tile through local memory (see the module docstring); with
    `tile-index`, a 32-bit version and a 64-bit one (`index_width.index_versions`)."""
    source = lw.array(op.array)
    *batch, rows, cols = source.dims
    out = lw.alloc(source.element, [*batch, cols, rows], op.result.name_hint)
    lw.env[op.result] = out
    hm = lw.m
    tile = hm.c(TILE)
    row_tiles, col_tiles = hm.ceildiv(rows, tile, "row_tiles"), hm.ceildiv(cols, tile, "col_tiles")
    per_batch = hm.mul(row_tiles, col_tiles, "tiles_per_batch")
    tiles = hm.mul(hm.product(batch), per_batch, "tiles")
    groups = hm.min(tiles, hm.c(lw.options.max_groups * MAX_GROUPS_FACTOR), "num_groups")
    launch = (hm.mul(groups, hm.c(GROUP_SIZE), "global_size"), hm.c(GROUP_SIZE))
    padded = hm.mul(hm.product(batch), hm.mul(hm.add(rows, tile), hm.add(cols, tile)))
    bounds = [padded, hm.add(tiles, launch[0]), launch[0]]  # the elements past a tile's end; the groups' last tile
    for bits, sized in index_versions(lw, lw.options.tile_index, bounds, launch):
        _transpose_kernel(lw, op, source, out, (rows, cols, col_tiles, per_batch, tiles), bits, sized)


def _transpose_kernel(
    lw: HostLowering,
    op: soac.TransposeOp,
    source: HostArray,
    out: HostArray,
    sizes: tuple[SSAValue, SSAValue, SSAValue, SSAValue, SSAValue],
    bits: int,
    launch: tuple[SSAValue, SSAValue],
) -> None:
    rows, cols, col_tiles, per_batch, tiles = sizes
    kb = lw.kernel("transpose_tiled")
    kb.index_bits = bits
    m = kb.m
    src = kb.array(source, op.array.name_hint or "src")
    dst = kb.array(out, op.result.name_hint or "dst")
    k_rows, k_cols = kb.scalar(rows, "rows"), kb.scalar(cols, "cols")
    k_col_tiles, k_per_batch = kb.scalar(col_tiles), kb.scalar(per_batch)
    local = m.insert(LocalAllocOp(TILE * STRIDE, source.element), "tile")
    tid = m.insert(LocalIdOp(0), "tid")
    tx, ty = m.rem(tid, m.c(TILE), "tx"), m.div(tid, m.c(TILE), "ty")
    matrix = m.mul(k_rows, k_cols, "matrix")

    read_step = m.mul(m.c(ROWS), k_cols, "read_step")  # ROWS rows further in the source
    write_step = m.mul(m.c(ROWS), k_rows, "write_step")  # ROWS rows further in the result

    def one_tile(t: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        """Tile `t`: its reads as the work-item's first address plus `k` steps (no index product per element)."""
        b = m.div(t, k_per_batch, "b")
        within = m.rem(t, k_per_batch)
        r0 = m.mul(m.div(within, k_col_tiles), m.c(TILE), "r0")
        c0 = m.mul(m.rem(within, k_col_tiles), m.c(TILE), "c0")
        base = m.mul(b, matrix, "base")
        row, col = m.add(r0, ty, "row"), m.add(c0, tx, "col")  # this work-item's first source element
        read_at = m.add(base, m.add(m.mul(row, k_cols), col), "read_at")
        col_inside = m.lt(col, k_cols, "col_inside")
        for k in range(TILE // ROWS):
            inside = m.both(col_inside, m.lt(m.add(row, m.c(k * ROWS)), k_rows))
            flat = m.add(read_at, m.mul(read_step, m.c(k))) if k else read_at
            place = m.add(m.mul(ty, m.c(STRIDE)), m.add(tx, m.c(k * ROWS * STRIDE)))

            def load(flat: SSAValue = flat, place: SSAValue = place) -> None:
                kb.b.insert(StoreOp(kb.load(src, flat, "x"), local, place))

            kb.when(inside, load)
        kb.b.insert(BarrierOp(local=True))
        out_row, out_col = m.add(c0, ty, "out_row"), m.add(r0, tx, "out_col")  # its first result element
        write_at = m.add(base, m.add(m.mul(out_row, k_rows), out_col), "write_at")
        out_col_inside = m.lt(out_col, k_rows, "out_col_inside")
        for k in range(TILE // ROWS):
            inside = m.both(out_col_inside, m.lt(m.add(out_row, m.c(k * ROWS)), k_cols))
            flat = m.add(write_at, m.mul(write_step, m.c(k))) if k else write_at
            place = m.add(m.mul(tx, m.c(STRIDE)), m.add(ty, m.c(k * ROWS)))

            def store(flat: SSAValue = flat, place: SSAValue = place) -> None:
                kb.store(m.insert(LoadOp(local, place), "x"), dst, flat)

            kb.when(inside, store)
        kb.b.insert(BarrierOp(local=True))
        return []

    first = m.insert(GroupIdOp(0), "group")
    step = m.insert(NumGroupsOp(0), "groups")
    kb.for_loop(first, kb.scalar(tiles), step, [], "t", one_tile)
    lw.add_kernel(kb, *launch)
