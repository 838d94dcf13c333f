"""Group-level segmaps that take several small elements per work-group (`intragroup.py`'s packed shape, which
soac-small-intra makes): the state every group-level kernel keeps, the packs of staged rows, and the kernel's 32-bit
version.

A lambda of only `{staged}` rows of arrays from outside by the element's index, code that reads nothing of the element,
and one shared thread-level segmap over sizes from outside whose results it yields:

    %r = soac.segmap group (%q) -> tensor<?x?x?xf32> lambda(%p: index) {
      %a_block = soac.index %a[%p] {staged} : ...
      %b_block = soac.index %b[%p] {staged} : ...
      %t = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) { ... }
      soac.yield %t : tensor<?x?xf32>
    }

becomes a kernel whose work-groups take packs of consecutive elements (as many as the group's work-items cover,
`small-batches`), copy the rows of a pack into local memory as one contiguous range per array, and share out the
positions of the pack's inner segmaps; where the inner segmap is a batch of small products, a work-item's position
is a block of results in registers (`register_tiles.py`). A launch has a work-group per pack, at most `max-groups`.
"""

from __future__ import annotations

from collections.abc import Sequence

from soac import dialect as soac
from soac.dialect import defined_inside
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, IndexMath, KernelBuilder, View, index_problem
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.kernel import BarrierOp, GroupIdOp, LocalAllocOp, LocalIdOp, NumGroupsOp, StoreOp
from soac.lowering.strategies.index_width import Launch, index_versions
from soac.lowering.strategies.register_tiles import RegisterTiles, product_nest
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

SegOp = soac.SegmapOp | soac.SegredOp | soac.SegscanOp
PACKED_LOCAL_BYTES = 32 * 1024
"""The most local memory the staged rows of a packed group-level segmap take together where `small-batches` asks for
more batches than `STAGED_CAPACITY` elements per row hold (soac-small-intra's `MAX_STAGED_BYTES`): 16 batches of
16 x 16 f32 products, or 4 of 32 x 32. Without it each row gets `STAGED_CAPACITY` elements, 8 KiB for two f32 rows:
local memory never limits the groups of 256 an SM holds (8 on an H100; of 32 KiB each, 7)."""
STAGED_PROBLEM = f"a staged row of {{0}} elements does not fit the {soac.STAGED_CAPACITY} of local memory it is given"


def shareable(op: Operation) -> bool:
    """A thread-level segop whose results are arrays of its index space (no arrays in its rows)."""
    if not isinstance(op, SegOp) or op.level.data != soac.Level.THREAD:
        return False
    yielded = list(op.body.block.last_op.operands)  # pyright: ignore[reportOptionalMemberAccess]
    return not any(isinstance(v.type, TensorType) for v in yielded)


def index_bounds(kb: KernelBuilder, hm: IndexMath) -> list[SSAValue]:
    """Host values at least as large as every index the kernel of `kb` computes: the index scalars it is given and the
    elements of every array it reads or writes (with `PackedSegmap.loop_bounds`, those of its loops)."""
    bounds = [source for arg, source in kb.params if isinstance(arg.type, IndexType) and isinstance(source, SSAValue)]
    for view in kb.views_of_host.values():
        dims = [kb.host_of_kernel.get(d) or hm.c(IndexMath.constant_of(d) or 0) for d in view.dims]
        bounds.append(hm.product(dims))
    return bounds


def packed_capacity(elements: Sequence[Attribute], batches: int) -> int:
    """Elements of each staged row's local array in a packed segmap: `STAGED_CAPACITY`, or room for `batches` rows of
    that size (the `small-batches` option) where `PACKED_LOCAL_BYTES` holds them."""
    row_bytes = sum(max(1, getattr(element, "bitwidth", 64) // 8) for element in elements)
    wanted = batches * soac.STAGED_CAPACITY
    return max(soac.STAGED_CAPACITY, min(wanted, PACKED_LOCAL_BYTES // max(row_bytes, 1)))


class GroupKernel:
    """The kernel of one group-level segmap being built: its builders, sizes and work-item queries."""

    def __init__(self, lw: HostLowering, op: soac.SegmapOp, index_bits: int = 64):
        self.lw, self.op = lw, op
        self.kb: KernelBuilder = lw.kernel("segmap_group")
        self.kb.index_bits = index_bits
        self.inliner = Inliner(self.kb)
        self.group_size = lw.group_size
        m, hm = self.kb.m, lw.m
        self.dims = [lw.scalar(d) for d in op.dims]
        self.count = hm.product(self.dims, "count")
        self.groups = hm.max(hm.min(self.count, hm.c(lw.max_groups)), hm.c(1), "num_groups")
        self.t = m.insert(LocalIdOp(0), "tid")
        self.g = m.insert(GroupIdOp(0), "group")
        self.num_groups = m.insert(NumGroupsOp(0), "num_groups")
        self.kb.thread_id = self.kb.global_id()
        self.G = m.c(self.group_size)
        self.destinations: dict[SSAValue, View] = {}
        self.loop_bounds: list[SSAValue] = []
        """Host values above every index a packed kernel's loops reach (the group loop's last step past the end)."""

    @property
    def m(self) -> IndexMath:
        return self.kb.m

    def local_array(self, element: Attribute, name: str, size: int | None = None) -> SSAValue:
        block = self.kb.block
        op = LocalAllocOp(size or self.group_size, element)
        block.insert_op_before(op, block.first_op) if block.first_op else block.add_op(op)
        op.result.name_hint = name
        return op.result

    def barrier(self, global_: bool = True) -> None:
        """A work-group barrier; `global_` also orders the group's accesses to global memory."""
        self.kb.b.insert(BarrierOp(local=True, global_=global_))


class PackedSegmap(GroupKernel):
    """A group-level segmap's kernel over packs of small elements (`GroupSegmap` builds the others)."""

    def launch_versions(self, outs: Sequence[HostArray], launch: Launch) -> None:
        """Adds the packed segmap's kernel with its launch, and where `small-index` asks for it (NVIDIA by default) a
        version of it with 32-bit indices, which the host launches where every index fits (`index_width.py`; on
        GPUs 64-bit integer arithmetic takes two instructions). Not for a kernel that keeps scratch memory."""
        lw, kb = self.lw, self.kb
        bounds = [*index_bounds(kb, lw.m), *self.loop_bounds]
        versions = index_versions(lw, lw.options.small_index, bounds, launch) if not kb.scratch else [(64, launch)]
        for bits, sizes in versions:
            if bits == 64:
                lw.add_kernel(kb, *sizes)
                continue
            narrow = type(self)(lw, self.op, index_bits=bits)
            packed = narrow.packed_parts()
            assert packed is not None
            narrow.lower_packed(*packed, [narrow.kb.array(o, r.name_hint) for o, r in zip(outs, self.op.outs)])
            lw.add_kernel(narrow.kb, *sizes)

    def packed_parts(self) -> tuple[list[soac.IndexOp], list[Operation], soac.SegmapOp] | None:
        """The staged rows, the code that reads nothing of the element, and the shared segmap of a lambda that is
        only these (soac-small-intra's shape: `{staged}` rows of arrays from outside by the element's index, one
        thread-level segmap over sizes from outside whose results the lambda yields), else None."""
        block = self.op.body.block
        *body, last = block.ops
        if len(self.op.dims) != 1 or len(body) < 2:
            return None
        *before, inner = body
        staged = [row for row in before if isinstance(row, soac.IndexOp) and soac.STAGED in row.attributes]
        invariant = [other for other in before if other not in staged]
        for row in staged:
            if list(row.indices) != [block.args[0]] or defined_inside(row.array, self.op):
                return None
        for other in invariant:
            if other.regions or any(defined_inside(v, self.op) for v in other.operands):
                return None
        if not staged or not isinstance(inner, soac.SegmapOp) or not shareable(inner):
            return None
        if list(last.operands) != list(inner.outs) or any(defined_inside(d, self.op) for d in inner.dims):
            return None
        return staged, invariant, inner

    def lower_packed(
        self, staged: list[soac.IndexOp], invariant: list[Operation], inner: soac.SegmapOp, out_views: Sequence[View]
    ) -> None:
        """A work-group takes `per` consecutive elements at a time, as many as its work-items cover (a batch of
        8 x 8 products: 4 per group of 256; the `small-batches` option sets it) and their staged rows fit local
        memory: the group copies the rows of all of them (one contiguous range per array), then its work-items take
        the positions of all the inner segmaps in turn, writing the results in place. Where the inner segmap is a
        `ProductNest` (a batch of small products), a work-item's position is a block of results it keeps in
        registers (`register_tiles.py`)."""
        kb, m, inliner, options = self.kb, self.m, self.inliner, self.lw.options
        arg = self.op.body.block.args[0]
        inliner.bounds.update(zip(self.op.body.block.args, self.op.dims))
        count = kb.scalar(self.count)
        for other in invariant:
            inliner.emit(other)
        dims = [inliner.checked_size(inner, inliner.scalar(d), "dimension") for d in inner.dims]
        inner_count = m.product(dims, "inner_count")
        nest = product_nest(inner)
        shape = (options.small_tile_rows, options.small_tile_cols) if nest else (1, 1)
        tiles = RegisterTiles(kb, inliner, nest, dims, *shape, options.small_fma) if nest else None
        item_dims = tiles.item_dims if tiles else dims
        items = m.max(m.product(item_dims, "items"), m.c(1))
        views = [inliner.view(row.array) for row in staged]
        blocks = [m.product(view.dims[1:], "block") for view in views]
        capacity = packed_capacity([view.element for view in views], options.small_batches)
        per = self.pack_size(m, items, blocks, capacity)
        self.groups = self.pack_groups(staged, inner, shape, capacity)
        locals_ = [
            self.local_array(view.element, f"{row.result.name_hint or 'row'}_local", capacity) for row, view in zip(staged, views)
        ]
        inliner.read_only.update(locals_)
        for row, view in zip(staged, views):  # every element's row read, checked once: the first past the end fails
            if view.dims[0] is not count:
                kb.check(m.cmp(count, view.dims[0], "ule", "in_bounds"), row, index_problem(0), [view.dims[0]] * 2)
                inliner.limits[arg] = [*inliner.limits.get(arg, []), view.dims[0]]

        def place(p: SSAValue) -> list[SSAValue]:
            """The element of the pack and the work-item's indices in `item_dims` of position `p`."""
            at = m.rem(p, items, "at")
            return [m.div(p, items, "element"), *m.unflatten(at, item_dims, [None] * len(item_dims))]

        mine = place(self.t)  # every work-item's first position, the same in every pack: divided once
        index = IndexType()

        def pack(first: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self.barrier(global_=False)  # the previous pack's local rows are no longer read (no global memory is shared)
            n = m.min(per, m.sub(count, first), "pack")
            inliner.env[arg] = m.sub(m.add(first, n), m.c(1))
            sources = [self.pack_source(row, view, block, first, n) for row, view, block in zip(staged, views, blocks)]
            self.copy_rows(sources, locals_)
            self.barrier(global_=False)

            def position(p: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                first_position = m.cmp(p, self.G, "ult", "first_position")
                e, *indices = kb.if_values(first_position, [index] * len(mine), lambda: mine, lambda: place(p))
                inliner.env[arg] = m.add(first, e)
                for row, view, block, local in zip(staged, views, blocks, locals_):
                    inliner.env[row.result] = View(local, m.mul(e, block), list(view.dims[1:]), view.element)
                element_first = m.mul(m.add(first, e), inner_count)
                if tiles is not None:
                    tiles.compute(indices, element_first, out_views)
                    return []
                flat = m.add(element_first, m.row_major(indices, dims))
                for value, out in zip(inliner.inline(inner.body, indices), out_views):
                    kb.write_row(value, out, flat)
                return []

            kb.for_loop(self.t, m.mul(n, items), self.G, [], "p", position)
            return []

        kb.for_loop(m.mul(self.g, per), count, m.mul(self.num_groups, per), [], "first", pack)

    def pack_size(self, m: IndexMath, items: SSAValue, blocks: Sequence[SSAValue], capacity: int) -> SSAValue:
        """The elements a group takes at once (kernel or host code, by `m`): `small-batches`, else as many as its
        work-items cover at `items` each; at most as many as `capacity` holds rows of `blocks` elements; at least 1."""
        batches = self.lw.options.small_batches
        per = m.c(batches) if batches else m.div(m.c(self.group_size), items, "per")
        for block in blocks:
            per = m.min(per, m.div(m.c(capacity), m.max(block, m.c(1))))
        return m.max(per, m.c(1), "per")

    def pack_groups(
        self, staged: Sequence[soac.IndexOp], inner: soac.SegmapOp, shape: tuple[int, int], capacity: int
    ) -> SSAValue:
        """The work-groups of the launch: one per pack (its size computed on the host as the kernel does), at most
        `max-groups`, so that no group loops over packs while others wait for an SM."""
        lw = self.lw
        hm = lw.m
        dims = [lw.scalar(d) for d in inner.dims]  # checked in the kernel (a negative one fails there)
        *lead, rows, cols = dims
        item_dims = [*lead, hm.ceildiv(rows, hm.c(shape[0])), hm.ceildiv(cols, hm.c(shape[1]))]
        blocks = [hm.product(lw.array(row.array).dims[1:]) for row in staged]
        items = hm.max(hm.product(item_dims), hm.c(1))
        per = self.pack_size(hm, items, blocks, capacity)
        packs = hm.ceildiv(self.count, per, "packs")
        groups = hm.max(hm.min(packs, hm.c(lw.max_groups)), hm.c(1), "num_groups")
        step = hm.mul(groups, per)
        self.loop_bounds = [hm.add(self.count, step), hm.add(hm.mul(per, items), hm.c(self.group_size))]
        return groups

    def pack_source(self, row: soac.IndexOp, view: View, block: SSAValue, first: SSAValue, n: SSAValue) -> View:
        """The staged rows `first ... first + n - 1` of `view` (each of `block` elements) as one contiguous range."""
        m = self.m
        self.inliner.emit(row)  # the pack's last row (its index checked before the loop)
        fits = m.cmp(block, m.c(soac.STAGED_CAPACITY), "ule", "fits_local")
        self.kb.check(fits, row, STAGED_PROBLEM, [block])
        available = m.select(m.cmp(first, view.dims[0], "ult"), m.sub(view.dims[0], first), m.c(0))
        total = m.select(fits, m.mul(m.min(n, available), block), m.c(0))
        return View(view.buffer, m.add(view.offset, m.mul(first, block)), [total], view.element)

    def copy_rows(self, sources: Sequence[View], locals_: Sequence[SSAValue]) -> None:
        """The group copies each range of `sources` into its local array in one loop, neighbouring work-items loading
        neighbouring elements (each work-item's loads of the arrays independent of one another)."""
        kb, m = self.kb, self.m
        longest = sources[0].dims[0]
        for source in sources[1:]:
            longest = m.max(longest, source.dims[0], "longest")

        def copy(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            for source, local in zip(sources, locals_):

                def one(source: View = source, local: SSAValue = local) -> None:
                    kb.b.insert(StoreOp(kb.load(source, e), local, e))

                kb.when(None if len(sources) == 1 else m.lt(e, source.dims[0]), one)
            return []

        kb.for_loop(self.t, longest, self.G, [], "e", copy)
