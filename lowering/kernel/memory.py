"""Memory ops of the kernel dialect beyond plain loads and stores: vector accesses, loads and stores with a
memory order and scope, fences and atomics.

    %a, %b, %c, %d = kernel.vector_load %xs[%i] width 4 align 16 : !kernel.buffer<global, i32>
    kernel.vector_store %a, %b, %c, %d into %ys[%i] align 16 : !kernel.buffer<global, i32>
    %w0, %w1 = kernel.vector_load %status[%j] width 2 align 16 volatile : !kernel.buffer<global, i64>
    kernel.vector_store %w0, %w1 into %status[%j] align 16 volatile : !kernel.buffer<global, i64>
    %w = kernel.atomic_load %status[%t] acquire device : !kernel.buffer<global, i64> -> i64
    kernel.atomic_store %w, %status[%t] release device : i64, !kernel.buffer<global, i64>
    kernel.fence global scope device
    %old = kernel.atomic add %counter[%c0], %one : !kernel.buffer<global, i32>, i32
    %was = kernel.atomic_cmpxchg %slot[%i], %expected, %new : !kernel.buffer<local, i32>

Indices count elements, as for `kernel.load`. A vector access of `width` elements
needs its address aligned to `align` bytes, the size of the vector
(`width` x element size): the index must be a multiple of `width` in a buffer
whose start is so aligned (device buffers are). A `volatile` vector access of 32- or
64-bit words is made every time the code says so, in one access where the device
has one of that size (16 bytes on NVIDIA), and reads or writes each word atomically;
that the whole vector is read as one write left it is not promised, so a reader
checks the words against each other (as the look-back scan's paired status words
do, each carrying the flag). Memory orders and scopes follow
C11/OpenCL 2: `relaxed` orders nothing around the access, `acquire` (loads) keeps
later accesses after it, `release` (stores) keeps earlier ones before it; the scope
says which work-items the order is promised to (`workgroup` or `device`). A local
buffer is only seen by its work-group, so its accesses take scope `workgroup`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from soac.lowering.kernel.attributes import (
    AddressSpace,
    AtomicKind,
    AtomicKindAttr,
    MemoryOrder,
    MemoryOrderAttr,
    MemoryScope,
    MemoryScopeAttr,
)
from soac.lowering.kernel.device import FuncOp
from soac.lowering.kernel.types import BufferType, buffer_of, check_element
from xdsl.dialects.builtin import (
    I64,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import HasAncestor, MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

VECTOR_WIDTHS = (2, 4, 8, 16)
ATOMIC_KINDS = tuple(kind.value for kind in AtomicKind)
"""`min`/`max` compare as signed integers, `umin`/`umax` as unsigned; `xchg` stores the value."""

WORD_BYTES = (4, 8)
"""Sizes of the elements that atomic and volatile accesses read and write whole."""
_ELEMENT_BYTES = {"i8": 1, "i16": 2, "i32": 4, "f32": 4, "i64": 8, "f64": 8, "index": 8, "f16": 2}


def element_bytes(t: Attribute) -> int | None:
    """The size of a buffer element in bytes (None for i1, which buffers store as bytes but vectors cannot load)."""
    return _ELEMENT_BYTES.get(str(t))


def _parse_indexed(parser: Parser) -> tuple[UnresolvedOperand, UnresolvedOperand]:
    """`%buf[%i]`"""
    buffer = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    index = parser.parse_unresolved_operand()
    parser.parse_punctuation("]")
    return buffer, index


def _print_indexed(printer: Printer, buffer: SSAValue, index: SSAValue) -> None:
    printer.print_string(" ")
    printer.print_operand(buffer)
    printer.print_string("[")
    printer.print_operand(index)
    printer.print_string("]")


def _print_attributes_and_types(printer: Printer, op: Operation, types: Sequence[Attribute], separator: str = ", ") -> None:
    """` {attrs} : T1, T2`"""
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_list(types, printer.print_attribute, separator)


def _parse_attributes_and_buffer_type(parser: Parser) -> tuple[dict[str, Attribute], BufferType]:
    """` {attrs} : !kernel.buffer<...>`"""
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    return attrs, _parse_buffer_type(parser)


def _parse_buffer_type(parser: Parser) -> BufferType:
    pos = parser.pos
    buffer_type = parser.parse_type()
    if not isinstance(buffer_type, BufferType):
        parser.raise_error(f"expected a !kernel.buffer type, got {buffer_type}", pos)
    return buffer_type


# ---------------------------------------------------------------------------
# Vector accesses
# ---------------------------------------------------------------------------


def _check_vector(op: Operation, buffer: BufferType, width: int, align: int, volatile: bool) -> None:
    if width not in VECTOR_WIDTHS:
        raise VerifyException(f"'{op.name}' width must be one of {', '.join(map(str, VECTOR_WIDTHS))}, got {width}")
    size = element_bytes(buffer.element_type)
    if size is None:
        raise VerifyException(f"'{op.name}' cannot access vectors of {buffer.element_type}")
    if align != width * size:
        raise VerifyException(
            f"'{op.name}' of {width} x {buffer.element_type} needs an alignment of {width * size} bytes "
            f"(the vector's size), got {align}"
        )
    if volatile and size not in WORD_BYTES:
        raise VerifyException(f"'{op.name}' volatile accesses vectors of 32- or 64-bit words, not of {buffer.element_type}")


def _volatile_property(volatile: bool) -> dict[str, Attribute]:
    return {"volatile": UnitAttr()} if volatile else {}


def _parse_volatile(parser: Parser) -> dict[str, Attribute]:
    return _volatile_property(parser.parse_optional_keyword("volatile") is not None)


def _print_volatile(printer: Printer, op: VectorLoadOp | VectorStoreOp) -> None:
    if op.volatile is not None:
        printer.print_string(" volatile")


@irdl_op_definition
class VectorLoadOp(IRDLOperation):
    """`width` consecutive elements from `buf[index]` in one access, as `width` scalars.

    %a, %b, %c, %d = kernel.vector_load %xs[%i] width 4 align 16 : !kernel.buffer<global, i32>
    %w0, %w1 = kernel.vector_load %status[%j] width 2 align 16 volatile : !kernel.buffer<global, i64>
    """

    name = "kernel.vector_load"

    buffer = operand_def(BufferType)
    index = operand_def(IndexType)
    align = prop_def(IntegerAttr[I64])
    volatile = opt_prop_def(UnitAttr)
    elements = var_result_def()

    traits = traits_def(MemoryReadEffect(), HasAncestor(FuncOp))

    def __init__(self, buffer: SSAValue | Operation, index: SSAValue | Operation, width: int, volatile: bool = False):
        buffer_type = SSAValue.get(buffer).type
        assert isinstance(buffer_type, BufferType)
        align = width * (element_bytes(buffer_type.element_type) or 0)
        super().__init__(
            operands=[buffer, index],
            result_types=[[buffer_type.element_type] * width],
            properties={"align": IntegerAttr(align, i64), **_volatile_property(volatile)},
        )

    @property
    def width(self) -> int:
        return len(self.elements)

    def verify_(self) -> None:
        buffer = buffer_of(self, self.buffer)
        _check_vector(self, buffer, self.width, self.align.value.data, self.volatile is not None)
        for result in self.elements:
            check_element(self, buffer, result.type, "result")

    def print(self, printer: Printer) -> None:
        _print_indexed(printer, self.buffer, self.index)
        printer.print_string(f" width {self.width} align {self.align.value.data}")
        _print_volatile(printer, self)
        _print_attributes_and_types(printer, self, [self.buffer.type])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        buffer, index = _parse_indexed(parser)
        parser.parse_keyword("width")
        width = parser.parse_integer()
        parser.parse_keyword("align")
        align = parser.parse_integer()
        volatile = _parse_volatile(parser)
        attrs, buffer_type = _parse_attributes_and_buffer_type(parser)
        op = cls.create(
            operands=[parser.resolve_operand(buffer, buffer_type), parser.resolve_operand(index, IndexType())],
            result_types=[buffer_type.element_type] * max(width, 0),
            properties={"align": IntegerAttr(align, i64), **volatile},
            attributes=attrs,
        )
        return op


@irdl_op_definition
class VectorStoreOp(IRDLOperation):
    """Stores its values at `buf[index]`, `buf[index + 1]`, ... in one access.

    kernel.vector_store %a, %b, %c, %d into %ys[%i] align 16 : !kernel.buffer<global, i32>
    kernel.vector_store %w0, %w1 into %status[%j] align 16 volatile : !kernel.buffer<global, i64>
    """

    name = "kernel.vector_store"

    elements = var_operand_def()
    buffer = operand_def(BufferType)
    index = operand_def(IndexType)
    align = prop_def(IntegerAttr[I64])
    volatile = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryWriteEffect(), HasAncestor(FuncOp))

    def __init__(
        self,
        values: Sequence[SSAValue | Operation],
        buffer: SSAValue | Operation,
        index: SSAValue | Operation,
        volatile: bool = False,
    ):
        buffer_type = SSAValue.get(buffer).type
        assert isinstance(buffer_type, BufferType)
        align = len(values) * (element_bytes(buffer_type.element_type) or 0)
        properties = {"align": IntegerAttr(align, i64), **_volatile_property(volatile)}
        super().__init__(operands=[list(values), buffer, index], properties=properties)

    @property
    def width(self) -> int:
        return len(self.elements)

    def verify_(self) -> None:
        buffer = buffer_of(self, self.buffer)
        _check_vector(self, buffer, self.width, self.align.value.data, self.volatile is not None)
        for value in self.elements:
            check_element(self, buffer, value.type, "value")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.elements, printer.print_operand)
        printer.print_string(" into")
        _print_indexed(printer, self.buffer, self.index)
        printer.print_string(f" align {self.align.value.data}")
        _print_volatile(printer, self)
        _print_attributes_and_types(printer, self, [self.buffer.type])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        values = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_keyword("into")
        buffer, index = _parse_indexed(parser)
        parser.parse_keyword("align")
        align = parser.parse_integer()
        volatile = _parse_volatile(parser)
        attrs, buffer_type = _parse_attributes_and_buffer_type(parser)
        return cls.create(
            operands=[
                *(parser.resolve_operand(v, buffer_type.element_type) for v in values),
                parser.resolve_operand(buffer, buffer_type),
                parser.resolve_operand(index, IndexType()),
            ],
            properties={"align": IntegerAttr(align, i64), **volatile},
            attributes=attrs,
        )


# ---------------------------------------------------------------------------
# Ordered loads and stores, fences
# ---------------------------------------------------------------------------


def _check_scope(op: Operation, buffer: BufferType | None, scope: MemoryScope) -> None:
    if buffer is not None and buffer.space_name == "local" and scope != MemoryScope.WORKGROUP:
        raise VerifyException(f"'{op.name}' on a local buffer needs scope workgroup (only its work-group sees it), got '{scope}'")


def _check_word(op: Operation, buffer: BufferType) -> None:
    if element_bytes(buffer.element_type) not in WORD_BYTES:
        raise VerifyException(f"'{op.name}' accesses 32- or 64-bit elements atomically, not {buffer.element_type}")


class _OrderedAccess(IRDLOperation):
    """A load or store of one element that other work-items may access at the same time."""

    ORDERS: ClassVar[tuple[MemoryOrder, ...]]

    def verify_ordered(self, buffer_value: SSAValue, order: MemoryOrder, scope: MemoryScope) -> BufferType:
        buffer = buffer_of(self, buffer_value)
        if order not in self.ORDERS:
            raise VerifyException(f"'{self.name}' order must be one of {', '.join(self.ORDERS)}, got '{order}'")
        _check_scope(self, buffer, scope)
        _check_word(self, buffer)
        return buffer

    @staticmethod
    def order_properties(order: str, scope: str) -> dict[str, Attribute]:
        return {"order": MemoryOrderAttr(MemoryOrder(order)), "scope": MemoryScopeAttr(MemoryScope(scope))}


@irdl_op_definition
class AtomicLoadOp(_OrderedAccess):
    """Reads one element atomically, with a memory order (`relaxed`, `acquire`) and scope.

    %w = kernel.atomic_load %status[%t] acquire device : !kernel.buffer<global, i64> -> i64
    """

    name = "kernel.atomic_load"
    ORDERS: ClassVar[tuple[MemoryOrder, ...]] = (MemoryOrder.RELAXED, MemoryOrder.ACQUIRE)

    buffer = operand_def(BufferType)
    index = operand_def(IndexType)
    order = prop_def(MemoryOrderAttr)
    scope = prop_def(MemoryScopeAttr)
    result = result_def()

    traits = traits_def(MemoryReadEffect(), HasAncestor(FuncOp))
    assembly_format = "$buffer `[` $index `]` $order $scope attr-dict `:` type($buffer) `->` type($result)"

    def __init__(self, buffer: SSAValue | Operation, index: SSAValue | Operation, order: str, scope: str = "device"):
        buffer_type = SSAValue.get(buffer).type
        assert isinstance(buffer_type, BufferType)
        super().__init__(
            operands=[buffer, index],
            result_types=[buffer_type.element_type],
            properties=self.order_properties(order, scope),
        )

    def verify_(self) -> None:
        buffer = self.verify_ordered(self.buffer, self.order.data, self.scope.data)
        check_element(self, buffer, self.result.type, "result")


@irdl_op_definition
class AtomicStoreOp(_OrderedAccess):
    """Writes one element atomically, with a memory order (`relaxed`, `release`) and scope.

    kernel.atomic_store %w, %status[%t] release device : i64, !kernel.buffer<global, i64>
    """

    name = "kernel.atomic_store"
    ORDERS: ClassVar[tuple[MemoryOrder, ...]] = (MemoryOrder.RELAXED, MemoryOrder.RELEASE)

    value = operand_def()
    buffer = operand_def(BufferType)
    index = operand_def(IndexType)
    order = prop_def(MemoryOrderAttr)
    scope = prop_def(MemoryScopeAttr)

    traits = traits_def(MemoryWriteEffect(), HasAncestor(FuncOp))
    assembly_format = "$value `,` $buffer `[` $index `]` $order $scope attr-dict `:` type($value) `,` type($buffer)"

    def __init__(
        self,
        value: SSAValue | Operation,
        buffer: SSAValue | Operation,
        index: SSAValue | Operation,
        order: str,
        scope: str = "device",
    ):
        super().__init__(operands=[value, buffer, index], properties=self.order_properties(order, scope))

    def verify_(self) -> None:
        buffer = self.verify_ordered(self.buffer, self.order.data, self.scope.data)
        check_element(self, buffer, self.value.type, "value")


FENCE_SPACES = (AddressSpace.LOCAL, AddressSpace.GLOBAL)


@irdl_op_definition
class FenceOp(IRDLOperation):
    """Orders the work-item's accesses to the named address spaces before it against those after it.

    kernel.fence local global scope workgroup
    """

    name = "kernel.fence"

    local_fence = opt_prop_def(UnitAttr)
    global_fence = opt_prop_def(UnitAttr)
    scope = prop_def(MemoryScopeAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), HasAncestor(FuncOp))
    assembly_format = "(`local` $local_fence^)? (`global` $global_fence^)? `scope` $scope attr-dict"

    def __init__(self, spaces: Sequence[str], scope: str):
        properties: dict[str, Attribute] = {f"{space}_fence": UnitAttr() for space in map(AddressSpace, spaces)}
        super().__init__(properties={**properties, "scope": MemoryScopeAttr(MemoryScope(scope))})

    @property
    def space_names(self) -> list[str]:
        """The address spaces fenced: `local` before `global`."""
        return [space for space in FENCE_SPACES if self.properties.get(f"{space}_fence") is not None]

    def verify_(self) -> None:
        if not self.space_names:
            raise VerifyException(f"'{self.name}' fences one or both of local, global; got neither")
        _check_scope(self, None, self.scope.data)


# ---------------------------------------------------------------------------
# Atomic read-modify-write
# ---------------------------------------------------------------------------


def _check_atomic_integer(op: Operation, buffer: BufferType) -> None:
    element = buffer.element_type
    if not isinstance(element, IntegerType) or element.width.data not in (32, 64):
        raise VerifyException(f"'{op.name}' works on i32 or i64 elements, not {element}")


@irdl_op_definition
class AtomicOp(IRDLOperation):
    """An atomic read-modify-write of one 32- or 64-bit integer element (global or local); gives the old value.
    `add` also takes f32 elements (where a device has no float atomics, a compare-and-swap loop on the bits).

    %old = kernel.atomic add %counter[%i], %one : !kernel.buffer<global, i32>, i32

    Atomics are relaxed; their scope is the device for global buffers, the work-group for local ones.
    """

    name = "kernel.atomic"

    T: ClassVar = VarConstraint("T", AnyAttr())

    kind = prop_def(AtomicKindAttr)
    buffer = operand_def(BufferType)
    index = operand_def(IndexType)
    value = operand_def(T)
    result = result_def(T)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), HasAncestor(FuncOp))
    assembly_format = "$kind $buffer `[` $index `]` `,` $value attr-dict `:` type($buffer) `,` type($value)"

    def __init__(self, kind: str, buffer: SSAValue | Operation, index: SSAValue | Operation, value: SSAValue | Operation):
        super().__init__(
            operands=[buffer, index, value],
            properties={"kind": AtomicKindAttr(AtomicKind(kind))},
            result_types=[SSAValue.get(value).type],
        )

    def verify_(self) -> None:
        buffer = buffer_of(self, self.buffer)
        if not (self.kind.data == AtomicKind.ADD and buffer.element_type == f32):
            _check_atomic_integer(self, buffer)
        check_element(self, buffer, self.value.type, "value")


def cmpxchg_bits(element: Attribute) -> IntegerType | None:
    """The integer type `kernel.atomic_cmpxchg` compares and swaps on `element`s (their bits for floats)."""
    if isinstance(element, IntegerType) and element.width.data in (32, 64):
        return element
    if isinstance(element, Float32Type | Float64Type):
        return IntegerType(element.bitwidth)
    return None


@irdl_op_definition
class AtomicCmpxchgOp(IRDLOperation):
    """Compare-and-swap: stores `new` if the element holds `expected`; gives the old value either way.
    On f32 and f64 elements the values are the elements' bits (i32, i64), compared as bits.

    %old = kernel.atomic_cmpxchg %slot[%i], %expected, %new : !kernel.buffer<global, i32>
    """

    name = "kernel.atomic_cmpxchg"

    buffer = operand_def(BufferType)
    index = operand_def(IndexType)
    expected = operand_def()
    new = operand_def()
    result = result_def()

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), HasAncestor(FuncOp))

    def __init__(
        self,
        buffer: SSAValue | Operation,
        index: SSAValue | Operation,
        expected: SSAValue | Operation,
        new: SSAValue | Operation,
    ):
        super().__init__(operands=[buffer, index, expected, new], result_types=[SSAValue.get(expected).type])

    def verify_(self) -> None:
        buffer = buffer_of(self, self.buffer)
        bits = cmpxchg_bits(buffer.element_type)
        if bits is None:
            raise VerifyException(f"'{self.name}' works on i32, i64, f32 or f64 elements, not {buffer.element_type}")
        for value, what in ((self.expected, "expected value"), (self.new, "new value"), (self.result, "result")):
            if bits == buffer.element_type:
                check_element(self, buffer, value.type, what)
            elif value.type != bits:
                raise VerifyException(
                    f"'{self.name}' {what} has type {value.type} but a buffer of {buffer.element_type} swaps {bits} bits"
                )

    def print(self, printer: Printer) -> None:
        _print_indexed(printer, self.buffer, self.index)
        printer.print_string(", ")
        printer.print_operand(self.expected)
        printer.print_string(", ")
        printer.print_operand(self.new)
        _print_attributes_and_types(printer, self, [self.buffer.type])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        buffer, index = _parse_indexed(parser)
        parser.parse_punctuation(",")
        expected = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        new = parser.parse_unresolved_operand()
        attrs, buffer_type = _parse_attributes_and_buffer_type(parser)
        element = cmpxchg_bits(buffer_type.element_type) or buffer_type.element_type
        op = cls(
            parser.resolve_operand(buffer, buffer_type),
            parser.resolve_operand(index, IndexType()),
            parser.resolve_operand(expected, element),
            parser.resolve_operand(new, element),
        )
        op.attributes |= attrs
        return op
