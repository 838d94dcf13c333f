"""Register tiles for staged batches of small products (issue 27, item 3): each work-item keeps a block of results.

soac-small-intra's intra-group version of a batch of small matrix products is a group-level segmap whose lambda
stages each batch's blocks in local memory and runs one thread-level segmap over the results (`packed_groups.py`'s
packed shape, `PackedSegmap.lower_packed`). Where that segmap's lambda is a redomap over iotas, as both written forms
come out of soac-small-intra:

    %t = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
      %ks = soac.iota %k : tensor<?xi64>
      %s = soac.redomap %k (%ks : tensor<?xi64>) neutral(%zero : f32) -> f32 combine(...) lambda(%l: i64) {
        %x = soac.index %a_block[%i, %l'] ...
        %y = soac.index %b_block[%l', %j] ...
        ...
      }
      soac.yield %s : f32
    }

each work-item computes an R x C block of its results (`small-tile-rows`, `small-tile-cols`) in one loop over the
redomap's width: rows `ti, ti + TR, ...` (TR = ceil(n / R)) and columns `tj, tj + TC, ...` (TC = ceil(m / C)), so
that neighbouring work-items read neighbouring columns of `b_block` and write neighbouring results. The loop's body
inlines the redomap's lambda once per result of the block, each into its own accumulator, and the copies share what
they compute from the same values (`LambdaInliner.numbering`): `a_block[i, l]` is read from local memory once per row
of the block and `b_block[l, j]` once per column, into registers:

    for (long l = 0; l < bound; l++) {
      const float x0 = a_block_local[... i0 ... l], x1 = a_block_local[... i1 ... l];
      const float y0 = b_block_local[... l ... j0], y1 = b_block_local[... l ... j1];
      acc00 += x0 * y0; acc01 += x0 * y1; acc10 += x1 * y0; acc11 += x1 * y1;
    }

A block's positions past the edge (n or m not a multiple of R or C) compute the last row or column again and write
nothing. The reads the lambda makes at its top level with the loop's index are checked once, before the loop, whose
bound is then the smallest of their sizes (the error names the read and the index the interpreter's does: the first
past the end), rather than at each step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from soac import dialect as soac
from soac.dialect import defined_inside
from soac.lowering.conversion.inline_lambdas import lossless_source, user_dimension
from soac.lowering.conversion.kernel_builder import KernelBuilder, KValue, View, index_problem, tensor_element
from soac.lowering.conversion.sequential import Inliner
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue


@dataclass(frozen=True)
class ProductNest:
    """A thread-level segmap over two or more dimensions whose lambda is scalar code, then a redomap over iotas of a
    width from outside whose results it yields."""

    inner: soac.SegmapOp
    before: list[Operation]
    """The lambda's ops before the redomap (the iotas, index casts)."""
    red: soac.RedomapOp

    @property
    def fused_product(self) -> arith.MulfOp | None:
        """The `arith.mulf` whose result the redomap's lambda yields alone, where the operator adds it to the
        accumulator (`acc + x * y`: what `small-fma` computes as one `math.fma`), else None."""
        lam, combine = self.red.body.block, self.red.combine.block
        *body, last = lam.ops
        *ops, done = combine.ops
        if len(last.operands) != 1 or not isinstance(product := last.operands[0].owner, arith.MulfOp):
            return None
        if body[-1] is not product:
            return None  # code after the product (a check): the lambda is inlined as it is
        if len(list(product.result.uses)) != 1 or len(ops) != 1 or not isinstance(add := ops[0], arith.AddfOp):
            return None
        if list(done.operands) != [add.result] or set(add.operands) != set(combine.args):
            return None
        return product


def product_nest(inner: soac.SegmapOp) -> ProductNest | None:
    """`inner` as a `ProductNest`, or None where its lambda has another shape."""
    *ops, last = inner.body.block.ops
    if len(inner.dims) < 2 or not ops or not isinstance(red := ops[-1], soac.RedomapOp):
        return None
    before = ops[:-1]
    if list(last.operands) != list(red.outs) or len(red.outs) != len(red.neutral):
        return None  # results besides the reduction's (map-outs), or not yielded as they are
    if any(op.regions for op in before) or defined_inside(red.width, inner):
        return None
    for value in red.inputs:
        if not isinstance(iota := value.owner, soac.IotaOp) or defined_inside(iota.width, inner):
            return None
    return ProductNest(inner, before, red)


class RegisterTiles:
    """The work-items of one element of a packed group-level segmap over a `ProductNest`, each an R x C block."""

    def __init__(
        self, kb: KernelBuilder, inliner: Inliner, nest: ProductNest, dims: Sequence[SSAValue], rows: int, cols: int, fma: bool
    ):
        self.kb, self.inliner, self.nest = kb, inliner, nest
        self.fused = nest.fused_product if fma else None
        """The product that each step adds to an accumulator with one `math.fma` (`small-fma`), or None."""
        self.dims = list(dims)
        self.shape = (rows, cols)
        m = kb.m
        *lead, n, width = self.dims
        self.steps = [m.ceildiv(n, m.c(rows), "tile_rows"), m.ceildiv(width, m.c(cols), "tile_cols")]
        self.item_dims = [*lead, *self.steps]
        """The work-items' index space for one element: the segmap's leading dimensions, then the blocks'."""

    def compute(self, coords: Sequence[SSAValue], first_result: SSAValue, outs: Sequence[View]) -> None:
        """The block of the work-item at `coords` (in `item_dims`), written into `outs` from flat position
        `first_result` on (the element's first result)."""
        m, inliner, nest = self.kb.m, self.inliner, self.nest
        *lead, ti, tj = coords
        axes = [self.edge(*axis) for axis in zip((ti, tj), self.steps, self.dims[-2:], self.shape)]
        params = list(nest.inner.body.block.args)
        inliner.bounds.update(zip(params, nest.inner.dims))
        saved = inliner.numbering
        inliner.numbering = {}
        positions: list[tuple[list[SSAValue], SSAValue | None]] = []
        states: list[dict[SSAValue, object]] = []
        accs: list[SSAValue] = []
        for i, row_ok in axes[0]:
            for j, col_ok in axes[1]:
                indices = [*lead, i, j]
                inliner.env.update(zip(params, indices))
                for op in nest.before:
                    inliner.emit(op)
                valid = row_ok if col_ok is None else m.both(row_ok, col_ok)
                positions.append((indices, valid))
                defined = (*params, *(r for op in nest.before for r in op.results))
                states.append({v: inliner.env[v] for v in defined if v in inliner.env})
                accs.extend(inliner.scalar(v) for v in nest.red.neutral)
        results = self.fold(states, accs)
        k = len(nest.red.neutral)
        for p, (indices, valid) in enumerate(positions):
            flat = m.add(first_result, m.row_major(indices, self.dims))
            self.write(valid, results[p * k : (p + 1) * k], outs, flat)
        inliner.numbering = saved

    def edge(self, start: SSAValue, step: SSAValue, size: SSAValue, count: int) -> list[tuple[SSAValue, SSAValue | None]]:
        """The indices `start + r * step` of one axis of a block, each clamped to the last index, and whether it lies
        inside (None for the first: `start < step <= size`)."""
        m = self.kb.m
        found: list[tuple[SSAValue, SSAValue | None]] = [(start, None)]
        last = m.sub(size, m.c(1))
        for r in range(1, count):
            index = m.add(start, m.mul(m.c(r), step))
            inside = m.lt(index, size, "inside")
            found.append((m.select(inside, index, last), inside))
        return found

    def fold(self, states: Sequence[dict[SSAValue, object]], accs: list[SSAValue]) -> list[SSAValue]:
        """One loop over the redomap's width that folds every position of the block into its accumulators."""
        kb, m, inliner, red = self.kb, self.kb.m, self.inliner, self.nest.red
        inliner.env.update(states[0])  # type: ignore[arg-type]
        width = inliner.checked_width(red, list(red.inputs))
        bound = self.hoisted_checks(width)
        outside = dict(inliner.numbering or {})
        elements = [tensor_element(v.type) for v in red.inputs]
        k = len(red.neutral)

        def step(at: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
            inliner.numbering = dict(outside)  # what the loop's body computes is not available after it
            args: list[KValue] = [at if isinstance(t, IndexType) else m.insert(arith.IndexCastOp(at, t)) for t in elements]
            new: list[SSAValue] = []
            for p, state in enumerate(states):
                inliner.env.update(state)  # type: ignore[arg-type]
                accs = carried[p * k : (p + 1) * k]
                if self.fused is not None:
                    new.append(self.fused_step(args, accs[0]))
                    continue
                values = inliner.inline(red.body, args)
                new.extend(inliner.inline_scalars(red.combine, [*accs, *values]))
            return new

        return kb.for_loop(m.c(0), bound, m.c(1), accs, "l", step)

    def fused_step(self, args: Sequence[KValue], acc: SSAValue) -> SSAValue:
        """`fma(x, y, acc)`: the lambda inlined up to its product `x * y`, which the operator would add to `acc`."""
        inliner, product = self.inliner, self.fused
        assert product is not None
        block = self.nest.red.body.block
        inliner.env.update(zip(block.args, args))
        for op in block.ops:
            if op is product:
                break
            inliner.emit(op)
        fused = math.FmaOp(inliner.scalar(product.lhs), inliner.scalar(product.rhs), acc)
        return self.kb.m.insert(fused)

    def hoisted_checks(self, width: SSAValue) -> SSAValue:
        """The loop's bound: `width`, or less where a read at the lambda's top level indexes a size below it with the
        loop's index (each such read checked here, once); the lambda's parameters are then known below every size
        they index."""
        kb, m, inliner, red = self.kb, self.kb.m, self.inliner, self.nest.red
        params = list(red.body.block.args)
        given = inliner.scalar(red.width)
        limits = [given, width]
        bound = width
        for op in red.body.block.ops:
            if not isinstance(op, soac.IndexOp) or defined_inside(op.array, self.nest.inner):
                continue
            view = inliner.view(op.array)
            for d, index in enumerate(op.indices):
                size = view.dims[d]
                if lossless_source(index) not in params or any(size is limit for limit in limits):
                    continue
                inside = m.cmp(width, size, "ule", "in_bounds")
                kb.check(inside, op, index_problem(user_dimension(op, d)), [size, size])
                bound = m.min(bound, size, "bound")
                limits.append(size)
        for param in params:
            inliner.limits[param] = limits
        return bound

    def write(self, valid: SSAValue | None, values: Sequence[SSAValue], outs: Sequence[View], flat: SSAValue) -> None:
        def store() -> None:
            for value, out in zip(values, outs):
                self.kb.write_row(value, out, flat)

        self.kb.when(valid, store)
