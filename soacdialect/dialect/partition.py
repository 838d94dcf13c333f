"""`soac.partition`: the stable multi-way partition of rows by the bucket a lambda gives each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from soac.dialect.base import YieldOp
from soac.dialect.lambdas import check_params, check_results, input_rows, yielded_types
from soac.dialect.sizes import Extent, ResultDimsInterface, row_parameter_dims
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
from soac.types import array_of, format_types, is_integer_like
from xdsl.dialects.builtin import DYNAMIC_INDEX, I64, DenseArrayBase, IndexType, IntegerAttr, TensorType, i32, i64
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

PARTITION_MAX_BUCKETS = 1 << 16
"""The most buckets a `soac.partition` may have (its counters live in a work-group's local memory)."""


@irdl_op_definition
class PartitionOp(ResultDimsInterface, IRDLOperation):
    """The stable multi-way partition (the ranking primitive of radix sort, filter and Futhark's `partition`).

    For every row of the inputs the lambda yields a bucket (an integer) and the values to move. The results are the
    bucket counts (`counts[b]`: rows whose bucket is `b`, for the `buckets` buckets `0 <= b < k`, as i32) and the
    values, ordered by bucket and, within a bucket, by row (stable): a row of bucket `b` lands at
    `sum(counts[:b])` plus its rank among the earlier rows of bucket `b`. Rows whose bucket lies outside `[0, k)`
    come last, in their order (they are kept, so every result is a permutation of the values: a filter keeps the
    first `counts[0]`). `k` is static.

    `counts(%known : tensor<?xi32>)` gives the bucket counts ahead (a radix sort computes the histograms of all its
    digit places in one pass): the program's promise, checked by the interpreter, that lets a device rank each tile
    in one pass with decoupled look-back (Onesweep) instead of counting the rows first.

        %counts, %ys = soac.partition %n buckets 256 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
            lambda(%x: i32) {
          %d = arith.andi %x, %c255 : i32
          %b = arith.index_cast %d : i32 to index
          soac.yield %b, %x : index, i32
        }
    """

    name = "soac.partition"

    width = operand_def(IndexType)
    inputs = var_operand_def(TensorType)
    known = opt_operand_def(TensorType)
    buckets = prop_def(IntegerAttr[I64])
    counts = result_def(TensorType)
    outs = var_result_def(TensorType)
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def __init__(
        self,
        width: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        buckets: int,
        result_types: Sequence[Attribute],
        body: Region,
        known: SSAValue | Operation | None = None,
    ):
        super().__init__(
            operands=[width, inputs, [known] if known is not None else []],
            properties={"buckets": IntegerAttr(buckets, i64)},
            result_types=[TensorType(i32, [DYNAMIC_INDEX]), result_types],
            regions=[body],
        )

    @property
    def bucket_count(self) -> int:
        return self.buckets.value.data

    def result_dims(self, index: int) -> list[Extent]:
        return [self.bucket_count] if index == 0 else [self.width]

    def parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        return row_parameter_dims(self.inputs, self.body, parameter)

    def verify_(self) -> None:
        k = self.bucket_count
        if not 1 <= k <= PARTITION_MAX_BUCKETS:
            raise VerifyException(f"'{self.name}' needs between 1 and {PARTITION_MAX_BUCKETS} buckets, got {k}")
        if self.counts.type != TensorType(i32, [DYNAMIC_INDEX]):
            raise VerifyException(f"'{self.name}' gives its bucket counts as tensor<?xi32>, not {self.counts.type}")
        if self.known is not None and self.known.type != TensorType(i32, [DYNAMIC_INDEX]):
            raise VerifyException(f"'{self.name}' takes known bucket counts as tensor<?xi32>, not {self.known.type}")
        check_params(self, self.body, "lambda", input_rows(self, self.inputs), "the input rows")
        yielded = yielded_types(self, self.body, "lambda")
        if not yielded or not is_integer_like(yielded[0]):
            raise VerifyException(
                f"'{self.name}' lambda yields {format_types(yielded)}, expected an integer bucket first, then the values to move"
            )
        if len(yielded) < 2:
            raise VerifyException(f"'{self.name}' lambda yields only a bucket: it must yield at least one value to move")
        values = yielded[1:]
        if any(isinstance(t, TensorType) for t in values):
            raise VerifyException(
                f"'{self.name}' moves scalars, but its lambda yields {format_types(values)}: partition the row "
                "indices (an iota) and gather the rows"
            )
        check_results(self, self.outs.types, [array_of(t) for t in values])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.width)
        printer.print_string(f" buckets {self.bucket_count} ")
        if self.known is not None:
            printer.print_string("counts")
            print_operand_list(printer, [self.known])
            printer.print_string(" ")
        print_operand_list(printer, self.inputs)
        print_result_types(printer, [self.counts.type, *self.outs.types])
        print_lambda(printer, "lambda", self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        width = parse_index_operand(parser)
        parser.parse_keyword("buckets")
        buckets = parser.parse_integer(allow_boolean=False, allow_negative=True)
        known = parse_operand_list(parser) if parser.parse_optional_keyword("counts") is not None else []
        inputs = parse_operand_list(parser)
        result_types = parse_result_types(parser)
        body = parse_lambda(parser, "lambda")
        op = cls.create(
            operands=[width, *inputs, *known],
            result_types=result_types,
            properties={
                "buckets": IntegerAttr(buckets, i64),
                "operandSegmentSizes": DenseArrayBase.from_list(i32, [1, len(inputs), len(known)]),
            },
            regions=[body],
        )
        return with_parsed_attributes(parser, op)
