r"""Map distribution (loop fission) of one body inside a map nest, the core of `soac-flatten`.

The statements of the innermost lambda are taken in order (seed 004, steps
(a)-(h)):

* invariant code that cannot fail is hoisted before the nest, except arrays
  that an op of the nest consumes (each point of the nest needs its own);
* cheap scalar code is recomputed by every kernel that needs it (d);
* a parallel statement gets its own kernel(s) over the nest: an inner map
  extends the nest (map of maps, and versions in incremental mode), a
  reduction or scan becomes a segred/segscan (e), a histogram a seghist into
  its destinations over the nest (copied unless the flattener built them), a partition partitions of the
  nest's flat array by (segment, bucket) (`flatten_partition`), a `transpose`, `reverse`, a
  `reshape` to sizes fixed in the nest (its checks before the nest) or a
  `replicate` of a whole row is pushed out as one array op over the nest, a
  sequential loop containing parallelism is interchanged with the nest: the
  loop runs outside, its carried values become arrays over the nest (c);
* everything else is sequential: consecutive sequential statements form one
  segmap over the nest, which stores in arrays the values that later
  statements need (f). A statement whose parallelism cannot be exploited
  regularly (its width, or the size of an array it needs, varies within the
  nest) joins the sequential statements (g, h).

    %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%xs: tensor<?xf32>) {
      %s = soac.reduce %m (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(...) {...}
      %ys = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) { %y = arith.subf %x, %s ... }
      soac.yield %ys : tensor<?xf32>
    }
becomes (fully flattened)
    %s = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?xf32> ... lambda(%i: index, %j: index) {...}
    %r = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
      %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
      %s_1 = soac.index %s[%i] : tensor<?xf32> -> f32
      %y = arith.subf %x, %s_1 : f32
      soac.yield %y : f32
    }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from soac.dialect import AssertOp, HistOp, Level, MapOp, PartitionOp, ReplicateOp, ReshapeOp, ReverseOp, TransposeOp
from soac.passes.flatten_analysis import (
    COMBINING,
    contains_soac,
    is_cheap,
    is_consumed,
    is_hoistable,
    region_free_values,
    used_after,
)
from soac.passes.flatten_checks import check_reshape, check_width
from soac.passes.flatten_nest import Bound, KernelBody, Nest
from soac.passes.flatten_partition import SegmentedPartition, bucket_type_supported
from soac.passes.flatten_segops import Combining, combine_region, segcombine, seghist_of
from xdsl.builder import Builder
from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

if TYPE_CHECKING:
    from soac.passes.flatten_versions import Flattener

Handler = Callable[[], None]


class Distributor:
    """Distributes the statements of one block over a nest, emitting kernels with `builder`."""

    def __init__(self, flattener: Flattener, nest: Nest, builder: Builder):
        self.flattener = flattener
        self.nest = nest
        self.builder = builder

    # -- driver -------------------------------------------------------------

    def run(self, block: Block) -> list[SSAValue]:
        """Distributes `block` (a lambda or loop body); returns its yielded values as arrays over the nest."""
        *ops, terminator = block.ops
        pending: list[Operation] = []
        for op in ops:
            if self.hoist(op):
                continue
            if is_cheap(op) and not any(v.owner in pending for v in op.operands):
                self.nest.cheap.update((result, op) for result in op.results)
                continue
            handler = self.handler(op)
            needed = used_after((r for p in pending for r in p.results), pending, block)
            if handler is None or any(self.nest.shape_varies(v) for v in needed):
                pending.append(op)
                continue
            self.flush(pending, needed)
            pending = []
            handler()
        yields = list(terminator.operands)
        needed = used_after((r for p in pending for r in p.results), pending, block)
        self.flush(pending, [*needed, *(y for y in dict.fromkeys(yields) if self.nest.full(y) is None and y not in needed)])
        return self.own_arrays(yields)

    def own_arrays(self, values: Sequence[SSAValue]) -> list[SSAValue]:
        """The arrays of `values` (each has one), a copy of its own for a value that comes again: the results they
        become must not share an array, as one of them may be consumed (an update of one result of a map that
        yields one value twice)."""
        arrays: list[SSAValue] = []
        for j, value in enumerate(values):
            if value in values[:j]:
                self.flush([], [value])
            array = self.nest.full(value)
            assert array is not None
            arrays.append(array)
        return arrays

    def flush(self, group: Sequence[Operation], values: Sequence[SSAValue]) -> None:
        """One segmap over the nest runs `group` sequentially and stores `values` in arrays (or only checks)."""
        if not values and not any(isinstance(inner, AssertOp) for op in group for inner in op.walk()):
            return
        body = KernelBody(self.nest)
        body.clone_all(group)
        kernel = self.builder.insert(body.segmap(Level.THREAD, values))
        self.nest.bind_full(values, kernel.results)

    def outer(self, value: SSAValue) -> SSAValue | None:
        """`value` as a value defined before the nest, hoisting the code that computes it if needed."""
        if (outer := self.nest.outer(value)) is not None:
            return outer
        op = value.owner
        if isinstance(op, Operation) and self.hoist(op):
            return self.nest.outer(value)
        return None

    def hoist(self, op: Operation) -> bool:
        """Computes `op` before the nest if it is safe and independent of the nest."""
        if not is_hoistable(op) or any(is_consumed(r) for r in op.results):
            return False
        operands = [self.outer(v) for v in op.operands]
        if any(v is None for v in operands):
            return False
        copy = self.builder.insert(op.clone({v: o for v, o in zip(op.operands, operands) if o is not None}))
        for result, new in zip(op.results, copy.results):
            self.nest.env[result] = Bound(new, ())
        return True

    # -- parallel statements ----------------------------------------------

    def handler(self, op: Operation) -> Handler | None:
        """How to exploit the parallelism of `op`, or None if it runs sequentially."""
        if isinstance(op, MapOp):
            if (width := self.outer(op.width)) is None:
                return None
            return lambda: self.flattener.map_nest(self, op, width)
        if isinstance(op, COMBINING):
            return self.combining(op)
        if isinstance(op, HistOp):
            return self.hist(op)
        if isinstance(op, PartitionOp):
            return self.partition(op)
        if isinstance(op, scf.ForOp):
            return self.interchange(op)
        if isinstance(op, TransposeOp) and (array := self.nest.full(op.array)) is not None:
            return lambda: self.push_transpose(op, array)
        if isinstance(op, ReverseOp) and (array := self.nest.full(op.array)) is not None:
            return lambda: self.push_reverse(op, array)
        if isinstance(op, ReshapeOp):
            return self.reshape(op)
        if isinstance(op, ReplicateOp):
            return self.replicate(op)
        return None

    def flat_operator(self, op: Combining | HistOp) -> tuple[SSAValue, list[SSAValue], Region] | None:
        """`op`'s width, neutral elements and operator as values and a region over the nest, if they exist there."""
        if not self.flattener.flatten_combining:
            return None
        width = self.outer(op.width)
        neutral = [self.outer(v) for v in op.neutral]
        combine = combine_region(self.nest, op.combine)
        if width is None or combine is None or any(v is None for v in neutral):
            return None
        return width, neutral, combine  # pyright: ignore[reportReturnType]

    def combining(self, op: Combining) -> Handler | None:
        if (flat := self.flat_operator(op)) is None:
            return None
        width, neutral, combine = flat

        def emit() -> None:
            check_width(self.builder, self.nest, op, width)  # the segmented op does not check its inputs
            new_ops, results = segcombine(self.nest, op, width, neutral, combine, Level.THREAD)  # pyright: ignore
            self.builder.insert(new_ops)
            self.nest.bind_full(op.results, results)

        return emit

    def hist(self, op: HistOp) -> Handler | None:
        """Σ ⊢ hist ⊙ d dests f ys ⇒ seghist over (Σ, the hist's width), into the destinations over Σ."""
        if (flat := self.flat_operator(op)) is None:
            return None
        width, neutral, combine = flat
        if any(self.nest.shape_varies(d) for d in op.dests):
            return None

        def emit() -> None:
            check_width(self.builder, self.nest, op, width)  # the segmented op does not check its inputs
            dests = [d if d in self.nest.fresh else self.copy(v) for v, d in zip(op.dests, self.arrays(list(op.dests)))]
            seghist = self.builder.insert(seghist_of(self.nest, op, width, dests, neutral, combine))  # pyright: ignore
            self.nest.bind_full(op.results, seghist.results)

        return emit

    def partition(self, op: PartitionOp) -> Handler | None:
        """Σ ⊢ partition k f xs ⇒ partitions of the nest's whole flat array by (segment, bucket)
        (`flatten_partition`); the values `f` reads from the nest are read at each row's segment."""
        width = self.outer(op.width)
        if not self.flattener.flatten_combining or width is None or not bucket_type_supported(op):
            return None
        free = region_free_values(op.body)
        outer = {v: o for v in free if (o := self.outer(v)) is not None}
        per_row = [v for v in free if v not in outer]
        if any(self.nest.shape_varies(v) for v in [*op.inputs, *per_row]):
            return None

        def emit() -> None:
            check_width(self.builder, self.nest, op, width)  # the flat partition does not check its inputs' rows
            self.flush([], [v for v in dict.fromkeys([*op.inputs, *per_row]) if self.nest.full(v) is None])
            inputs = [self.nest.full(x) for x in op.inputs]
            per_segment = {v: self.nest.full(v) for v in per_row}
            built = SegmentedPartition(self.builder, self.nest, op, width, inputs, outer, per_segment)  # pyright: ignore
            self.nest.bind_full(op.results, built.emit())

        return emit

    def copy(self, value: SSAValue) -> SSAValue:
        """A fresh array over the nest holding `value` (an array of the program that an op would consume)."""
        kernel = self.builder.insert(KernelBody(self.nest).segmap(Level.THREAD, [value]))
        kernel.outs[0].name_hint = value.name_hint
        return kernel.outs[0]

    def push_transpose(self, op: TransposeOp, array: SSAValue) -> None:
        """Σ ⊢ rearrange (k...) x ⇒ rearrange (0..d-1, d+k...) over the whole nest (seed 004)."""
        d = self.nest.depth
        moved = self.builder.insert(TransposeOp(array, [*range(d), *(d + p for p in op.perm)]))
        moved.result.name_hint = op.result.name_hint
        self.nest.bind_full([op.result], [moved.result])

    def push_reverse(self, op: ReverseOp, array: SSAValue) -> None:
        """Σ ⊢ reverse (k...) x ⇒ reverse (d+k...) over the whole nest."""
        moved = self.builder.insert(ReverseOp(array, [self.nest.depth + k for k in op.dims]))
        moved.result.name_hint = op.result.name_hint
        self.nest.bind_full([op.result], [moved.result])

    def reshape(self, op: ReshapeOp) -> Handler | None:
        """Σ ⊢ reshape (s...) x ⇒ reshape (Σ, s...) over the whole nest, when the sizes do not vary in it; the
        reshape of each row is checked before (the whole array's check then holds)."""
        array = self.nest.full(op.array)
        sizes = [self.outer(s) for s in op.sizes]
        if array is None or None in sizes:
            return None

        def emit() -> None:
            checked = check_reshape(self.builder, self.nest, op, sizes)  # pyright: ignore[reportArgumentType]
            moved = self.builder.insert(ReshapeOp(array, [*self.nest.widths, *checked]))
            moved.result.name_hint = op.result.name_hint
            self.nest.bind_full([op.result], [moved.result])

        return emit

    def replicate(self, op: ReplicateOp) -> Handler | None:
        """Σ ⊢ replicate w x ⇒ transpose (replicate w xs) when x is a whole row, else a segmap."""
        if (width := self.outer(op.width)) is None:
            return None
        d = self.nest.depth
        if (rows := self.nest.full(op.value)) is not None:

            def emit_transpose() -> None:
                copies = self.builder.insert(ReplicateOp(width, rows))
                value_type = op.value.type
                rank = value_type.get_num_dims() if isinstance(value_type, TensorType) else 0
                moved = self.builder.insert(TransposeOp(copies, [*range(1, d + 1), 0, *range(d + 1, d + 1 + rank)]))
                self.nest.bind_full([op.result], [moved.result])

            return emit_transpose

        def emit_segmap() -> None:
            body = KernelBody(self.nest.child([width]))
            kernel = self.builder.insert(body.segmap(Level.THREAD, [op.value]))
            self.nest.bind_full([op.result], kernel.results)

        return emit_segmap

    def interchange(self, loop: scf.ForOp) -> Handler | None:
        r"""map (\x -> loop z = f x for i < n do g) ⇒ loop zs = map f xs for i < n do map g (seed 004)."""
        if not contains_soac(loop):
            return None
        bounds = [self.outer(v) for v in (loop.lb, loop.ub, loop.step)]
        if any(b is None for b in bounds) or any(self.nest.shape_varies(v) for v in loop.iter_args):
            return None
        return lambda: self.emit_interchange(loop, bounds)  # pyright: ignore[reportArgumentType]

    def emit_interchange(self, loop: scf.ForOp, bounds: list[SSAValue]) -> None:
        starts = self.arrays(list(loop.iter_args))
        body = Block(arg_types=[loop.body.block.args[0].type, *(s.type for s in starts)])
        inner = self.nest.child()
        index, *carried = body.args
        index.name_hint = loop.body.block.args[0].name_hint
        inner.env[loop.body.block.args[0]] = Bound(index, ())
        inner.bind_full(loop.body.block.args[1:], carried, fresh=False)
        for arg, old in zip(carried, loop.body.block.args[1:]):
            arg.name_hint = old.name_hint
        ends = Distributor(self.flattener, inner, Builder(InsertPoint.at_end(body))).run(loop.body.block)
        body.add_op(scf.YieldOp(*ends))
        lb, ub, step = bounds
        new_loop = self.builder.insert(scf.ForOp(lb, ub, step, starts, body))
        self.nest.bind_full(loop.results, new_loop.results)

    def arrays(self, values: Sequence[SSAValue]) -> list[SSAValue]:
        """Each value as an array over the nest, built by one segmap for those that are not one yet."""
        self.flush([], [v for v in dict.fromkeys(values) if self.nest.full(v) is None])
        return self.own_arrays(values)
