"""`soac.stencil`: a map whose lambda sees a fixed window of neighbours, and the limits of its tiles."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Self

from soac.dialect.attributes import StencilBoundary, StencilBoundaryAttr
from soac.dialect.base import YieldOp
from soac.dialect.lambdas import check_params, check_results, lambda_block, yielded_types
from soac.dialect.sizes import Extent, ResultDimsInterface
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
from soac.types import array_of_rank, format_types
from xdsl.dialects.builtin import DenseArrayBase, IndexType, TensorType, i64
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
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

STENCIL_BOUNDARIES = tuple(b.value for b in StencilBoundary)
"""The boundary conditions by name (`StencilBoundary`): `clamp`, `mirror`, `wrap`, `constant`."""
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
class StencilOp(IRDLOperation, ResultDimsInterface):
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
    boundary = prop_def(StencilBoundaryAttr)
    tile = opt_prop_def(DenseArrayBase.constr(i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def __init__(
        self,
        dims: Sequence[SSAValue | Operation],
        window: Sequence[int],
        boundary: str | StencilBoundary,
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        body: Region,
        constants: Sequence[SSAValue | Operation] = (),
        tile: Sequence[int] | None = None,
    ):
        properties: dict[str, Attribute] = {
            "window": DenseArrayBase.from_list(i64, list(window)),
            "boundary": StencilBoundaryAttr(StencilBoundary(boundary)),
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


    def result_dims(self, index: int) -> list[Extent]:
        return list(self.dims)

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
        takes, expected = len(lambda_block(self, self.body, "lambda").args), points * len(elements)
        if takes != expected and expected > STENCIL_LISTED_PARAMETERS:
            raise VerifyException(
                f"'{self.name}' lambda takes {takes} parameter{'' if takes == 1 else 's'} but {expected} are expected "
                f"({points} neighbours of each of {len(elements)} input{'' if len(elements) == 1 else 's'})"
            )
        check_params(
            self, self.body, "lambda", [e for e in elements for _ in range(points)], f"{points} neighbours of each input"
        )
        yielded = yielded_types(self, self.body, "lambda")
        if any(isinstance(t, TensorType) for t in yielded):
            raise VerifyException(f"'{self.name}' lambda must yield scalars, got {format_types(yielded)}")
        check_results(self, self.outs.types, [array_of_rank(t, rank) for t in yielded])

    def _check_inputs_and_constants(self) -> list[Attribute]:
        """The boundary, the inputs (arrays of scalars of the index space's rank) and the constants; gives the
        inputs' element types."""
        rank = len(self.dims)
        boundary = self.boundary.data
        if not self.inputs:
            raise VerifyException(f"'{self.name}' needs at least one input")
        elements: list[Attribute] = []
        for i, value in enumerate(self.inputs):
            t = value.type
            if not isinstance(t, TensorType) or t.get_num_dims() != rank or isinstance(t.get_element_type(), TensorType):
                raise VerifyException(f"'{self.name}' input #{i} has type {t}, expected a {rank}-D array of scalars")
            elements.append(t.get_element_type())
        if boundary == StencilBoundary.CONSTANT and len(self.constants) != len(self.inputs):
            raise VerifyException(
                f"'{self.name}' boundary constant needs one value per input ({len(self.inputs)}), got {len(self.constants)}"
            )
        if boundary != StencilBoundary.CONSTANT and self.constants:
            raise VerifyException(f"'{self.name}' boundary {boundary} takes no constants")
        for i, (value, element) in enumerate(zip(self.constants, elements)):
            if value.type != element:
                raise VerifyException(f"'{self.name}' constant #{i} has type {value.type}, expected {element} from input #{i}")
        return elements

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_untyped_operand_list(printer, self.dims)
        printer.print_string(f" window [{', '.join(map(str, self.window_shape))}] ")
        self.boundary.print_parameter(printer)
        if self.boundary.data == StencilBoundary.CONSTANT:
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
