"""`soac.stencil` at the top level: a kernel of blocks, each work-item computing a strip of consecutive elements
whose neighbours it reads once (streamed from global memory, or shared in local memory), or a kernel of one element
per work-item.

A work-group computes a block of `tile[0] x ...` elements (the op's `tile`, else `STENCIL_DEFAULT_TILES` by rank;
a tuning parameter, see `passes/tile_sizes.py`); each of its work-items computes `rows` consecutive elements along
the first dimension (ranks 2 and 3), so a neighbour above or below is read once for all of them and kept in
registers. Groups whose block and halo (the window's radius on each side) lie inside the array read without
boundary tests; the others apply the boundary condition to each read.

**streamed** (the GPU default): no local memory and no barrier; a work-item covers a whole column of the block
(`rows = tile[0]`, up to 32) and reads each neighbour straight from global memory, the horizontal ones hitting the
lines its neighbours in the warp just loaded (L1):

    kernel.func @main_stencil_0(%img: !kernel.buffer<global, f32>, %out: ..., %n: index, %m: index) {
      ... the group's block: %base0, %base1; %interior = the block and its halo lie inside the array
      %no, %we, ... = scf.if %interior { (plain loads at constant offsets) } else { (boundary-mapped loads) }
      (the lambda on each element's neighbours; in-space results stored)
    }

**tiled** (`soac-to-kernel{stencil=tiled}`, seed 003's sharing): the group first copies its block and halo of every input
whose neighbours the lambda uses into local memory, each element once, waits at a barrier, and its work-items
(`rows = 4`) read the neighbours from the tile. On the H200 it lost to `streamed` (0.70-0.77 against 0.82-0.85 of
memcpy bandwidth, bench/RESULTS.md "Stencils"): the L1 cache shares the neighbours as well, without the barrier.

**direct** (CPUs, where local memory is ordinary memory and the caches share; windows whose tiles do not fit in
local memory; and `stencil=direct`): a grid-stride loop over the elements; each reads its neighbours from
global memory with plain loads at constant offsets where its window lies inside the array, and with
boundary-mapped loads elsewhere.

All are right at any size, also arrays smaller than the window: every read outside the array goes through the
boundary condition (`conversion/stencil_access.py`).
"""

from __future__ import annotations

import itertools
import math

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import KernelBuilder, tensor_element
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.conversion.stencil_access import StencilReads, element_arguments, read_bounded
from soac.lowering.kernel import BarrierOp, GroupIdOp, LoadOp, LocalAllocOp, LocalIdOp, StoreOp
from soac.lowering.strategies.maps import grid_stride
from xdsl.ir import SSAValue

LOCAL_BYTES = 32 * 1024
"""The most local memory the tiles of one work-group may take; larger windows run `direct`."""
STRATEGIES = ("streamed", "tiled", "direct")
ROWS_PER_ITEM = 4
"""Elements along the first dimension each work-item of a `tiled` kernel computes, where the tile allows."""


def tile_of(op: soac.StencilOp) -> tuple[int, ...]:
    return op.tile_shape or soac.STENCIL_DEFAULT_TILES[len(op.dims)]


def _tile_bytes(op: soac.StencilOp, tile: tuple[int, ...]) -> int:
    halo = math.prod(t + 2 * (e // 2) for t, e in zip(tile, op.window_shape))
    return sum(halo * _bytes(tensor_element(x.type)) for x in op.inputs)


def _bytes(element: object) -> int:
    width = getattr(element, "bitwidth", None) or getattr(getattr(element, "width", None), "data", 64)
    return max(1, int(width) // 8)


def lower_stencil(lw: HostLowering, op: soac.StencilOp) -> None:
    forced = lw.options.stencil
    strategy = ("streamed" if lw.target.local_tiles else "direct") if forced == "auto" else forced
    tile = tile_of(op)
    if strategy == "streamed":
        BlockStencil(lw, op, tile, shared=False).lower()
    elif strategy == "tiled" and _tile_bytes(op, tile) <= LOCAL_BYTES:
        BlockStencil(lw, op, tile, shared=True).lower()
    else:
        direct(lw, op)


def _host_side(lw: HostLowering, op: soac.StencilOp) -> list[SSAValue]:
    """The index space, checked against every input's shape; the outputs allocated and bound."""
    dims = [lw.scalar(d) for d in op.dims]
    for d in dims:
        lw.check_size(op, d, "dimension")
    m = lw.m
    for i, x in enumerate(op.inputs):
        for d, (size, n) in enumerate(zip(lw.array(x).dims, dims)):
            if size is not n:
                problem = f"input #{i} has {{0}} elements in dimension {d}, but the index space has {{1}}"
                lw.check(m.eq(size, n, "same_size"), op, problem, [size, n])
    for result in op.outs:
        lw.env[result] = lw.alloc(tensor_element(result.type), dims, result.name_hint)
    return dims


def _reads(lw: HostLowering, kb: KernelBuilder, op: soac.StencilOp) -> StencilReads:
    views = [kb.array(lw.array(x), x.name_hint) for x in op.inputs]
    constants = [kb.scalar(lw.scalar(c), c.name_hint or "edge") for c in op.constants]
    return StencilReads(op, views, constants)


def direct(lw: HostLowering, op: soac.StencilOp) -> None:
    dims = _host_side(lw, op)
    kb = lw.kernel("stencil")
    inliner = Inliner(kb)
    reads = _reads(lw, kb, op)
    kdims = [kb.scalar(d) for d in dims]
    out_views = [kb.array(lw.array(r), r.name_hint) for r in op.outs]

    def element(p: SSAValue) -> None:
        coords = kb.m.unflatten(p, kdims, [f"i{d}" for d in range(len(kdims))])
        values = inliner.inline_scalars(op.body, element_arguments(kb, reads, coords, kdims))
        for value, out in zip(values, out_views):
            kb.store(value, out, p)

    grid_stride(lw, kb, lw.m.product(dims, "count"), "p", element)


def rows_per_item(tile: tuple[int, ...], most: int = ROWS_PER_ITEM) -> int:
    """Elements along the first dimension each work-item computes (on arrays of rank 2 and 3): consecutive ones,
    so that the neighbours it reads above and below are shared between them in registers."""
    rows = soac.stencil_rows(tile, most)
    assert rows is not None, "the verifier rejects tiles no work-group can compute"
    return rows


class BlockStencil:
    """Builds the block kernel of one stencil (`streamed`, or `tiled` with `shared`) and its launch.

    A work-group of `threads` work-items (the tile, with its first extent divided by `rows`) computes a block of
    `tile` elements; work-item `t` computes elements `(t0 * rows + j, t1, ...)` for `j < rows`. Shared, the block and
    its halo (`halo`) are copied by the work-items as a box of `threads` shifted by whole multiples of `threads` along each
    dimension: no division in the copy, and consecutive work-items read consecutive elements."""

    def __init__(self, lw: HostLowering, op: soac.StencilOp, tile: tuple[int, ...], shared: bool):
        self.lw, self.op, self.tile, self.shared = lw, op, tile, shared
        self.radius = [e // 2 for e in op.window_shape]
        self.halo = [t + 2 * r for t, r in zip(tile, self.radius)]
        self.rows = rows_per_item(tile, ROWS_PER_ITEM if shared else tile[0])
        self.threads = (tile[0] // self.rows, *tile[1:])
        self.kb: KernelBuilder = lw.kernel("stencil")

    def lower(self) -> None:
        lw, op, kb, hm = self.lw, self.op, self.kb, self.lw.m
        dims = _host_side(lw, op)
        counts = [hm.ceildiv(d, hm.c(t)) for d, t in zip(dims, self.tile)]
        groups = hm.product(counts, "num_groups")
        m = kb.m
        self.dims = [kb.scalar(d) for d in dims]
        self.reads = _reads(lw, kb, op)
        used = self.reads.used_inputs()
        size = math.prod(self.halo)
        self.tiles = {
            i: m.insert(LocalAllocOp(size, self.reads.views[i].element), f"{op.inputs[i].name_hint or 'in'}_tile")
            for i in used
            if self.shared
        }
        group = m.unflatten(m.insert(GroupIdOp(0), "group"), [kb.scalar(c) for c in counts], [f"g{d}" for d in range(len(dims))])
        self.base = [m.mul(g, m.c(t), f"base{d}") for d, (g, t) in enumerate(zip(group, self.tile))]
        self.tid = m.insert(LocalIdOp(0), "tid")
        self.thread = m.unflatten(self.tid, [m.c(t) for t in self.threads], [f"t{d}" for d in range(len(dims))])
        if self.tiles:
            self.fill()
            kb.b.insert(BarrierOp(local=True))
        self.compute()
        group_size = math.prod(self.threads)
        lw.add_kernel(kb, hm.mul(groups, hm.c(group_size), "global_size"), hm.c(group_size))

    def group_interior(self) -> SSAValue | None:
        """The block and its halo lie inside the array."""
        m = self.kb.m
        ok: SSAValue | None = None
        for base, t, r, n in zip(self.base, self.tile, self.radius, self.dims):
            if r:
                ok = m.both(ok, m.cmp(base, m.c(r), "sge"))
            ok = m.both(ok, m.cmp(m.add(base, m.c(t + r)), n, "sle"))
        return ok

    def fill(self) -> None:
        """The group copies the block and its halo of each used input into its tile, each element once."""
        kb, m = self.kb, self.kb.m
        steps = [range(-(-h // t)) for h, t in zip(self.halo, self.threads)]
        places = []
        for shift in itertools.product(*steps):
            u = [m.add(t, m.c(s * n)) for t, s, n in zip(self.thread, shift, self.threads)]
            exists: SSAValue | None = None
            for x, s, n, h in zip(u, shift, self.threads, self.halo):
                if (s + 1) * n > h:
                    exists = m.both(exists, m.lt(x, m.c(h)))
            positions = [m.add(b, m.sub(x, m.c(r))) for b, x, r in zip(self.base, u, self.radius)]
            places.append((m.row_major(u, [m.c(h) for h in self.halo]), exists, positions))

        def copy(bounded: bool) -> list[SSAValue]:
            for place, exists, positions in places:

                def one(place: SSAValue = place, positions: list[SSAValue] = positions) -> None:
                    for i, tile in self.tiles.items():
                        if bounded:
                            value = read_bounded(kb, self.reads, i, positions, self.dims)
                        else:
                            value = kb.load(self.reads.views[i], m.row_major(positions, self.dims))
                        kb.b.insert(StoreOp(value, tile, place))

                kb.when(exists, one)
            return []

        interior = self.group_interior()
        if interior is None:
            copy(bounded=False)
        else:
            interior.name_hint = "interior"
            kb.if_values(interior, [], lambda: copy(bounded=False), lambda: copy(bounded=True))

    def compute(self) -> None:
        """Each work-item runs the lambda on the neighbours of its elements (each neighbour it needs read once,
        from the tiles or, streamed, from global memory) and stores the results of its elements inside the array."""
        kb, m = self.kb, self.kb.m
        first = [m.mul(self.thread[0], m.c(self.rows), "row"), *self.thread[1:]]
        needed: list[tuple[int, tuple[int, ...]]] = []
        for j in range(self.rows):
            for k, offset in enumerate(self.reads.offsets):
                for i in range(len(self.reads.views)):
                    key = (i, (offset[0] + j, *offset[1:]))
                    if self.reads.used(i, k) and key not in needed:
                        needed.append(key)
        value = dict(zip(needed, self.tile_reads(first, needed) if self.shared else self.global_reads(first, needed)))
        out_views = [kb.array(self.lw.array(r), r.name_hint) for r in self.op.outs]
        inliner = Inliner(kb)
        for j in range(self.rows):

            def neighbour(i: int, k: int, j: int = j) -> SSAValue:
                offset = self.reads.offsets[k]
                return value[(i, (offset[0] + j, *offset[1:]))]

            values = inliner.inline_scalars(self.op.body, self.reads.arguments(kb, neighbour))
            coords = [m.add(self.base[0], m.add(first[0], m.c(j)), "i0")]
            coords += [m.add(b, x, f"i{d}") for d, (b, x) in enumerate(zip(self.base[1:], first[1:]), 1)]
            inside: SSAValue | None = None
            for c, n in zip(coords, self.dims):
                inside = m.both(inside, m.lt(c, n))
            flat = m.row_major(coords, self.dims)
            kb.when(
                inside, lambda values=values, flat=flat: [kb.store(v, out, flat) for v, out in zip(values, out_views)] and None
            )

    def tile_reads(self, first: list[SSAValue], needed: list[tuple[int, tuple[int, ...]]]) -> list[SSAValue]:
        m = self.kb.m
        centre = m.row_major([m.add(x, m.c(r)) for x, r in zip(first, self.radius)], [m.c(h) for h in self.halo])
        strides = [math.prod(self.halo[d + 1 :]) for d in range(len(self.halo))]
        return [
            m.insert(LoadOp(self.tiles[i], m.add(centre, m.c(sum(o * s for o, s in zip(offset, strides))))))
            for i, offset in needed
        ]

    def global_reads(self, first: list[SSAValue], needed: list[tuple[int, tuple[int, ...]]]) -> list[SSAValue]:
        """The neighbours straight from global memory: plain loads in groups whose block and halo lie inside the
        array, boundary-mapped ones elsewhere."""
        kb, m = self.kb, self.kb.m
        coords = [m.add(b, x) for b, x in zip(self.base, first)]
        flat = m.row_major(coords, self.dims)
        strides = [m.product(self.dims[d + 1 :]) for d in range(len(self.dims))]

        def plain() -> list[SSAValue]:
            result = []
            for i, offset in needed:
                shift = m.c(0)
                for o, stride in zip(offset, strides):
                    if o:
                        shift = m.add(shift, m.mul(m.c(o), stride))
                result.append(kb.load(self.reads.views[i], m.add(flat, shift)))
            return result

        def bounded() -> list[SSAValue]:
            return [
                read_bounded(kb, self.reads, i, [m.add(c, m.c(o)) for c, o in zip(coords, offset)], self.dims)
                for i, offset in needed
            ]

        types = [self.reads.views[i].element for i, _ in needed]
        interior = self.group_interior()
        if interior is None:
            return plain()
        interior.name_hint = "interior"
        return kb.if_values(interior, types, plain, bounded)
