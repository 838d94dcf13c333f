"""The screma family: map, reduce, scan, redomap and scanomap (Futhark's Screma), over the rows of their inputs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from soac.dialect.base import Canonicalization, YieldOp
from soac.dialect.lambdas import (
    check_inputs_match_neutral,
    check_operator,
    check_params,
    check_reduce_lambda,
    check_results,
    input_rows,
    lambda_block,
    yielded_types,
)
from soac.dialect.sizes import Extent, ResultDimsInterface, dims_of, row_parameter_dims, rows_of, yielded
from soac.syntax import (
    parse_index_operand,
    parse_lambda,
    parse_operand_list,
    parse_optional_lambda,
    parse_result_types,
    print_lambda,
    print_operand_list,
    print_result_types,
    with_parsed_attributes,
)
from soac.types import array_of, format_types
from xdsl.dialects.builtin import DenseArrayBase, IndexType, TensorType, UnitAttr, i32
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_region_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class MapOp(IRDLOperation, ResultDimsInterface):
    """`map f xs...`: applies `lambda` to the rows of its inputs, giving one array per yielded value.

    %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) { ... }
    """

    name = "soac.map"

    width = operand_def(IndexType)
    inputs = var_operand_def(TensorType)
    outs = var_result_def(TensorType)
    body = region_def("single_block")

    traits = traits_def(
        RecursiveMemoryEffect(),
        SingleBlockImplicitTerminator(YieldOp),
        Canonicalization(("RemoveUnusedMapParts", "IotaIndexingToMapInput")),
    )

    def __init__(
        self,
        width: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        body: Region,
    ):
        super().__init__(operands=[width, inputs], result_types=[result_types], regions=[body])


    def result_dims(self, index: int) -> list[Extent]:
        return rows_of(self.width, yielded(self.body, index))

    def parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        return row_parameter_dims(self.inputs, self.body, parameter)

    def verify_(self) -> None:
        check_params(self, self.body, "lambda", input_rows(self, self.inputs), "the input rows")
        yielded = yielded_types(self, self.body, "lambda")
        check_results(self, self.outs.types, [array_of(t) for t in yielded])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.width)
        printer.print_string(" ")
        print_operand_list(printer, self.inputs)
        print_result_types(printer, self.outs.types)
        print_lambda(printer, "lambda", self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        width = parse_index_operand(parser)
        inputs = parse_operand_list(parser)
        result_types = parse_result_types(parser)
        body = parse_lambda(parser, "lambda")
        op = cls(width, inputs, result_types, body)
        return with_parsed_attributes(parser, op)


class _CombiningOp(IRDLOperation, ResultDimsInterface):
    """Shared syntax of reduce, scan, redomap and scanomap."""

    HAS_LAMBDA: ClassVar[bool] = False
    HAS_POST: ClassVar[bool] = False
    HAS_REDUCE: ClassVar[bool] = False
    """Has an optional reduction part (`reduce(...)` neutral elements and a `reduce_combine` operator)."""
    CAN_COMMUTE: ClassVar[bool] = False

    width = operand_def(IndexType)
    neutral = var_operand_def()
    inputs = var_operand_def(TensorType)
    outs = var_result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def print(self, printer: Printer) -> None:
        if self.properties.get("commutative") is not None:
            printer.print_string(" commutative")
        printer.print_string(" ")
        printer.print_operand(self.width)
        printer.print_string(" ")
        print_operand_list(printer, self.inputs)
        printer.print_string(" neutral")
        print_operand_list(printer, self.neutral)
        if isinstance(self, ScanomapOp) and self.reduce_combine is not None:
            printer.print_string(" reduce")
            if self.reduce_commutative is not None:
                printer.print_string(" commutative")
            print_operand_list(printer, self.reduce_neutral)
        print_result_types(printer, self.outs.types)
        for keyword, region in self.named_regions():
            print_lambda(printer, keyword, region)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    def operator_parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        """A parameter of the combine operator has its neutral element's sizes."""
        if parameter.block.parent is not self.regions[0]:
            return None
        return dims_of(self.neutral[parameter.index % len(self.neutral)])

    def named_regions(self) -> list[tuple[str, Region]]:
        """The regions in the order of the custom syntax, keyword first; an empty post region is left out."""
        return [("combine", self.regions[0])] + [
            (keyword, region) for keyword, region in zip(("lambda", "post"), self.regions[1:3]) if region.blocks
        ]

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        keyword_pos = parser.pos
        commutative = parser.parse_optional_keyword("commutative") is not None
        if commutative and not cls.CAN_COMMUTE:
            parser.raise_error(f"'{cls.name}' cannot be marked commutative", keyword_pos, keyword_pos + len("commutative"))
        width = parse_index_operand(parser)
        inputs = parse_operand_list(parser)
        parser.parse_keyword("neutral")
        neutral = parse_operand_list(parser)
        reduces = cls.HAS_REDUCE and parser.parse_optional_keyword("reduce") is not None
        reduce_commutative = reduces and parser.parse_optional_keyword("commutative") is not None
        reduce_neutral = parse_operand_list(parser) if reduces else []
        result_types = parse_result_types(parser)
        regions = [parse_lambda(parser, "combine")]
        reduce_combine = parse_lambda(parser, "reduce_combine") if reduces else None
        if cls.HAS_LAMBDA:
            regions.append(parse_lambda(parser, "lambda"))
        if cls.HAS_POST:
            regions.append(parse_optional_lambda(parser, "post") or Region())
        if reduce_combine is not None:
            regions.append(reduce_combine)
        segments = [1, len(neutral), len(inputs)] + ([len(reduce_neutral)] if cls.HAS_REDUCE else [])
        properties: dict[str, Attribute] = {"operandSegmentSizes": DenseArrayBase.from_list(i32, segments)}
        if commutative:
            properties["commutative"] = UnitAttr()
        if reduce_commutative:
            properties["reduce_commutative"] = UnitAttr()
        op = cls.create(
            operands=[width, *neutral, *inputs, *reduce_neutral],
            result_types=result_types,
            properties=properties,
            regions=regions,
        )
        return with_parsed_attributes(parser, op)


@irdl_op_definition
class ReduceOp(_CombiningOp):
    """`reduce combine ne xs`: folds the rows of `xs` with an associative operator.

    %s = soac.reduce %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32
        combine(%a: i32, %b: i32) { ... }
    """

    name = "soac.reduce"
    CAN_COMMUTE: ClassVar[bool] = True

    commutative = opt_prop_def(UnitAttr)
    combine = region_def("single_block")

    traits = traits_def(
        RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp), Canonicalization(("RemoveUnusedReduceParts",))
    )

    def __init__(
        self,
        width: SSAValue | Operation,
        neutral: Sequence[SSAValue | Operation],
        inputs: Sequence[SSAValue | Operation],
        combine: Region,
        commutative: bool = False,
    ):
        super().__init__(
            operands=[width, neutral, inputs],
            result_types=[[SSAValue.get(v).type for v in neutral]],
            properties={"commutative": UnitAttr()} if commutative else {},
            regions=[combine],
        )


    def result_dims(self, index: int) -> list[Extent]:
        return dims_of(self.neutral[index])

    def verify_(self) -> None:
        ne_types = check_operator(self, self.combine, self.neutral)
        check_inputs_match_neutral(self, self.inputs, ne_types)
        check_results(self, self.outs.types, ne_types)


@irdl_op_definition
class ScanOp(_CombiningOp):
    """`scan combine ne xs`: the inclusive prefix scan of `xs` with an associative operator."""

    name = "soac.scan"

    combine = region_def("single_block")

    traits = traits_def(
        RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp), Canonicalization(("RemoveUnusedReduceParts",))
    )

    def __init__(
        self,
        width: SSAValue | Operation,
        neutral: Sequence[SSAValue | Operation],
        inputs: Sequence[SSAValue | Operation],
        combine: Region,
    ):
        super().__init__(
            operands=[width, neutral, inputs],
            result_types=[[array_of(SSAValue.get(v).type) for v in neutral]],
            regions=[combine],
        )


    def result_dims(self, index: int) -> list[Extent]:
        return rows_of(self.width, self.neutral[index])

    def verify_(self) -> None:
        ne_types = check_operator(self, self.combine, self.neutral)
        check_inputs_match_neutral(self, self.inputs, ne_types)
        check_results(self, self.outs.types, [array_of(t) for t in ne_types])


@irdl_op_definition
class RedomapOp(_CombiningOp):
    """`redomap combine f ne xs` = `reduce combine ne (map f xs)`.

    The lambda yields the values to reduce first; any further values it yields
    are map-out results, returned as arrays after the reduced values.

        %s, %ys = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (f32, tensor<?xf32>)
            combine(%a: f32, %b: f32) { ... } lambda(%x: f32) { ... soac.yield %r, %y : f32, f32 }
    """

    name = "soac.redomap"
    HAS_LAMBDA: ClassVar[bool] = True
    CAN_COMMUTE: ClassVar[bool] = True

    commutative = opt_prop_def(UnitAttr)
    combine = region_def("single_block")
    body = region_def("single_block")

    traits = traits_def(
        RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp), Canonicalization(("RemoveUnusedRedomapParts",))
    )

    def __init__(
        self,
        width: SSAValue | Operation,
        neutral: Sequence[SSAValue | Operation],
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        combine: Region,
        body: Region,
        commutative: bool = False,
    ):
        super().__init__(
            operands=[width, neutral, inputs],
            result_types=[result_types],
            properties={"commutative": UnitAttr()} if commutative else {},
            regions=[combine, body],
        )


    def result_dims(self, index: int) -> list[Extent]:
        if index < len(self.neutral):
            return dims_of(self.neutral[index])
        return rows_of(self.width, yielded(self.body, index))

    def parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        return row_parameter_dims(self.inputs, self.body, parameter)

    def verify_(self) -> None:
        ne_types = check_operator(self, self.combine, self.neutral)
        check_params(self, self.body, "lambda", input_rows(self, self.inputs), "the input rows")
        map_outs = check_reduce_lambda(self, self.body, ne_types, "lambda")
        check_results(self, self.outs.types, [*ne_types, *(array_of(t) for t in map_outs)])


@irdl_op_definition
class ScanomapOp(_CombiningOp):
    """`scanomap combine f ne xs` = `map post (scan combine ne (map f xs))`, with an optional reduction.

    The lambda yields the values to scan first, then the values to reduce (when
    there is a reduction part), then map-out values, then forwarded values. The
    optional post lambda receives each scanned tuple, then the input rows at the
    same index, then the forwarded values the lambda computed for that element:
    as many as the post lambda has parameters after the rows (none without a
    post lambda). Forwarded values are no results; they spare the post lambda
    recomputing or storing what the lambda computed. Without a post lambda, the
    scanned arrays are the results. Results: the post (or scan)
    arrays, then the reduced scalars, then the map-out arrays. With a reduction
    part this is Futhark's Screma with both scans and reductions (horizontal
    scan+reduce fusion gives it):

        %s, %sq = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (tensor<?xf32>, tensor<?xf32>)
            combine(%a: f32, %b: f32) { ... } lambda(%x: f32) { ... soac.yield %x, %q : f32, f32 }
        %s, %p, %m = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) reduce commutative(%one : f32)
            -> (tensor<?xf32>, f32, tensor<?xf32>) combine(%a: f32, %b: f32) { ... }
            reduce_combine(%c: f32, %d: f32) { ... } lambda(%x: f32) { ... soac.yield %x, %x, %q : f32, f32, f32 }
        %r = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32>
            combine(%a: f32, %b: f32) { ... } lambda(%x: f32) { ... soac.yield %y, %f : f32, f32 }
            post(%s: f32, %x: f32, %f: f32) { ... }     // %f: forwarded from the lambda

    In the generic form the reduce neutral elements are the last operand
    segment (empty without a reduction) and the reduce operator is a fourth
    region after the post region (absent without a reduction).
    """

    name = "soac.scanomap"
    HAS_LAMBDA: ClassVar[bool] = True
    HAS_POST: ClassVar[bool] = True
    HAS_REDUCE: ClassVar[bool] = True

    traits = traits_def(
        RecursiveMemoryEffect(),
        SingleBlockImplicitTerminator(YieldOp),
        Canonicalization(("RemoveUnusedScanomapParts", "ForwardedRowsAsPostRows")),
    )

    # Redeclared so that the reduce neutral elements come last among the operands.
    width = operand_def(IndexType)
    neutral = var_operand_def()
    inputs = var_operand_def(TensorType)
    reduce_neutral = var_operand_def()
    reduce_commutative = opt_prop_def(UnitAttr)
    combine = region_def("single_block")
    body = region_def("single_block")
    post = region_def()
    """The post lambda; an empty region when there is none."""
    reduce_combine = opt_region_def("single_block")
    """The reduce operator; absent when there is no reduction part."""

    def __init__(
        self,
        width: SSAValue | Operation,
        neutral: Sequence[SSAValue | Operation],
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        combine: Region,
        body: Region,
        post: Region | None = None,
        *,
        reduce_neutral: Sequence[SSAValue | Operation] = (),
        reduce_combine: Region | None = None,
        reduce_commutative: bool = False,
    ):
        super().__init__(
            operands=[width, neutral, inputs, reduce_neutral],
            result_types=[result_types],
            properties={"reduce_commutative": UnitAttr()} if reduce_commutative else {},
            regions=[combine, body, post or Region(), [reduce_combine] if reduce_combine is not None else []],
        )

    @property
    def has_reduction(self) -> bool:
        """True when the op has a reduction part (reduce neutral elements and a reduce_combine operator)."""
        return self.reduce_combine is not None

    @property
    def num_scanned(self) -> int:
        """The number of post (or scan) arrays: the first results."""
        if self.post.blocks and isinstance(yield_op := self.post.block.last_op, YieldOp):
            return len(yield_op.arguments)
        return len(self.neutral)

    @property
    def num_forwarded(self) -> int:
        """The number of values the lambda forwards to the post lambda: its last yields, the post's last parameters."""
        if not self.post.blocks:
            return 0
        return max(0, len(self.post.block.args) - len(self.neutral) - len(self.inputs))

    @property
    def num_map_outs(self) -> int:
        """The number of map-out arrays: the lambda's yields between the combined values and the forwarded ones."""
        yield_op = self.body.block.last_op if self.body.blocks else None
        yielded = len(yield_op.operands) if isinstance(yield_op, YieldOp) else 0
        return yielded - len(self.neutral) - len(self.reduce_neutral) - self.num_forwarded

    def named_regions(self) -> list[tuple[str, Region]]:
        named = super().named_regions()
        if self.reduce_combine is not None:
            named.insert(1, ("reduce_combine", self.reduce_combine))
        return named


    def result_dims(self, index: int) -> list[Extent]:
        scanned, reduced = self.num_scanned, len(self.reduce_neutral)
        if index < scanned:
            return rows_of(self.width, yielded(self.post, index) if self.post.blocks else self.neutral[index])
        if index < scanned + reduced:
            return dims_of(self.reduce_neutral[index - scanned])
        return rows_of(self.width, yielded(self.body, len(self.neutral) + index - scanned))

    def parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        return row_parameter_dims(self.inputs, self.body, parameter)

    def operator_parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        """The reduce operator's parameters have the reduce neutral elements' sizes; the post lambda's the scanned
        values', then the input rows', then the forwarded values'."""
        region, position = parameter.block.parent, parameter.index
        if region is self.reduce_combine:
            return dims_of(self.reduce_neutral[position % len(self.reduce_neutral)])
        if region is not self.post:
            return super().operator_parameter_dims(parameter)
        scanned, rows = len(self.neutral), len(self.inputs)
        if position < scanned:
            return dims_of(self.neutral[position])
        if position < scanned + rows:
            return dims_of(self.inputs[position - scanned], 1)
        forwarded = scanned + len(self.reduce_neutral) + self.num_map_outs + position - scanned - rows
        return dims_of(yielded(self.body, forwarded))

    def verify_(self) -> None:
        ne_types = check_operator(self, self.combine, self.neutral)
        red_types: list[Attribute] = []
        if self.reduce_combine is not None:
            red_types = check_operator(
                self, self.reduce_combine, self.reduce_neutral, "reduce_combine operator", "reduce neutral elements"
            )
        elif self.reduce_neutral or self.reduce_commutative is not None:
            raise VerifyException(f"'{self.name}' has a reduction part but no reduce_combine operator")
        rows = input_rows(self, self.inputs)
        check_params(self, self.body, "lambda", rows, "the input rows")
        what = "scan then reduce neutral element types" if red_types else "neutral element types"
        map_outs = check_reduce_lambda(self, self.body, [*ne_types, *red_types], "lambda", what)
        scanned = ne_types
        if self.post.blocks:
            forwarded = _check_forwarded(self, map_outs, [*ne_types, *rows])
            expected = [*ne_types, *rows, *forwarded]
            what = "the scanned values, input rows and forwarded values" if forwarded else "the scanned values and input rows"
            check_params(self, self.post, "post lambda", expected, what)
            scanned = yielded_types(self, self.post, "post lambda")
            map_outs = map_outs[: len(map_outs) - len(forwarded)]
        check_results(self, self.outs.types, [*(array_of(t) for t in scanned), *red_types, *(array_of(t) for t in map_outs)])


def _check_forwarded(op: ScanomapOp, after_combined: Sequence[Attribute], fixed: Sequence[Attribute]) -> list[Attribute]:
    """The types of the values the lambda forwards to the post lambda (its last yields after the combined ones)."""
    params = len(lambda_block(op, op.post, "post lambda").args)
    count = params - len(fixed)
    if count <= 0:
        return []
    if count > len(after_combined):
        combined = "scanned and reduced" if op.reduce_combine is not None else "scanned"
        raise VerifyException(
            f"'{op.name}' post lambda takes {params} parameters: the scanned values and input rows "
            f"{format_types(fixed)}, then {count} forwarded value{'' if count == 1 else 's'}; but the lambda yields "
            f"{len(after_combined)} value{'' if len(after_combined) == 1 else 's'} after its {combined} ones"
        )
    return list(after_combined[len(after_combined) - count :])
