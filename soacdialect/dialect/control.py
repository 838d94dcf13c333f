"""Ops that steer a run rather than compute arrays: thresholds between versions and kept checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from soac.dialect.attributes import OnDevice
from soac.dialect.base import Canonicalization
from soac.messages import message_problem
from soac.syntax import parse_index_operand, with_parsed_attributes
from soac.types import is_integer_like
from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, StringAttr, i1, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class ThresholdOp(IRDLOperation):
    """`Par >= t_name`: true when the parallelism `par` reaches the tunable threshold `name`.

    Used by `scf.if` to choose between versions of a flattened nest. The
    threshold takes `default` unless a tuning file or option sets it; with
    `device "resident"` or `device "group"` (`OnDevice`), the OpenCL runtime
    computes the default from the device instead (the interpreter keeps `default`).

        %big = soac.threshold "suff_outer_par_0" %par default 32768 device "resident"
    """

    name = "soac.threshold"

    par = operand_def(IndexType)
    threshold = prop_def(StringAttr)
    default = prop_def(IntegerAttr[I64])
    on_device = opt_prop_def(StringAttr)
    result = result_def(i1)

    traits = traits_def(Pure())

    def __init__(self, threshold: str, par: SSAValue | Operation, default: int, on_device: OnDevice | None = None):
        properties: dict[str, Attribute] = {"threshold": StringAttr(threshold), "default": IntegerAttr(default, i64)}
        if on_device is not None:
            properties["on_device"] = StringAttr(on_device.value)
        super().__init__(operands=[par], result_types=[i1], properties=properties)

    @property
    def threshold_name(self) -> str:
        return self.threshold.data

    @property
    def default_value(self) -> int:
        return self.default.value.data

    @property
    def device_default(self) -> OnDevice | None:
        return None if self.on_device is None else OnDevice(self.on_device.data)

    def verify_(self) -> None:
        verify_on_device(self, self.on_device)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.threshold_name)
        printer.print_string(" ")
        printer.print_operand(self.par)
        printer.print_string(f" default {self.default_value}")
        print_on_device(printer, self.on_device)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        name = parser.parse_str_literal()
        par = parse_index_operand(parser)
        parser.parse_keyword("default")
        default = parser.parse_integer()
        op = cls(name, par, default, parse_on_device(parser))
        return with_parsed_attributes(parser, op)


def verify_on_device(op: Operation, on_device: StringAttr | None) -> None:
    known = [kind.value for kind in OnDevice]
    if on_device is not None and on_device.data not in known:
        raise VerifyException(f"'{op.name}': device default {on_device.data!r} is none of {', '.join(known)}")


def print_on_device(printer: Printer, on_device: StringAttr | None) -> None:
    if on_device is not None:
        printer.print_string(" device ")
        printer.print_string_literal(on_device.data)


def parse_on_device(parser: Parser) -> OnDevice | None:
    """`device "resident"` after a threshold's default, if there."""
    if parser.parse_optional_keyword("device") is None:
        return None
    position = parser.pos
    text = parser.parse_str_literal()
    if text not in {kind.value for kind in OnDevice}:
        known = ", ".join(f'"{kind.value}"' for kind in OnDevice)
        parser.raise_error(f"expected a device default ({known}), got {text!r}", position, parser.pos)
    return OnDevice(text)


@irdl_op_definition
class AssertOp(IRDLOperation):
    """Fails the run with `message` unless `%ok`; `{k}` in the message stands for the k-th value.

    The check of an op that a pass removed, kept as an op of its own: `soac-flatten` keeps a map's check that
    its inputs have as many rows as its width. The message names the op whose check it is, the op carries
    its location:

        %same = arith.cmpi eq, %n, %rows : index
        soac.assert %same, "'soac.map': width {0} does not match the outer size {1} of input #1" (%n, %rows : index, index)

    Inside a lambda it checks every lane (and reports the first that fails).
    """

    name = "soac.assert"

    ok = operand_def(i1)
    values = var_operand_def()
    message = prop_def(StringAttr)

    traits = traits_def(Canonicalization(("DropAlwaysTrueAssert",)))

    def __init__(self, ok: SSAValue | Operation, message: str, values: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[ok, values], properties={"message": StringAttr(message)})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.ok)
        printer.print_string(", ")
        printer.print_string_literal(self.message.data)
        if self.values:
            printer.print_string(" (")
            printer.print_list(self.values, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list(self.values.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        ok = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        parser.parse_punctuation(",")
        message = parser.parse_str_literal()
        values: list[SSAValue] = []
        if parser.parse_optional_punctuation("(") is not None:
            pos = parser.pos
            unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            values = parser.resolve_operands(unresolved, types, pos)
        return with_parsed_attributes(parser, cls(ok, message, values))

    def verify_(self) -> None:
        for value in self.values:
            if not is_integer_like(value.type):
                raise VerifyException(f"'{self.name}' reports integer or index values, not {value.type}")
        if (problem := message_problem(self.message.data, len(self.values))) is not None:
            raise VerifyException(f"'{self.name}' message {self.message.data!r}: {problem}")
