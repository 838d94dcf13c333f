"""The `soac` dialect: Futhark's second-order array combinators over builtin tensors.

Every SOAC takes its width `%n : index` explicitly, several arrays in, several
arrays out ("tuples of arrays"), and lambdas as single-block regions ending in
`soac.yield`:

    %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.mulf %x, %x : f32
      soac.yield %y : f32
    }
    %s = soac.reduce commutative %n (%ys : tensor<?xf32>) neutral(%zero : f32) -> f32
        combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Self

from soac.messages import message_problem
from soac.syntax import (
    parse_index_operand,
    parse_lambda,
    parse_operand_list,
    parse_optional_lambda,
    parse_result_types,
    parse_untyped_operand_list,
    print_lambda,
    print_operand_list,
    print_result_types,
    print_untyped_operand_list,
    with_parsed_attributes,
)
from soac.types import (
    all_compatible,
    array_of,
    array_of_rank,
    compatible,
    format_types,
    is_integer_like,
    peel,
    row_type,
)
from xdsl.dialects import scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import AbstractYieldOperation
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, OpResult, Region, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_region_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    HasCanonicalizationPatternsTrait,
    HasParent,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

# ---------------------------------------------------------------------------
# Attributes
# ---------------------------------------------------------------------------


class Level(StrEnum):
    """What runs one point of a segmented op's index space (Futhark's SegThread and SegGroup).

    `thread`: a work-item. At function level the work-items of the whole device run the op; in the lambda of a
    `segmap group` the work-items of that point's work-group do (Futhark's SegThreadInBlock). A segred or segscan
    is always `thread`: how its segments are split (a work-item, a team, a work-group or several per segment) is
    the lowering's choice, made at run time from the segment length. `group`: a work-group per point, only for
    segmap (the intra-group version); `segred group` and `segscan group`, their old spelling, parse as `thread`.
    """

    THREAD = "thread"
    GROUP = "group"


class OnDevice(StrEnum):
    """What a threshold's default becomes on an OpenCL device (`soac.lowering.opencl.device_defaults`)."""

    RESIDENT = "resident"
    """The work-items the device runs at once: outer parallelism that fills it."""
    GROUP = "group"
    """A work-group's worth: inner parallelism that fills a work-group's SIMD lanes."""


@irdl_attr_definition
class LevelAttr(EnumAttribute[Level], SpacedOpaqueSyntaxAttribute):
    """`#soac<level thread>` or `#soac<level group>`."""

    name = "soac.level"


# ---------------------------------------------------------------------------
# Verification helpers
# ---------------------------------------------------------------------------


def _lambda_block(op: Operation, region: Region, role: str):
    if len(region.blocks) != 1:
        raise VerifyException(f"'{op.name}' {role} must have exactly one block")
    return region.block


def _yielded_types(op: Operation, region: Region, role: str) -> list[Attribute]:
    block = _lambda_block(op, region, role)
    terminator = block.last_op
    if not isinstance(terminator, YieldOp):
        found = terminator.name if terminator is not None else "nothing"
        raise VerifyException(f"'{op.name}' {role} must end with soac.yield, found {found}")
    return list(terminator.arguments.types)


def _check_params(op: Operation, region: Region, role: str, expected: Sequence[Attribute], what: str) -> None:
    """Check that the lambda's parameters are compatible with `expected`."""
    args = _lambda_block(op, region, role).args
    if len(args) != len(expected):
        raise VerifyException(
            f"'{op.name}' {role} takes {len(args)} parameter{'' if len(args) == 1 else 's'} but {len(expected)} "
            f"{'is' if len(expected) == 1 else 'are'} expected ({what}: {format_types(expected)})"
        )
    for i, (arg, want) in enumerate(zip(args, expected)):
        if not compatible(arg.type, want):
            raise VerifyException(f"'{op.name}' {role} parameter #{i} has type {arg.type}, expected {want} from {what}")


def _check_yields(op: Operation, region: Region, role: str, expected: Sequence[Attribute], what: str) -> None:
    got = _yielded_types(op, region, role)
    if not all_compatible(got, expected):
        raise VerifyException(f"'{op.name}' {role} yields {format_types(got)}, expected {format_types(expected)} from {what}")


def _check_results(op: Operation, got: Sequence[Attribute], expected: Sequence[Attribute], source: str = "its lambdas") -> None:
    if not all_compatible(got, expected):
        raise VerifyException(
            f"'{op.name}' has result types {format_types(got)}, expected {format_types(expected)} from {source}"
        )


def _input_rows(op: Operation, inputs: Sequence[SSAValue], kind: str = "input") -> list[Attribute]:
    rows: list[Attribute] = []
    for i, value in enumerate(inputs):
        if (inner := row_type(value.type)) is None:
            raise VerifyException(f"'{op.name}' {kind} #{i} has type {value.type}, which is not an array")
        rows.append(inner)
    return rows


def _check_operator(
    op: Operation,
    combine: Region,
    neutral: Sequence[SSAValue],
    role: str = "combine operator",
    what: str = "neutral elements",
) -> list[Attribute]:
    """Check an associative operator `(a..., b...) -> c...` against the neutral elements."""
    ne_types = [v.type for v in neutral]
    if not ne_types:
        raise VerifyException(f"'{op.name}' needs at least one {what[:-1]}")
    _check_params(op, combine, role, ne_types + ne_types, f"the {what} (twice)")
    _check_yields(op, combine, role, ne_types, f"the {what}")
    return ne_types


def _check_inputs_match_neutral(op: Operation, inputs: Sequence[SSAValue], ne_types: Sequence[Attribute]) -> None:
    rows = _input_rows(op, inputs)
    if not all_compatible(rows, ne_types):
        raise VerifyException(
            f"'{op.name}' input elements {format_types(rows)} do not match the neutral elements {format_types(ne_types)}"
        )


def _check_reduce_lambda(
    op: Operation, body: Region, ne_types: Sequence[Attribute], role: str, what: str = "neutral element types"
) -> list[Attribute]:
    """Check that `body` yields the reduced values first; return its map-out element types."""
    yielded = _yielded_types(op, body, role)
    k = len(ne_types)
    if len(yielded) < k or not all_compatible(yielded[:k], ne_types):
        raise VerifyException(
            f"'{op.name}' {role} yields {format_types(yielded)} but must start with the {what} {format_types(ne_types)}"
        )
    return yielded[k:]


def _enclosing_soac(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, SOAC_WITH_LAMBDAS):
        parent = parent.parent_op()
    return parent


def defined_inside(value: SSAValue, op: Operation) -> bool:
    """True if `value` is defined by `op` or by an op (or block) nested in it."""
    owner = value.owner
    defining = owner if isinstance(owner, Operation) else owner.parent_op()
    while defining is not None:
        if defining is op:
            return True
        defining = defining.parent_op()
    return False


def later_in_block(user: Operation, op: Operation) -> bool:
    """True if `user` is (or is nested in) an op that comes after `op` in `op`'s block."""
    block = op.parent_block()
    while user is not None and user.parent_block() is not block:
        user = user.parent_op()
    if user is None or user is op or block is None:
        return False
    return block.get_operation_index(user) > block.get_operation_index(op)


def _yielded_from_outside(op: Operation, region: Region, index: int) -> list[SSAValue]:
    """The value that `region`'s terminator passes on as result `index` of `op`, where `op` does not define it."""
    terminator = region.block.last_op if region.blocks else None
    if terminator is None or index >= len(terminator.operands):
        return []
    value = terminator.operands[index]
    return [] if defined_inside(value, op) else [value]


def _linked_arrays(value: SSAValue) -> list[SSAValue]:
    """The arrays that may share `value`'s memory one step away, by Futhark's rule that a loop's or a branch's results
    alias the arrays it starts from or yields from outside (a loop that runs no iteration gives its initial arrays
    back): the results that `value` may become, and the arrays a result of a loop or branch may be."""
    linked: list[SSAValue] = []
    for use in value.uses:
        user = use.operation
        if isinstance(user, scf.ForOp) and use.index >= 3:
            linked.append(user.results[use.index - 3])
        elif isinstance(user, scf.WhileOp):
            linked.extend(r for r in user.results if r.type == value.type)
        elif isinstance(user, scf.YieldOp) and isinstance(parent := user.parent_op(), scf.ForOp | scf.IfOp):
            linked.append(parent.results[use.index])
        elif isinstance(user, scf.ConditionOp) and isinstance(parent := user.parent_op(), scf.WhileOp) and use.index:
            linked.append(parent.results[use.index - 1])
    if isinstance(value, OpResult):
        owner, index = value.op, value.index
        if isinstance(owner, scf.ForOp):
            linked.append(owner.iter_args[index])
            linked.extend(_yielded_from_outside(owner, owner.body, index))
        elif isinstance(owner, scf.IfOp):
            for region in (owner.true_region, owner.false_region):
                linked.extend(_yielded_from_outside(owner, region, index))
        elif isinstance(owner, scf.WhileOp):
            linked.extend(a for a in owner.arguments if a.type == value.type)
            linked.extend(_yielded_from_outside(owner, owner.before_region, index + 1))  # after scf.condition's flag
    return [v for v in linked if isinstance(v.type, TensorType)]


def aliases(value: SSAValue) -> list[SSAValue]:
    """`value` and every array linked to it, directly or through others (`_linked_arrays`)."""
    aliases = [value]
    for alias in aliases:
        aliases.extend(v for v in _linked_arrays(alias) if v not in aliases)
    return aliases


def check_consumed(op: Operation, value: SSAValue) -> None:
    """Check the uniqueness rules for an array that `op` updates in place.

    The array may not be used after `op`, nor may an array that can share its memory (a loop's or branch's result
    and the arrays it starts from), and a lambda may not consume an array from outside itself (that would update it
    once per element).
    """
    name = f"%{value.name_hint}" if value.name_hint else "its array"
    soac = _enclosing_soac(op)
    if soac is not None and not defined_inside(value, soac):
        raise VerifyException(f"'{op.name}' consumes {name} from outside the enclosing '{soac.name}' lambda")
    for alias in aliases(value):
        for use in alias.uses:
            if not later_in_block(use.operation, op):
                continue
            if alias is value:
                raise VerifyException(f"'{op.name}' consumes {name}, but '{use.operation.name}' uses it afterwards")
            other = f"%{alias.name_hint}" if alias.name_hint else "an array"
            raise VerifyException(
                f"'{op.name}' consumes {name}, but '{use.operation.name}' uses {other} afterwards, which may be the same "
                "array (a loop's or branch's results alias the arrays it starts from or yields)"
            )


# ---------------------------------------------------------------------------
# The yield
# ---------------------------------------------------------------------------


@irdl_op_definition
class YieldOp(AbstractYieldOperation[Attribute]):
    """Returns the values of a lambda to the SOAC that runs it."""

    name = "soac.yield"

    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(*SOAC_WITH_LAMBDAS)))


# ---------------------------------------------------------------------------
# SOACs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Canonicalization(HasCanonicalizationPatternsTrait):
    """The op's patterns, named in `soac.passes.canonicalization_patterns` (imported when `canonicalize` asks for
    them: the passes import this module)."""

    patterns: tuple[str, ...] = ()

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        from soac.passes import canonicalization_patterns

        return tuple(getattr(canonicalization_patterns, name)() for name in self.patterns)

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return ()


@irdl_op_definition
class MapOp(IRDLOperation):
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

    def verify_(self) -> None:
        _check_params(self, self.body, "lambda", _input_rows(self, self.inputs), "the input rows")
        yielded = _yielded_types(self, self.body, "lambda")
        _check_results(self, self.outs.types, [array_of(t) for t in yielded])

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


class _CombiningOp(IRDLOperation):
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

    def verify_(self) -> None:
        ne_types = _check_operator(self, self.combine, self.neutral)
        _check_inputs_match_neutral(self, self.inputs, ne_types)
        _check_results(self, self.outs.types, ne_types)


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

    def verify_(self) -> None:
        ne_types = _check_operator(self, self.combine, self.neutral)
        _check_inputs_match_neutral(self, self.inputs, ne_types)
        _check_results(self, self.outs.types, [array_of(t) for t in ne_types])


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

    def verify_(self) -> None:
        ne_types = _check_operator(self, self.combine, self.neutral)
        _check_params(self, self.body, "lambda", _input_rows(self, self.inputs), "the input rows")
        map_outs = _check_reduce_lambda(self, self.body, ne_types, "lambda")
        _check_results(self, self.outs.types, [*ne_types, *(array_of(t) for t in map_outs)])


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

    def verify_(self) -> None:
        ne_types = _check_operator(self, self.combine, self.neutral)
        red_types: list[Attribute] = []
        if self.reduce_combine is not None:
            red_types = _check_operator(
                self, self.reduce_combine, self.reduce_neutral, "reduce_combine operator", "reduce neutral elements"
            )
        elif self.reduce_neutral or self.reduce_commutative is not None:
            raise VerifyException(f"'{self.name}' has a reduction part but no reduce_combine operator")
        rows = _input_rows(self, self.inputs)
        _check_params(self, self.body, "lambda", rows, "the input rows")
        what = "scan then reduce neutral element types" if red_types else "neutral element types"
        map_outs = _check_reduce_lambda(self, self.body, [*ne_types, *red_types], "lambda", what)
        scanned = ne_types
        if self.post.blocks:
            forwarded = _check_forwarded(self, map_outs, [*ne_types, *rows])
            expected = [*ne_types, *rows, *forwarded]
            what = "the scanned values, input rows and forwarded values" if forwarded else "the scanned values and input rows"
            _check_params(self, self.post, "post lambda", expected, what)
            scanned = _yielded_types(self, self.post, "post lambda")
            map_outs = map_outs[: len(map_outs) - len(forwarded)]
        _check_results(self, self.outs.types, [*(array_of(t) for t in scanned), *red_types, *(array_of(t) for t in map_outs)])


def _check_forwarded(op: ScanomapOp, after_combined: Sequence[Attribute], fixed: Sequence[Attribute]) -> list[Attribute]:
    """The types of the values the lambda forwards to the post lambda (its last yields after the combined ones)."""
    params = len(_lambda_block(op, op.post, "post lambda").args)
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


def _print_width_inputs_into(printer: Printer, width: SSAValue, inputs: Sequence[SSAValue], dests: Sequence[SSAValue]) -> None:
    """` %n (%xs : T) into(%dests : D)`, the head of scatter and hist."""
    printer.print_string(" ")
    printer.print_operand(width)
    printer.print_string(" ")
    print_operand_list(printer, inputs)
    printer.print_string(" into")
    print_operand_list(printer, dests)


def _parse_width_inputs_into(parser: Parser) -> tuple[SSAValue, list[SSAValue], list[SSAValue]]:
    width = parse_index_operand(parser)
    inputs = parse_operand_list(parser)
    parser.parse_keyword("into")
    return width, inputs, parse_operand_list(parser)


@irdl_op_definition
class ScatterOp(IRDLOperation):
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

    def verify_(self) -> None:
        _check_params(self, self.body, "lambda", _input_rows(self, self.inputs), "the input rows")
        dest_rows = _input_rows(self, self.dests, "destination")
        yielded = _yielded_types(self, self.body, "lambda")
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
        _check_results(self, self.outs.types, [d.type for d in self.dests], "its destinations")
        for dest in self.dests:
            check_consumed(self, dest)

    def print(self, printer: Printer) -> None:
        _print_width_inputs_into(printer, self.width, self.inputs, self.dests)
        print_result_types(printer, self.outs.types)
        print_lambda(printer, "lambda", self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        width, inputs, dests = _parse_width_inputs_into(parser)
        result_types = parse_result_types(parser)
        body = parse_lambda(parser, "lambda")
        op = cls.create(
            operands=[width, *inputs, *dests],
            result_types=result_types,
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, len(inputs), len(dests)])},
            regions=[body],
        )
        return with_parsed_attributes(parser, op)


def _verify_bins_yielded(
    op: HistOp | SeghistOp, bins: Sequence[Attribute], dest_types: Sequence[Attribute], position: str
) -> None:
    """A histogram's lambda yields an integer `position` (index or bin) and a value per destination; its results
    are its destinations, which it consumes."""
    yielded = _yielded_types(op, op.body, "lambda")
    k = len(bins)
    if len(yielded) != 1 + k or not is_integer_like(yielded[0]):
        raise VerifyException(
            f"'{op.name}' lambda yields {format_types(yielded)}, expected an integer {position} and a value for each "
            f"of its {k} destination{'' if k == 1 else 's'} {format_types(bins)}"
        )
    if not all_compatible(yielded[1:], bins):
        raise VerifyException(
            f"'{op.name}' lambda yields values {format_types(yielded[1:])} but the destinations hold {format_types(bins)}"
        )
    _check_results(op, op.outs.types, dest_types, "its destinations")
    for dest in op.dests:
        check_consumed(op, dest)


@irdl_op_definition
class HistOp(IRDLOperation):
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

    width = operand_def(IndexType)
    inputs = var_operand_def(TensorType)
    dests = var_operand_def(TensorType)
    neutral = var_operand_def()
    outs = var_result_def(TensorType)
    combine = region_def("single_block")
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

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

    def verify_(self) -> None:
        dest_types = [d.type for d in self.dests]
        if not dest_types:
            raise VerifyException(f"'{self.name}' needs at least one destination")
        for t in dest_types:
            if not isinstance(t, TensorType) or t.get_num_dims() < 1:
                raise VerifyException(f"'{self.name}' destinations must be arrays (of scalars or of rows), got {t}")
        if len({t.get_shape()[0] for t in dest_types if isinstance(t, TensorType)}) > 1:
            raise VerifyException(f"'{self.name}' destinations must have one number of bins, got {format_types(dest_types)}")
        ne_types = _check_operator(self, self.combine, self.neutral)
        bins = _input_rows(self, self.dests, "destination")
        if not all_compatible(ne_types, bins):
            raise VerifyException(
                f"'{self.name}' neutral elements {format_types(ne_types)} do not match the destinations' {format_types(bins)}"
            )
        _check_params(self, self.body, "lambda", _input_rows(self, self.inputs), "the input rows")
        _verify_bins_yielded(self, bins, dest_types, "index")

    def print(self, printer: Printer) -> None:
        _print_width_inputs_into(printer, self.width, self.inputs, self.dests)
        printer.print_string(" neutral")
        print_operand_list(printer, self.neutral)
        print_result_types(printer, self.outs.types)
        print_lambda(printer, "combine", self.combine)
        print_lambda(printer, "lambda", self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        width, inputs, dests = _parse_width_inputs_into(parser)
        parser.parse_keyword("neutral")
        neutral = parse_operand_list(parser)
        result_types = parse_result_types(parser)
        combine = parse_lambda(parser, "combine")
        body = parse_lambda(parser, "lambda")
        op = cls.create(
            operands=[width, *inputs, *dests, *neutral],
            result_types=result_types,
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, len(inputs), len(dests), len(neutral)])},
            regions=[combine, body],
        )
        return with_parsed_attributes(parser, op)


PARTITION_MAX_BUCKETS = 1 << 16
"""The most buckets a `soac.partition` may have (its counters live in a work-group's local memory)."""


@irdl_op_definition
class PartitionOp(IRDLOperation):
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

    def verify_(self) -> None:
        k = self.bucket_count
        if not 1 <= k <= PARTITION_MAX_BUCKETS:
            raise VerifyException(f"'{self.name}' needs between 1 and {PARTITION_MAX_BUCKETS} buckets, got {k}")
        if self.counts.type != TensorType(i32, [DYNAMIC_INDEX]):
            raise VerifyException(f"'{self.name}' gives its bucket counts as tensor<?xi32>, not {self.counts.type}")
        if self.known is not None and self.known.type != TensorType(i32, [DYNAMIC_INDEX]):
            raise VerifyException(f"'{self.name}' takes known bucket counts as tensor<?xi32>, not {self.known.type}")
        _check_params(self, self.body, "lambda", _input_rows(self, self.inputs), "the input rows")
        yielded = _yielded_types(self, self.body, "lambda")
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
        _check_results(self, self.outs.types, [array_of(t) for t in values])

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


# ---------------------------------------------------------------------------
# Stencils
# ---------------------------------------------------------------------------

STENCIL_BOUNDARIES = ("clamp", "mirror", "wrap", "constant")
"""What a neighbour outside the array reads: the nearest element, the element mirrored across the edge (the edge
itself not repeated: -1 reads 1), the element a period away, or the op's constant."""
STENCIL_MAX_RANK = 3
STENCIL_LISTED_PARAMETERS = 64
"""The most parameters a stencil lambda's arity error lists one by one (a window can ask for millions)."""
STENCIL_DEFAULT_TILES = {1: (256,), 2: (16, 128), 3: (4, 4, 32)}
"""The block of elements a work-group computes when a stencil gives no `tile`, by rank. 2-D: on the H200, one sweep
of 8192^2 f32 with the `streamed` kernel took 0.1574 / 0.1574 ms (5-point / 3x3) with 16 x 128 against 0.1592 /
0.1633 (8 x 128), 0.1586 / 0.1563 (16 x 64), 0.1615 / 0.1636 (8 x 256) and 0.1814 / 0.1873 (32 x 32) ms
(bench/results/h200_issue14_stencil_streamed.txt); 8 x 128 was ahead by 1-4% in an earlier call
(h200_issue14_stencil_variants.txt), so 16 x 128 is the choice that did not fall below 0.82 of memcpy in either."""
STENCIL_MAX_GROUP = 1024
"""The most work-items of a stencil's work-group (NVIDIA's limit of a work-group)."""
STENCIL_MAX_ROWS = 32
"""The most elements along the first dimension one work-item computes (ranks 2 and 3)."""


def stencil_rows(tile: Sequence[int], most: int) -> int | None:
    """Elements along the first dimension each work-item computes for blocks of `tile`: the largest divisor of
    `tile[0]` up to `most`, or the smallest larger one (up to STENCIL_MAX_ROWS) that keeps the work-group within
    STENCIL_MAX_GROUP; 1 on rank 1. None where no choice fits."""
    rest = math.prod(tile[1:])
    if len(tile) == 1:
        return 1 if tile[0] <= STENCIL_MAX_GROUP else None
    divisors = [r for r in range(1, STENCIL_MAX_ROWS + 1) if tile[0] % r == 0 and tile[0] // r * rest <= STENCIL_MAX_GROUP]
    if not divisors:
        return None
    within = [r for r in divisors if r <= most]
    return max(within) if within else min(divisors)


def stencil_tile_problem(tile: Sequence[int]) -> str | None:
    """Why a work-group cannot compute blocks of `tile` (None: it can)."""
    if any(t < 1 for t in tile):
        return f"tile {list(tile)} has a size below 1"
    if stencil_rows(tile, STENCIL_MAX_ROWS) is None:
        rows = "" if len(tile) == 1 else f", each computing at most {STENCIL_MAX_ROWS} elements along the first dimension"
        return f"tile {list(tile)} needs more than the {STENCIL_MAX_GROUP} work-items of a work-group{rows}"
    return None


def stencil_offsets(window: Sequence[int]) -> list[tuple[int, ...]]:
    """The neighbours of a window of odd extents, relative to its centre, in row-major order (the order of the
    lambda's parameters for each input)."""
    offsets: list[tuple[int, ...]] = [()]
    for extent in window:
        offsets = [(*o, d) for o in offsets for d in range(-(extent // 2), extent // 2 + 1)]
    return offsets


@irdl_op_definition
class StencilOp(IRDLOperation):
    """A map whose lambda sees a fixed neighbourhood of each element (Accelerate's `stencil`/`stencil2`).

    The inputs (one or more arrays of the index space's shape, of rank 1 to 3) are read in a window of odd
    extents centred on each element; the lambda receives the window's elements of the first input in row-major
    order, then those of the second, ... and yields one value per result. A neighbour outside the array reads
    what the boundary condition says: `clamp`, `mirror`, `wrap` or `constant(%v...)` (a value per input).
    An optional `tile [...]` gives the work-group's block on devices that share neighbours in local memory.

        %b = soac.stencil (%n, %m) window [3, 3] clamp (%a : tensor<?x?xf32>) -> tensor<?x?xf32>
            lambda(%nw: f32, %no: f32, %ne: f32, %we: f32, %c: f32, %ea: f32, %sw: f32, %so: f32, %se: f32) { ... }
    """

    name = "soac.stencil"

    dims = var_operand_def(IndexType)
    inputs = var_operand_def(TensorType)
    constants = var_operand_def()
    outs = var_result_def(TensorType)
    body = region_def("single_block")
    window = prop_def(DenseArrayBase.constr(i64))
    boundary = prop_def(StringAttr)
    tile = opt_prop_def(DenseArrayBase.constr(i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def __init__(
        self,
        dims: Sequence[SSAValue | Operation],
        window: Sequence[int],
        boundary: str,
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        body: Region,
        constants: Sequence[SSAValue | Operation] = (),
        tile: Sequence[int] | None = None,
    ):
        properties: dict[str, Attribute] = {
            "window": DenseArrayBase.from_list(i64, list(window)),
            "boundary": StringAttr(boundary),
        }
        if tile is not None:
            properties["tile"] = DenseArrayBase.from_list(i64, list(tile))
        super().__init__(operands=[dims, inputs, constants], result_types=[result_types], properties=properties, regions=[body])

    @property
    def window_shape(self) -> tuple[int, ...]:
        return tuple(self.window.get_values())  # pyright: ignore[reportReturnType]

    @property
    def tile_shape(self) -> tuple[int, ...] | None:
        return None if self.tile is None else tuple(self.tile.get_values())  # pyright: ignore[reportReturnType]

    @property
    def offsets(self) -> list[tuple[int, ...]]:
        return stencil_offsets(self.window_shape)

    def verify_(self) -> None:
        rank, window = len(self.dims), self.window_shape
        if not 1 <= rank <= STENCIL_MAX_RANK:
            raise VerifyException(f"'{self.name}' needs an index space of 1 to {STENCIL_MAX_RANK} dimensions, got {rank}")
        if len(window) != rank:
            raise VerifyException(f"'{self.name}' window {list(window)} has {len(window)} extents for {rank} dimensions")
        if any(e < 1 or e % 2 == 0 for e in window):
            raise VerifyException(f"'{self.name}' window extents must be odd and positive, got {list(window)}")
        if (tile := self.tile_shape) is not None and (len(tile) != rank or any(t < 1 for t in tile)):
            raise VerifyException(f"'{self.name}' tile {list(tile)} must give a positive size for each of {rank} dimensions")
        if tile is not None and (problem := stencil_tile_problem(tile)):
            raise VerifyException(f"'{self.name}' {problem}")
        elements = self._check_inputs_and_constants()
        points = math.prod(window)
        takes, expected = len(_lambda_block(self, self.body, "lambda").args), points * len(elements)
        if takes != expected and expected > STENCIL_LISTED_PARAMETERS:
            raise VerifyException(
                f"'{self.name}' lambda takes {takes} parameter{'' if takes == 1 else 's'} but {expected} are expected "
                f"({points} neighbours of each of {len(elements)} input{'' if len(elements) == 1 else 's'})"
            )
        _check_params(
            self, self.body, "lambda", [e for e in elements for _ in range(points)], f"{points} neighbours of each input"
        )
        yielded = _yielded_types(self, self.body, "lambda")
        if any(isinstance(t, TensorType) for t in yielded):
            raise VerifyException(f"'{self.name}' lambda must yield scalars, got {format_types(yielded)}")
        _check_results(self, self.outs.types, [array_of_rank(t, rank) for t in yielded])

    def _check_inputs_and_constants(self) -> list[Attribute]:
        """The boundary, the inputs (arrays of scalars of the index space's rank) and the constants; gives the
        inputs' element types."""
        rank = len(self.dims)
        boundary = self.boundary.data
        if boundary not in STENCIL_BOUNDARIES:
            raise VerifyException(f"'{self.name}' boundary must be one of {', '.join(STENCIL_BOUNDARIES)}, got '{boundary}'")
        if not self.inputs:
            raise VerifyException(f"'{self.name}' needs at least one input")
        elements: list[Attribute] = []
        for i, value in enumerate(self.inputs):
            t = value.type
            if not isinstance(t, TensorType) or t.get_num_dims() != rank or isinstance(t.get_element_type(), TensorType):
                raise VerifyException(f"'{self.name}' input #{i} has type {t}, expected a {rank}-D array of scalars")
            elements.append(t.get_element_type())
        if boundary == "constant" and len(self.constants) != len(self.inputs):
            raise VerifyException(
                f"'{self.name}' boundary constant needs one value per input ({len(self.inputs)}), got {len(self.constants)}"
            )
        if boundary != "constant" and self.constants:
            raise VerifyException(f"'{self.name}' boundary {boundary} takes no constants")
        for i, (value, element) in enumerate(zip(self.constants, elements)):
            if value.type != element:
                raise VerifyException(f"'{self.name}' constant #{i} has type {value.type}, expected {element} from input #{i}")
        return elements

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_untyped_operand_list(printer, self.dims)
        printer.print_string(f" window [{', '.join(map(str, self.window_shape))}] {self.boundary.data}")
        if self.boundary.data == "constant":
            print_operand_list(printer, self.constants)
        if (tile := self.tile_shape) is not None:
            printer.print_string(f" tile [{', '.join(map(str, tile))}]")
        printer.print_string(" ")
        print_operand_list(printer, self.inputs)
        print_result_types(printer, self.outs.types)
        print_lambda(printer, "lambda", self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        dims = parse_untyped_operand_list(parser, IndexType())
        parser.parse_keyword("window")
        window = _parse_int_list(parser)
        pos = parser.pos
        boundary = parser.parse_identifier()
        if boundary not in STENCIL_BOUNDARIES:
            parser.raise_error(f"expected a boundary ({', '.join(STENCIL_BOUNDARIES)}), got '{boundary}'", pos, parser.pos)
        constants = parse_operand_list(parser) if boundary == "constant" else []
        tile = _parse_int_list(parser) if parser.parse_optional_keyword("tile") is not None else None
        inputs = parse_operand_list(parser)
        result_types = parse_result_types(parser)
        body = parse_lambda(parser, "lambda")
        op = cls(dims, window, boundary, inputs, result_types, body, constants, tile)
        return with_parsed_attributes(parser, op)


def _parse_int_list(parser: Parser) -> list[int]:
    """`[3, 3]`, of values that fit an i64."""

    def parse_i64() -> int:
        start = parser.pos
        value = parser.parse_integer()
        if not -(2**63) <= value < 2**63:
            parser.raise_error(f"{value} does not fit in 64 bits", start, parser.pos)
        return value

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_i64)


# ---------------------------------------------------------------------------
# Segmented operations
# ---------------------------------------------------------------------------


class _SegOp(IRDLOperation):
    """Shared syntax of segmap, segred and segscan."""

    level = prop_def(LevelAttr)
    dims = var_operand_def(IndexType)
    outs = var_result_def(TensorType)
    body = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def _check_index_lambda(self) -> list[Attribute]:
        if not self.dims:
            raise VerifyException(f"'{self.name}' needs at least one dimension")
        _check_params(self, self.body, "lambda", [IndexType()] * len(self.dims), "the index space")
        return _yielded_types(self, self.body, "lambda")

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
        level_pos = parser.pos
        level_name = parser.parse_identifier()
        if level_name not in {lvl.value for lvl in Level}:
            parser.raise_error(f"expected level 'thread' or 'group', got '{level_name}'", level_pos, level_pos + len(level_name))
        combining = issubclass(cls, _SegCombiningOp)
        if combining:
            level_name = Level.THREAD.value  # `group` was a strategy of segred and segscan; see `Level`
        dims = parse_untyped_operand_list(parser, IndexType())
        neutral: list[SSAValue] = []
        if combining:
            parser.parse_keyword("neutral")
            neutral = parse_operand_list(parser)
        result_types = parse_result_types(parser)
        regions = [parse_lambda(parser, "combine")] if combining else []
        body = parse_lambda(parser, "lambda")
        properties: dict[str, Attribute] = {"level": LevelAttr(Level(level_name))}
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

    def verify_(self) -> None:
        yielded = self._check_index_lambda()
        _check_results(self, self.outs.types, [array_of_rank(t, len(self.dims)) for t in yielded])


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

    def verify_(self) -> None:
        if self.level.data != Level.THREAD:
            raise VerifyException(
                f"'{self.name}' must be at level 'thread' (its segments are split by the lowering), got "
                f"'{self.level.data.value}': only a segmap gives each point a work-group"
            )
        ne_types = _check_operator(self, self.combine, self.neutral)
        self._check_index_lambda()
        map_outs = _check_reduce_lambda(self, self.body, ne_types, "lambda")
        d = len(self.dims)
        combined_rank = d - 1 + self.SCANNED_DIMS
        _check_results(
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


@irdl_op_definition
class SeghistOp(IRDLOperation):
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

    level = prop_def(LevelAttr)
    dims = var_operand_def(IndexType)
    dests = var_operand_def(TensorType)
    neutral = var_operand_def()
    outs = var_result_def(TensorType)
    combine = region_def("single_block")
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

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

    def verify_(self) -> None:
        rank = len(self.dims)
        if not rank:
            raise VerifyException(f"'{self.name}' needs at least one dimension")
        dest_types = [d.type for d in self.dests]
        if not dest_types:
            raise VerifyException(f"'{self.name}' needs at least one destination")
        for t in dest_types:
            if not isinstance(t, TensorType) or t.get_num_dims() != rank:
                raise VerifyException(
                    f"'{self.name}' destinations must be {rank}-D tensors of scalars (a row of bins for each of the "
                    f"{rank - 1}-D segments), got {t}"
                )
        shapes = [t.get_shape() for t in dest_types if isinstance(t, TensorType)]
        if any(len({size for size in sizes if size >= 0}) > 1 for sizes in zip(*shapes)):
            raise VerifyException(f"'{self.name}' destinations must have one shape, got {format_types(dest_types)}")
        ne_types = _check_operator(self, self.combine, self.neutral)
        bins = [peel(t, rank) for t in dest_types]
        if not all_compatible(ne_types, bins):
            raise VerifyException(
                f"'{self.name}' neutral elements {format_types(ne_types)} do not match the destinations' {format_types(bins)}"
            )
        _check_params(self, self.body, "lambda", [IndexType()] * rank, "the index space")
        _verify_bins_yielded(self, bins, dest_types, "bin")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.level.data.value} ")
        print_untyped_operand_list(printer, self.dims)
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
        level_pos = parser.pos
        level_name = parser.parse_identifier()
        if level_name not in {lvl.value for lvl in Level}:
            parser.raise_error(f"expected level 'thread' or 'group', got '{level_name}'", level_pos, level_pos + len(level_name))
        dims = parse_untyped_operand_list(parser, IndexType())
        parser.parse_keyword("into")
        dests = parse_operand_list(parser)
        parser.parse_keyword("neutral")
        neutral = parse_operand_list(parser)
        result_types = parse_result_types(parser)
        combine = parse_lambda(parser, "combine")
        body = parse_lambda(parser, "lambda")
        op = cls.create(
            operands=[*dims, *dests, *neutral],
            result_types=result_types,
            properties={
                "level": LevelAttr(Level(level_name)),
                "operandSegmentSizes": DenseArrayBase.from_list(i32, [len(dims), len(dests), len(neutral)]),
            },
            regions=[combine, body],
        )
        return with_parsed_attributes(parser, op)


# ---------------------------------------------------------------------------
# Tiled reductions (soac-tile)
# ---------------------------------------------------------------------------

REDUCED = -1
"""The symbol `k` (the reduced dimension) in a `soac.tiled_redomap` read; symbols `0, 1, ...` are `d0, d1, ...`."""


def _print_symbol(symbol: int) -> str:
    return "k" if symbol == REDUCED else f"d{symbol}"


@irdl_op_definition
class TiledRedomapOp(IRDLOperation):
    """A thread-level segmap whose work-items each fold a redomap over arrays they share, tiled for locality.

    `results[d0, d1] = redomap combine lambda neutral` over `k < width`, where the lambda's
    parameter #r is the element of read #r at the symbols it is indexed by (`d0`, `d1`: the
    index space, `k`: the reduced dimension). The accumulator may be a tuple: one neutral
    element, one value the lambda yields and one result array per component (nbody's
    `(ax, ay, az)`). This is matrix multiplication:

        %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [64, 64] reg [4, 4] chunk 16
            reads(%a[d0, k], %bt[d1, k] : tensor<?x?xf32>, tensor<?x?xf32>) neutral(%zero : f32) -> tensor<?x?xf32>
            combine(%s: f32, %t: f32) { ... } lambda(%x: f32, %y: f32) { ... }

    It is what `soac-tile` makes of seed 004's block tiling. The index space is strip-mined
    into work-groups of `block` elements per dimension (each work-item holding a `reg`
    block of results in registers), the reduction into chunks of `chunk` elements; for
    each chunk, the work-group copies the part of every read that lacks some index-space
    symbol (`%a[d0, k]` is shared by all `d1`) into local memory, then folds from there.
    `block`, `reg` and `chunk` change speed only, never results; `tile` names them as
    tuning parameters (`tile_0_block_0`, `tile_0_reg_1`, `tile_0_chunk`, ...).
    """

    name = "soac.tiled_redomap"

    dims = var_operand_def(IndexType)
    width = operand_def(IndexType)
    reads = var_operand_def(TensorType)
    neutral = var_operand_def()
    outs = var_result_def(TensorType)
    tile = prop_def(StringAttr)
    access = prop_def(ArrayAttr[DenseArrayBase])
    block = prop_def(DenseArrayBase.constr(i64))
    reg = prop_def(DenseArrayBase.constr(i64))
    chunk = prop_def(IntegerAttr[I64])
    combine = region_def("single_block")
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def __init__(
        self,
        dims: Sequence[SSAValue | Operation],
        width: SSAValue | Operation,
        reads: Sequence[tuple[SSAValue, Sequence[int]]],
        neutral: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        combine: Region,
        body: Region,
        tile: str,
        sizes: TileSizes,
    ):
        super().__init__(
            operands=[dims, width, [r for r, _ in reads], neutral],
            result_types=[result_types],
            properties={
                "tile": StringAttr(tile),
                "access": ArrayAttr([DenseArrayBase.from_list(i64, list(a)) for _, a in reads]),
                **sizes.properties(),
            },
            regions=[combine, body],
        )

    @property
    def accesses(self) -> list[tuple[int, ...]]:
        return [a.get_values() for a in self.access.data]  # pyright: ignore[reportReturnType]

    @property
    def sizes(self) -> TileSizes:
        return TileSizes(
            tuple(self.block.get_values()),  # pyright: ignore[reportArgumentType]
            tuple(self.reg.get_values()),  # pyright: ignore[reportArgumentType]
            self.chunk.value.data,
        )

    @property
    def tile_name(self) -> str:
        return self.tile.data

    def verify_(self) -> None:
        rank = len(self.dims)
        if rank not in (1, 2):
            raise VerifyException(f"'{self.name}' needs an index space of 1 or 2 dimensions, got {rank}")
        if problem := self.sizes.problem(rank):
            raise VerifyException(f"'{self.name}' {problem}")
        accesses = self.accesses
        if len(accesses) != len(self.reads):
            raise VerifyException(f"'{self.name}' has {len(self.reads)} reads but {len(accesses)} index lists")
        elements: list[Attribute] = []
        for r, (array, symbols) in enumerate(zip(self.reads, accesses)):
            assert isinstance(array.type, TensorType)
            if array.type.get_num_dims() != len(symbols):
                raise VerifyException(
                    f"'{self.name}' read #{r} indexes an array of rank {array.type.get_num_dims()} with {len(symbols)} "
                    "indices: every read must give one element"
                )
            if len(set(symbols)) != len(symbols) or any(s != REDUCED and not 0 <= s < rank for s in symbols):
                named = ", ".join(_print_symbol(s) if s >= REDUCED else str(s) for s in symbols)
                raise VerifyException(
                    f"'{self.name}' read #{r} is indexed by [{named}]: each of k, d0..d{rank - 1} may appear once"
                )
            elements.append(array.type.get_element_type())
        ne_types = _check_operator(self, self.combine, self.neutral)
        _check_params(self, self.body, "lambda", elements, "the elements of the reads")
        _check_yields(self, self.body, "lambda", ne_types, "the neutral elements")
        _check_results(self, self.outs.types, [TensorType(t, [-1] * rank) for t in ne_types])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_untyped_operand_list(printer, self.dims)
        printer.print_string(" reduce ")
        printer.print_operand(self.width)
        printer.print_string(" tile ")
        printer.print_string_literal(self.tile_name)
        sizes = self.sizes
        printer.print_string(f" block {list(sizes.block)} reg {list(sizes.reg)} chunk {sizes.chunk} reads(")
        for r, (array, symbols) in enumerate(zip(self.reads, self.accesses)):
            printer.print_string(", " if r else "")
            printer.print_operand(array)
            printer.print_string("[" + ", ".join(_print_symbol(s) for s in symbols) + "]")
        if self.reads:
            printer.print_string(" : ")
            printer.print_list(self.reads.types, printer.print_attribute)
        printer.print_string(") neutral")
        print_operand_list(printer, self.neutral)
        print_result_types(printer, self.outs.types)
        print_lambda(printer, "combine", self.combine)
        print_lambda(printer, "lambda", self.body)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        dims = parse_untyped_operand_list(parser, IndexType())
        parser.parse_keyword("reduce")
        width = parse_index_operand(parser)
        parser.parse_keyword("tile")
        tile = parser.parse_str_literal()
        sizes = TileSizes(
            tuple(_parse_keyword_list(parser, "block")), tuple(_parse_keyword_list(parser, "reg")), _parse_chunk(parser)
        )
        parser.parse_keyword("reads")
        parser.parse_punctuation("(")
        unresolved: list[UnresolvedOperand] = []
        accesses: list[list[int]] = []
        pos = parser.pos
        if parser.parse_optional_punctuation(")") is None:

            def read() -> None:
                unresolved.append(parser.parse_unresolved_operand())
                accesses.append(parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: _parse_symbol(parser)))

            parser.parse_comma_separated_list(parser.Delimiter.NONE, read)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
        else:
            types = []
        arrays = parser.resolve_operands(unresolved, types, pos)
        parser.parse_keyword("neutral")
        neutral = parse_operand_list(parser)
        result_types = parse_result_types(parser)
        combine = parse_lambda(parser, "combine")
        body = parse_lambda(parser, "lambda")
        op = cls(dims, width, list(zip(arrays, accesses)), neutral, result_types, combine, body, tile, sizes)
        return with_parsed_attributes(parser, op)


def _parse_symbol(parser: Parser) -> int:
    pos = parser.pos
    name = parser.parse_identifier()
    if name == "k":
        return REDUCED
    if name.startswith("d") and name[1:].isdigit():
        return int(name[1:])
    parser.raise_error(f"expected an index symbol (k, d0, d1), got '{name}'", pos, parser.pos)


def _parse_keyword_list(parser: Parser, keyword: str) -> list[int]:
    parser.parse_keyword(keyword)
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def _parse_chunk(parser: Parser) -> int:
    parser.parse_keyword("chunk")
    return parser.parse_integer()


@dataclass(frozen=True)
class TileSizes:
    """The tuning parameters of a `soac.tiled_redomap`: elements per work-group and per work-item along each
    dimension of the index space, and elements of the reduction per chunk copied to local memory."""

    block: tuple[int, ...]
    reg: tuple[int, ...]
    chunk: int

    MAX_GROUP: ClassVar[int] = 1024

    @property
    def group_size(self) -> int:
        size = 1
        for b, r in zip(self.block, self.reg):
            size *= b // r
        return size

    def properties(self) -> dict[str, Attribute]:
        return {
            "block": DenseArrayBase.from_list(i64, list(self.block)),
            "reg": DenseArrayBase.from_list(i64, list(self.reg)),
            "chunk": IntegerAttr(self.chunk, i64),
        }

    def problem(self, rank: int) -> str | None:
        """What makes these sizes unusable for an index space of `rank` dimensions, if anything."""
        if len(self.block) != rank or len(self.reg) != rank:
            return f"needs {rank} block and reg size(s), got block {list(self.block)} and reg {list(self.reg)}"
        if any(s <= 0 for s in (*self.block, *self.reg, self.chunk)):
            return f"tile sizes must be positive: block {list(self.block)}, reg {list(self.reg)}, chunk {self.chunk}"
        for d, (b, r) in enumerate(zip(self.block, self.reg)):
            if b % r:
                return f"reg size {r} does not divide block size {b} in dimension {d}"
        if self.group_size > self.MAX_GROUP:
            return f"block {list(self.block)} / reg {list(self.reg)} makes work-groups of {self.group_size} > {self.MAX_GROUP}"
        return None


# ---------------------------------------------------------------------------
# Supporting array ops
# ---------------------------------------------------------------------------


@irdl_op_definition
class IotaOp(IRDLOperation):
    """`iota n` = `[0, 1, ..., n-1]`.

    %is = soac.iota %n : tensor<?xi32>
    """

    name = "soac.iota"

    width = operand_def(IndexType)
    result = result_def(TensorType)

    traits = traits_def(Pure())
    assembly_format = "$width attr-dict `:` type($result)"

    def __init__(self, width: SSAValue | Operation, result_type: TensorType):
        super().__init__(operands=[width], result_types=[result_type])

    def verify_(self) -> None:
        result = self.result.type
        assert isinstance(result, TensorType)
        if result.get_num_dims() != 1 or not is_integer_like(result.get_element_type()):
            raise VerifyException(f"'{self.name}' must give a one-dimensional array of integers, not {result}")


@irdl_op_definition
class ReplicateOp(IRDLOperation):
    """`replicate n v` = `[v, v, ..., v]` (n times; `v` may be an array).

    %zs = soac.replicate %n, %zero : f32 -> tensor<?xf32>
    """

    name = "soac.replicate"

    width = operand_def(IndexType)
    value = operand_def()
    result = result_def(TensorType)

    traits = traits_def(Pure())
    assembly_format = "$width `,` $value attr-dict `:` type($value) `->` type($result)"

    def __init__(self, width: SSAValue | Operation, value: SSAValue | Operation):
        super().__init__(operands=[width, value], result_types=[array_of(SSAValue.get(value).type)])

    def verify_(self) -> None:
        _check_results(self, [self.result.type], [array_of(self.value.type)], "its operands")


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """Rearranges the dimensions of an array: result dimension `i` is input dimension `perm[i]`.

    %t = soac.transpose %m [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
    """

    name = "soac.transpose"

    array = operand_def(TensorType)
    permutation = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(self, array: SSAValue | Operation, permutation: Sequence[int]):
        source = SSAValue.get(array).type
        assert isinstance(source, TensorType)
        shape = source.get_shape()
        super().__init__(
            operands=[array],
            result_types=[TensorType(source.get_element_type(), [shape[p] for p in permutation])],
            properties={"permutation": DenseArrayBase.from_list(i64, permutation)},
        )

    @property
    def perm(self) -> tuple[int, ...]:
        return self.permutation.get_values()  # pyright: ignore[reportReturnType]

    def verify_(self) -> None:
        source, result = self.array.type, self.result.type
        assert isinstance(source, TensorType)
        assert isinstance(result, TensorType)
        rank = source.get_num_dims()
        if sorted(self.perm) != list(range(rank)):
            raise VerifyException(f"'{self.name}' permutation {list(self.perm)} is not a permutation of {rank} dimensions")
        shape = source.get_shape()
        expected = TensorType(source.get_element_type(), [shape[p] for p in self.perm])
        _check_results(self, [result], [expected], "its operands")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.array)
        printer.print_string(" [" + ", ".join(str(p) for p in self.perm) + "]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        unresolved = parser.parse_unresolved_operand()
        perm = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source = parser.parse_type()
        parser.parse_punctuation("->")
        result = parser.parse_type()
        op = cls.create(
            operands=[parser.resolve_operand(unresolved, source)],
            result_types=[result],
            properties={"permutation": DenseArrayBase.from_list(i64, perm)},
            attributes=attrs,
        )
        return op


@irdl_op_definition
class ReshapeOp(IRDLOperation):
    """The elements of an array, in row-major order, as an array of the sizes given (Futhark's `flatten`,
    `unflatten` and reshape). The sizes must hold as many elements as the array, checked when it runs.

    %m = soac.reshape %xs (%n, %k) : tensor<?xf32> -> tensor<?x?xf32>
    %f = soac.reshape %m (%nk) : tensor<?x?xf32> -> tensor<?xf32>
    """

    name = "soac.reshape"

    array = operand_def(TensorType)
    sizes = var_operand_def(IndexType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(self, array: SSAValue | Operation, sizes: Sequence[SSAValue | Operation]):
        source = SSAValue.get(array).type
        assert isinstance(source, TensorType)
        result = TensorType(source.get_element_type(), [DYNAMIC_INDEX] * len(sizes))
        super().__init__(operands=[array, sizes], result_types=[result])

    def verify_(self) -> None:
        source, result = self.array.type, self.result.type
        assert isinstance(source, TensorType)
        assert isinstance(result, TensorType)
        if not self.sizes:
            raise VerifyException(f"'{self.name}' needs at least one size")
        if result.get_num_dims() != len(self.sizes):
            raise VerifyException(
                f"'{self.name}' gives {len(self.sizes)} sizes for a result of rank {result.get_num_dims()} ({result})"
            )
        if result.get_element_type() != source.get_element_type():
            raise VerifyException(
                f"'{self.name}' cannot change the element type {source.get_element_type()} into {result.get_element_type()}"
            )
        if (
            source.has_static_shape()
            and result.has_static_shape()
            and math.prod(source.get_shape()) != math.prod(result.get_shape())
        ):
            raise VerifyException(f"'{self.name}' cannot reshape {source} into {result}: the element counts differ")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.array)
        printer.print_string(" (")
        printer.print_list(self.sizes, printer.print_operand)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        unresolved = parser.parse_unresolved_operand()
        pos = parser.pos
        sizes = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source = parser.parse_type()
        parser.parse_punctuation("->")
        result = parser.parse_type()
        return cls.create(
            operands=[
                parser.resolve_operand(unresolved, source),
                *parser.resolve_operands(sizes, [IndexType()] * len(sizes), pos),
            ],
            result_types=[result],
            attributes=attrs,
        )


@irdl_op_definition
class ReverseOp(IRDLOperation):
    """The array with the order of its elements reversed along each of the dimensions given (JAX's `lax.rev`;
    `[0]`: Futhark's `reverse`, the rows last to first).

    %r = soac.reverse %xs [0] : tensor<?xf32>
    %c = soac.reverse %m [1] : tensor<?x?xf32>
    """

    name = "soac.reverse"

    array = operand_def(TensorType)
    dimensions = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(self, array: SSAValue | Operation, dimensions: Sequence[int] = (0,)):
        super().__init__(
            operands=[array],
            result_types=[SSAValue.get(array).type],
            properties={"dimensions": DenseArrayBase.from_list(i64, dimensions)},
        )

    @property
    def dims(self) -> tuple[int, ...]:
        return self.dimensions.get_values()  # pyright: ignore[reportReturnType]

    def verify_(self) -> None:
        source = self.array.type
        assert isinstance(source, TensorType)
        rank = source.get_num_dims()
        if not self.dims or len(set(self.dims)) != len(self.dims) or not all(0 <= d < rank for d in self.dims):
            raise VerifyException(
                f"'{self.name}' dimensions {list(self.dims)} are not distinct dimensions of an array of rank {rank}"
            )
        _check_results(self, [self.result.type], [source], "its operands")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.array)
        printer.print_string(" [" + ", ".join(str(d) for d in self.dims) + "]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        unresolved = parser.parse_unresolved_operand()
        dims = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(unresolved, source)],
            result_types=[source],
            properties={"dimensions": DenseArrayBase.from_list(i64, dims)},
            attributes=attrs,
        )


@irdl_op_definition
class IndexOp(IRDLOperation):
    """Reads an element (all indices given) or a row (fewer indices) of an array.

    %x = soac.index %xs[%i, %j] : tensor<?x?xf32> -> f32
    """

    name = "soac.index"

    array = operand_def(TensorType)
    indices = var_operand_def(IndexType)
    result = result_def()

    traits = traits_def(Pure())
    assembly_format = "$array `[` $indices `]` attr-dict `:` type($array) `->` type($result)"

    def __init__(self, array: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        element = peel(SSAValue.get(array).type, len(indices))
        assert element is not None
        super().__init__(operands=[array, indices], result_types=[element])

    def verify_(self) -> None:
        element = peel(self.array.type, len(self.indices))
        if element is None or not self.indices:
            raise VerifyException(f"'{self.name}' has {len(self.indices)} indices for an array of type {self.array.type}")
        _check_results(self, [self.result.type], [element], "its operands")


@irdl_op_definition
class SliceOp(IRDLOperation):
    """The rows `start` to `end - 1` of an array.

    %ys = soac.slice %xs[%start : %end] : tensor<?xf32> -> tensor<?xf32>
    """

    name = "soac.slice"

    array = operand_def(TensorType)
    start = operand_def(IndexType)
    end = operand_def(IndexType)
    result = result_def(TensorType)

    traits = traits_def(Pure(), Canonicalization(("SliceOfMapToMapOfSlices",)))
    assembly_format = "$array `[` $start `:` $end `]` attr-dict `:` type($array) `->` type($result)"

    def __init__(self, array: SSAValue | Operation, start: SSAValue | Operation, end: SSAValue | Operation):
        source = SSAValue.get(array).type
        element = row_type(source)
        assert element is not None
        super().__init__(operands=[array, start, end], result_types=[array_of(element)])

    def verify_(self) -> None:
        if (element := row_type(self.array.type)) is None:
            raise VerifyException(f"'{self.name}' needs an array with at least one dimension, not {self.array.type}")
        _check_results(self, [self.result.type], [array_of(element)], "its operands")


@irdl_op_definition
class UpdateOp(IRDLOperation):
    """`xs with [i] = v`: an in-place update that consumes `xs`.

    %ys = soac.update %xs[%i] = %v : tensor<?xf32>, f32
    """

    name = "soac.update"

    T: ClassVar = VarConstraint("T", base(TensorType))

    array = operand_def(T)
    indices = var_operand_def(IndexType)
    value = operand_def()
    result = result_def(T)

    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = "$array `[` $indices `]` `=` $value attr-dict `:` type($array) `,` type($value)"

    def __init__(self, array: SSAValue | Operation, indices: Sequence[SSAValue | Operation], value: SSAValue | Operation):
        super().__init__(operands=[array, indices, value], result_types=[SSAValue.get(array).type])

    def verify_(self) -> None:
        element = peel(self.array.type, len(self.indices))
        if element is None or not self.indices:
            raise VerifyException(f"'{self.name}' has {len(self.indices)} indices for an array of type {self.array.type}")
        if not compatible(self.value.type, element):
            raise VerifyException(f"'{self.name}' writes a value of type {self.value.type} where the array holds {element}")
        check_consumed(self, self.array)


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


SOAC_WITH_LAMBDAS: tuple[type[IRDLOperation], ...] = (
    MapOp,
    ReduceOp,
    ScanOp,
    RedomapOp,
    ScanomapOp,
    ScatterOp,
    HistOp,
    PartitionOp,
    SegmapOp,
    SegredOp,
    SegscanOp,
    SeghistOp,
    TiledRedomapOp,
    StencilOp,
)

Soac = Dialect(
    "soac",
    [
        MapOp,
        ReduceOp,
        ScanOp,
        RedomapOp,
        ScanomapOp,
        ScatterOp,
        HistOp,
        PartitionOp,
        SegmapOp,
        SegredOp,
        SegscanOp,
        SeghistOp,
        TiledRedomapOp,
        StencilOp,
        IotaOp,
        ReplicateOp,
        TransposeOp,
        ReshapeOp,
        ReverseOp,
        IndexOp,
        SliceOp,
        UpdateOp,
        ThresholdOp,
        AssertOp,
        YieldOp,
    ],
    [LevelAttr],
)
