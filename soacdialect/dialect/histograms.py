"""The histograms: `soac.hist` (Futhark's `reduce_by_index`) and `soac.seghist` (one histogram per segment, what
`soac-flatten` makes of `map (hist ...)`), on one base that holds their destinations, operator, checks and syntax.

    %h = soac.hist %n (%is : tensor<?xindex>) into(%bins : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32>
        combine(%a: f32, %b: f32) { ... } lambda(%i: index) { ... }
    %g = soac.seghist thread (%n, %m) into(%bins : tensor<?x?xi32>) neutral(%z : i32) -> tensor<?x?xi32>
        combine(%a: i32, %b: i32) { ... } lambda(%i: index, %j: index) { ... }

Each is written `<space> into(<dests>) neutral(<ne>) -> <types> combine(...) {...} lambda(...) {...}`, where the
space is `%n (%inputs)` for a hist and `<level> (%dims)` for a seghist.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from soac.dialect.attributes import Level, LevelAttr
from soac.dialect.base import YieldOp
from soac.dialect.consumption import check_consumed
from soac.dialect.lambdas import check_operator, check_params, check_results, input_rows, yielded_types
from soac.dialect.segmented import parse_level
from soac.dialect.sizes import Extent, ResultDimsInterface, dims_of, row_parameter_dims
from soac.syntax import (
    parse_index_operand,
    parse_lambda,
    parse_operand_list,
    parse_result_types,
    parse_untyped_operand_list,
    print_lambda,
    print_operand_list,
    print_result_types,
    print_untyped_operand_list,
    with_parsed_attributes,
)
from soac.types import all_compatible, format_types, is_integer_like, peel
from xdsl.dialects.builtin import DenseArrayBase, IndexType, TensorType, i32
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException


class HistogramOp(IRDLOperation, ResultDimsInterface):
    """What `soac.hist` and `soac.seghist` share: destinations they consume and give back as results, one neutral
    element and one operator over the elements of all destinations together (associative and commutative: the
    program's promise), and a lambda that yields an integer position and a value per destination.

    A subclass declares the operands before the destinations (its space) and says how they read: `_check_space`,
    `_check_destinations`, `bin_types`, `lambda_parameters`, `_print_space` and `_parse_space`.
    """

    POSITION: ClassVar[str] = "index"
    """What the lambda's first yield is: the `index` of a hist's bin, the `bin` of a seghist's row."""

    dests = var_operand_def(TensorType)
    neutral = var_operand_def()
    outs = var_result_def(TensorType)
    combine = region_def("single_block")
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def bin_types(self) -> list[Attribute]:
        """The type of one bin of each destination (a scalar, or a row for a hist of rows)."""
        raise NotImplementedError

    def lambda_parameters(self) -> tuple[list[Attribute], str]:
        """The lambda's parameter types, and what they are (for the verifier's message)."""
        raise NotImplementedError

    def _check_space(self) -> None:
        """Check the operands before the destinations."""

    def _check_destinations(self, dest_types: Sequence[Attribute]) -> None:
        raise NotImplementedError


    def result_dims(self, index: int) -> list[Extent]:
        return dims_of(self.dests[index])

    def operator_parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        """A parameter of the operator has its neutral element's sizes."""
        if parameter.block.parent is not self.combine:
            return None
        return dims_of(self.neutral[parameter.index % len(self.neutral)])

    def verify_(self) -> None:
        self._check_space()
        dest_types = [d.type for d in self.dests]
        if not dest_types:
            raise VerifyException(f"'{self.name}' needs at least one destination")
        self._check_destinations(dest_types)
        ne_types = check_operator(self, self.combine, self.neutral)
        bins = self.bin_types()
        if not all_compatible(ne_types, bins):
            raise VerifyException(
                f"'{self.name}' neutral elements {format_types(ne_types)} do not match the destinations' {format_types(bins)}"
            )
        check_params(self, self.body, "lambda", *self.lambda_parameters())
        self._check_yields(bins, dest_types)

    def _check_yields(self, bins: Sequence[Attribute], dest_types: Sequence[Attribute]) -> None:
        """The lambda yields an integer position and a value per destination; the results are the destinations,
        which the op consumes."""
        yielded = yielded_types(self, self.body, "lambda")
        k = len(bins)
        if len(yielded) != 1 + k or not is_integer_like(yielded[0]):
            raise VerifyException(
                f"'{self.name}' lambda yields {format_types(yielded)}, expected an integer {self.POSITION} and a value for "
                f"each of its {k} destination{'' if k == 1 else 's'} {format_types(bins)}"
            )
        if not all_compatible(yielded[1:], bins):
            raise VerifyException(
                f"'{self.name}' lambda yields values {format_types(yielded[1:])} but the destinations hold {format_types(bins)}"
            )
        check_results(self, self.outs.types, dest_types, "its destinations")
        for dest in self.dests:
            check_consumed(self, dest)

    def _print_space(self, printer: Printer) -> None:
        raise NotImplementedError

    @classmethod
    def _parse_space(cls, parser: Parser) -> tuple[list[list[SSAValue]], dict[str, Attribute]]:
        """The operand groups before the destinations, and the properties they set."""
        raise NotImplementedError

    def print(self, printer: Printer) -> None:
        self._print_space(printer)
        printer.print_string(" into")
        print_operand_list(printer, self.dests)
        printer.print_string(" neutral")
        print_operand_list(printer, self.neutral)
        print_result_types(printer, self.outs.types)
        print_lambda(printer, "combine", self.combine)
        print_lambda(printer, "lambda", self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        space, properties = cls._parse_space(parser)
        parser.parse_keyword("into")
        dests = parse_operand_list(parser)
        parser.parse_keyword("neutral")
        neutral = parse_operand_list(parser)
        result_types = parse_result_types(parser)
        combine = parse_lambda(parser, "combine")
        body = parse_lambda(parser, "lambda")
        groups = [*space, dests, neutral]
        op = cls.create(
            operands=[value for group in groups for value in group],
            result_types=result_types,
            properties={**properties, "operandSegmentSizes": DenseArrayBase.from_list(i32, [len(g) for g in groups])},
            regions=[combine, body],
        )
        return with_parsed_attributes(parser, op)


@irdl_op_definition
class HistOp(HistogramOp):
    """The generalised histogram (Futhark's `reduce_by_index`, Accelerate's `permute` with a combining function).

    The lambda yields one index, then one value per destination, for every row of the inputs;
    `dest_j[index] = combine(dest_j[index], value_j)`, for all destinations together (the operator takes the
    elements of every destination, `(a_1..a_k, b_1..b_k) -> (c_1..c_k)`, so that a pair such as (max, argmax)
    is one operator). Rows whose index is outside the destinations are skipped. The operator must be associative
    and commutative with the given neutral elements (as in Futhark, this is the program's promise, not checked):
    the rows of one bin are combined in no particular order. The destinations are consumed.

    A bin may be a row (a destination `tensor<?x?xT>`, Futhark's `reduce_by_index` with array elements): the
    neutral element, the values and the operator's parameters are then rows. The lowering needs such an operator
    to be element-wise (a map of a scalar operator over its rows, `soac-hist-rows`).

        %h = soac.hist %n (%is, %ws : tensor<?xindex>, tensor<?xf32>) into(%bins : tensor<?xf32>) neutral(%z : f32)
            -> tensor<?xf32> combine(%a: f32, %b: f32) { ... } lambda(%i: index, %w: f32) { soac.yield %i, %w : index, f32 }
    """

    name = "soac.hist"
    POSITION: ClassVar[str] = "index"

    width = operand_def(IndexType)
    inputs = var_operand_def(TensorType)

    def __init__(
        self,
        width: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        dests: Sequence[SSAValue | Operation],
        neutral: Sequence[SSAValue | Operation],
        combine: Region,
        body: Region,
    ):
        super().__init__(
            operands=[width, inputs, dests, neutral],
            result_types=[[SSAValue.get(d).type for d in dests]],
            regions=[combine, body],
        )


    def parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        return row_parameter_dims(self.inputs, self.body, parameter)

    def bin_types(self) -> list[Attribute]:
        return input_rows(self, self.dests, "destination")

    def lambda_parameters(self) -> tuple[list[Attribute], str]:
        return input_rows(self, self.inputs), "the input rows"

    def _check_destinations(self, dest_types: Sequence[Attribute]) -> None:
        for t in dest_types:
            if not isinstance(t, TensorType) or t.get_num_dims() < 1:
                raise VerifyException(f"'{self.name}' destinations must be arrays (of scalars or of rows), got {t}")
        if len({t.get_shape()[0] for t in dest_types if isinstance(t, TensorType)}) > 1:
            raise VerifyException(f"'{self.name}' destinations must have one number of bins, got {format_types(dest_types)}")

    def _print_space(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.width)
        printer.print_string(" ")
        print_operand_list(printer, self.inputs)

    @classmethod
    def _parse_space(cls, parser: Parser) -> tuple[list[list[SSAValue]], dict[str, Attribute]]:
        width = parse_index_operand(parser)
        return [[width], parse_operand_list(parser)], {}


@irdl_op_definition
class SeghistOp(HistogramOp):
    """A segmented histogram (what `soac-flatten` makes of `map (hist ...)`): one histogram per segment.

    The index space `d0 x ... x dk` is segments `d0 x ... x d(k-1)` of `dk` rows. The lambda gets the indices and
    yields a bin and one value per destination; each destination holds a row of bins per segment (shape
    `d0 x ... x d(k-1) x bins`), and `dest_j[i0, ..., i(k-1), bin] = combine(dest_j[i0, ..., i(k-1), bin], value_j)`
    for every point whose bin is inside the row, as `soac.hist` does in each segment. The operator takes the
    elements of all destinations together, is associative and commutative (the program's promise), and the
    destinations are consumed.

        %h = soac.seghist thread (%n, %m) into(%bins : tensor<?x?xi32>) neutral(%z : i32) -> tensor<?x?xi32>
            combine(%a: i32, %b: i32) { ... } lambda(%i: index, %j: index) { ... soac.yield %bin, %v : index, i32 }
    """

    name = "soac.seghist"
    POSITION: ClassVar[str] = "bin"

    level = prop_def(LevelAttr)
    dims = var_operand_def(IndexType)

    def __init__(
        self,
        level: Level,
        dims: Sequence[SSAValue | Operation],
        dests: Sequence[SSAValue | Operation],
        neutral: Sequence[SSAValue | Operation],
        combine: Region,
        body: Region,
    ):
        super().__init__(
            operands=[dims, dests, neutral],
            result_types=[[SSAValue.get(d).type for d in dests]],
            properties={"level": LevelAttr(level)},
            regions=[combine, body],
        )

    def bin_types(self) -> list[Attribute]:
        return [peel(d.type, len(self.dims)) for d in self.dests]  # pyright: ignore[reportReturnType]

    def lambda_parameters(self) -> tuple[list[Attribute], str]:
        return [IndexType()] * len(self.dims), "the index space"

    def _check_space(self) -> None:
        if not self.dims:
            raise VerifyException(f"'{self.name}' needs at least one dimension")

    def _check_destinations(self, dest_types: Sequence[Attribute]) -> None:
        rank = len(self.dims)
        for t in dest_types:
            if not isinstance(t, TensorType) or t.get_num_dims() != rank:
                raise VerifyException(
                    f"'{self.name}' destinations must be {rank}-D tensors of scalars (a row of bins for each of the "
                    f"{rank - 1}-D segments), got {t}"
                )
        shapes = [t.get_shape() for t in dest_types if isinstance(t, TensorType)]
        if any(len({size for size in sizes if size >= 0}) > 1 for sizes in zip(*shapes)):
            raise VerifyException(f"'{self.name}' destinations must have one shape, got {format_types(dest_types)}")

    def _print_space(self, printer: Printer) -> None:
        printer.print_string(f" {self.level.data.value} ")
        print_untyped_operand_list(printer, self.dims)

    @classmethod
    def _parse_space(cls, parser: Parser) -> tuple[list[list[SSAValue]], dict[str, Attribute]]:
        level = parse_level(parser)
        return [parse_untyped_operand_list(parser, IndexType())], {"level": LevelAttr(level)}
