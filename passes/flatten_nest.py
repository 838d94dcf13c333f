r"""The map-nest context Σ of `soac-flatten` and the bodies of the segmented ops built over it.

A nest is the stack of maps being flattened: level `l` has width `w_l` (a value
defined before the nest) and index `i_l`. Every value of the original program
that lives inside the nest is *bound* to how a segmented op reads it:

* `Bound(A, (l0, l1, ...))`: the value is `A[i_l0, i_l1, ...]` for an array `A`
  built before the nest (a map parameter over a free array, or the result of an
  earlier kernel); `Bound(v, ())` is a value that does not depend on the nest;
* `RowOf(x, l)`: row `i_l` of the nest value `x` (a map parameter whose array is
  itself computed inside the kernel).

`KernelBody` builds the lambda of a segmented op over the nest: it takes the
indices as block arguments, reads bound values with `soac.index`, recomputes
cheap scalar code, and clones the ops it is given:

    // map (\xs -> map (\x -> x + 1) xs) xss, nest (i < n, j < m)
    %r = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
      %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
      %y = arith.addf %x, %one : f32
      soac.yield %y : f32
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from soac.dialect import IndexOp, Level, SegmapOp, YieldOp
from soac.passes.flatten_analysis import defined_in, free_values
from soac.types import array_of_rank
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

INDEX_NAMES = ("i", "j", "k", "l")


@dataclass(frozen=True)
class Bound:
    """The nest value is `array[i_idxs...]`; with no indices, it is `array` itself."""

    array: SSAValue
    idxs: tuple[int, ...]


@dataclass(frozen=True)
class RowOf:
    """The nest value is row `i_level` of the nest value `base`."""

    base: SSAValue
    level: int


Binding = Bound | RowOf


@dataclass
class Nest:
    """A map nest: the widths of its levels and the bindings of the values inside it."""

    root: Operation
    """The outermost op being flattened: the values defined inside it are nest values."""
    widths: list[SSAValue]
    env: dict[SSAValue, Binding] = field(default_factory=dict[SSAValue, Binding])
    cheap: dict[SSAValue, Operation] = field(default_factory=dict[SSAValue, Operation])
    """Scalar code seen so far, recomputed where needed (shared by all scopes: these are original ops)."""
    fresh: set[SSAValue] = field(default_factory=set[SSAValue])
    """Arrays built by the flattener (shared): results may alias them without a copy."""

    @property
    def depth(self) -> int:
        return len(self.widths)

    def child(self, widths: Sequence[SSAValue] = ()) -> Nest:
        """A nest with more levels, or a new scope (its own bindings) for the same levels."""
        return Nest(self.root, [*self.widths, *widths], dict(self.env), self.cheap, self.fresh)

    def inside(self, value: SSAValue) -> bool:
        return defined_in(value, self.root)

    def lookup(self, value: SSAValue) -> Binding | None:
        if (binding := self.env.get(value)) is not None:
            return binding
        return None if self.inside(value) else Bound(value, ())

    def outer(self, value: SSAValue) -> SSAValue | None:
        """The value, if it does not depend on the nest, as a value defined before it."""
        binding = self.lookup(value)
        return binding.array if isinstance(binding, Bound) and not binding.idxs else None

    def full(self, value: SSAValue) -> SSAValue | None:
        """The array `A` with `value = A[i_0, ..., i_(depth-1)]`, if there is one."""
        binding = self.lookup(value)
        if isinstance(binding, Bound) and binding.idxs == tuple(range(self.depth)):
            return binding.array
        return None

    def row(self, array: SSAValue, level: int) -> Binding:
        """The binding of row `i_level` of the nest value `array`."""
        binding = self.lookup(array)
        if isinstance(binding, Bound):
            return Bound(binding.array, (*binding.idxs, level))
        return RowOf(array, level)

    def bind_rows(self, params: Sequence[SSAValue], arrays: Sequence[SSAValue], level: int) -> None:
        for param, array in zip(params, arrays, strict=True):
            self.env[param] = self.row(array, level)

    def bind_full(self, values: Sequence[SSAValue], arrays: Sequence[SSAValue], fresh: bool = True) -> None:
        """Bind each value to `array[i_0, ..., i_(depth-1)]`; `fresh` if the flattener just built the arrays."""
        for value, array in zip(values, arrays, strict=True):
            self.env[value] = Bound(array, tuple(range(self.depth)))
            if fresh:
                self.fresh.add(array)
            if array.name_hint is None:
                array.name_hint = value.name_hint

    def manifest_type(self, t: Attribute) -> Attribute:
        """The type of an array holding a value of type `t` for every point of the nest."""
        return array_of_rank(t, self.depth)

    def varies(self, value: SSAValue) -> bool:
        """True if the scalar `value` may differ between points of the nest."""
        if self.outer(value) is not None:
            return False
        owner = value.owner
        if isinstance(owner, Operation) and owner.name == "arith.constant":
            return False
        return True

    def shape_varies(self, value: SSAValue) -> bool:
        """True if the array `value` may have different shapes at different points of the nest."""
        t = value.type
        if not isinstance(t, TensorType) or all(d >= 0 for d in t.get_shape()):
            return False
        binding = self.lookup(value)
        if isinstance(binding, Bound):
            return False
        if isinstance(binding, RowOf):
            return self.shape_varies(binding.base)
        owner = value.owner
        if isinstance(owner, Block):
            return True
        return _op_shape_varies(self, owner, value)


def _op_shape_varies(nest: Nest, op: Operation, value: SSAValue) -> bool:
    """Shape variance of a result of `op` from its size operands; unknown ops vary."""
    name = op.name
    if name in ("soac.index", "soac.transpose", "soac.reverse", "soac.rotate", "tensor.cast"):
        return nest.shape_varies(op.operands[0])
    if name == "soac.reshape":
        return any(nest.varies(size) for size in op.operands[1:])
    if name == "soac.slice":
        return nest.varies(op.operands[1]) or nest.varies(op.operands[2]) or nest.shape_varies(op.operands[0])
    if name in ("soac.iota", "soac.replicate", "soac.map", "soac.scan", "soac.scanomap", "soac.redomap"):
        t = value.type
        assert isinstance(t, TensorType)
        return nest.varies(op.operands[0]) or t.get_num_dims() > 1
    return True


class KernelBody:
    """The lambda of a segmented op over a nest: reads nest values by indexing, clones ops."""

    def __init__(self, nest: Nest):
        self.nest = nest
        self.block = Block(arg_types=[IndexType()] * nest.depth)
        for level, arg in enumerate(self.block.args):
            arg.name_hint = INDEX_NAMES[level] if level < len(INDEX_NAMES) else f"i{level}"
        self.mapper: dict[SSAValue, SSAValue] = {}

    def index(self, array: SSAValue, levels: Sequence[int], hint: str | None) -> SSAValue:
        read = IndexOp(array, [self.block.args[level] for level in levels])
        read.result.name_hint = hint
        self.block.add_op(read)
        return read.result

    def value(self, value: SSAValue) -> SSAValue:
        """The value inside the kernel."""
        if (known := self.mapper.get(value)) is not None:
            return known
        binding = self.nest.env.get(value)
        if binding is None and (op := self.nest.cheap.get(value)) is not None:
            self.clone(op)
            return self.mapper[value]
        if binding is None:
            assert not self.nest.inside(value), f"soac-flatten: {value.name_hint or value} is not bound in the nest"
            return value
        if isinstance(binding, Bound):
            read = self.index(binding.array, binding.idxs, value.name_hint) if binding.idxs else binding.array
        else:
            read = self.index(self.value(binding.base), [binding.level], value.name_hint)
        self.mapper[value] = read
        return read

    def row(self, array: SSAValue, level: int) -> SSAValue:
        """Row `i_level` of the nest value `array`, inside the kernel."""
        binding = self.nest.row(array, level)
        if isinstance(binding, Bound):
            return self.index(binding.array, binding.idxs, None)
        return self.index(self.value(array), [level], None)

    def clone(self, op: Operation) -> None:
        for value in free_values(op):
            self.value(value)
        self.block.add_op(op.clone(self.mapper))

    def clone_all(self, ops: Sequence[Operation]) -> None:
        for op in ops:
            self.clone(op)

    def region(self, yields: Sequence[SSAValue]) -> Region:
        """The kernel's lambda, yielding `yields` (values of the original program)."""
        self.block.add_op(YieldOp(*(self.value(v) for v in yields)))
        return Region(self.block)

    def segmap(self, level: Level, yields: Sequence[SSAValue]) -> SegmapOp:
        """A segmap over the nest that gives, for each value of `yields`, its array over the nest."""
        types = [self.nest.manifest_type(v.type) for v in yields]
        return SegmapOp(level, self.nest.widths, types, self.region(yields))
