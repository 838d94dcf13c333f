"""Group-level segmaps: a work-group per outer element, its work-items cooperating on the inner segmented ops.

soac-flatten's intra-group version of a nest is a `soac.segmap group` whose lambda runs thread-level
segops over the inner parallelism:

    %r = soac.segmap group (%n) -> tensor<?xf32> lambda(%i: index) {
      %row = soac.index %xss[%i] : tensor<?x?xf32> -> tensor<?xf32>
      %s = soac.segred thread (%m) neutral(%zero : f32) -> f32 combine(...) lambda(%j: index) { ... }
      soac.yield %s : f32
    }

It becomes one kernel whose work-groups loop over the outer elements (`s = group_id, group_id + num_groups,
...`). Every work-item of the group runs the lambda's scalar code (the same values in each); the segops at
the top level of the lambda are shared out among the work-items:

- `segmap thread`: the work-items take its positions in turn (`t, t + group_size, ...`);
- a one-dimensional `segred thread`: each work-item folds a contiguous chunk (every `group_size`-th element
  when the operator is commutative), then an ordered tree in local memory combines the work-items' values,
  and every work-item reads the result;
- a one-dimensional `segscan thread`: each work-item folds its chunk, the group scans the chunk totals in
  local memory, and each work-item re-scans its chunk from its prefix, writing the results;
- a `segred`/`segscan` over several dimensions: the work-items take its segments in turn.

Arrays these segops build live in per-group global memory (a buffer of `groups x size`, the group's part at
`group_id x size`), followed by a barrier so that every work-item of the group sees them. The yielded rows
are copied into the results by all work-items together. Segops the group cannot share (ones yielding arrays,
or nested in control flow) run sequentially in each work-item, which is correct but redundant.

A `soac.index ... {staged}` row of the lambda (soac-small-intra's) is copied by the group into local memory, and the
lambda's segops read it there. A lambda of only staged rows and one shared segmap takes several elements per
work-group at once where one element's segmap leaves work-items idle (`lower_packed`).

Targets without `group_segmaps` (`cpu`) run a group-level segmap as a thread-level one: a work-item per
element, its segops sequential (see `DeviceTarget.group_segmaps`).
"""

from __future__ import annotations

from collections.abc import Sequence

from soac import dialect as soac
from soac.dialect import defined_inside
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import (
    HostArray,
    IndexMath,
    KernelBuilder,
    KValue,
    View,
    index_problem,
    tensor_element,
)
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.kernel import BarrierOp, GroupIdOp, LoadOp, LocalAllocOp, LocalIdOp, NumGroupsOp, StoreOp
from soac.lowering.strategies.group_code import commutes
from soac.lowering.strategies.register_tiles import RegisterTiles, product_nest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.ir import Attribute, Operation, Region, SSAValue

SegOp = soac.SegmapOp | soac.SegredOp | soac.SegscanOp
PACKED_LOCAL_BYTES = 32 * 1024
"""The most local memory the staged rows of a packed group-level segmap take together where `small-batches` asks for
more batches than `STAGED_CAPACITY` elements per row hold (soac-small-intra's `MAX_STAGED_BYTES`): 16 batches of
16 x 16 f32 products, or 4 of 32 x 32. Without it each row gets `STAGED_CAPACITY` elements, 8 KiB for two f32 rows:
eight groups of 256 fit an SM (all 1024 groups of a launch resident on an H100), four would not."""
STAGED_PROBLEM = f"a staged row of {{0}} elements does not fit the {soac.STAGED_CAPACITY} of local memory it is given"


def lower_segmap(lw: HostLowering, op: soac.SegmapOp) -> None:
    """A group-level segmap with thread-level segops in its lambda as a work-group per element; others as before."""
    from soac.lowering.strategies import maps

    cooperative = op.level.data == soac.Level.GROUP and lw.target.group_segmaps
    if cooperative and any(_shareable(inner) for inner in op.body.block.ops):
        GroupSegmap(lw, op).lower()
    else:
        maps.lower_segmap(lw, op)


def _shareable(op: Operation) -> bool:
    """A thread-level segop whose results are arrays of its index space (no arrays in its rows)."""
    if not isinstance(op, SegOp) or op.level.data != soac.Level.THREAD:
        return False
    yielded = list(op.body.block.last_op.operands)  # pyright: ignore[reportOptionalMemberAccess]
    return not any(isinstance(v.type, TensorType) for v in yielded)


NARROW_LIMIT = 2**31 - 2**26
"""The 32-bit version of a packed segmap's kernel runs where its arrays' elements and its sizes stay below this (the
rest of 2^31 for the group loop's step past the end: at most `max-groups` x the batches of a pack)."""


def narrow_fits(kb: KernelBuilder, hm: IndexMath) -> SSAValue:
    """Whether every index scalar the kernel of `kb` is given, and the elements of every array it reads or writes,
    lie below `NARROW_LIMIT` (host code)."""
    limit = hm.c(NARROW_LIMIT)
    fits: SSAValue | None = None
    for arg, source in kb.params:
        if isinstance(arg.type, IndexType) and isinstance(source, SSAValue):
            fits = hm.both(fits, hm.lt(source, limit))
    for view in kb.views_of_host.values():
        dims = [kb.host_of_kernel.get(d) or hm.c(IndexMath.constant_of(d) or 0) for d in view.dims]
        fits = hm.both(fits, hm.lt(hm.product(dims), limit))
    assert fits is not None
    fits.name_hint = "narrow"
    return fits


def packed_capacity(elements: Sequence[Attribute], batches: int) -> int:
    """Elements of each staged row's local array in a packed segmap: `STAGED_CAPACITY`, or room for `batches` rows of
    that size (the `small-batches` option) where `PACKED_LOCAL_BYTES` holds them."""
    row_bytes = sum(max(1, getattr(element, "bitwidth", 64) // 8) for element in elements)
    wanted = batches * soac.STAGED_CAPACITY
    return max(soac.STAGED_CAPACITY, min(wanted, PACKED_LOCAL_BYTES // max(row_bytes, 1)))


class GroupSegmap:
    """Builds the kernel of one group-level segmap."""

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

    @property
    def m(self) -> IndexMath:
        return self.kb.m

    def lower(self) -> None:
        lw, op, kb = self.lw, self.op, self.kb
        row_dims = lw.row_dims(op, op.body, op.outs)
        outs: list[HostArray] = []
        for result, inner in zip(op.outs, row_dims):
            array = lw.alloc(tensor_element(result.type), [*self.dims, *inner], result.name_hint)
            lw.env[result] = array
            outs.append(array)
        out_views = [kb.array(o, r.name_hint) for o, r in zip(outs, op.outs)]
        kdims = [kb.scalar(d) for d in self.dims]
        names = [a.name_hint for a in op.body.block.args]

        def element(s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self.barrier()  # the previous element's per-group arrays and local memory are no longer read
            self.destinations = self.written_in_place(out_views, s, len(kdims))
            indices = self.m.unflatten(s, kdims, names)
            for value, out in zip(self.inline_body(indices), out_views):
                self.write_row(value, out, s, len(kdims))
            return []

        local_size = lw.m.c(self.group_size)
        if (packed := self.packed_parts()) is None:
            kb.for_loop(self.g, kb.scalar(self.count), self.num_groups, [], "s", element)
            lw.add_kernel(kb, lw.m.mul(self.groups, local_size, "global_size"), local_size)
            return
        self.lower_packed(*packed, out_views)
        global_size = lw.m.mul(self.groups, local_size, "global_size")
        narrow = self.narrow_version(outs)
        if narrow is None:
            lw.add_kernel(kb, global_size, local_size)
            return
        kernel, fits = narrow
        lw.add_kernel(kernel, lw.m.select(fits, global_size, lw.m.c(0), "narrow_size"), local_size)
        lw.add_kernel(kb, lw.m.select(fits, lw.m.c(0), global_size, "wide_size"), local_size)

    def narrow_version(self, outs: Sequence[HostArray]) -> tuple[KernelBuilder, SSAValue] | None:
        """A packed segmap's kernel again with 32-bit indices (`small-index`; on NVIDIA 64-bit integer arithmetic takes
        two instructions), and where the host launches it: every array it reads or writes and every size it is given
        below `NARROW_LIMIT`. None where it is not wanted or keeps scratch memory."""
        lw = self.lw
        wanted = lw.options.small_index
        if wanted == "i64" or (wanted == "auto" and not lw.target.narrow_indices):
            return None
        narrow = GroupSegmap(lw, self.op, index_bits=32)
        packed = narrow.packed_parts()
        assert packed is not None
        narrow.lower_packed(*packed, [narrow.kb.array(o, r.name_hint) for o, r in zip(outs, self.op.outs)])
        if narrow.kb.scratch:
            return None
        return narrow.kb, narrow_fits(narrow.kb, lw.m)

    # -- several small elements per work-group ---------------------------------------

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
        if not staged or not isinstance(inner, soac.SegmapOp) or not _shareable(inner):
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
        tiles = RegisterTiles(kb, inliner, nest, dims, *shape) if nest else None
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
        per = self.pack_size(hm, hm.max(hm.product(item_dims), hm.c(1)), blocks, capacity)
        packs = hm.ceildiv(self.count, per, "packs")
        return hm.max(hm.min(packs, hm.c(lw.max_groups)), hm.c(1), "num_groups")

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

    # -- the lambda ----------------------------------------------------------------

    def inline_body(self, indices: Sequence[SSAValue]) -> list[KValue]:
        block = self.op.body.block
        inliner = self.inliner
        inliner.bounds.update(zip(block.args, self.op.dims))
        for param, index in zip(block.args, indices, strict=True):
            inliner.env[param] = index
        staging = False  # rows copied into local memory that no barrier has published yet
        for inner in block.ops:
            is_staged = isinstance(inner, soac.IndexOp) and soac.STAGED in inner.attributes
            if staging and not is_staged:
                self.barrier(global_=False)  # one barrier after consecutive staged rows
                staging = False
            if isinstance(inner, soac.YieldOp):
                return [inliner.value(v) for v in inner.operands]
            if _shareable(inner):
                assert isinstance(inner, SegOp)
                self.shared(inner)
            elif is_staged:
                assert isinstance(inner, soac.IndexOp)
                self.stage(inner)
                staging = True
            else:
                inliner.emit(inner)
        return []

    def shared(self, op: soac.SegmapOp | soac.SegredOp | soac.SegscanOp) -> None:
        """A thread-level segop shared out among the group's work-items."""
        dims = [self.inliner.checked_size(op, self.inliner.scalar(d), "dimension") for d in op.dims]
        if isinstance(op, soac.SegmapOp):
            results = self.segmap(op, dims)
        elif len(dims) == 1:
            results = self.segcombine_1d(op, dims[0])
        else:
            results = self.segcombine_segments(op, dims)
        self.barrier()
        for result, value in zip(op.outs, results):
            self.inliner.env[result] = value

    def written_in_place(self, out_views: Sequence[View], s: SSAValue, rank: int) -> dict[SSAValue, View]:
        """The rows `out[s]` of the results that a shared segmap of the lambda builds and the lambda only yields:
        the segmap writes them there, not into per-group memory that `write_row` then copies."""
        block = self.op.body.block
        last = block.last_op
        assert isinstance(last, soac.YieldOp)
        found: dict[SSAValue, View] = {}
        for value, out in zip(last.operands, out_views):
            owner = value.owner
            if isinstance(owner, soac.SegmapOp) and owner.parent_block() is block and _shareable(owner):
                if len(list(value.uses)) == 1 and value not in found:
                    row = self.m.product(out.dims[rank:])
                    found[value] = View(out.buffer, self.m.add(out.offset, self.m.mul(s, row)), out.dims[rank:], out.element)
        return found

    def segmap(self, op: soac.SegmapOp, dims: list[SSAValue]) -> list[KValue]:
        m = self.m
        outs = [self.destinations.get(r) or self.group_array(tensor_element(r.type), dims, op) for r in op.outs]

        def body(p: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            indices = m.unflatten(p, dims, [None] * len(dims))
            for value, out in zip(self.inliner.inline(op.body, indices), outs):
                self.kb.write_row(value, out, p)
            return []

        self.kb.for_loop(self.t, m.product(dims), self.G, [], "p", body)
        return list(outs)

    def segcombine_1d(self, op: soac.SegredOp | soac.SegscanOp, width: SSAValue) -> list[KValue]:
        """A segred or segscan over one dimension: contiguous chunks, then the group combines them in order."""
        kb, m, inliner = self.kb, self.m, self.inliner
        scan = isinstance(op, soac.SegscanOp)
        neutral = [inliner.scalar(v) for v in op.neutral]
        k = len(neutral)
        types = [v.type for v in neutral]
        scanned = [self.group_array(t, [width], op) for t in types] if scan else []
        map_outs = [self.group_array(tensor_element(r.type), [width], op) for r in list(op.outs)[k:]]
        locals_ = [self.local_array(t, f"partial_{n}") for n, t in enumerate(types)]
        if not scan and commutes(op.combine):  # any order: neighbouring work-items read neighbouring elements
            lo, hi, stride = self.t, width, self.G
        else:
            per_item = m.ceildiv(width, self.G, "per_item")
            lo = m.min(m.mul(self.t, per_item), width, "lo")
            hi, stride = m.min(m.add(lo, per_item), width, "hi"), m.c(1)

        def fold(start: list[SSAValue], write: bool) -> list[SSAValue]:
            def step(j: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
                values = inliner.inline(op.body, [j])
                new = inliner.inline_scalars(op.combine, [*accs, *values[:k]])  # pyright: ignore[reportArgumentType]
                if write:
                    for value, out in zip(values[k:], map_outs):
                        kb.write_row(value, out, j)
                    for value, out in zip(new, scanned):
                        kb.store(value, out, j)
                return new

            return kb.for_loop(lo, hi, stride, start, "j", step)

        if not scan:
            totals = fold(neutral, write=True)
            self.store_all(totals, locals_, self.t)
            self.tree_reduce(op.combine, locals_)
            return [*self.load_all(locals_, m.c(0)), *map_outs]
        totals = fold(neutral, write=False)
        self.store_all(totals, locals_, self.t)
        self.scan_locals(op.combine, locals_)
        first = m.eq(self.t, m.c(0), "first")
        prefix = self.kb.if_values(first, types, lambda: neutral, lambda: self.load_all(locals_, m.sub(self.t, m.c(1))))
        fold(prefix, write=True)
        return [*scanned, *map_outs]

    def segcombine_segments(self, op: soac.SegredOp | soac.SegscanOp, dims: list[SSAValue]) -> list[KValue]:
        """A segred or segscan over several dimensions: the work-items take its segments in turn."""
        kb, m, inliner = self.kb, self.m, self.inliner
        scan = isinstance(op, soac.SegscanOp)
        neutral = [inliner.scalar(v) for v in op.neutral]
        k = len(neutral)
        outer, inner = dims[:-1], dims[-1]
        combined = [self.group_array(v.type, dims if scan else outer, op) for v in neutral]
        map_outs = [self.group_array(tensor_element(r.type), dims, op) for r in list(op.outs)[k:]]

        def segment(s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            prefix = m.unflatten(s, outer, [None] * len(outer))

            def step(j: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
                values = inliner.inline(op.body, [*prefix, j])
                new = inliner.inline_scalars(op.combine, [*accs, *values[:k]])  # pyright: ignore[reportArgumentType]
                flat = m.add(m.mul(s, inner), j)
                for value, out in zip(values[k:], map_outs):
                    kb.write_row(value, out, flat)
                if scan:
                    for value, out in zip(new, combined):
                        kb.store(value, out, flat)
                return new

            accs = kb.for_loop(m.c(0), inner, m.c(1), neutral, "j", step)
            if not scan:
                for value, out in zip(accs, combined):
                    kb.store(value, out, s)
            return []

        kb.for_loop(self.t, m.product(outer), self.G, [], "seg", segment)
        return [*combined, *map_outs]

    def stage(self, op: soac.IndexOp) -> None:
        """A `{staged}` row: the group copies it into local memory, neighbouring work-items loading neighbouring
        elements, and the lambda reads it there (after the barrier `inline_body` puts after consecutive staged rows).
        soac-small-intra guards its size; a larger row is an error."""
        kb, m, inliner = self.kb, self.m, self.inliner
        inliner.emit(op)
        source = inliner.env[op.result]
        assert isinstance(source, View)
        size = m.product(source.dims)
        fits = m.cmp(size, m.c(soac.STAGED_CAPACITY), "ule", "fits_local")
        kb.check(fits, op, STAGED_PROBLEM, [size])
        local = self.local_array(source.element, f"{op.result.name_hint or 'row'}_local", soac.STAGED_CAPACITY)
        count = m.select(fits, size, m.c(0))

        def copy(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self.kb.b.insert(StoreOp(kb.load(source, e), local, e))
            return []

        kb.for_loop(self.t, count, self.G, [], "e", copy)
        inliner.env[op.result] = View(local, m.c(0), list(source.dims), source.element)

    # -- results ---------------------------------------------------------------------

    def write_row(self, value: KValue, out: View, s: SSAValue, rank: int) -> None:
        """`out[s] = value` for the group's element `s`: one work-item writes a scalar, all copy a row."""
        kb, m = self.kb, self.m
        if isinstance(value, View) and any(value is row for row in self.destinations.values()):
            return  # written in place by the segmap that built it
        if not isinstance(value, View):
            kb.if_then(m.eq(self.t, m.c(0)), lambda: kb.store(value, out, s))
            return
        row = m.product(out.dims[rank:])
        base = m.add(out.offset, m.mul(s, row))
        target = View(out.buffer, base, out.dims[rank:], out.element)

        def copy(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            kb.store(kb.load(value, e), target, e)
            return []

        kb.for_loop(self.t, m.product(value.dims), self.G, [], "e", copy)

    # -- memory ------------------------------------------------------------------------

    def group_array(self, element: Attribute, dims: Sequence[SSAValue], op: Operation) -> View:
        """Global memory shared by the work-items of a group for an array of sizes `dims` (per physical group)."""
        kb, hm = self.kb, self.lw.m
        host_dims = [hm.max(kb.host_value_of(d, op), hm.c(0)) for d in dims]
        size = hm.product(host_dims)
        array = self.lw.alloc(element, [hm.mul(size, self.groups)], f"group_{element}")
        view = kb.array(array)
        offset = self.m.mul(self.g, kb.scalar(size, "group_part"))
        return View(view.buffer, offset, list(dims), element)

    def local_array(self, element: Attribute, name: str, size: int | None = None) -> SSAValue:
        block = self.kb.block
        op = LocalAllocOp(size or self.group_size, element)
        block.insert_op_before(op, block.first_op) if block.first_op else block.add_op(op)
        op.result.name_hint = name
        return op.result

    def load_all(self, locals_: Sequence[SSAValue], index: SSAValue) -> list[SSAValue]:
        return [self.m.insert(LoadOp(local, index)) for local in locals_]

    def store_all(self, values: Sequence[SSAValue], locals_: Sequence[SSAValue], index: SSAValue) -> None:
        for value, local in zip(values, locals_):
            self.kb.b.insert(StoreOp(value, local, index))

    def barrier(self, global_: bool = True) -> None:
        """A work-group barrier; `global_` also orders the group's accesses to global memory."""
        self.kb.b.insert(BarrierOp(local=True, global_=global_))

    # -- group-wide combinations in local memory ------------------------------------------

    def tree_reduce(self, combine: Region, locals_: Sequence[SSAValue]) -> None:
        """Combine the work-items' values in `locals_` in order, leaving the result at position 0."""
        kb, m = self.kb, self.m
        self.barrier(global_=False)
        steps = self.group_size.bit_length() - 1

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            stride = m.insert(arith.ShLIOp(m.c(1), e), "stride")
            active = m.eq(m.rem(self.t, m.add(stride, stride)), m.c(0), "active")

            def combine_pair() -> None:
                mine, theirs = self.load_all(locals_, self.t), self.load_all(locals_, m.add(self.t, stride))
                self.store_all(self.inliner.inline_scalars(combine, [*mine, *theirs]), locals_, self.t)

            kb.if_then(active, combine_pair)
            self.barrier(global_=False)
            return []

        kb.for_loop(m.c(0), m.c(steps), m.c(1), [], "e", step)

    def scan_locals(self, combine: Region, locals_: Sequence[SSAValue]) -> None:
        """An inclusive scan (Hillis-Steele) of the work-items' values in `locals_`."""
        kb, m = self.kb, self.m
        types = [local.type.element_type for local in locals_]  # pyright: ignore[reportAttributeAccessIssue]
        self.barrier(global_=False)
        steps = self.group_size.bit_length() - 1

        def step(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            stride = m.insert(arith.ShLIOp(m.c(1), e), "stride")
            has_partner = m.cmp(self.t, stride, "uge", "has_partner")
            own = self.load_all(locals_, self.t)
            combined = self.kb.if_values(
                has_partner,
                types,
                lambda: self.inliner.inline_scalars(combine, [*self.load_all(locals_, m.sub(self.t, stride)), *own]),
                lambda: own,
            )
            self.barrier(global_=False)
            self.store_all(combined, locals_, self.t)
            self.barrier(global_=False)
            return []

        kb.for_loop(m.c(0), m.c(steps), m.c(1), [], "e", step)
