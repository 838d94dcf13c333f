"""Inlining SOAC lambdas into kernel bodies; SOACs nested in a lambda become sequential loops.

Scalar code (arith, math) is cloned; `scf.for`/`scf.if`/`scf.while` are rebuilt
around their inlined bodies; arrays are `View`s, so `soac.index`/`soac.slice` of
a row is offset arithmetic. A nested SOAC runs sequentially in the work-item:

    %s = soac.reduce %m (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(...)

becomes

    %s = scf.for %j = %c0 to %m step %c1 iter_args(%acc = %z) -> (f32) {
      %x = kernel.load %xs[...] : !kernel.buffer<global, f32> -> f32
      %c = arith.addf %acc, %x : f32
      scf.yield %c : f32
    }

Arrays a nested SOAC builds live in per-work-item scratch space (`KernelBuilder.alloc_scratch`).
"""

from __future__ import annotations

from collections.abc import Sequence

from soac import dialect as soac
from soac.lowering.conversion.generated import Generated, read_by_rows, readers
from soac.lowering.conversion.inline_control import ControlFlowInliner
from soac.lowering.conversion.kernel_builder import (
    KernelBuilder,
    KValue,
    LoweringError,
    View,
    describe,
    located_message,
    tensor_element,
)
from soac.lowering.conversion.sizes import yields_of
from soac.lowering.conversion.stencil_access import emit_sequential_stencil
from soac.lowering.kernel import ERROR_VALUES
from soac.messages import reshape_problem
from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerType, TensorType
from xdsl.ir import Operation, SSAValue


class Inliner(ControlFlowInliner):
    """Inlines lambdas into a kernel; a SOAC nested in one becomes a sequential loop of the work-item."""

    def emit_iota(self, op: soac.IotaOp) -> None:
        width = self.scalar(op.width)
        element = tensor_element(op.result.type)
        if read_by_rows(op.result):
            size = self.checked_size(op, width, "size")
            self.env[op.result] = Generated([size], element, lambda i: _cast_index(self.b, i, element))
            return
        out = self.kb.alloc_scratch(element, [width], op)

        def body(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self.kb.store(_cast_index(self.b, i, element), out, i)
            return []

        self.kb.for_loop(self.kb.m.c(0), self.checked_size(op, width, "size"), self.kb.m.c(1), [], "i", body)
        self.env[op.result] = out

    def emit_replicate(self, op: soac.ReplicateOp) -> None:
        width = self.scalar(op.width)
        value = self.value(op.value)
        element = tensor_element(op.result.type)
        inner = value.dims if isinstance(value, View) else []
        if read_by_rows(op.result):
            size = self.checked_size(op, width, "size")
            self.env[op.result] = Generated([size, *inner], element, lambda _: value)
            return
        out = self.kb.alloc_scratch(element, [width, *inner], op)

        def body(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self.kb.write_row(value, out, i)
            return []

        self.kb.for_loop(self.kb.m.c(0), self.checked_size(op, width, "size"), self.kb.m.c(1), [], "i", body)
        self.env[op.result] = out

    def emit_empty(self, op: tensor.EmptyOp) -> None:
        """A `tensor.empty` in the work-item's scratch memory, left as it is (a scatter's destination whose unwritten
        places no one reads: a filter in a lambda)."""
        result_type = op.tensor.type
        assert isinstance(result_type, TensorType)
        sizes = iter(op.dynamic_sizes)
        dims = [
            self.checked_size(op, self.scalar(next(sizes)), "size") if d == DYNAMIC_INDEX else self.kb.m.c(d)
            for d in result_type.get_shape()
        ]
        self.env[op.tensor] = self.kb.alloc_scratch(result_type.element_type, dims, op)

    def emit_transpose(self, op: soac.TransposeOp) -> None:
        """A transposed copy in the work-item's scratch memory: result element `c` is the source's element at the
        coordinates `c` permuted back."""
        source, m = self.view(op.array), self.kb.m
        dims = [source.dims[p] for p in op.perm]
        out = self.kb.alloc_scratch(tensor_element(op.result.type), dims, op)

        def body(q: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            coords = m.unflatten(q, dims, [None] * len(dims))
            at = [coords[op.perm.index(d)] for d in range(len(dims))]
            self.kb.store(self.kb.load(source, m.row_major(at, source.dims)), out, q)
            return []

        self.kb.for_loop(m.c(0), m.product(dims), m.c(1), [], "q", body)
        self.env[op.result] = out

    def emit_reverse(self, op: soac.ReverseOp) -> None:
        """A copy in the work-item's scratch memory whose element `c` is the source's at `c` with each reversed
        coordinate `k` read as `dim - 1 - k`."""
        source, m = self.view(op.array), self.kb.m
        out = self.kb.alloc_scratch(source.element, source.dims, op)

        def body(q: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            coords = m.unflatten(q, source.dims, [None] * len(source.dims))
            at = [m.sub(m.sub(d, m.c(1)), c) if k in op.dims else c for k, (c, d) in enumerate(zip(coords, source.dims))]
            self.kb.store(self.kb.load(source, m.row_major(at, source.dims)), out, q)
            return []

        self.kb.for_loop(m.c(0), m.product(source.dims), m.c(1), [], "q", body)
        self.env[op.result] = out

    def emit_rotate(self, op: soac.RotateOp) -> None:
        """A copy in the work-item's scratch memory whose row `i` is the source's row `(i + amount) mod n`."""
        source, m = self.view(op.array), self.kb.m
        amount = self.scalar(op.amount)
        out = self.kb.alloc_scratch(source.element, source.dims, op)

        def body(q: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            coords = m.unflatten(q, source.dims, [None] * len(source.dims))
            at = [rotated_row(self.kb, coords[0], amount, source.dims[0]), *coords[1:]]
            self.kb.store(self.kb.load(source, m.row_major(at, source.dims)), out, q)
            return []

        self.kb.for_loop(m.c(0), m.product(source.dims), m.c(1), [], "q", body)
        self.env[op.result] = out

    def emit_reshape(self, op: soac.ReshapeOp) -> None:
        """The same elements under the new sizes, once they are checked (all 0 when a check fails, so that nothing
        reads through the view); not owned, since the source shares its memory."""
        source, m = self.view(op.array), self.kb.m
        sizes = [self.kb.same_host_size(self.nonneg_size(op, self.scalar(s)), self.scalar(s)) for s in op.sizes]
        count = m.product(source.dims)
        if len(sizes) == 1 and sizes[0] is count:
            self.env[op.result] = View(source.buffer, source.offset, sizes, source.element)
            return
        ok = m.eq(count, m.product(sizes), "same_count")
        if len(sizes) + 1 <= ERROR_VALUES:
            self.kb.check(ok, op, reshape_problem(len(sizes)), [count, *sizes])
        else:
            self.kb.check(ok, op, f"cannot reshape an array to sizes of another element count (rank {len(sizes)})")
        dims = [self.kb.same_host_size(m.select(ok, s, m.c(0)), s) for s in sizes]
        self.env[op.result] = View(source.buffer, source.offset, dims, source.element)

    # -- nested SOACs ------------------------------------------------------------

    def _rows(self, inputs: Sequence[SSAValue], i: SSAValue) -> list[KValue]:
        rows: list[KValue] = []
        for x in inputs:
            array = self.array(x)
            rows.append(array.row(i) if isinstance(array, Generated) else self.kb.row(array, i))
        return rows

    def emit_map(self, op: soac.MapOp) -> None:
        if self._generates(op):
            self._generate_map(op)
            return
        width = self.scalar(op.width)
        row_dims = self._row_result_dims(op, list(op.outs))
        outs = [self.kb.alloc_scratch(tensor_element(r.type), [width, *dims], op) for r, dims in zip(op.outs, row_dims)]

        def body(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            values = self.inline(op.body, self._rows(op.inputs, i))
            for value, out in zip(values, outs):
                self.kb.write_row(value, out, i)
            return []

        width = self.checked_width(op, op.inputs)
        self.kb.for_loop(self.kb.m.c(0), width, self.kb.m.c(1), [], "i", body, unroll=self.kb.row_unroll)
        for result, out in zip(op.outs, outs):
            self.env[result] = out

    def _generates(self, op: soac.MapOp) -> bool:
        """A map over a generated array whose results one nested SOAC beside it reads by rows: generated itself."""
        if not any(isinstance(self.env.get(x), Generated) for x in op.inputs):
            return False
        results = list(op.outs)
        if not all(read_by_rows(r) for r in results) or sum(readers(r) for r in results) > 1:
            return False
        # a reader in a loop or lambda would run the lambda again at each of its own steps
        return all(u.operation.parent_block() is op.parent_block() for r in results for u in r.uses)

    def _generate_map(self, op: soac.MapOp) -> None:
        """Row `i` of each result is the lambda applied to row `i` of the inputs, inlined where it is read. The element
        of an iota of the map's own width is below that width (its readers check that they read no further): reads at
        it need no check against an array of that size (the rows of a transposed copy, `coalesce_manifest.py`)."""
        width = self.checked_width(op, op.inputs)
        for x, arg in zip(op.inputs, op.body.block.args):
            if isinstance(x.owner, soac.IotaOp) and x.owner.width is op.width:
                self.bounds[arg] = op.width
        for k, result in enumerate(op.outs):
            assert isinstance(result.type, TensorType)
            inner = self._row_result_dims(op, [result])[0] if result.type.get_num_dims() > 1 else []

            def row(i: SSAValue, k: int = k) -> KValue:
                return self.inline(op.body, self._rows(op.inputs, i))[k]

            self.env[result] = Generated([width, *inner], tensor_element(result.type), row)

    def _row_result_dims(self, op: soac.MapOp, results: Sequence[SSAValue]) -> list[list[SSAValue]]:
        """The sizes of the rows that a nested map yields, computed before its loop."""
        dims: list[list[SSAValue]] = []
        for result, yielded in zip(results, yields_of(op.body)):
            assert isinstance(result.type, TensorType)
            if result.type.get_num_dims() == 1:
                dims.append([])
            elif (known := self.sizes.dims(yielded)) is not None:
                dims.append(known)
            else:
                raise LoweringError(
                    f"{describe(op)}: the size of the rows it yields depends on the element (an irregular array); "
                    "compute it from sizes and values outside its lambda"
                )
        return dims

    def _fold(self, op: soac.ReduceOp | soac.RedomapOp | soac.ScanOp | soac.ScanomapOp, scan: bool) -> None:
        width = self.scalar(op.width)
        neutral = [self.scalar(v) for v in op.neutral]
        k = len(neutral)
        lam = op.body if isinstance(op, soac.RedomapOp | soac.ScanomapOp) else None
        map_outs = list(op.outs)[k:] if lam is not None and not scan else []
        scanned_results = list(op.outs)[:k] if scan else []
        if isinstance(op, soac.ScanomapOp):
            scanned_results = list(op.outs)[: len(op.outs) - (len(yields_of(op.body)) - k)]
            map_outs = list(op.outs)[len(scanned_results) :]
        for r in [*map_outs, *scanned_results]:
            assert isinstance(r.type, TensorType)
            if r.type.get_num_dims() != 1:
                raise LoweringError(f"{describe(op)}: nested scans and map-outs of arrays are not supported in kernels")
        scan_views = [self._fold_output(op, r, width) for r in scanned_results]
        map_views = [self._fold_output(op, r, width) for r in map_outs]
        post = op.post if isinstance(op, soac.ScanomapOp) and op.post.blocks else None

        def body(i: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
            rows = self._rows(op.inputs, i)
            mapped = self.inline(lam, rows) if lam is not None else rows
            new = self.inline_scalars(op.combine, [*accs, *mapped[:k]])
            for value, out in zip(mapped[k:], map_views):
                if out is not None:
                    self.kb.write_row(value, out, i)
            if scan:
                finals = self.inline(post, [*new, *rows]) if post is not None else new
                for value, out in zip(finals, scan_views):
                    if out is not None:
                        self.kb.write_row(value, out, i)
            return new

        width = self.checked_width(op, op.inputs)
        accs = self.kb.for_loop(self.kb.m.c(0), width, self.kb.m.c(1), neutral, "i", body, unroll=self.kb.row_unroll)
        values = [*scan_views, *map_views] if scan else [*accs, *map_views]
        for result, value in zip(op.outs, values):
            if value is not None:
                self.env[result] = value

    def _fold_output(self, op: Operation, result: SSAValue, width: SSAValue) -> View | None:
        """Scratch memory for an array result of a nested reduce or scan (None for one that nothing uses)."""
        return self.kb.alloc_scratch(tensor_element(result.type), [width], op) if result.uses else None

    def emit_reduce(self, op: soac.ReduceOp | soac.RedomapOp) -> None:
        self._fold(op, scan=False)

    def emit_scan(self, op: soac.ScanOp | soac.ScanomapOp) -> None:
        self._fold(op, scan=True)

    def emit_scatter(self, op: soac.ScatterOp) -> None:
        dests = [self.owned(op, self.view(d)) for d in op.dests]
        k = len(dests)

        def body(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            values = self.inline_scalars(op.body, self._rows(op.inputs, i))
            for dest, index, value in zip(dests, values[:k], values[k:]):
                index = _to_index(self.b, index)
                inside = scatter_in_bounds(self.kb, index, dest.dims[0])
                self.kb.if_then(inside, lambda d=dest, j=index, v=value: self.kb.write_row(v, d, j))
            return []

        self.kb.for_loop(self.kb.m.c(0), self.checked_width(op, op.inputs), self.kb.m.c(1), [], "i", body)
        for result, dest in zip(op.outs, dests):
            self.env[result] = dest

    def emit_hist(self, op: soac.HistOp) -> None:
        """A histogram inside a lambda: its work-item's own copy of the bins, updated row by row."""
        dests = [self.owned(op, self.view(d)) for d in op.dests]

        def body(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            index, *values = self.inline_scalars(op.body, self._rows(op.inputs, i))
            j = _to_index(self.b, index)

            def update() -> None:
                current = [self.kb.load(dest, j) for dest in dests]
                for dest, value in zip(dests, self.inline_scalars(op.combine, [*current, *values])):
                    self.kb.store(value, dest, j)

            self.kb.if_then(scatter_in_bounds(self.kb, j, dests[0].dims[0]), update)
            return []

        self.kb.for_loop(self.kb.m.c(0), self.checked_width(op, op.inputs), self.kb.m.c(1), [], "i", body)
        for result, dest in zip(op.outs, dests):
            self.env[result] = dest

    def emit_partition(self, op: soac.PartitionOp) -> None:
        """A partition inside a lambda, by its work-item alone: a counting sort in its scratch memory. One pass counts
        the rows per bucket (out-of-range buckets as bucket k), the counts' exclusive scan gives each bucket's first
        place, a second pass moves each row's values to its bucket's next place."""
        kb, m = self.kb, self.kb.m
        k = op.bucket_count
        width = self.checked_width(op, op.inputs)
        i32 = IntegerType(32)
        cursor = kb.alloc_scratch(i32, [m.c(k + 1)], op)
        counts = kb.alloc_scratch(i32, [m.c(k)], op)
        outs = [kb.alloc_scratch(tensor_element(r.type), [self.scalar(op.width)], op) for r in op.outs]
        zero, one = m.const(0, i32), m.const(1, i32)

        def bucket_of(i: SSAValue) -> tuple[SSAValue, list[SSAValue]]:
            bucket, *values = self.inline_scalars(op.body, self._rows(op.inputs, i))
            j = _to_index(self.b, bucket)
            return m.select(scatter_in_bounds(kb, j, m.c(k)), j, m.c(k), "bucket"), values

        def clear(b: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            kb.store(zero, cursor, b)
            return []

        def count(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            b, _values = bucket_of(i)
            kb.store(m.insert(arith.AddiOp(kb.load(cursor, b), one)), cursor, b)
            return []

        def start(b: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
            here = kb.load(cursor, b, "here")
            kb.when(m.lt(b, m.c(k)), lambda: kb.store(here, counts, b))
            kb.store(acc[0], cursor, b)
            return [m.insert(arith.AddiOp(acc[0], here), "next")]

        def place(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            b, values = bucket_of(i)
            at = kb.load(cursor, b, "at")
            kb.store(m.insert(arith.AddiOp(at, one)), cursor, b)
            to = _to_index(self.b, at)
            for value, out in zip(values, outs):
                kb.store(value, out, to)
            return []

        kb.for_loop(m.c(0), m.c(k + 1), m.c(1), [], "b", clear)
        kb.for_loop(m.c(0), width, m.c(1), [], "i", count)
        kb.for_loop(m.c(0), m.c(k + 1), m.c(1), [zero], "b", start)
        kb.for_loop(m.c(0), width, m.c(1), [], "i", place)
        self.env[op.counts] = counts
        for result, out in zip(op.outs, outs):
            self.env[result] = out

    def emit_segmap(self, op: soac.SegmapOp) -> None:
        sizes = [self.scalar(d) for d in op.dims]
        outs = [self.kb.alloc_scratch(tensor_element(r.type), list(sizes), op) for r in op.outs]
        dims = [self.checked_size(op, d, "dimension") for d in sizes]
        for r in op.outs:
            assert isinstance(r.type, TensorType)
            if r.type.get_num_dims() != len(dims):
                raise LoweringError(f"{describe(op)}: a nested segmap yielding arrays is not supported in kernels")
        total = self.kb.m.product(dims)

        def body(flat: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            indices = self.kb.m.unflatten(flat, dims, [None] * len(dims))
            values = self.inline(op.body, indices)
            for value, out in zip(values, outs):
                self.kb.write_row(value, out, flat)
            return []

        self.kb.for_loop(self.kb.m.c(0), total, self.kb.m.c(1), [], "p", body)
        for result, out in zip(op.outs, outs):
            self.env[result] = out

    def emit_segcombine(self, op: soac.SegredOp | soac.SegscanOp) -> None:
        scan = isinstance(op, soac.SegscanOp)
        sizes = [self.scalar(d) for d in op.dims]
        neutral = [self.scalar(v) for v in op.neutral]
        k = len(neutral)
        combined_sizes = sizes if scan else sizes[:-1]
        combined = [self.kb.alloc_scratch(tensor_element(r.type), combined_sizes or [self.kb.m.c(1)], op) for r in op.outs[:k]]
        map_views = [self.kb.alloc_scratch(tensor_element(r.type), list(sizes), op) for r in op.outs[k:]]
        dims = [self.checked_size(op, d, "dimension") for d in sizes]
        outer, inner = dims[:-1], dims[-1]
        m = self.kb.m

        def segment(s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            prefix = m.unflatten(s, outer, [None] * len(outer)) if outer else []

            def step(j: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
                values = self.inline(op.body, [*prefix, j])
                new = self.inline_scalars(op.combine, [*accs, *values[:k]])
                flat = m.add(m.mul(s, inner), j)
                for value, out in zip(values[k:], map_views):
                    self.kb.write_row(value, out, flat)
                if scan:
                    for value, out in zip(new, combined):
                        self.kb.store(value, out, flat)
                return new

            accs = self.kb.for_loop(m.c(0), inner, m.c(1), neutral, "j", step)
            if not scan:
                for value, out in zip(accs, combined):
                    self.kb.store(value, out, s)
            return []

        self.kb.for_loop(m.c(0), m.product(outer), m.c(1), [], "s", segment)
        if not scan and not outer:
            results: list[KValue] = [self.kb.load(v, m.c(0)) for v in combined]
        else:
            results = list(combined)
        for result, value in zip(op.outs, [*results, *map_views]):
            self.env[result] = value

    def emit_assert(self, op: soac.AssertOp) -> None:
        values = [self.scalar(v) for v in op.values]
        self.kb.record_unless(self.scalar(op.ok), located_message(op, op.message.data), values)

    def emit_threshold(self, op: soac.ThresholdOp) -> None:
        raise LoweringError(f"{describe(op)} inside a SOAC lambda is not supported; thresholds belong to host code")


def rotated_row(kb: KernelBuilder, row: SSAValue, amount: SSAValue, rows: SSAValue) -> SSAValue:
    """`(row + amount) mod rows` for a row in `[0, rows)` and any amount (computed where a row exists, so `rows` is
    not 0)."""
    m = kb.m
    rest = m.insert(arith.RemSIOp(amount, rows), "rest")
    shift = m.select(m.cmp(rest, m.c(0), "slt"), m.add(rest, rows), rest, "shift")
    moved = m.add(row, shift)
    return m.select(m.lt(moved, rows), moved, m.sub(moved, rows), "row")


def scatter_in_bounds(kb: KernelBuilder, index: SSAValue, size: SSAValue) -> SSAValue:
    """Whether a scatter writes its row: its index is inside the destination (compared unsigned, so negative indices
    are outside). Futhark's partial scatter: a row with any other index, such as -1, is dropped."""
    return kb.m.lt(index, size, "in_bounds")


def _to_index(builder: Builder, value: SSAValue) -> SSAValue:

    if isinstance(value.type, IndexType):
        return value
    op = arith.IndexCastOp(value, IndexType())
    builder.insert(op)
    return op.result


def _cast_index(builder: Builder, value: SSAValue, to: object) -> SSAValue:

    if isinstance(to, IndexType):
        return value
    op = arith.IndexCastOp(value, to)  # pyright: ignore[reportArgumentType]
    builder.insert(op)
    return op.result


Inliner.HANDLERS = {
    scf.ForOp: Inliner.emit_for,
    scf.IfOp: Inliner.emit_if,
    scf.WhileOp: Inliner.emit_while,
    soac.IndexOp: Inliner.emit_index,
    tensor.ExtractOp: Inliner.emit_extract,
    tensor.InsertOp: Inliner.emit_insert,
    soac.SliceOp: Inliner.emit_slice,
    soac.UpdateOp: Inliner.emit_update,
    soac.IotaOp: Inliner.emit_iota,
    soac.ReplicateOp: Inliner.emit_replicate,
    tensor.EmptyOp: Inliner.emit_empty,
    soac.TransposeOp: Inliner.emit_transpose,
    soac.ReverseOp: Inliner.emit_reverse,
    soac.RotateOp: Inliner.emit_rotate,
    soac.ReshapeOp: Inliner.emit_reshape,
    soac.MapOp: Inliner.emit_map,
    soac.ReduceOp: Inliner.emit_reduce,
    soac.RedomapOp: Inliner.emit_reduce,
    soac.ScanOp: Inliner.emit_scan,
    soac.ScanomapOp: Inliner.emit_scan,
    soac.ScatterOp: Inliner.emit_scatter,
    soac.HistOp: Inliner.emit_hist,
    soac.PartitionOp: Inliner.emit_partition,
    soac.SegmapOp: Inliner.emit_segmap,
    soac.SegredOp: Inliner.emit_segcombine,
    soac.SegscanOp: Inliner.emit_segcombine,
    soac.ThresholdOp: Inliner.emit_threshold,
    soac.AssertOp: Inliner.emit_assert,
    soac.StencilOp: lambda inliner, op: emit_sequential_stencil(inliner, op),
    tensor.DimOp: Inliner.emit_dim,
}
