"""Size propagation: a `tensor.dim` becomes the size value that the program already has.

The embedding, and programs written by hand, ask an array for its size where the op that made the array fixed it:
the width of a map, the row length of a lambda's parameter, the length of an operator's arguments. Such a `tensor.dim`
is an extra use of the array (which blocks fusion) or a size the lowering cannot see (a size defined inside an
operator). `PropagateKnownSizes` replaces it by the size it resolves to, available where the `tensor.dim` is:

    %ys = soac.map %n (%xs : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%r: tensor<?xf32>) {
      %m = tensor.dim %r, %c0 : tensor<?xf32>                        // a row of %xs: dimension 1 of %xs
      %y = soac.map %m (%r : tensor<?xf32>) -> tensor<?xf32> lambda(...) { ... }
      soac.yield %y : tensor<?xf32>
    }
    %k = tensor.dim %ys, %c1 : tensor<?x?xf32>                       // the inner map's width: %m, that is ...
  becomes
    %ys = soac.map %n (%xs : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%r: tensor<?xf32>) {
      %m = tensor.dim %xs, %c1 : tensor<?x?xf32>
      ...
    %k = tensor.dim %xs, %c1 : tensor<?x?xf32>

The rules (`SizeResolver`): a soac op's result and its lambdas' parameters have the sizes the op says
(`soac.dialect.sizes.ResultDimsInterface`: a SOAC's array result has the op's width as its rows and the yielded (or
neutral) value's sizes after that; a lambda parameter is a row of its input; an operator's parameter has its neutral
element's sizes; `iota`, `replicate`, `transpose`, `reshape`, `reverse`, `index`, `update` and `slice` say how their
sizes follow from their operands); a branch's result has the size that both branches give, and a loop's array keeps
the size it starts with when the loop yields an array of that size.
"""

from __future__ import annotations

from dataclasses import dataclass

from soac import dialect as soac
from soac.dialect.sizes import DimOf, Extent
from soac.passes.simplify_cse import consumes
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

_MAX_DEPTH = 48

Size = SSAValue | DimOf
"""A size: an index value, or a dimension of an array (`soac.dialect.sizes.DimOf`); either available at the place it
is asked for."""


def constant_index(value: SSAValue) -> int | None:
    """The value of an `arith.constant` of an integer or index type."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def available_at(value: SSAValue, point: Operation) -> bool:
    """Whether `value` may be used by `point`: it is defined in a block that holds `point` (or an op around it),
    before it."""
    if isinstance(value, BlockArgument):
        block: Block | None = value.block
        defining = None
    else:
        assert isinstance(value, OpResult)
        block, defining = value.op.parent_block(), value.op
    here: Operation | None = point
    while here is not None:
        if here.parent_block() is block:
            return defining is None or (defining is not here and defining.is_before_in_block(here))
        here = here.parent_op()
    return False


def consumed_before(array: SSAValue, point: Operation) -> bool:
    """Whether `array` (or an array that may share its memory) is consumed before `point`: it may not be used there,
    not even for its size."""
    return any(
        consumes(use.operation, use.index) and soac.later_in_block(point, use.operation)
        for alias in soac.aliases(array)
        for use in alias.uses
    )


def _yielded(region_block: Block, index: int) -> SSAValue | None:
    terminator = region_block.last_op
    if terminator is None or index >= len(terminator.operands):
        return None
    return terminator.operands[index]


@dataclass
class SizeResolver:
    """Resolves dimension `dim` of an array to a size available at `point`, looking through the ops that fix it."""

    point: Operation

    def __post_init__(self) -> None:
        self.assumed: dict[tuple[SSAValue, int], Size] = {}

    def size(self, array: SSAValue, dim: int, depth: int = 0) -> Size | None:
        """The most basic size known for `array`'s dimension `dim`, or None where it is not known here."""
        if (assumed := self.assumed.get((array, dim))) is not None:
            return assumed
        if depth < _MAX_DEPTH and (found := self._structural(array, dim, depth + 1)) is not None:
            return found
        usable = available_at(array, self.point) and not consumed_before(array, self.point)
        return DimOf(array, dim) if usable else None

    def scalar(self, value: SSAValue, depth: int) -> Size | None:
        """A size given as an index value (a width): itself where available, else what its `tensor.dim` resolves to."""
        if available_at(value, self.point):
            if isinstance(dim := value.owner, tensor.DimOp) and (k := constant_index(dim.index)) is not None:
                return self.size(dim.source, k, depth) or value
            return value
        if isinstance(dim := value.owner, tensor.DimOp) and (k := constant_index(dim.index)) is not None:
            return self.size(dim.source, k, depth)
        return None

    def _structural(self, array: SSAValue, dim: int, depth: int) -> Size | None:
        if isinstance(array, BlockArgument):
            return self._of_parameter(array, dim, depth)
        assert isinstance(array, OpResult)
        return self._of_result(array.op, array.index, dim, depth)

    def _of_extent(self, extents: list[Extent] | None, dim: int, depth: int) -> Size | None:
        """Dimension `dim` of what an op says an array's sizes are."""
        if extents is None or dim >= len(extents) or (extent := extents[dim]) is None:
            return None
        if isinstance(extent, DimOf):
            return self.size(extent.array, extent.dim, depth)
        if isinstance(extent, int):
            return None  # a static size the op fixes: no value of the program to propagate
        return self.scalar(extent, depth)

    def _of_result(self, op: Operation, index: int, dim: int, depth: int) -> Size | None:
        match op:
            case soac.ResultDimsInterface():
                return self._of_extent(op.result_dims(index), dim, depth)
            case scf.IfOp():
                return self._of_branches(op, index, dim, depth)
            case scf.ForOp():
                return self._of_loop(op, index, dim, depth)
            case _:
                return None

    def _of_branches(self, op: scf.IfOp, index: int, dim: int, depth: int) -> Size | None:
        if not op.false_region.blocks:
            return None
        sizes = []
        for region in (op.true_region, op.false_region):
            yielded = _yielded(region.block, index)
            sizes.append(None if yielded is None else self.size(yielded, dim, depth))
        return sizes[0] if sizes[0] is not None and sizes[0] == sizes[1] else None

    def _of_loop(self, op: scf.ForOp, index: int, dim: int, depth: int) -> Size | None:
        return self._of_carried(op, op.body.block.args[index + 1], dim, depth)

    def _of_carried(self, loop: scf.ForOp, carried: BlockArgument, dim: int, depth: int) -> Size | None:
        """The size of a loop-carried array: its initial size, where every iteration yields an array of that size."""
        index = carried.index - 1
        initial = self.size(loop.iter_args[index], dim, depth)
        if initial is None:
            return None
        key = (carried, dim)
        self.assumed[key] = initial
        try:
            yielded = _yielded(loop.body.block, index)
            after = None if yielded is None else self.size(yielded, dim, depth)
        finally:
            del self.assumed[key]
        return initial if after == initial else None

    def _of_parameter(self, arg: BlockArgument, dim: int, depth: int) -> Size | None:
        match op := arg.block.parent_op():
            case soac.ResultDimsInterface():
                extents = op.parameter_dims(arg)
                return self._of_extent(op.operator_parameter_dims(arg) if extents is None else extents, dim, depth)
            case scf.ForOp() if arg.index > 0:
                return self._of_carried(op, arg, dim, depth)
            case _:
                return None


def same_size(a: Size | None, b: Size | None) -> bool:
    """Whether two resolved sizes are the same value (a `DimOf` and the `tensor.dim` that reads it count as one, and
    so do two constants of one value)."""
    if a is None or b is None:
        return False
    return _normal(a) == _normal(b)


def _normal(size: Size) -> Size | int:
    if isinstance(size, SSAValue) and isinstance(dim := size.owner, tensor.DimOp):
        if (k := constant_index(dim.index)) is not None:
            return DimOf(dim.source, k)
    if isinstance(size, SSAValue) and (constant := constant_index(size)) is not None:
        return constant
    return size


def has_size(op: Operation, array: SSAValue, dim: int, width: SSAValue) -> bool:
    """Whether `array`'s dimension `dim` is provably `width`, sizes resolved at `op`."""
    resolver = SizeResolver(op)
    return same_size(resolver.size(array, dim), resolver.scalar(width, 0))


def rows_match_width(op: Operation, inputs: list[SSAValue], width: SSAValue) -> bool:
    """Whether every input provably has `width` rows, sizes resolved at `op` (so its size check cannot fail)."""
    resolver = SizeResolver(op)
    expected = resolver.scalar(width, 0)
    return all(same_size(resolver.size(x, 0), expected) for x in inputs)


class PropagateKnownSizes(RewritePattern):
    """`tensor.dim` of an array whose size an op fixed becomes that size (see the module's docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.DimOp, rewriter: PatternRewriter) -> None:
        dim = constant_index(op.index)
        if dim is None or not isinstance(op.source.type, TensorType) or dim >= op.source.type.get_num_dims():
            return
        size = SizeResolver(op).size(op.source, dim)
        if size is None or size == DimOf(op.source, dim) or size is op.result:
            return
        if isinstance(size, SSAValue):
            rewriter.replace(op, [], [size])
            return
        index = arith.ConstantOp(IntegerAttr(size.dim, IndexType()))
        index.result.name_hint = f"c{size.dim}"
        new = tensor.DimOp(size.array, index)
        new.result.name_hint = op.result.name_hint
        rewriter.replace(op, [index, new], [new.result])
