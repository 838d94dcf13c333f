"""The segmented ops that flattening produces: segmap, segred and segscan over an index space."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from soac.dialect.attributes import Level, LevelAttr
from soac.dialect.base import YieldOp
from soac.dialect.lambdas import check_operator, check_params, check_reduce_lambda, check_results, yielded_types
from soac.dialect.sizes import Extent, ResultDimsInterface, dims_of, yielded
from soac.syntax import (
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
from soac.types import array_of_rank
from xdsl.dialects.builtin import DenseArrayBase, IndexType, TensorType, i32
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
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


def parse_level(parser: Parser) -> Level:
    """`thread` or `group`, the level of a segmented op."""
    level_pos = parser.pos
    level_name = parser.parse_identifier()
    if level_name not in {lvl.value for lvl in Level}:
        parser.raise_error(f"expected level 'thread' or 'group', got '{level_name}'", level_pos, level_pos + len(level_name))
    return Level(level_name)


class _SegOp(IRDLOperation, ResultDimsInterface):
    """Shared syntax of segmap, segred and segscan."""

    level = prop_def(LevelAttr)
    dims = var_operand_def(IndexType)
    outs = var_result_def(TensorType)
    body = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def _check_index_lambda(self) -> list[Attribute]:
        if not self.dims:
            raise VerifyException(f"'{self.name}' needs at least one dimension")
        check_params(self, self.body, "lambda", [IndexType()] * len(self.dims), "the index space")
        return yielded_types(self, self.body, "lambda")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.level.data.value} ")
        print_untyped_operand_list(printer, self.dims)
        if isinstance(self, _SegCombiningOp):
            printer.print_string(" neutral")
            print_operand_list(printer, self.neutral)
        print_result_types(printer, self.outs.types)
        if isinstance(self, _SegCombiningOp):
            print_lambda(printer, "combine", self.combine)
        print_lambda(printer, "lambda", self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        level = parse_level(parser)
        combining = issubclass(cls, _SegCombiningOp)
        if combining:
            level = Level.THREAD  # `group` was a strategy of segred and segscan; see `Level`
        dims = parse_untyped_operand_list(parser, IndexType())
        neutral: list[SSAValue] = []
        if combining:
            parser.parse_keyword("neutral")
            neutral = parse_operand_list(parser)
        result_types = parse_result_types(parser)
        regions = [parse_lambda(parser, "combine")] if combining else []
        body = parse_lambda(parser, "lambda")
        properties: dict[str, Attribute] = {"level": LevelAttr(level)}
        if combining:
            properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [len(dims), len(neutral)])
        op = cls.create(
            operands=[*dims, *neutral],
            result_types=result_types,
            properties=properties,
            regions=[*regions, body],
        )
        return with_parsed_attributes(parser, op)


@irdl_op_definition
class SegmapOp(_SegOp):
    """A flat parallel map over the index space `d0 x ... x dk`.

    The lambda receives the indices and reads arrays by indexing; each yielded
    value becomes an array of shape `d0 x ... x dk`.

        %r = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) { ... }
    """

    name = "soac.segmap"

    def __init__(self, level: Level, dims: Sequence[SSAValue | Operation], result_types: Sequence[Attribute], body: Region):
        super().__init__(operands=[dims], result_types=[result_types], properties={"level": LevelAttr(level)}, regions=[body])


    def result_dims(self, index: int) -> list[Extent]:
        return [*self.dims, *dims_of(yielded(self.body, index))]

    def verify_(self) -> None:
        yielded = self._check_index_lambda()
        check_results(self, self.outs.types, [array_of_rank(t, len(self.dims)) for t in yielded])


class _SegCombiningOp(_SegOp):
    dims = var_operand_def(IndexType)
    neutral = var_operand_def()
    outs = var_result_def()  # a one-dimensional segred gives scalars
    combine = region_def("single_block")
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    SCANNED_DIMS: ClassVar[int] = 0

    def __init__(
        self,
        level: Level,
        dims: Sequence[SSAValue | Operation],
        neutral: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        body: Region,
        combine: Region,
    ):
        super().__init__(
            operands=[dims, neutral],
            result_types=[result_types],
            properties={"level": LevelAttr(level)},
            regions=[combine, body],
        )


    def result_dims(self, index: int) -> list[Extent]:
        """The index space (less its innermost dimension for a segred's reduced results), then the rows yielded."""
        space: list[Extent] = list(self.dims)
        if index < len(self.neutral) and not self.SCANNED_DIMS:
            space.pop()
        return [*space, *dims_of(yielded(self.body, index))]

    def operator_parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        if parameter.block.parent is not self.combine:
            return None
        return dims_of(self.neutral[parameter.index % len(self.neutral)])

    def verify_(self) -> None:
        if self.level.data != Level.THREAD:
            raise VerifyException(
                f"'{self.name}' must be at level 'thread' (its segments are split by the lowering), got "
                f"'{self.level.data.value}': only a segmap gives each point a work-group"
            )
        ne_types = check_operator(self, self.combine, self.neutral)
        self._check_index_lambda()
        map_outs = check_reduce_lambda(self, self.body, ne_types, "lambda")
        d = len(self.dims)
        combined_rank = d - 1 + self.SCANNED_DIMS
        check_results(
            self,
            self.outs.types,
            [*(array_of_rank(t, combined_rank) for t in ne_types), *(array_of_rank(t, d) for t in map_outs)],
        )


@irdl_op_definition
class SegredOp(_SegCombiningOp):
    """A segmented reduction: reduces the innermost dimension of the index space.

    The lambda yields the values to reduce, then map-out values. Results: the
    reduced arrays of shape `d0 x ... x d(k-1)`, then map-out arrays of the full
    shape.

        %r = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?xf32>
            combine(%a: f32, %b: f32) { ... } lambda(%i: index, %j: index) { ... }
    """

    name = "soac.segred"


@irdl_op_definition
class SegscanOp(_SegCombiningOp):
    """A segmented inclusive scan along the innermost dimension of the index space."""

    name = "soac.segscan"
    SCANNED_DIMS: ClassVar[int] = 1
