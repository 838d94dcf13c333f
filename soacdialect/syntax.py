"""Pieces of custom syntax shared by the soac ops.

%r = soac.map %n (%xs, %ys : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
  ...
}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from typing_extensions import TypeVar
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

OpT = TypeVar("OpT", bound=Operation)


def print_operand_list(printer: Printer, values: Sequence[SSAValue]) -> None:
    """`(%a, %b : T1, T2)`, or `()` when empty."""
    printer.print_string("(")
    printer.print_list(values, printer.print_operand)
    if values:
        printer.print_string(" : ")
        printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


def parse_operand_list(parser: Parser) -> list[SSAValue]:
    """Parse `(%a, %b : T1, T2)` or `()`."""
    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")") is not None:
        return []
    pos = parser.pos
    unresolved: list[UnresolvedOperand] = parser.parse_comma_separated_list(
        parser.Delimiter.NONE, parser.parse_unresolved_operand
    )
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return parser.resolve_operands(unresolved, types, pos)


def with_parsed_attributes(parser: Parser, op: OpT) -> OpT:
    """Add the `attributes {...}` that may follow an op's custom syntax to `op`, and return it."""
    if (attrs := parser.parse_optional_attr_dict_with_keyword()) is not None:
        op.attributes |= attrs.data
    return op


def parse_index_operand(parser: Parser) -> SSAValue:
    """Parse an operand whose type is `index` (widths, sizes)."""
    return parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())


def print_untyped_operand_list(printer: Printer, values: Sequence[SSAValue]) -> None:
    """`(%a, %b)` for operands whose type is fixed (index)."""
    printer.print_string("(")
    printer.print_list(values, printer.print_operand)
    printer.print_string(")")


def parse_untyped_operand_list(parser: Parser, of_type: Attribute) -> list[SSAValue]:
    unresolved = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
    return [parser.resolve_operand(u, of_type) for u in unresolved]


def print_result_types(printer: Printer, types: Sequence[Attribute]) -> None:
    """` -> T` for one result, ` -> (T1, T2)` otherwise."""
    printer.print_string(" -> ")
    if len(types) == 1:
        printer.print_attribute(types[0])
        return
    printer.print_string("(")
    printer.print_list(types, printer.print_attribute)
    printer.print_string(")")


def parse_result_types(parser: Parser) -> list[Attribute]:
    parser.parse_punctuation("->")
    if parser.parse_optional_punctuation("(") is None:
        return [parser.parse_type()]
    if parser.parse_optional_punctuation(")") is not None:
        return []
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return types


def print_lambda(printer: Printer, keyword: str, region: Region) -> None:
    """` keyword(%x: f32, %y: f32) { ... }`."""
    printer.print_string(f" {keyword}(")
    if region.blocks:
        printer.print_list(region.block.args, printer.print_block_argument)
    printer.print_string(") ")
    printer.print_region(region, print_entry_block_args=False)


def parse_lambda_parameter(parser: Parser) -> Parser.Argument:
    """`%x: f32`, optionally followed by a location (as `--print-debuginfo` prints it)."""
    arg = parser.parse_argument()
    if (location := parser.parse_optional_location()) is not None:
        arg = dataclasses.replace(arg, location=location)
    return arg


def parse_lambda(parser: Parser, keyword: str) -> Region:
    parser.parse_keyword(keyword)
    args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parse_lambda_parameter(parser))
    return parser.parse_region(args)


def parse_optional_lambda(parser: Parser, keyword: str) -> Region | None:
    if parser.parse_optional_keyword(keyword) is None:
        return None
    args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parse_lambda_parameter(parser))
    return parser.parse_region(args)
