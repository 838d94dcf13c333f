r"""The run-time checks of the SOACs that `soac-flatten` replaces: their width against their inputs' rows.

A SOAC checks, when it runs, that its width is not negative and that every
input has as many rows as the width. A segmented op reads its inputs by
indexing instead, so the flattener keeps the check as `soac.assert` ops, with
the SOAC's location and the interpreter's message, emitted before the
segmented ops (at the place where the SOAC ran). Inside a nest the check only
applies when the nest is not empty, as the SOAC then never runs:

    // map (\row y -> reduce (+) 0 row + y) xss ys, nest (i < n)
    %rows = tensor.dim %ys, %c0 : tensor<?xi32>
    %same = arith.cmpi eq, %n, %rows : index
    soac.assert %same, "'soac.map': width {0} does not match the outer size {1} of input #1" (%n, %rows : index, index)
    %s = soac.segred thread (%n, %m) ...

A width that may be negative is checked first, as the SOAC does (`negative width -1`).
A size that is the width itself needs no check: `tensor.dim` of the same
array and dimension, the width of the op that built the array (a `replicate`,
`iota`, map or segmented op), a slice `[0 : width]`, equal constants.
An input whose size may differ between the points of the nest (a slice with
bounds that vary) is checked in a segmap over the nest instead, which yields
nothing: each point checks its own rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from soac.dialect import (
    AssertOp,
    IndexOp,
    Level,
    ReshapeOp,
    ReverseOp,
    SliceOp,
    TransposeOp,
)
from soac.dialect.sizes import DimOf, ResultDimsInterface
from soac.messages import reshape_problem
from soac.passes.flatten_analysis import is_consumed
from soac.passes.flatten_nest import Bound, KernelBody, Nest, RowOf
from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint


@dataclass(frozen=True)
class Dim:
    """`tensor.dim array, axis` of an array defined before the nest."""

    array: SSAValue
    axis: int


@dataclass(frozen=True)
class Difference:
    """`end - start` (the length of a slice), both defined before the nest."""

    end: SSAValue
    start: SSAValue


Size = SSAValue | int | Dim | Difference
"""The outer size of an input as seen before the nest: a value, a constant, or one to compute."""


def constant_of(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def array_dim(array: SSAValue, axis: int) -> Size:
    """Dimension `axis` of `array` (defined before the nest), as the value that sized it where one did: what the op
    that made it says (`ResultDimsInterface`: `result_dims`, or `parameter_dims` for a row of a lambda's input),
    followed while that is defined outside the op, and a branch's size where both versions of a nest agree."""
    t = array.type
    if isinstance(t, TensorType) and axis < t.get_num_dims() and t.get_shape()[axis] >= 0:
        return t.get_shape()[axis]
    if (said := _said_by_op(array, axis)) is not None:
        return said
    owner = array.owner
    if isinstance(owner, scf.IfOp):  # the versions of a nest: each branch's array has the sizes of the first's
        branch = list(owner.true_region.block.last_op.operands)[list(owner.results).index(array)]  # pyright: ignore
        if isinstance(branch.owner, tensor.CastOp):
            branch = branch.owner.source
        size = array_dim(branch, axis)
        values = [size] if isinstance(size, SSAValue) else [size.array] if isinstance(size, Dim) else []
        if isinstance(size, Difference):
            values = [size.end, size.start]
        return Dim(array, axis) if any(owner.is_ancestor(v.owner) for v in values) else size  # pyright: ignore
    return Dim(array, axis)


def _said_by_op(array: SSAValue, axis: int) -> Size | None:
    """Dimension `axis` of `array` as the soac op that made it (or whose lambda takes it) says, where that is a size
    defined outside the op (its width, a size operand, an operand's dimension); None where the op says nothing
    here (the rows of a slice, a size a lambda yields)."""
    if isinstance(array, BlockArgument):
        op = array.block.parent_op()
        extents = op.parameter_dims(array) if isinstance(op, ResultDimsInterface) else None
    else:
        op = array.owner
        extents = op.result_dims(array.index) if isinstance(op, ResultDimsInterface) else None  # pyright: ignore
    if op is None or extents is None or axis >= len(extents) or (extent := extents[axis]) is None:
        return None
    if isinstance(extent, int):
        return extent
    if isinstance(extent, DimOf):  # not through an array an op consumes: the nest may come after it
        followed = not _defined_inside(op, extent.array) and not is_consumed(extent.array)
        return array_dim(extent.array, extent.dim) if followed else None
    return None if _defined_inside(op, extent) else extent


def _defined_inside(op: Operation, value: SSAValue) -> bool:
    """Whether `value` is defined in one of `op`'s regions (a value of its lambdas, not one the nest has before)."""
    return op.is_ancestor(value.owner)


def source_axis(op: Operation | Block, axis: int) -> tuple[SSAValue, int] | None:
    """The array and dimension that dimension `axis` of the result of an index, transpose or reverse `op` is."""
    if isinstance(op, IndexOp):
        return op.array, axis + len(op.indices)
    if isinstance(op, TransposeOp):
        return op.array, op.perm[axis]
    if isinstance(op, ReverseOp):
        return op.array, axis
    return None


def value_dim(nest: Nest, value: SSAValue, axis: int) -> Size | None:
    """Dimension `axis` of the nest value `value` before the nest; None if it may vary within the nest."""
    binding = nest.lookup(value)
    if isinstance(binding, Bound):
        return array_dim(binding.array, len(binding.idxs) + axis)
    if isinstance(binding, RowOf):
        return value_dim(nest, binding.base, axis + 1)
    owner = value.owner
    if (source := source_axis(owner, axis)) is not None:
        return value_dim(nest, *source)
    if isinstance(owner, ReshapeOp):
        return nest.outer(owner.sizes[axis])
    if isinstance(owner, SliceOp):
        if axis > 0:
            return value_dim(nest, owner.array, axis)
        start, end = nest.outer(owner.start), nest.outer(owner.end)
        if start is None or end is None:
            return None
        return end if constant_of(start) == 0 else Difference(end, start)
    return None


def input_sizes(nest: Nest, inputs: Sequence[SSAValue]) -> list[Size] | None:
    """The outer sizes of a SOAC's inputs before the nest, or None if one may vary within it."""
    sizes = [value_dim(nest, x, 0) for x in inputs]
    return None if any(s is None for s in sizes) else sizes  # pyright: ignore[reportReturnType]


def same_size(width: SSAValue, size: Size) -> bool:
    """True if `size` is `width` whatever the program's inputs."""
    if isinstance(size, SSAValue) and size is width:
        return True
    constant = constant_of(width)
    if constant is not None:
        return constant == (size if isinstance(size, int) else constant_of(size) if isinstance(size, SSAValue) else None)
    owner = width.owner
    if not isinstance(owner, tensor.DimOp):
        return False
    if isinstance(size, SSAValue):
        size = Dim(size.owner.source, constant_of(size.owner.index)) if isinstance(size.owner, tensor.DimOp) else size  # pyright: ignore
    return isinstance(size, Dim) and size.array is owner.source and size.axis == constant_of(owner.index)


def never_negative(width: SSAValue) -> bool:
    constant = constant_of(width)
    return isinstance(width.owner, tensor.DimOp) or (constant is not None and constant >= 0)


class CheckBuilder:
    """Emits the checks of one SOAC of a nest with `builder`, before the ops that replace it."""

    def __init__(self, builder: Builder, nest: Nest, op: Operation):
        self.builder = builder
        self.nest = nest
        self.op = op
        self.empty: SSAValue | None = None
        self.constants: dict[int, SSAValue] = {}

    def insert(self, op: Operation, name: str | None = None) -> SSAValue:
        self.builder.insert(op)
        result = op.results[0]
        if name is not None:
            result.name_hint = name
        return result

    def index(self, value: int) -> SSAValue:
        if (known := self.constants.get(value)) is None:
            known = self.constants[value] = self.insert(arith.ConstantOp(IntegerAttr(value, IndexType())), f"c{value}")
        return known

    def materialise(self, size: Size) -> SSAValue:
        if isinstance(size, SSAValue):
            return size
        if isinstance(size, int):
            return self.index(size)
        if isinstance(size, Difference):
            return self.insert(arith.SubiOp(size.end, size.start), "rows")
        return self.insert(tensor.DimOp(size.array, self.index(size.axis)), "rows")

    def nest_is_empty(self) -> SSAValue | None:
        """`w_0 == 0 or w_1 == 0 ...` over the widths of the nest (None for no nest): the SOAC does not run."""
        if self.empty is None and self.nest.widths:
            zero = self.index(0)
            for width in self.nest.widths:
                is_zero = self.insert(arith.CmpiOp(width, zero, "eq"), "no_rows")
                self.empty = is_zero if self.empty is None else self.insert(arith.OrIOp(self.empty, is_zero), "empty")
        return self.empty

    def check(self, holds: SSAValue, problem: str, values: Sequence[SSAValue]) -> None:
        if (empty := self.nest_is_empty()) is not None:
            holds = self.insert(arith.OrIOp(holds, empty), "checked")
        check = self.builder.insert(AssertOp(holds, f"'{self.op.name}': {problem}", values))
        check.location = self.op.location

    def reshape(self, rows: Sequence[Size], sizes: Sequence[SSAValue]) -> list[SSAValue]:
        """The checks of a reshape of arrays of sizes `rows` to `sizes`; gives the sizes to reshape the nest's whole
        array to (`max(size, 0)` where a size may be negative: an empty nest must not fail)."""
        kept: list[SSAValue] = []
        for size in sizes:
            if never_negative(size):
                kept.append(size)
                continue
            nonneg = self.insert(arith.CmpiOp(size, self.index(0), "sge"), "nonneg")
            self.check(nonneg, "negative size {0}", [size])
            kept.append(self.insert(arith.MaxSIOp(size, self.index(0)), "size"))
        count = self.product([self.materialise(r) for r in rows], "count")
        same = self.insert(arith.CmpiOp(count, self.product(sizes, "new_count"), "eq"), "same_count")
        self.check(same, reshape_problem(len(sizes)), [count, *sizes])
        return kept

    def product(self, values: Sequence[SSAValue], name: str) -> SSAValue:
        result = self.index(1)
        for value in values:
            result = value if constant_of(result) == 1 else self.insert(arith.MuliOp(result, value), name)
        return result

    def width(self, width: SSAValue, sizes: Sequence[Size]) -> None:
        """The checks of `width` against `sizes`, the outer sizes of the SOAC's inputs in order."""
        if not never_negative(width) and not any(same_size(width, s) for s in sizes):
            nonneg = self.insert(arith.CmpiOp(width, self.index(0), "sge"), "nonneg")
            self.check(nonneg, "negative width {0}", [width])
        for k, size in enumerate(sizes):
            if same_size(width, size):
                continue
            rows = self.materialise(size)
            same = self.insert(arith.CmpiOp(width, rows, "eq"), "same_rows")
            self.check(same, f"width {{0}} does not match the outer size {{1}} of input #{k}", [width, rows])


def check_width(builder: Builder, nest: Nest, op: Operation, width: SSAValue) -> None:
    """Emit the checks of the SOAC `op` of `nest` (width `width`) with `builder`: before the nest where its inputs'
    sizes are known there, else in a segmap over the nest that checks each point's rows and yields nothing."""
    inputs = list(op.inputs)  # pyright: ignore[reportAttributeAccessIssue]
    if (sizes := input_sizes(nest, inputs)) is not None:
        CheckBuilder(builder, nest, op).width(width, sizes)
        return
    body = KernelBody(nest)
    checks = CheckBuilder(Builder(InsertPoint.at_end(body.block)), Nest(nest.root, []), op)
    rows = [checks.insert(tensor.DimOp(body.value(x), checks.index(0)), "rows") for x in inputs]
    checks.width(width, rows)
    builder.insert(body.segmap(Level.THREAD, []))


def check_reshape(builder: Builder, nest: Nest, op: ReshapeOp, sizes: Sequence[SSAValue]) -> list[SSAValue]:
    """Emit the checks of the reshape `op` of `nest` (of whole rows of an array over the nest, to `sizes`, values
    before the nest) before the nest. Gives the sizes to reshape the nest's whole array to."""
    assert isinstance(op.array.type, TensorType)
    rows = [value_dim(nest, op.array, axis) for axis in range(op.array.type.get_num_dims())]
    assert all(r is not None for r in rows), "a whole row of an array over the nest has sizes known before it"
    return CheckBuilder(builder, nest, op).reshape(rows, sizes)  # pyright: ignore[reportArgumentType]
