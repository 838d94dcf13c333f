"""The sizes of soac-level arrays at one place: on the host before a launch, or in a kernel before a lambda runs.

The host allocates the outputs of a launch, and a kernel its per-work-item scratch memory, before the code that
builds the arrays runs. `Sizes` finds their sizes from the values the place already has and from how each array
is built:

- a soac op's result, or an array parameter of its lambdas, has the sizes the op says
  (`soac.dialect.sizes.ResultDimsInterface`: a map's result its width, then the sizes of the rows its lambda
  yields; a row of an input the input's inner sizes; a transposed array its source's, permuted; ...);
- an array a loop carries has its initial sizes (on the host only if each iteration provably keeps them; a kernel
  checks them at run time); a branch's, the `then` branch's if known, else the `else` branch's (the branch taken is
  checked);
- a scalar size is a value of the place, a constant, a `tensor.dim` of an array of known sizes, or pure arithmetic
  on such values, cloned to the place.

So, for the host, `%k` in

    %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
      %m = tensor.dim %row, %c0 : tensor<?xf32>
      %k = arith.addi %m, %c1 : index
      ...

is `arith.addi %xss_d1, %c1` on the host (the row has `%xss`'s inner size). The same walk maps a kernel-side
value to the host (`KernelBuilder.hoisted`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from soac import dialect as soac
from soac.dialect.sizes import DimOf, Extent
from soac.lowering.kernel import BufferType
from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

DIVISIONS = (
    arith.DivSIOp,
    arith.RemSIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.DivUIOp,
    arith.RemUIOp,
    arith.CeilDivUIOp,
)
UNSIGNED_DIVISIONS = (arith.DivUIOp, arith.RemUIOp, arith.CeilDivUIOp)

MAX_DEPTH = 32


def index_constant(value: SSAValue) -> int | None:
    if isinstance(op := value.owner, arith.ConstantOp) and isinstance(attr := op.value, IntegerAttr):
        return attr.value.data
    return None


def host_computable(op: Operation) -> bool:
    """A pure scalar `arith` op that the host may evaluate ahead of time (to size arrays before a launch).

    Integer divisions qualify only by a constant that cannot fail, so that evaluating early never raises an
    error that the program would not.
    """
    if op.dialect_name() != "arith" or op.regions or len(op.results) != 1:
        return False
    if any(isinstance(v.type, TensorType | BufferType) for v in (*op.operands, *op.results)):
        return False
    if isinstance(op, DIVISIONS):
        divisor = index_constant(op.operands[1])
        return divisor is not None and divisor not in (0, -1)
    return True


class Place(Protocol):
    """What `Sizes` builds with: index constants (`IndexMath`) and a builder at the place."""

    builder: Builder

    def c(self, value: int, name: str | None = None) -> SSAValue: ...


@dataclass
class Sizes:
    """The sizes of arrays, and scalar sizes, as values at one place (None where they are not known there)."""

    place: Place
    scalar_here: Callable[[SSAValue], SSAValue | None]
    """A scalar the place already has."""
    array_here: Callable[[SSAValue], Sequence[SSAValue] | None] = lambda _: None
    """The sizes of an array the place already has."""
    outside: Callable[[SSAValue], list[SSAValue] | SSAValue | None] = lambda _: None
    """A value from outside a kernel, brought into it: an array's sizes, or a scalar."""
    cache: dict[SSAValue, SSAValue] | None = None
    """Arithmetic cloned to the place, by the value it computes (None: cloned at each use)."""
    proves_loops: bool = False
    """A loop's array has its initial sizes only where each iteration provably keeps them (the host)."""
    assumed: set[tuple[Operation, int]] = field(default_factory=set)
    """Loop-carried arrays assumed to keep their sizes while proving it."""
    at_least_zero: Callable[[SSAValue], SSAValue] = lambda size: size
    """A reshape's size as memory may be sized by it (the host clamps: a negative size fails in the lambda, which
    runs unless the op is empty)."""

    def dims(self, value: SSAValue, depth: int = 0) -> list[SSAValue] | None:
        """The sizes of the array `value`, outermost first."""
        if (found := self.array_here(value)) is not None:
            return list(found)
        assert isinstance(value.type, TensorType)
        shape = value.type.get_shape()
        if all(s >= 0 for s in shape):
            return [self.place.c(s) for s in shape]
        if isinstance(outside := self.outside(value), list):
            return outside
        owner = value.owner
        if depth > MAX_DEPTH:
            return None
        if isinstance(owner, Block):
            return self._parameter_dims(owner, value, depth)
        if isinstance(owner, scf.ForOp | scf.WhileOp | scf.IfOp):
            return self._control_flow_dims(owner, list(owner.results).index(value), depth)
        if isinstance(owner, soac.ResultDimsInterface):
            return self._reified(owner, owner.result_dims(list(owner.results).index(value)), shape, depth)
        return None

    def scalar(self, value: SSAValue, depth: int = 0) -> SSAValue | None:
        """The scalar `value` (a width, a size) at the place."""
        if (found := self.scalar_here(value)) is not None:
            return found
        if self.cache is not None and (found := self.cache.get(value)) is not None:
            return found
        owner = value.owner
        if (constant := index_constant(value)) is not None and isinstance(value.type, IndexType):
            return self.place.c(constant)
        if isinstance(owner, tensor.DimOp) and (index := index_constant(owner.index)) is not None:
            dims = self.dims(owner.source, depth + 1)
            if dims is not None and index < len(dims):
                return dims[index]
        elif isinstance(owner, Operation) and host_computable(owner) and depth <= MAX_DEPTH:
            return self._cloned(owner, value, depth)
        outside = self.outside(value)
        return outside if isinstance(outside, SSAValue) else None

    def _cloned(self, op: Operation, value: SSAValue, depth: int) -> SSAValue | None:
        """`op` computed at the place from its operands there."""
        operands: list[SSAValue] = []
        for operand in op.operands:
            if (here := self.scalar(operand, depth + 1)) is None:
                return None
            operands.append(here)
        new = op.clone(value_mapper=dict(zip(op.operands, operands)))
        self.place.builder.insert(new)
        if self.cache is not None:
            self.cache.update(zip(op.results, new.results))
        return new.results[list(op.results).index(value)]

    def _parameter_dims(self, block: Block, value: SSAValue, depth: int) -> list[SSAValue] | None:
        """An array parameter of a SOAC's lambda (what the op says: a row of its input, ...), or an array a loop
        carries."""
        parent = block.parent_op()
        index = block.args.index(value)
        if isinstance(parent, soac.ResultDimsInterface):
            assert isinstance(value.type, TensorType)
            extents = parent.parameter_dims(block.args[index])
            return None if extents is None else self._reified(parent, extents, value.type.get_shape(), depth)
        if isinstance(parent, scf.ForOp):
            return self._loop_dims(parent, index - 1, depth) if index > 0 else None
        if isinstance(parent, scf.WhileOp):
            return self.dims(parent.arguments[index], depth + 1)
        return None

    def _control_flow_dims(self, op: scf.ForOp | scf.WhileOp | scf.IfOp, k: int, depth: int) -> list[SSAValue] | None:
        """The `k`-th array a loop carries or a branch yields (the `then` branch's sizes, else the `else` one's)."""
        if isinstance(op, scf.ForOp):
            return self._loop_dims(op, k, depth)
        if isinstance(op, scf.WhileOp):
            return self.dims(op.arguments[k], depth + 1)
        then = self.dims(yields_of(op.true_region)[k], depth + 1)
        return then if then is not None else self.dims(yields_of(op.false_region)[k], depth + 1)

    def _loop_dims(self, loop: scf.ForOp, k: int, depth: int) -> list[SSAValue] | None:
        """The `k`-th array a loop carries: its initial sizes (on the host, if every iteration keeps them)."""
        initial = self.dims(loop.iter_args[k], depth + 1)
        if not self.proves_loops or initial is None or (loop, k) in self.assumed:
            return initial
        self.assumed.add((loop, k))
        try:
            after = self.dims(yields_of(loop.body)[k], depth + 1)
        finally:
            self.assumed.discard((loop, k))
        if after is None or not all(same_size(a, b) for a, b in zip(after, initial, strict=True)):
            return None
        return initial

    def _reified(
        self, op: soac.ResultDimsInterface, extents: Sequence[Extent], shape: Sequence[int], depth: int
    ) -> list[SSAValue] | None:
        """The sizes `op` says an array has (`extents`), at the place: a static size as a constant, a scalar where
        the place has it, a dimension of another array from that array's sizes (each array's found once)."""
        arrays: dict[SSAValue, list[SSAValue] | None] = {}
        scalars: list[SSAValue] = []
        found: list[SSAValue] = []
        for extent, static in zip(extents, shape, strict=True):
            if static >= 0:
                found.append(self.place.c(static))
            elif isinstance(extent, int):
                found.append(self.place.c(extent))
            elif isinstance(extent, DimOf):
                if extent.array not in arrays:
                    arrays[extent.array] = self.dims(extent.array, depth + 1)
                if (dims := arrays[extent.array]) is None:
                    return None
                found.append(dims[extent.dim])
            elif extent is None or (size := self.scalar(extent, depth + 1)) is None:
                return None
            else:
                found.append(size)
                scalars.append(size)
        if isinstance(op, soac.ReshapeOp):
            found = [self.at_least_zero(size) if size in scalars else size for size in found]
        return found


def yields_of(region: Region) -> list[SSAValue]:
    """The values a single-block region yields."""
    terminator = region.block.last_op
    assert terminator is not None
    return list(terminator.operands)


def same_size(a: SSAValue, b: SSAValue) -> bool:
    """Whether two sizes are the same value or equal constants."""
    return a is b or ((constant := index_constant(a)) is not None and constant == index_constant(b))
