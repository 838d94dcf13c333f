r"""Flattening a partition in a map nest: a map of partitions becomes partitions of the whole flat array.

Σ ⊢ partition k f xs (one stable partition per point `s` of the nest, `m` points, each of rows of width `n`) is a
stable partition of the `m * n` rows of the flat array on the composite key `(s, b')`, where `b'` is the row's
bucket `b` if `0 <= b < k`, else `k` (the rows outside the buckets come last in their segment, in order). Two ways:

* *one flat partition* when `m * (k + 1)` classes fit one partition of `FLAT_CLASSES` buckets: class
  `s * (k + 1) + b'`; its counts, read as an `m x (k + 1)` matrix, give each segment's `k` counts;
* *LSD radix* otherwise: a partition by `b` over the flat array (the segment id `s` moves with the values), then a
  stable partition by each 8-bit digit of `s`, the lowest first, as many as `m - 1` has (a host loop where `m` is
  known only at run time); the counts come from one `soac.hist` of the composite class.

A nest whose size is a constant takes one of them; otherwise `scf.if %m <= FLAT_CLASSES / (k + 1)` chooses at run
time (a limit of the flat version, not a tunable threshold). A flat row `p` lies in segment `s = p / n`, computed in
each lambda from an iota; values of the nest that the bucket function reads (a per-row pivot) are read at `s`. The
counts the program knew (`counts(...)`, a promise for Onesweep) are dropped: the segmented partition counts itself.

    %cs, %ys = soac.map %m (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) lambda(%xs: tensor<?xi32>) {
      %counts, %zs = soac.partition %n buckets 5 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
          lambda(%x: i32) { ... soac.yield %b, %x : index, i32 }
      soac.yield %counts, %zs : tensor<?xi32>, tensor<?xi32>
    }
becomes (`mode=full`; `incremental` keeps the map with a partition per thread too, behind `suff_outer_par_K`)
    %flat_rows = arith.muli %m, %n : index
    %flat_xss = soac.reshape %xss (%flat_rows) : tensor<?x?xi32> -> tensor<?xi32>
    %pos = soac.iota %flat_rows : tensor<?xindex>
    %row_width = arith.maxui %n, %c1 : index
    %fits_flat = arith.cmpi ule, %m, %c42 : index                              // 42 = 256 / (5 + 1)
    %cs, %ys = scf.if %fits_flat -> (tensor<?x?xi32>, tensor<?x?xi32>) {
      %class_counts, %0 = soac.partition %flat_rows buckets 256 (%pos, %flat_xss : tensor<?xindex>, tensor<?xi32>)
          -> (tensor<?xi32>, tensor<?xi32>) lambda(%p: index, %x: i32) {
        %s = arith.divui %p, %row_width : index
        ...                                                                     // the bucket %b, as before
        %class = ...                                                            // s * 6 + (0 <= b < 5 ? b : 5)
        soac.yield %class, %x : index, i32
      }
      %counts = soac.segmap thread (%m, %c5) -> tensor<?x?xi32> lambda(%i: index, %j: index) {
        ... soac.index %class_counts[i * 6 + j] ...
      }
      %zs = soac.reshape %0 (%m, %n) : tensor<?xi32> -> tensor<?x?xi32>
      scf.yield %counts, %zs : tensor<?x?xi32>, tensor<?x?xi32>
    } else {
      %_, %by_bucket, %seg = soac.partition %flat_rows buckets 5 (%pos, %flat_xss : ...) lambda(%p: index, %x: i32) {
        ... soac.yield %b, %x, %s : index, i32, index
      }
      %digit_bits = ...                                                         // 8 * the 8-bit digits of m - 1
      %zs, %_ = scf.for %shift = %c0 to %digit_bits step %c8 iter_args(%z = %by_bucket, %t = %seg) -> (...) {
        %digit_counts = soac.segmap thread (%c256) -> tensor<?xi32> lambda(%v: index) {...}   // n * #{s : digit v}
        %_, %z1, %t1 = soac.partition %flat_rows buckets 256 counts(%digit_counts : tensor<?xi32>) (%z, %t : ...)
            lambda(%x: i32, %u: index) {
          ... soac.yield %digit, %x, %u : index, i32, index                   // (u >> shift) & 255
        }
        scf.yield %z1, %t1 : tensor<?xi32>, tensor<?xindex>
      }
      %class_counts = soac.hist %flat_rows (%pos, %flat_xss : ...) into(%zeros : tensor<?xi32>) ... lambda(...) {
        ... soac.yield %class, %one : index, i32
      }
      %counts = soac.segmap thread (%m, %c5) ...                                // as above
      ...
    }
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from soac.dialect import HistOp, IndexOp, IotaOp, Level, PartitionOp, ReplicateOp, ReshapeOp, SegmapOp, YieldOp
from soac.passes.flatten_checks import constant_of
from soac.passes.flatten_nest import Nest
from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, IntegerType, TensorType, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

OpT = TypeVar("OpT", bound=Operation)

FLAT_CLASSES = 256
"""The buckets of the one flat partition: `m * (k + 1)` classes must fit. As many as a radix sort's 8-bit digit, so
the flat version costs what one digit pass does on every target (more classes shrink the work-groups of the GPU
lowering, whose counters live in local memory: `lowering/strategies/partition.py`, `local_bytes`, `tile_shape`)."""
DIGIT_BITS = 8
"""Bits of the segment id each radix pass orders by."""
MAX_DIGIT_PASSES = 8
"""Digit passes that any 64-bit segment count needs."""

index = IndexType()


def bucket_type_supported(op: PartitionOp) -> bool:
    """Whether the composite class can be computed from `op`'s bucket (index, or a signed integer of 2 bits or more:
    an `i1` bucket reads true as 1 in the interpreter but as -1 once cast)."""
    bucket = op.body.block.last_op.operands[0].type  # pyright: ignore[reportOptionalMemberAccess]
    return isinstance(bucket, IndexType) or (isinstance(bucket, IntegerType) and bucket.width.data > 1)


@dataclass
class SegmentedPartition:
    """The ops that replace the partition `op` of `nest`: built with `builder` before the nest.

    `inputs` are the partition's inputs as arrays over the nest, `width` the rows of each segment (defined before the
    nest), `outer` the values the bucket function reads that are the same in every segment, and `per_segment` those
    it reads per segment, each as its array over the nest."""

    builder: Builder
    nest: Nest
    op: PartitionOp
    width: SSAValue
    inputs: list[SSAValue]
    outer: dict[SSAValue, SSAValue]
    per_segment: dict[SSAValue, SSAValue]
    top: Builder = field(init=False)
    """Where the constants go: before the versions, whichever builder the version being built has."""
    constants: dict[int, SSAValue] = field(init=False, default_factory=dict[int, SSAValue])
    segments: SSAValue = field(init=False)
    """`m`, the points of the nest (the product of its widths)."""
    rows: SSAValue = field(init=False)
    """`m * n`, the rows of the flat array."""
    flat: list[SSAValue] = field(init=False)
    """The inputs as `[m * n, ...]`."""
    read_at_segment: dict[SSAValue, SSAValue] = field(init=False)
    """The per-segment values the bucket function reads, as arrays `[m, ...]` that its lambda reads at `s`."""
    positions: SSAValue = field(init=False)
    """`iota (m * n)`: each lambda's row position, from which it computes `s`."""
    row_width: SSAValue = field(init=False)
    """`max(n, 1)`, the divisor of `s = p / n` (no lane runs where `n` is 0)."""

    @property
    def k(self) -> int:
        return self.op.bucket_count

    def emit(self) -> list[SSAValue]:
        """The partition's counts and moved values over the nest (what replaces its results)."""
        self.top = self.builder
        self.segments = self.product(self.nest.widths, "segments")
        self.rows = self.insert(arith.MuliOp(self.segments, self.width), "flat_rows")
        self.flat = [self.flatten(x) for x in self.inputs]
        self.read_at_segment = {v: self.flatten_segments(a) for v, a in self.per_segment.items()}
        self.positions = self.insert(IotaOp(self.rows, TensorType(index, [DYNAMIC_INDEX])), "pos")
        self.row_width = self.insert(arith.MaxUIOp(self.width, self.constant(1)), "row_width")  # no lane for none
        types = [self.nest.manifest_type(r.type) for r in self.op.results]
        static = self.static_segments()
        if static is not None and static * (self.k + 1) <= FLAT_CLASSES:
            return self.flat_version(max(1, static * (self.k + 1)))
        if static is not None:
            return self.radix_version(static)
        if self.k + 1 > FLAT_CLASSES:
            return self.radix_version(None)
        most = self.constant(FLAT_CLASSES // (self.k + 1))
        fits = self.insert(arith.CmpiOp(self.segments, most, "ule"), "fits_flat")
        return self.versions(fits, types)

    # -- the two versions -----------------------------------------------------------------------------------------

    def versions(self, fits: SSAValue, types: list[Attribute]) -> list[SSAValue]:
        """`scf.if %fits` between the flat version (256 buckets) and the radix one (a loop of digit passes)."""
        branches: list[Block] = []
        for build in (lambda: self.flat_version(FLAT_CLASSES), lambda: self.radix_version(None)):
            block = Block()
            saved, self.builder = self.builder, Builder(InsertPoint.at_end(block))
            results = build()
            block.add_op(scf.YieldOp(*results))
            self.builder = saved
            branches.append(block)
        choice = self.add(scf.IfOp(fits, types, [branches[0]], [branches[1]]))
        return list(choice.results)

    def flat_version(self, buckets: int) -> list[SSAValue]:
        """One partition of the flat rows by class `s * (k + 1) + b'`, of `buckets` buckets (at least `m * (k + 1)`)."""
        region = self.bucket_lambda(lambda b, lam, s: [lam.composite_class(s, b)], moved_segment=False)
        moved_types = list(self.op.outs.types)
        flat = self.add(PartitionOp(self.rows, [self.positions, *self.flat], buckets, moved_types, region))
        flat.counts.name_hint = "class_counts"
        counts = self.segment_counts(flat.counts) if self.op.counts.uses else self.empty_counts()
        return [counts, *self.unflatten(flat.outs)]

    def radix_version(self, static_segments: int | None) -> list[SSAValue]:
        """A partition by bucket, then one by each digit of the segment id (lowest first); counts by a histogram."""
        region = self.bucket_lambda(lambda b, lam, s: [b], moved_segment=True)
        types = [*self.op.outs.types, TensorType(index, [DYNAMIC_INDEX])]
        first = self.add(PartitionOp(self.rows, [self.positions, *self.flat], self.k, types, region))
        first.outs[-1].name_hint = "seg"
        moved = list(first.outs)
        if static_segments is not None:
            for p in range(digit_passes(static_segments)):
                moved = self.digit_pass(moved, self.constant(p * DIGIT_BITS))
        else:
            moved = self.digit_loop(moved)
        counts = self.class_histogram() if self.op.counts.uses else self.empty_counts()
        return [counts, *self.unflatten(moved[:-1])]

    def digit_loop(self, moved: list[SSAValue]) -> list[SSAValue]:
        """`scf.for %shift = 0 to 8 * (digits of m - 1) step 8`, a digit pass in each iteration."""
        passes = self.constant(0)
        for j in range(MAX_DIGIT_PASSES):
            more = self.insert(arith.CmpiOp(self.segments, self.constant(1 << (DIGIT_BITS * j)), "ugt"))
            step = self.insert(arith.SelectOp(more, self.constant(DIGIT_BITS), self.constant(0)))
            passes = self.insert(arith.AddiOp(passes, step), "digit_bits")
        body = Block(arg_types=[index, *(v.type for v in moved)])
        body.args[0].name_hint = "shift"
        saved, self.builder = self.builder, Builder(InsertPoint.at_end(body))
        ends = self.digit_pass(list(body.args[1:]), body.args[0])
        body.add_op(scf.YieldOp(*ends))
        self.builder = saved
        loop = self.add(scf.ForOp(self.constant(0), passes, self.constant(DIGIT_BITS), moved, body))
        return list(loop.results)

    def digit_pass(self, moved: list[SSAValue], shift: SSAValue) -> list[SSAValue]:
        """A stable partition of `moved` (the values, then the segment ids) by the digit `(s >> shift) & 255`."""
        element_types = [t.get_element_type() for t in (v.type for v in moved) if isinstance(t, TensorType)]
        block = Block(arg_types=element_types)
        lam = LambdaBuilder(block)
        segment = block.args[-1]
        digit = lam.insert(arith.ShRUIOp(segment, shift))
        digit = lam.insert(arith.AndIOp(digit, lam.constant((1 << DIGIT_BITS) - 1)), "digit")
        block.add_op(YieldOp(digit, *block.args))
        types = [v.type for v in moved]
        known = self.digit_counts(shift)
        step = self.add(PartitionOp(self.rows, moved, 1 << DIGIT_BITS, types, Region(block), known))
        step.outs[-1].name_hint = "seg"
        return list(step.outs)

    def digit_counts(self, shift: SSAValue) -> SSAValue:
        """The rows of each digit `v` of the segment ids at `shift`, known without reading them (a segmap of 256),
        given to the digit pass so that a device with forward progress partitions in one pass (Onesweep): every
        segment has `n` rows, and of the segment ids `s < m` the `q = m >> shift` whole blocks of `B = 1 << shift`
        ids share a digit by block, `(q >> 8) + (v < q & 255)` blocks of digit `v`, and the `m - q * B` ids of the
        last block have digit `q & 255`. No division: any `shift` below 64 is exact."""
        block = Block(arg_types=[index])
        lam = LambdaBuilder(block)
        (digit,) = block.args
        digit.name_hint = "v"
        mask = lam.constant((1 << DIGIT_BITS) - 1)
        span = lam.insert(arith.ShLIOp(lam.constant(1), shift), "span")
        blocks = lam.insert(arith.ShRUIOp(self.segments, shift), "blocks")
        rest = lam.insert(arith.SubiOp(self.segments, lam.insert(arith.ShLIOp(blocks, shift))), "rest")
        last = lam.insert(arith.AndIOp(blocks, mask), "last_digit")
        before = lam.insert(arith.CmpiOp(digit, last, "ult"))
        whole = lam.insert(arith.ShRUIOp(blocks, lam.constant(DIGIT_BITS)))
        whole = lam.insert(arith.AddiOp(whole, lam.insert(arith.SelectOp(before, lam.constant(1), lam.constant(0)))))
        partial = lam.insert(arith.SelectOp(lam.insert(arith.CmpiOp(digit, last, "eq")), rest, lam.constant(0)))
        ids = lam.insert(arith.AddiOp(lam.insert(arith.MuliOp(whole, span)), partial), "ids")
        rows = lam.insert(arith.MuliOp(ids, self.width))
        count = lam.insert(arith.IndexCastOp(rows, i32), "count")
        block.add_op(YieldOp(count))
        counts = self.add(
            SegmapOp(Level.THREAD, [self.constant(1 << DIGIT_BITS)], [TensorType(i32, [DYNAMIC_INDEX])], Region(block))
        )
        counts.results[0].name_hint = "digit_counts"
        return counts.results[0]

    # -- counts -------------------------------------------------------------------------------------------------------

    def class_histogram(self) -> SSAValue:
        """The rows of each class `s * (k + 1) + b'` (a `soac.hist` of `m * (k + 1)` bins), as counts over the nest."""
        bins = self.insert(arith.MuliOp(self.segments, self.constant(self.k + 1)), "classes")
        zero = self.insert(arith.ConstantOp(IntegerAttr(0, i32)), "zero")
        zeros = self.insert(ReplicateOp(bins, zero), "zeros")
        combine = Block(arg_types=[i32, i32])
        total = arith.AddiOp(combine.args[0], combine.args[1])
        combine.add_ops([total, YieldOp(total.result)])

        def class_and_one(b: SSAValue, lam: LambdaBuilder, s: SSAValue) -> list[SSAValue]:
            return [lam.composite_class(s, b), lam.insert(arith.ConstantOp(IntegerAttr(1, i32)), "one")]

        region = self.bucket_lambda(class_and_one, moved_segment=False, values=False)
        hist = self.add(HistOp(self.rows, [self.positions, *self.flat], [zeros], [zero], Region(combine), region))
        hist.results[0].name_hint = "class_counts"
        return self.segment_counts(hist.results[0])

    def segment_counts(self, classes: SSAValue) -> SSAValue:
        """`counts[i...][j] = classes[s * (k + 1) + j]` for `j < k`, `s` the linear index of the nest's point."""
        d = self.nest.depth
        block = Block(arg_types=[index] * (d + 1))
        lam = LambdaBuilder(block)
        s = lam.linear(list(block.args[:d]), self.nest.widths)
        place = lam.insert(arith.AddiOp(lam.insert(arith.MuliOp(s, lam.constant(self.k + 1))), block.args[d]))
        read = lam.insert(IndexOp(classes, [place]), "count")
        block.add_op(YieldOp(read))
        dims = [*self.nest.widths, self.constant(self.k)]
        counts = self.add(SegmapOp(Level.THREAD, dims, [self.nest.manifest_type(self.op.counts.type)], Region(block)))
        counts.results[0].name_hint = self.op.counts.name_hint or "counts"
        return counts.results[0]

    def empty_counts(self) -> SSAValue:
        """Counts that no op reads: a zero array of their shape, so the histogram is not computed."""
        zero = self.insert(arith.ConstantOp(IntegerAttr(0, i32)), "zero")
        row = self.insert(ReplicateOp(self.constant(self.k), zero))
        result = row
        for width in reversed(self.nest.widths):
            result = self.insert(ReplicateOp(width, result))
        return result

    # -- lambdas ------------------------------------------------------------------------------------------------------

    def bucket_lambda(
        self, finish: Callable[[SSAValue, LambdaBuilder, SSAValue], list[SSAValue]], moved_segment: bool, values: bool = True
    ) -> Region:
        """The partition's bucket function over the flat rows (a position, then the rows of the inputs): `finish`
        makes what it yields first from the bucket and the segment id; then the moved values (if `values`) and the
        segment id (if `moved_segment`)."""
        original = self.op.body.block
        block = Block(arg_types=[index, *(a.type for a in original.args)])
        lam = LambdaBuilder(block, self.k)
        position = block.args[0]
        position.name_hint = "p"
        mapper: dict[SSAValue, SSAValue] = dict(self.outer)
        for old, new in zip(original.args, block.args[1:]):
            mapper[old] = new
            new.name_hint = old.name_hint
        segment = lam.insert(arith.DivUIOp(position, self.row_width), "s")
        for value, array in self.read_at_segment.items():
            mapper[value] = lam.insert(IndexOp(array, [segment]), value.name_hint)
        *ops, yield_op = original.ops
        for op in ops:
            block.add_op(op.clone(mapper))
        bucket, *moved = (mapper.get(v, v) for v in yield_op.operands)
        first = finish(bucket, lam, segment)
        block.add_op(YieldOp(*first, *(moved if values else []), *([segment] if moved_segment else [])))
        return Region(block)

    # -- arrays and scalars before the nest ---------------------------------------------------------------------------

    def flatten(self, array: SSAValue) -> SSAValue:
        """An input over the nest (`[w..., n, rest...]`) as `[m * n, rest...]`."""
        t = array.type
        assert isinstance(t, TensorType)
        rest = [self.dim(array, axis) for axis in range(self.nest.depth + 1, t.get_num_dims())]
        return self.insert(ReshapeOp(array, [self.rows, *rest]), f"flat_{array.name_hint}" if array.name_hint else "flat")

    def flatten_segments(self, array: SSAValue) -> SSAValue:
        """An array over the nest (`[w..., rest...]`) as `[m, rest...]`."""
        t = array.type
        assert isinstance(t, TensorType)
        if self.nest.depth == 1:
            return array
        rest = [self.dim(array, axis) for axis in range(self.nest.depth, t.get_num_dims())]
        return self.insert(ReshapeOp(array, [self.segments, *rest]))

    def unflatten(self, arrays: Sequence[SSAValue]) -> list[SSAValue]:
        """Moved values `[m * n]` as `[w..., n]`."""
        results: list[SSAValue] = []
        for array, result in zip(arrays, self.op.outs):
            results.append(self.insert(ReshapeOp(array, [*self.nest.widths, self.width]), result.name_hint))
        return results

    def dim(self, array: SSAValue, axis: int) -> SSAValue:
        t = array.type
        assert isinstance(t, TensorType)
        if (size := t.get_shape()[axis]) >= 0:
            return self.constant(size)
        return self.insert(tensor.DimOp(array, self.constant(axis)))

    def static_segments(self) -> int | None:
        sizes = [constant_of(w) for w in self.nest.widths]
        return None if any(s is None for s in sizes) else math.prod(sizes)  # pyright: ignore[reportArgumentType]

    def product(self, values: Sequence[SSAValue], name: str) -> SSAValue:
        result = values[0]
        for value in values[1:]:
            result = self.insert(arith.MuliOp(result, value), name)
        return result

    def constant(self, value: int) -> SSAValue:
        """An index constant, made once, before the versions."""
        if (known := self.constants.get(value)) is None:
            known = self.constants[value] = self.top.insert(arith.ConstantOp(IntegerAttr(value, index))).result
            known.name_hint = f"c{value}"
        return known

    def add(self, op: OpT) -> OpT:
        """Inserts `op` with the partition's location (its run-time errors name the user's line)."""
        op.location = self.op.location
        return self.builder.insert(op)

    def insert(self, op: Operation, name: str | None = None) -> SSAValue:
        self.add(op)
        if name is not None:
            op.results[0].name_hint = name
        return op.results[0]


class LambdaBuilder:
    """Appends the index arithmetic of the segmented partition's lambdas to a block (`k`: the partition's buckets)."""

    def __init__(self, block: Block, k: int = 0):
        self.block = block
        self.k = k
        self.constants: dict[int, SSAValue] = {}

    def insert(self, op: Operation, name: str | None = None) -> SSAValue:
        self.block.add_op(op)
        if name is not None:
            op.results[0].name_hint = name
        return op.results[0]

    def constant(self, value: int) -> SSAValue:
        if (known := self.constants.get(value)) is None:
            known = self.constants[value] = self.insert(arith.ConstantOp(IntegerAttr(value, index)))
        return known

    def composite_class(self, segment: SSAValue, bucket: SSAValue) -> SSAValue:
        """`s * (k + 1) + b'`, with `b' = b` for `0 <= b < k`, else `k`."""
        k = self.k
        b = bucket if isinstance(bucket.type, IndexType) else self.insert(arith.IndexCastOp(bucket, index))
        low = self.insert(arith.CmpiOp(b, self.constant(0), "sge"))
        high = self.insert(arith.CmpiOp(b, self.constant(k), "slt"))
        inside = self.insert(arith.AndIOp(low, high))
        kept = self.insert(arith.SelectOp(inside, b, self.constant(k)), "bucket")
        base = self.insert(arith.MuliOp(segment, self.constant(k + 1)))
        return self.insert(arith.AddiOp(base, kept), "class")

    def linear(self, indices: list[SSAValue], widths: list[SSAValue]) -> SSAValue:
        """The row-major linear index of `indices` in a nest of `widths`."""
        result = indices[0]
        for i, width in zip(indices[1:], widths[1:]):
            result = self.insert(arith.AddiOp(self.insert(arith.MuliOp(result, width)), i))
        return result


def digit_passes(segments: int) -> int:
    """The 8-bit digits of the largest segment id, `segments - 1` (none for one segment or none)."""
    return 0 if segments <= 1 else -(-(segments - 1).bit_length() // DIGIT_BITS)
