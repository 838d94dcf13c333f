"""The kernel dialect's type: `!kernel.buffer<space, element>`, and the checks ops share on it."""

from __future__ import annotations

from collections.abc import Sequence

from soac.lowering.kernel.attributes import AddressSpace, AddressSpaceAttr
from soac.messages import message_problem
from xdsl.dialects.builtin import IndexType, IntegerType, i64
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    irdl_attr_definition,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

ADDRESS_SPACES = tuple(space.value for space in AddressSpace)


@irdl_attr_definition
class BufferType(ParametrizedAttribute, TypeAttribute):
    """A flat array of scalars in an address space (`AddressSpace`): `!kernel.buffer<global, f32>`."""

    name = "kernel.buffer"

    space: AddressSpaceAttr
    element_type: Attribute

    def __init__(self, space: str, element_type: Attribute):
        super().__init__(AddressSpaceAttr(AddressSpace(space)), element_type)

    @property
    def space_name(self) -> str:
        return self.space.data.value

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        space = AddressSpaceAttr(AddressSpaceAttr.parse_parameter(parser))
        parser.parse_punctuation(",")
        element = parser.parse_type()
        parser.parse_punctuation(">")
        return (space, element)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.space_name}, ")
        printer.print_attribute(self.element_type)
        printer.print_string(">")


def global_buffer(element_type: Attribute) -> BufferType:
    return BufferType("global", element_type)


def buffer_of(op: Operation, value: SSAValue, space: str | None = None) -> BufferType:
    if not isinstance(value.type, BufferType):
        raise VerifyException(f"'{op.name}' expects a !kernel.buffer, got {value.type}")
    if space is not None and value.type.space_name != space:
        raise VerifyException(f"'{op.name}' expects a {space} buffer, got {value.type}")
    return value.type


def check_element(op: Operation, buffer: BufferType, value_type: Attribute, what: str) -> None:
    if value_type != buffer.element_type:
        raise VerifyException(f"'{op.name}' {what} has type {value_type} but the buffer holds {buffer.element_type}")


ERROR_VALUES = 8
"""The most values a failing `kernel.device_assert` records (slots 1... of the error buffer)."""

ERROR_SLOTS = 1 + ERROR_VALUES
"""The size of a call's error buffer in i64 elements: the failure code, then its values."""


def error_buffer_type() -> BufferType:
    return global_buffer(i64)


def check_message(op: Operation, message: str, count: int) -> None:
    if (problem := message_problem(message, count)) is not None:
        raise VerifyException(f"'{op.name}' message {message!r}: {problem}")


def check_values(op: Operation, values: Sequence[SSAValue]) -> None:
    for value in values:
        if not isinstance(value.type, IndexType | IntegerType):
            raise VerifyException(f"'{op.name}' reports integer or index values, not {value.type}")


def print_values(printer: Printer, values: Sequence[SSAValue]) -> None:
    if not values:
        return
    printer.print_string(" (")
    printer.print_list(values, printer.print_operand)
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


def parse_values(parser: Parser) -> list[SSAValue]:
    if parser.parse_optional_punctuation("(") is None:
        return []
    pos = parser.pos
    unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return parser.resolve_operands(unresolved, types, pos)
