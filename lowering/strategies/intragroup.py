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
work-group at once where one element's segmap leaves work-items idle (`packed_groups.py`).

Targets without `group_segmaps` (`cpu`) run a group-level segmap as a thread-level one: a work-item per
element, its segops sequential (see `DeviceTarget.group_segmaps`).
"""

from __future__ import annotations

from collections.abc import Sequence

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KValue, View, tensor_element
from soac.lowering.kernel import LoadOp, StoreOp
from soac.lowering.strategies.group_code import commutes
from soac.lowering.strategies.packed_groups import STAGED_PROBLEM, PackedSegmap, SegOp, shareable
from xdsl.dialects import arith
from xdsl.ir import Attribute, Operation, Region, SSAValue


def lower_segmap(lw: HostLowering, op: soac.SegmapOp) -> None:
    """A group-level segmap with thread-level segops in its lambda as a work-group per element; others as before."""
    from soac.lowering.strategies import maps

    cooperative = op.level.data == soac.Level.GROUP and lw.target.group_segmaps
    if cooperative and any(shareable(inner) for inner in op.body.block.ops):
        GroupSegmap(lw, op).lower()
    else:
        maps.lower_segmap(lw, op)


class GroupSegmap(PackedSegmap):
    """Builds the kernel of one group-level segmap (its state and packed elements: `packed_groups.py`)."""

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
        self.launch_versions(outs, (lw.m.mul(self.groups, local_size, "global_size"), local_size))

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
            if shareable(inner):
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
            if isinstance(owner, soac.SegmapOp) and owner.parent_block() is block and shareable(owner):
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

    def load_all(self, locals_: Sequence[SSAValue], index: SSAValue) -> list[SSAValue]:
        return [self.m.insert(LoadOp(local, index)) for local in locals_]

    def store_all(self, values: Sequence[SSAValue], locals_: Sequence[SSAValue], index: SSAValue) -> None:
        for value, local in zip(values, locals_):
            self.kb.b.insert(StoreOp(value, local, index))

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
