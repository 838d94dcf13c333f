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
from soac.lowering.conversion.kernel_builder import (
    DIVISION_PROBLEM,
    SLICE_PROBLEM,
    HostArray,
    KernelBuilder,
    KValue,
    LoweringError,
    View,
    building_at,
    describe,
    index_problem,
    located_message,
    shape_problem,
    tensor_element,
    width_problem,
)
from soac.lowering.conversion.sizes import DIVISIONS, UNSIGNED_DIVISIONS, Sizes, yields_of
from soac.lowering.conversion.stencil_access import emit_sequential_stencil
from soac.lowering.kernel import ERROR_VALUES
from soac.messages import reshape_problem
from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, IntegerType, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint


class Inliner:
    """Inlines lambdas into the kernel that `kb` builds, resolving outside values through `kb.captured`."""

    def __init__(self, kb: KernelBuilder):
        self.kb = kb
        self.env: dict[SSAValue, KValue | Generated] = {}
        self.bounds: dict[SSAValue, SSAValue] = {}
        """Soac-level index values known to lie in `[0, bound)`: the indices of segmented ops."""
        self.clamped: dict[SSAValue, SSAValue] = {}
        """Checked sizes (0 where negative) and the sizes they check (`checked_size`)."""
        self.sizes = Sizes(kb.m, self._scalar_here, self._array_here, self._outside)
        """The sizes of arrays a lambda will build, from values known before it runs."""

    @property
    def b(self) -> Builder:
        return self.kb.b

    def value(self, old: SSAValue) -> KValue:
        if (new := self.env.get(old)) is not None:
            assert not isinstance(new, Generated), f"{old} is never stored: only nested SOACs read its rows"
            return new
        new = self.kb.captured(old)
        self.env[old] = new
        return new

    def scalar(self, old: SSAValue) -> SSAValue:
        value = self.value(old)
        assert isinstance(value, SSAValue), f"expected a scalar for {old}"
        return value

    def view(self, old: SSAValue) -> View:
        value = self.value(old)
        assert isinstance(value, View), f"expected an array for {old}"
        return value

    def _scalar_here(self, old: SSAValue) -> SSAValue | None:
        found = self.env.get(old)
        return found if isinstance(found, SSAValue) else None

    def _array_here(self, old: SSAValue) -> list[SSAValue] | None:
        found = self.env.get(old)
        return found.dims if isinstance(found, View | Generated) else None

    def array(self, old: SSAValue) -> View | Generated:
        """An array that a nested SOAC reads by rows: stored, or generated row by row."""
        found = self.env.get(old)
        return found if isinstance(found, Generated) else self.view(old)

    # -- lambdas -------------------------------------------------------------

    def inline(self, region: Region, args: Sequence[KValue]) -> list[KValue]:
        """Inline a single-block lambda applied to `args`; gives the values it yields."""
        block = region.block
        parent = region.parent_op()
        if isinstance(parent, soac.SegmapOp | soac.SegredOp | soac.SegscanOp) and region is parent.body:
            self.bounds.update(zip(block.args, parent.dims))
        for param, arg in zip(block.args, args, strict=True):
            self.env[param] = arg
            if isinstance(arg, SSAValue) and arg.name_hint is None and param.name_hint:
                arg.name_hint = param.name_hint
        for op in block.ops:
            if isinstance(op, soac.YieldOp | scf.YieldOp):
                return [self.value(v) for v in op.operands]
            self.emit(op)
        return []

    def inline_scalars(self, region: Region, args: Sequence[KValue]) -> list[SSAValue]:
        values = self.inline(region, args)
        assert all(isinstance(v, SSAValue) for v in values)
        return values  # pyright: ignore[reportReturnType]

    def emit(self, op: Operation) -> None:
        handler = _HANDLERS.get(type(op))
        if handler is not None:
            handler(self, op)
            return
        if op.regions:
            raise LoweringError(f"{describe(op)} is not supported inside a SOAC lambda")
        if any(isinstance(r.type, TensorType) for r in op.results):
            raise LoweringError(f"{describe(op)} producing an array is not supported inside a SOAC lambda")
        mapper: dict[SSAValue, SSAValue] = {o: self.scalar(o) for o in op.operands}
        if isinstance(op, DIVISIONS):
            mapper[op.operands[1]] = self.checked_divisor(op, mapper[op.operands[0]], mapper[op.operands[1]])
        new = op.clone(value_mapper=mapper)
        self.b.insert(new)
        for old_result, new_result in zip(op.results, new.results):
            self.env[old_result] = new_result

    def checked_divisor(self, op: Operation, dividend: SSAValue, divisor: SSAValue) -> SSAValue:
        """The divisor of an integer division after checking that it is not zero.

        A zero divisor fails the check and becomes 1; so does -1 under the smallest
        signed dividend, whose quotient overflows (and traps on some devices): the
        result is then the wrapped one that the interpreter gives.
        """
        m = self.kb.m
        signed = not isinstance(op, UNSIGNED_DIVISIONS)
        constant = m.constant_of(divisor)
        if constant is not None and constant != 0 and (constant != -1 or not signed):
            return divisor
        t = divisor.type
        one = m.const(1, t)
        safe: SSAValue | None = None
        if constant != -1:
            safe = m.cmp(divisor, m.const(0, t), "ne", "nonzero")
            self.kb.check(safe, op, DIVISION_PROBLEM)
        if signed:
            width = 64 if isinstance(t, IndexType) else t.width.data  # pyright: ignore[reportAttributeAccessIssue]
            smallest = m.cmp(dividend, m.const(-(2 ** (width - 1)), t), "eq")
            overflow = m.both(smallest, m.cmp(divisor, m.const(-1, t), "eq"))
            fine = m.cmp(overflow, m.const(0, IntegerType(1)), "eq")
            safe = m.both(safe, fine)
        assert safe is not None
        return m.select(safe, divisor, one, "divisor")

    # -- structured control flow ---------------------------------------------

    def _rebuild_block(self, old: Block) -> Block:
        block = Block(arg_types=[a.type for a in old.args])
        for arg, old_arg in zip(block.args, old.args):
            arg.name_hint = old_arg.name_hint
        with building_at(self.b, InsertPoint.at_end(block)):
            for param, arg in zip(old.args, block.args):
                self.env[param] = arg
            terminator = None
            for op in old.ops:
                if isinstance(op, scf.YieldOp | scf.ConditionOp):
                    terminator = op
                    break
                self.emit(op)
            assert terminator is not None
            if isinstance(terminator, scf.ConditionOp):
                self.b.insert(scf.ConditionOp(self.scalar(terminator.condition), *(self.scalar(v) for v in terminator.args)))
            else:
                self.b.insert(scf.YieldOp(*(self.scalar(v) for v in terminator.operands)))
        return block

    def emit_for(self, op: scf.ForOp) -> None:
        if any(isinstance(v.type, TensorType) for v in op.iter_args):
            self._emit_for_carrying_arrays(op)
            return
        body = self._rebuild_block(op.body.block)
        new = scf.ForOp(
            self.scalar(op.lb), self.scalar(op.ub), self.scalar(op.step), [self.scalar(v) for v in op.iter_args], body
        )
        self._finish(op, new)

    def _emit_for_carrying_arrays(self, op: scf.ForOp) -> None:
        """A loop carrying arrays: each lives in the work-item's scratch memory for the whole loop.

        The initial array is copied in before the loop; what an iteration yields is checked to have the
        same sizes and copied back unless it is the carried array itself (updated in place). Scalars are
        carried by the loop as usual:

            scf.for %i = %lb to %ub step %s iter_args(%row = %init, %acc = %a) -> (tensor<?xi32>, i32)

        becomes `carry = copy of init; acc = scf.for ... iter_args(%acc = %a) { ...; copy yielded row
        into carry }` with `%row` bound to `carry` throughout.
        """
        carried = [isinstance(v.type, TensorType) for v in op.iter_args]
        carries: dict[int, View] = {}
        for k, (init, is_array) in enumerate(zip(op.iter_args, carried)):
            if is_array:
                start = self.view(init)
                carries[k] = self.kb.alloc_scratch(start.element, start.dims, op)
                self.kb.copy_view(start, carries[k])
        old = op.body.block
        scalar_params = [a for a, is_array in zip(old.args[1:], carried) if not is_array]
        block = Block(arg_types=[old.args[0].type, *(a.type for a in scalar_params)])
        for arg, param in zip(block.args, [old.args[0], *scalar_params]):
            arg.name_hint = param.name_hint
            self.env[param] = arg
        for k, view in carries.items():
            self.env[old.args[1 + k]] = view
        with building_at(self.b, InsertPoint.at_end(block)):
            yielded = self.inline(op.body, [self.env[a] for a in old.args])
            for k, view in carries.items():
                self._store_array(op, yielded[k], view)
            self.b.insert(scf.YieldOp(*(v for v, is_array in zip(yielded, carried) if not is_array)))
        loop = scf.ForOp(
            self.scalar(op.lb),
            self.scalar(op.ub),
            self.scalar(op.step),
            [self.scalar(v) for v, is_array in zip(op.iter_args, carried) if not is_array],
            block,
        )
        self.b.insert(loop)
        self._bind_results(op, loop, carries)

    def emit_if(self, op: scf.IfOp) -> None:
        if any(isinstance(r.type, TensorType) for r in op.results):
            self._emit_if_yielding_arrays(op)
            return
        true_block = self._rebuild_block(op.true_region.block)
        false_region = Region(self._rebuild_block(op.false_region.block)) if op.false_region.blocks else None
        new = scf.IfOp(self.scalar(op.cond), [r.type for r in op.results], Region(true_block), false_region)
        self._finish(op, new)

    def _emit_if_yielding_arrays(self, op: scf.IfOp) -> None:
        """A branch yielding arrays: each goes to the work-item's scratch memory, sized before the branch.

        The sizes come from the `then` branch's array (or the `else` branch's) when they can be computed
        ahead; whichever branch runs checks that its array has them and copies it into place.
        """
        targets: dict[int, View] = {}
        for k, result in enumerate(op.results):
            if isinstance(result.type, TensorType):
                dims = self.sizes.dims(yields_of(op.true_region)[k]) or self.sizes.dims(yields_of(op.false_region)[k])
                if dims is None:
                    raise LoweringError(
                        f"{describe(op)}: the size of the array it yields depends on the branch taken; "
                        "compute it from sizes and values outside the branch"
                    )
                targets[k] = self.kb.alloc_scratch(tensor_element(result.type), dims, op)
        blocks = []
        for region in (op.true_region, op.false_region):
            block = Block()
            with building_at(self.b, InsertPoint.at_end(block)):
                yielded = self.inline(region, [])
                for k, view in targets.items():
                    self._store_array(op, yielded[k], view)
                self.b.insert(scf.YieldOp(*(v for k, v in enumerate(yielded) if k not in targets)))
            blocks.append(block)
        scalar_types = [r.type for k, r in enumerate(op.results) if k not in targets]
        new = scf.IfOp(self.scalar(op.cond), scalar_types, Region(blocks[0]), Region(blocks[1]))
        self.b.insert(new)
        self._bind_results(op, new, targets)

    def emit_while(self, op: scf.WhileOp) -> None:
        if any(isinstance(v.type, TensorType) for v in (*op.arguments, *op.results)):
            self._emit_while_carrying_arrays(op)
            return
        before = self._rebuild_block(op.before_region.block)
        after = self._rebuild_block(op.after_region.block)
        new = scf.WhileOp([self.scalar(v) for v in op.arguments], [r.type for r in op.results], Region(before), Region(after))
        self._finish(op, new)

    def _emit_while_carrying_arrays(self, op: scf.WhileOp) -> None:
        """A while loop carrying arrays, in scratch memory: `carried` holds what the `before` region sees, `forwarded`
        what `scf.condition` passes on (to the `after` region and, at the end, to the results); each is copied into
        place when it is a new array, and checked to keep the sizes of the initial one."""
        carried = [isinstance(v.type, TensorType) for v in op.arguments]
        forwarded = [isinstance(r.type, TensorType) for r in op.results]
        if carried != forwarded:
            raise LoweringError(f"{describe(op)}: an array must stay an array in the same position from each region to the next")
        carries: dict[int, View] = {}
        passes: dict[int, View] = {}
        for k, init in enumerate(op.arguments):
            if carried[k]:
                start = self.view(init)
                carries[k] = self.kb.alloc_scratch(start.element, start.dims, op)
                passes[k] = self.kb.alloc_scratch(start.element, start.dims, op)
                self.kb.copy_view(start, carries[k])

        before = self._while_region(op, op.before_region, carried, carries, passes)
        after = self._while_region(op, op.after_region, carried, passes, carries)
        scalar_inits = [self.scalar(v) for v, is_array in zip(op.arguments, carried) if not is_array]
        scalar_types = [r.type for r, is_array in zip(op.results, carried) if not is_array]
        loop = scf.WhileOp(scalar_inits, scalar_types, Region(before), Region(after))
        self.b.insert(loop)
        self._bind_results(op, loop, passes)

    def _while_region(
        self, op: scf.WhileOp, region: Region, carried: list[bool], bound: dict[int, View], targets: dict[int, View]
    ) -> Block:
        """A region of a while loop carrying arrays: its array parameters are `bound`, the arrays its terminator passes
        on go to `targets`, its scalars stay block arguments and terminator operands."""
        old = region.block
        scalars = [a for a, is_array in zip(old.args, carried) if not is_array]
        block = Block(arg_types=[a.type for a in scalars])
        for arg, param in zip(block.args, scalars):
            arg.name_hint = param.name_hint
        terminator = old.last_op
        assert isinstance(terminator, scf.ConditionOp | scf.YieldOp)
        passed = terminator.args if isinstance(terminator, scf.ConditionOp) else terminator.operands
        with building_at(self.b, InsertPoint.at_end(block)):
            args = iter(block.args)
            for k, param in enumerate(old.args):
                self.env[param] = bound[k] if carried[k] else next(args)
            for nested in old.ops:
                if nested is not terminator:
                    self.emit(nested)
            outs = [self.value(v) for v in passed]
            for k, target in targets.items():
                self._store_array(op, outs[k], target)
            kept = [self.scalar(v) for v, is_array in zip(passed, carried) if not is_array]
            if isinstance(terminator, scf.ConditionOp):
                self.b.insert(scf.ConditionOp(self.scalar(terminator.condition), *kept))
            else:
                self.b.insert(scf.YieldOp(*kept))
        return block

    def _bind_results(self, op: Operation, new: Operation, arrays: dict[int, View]) -> None:
        """`op`'s results: `arrays[k]` for its array results, `new`'s results in order for the others."""
        results = iter(new.results)
        for k, result in enumerate(op.results):
            if k in arrays:
                self.env[result] = arrays[k]
            else:
                new_result = next(results)
                new_result.name_hint = result.name_hint
                self.env[result] = new_result

    def _store_array(self, op: Operation, value: KValue, target: View) -> None:
        """Copy `value` into `target` unless it is `target` itself, after checking that it has `target`'s sizes."""
        assert isinstance(value, View)
        if value.buffer is target.buffer and value.offset is target.offset:
            return
        ok = self.check_shape(op, value, target.dims)
        same = View(value.buffer, value.offset, target.dims, value.element)
        if ok is None:
            self.kb.copy_view(same, target)
        else:
            self.kb.if_then(ok, lambda: self.kb.copy_view(same, target))

    def _finish(self, op: Operation, new: Operation) -> None:
        self.b.insert(new)
        for old_result, new_result in zip(op.results, new.results):
            new_result.name_hint = old_result.name_hint
            self.env[old_result] = new_result

    # -- array access ----------------------------------------------------------

    def in_range(self, index: SSAValue, size: SSAValue) -> bool:
        """Whether soac-level `index` is known to lie in `[0, size)` for the kernel-side `size`.

        A segmented op's index `j` runs over `[0, dims[j])`, so `xss[i, j]` in a
        segmap over the sizes of `xss` needs no check.
        """
        if (bound := self.bounds.get(index)) is not None and self.value(bound) is size:
            return True
        m = self.kb.m
        constant, limit = m.constant_of(self.scalar(index)), m.constant_of(size)
        return constant is not None and limit is not None and 0 <= constant < limit

    def check_indices(self, op: Operation, indices: Sequence[SSAValue], view: View) -> SSAValue | None:
        """Check every index of `op` against the sizes of `view`; the conjunction (None when nothing needed a check)."""
        if op in self.kb.host_checked:
            return None
        m = self.kb.m
        ok: SSAValue | None = None
        for k, (old, size) in enumerate(zip(indices, view.dims)):
            if self.in_range(old, size):
                continue
            index = self.scalar(old)
            inside = m.lt(index, size, "in_bounds")
            self.kb.check(inside, op, index_problem(k), [index, size])
            ok = m.both(ok, inside)
        return ok

    def _gather(self, op: Operation, array: SSAValue, indices: Sequence[SSAValue], result: SSAValue) -> None:
        view = self.view(array)
        ok = self.check_indices(op, indices, view)
        m = self.kb.m
        kernel_indices = [self.scalar(i) for i in indices]
        offset = m.row_major(kernel_indices, view.dims)
        if len(indices) == len(view.dims):
            self.env[result] = self.kb.load_if(ok, view, offset, result.name_hint)
            return
        dims = view.dims[len(indices) :]
        if ok is not None:  # a failed index gives an empty row, so that nothing reads through it
            offset = m.select(ok, offset, m.c(0))
            dims = [self.kb.same_host_size(m.select(ok, dims[0], m.c(0)), dims[0]), *dims[1:]]
        self.env[result] = View(view.buffer, m.add(view.offset, offset), dims, view.element)

    def emit_index(self, op: soac.IndexOp) -> None:
        self._gather(op, op.array, list(op.indices), op.result)

    def emit_extract(self, op: tensor.ExtractOp) -> None:
        self._gather(op, op.tensor, list(op.indices), op.result)

    def emit_slice(self, op: soac.SliceOp) -> None:
        view = self.view(op.array)
        m = self.kb.m
        start, end = self.scalar(op.start), self.scalar(op.end)
        size = view.dims[0]
        if not (m.constant_of(start) == 0 and end is size):
            ok = m.both(m.cmp(start, end, "ule"), m.cmp(end, size, "ule"), "in_bounds")
            self.kb.check(ok, op, SLICE_PROBLEM, [start, end, size])
            start, end = m.select(ok, start, m.c(0)), m.select(ok, end, m.c(0))
        offset = m.add(view.offset, m.mul(start, m.product(view.dims[1:])))
        self.env[op.result] = View(view.buffer, offset, [m.sub(end, start), *view.dims[1:]], view.element)

    def emit_dim(self, op: tensor.DimOp) -> None:
        view = self.array(op.source)
        index = self.kb.m.constant_of(self.scalar(op.index))
        if index is None:
            raise LoweringError(f"{describe(op)}: the dimension must be a constant")
        self.env[op.result] = view.dims[index]

    def owned(self, op: Operation, view: View) -> View:
        """`view` itself if the work-item owns it, else a scratch copy (inputs are shared by all work-items)."""
        if view.owned:
            return view
        copy = self.kb.alloc_scratch(view.element, view.dims, op)
        self.kb.copy_view(view, copy)
        return copy

    def check_shape(self, op: Operation, value: View, row: Sequence[SSAValue]) -> SSAValue | None:
        """Check that `value` has the sizes `row`; None when they are the same values."""
        m = self.kb.m
        pairs = [(a, b) for a, b in zip(value.dims, row) if a is not b]
        if not pairs:
            return None
        ok: SSAValue | None = None
        for a, b in pairs:
            ok = m.both(ok, m.eq(a, b), "same_shape")
        assert ok is not None
        rank = len(row)
        if 2 * rank <= ERROR_VALUES:
            self.kb.check(ok, op, shape_problem(rank), [*value.dims, *row])
        else:
            self.kb.check(ok, op, f"a value of another shape does not fit a row of rank {rank}")
        return ok

    def _update(self, op: Operation, array: SSAValue, indices: Sequence[SSAValue], value_of: SSAValue, result: SSAValue) -> None:
        view = self.owned(op, self.view(array))
        ok = self.check_indices(op, indices, view)
        value = self.value(value_of)
        m = self.kb.m
        offset = m.row_major([self.scalar(i) for i in indices], view.dims)
        if isinstance(value, View):
            target = View(view.buffer, m.add(view.offset, offset), view.dims[len(indices) :], view.element)
            fits = self.check_shape(op, value, target.dims)
            ok = fits if ok is None else m.both(ok, fits) if fits is not None else ok
            self.kb.when(ok, lambda: self.kb.copy_view(value, target))
        else:
            self.kb.when(ok, lambda: self.kb.store(value, view, offset))
        self.env[result] = view

    def emit_update(self, op: soac.UpdateOp) -> None:
        self._update(op, op.array, list(op.indices), op.value, op.result)

    def emit_insert(self, op: tensor.InsertOp) -> None:
        self._update(op, op.dest, list(op.indices), op.scalar, op.result)

    def checked_size(self, op: Operation, size: SSAValue, what: str) -> SSAValue:
        """`size`, after checking that it is not negative (0 when it is, so that loops over it do nothing)."""
        if self.kb.known_nonneg(size):
            return size
        m = self.kb.m
        ok = m.cmp(size, m.c(0), "sge", "nonneg")
        self.kb.check(ok, op, f"negative {what} {{0}}", [size])
        checked = m.select(ok, size, m.c(0))
        self.clamped[checked] = size
        return checked

    def nonneg_size(self, op: Operation, size: SSAValue) -> SSAValue:
        """`size` checked not to be negative (0 when it is) even where the host sized memory with it: the host
        takes the sizes of arrays a lambda yields as given, and the lambda checks them."""
        if (constant := self.kb.m.constant_of(size)) is not None and constant >= 0:
            return size
        m = self.kb.m
        ok = m.cmp(size, m.c(0), "sge", "nonneg")
        self.kb.check(ok, op, "negative size {0}", [size])
        return m.select(ok, size, m.c(0))

    def checked_width(self, op: Operation, inputs: Sequence[SSAValue]) -> SSAValue:
        """The width of a nested SOAC, checked against its inputs (0 when a check fails)."""
        width = self.scalar(op.operands[0])
        m = self.kb.m
        rows = [self.array(x).dims[0] for x in inputs]
        # an input generated over this width has already checked it (`checked_size`)
        width = next((r for r in rows if self.clamped.get(r) is width), width)
        ok: SSAValue | None = None
        if not any(r is width for r in rows) and not self.kb.known_nonneg(width):
            ok = m.cmp(width, m.c(0), "sge", "nonneg")
            self.kb.check(ok, op, "negative width {0}", [width])
        for k, size in enumerate(rows):
            if size is width:
                continue
            same = m.eq(width, size, "same_width")
            self.kb.check(same, op, width_problem(k), [width, size])
            ok = m.both(ok, same)
        return width if ok is None else m.select(ok, width, m.c(0), "width")

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

        self.kb.for_loop(self.kb.m.c(0), self.checked_width(op, op.inputs), self.kb.m.c(1), [], "i", body)
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
        """Row `i` of each result is the lambda applied to row `i` of the inputs, inlined where it is read."""
        width = self.checked_width(op, op.inputs)
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

    def _outside(self, value: SSAValue) -> list[SSAValue] | SSAValue | None:
        """A value from outside the kernel: an array's kernel-side sizes, or a scalar (None for one inside it)."""
        if not isinstance(value.type, TensorType):
            try:
                found = self.value(value)
            except LoweringError:
                return None
            return found if isinstance(found, SSAValue) else None
        try:
            outside = self.kb.capture(value)
        except LoweringError:
            return None
        return [self.kb.scalar(d) for d in outside.dims] if isinstance(outside, HostArray) else None

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

        accs = self.kb.for_loop(self.kb.m.c(0), self.checked_width(op, op.inputs), self.kb.m.c(1), neutral, "i", body)
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


_HANDLERS = {
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
    soac.TransposeOp: Inliner.emit_transpose,
    soac.ReverseOp: Inliner.emit_reverse,
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
