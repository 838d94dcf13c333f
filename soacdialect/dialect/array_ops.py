"""The supporting array ops: iota, replicate, transpose, reshape, reverse, rotate, index, slice and update."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar, Self

from soac.dialect.base import Canonicalization
from soac.dialect.consumption import check_consumed
from soac.dialect.lambdas import check_results
from soac.dialect.sizes import DimOf, Extent, ResultDimsInterface, dims_of, rows_of
from soac.types import array_of, compatible, is_integer_like, peel, row_type
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
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
class IotaOp(IRDLOperation, ResultDimsInterface):
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


    def result_dims(self, index: int) -> list[Extent]:
        return [self.width]

    def verify_(self) -> None:
        result = self.result.type
        assert isinstance(result, TensorType)
        if result.get_num_dims() != 1 or not is_integer_like(result.get_element_type()):
            raise VerifyException(f"'{self.name}' must give a one-dimensional array of integers, not {result}")


@irdl_op_definition
class ReplicateOp(IRDLOperation, ResultDimsInterface):
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


    def result_dims(self, index: int) -> list[Extent]:
        return rows_of(self.width, self.value)

    def verify_(self) -> None:
        check_results(self, [self.result.type], [array_of(self.value.type)], "its operands")


@irdl_op_definition
class TransposeOp(IRDLOperation, ResultDimsInterface):
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


    def result_dims(self, index: int) -> list[Extent]:
        return [DimOf(self.array, p) for p in self.perm]

    def verify_(self) -> None:
        source, result = self.array.type, self.result.type
        assert isinstance(source, TensorType)
        assert isinstance(result, TensorType)
        rank = source.get_num_dims()
        if sorted(self.perm) != list(range(rank)):
            raise VerifyException(f"'{self.name}' permutation {list(self.perm)} is not a permutation of {rank} dimensions")
        shape = source.get_shape()
        expected = TensorType(source.get_element_type(), [shape[p] for p in self.perm])
        check_results(self, [result], [expected], "its operands")

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
class ReshapeOp(IRDLOperation, ResultDimsInterface):
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


    def result_dims(self, index: int) -> list[Extent]:
        return list(self.sizes)

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
class ReverseOp(IRDLOperation, ResultDimsInterface):
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


    def result_dims(self, index: int) -> list[Extent]:
        return dims_of(self.array)

    def verify_(self) -> None:
        source = self.array.type
        assert isinstance(source, TensorType)
        rank = source.get_num_dims()
        if not self.dims or len(set(self.dims)) != len(self.dims) or not all(0 <= d < rank for d in self.dims):
            raise VerifyException(
                f"'{self.name}' dimensions {list(self.dims)} are not distinct dimensions of an array of rank {rank}"
            )
        check_results(self, [self.result.type], [source], "its operands")

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
class RotateOp(IRDLOperation, ResultDimsInterface):
    """The rows of an array rotated left by `amount` (Futhark's `rotate`): row `i` of the result is row
    `(i + amount) mod n` of the array, for any amount (negative: to the right; `np.roll(xs, s)` is a rotation by
    `-s`). An array without rows stays empty.

    %r = soac.rotate %xs by %k : tensor<?xf32>
    """

    name = "soac.rotate"

    T: ClassVar = VarConstraint("T", base(TensorType))

    array = operand_def(T)
    amount = operand_def(IndexType)
    result = result_def(T)

    traits = traits_def(Pure())
    assembly_format = "$array `by` $amount attr-dict `:` type($array)"

    def __init__(self, array: SSAValue | Operation, amount: SSAValue | Operation):
        super().__init__(operands=[array, amount], result_types=[SSAValue.get(array).type])

    def result_dims(self, index: int) -> list[Extent]:
        return dims_of(self.array)

    def verify_(self) -> None:
        if row_type(self.array.type) is None:
            raise VerifyException(f"'{self.name}' needs an array with at least one dimension, not {self.array.type}")


STAGED = "staged"
"""The unit attribute of a `soac.index` of a row in a group-level segmap's lambda that the work-group copies into
local memory (soac-small-intra makes them; elsewhere, and to the interpreter, it is an ordinary read)."""
STAGED_CAPACITY = 1024
"""The elements of local memory a work-group gives one staged row (soac-small-intra checks the rows fit)."""


@irdl_op_definition
class IndexOp(IRDLOperation, ResultDimsInterface):
    """Reads an element (all indices given) or a row (fewer indices) of an array.

    %x = soac.index %xs[%i, %j] : tensor<?x?xf32> -> f32
    %block = soac.index %xs[%q] {staged} : tensor<?x?x?xf32> -> tensor<?x?xf32>   // `STAGED`: in local memory
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


    def result_dims(self, index: int) -> list[Extent]:
        return dims_of(self.array, len(self.indices))

    def verify_(self) -> None:
        element = peel(self.array.type, len(self.indices))
        if element is None or not self.indices:
            raise VerifyException(f"'{self.name}' has {len(self.indices)} indices for an array of type {self.array.type}")
        check_results(self, [self.result.type], [element], "its operands")
        if STAGED in self.attributes and not isinstance(element, TensorType):
            raise VerifyException(f"'{self.name}' {{{STAGED}}} must read a row, not an element of {self.array.type}")


@irdl_op_definition
class SliceOp(IRDLOperation, ResultDimsInterface):
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


    def result_dims(self, index: int) -> list[Extent]:
        return [None, *dims_of(self.array, 1)]

    def verify_(self) -> None:
        if (element := row_type(self.array.type)) is None:
            raise VerifyException(f"'{self.name}' needs an array with at least one dimension, not {self.array.type}")
        check_results(self, [self.result.type], [array_of(element)], "its operands")


@irdl_op_definition
class UpdateOp(IRDLOperation, ResultDimsInterface):
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


    def result_dims(self, index: int) -> list[Extent]:
        return dims_of(self.array)

    def verify_(self) -> None:
        element = peel(self.array.type, len(self.indices))
        if element is None or not self.indices:
            raise VerifyException(f"'{self.name}' has {len(self.indices)} indices for an array of type {self.array.type}")
        if not compatible(self.value.type, element):
            raise VerifyException(f"'{self.name}' writes a value of type {self.value.type} where the array holds {element}")
        check_consumed(self, self.array)
