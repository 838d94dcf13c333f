"""The sizes of soac-level arrays at one place: on the host before a launch, or in a kernel before a lambda runs.

The host allocates the outputs of a launch, and a kernel its per-work-item scratch memory, before the code that
builds the arrays runs. `Sizes` finds their sizes from the values the place already has and from how each array
is built:

- a row of a SOAC's input has the input's inner sizes; an indexed, updated or transposed array its source's;
- a SOAC's result has its width, then the sizes of the rows its lambda yields (a segmented op: its index space);
  a scatter's or hist's result its destination's;
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

LAMBDA_OPS = (soac.MapOp, soac.RedomapOp, soac.ScanomapOp, soac.ScatterOp, soac.HistOp, soac.PartitionOp)
"""The SOACs whose lambda takes a row of each input."""
BUILDERS = (soac.MapOp, soac.ScanOp, soac.ScanomapOp, soac.RedomapOp, soac.IotaOp, soac.ReplicateOp, soac.StencilOp)
"""The SOACs whose array results have their width (a stencil: its index space), then the sizes of their rows."""
SEGMENTED = (soac.SegmapOp, soac.SegredOp, soac.SegscanOp)
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
        if isinstance(owner, soac.IndexOp | soac.UpdateOp | soac.TransposeOp | soac.ReverseOp):
            return self._derived_dims(owner, depth)
        if isinstance(owner, soac.ReshapeOp):
            sizes = self._all_scalars(owner.sizes, depth)
            return None if sizes is None else [self.at_least_zero(size) for size in sizes]
        if isinstance(owner, BUILDERS):
            return self._built_dims(owner, value, depth)
        if isinstance(owner, soac.ScatterOp | soac.HistOp | soac.SeghistOp | soac.PartitionOp):
            return self._permuting_dims(owner, value, depth)
        if isinstance(owner, SEGMENTED):
            return self._segmented_dims(owner, value, depth)
        return None

    def _permuting_dims(
        self, op: soac.ScatterOp | soac.HistOp | soac.SeghistOp | soac.PartitionOp, value: SSAValue, depth: int
    ) -> list[SSAValue] | None:
        """A result of a scatter or hist (its destination's sizes), or of a partition: its bucket counts (one per
        bucket) or values it moved (one per row)."""
        if not isinstance(op, soac.PartitionOp):
            return self.dims(op.dests[list(op.outs).index(value)], depth + 1)
        if value is op.counts:
            return [self.place.c(op.bucket_count)]
        width = self.scalar(op.width, depth + 1)
        return None if width is None else [width]

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
        """A lambda's row parameter (a row of its input), or an array a loop carries."""
        parent = block.parent_op()
        index = block.args.index(value)
        if isinstance(parent, LAMBDA_OPS) and block is parent.body.block and index < len(parent.inputs):
            outer = self.dims(parent.inputs[index], depth + 1)
            return outer[1:] if outer is not None else None
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

    def _derived_dims(
        self, op: soac.IndexOp | soac.UpdateOp | soac.TransposeOp | soac.ReverseOp, depth: int
    ) -> list[SSAValue] | None:
        """An array indexed out of, updated in, transposed or reversed from another."""
        source = self.dims(op.array, depth + 1)
        if source is None:
            return None
        if isinstance(op, soac.IndexOp):
            return source[len(op.indices) :]
        if isinstance(op, soac.TransposeOp):
            return [source[p] for p in op.perm]
        return source

    def _built_dims(self, op: Operation, value: SSAValue, depth: int) -> list[SSAValue] | None:
        """An array a SOAC builds: its width, then the sizes of its rows (a stencil's: its index space)."""
        if isinstance(op, soac.StencilOp):
            return self._all_scalars(op.dims, depth)
        assert isinstance(op, BUILDERS)
        assert not isinstance(op, soac.StencilOp)
        if (width := self.scalar(op.width, depth + 1)) is None:
            return None
        assert isinstance(value.type, TensorType)
        shape = value.type.get_shape()
        if isinstance(op, soac.ReplicateOp):
            inner = self.dims(op.value, depth + 1) if isinstance(op.value.type, TensorType) else []
        elif all(s >= 0 for s in shape[1:]):
            inner = [self.place.c(s) for s in shape[1:]]
        elif isinstance(op, soac.MapOp):
            inner = self.dims(yields_of(op.body)[list(op.outs).index(value)], depth + 1)
        else:
            inner = None
        return [width, *inner] if inner is not None else None

    def _segmented_dims(
        self, op: soac.SegmapOp | soac.SegredOp | soac.SegscanOp, value: SSAValue, depth: int
    ) -> list[SSAValue] | None:
        """A result of a segmented op: its index space (less the reduced dimension of a segred's reduced results),
        then the sizes of the rows its lambda yields."""
        if (dims := self._all_scalars(op.dims, depth)) is None:
            return None
        k = list(op.outs).index(value)
        if isinstance(op, soac.SegredOp) and k < len(op.neutral):
            return dims[:-1]
        row = yields_of(op.body)[k]
        inner = self.dims(row, depth + 1) if isinstance(row.type, TensorType) else []
        return [*dims, *inner] if inner is not None else None

    def _all_scalars(self, values: Sequence[SSAValue], depth: int) -> list[SSAValue] | None:
        found: list[SSAValue] = []
        for value in values:
            if (here := self.scalar(value, depth + 1)) is None:
                return None
            found.append(here)
        return found


def yields_of(region: Region) -> list[SSAValue]:
    """The values a single-block region yields."""
    terminator = region.block.last_op
    assert terminator is not None
    return list(terminator.operands)


def same_size(a: SSAValue, b: SSAValue) -> bool:
    """Whether two sizes are the same value or equal constants."""
    return a is b or ((constant := index_constant(a)) is not None and constant == index_constant(b))
