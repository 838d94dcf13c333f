"""`soac.scatter`: writes the values a lambda computes into consumed destination arrays."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from soac.dialect.base import YieldOp
from soac.dialect.consumption import check_consumed
from soac.dialect.lambdas import check_params, check_results, input_rows, yielded_types
from soac.dialect.sizes import Extent, ResultDimsInterface, dims_of, row_parameter_dims
from soac.syntax import (
    parse_index_operand,
    parse_lambda,
    parse_operand_list,
    parse_result_types,
    print_lambda,
    print_operand_list,
    print_result_types,
    with_parsed_attributes,
)
from soac.types import all_compatible, format_types, is_integer_like
from xdsl.dialects.builtin import DenseArrayBase, IndexType, TensorType, i32
from xdsl.ir import BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException


def print_width_inputs_into(printer: Printer, width: SSAValue, inputs: Sequence[SSAValue], dests: Sequence[SSAValue]) -> None:
    """` %n (%xs : T) into(%dests : D)`, the head of scatter and hist."""
    printer.print_string(" ")
    printer.print_operand(width)
    printer.print_string(" ")
    print_operand_list(printer, inputs)
    printer.print_string(" into")
    print_operand_list(printer, dests)


def parse_width_inputs_into(parser: Parser) -> tuple[SSAValue, list[SSAValue], list[SSAValue]]:
    width = parse_index_operand(parser)
    inputs = parse_operand_list(parser)
    parser.parse_keyword("into")
    return width, inputs, parse_operand_list(parser)


@irdl_op_definition
class ScatterOp(IRDLOperation, ResultDimsInterface):
    """`scatter dests (map f xs)`: writes values into consumed destination arrays.

    The lambda yields one index per destination, then one value per
    destination: `dest_j[index_j] = value_j` for every row of the inputs whose
    index is in bounds. A row with an index outside the destination (such as
    -1) writes nothing there, as Futhark's partial scatter; when two rows
    write one place, which one wins is unspecified on a GPU (the interpreter
    keeps the later).

        %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%dest : tensor<?xf32>)
            -> tensor<?xf32> lambda(%i: index, %v: f32) { soac.yield %i, %v : index, f32 }
    """

    name = "soac.scatter"

    width = operand_def(IndexType)
    inputs = var_operand_def(TensorType)
    dests = var_operand_def(TensorType)
    outs = var_result_def(TensorType)
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def __init__(
        self,
        width: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        dests: Sequence[SSAValue | Operation],
        body: Region,
    ):
        super().__init__(
            operands=[width, inputs, dests],
            result_types=[[SSAValue.get(d).type for d in dests]],
            regions=[body],
        )


    def result_dims(self, index: int) -> list[Extent]:
        return dims_of(self.dests[index])

    def parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        return row_parameter_dims(self.inputs, self.body, parameter)

    def verify_(self) -> None:
        check_params(self, self.body, "lambda", input_rows(self, self.inputs), "the input rows")
        dest_rows = input_rows(self, self.dests, "destination")
        yielded = yielded_types(self, self.body, "lambda")
        k = len(dest_rows)
        if len(yielded) != 2 * k:
            raise VerifyException(
                f"'{self.name}' lambda yields {len(yielded)} value{'' if len(yielded) == 1 else 's'}, expected {2 * k}: "
                f"an index and a value for each of its {k} destinations"
            )
        if not all(is_integer_like(t) for t in yielded[:k]):
            raise VerifyException(f"'{self.name}' lambda must yield integer indices first, got {format_types(yielded[:k])}")
        if not all_compatible(yielded[k:], dest_rows):
            raise VerifyException(
                f"'{self.name}' lambda yields values {format_types(yielded[k:])} but the destinations "
                f"hold {format_types(dest_rows)}"
            )
        check_results(self, self.outs.types, [d.type for d in self.dests], "its destinations")
        for dest in self.dests:
            check_consumed(self, dest)

    def print(self, printer: Printer) -> None:
        print_width_inputs_into(printer, self.width, self.inputs, self.dests)
        print_result_types(printer, self.outs.types)
        print_lambda(printer, "lambda", self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        width, inputs, dests = parse_width_inputs_into(parser)
        result_types = parse_result_types(parser)
        body = parse_lambda(parser, "lambda")
        op = cls.create(
            operands=[width, *inputs, *dests],
            result_types=result_types,
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, len(inputs), len(dests)])},
            regions=[body],
        )
        return with_parsed_attributes(parser, op)
