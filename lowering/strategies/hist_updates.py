"""How a top-level `soac.hist` applies one row's values to one bin, safely against the other work-items: the
update methods of the SC'20 paper "Compiling Generalized Histograms for GPU" (hardware atomics, compare-and-swap,
locking), chosen from the operator and the destinations' element types.

* `atomic`: the operator is one arith op with an atomic per destination (`addi`, `minsi`, ... on i32/i64, `addf`
  on f32; several destinations, as horizontal hist+hist fusion makes them, take one atomic each):

      %old = kernel.atomic add %bins[%j], %v : !kernel.buffer<global, i32>, i32

* `cas`: any operator on one destination of i32, i64, f32 or f64: read the bin, combine, and swap the result in
  if the bin still holds what was read (compared as bits); else combine with what it holds now and try again.
  A combination that leaves the bin as it was writes nothing:

      %first = kernel.atomic_load %bins[%j] relaxed device : ... -> i32
      %final = scf.while (%old = %first) : (i32) -> i32 {
        %new = <the operator>(%old, %v)
        %seen = scf.if (%new != %old) { kernel.atomic_cmpxchg %bins[%j], %old, %new } else { %old }
        scf.condition(%seen != %old) %seen : i32
      } do { ^bb0(%s: i32): scf.yield %s : i32 }

* `packed`: several destinations whose elements fit 64 bits together (the (max, argmax) pair on (f32, i32)) are
  stored packed in one i64 array (the first destination in the high bits) and updated by the same 64-bit
  compare-and-swap loop; the histogram packs its destinations before and unpacks them after.
* `lock`: wider operators on 32- and 64-bit elements: a lock word per bin, taken by compare-and-swap 0 -> 1,
  released by an exchange to 0; a work-item that fails to take it tries again in a loop around the whole
  critical section (so that a warp whose lanes wait on each other still makes progress).

`soac-to-kernel{hist-update=cas|packed|lock}` forces a method, where it applies, for tests and benchmarks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from soac import dialect as soac
from soac.lowering.conversion.kernel_builder import KernelBuilder, LoweringError, View, building_at, describe
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.kernel import AtomicCmpxchgOp, AtomicLoadOp, AtomicOp, AtomicStoreOp, FenceOp
from xdsl.builder import InsertPoint
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, TensorType, f32, i1, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

ATOMIC_KINDS = {
    arith.AddiOp: "add",
    arith.AddfOp: "add",
    arith.MinSIOp: "min",
    arith.MaxSIOp: "max",
    arith.MinUIOp: "umin",
    arith.MaxUIOp: "umax",
    arith.AndIOp: "and",
    arith.OrIOp: "or",
    arith.XOrIOp: "xor",
}
"""The operators a histogram can apply with one `kernel.atomic`, by the arith op that computes them."""

METHODS = ("atomic", "cas", "packed", "lock")
PACKABLE_WIDTHS = (1, 8, 16, 32, 64)


def destination_elements(op: soac.HistOp) -> list[Attribute]:
    elements: list[Attribute] = []
    for dest in op.dests:
        assert isinstance(dest.type, TensorType)
        elements.append(dest.type.get_element_type())
    return elements


def _width(element: Attribute) -> int | None:
    if isinstance(element, IntegerType):
        return element.width.data
    if isinstance(element, Float32Type | Float64Type):
        return element.bitwidth
    return None


def atomic_kinds(combine: Region, elements: Sequence[Attribute]) -> list[str] | None:
    """The `kernel.atomic` kind of each destination's part of `combine`, if every part is one atomic op of its two
    parameters (`c_k = op(a_k, b_k)`) on a 32/64-bit integer (f32 for add); None otherwise."""
    block = combine.block
    k = len(elements)
    *ops, yield_op = block.ops
    if len(ops) != k:
        return None
    kinds: list[str] = []
    for j, (element, value) in enumerate(zip(elements, yield_op.operands, strict=True)):
        op = value.owner
        if not isinstance(op, Operation) or op.parent_block() is not block:
            return None
        kind = ATOMIC_KINDS.get(type(op))  # pyright: ignore[reportArgumentType]
        if kind is None or len(op.operands) != 2 or set(op.operands) != {block.args[j], block.args[k + j]}:
            return None
        if isinstance(op, arith.AddfOp) != (element == f32):
            return None
        if element != f32 and (not isinstance(element, IntegerType) or element.width.data not in (32, 64)):
            return None
        kinds.append(kind)
    return kinds


def hist_atomic_kinds(op: soac.HistOp) -> list[str] | None:
    """The atomic kind of each destination of `op`, if its operator is one atomic op per destination."""
    return atomic_kinds(op.combine, destination_elements(op))


def applicable_methods(op: soac.HistOp) -> list[str]:
    """The update methods that can apply `op`'s operator, fastest first."""
    elements = destination_elements(op)
    widths = [_width(e) for e in elements]
    methods = ["atomic"] if hist_atomic_kinds(op) else []
    if len(elements) == 1 and widths[0] in (32, 64):
        methods.append("cas")
    if all(w in PACKABLE_WIDTHS for w in widths) and sum(w or 0 for w in widths) <= 64:
        methods.append("packed")
    if all(w in (32, 64) for w in widths):
        methods.append("lock")
    return methods


def choose_update(op: soac.HistOp, forced: str = "auto") -> BinUpdate:
    """The first applicable method, or the `forced` one (soac-to-kernel's `hist-update`) where it applies."""
    methods = applicable_methods(op)
    if not methods:
        types = ", ".join(str(e) for e in destination_elements(op))
        raise LoweringError(
            f"{describe(op)}: a histogram outside a lambda needs destinations of 32- or 64-bit elements (for "
            f"compare-and-swap or locking) or that fit 64 bits together, got ({types})"
        )
    if forced != "auto":
        if forced not in methods:
            raise LoweringError(
                f"{describe(op)}: soac-to-kernel's hist-update={forced} does not apply here (applicable: {', '.join(methods)})"
            )
        return BinUpdate(op, forced)
    return BinUpdate(op, methods[0])


@dataclass
class BinUpdate:
    """One update method for the bins of `op` (see the module docstring), and the code that applies it."""

    op: soac.HistOp
    method: str

    @property
    def elements(self) -> list[Attribute]:
        return destination_elements(self.op)

    @property
    def kinds(self) -> list[str] | None:
        """The atomic kind of each destination, for `atomic`."""
        return hist_atomic_kinds(self.op) if self.method == "atomic" else None

    @property
    def storage(self) -> list[Attribute]:
        """The element types of the arrays the updates go to: the destinations', or one i64 for `packed`."""
        return [i64] if self.method == "packed" else self.elements

    @property
    def locked(self) -> bool:
        return self.method == "lock"

    # -- values ------------------------------------------------------------------

    def to_storage(self, kb: KernelBuilder, values: Sequence[SSAValue]) -> list[SSAValue]:
        return [pack(kb, values)] if self.method == "packed" else list(values)

    def from_storage(self, kb: KernelBuilder, stored: Sequence[SSAValue]) -> list[SSAValue]:
        return unpack(kb, stored[0], self.elements) if self.method == "packed" else list(stored)

    def combine(self, kb: KernelBuilder, olds: Sequence[SSAValue], news: Sequence[SSAValue]) -> list[SSAValue]:
        """The operator applied to `olds` and `news`, inlined."""
        return Inliner(kb).inline_scalars(self.op.combine, [*olds, *news])

    def differs(self, kb: KernelBuilder, values: Sequence[SSAValue], neutral: Sequence[SSAValue]) -> SSAValue:
        """Whether `values` differ from the neutral elements (any of them)."""
        result: SSAValue | None = None
        for value, ne in zip(values, neutral):
            compare = (
                arith.CmpfOp(value, ne, "une")
                if isinstance(value.type, Float32Type | Float64Type)
                else arith.CmpiOp(value, ne, "ne")
            )
            differs = kb.m.insert(compare, "changed")
            result = differs if result is None else kb.m.insert(arith.OrIOp(result, differs), "changed")
        assert result is not None
        return result

    # -- applying ------------------------------------------------------------------

    def apply(
        self, kb: KernelBuilder, targets: Sequence[View], j: SSAValue, values: Sequence[SSAValue], locks: View | None = None
    ) -> None:
        """Combine `values` into bin `j` of the storage views `targets` (`locks`: the lock words, for `lock`)."""
        if self.method == "atomic":
            kinds = self.kinds
            assert kinds is not None
            parts = [value.owner for value in self.op.combine.block.last_op.operands]  # pyright: ignore[reportOptionalMemberAccess]
            for target, value, kind, part in zip(targets, values, kinds, parts, strict=True):
                if target.buffer.type.space_name == "local" and _width(target.element) == 64:  # pyright: ignore[reportAttributeAccessIssue]
                    # 64-bit atomics on local memory: PoCL 3.1 aborts building `atom_and` on a local long
                    self._cas(kb, target, j, lambda old, v=value, p=part: kb.m.insert(type(p)(old, v), "new"))  # pyright: ignore[reportCallIssue]
                    continue
                kb.b.insert(AtomicOp(kind, target.buffer, kb.m.add(target.offset, j), value))
        elif self.method == "cas":
            (target,), (value,) = targets, values
            self._cas(kb, target, j, lambda old: self.combine(kb, [old], [value])[0])
        elif self.method == "packed":
            (target,) = targets

            def new_packed(old: SSAValue) -> SSAValue:
                return pack(kb, self.combine(kb, unpack(kb, old, self.elements), values))

            self._cas(kb, target, j, new_packed, packed=True)
        else:
            assert locks is not None
            self._locked(kb, targets, j, values, locks)

    def _cas(
        self, kb: KernelBuilder, target: View, j: SSAValue, new_value: Callable[[SSAValue], SSAValue], packed: bool = False
    ) -> None:
        """The compare-and-swap loop on bin `j` of `target`, whose new value is `new_value(old value)`."""
        m = kb.m
        index = m.add(target.offset, j)
        element = target.element
        bits = element if isinstance(element, IntegerType) else IntegerType(_width(element) or 32)
        scope = "workgroup" if target.buffer.type.space_name == "local" else "device"  # pyright: ignore[reportAttributeAccessIssue]
        first = to_bits(kb, m.insert(AtomicLoadOp(target.buffer, index, "relaxed", scope), "first"))
        before = Block(arg_types=[bits])
        before.args[0].name_hint = "old"
        with building_at(kb.b, InsertPoint.at_end(before)):
            old = before.args[0]
            new = to_bits(kb, new_value(old if packed else from_bits(kb, old, element)))
            changed = m.insert(arith.CmpiOp(new, old, "ne"), "changed")
            (seen,) = kb.if_values(
                changed, [bits], lambda: [m.insert(AtomicCmpxchgOp(target.buffer, index, old, new), "seen")], lambda: [old]
            )
            retry = m.insert(arith.CmpiOp(seen, old, "ne"), "retry")
            kb.b.insert(scf.ConditionOp(retry, seen))
        after = Block(arg_types=[bits])
        with building_at(kb.b, InsertPoint.at_end(after)):
            kb.b.insert(scf.YieldOp(after.args[0]))
        kb.b.insert(scf.WhileOp([first], [bits], Region(before), Region(after)))

    def _locked(self, kb: KernelBuilder, targets: Sequence[View], j: SSAValue, values: Sequence[SSAValue], locks: View) -> None:
        """Take bin `j`'s lock, combine under it, release it; the whole in a loop that retries until it took it."""
        m = kb.m
        space = locks.buffer.type.space_name  # pyright: ignore[reportAttributeAccessIssue]
        scope = "workgroup" if space == "local" else "device"
        lock = m.add(locks.offset, j)
        before = Block()
        with building_at(kb.b, InsertPoint.at_end(before)):
            zero, one = m.const(0, i32), m.const(1, i32)
            was = m.insert(AtomicCmpxchgOp(locks.buffer, lock, zero, one), "was")
            took = m.insert(arith.CmpiOp(was, zero, "eq"), "took")

            def critical() -> None:
                kb.b.insert(FenceOp([space], scope))
                indices = [m.add(t.offset, j) for t in targets]
                olds = [m.insert(AtomicLoadOp(t.buffer, k, "relaxed", scope), "held") for t, k in zip(targets, indices)]
                for new, t, k in zip(self.combine(kb, olds, values), targets, indices):
                    kb.b.insert(AtomicStoreOp(new, t.buffer, k, "relaxed", scope))
                kb.b.insert(FenceOp([space], scope))
                kb.b.insert(AtomicOp("xchg", locks.buffer, lock, zero))

            kb.if_then(took, critical)
            kb.b.insert(scf.ConditionOp(m.insert(arith.XOrIOp(took, m.const(1, i1)), "retry")))
        after = Block()
        with building_at(kb.b, InsertPoint.at_end(after)):
            kb.b.insert(scf.YieldOp())
        kb.b.insert(scf.WhileOp([], [], Region(before), Region(after)))


def to_bits(kb: KernelBuilder, value: SSAValue) -> SSAValue:
    """`value` as an integer of its width (floats through their bits)."""
    if isinstance(value.type, IntegerType):
        return value
    return kb.m.insert(arith.BitcastOp(value, IntegerType(_width(value.type) or 32)), "bits")


def from_bits(kb: KernelBuilder, bits: SSAValue, element: Attribute) -> SSAValue:
    if bits.type == element:
        return bits
    return kb.m.insert(arith.BitcastOp(bits, element), "value")


def pack(kb: KernelBuilder, values: Sequence[SSAValue]) -> SSAValue:
    """The bits of `values` side by side in one i64, the first value highest."""
    m = kb.m
    packed: SSAValue | None = None
    for value in values:
        width = _width(value.type) or 64
        bits = to_bits(kb, value)
        wide = bits if width == 64 else m.insert(arith.ExtUIOp(bits, i64), "wide")
        packed = (
            wide if packed is None else m.insert(arith.OrIOp(m.insert(arith.ShLIOp(packed, m.const(width, i64))), wide), "packed")
        )
    assert packed is not None
    return packed


def unpack(kb: KernelBuilder, packed: SSAValue, elements: Sequence[Attribute]) -> list[SSAValue]:
    m = kb.m
    values: list[SSAValue] = []
    shift = 0
    for element in reversed(elements):
        width = _width(element) or 64
        field = packed if shift == 0 else m.insert(arith.ShRUIOp(packed, m.const(shift, i64)), "field")
        if width < 64:
            field = m.insert(arith.AndIOp(field, m.const((1 << width) - 1, i64)), "field")
            field = m.insert(arith.TruncIOp(field, IntegerType(width)), "field")
        values.append(from_bits(kb, field, element))
        shift += width
    return values[::-1]
