"""Inlining a SOAC's lambda into a kernel body: the values it reads, its scalar code and its array accesses.

Scalar code (arith, math) is cloned; arrays are `View`s, so `soac.index`/`soac.slice` of a row is offset
arithmetic, with the bounds checks the interpreter makes. Control flow is rebuilt by `ControlFlowInliner`
(`inline_control.py`), nested SOACs run sequentially by `Inliner` (`sequential.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from soac import dialect as soac
from soac.lowering.conversion.generated import Generated
from soac.lowering.conversion.kernel_builder import (
    DIVISION_PROBLEM,
    SLICE_PROBLEM,
    HostArray,
    KernelBuilder,
    KValue,
    LoweringError,
    View,
    describe,
    index_problem,
    shape_problem,
    width_problem,
)
from soac.lowering.conversion.sizes import DIVISIONS, UNSIGNED_DIVISIONS, Sizes
from soac.lowering.kernel import ERROR_VALUES
from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, IntegerType, TensorType
from xdsl.ir import Operation, Region, SSAValue


class LambdaInliner:
    """Inlines lambdas into the kernel that `kb` builds, resolving outside values through `kb.captured`: scalar code
    and array accesses here, control flow in `ControlFlowInliner`, nested SOACs in `Inliner` (`sequential.py`),
    which lists the op each handler takes (`HANDLERS`)."""

    HANDLERS: ClassVar[dict[type[Operation], Callable[[Any, Any], None]]] = {}

    def __init__(self, kb: KernelBuilder):
        self.kb = kb
        self.env: dict[SSAValue, KValue | Generated] = {}
        self.bounds: dict[SSAValue, SSAValue] = {}
        """Soac-level index values known to lie in `[0, bound)`: the indices of segmented ops."""
        self.clamped: dict[SSAValue, SSAValue] = {}
        """Checked sizes (0 where negative) and the sizes they check (`checked_size`)."""
        self.limits: dict[SSAValue, list[SSAValue]] = {}
        """Soac-level index values known to lie below each of these kernel-side sizes (a loop's index whose bound a
        check before the loop has compared with them: `strategies/register_tiles.py`)."""
        self.numbering: dict[tuple[object, ...], list[KValue]] | None = None
        """While set (one iteration of a loop that inlines one lambda several times): the results of scalar ops and of
        reads of `read_only` buffers by the op and its kernel-side operands, so that a copy of the lambda reuses what
        an earlier copy computed from the same values."""
        self.read_only: set[SSAValue] = set()
        """Kernel buffers nothing writes while `numbering` is set (a work-group's staged rows in local memory)."""
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
        handler = self.HANDLERS.get(type(op))
        if handler is not None:
            handler(self, op)
            return
        if op.regions:
            raise LoweringError(f"{describe(op)} is not supported inside a SOAC lambda")
        if any(isinstance(r.type, TensorType) for r in op.results):
            raise LoweringError(f"{describe(op)} producing an array is not supported inside a SOAC lambda")
        mapper: dict[SSAValue, SSAValue] = {o: self.scalar(o) for o in op.operands}
        key = (op, *mapper.values())
        if self.numbering is not None and (known := self.numbering.get(key)) is not None:
            self.env.update(zip(op.results, known))
            return
        if isinstance(op, DIVISIONS):
            mapper[op.operands[1]] = self.checked_divisor(op, mapper[op.operands[0]], mapper[op.operands[1]])
        new = op.clone(value_mapper=mapper)
        self.b.insert(new)
        for old_result, new_result in zip(op.results, new.results):
            self.env[old_result] = new_result
        if self.numbering is not None:
            self.numbering[key] = list(new.results)

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

    # -- array access ----------------------------------------------------------

    def in_range(self, index: SSAValue, size: SSAValue) -> bool:
        """Whether soac-level `index` is known to lie in `[0, size)` for the kernel-side `size`.

        A segmented op's index `j` runs over `[0, dims[j])`, so `xss[i, j]` in a
        segmap over the sizes of `xss` needs no check.
        """
        source = lossless_source(index)
        if (bound := self.bounds.get(source)) is not None and self.value(bound) is size:
            return True
        if any(limit is size for limit in self.limits.get(source, ())):
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
            self.kb.check(inside, op, index_problem(user_dimension(op, k)), [index, size])
            ok = m.both(ok, inside)
        return ok

    def _gather(self, op: Operation, array: SSAValue, indices: Sequence[SSAValue], result: SSAValue) -> None:
        view = self.view(array)
        if self.numbering is not None and view.buffer in self.read_only:
            key = (op, id(view), *(self.scalar(i) for i in indices))
            if (known := self.numbering.get(key)) is not None:
                self.env[result] = known[0]
                return
            self._gather_view(op, view, indices, result)
            self.numbering[key] = [self.env[result]]  # pyright: ignore[reportArgumentType]
            return
        self._gather_view(op, view, indices, result)

    def _gather_view(self, op: Operation, view: View, indices: Sequence[SSAValue], result: SSAValue) -> None:
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


def user_dimension(op: Operation, k: int) -> int:
    """The dimension the user's read took for index `k` of `op`: of a `{staged}` row (soac-small-intra's block of a
    batch, `b[p]` of the user's `b[p, s, j]`), counted in the array it is a row of."""
    array = op.operands[0] if isinstance(op, soac.IndexOp | tensor.ExtractOp) else None
    if array is not None and isinstance(row := array.owner, soac.IndexOp) and soac.STAGED in row.attributes:
        return k + len(row.indices)
    return k


def _bits(t: object) -> int | None:
    if isinstance(t, IndexType):
        return 64
    return t.width.data if isinstance(t, IntegerType) else None


def lossless_source(index: SSAValue) -> SSAValue:
    """The soac-level value that `index` casts without loss: through `arith.index_cast`s between `index` and 64-bit
    integers (the index-written form's `index_cast (index_cast %i : index to i64) : i64 to index`), as far as they go."""
    while isinstance(cast := index.owner, arith.IndexCastOp) and all(
        (_bits(t) or 0) >= 64 for t in (cast.input.type, index.type)
    ):
        index = cast.input
    return index
