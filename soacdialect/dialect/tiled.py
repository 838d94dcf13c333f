"""`soac.tiled_redomap`, what `soac-tile` makes of a redomap nest (matrix multiplication), and its tile sizes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Self

from soac.dialect.base import YieldOp
from soac.dialect.lambdas import check_operator, check_params, check_results, check_yields
from soac.dialect.sizes import Extent, ResultDimsInterface
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
from xdsl.dialects.builtin import I64, ArrayAttr, DenseArrayBase, IndexType, IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Operation, Region, SSAValue
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
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

REDUCED = -1
"""The symbol `k` (the reduced dimension) in a `soac.tiled_redomap` read; symbols `0, 1, ...` are `d0, d1, ...`."""


STAGED_ROWS = "staged_rows"
"""A `soac.tiled_redomap` with this unit attribute stages its reads of every outer symbol and `k` (`%x[d0, k]`: a
work-item's own row) through local-memory tiles too, so that the group's copies of them are coalesced
(`soac-coalesce`'s row-tiles rule, `passes/coalesce_row_tiles.py`); without it such reads come from global memory."""


def _print_symbol(symbol: int) -> str:
    return "k" if symbol == REDUCED else f"d{symbol}"


@irdl_op_definition
class TiledRedomapOp(IRDLOperation, ResultDimsInterface):
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
    def stages_rows(self) -> bool:
        """Whether reads with every outer symbol and `k` are staged in local memory too (`STAGED_ROWS`)."""
        return STAGED_ROWS in self.attributes

    @property
    def tile_name(self) -> str:
        return self.tile.data

    def result_dims(self, index: int) -> list[Extent]:
        return list(self.dims)

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
        ne_types = check_operator(self, self.combine, self.neutral)
        check_params(self, self.body, "lambda", elements, "the elements of the reads")
        check_yields(self, self.body, "lambda", ne_types, "the neutral elements")
        check_results(self, self.outs.types, [TensorType(t, [-1] * rank) for t in ne_types])

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
