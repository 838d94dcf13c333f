"""Device-side structure of the kernel dialect: kernel functions, work-item queries, barriers, local
memory, plain loads and stores, and device assertions.

    kernel.func @scale(%xs: !kernel.buffer<global, f32>, %n: index) {
      %gid = kernel.global_id 0
      %tile = kernel.local_alloc 256 : !kernel.buffer<local, f32>
      %x = kernel.load %xs[%gid] : !kernel.buffer<global, f32> -> f32
      kernel.store %x, %tile[%lid] : f32, !kernel.buffer<local, f32>
      kernel.barrier local
      kernel.return
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from soac.lowering.kernel.types import (
    ERROR_VALUES,
    BufferType,
    buffer_of,
    check_element,
    check_message,
    check_values,
    error_buffer_type,
    parse_values,
    print_values,
)
from soac.syntax import with_parsed_attributes
from xdsl.dialects.builtin import (
    I1,
    I64,
    FunctionType,
    IndexType,
    IntegerAttr,
    StringAttr,
    UnitAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasAncestor,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """Ends a kernel function."""

    name = "kernel.return"

    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(FuncOp), Pure()))
    assembly_format = "attr-dict"


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A kernel: its arguments are global buffers and scalars; it returns nothing.

    kernel.func @k(%xs: !kernel.buffer<global, f32>, %n: index) { ... kernel.return }

    `index_bitwidth 32` after the arguments makes `index` a 32-bit integer in the kernel, its scalar arguments
    included (MLIR's `index-bitwidth` of the lowering to LLVM): for kernels whose host launches them only where
    every index fits (`strategies/partition.py` versions its kernels by size).

    kernel.func @k(%xs: !kernel.buffer<global, f32>, %n: index) index_bitwidth 32 { ... kernel.return }
    """

    name = "kernel.func"

    sym_name = prop_def(StringAttr, prop_name="sym_name")
    function_type = prop_def(FunctionType)
    index_bitwidth = opt_prop_def(IntegerAttr[I64])
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(self, name: str, arg_types: Sequence[Attribute], body: Region, index_bitwidth: int | None = None):
        properties: dict[str, Attribute] = {"sym_name": StringAttr(name), "function_type": FunctionType.from_lists(arg_types, [])}
        if index_bitwidth is not None:
            properties["index_bitwidth"] = IntegerAttr(index_bitwidth, i64)
        super().__init__(properties=properties, regions=[body])

    @property
    def kernel_name(self) -> str:
        return self.sym_name.data

    @property
    def index_bits(self) -> int:
        """The width of `index` in the kernel: 64 unless `index_bitwidth` says 32."""
        return 64 if self.index_bitwidth is None else self.index_bitwidth.value.data

    def verify_(self) -> None:
        block = self.body.block
        if list(block.arg_types) != list(self.function_type.inputs):
            raise VerifyException(f"'{self.name}' @{self.kernel_name}: block arguments do not match the function type")
        if self.function_type.outputs.data:
            raise VerifyException(f"'{self.name}' @{self.kernel_name} cannot return values")
        for arg in block.args:
            if isinstance(arg.type, BufferType) and arg.type.space_name != "global":
                raise VerifyException(f"'{self.name}' @{self.kernel_name}: buffer arguments must be global")
        if not isinstance(block.last_op, ReturnOp):
            raise VerifyException(f"'{self.name}' @{self.kernel_name} must end with kernel.return")
        if self.index_bits not in (32, 64):
            raise VerifyException(f"'{self.name}' @{self.kernel_name}: index_bitwidth must be 32 or 64, got {self.index_bits}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" @" + self.kernel_name + "(")
        printer.print_list(self.body.block.args, printer.print_block_argument)
        printer.print_string(") ")
        if self.index_bitwidth is not None:
            printer.print_string(f"index_bitwidth {self.index_bits} ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        name = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        bits = parser.parse_integer() if parser.parse_optional_keyword("index_bitwidth") is not None else None
        body = parser.parse_region(args)
        op = cls(name, [a.type for a in args], body, bits)
        return with_parsed_attributes(parser, op)


class WorkItemQuery(IRDLOperation):
    """`%gid = kernel.global_id 0`: where the work-item is in the grid, or how large the grid is, along dimension
    0, 1 or 2 (an `index`)."""

    dim = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)

    traits = traits_def(Pure(), HasAncestor(FuncOp))
    assembly_format = "$dim attr-dict"

    def __init__(self, dim: int = 0):
        super().__init__(properties={"dim": IntegerAttr(dim, i64)}, result_types=[IndexType()])

    @property
    def dimension(self) -> int:
        return self.dim.value.data

    def verify_(self) -> None:
        if not 0 <= self.dimension <= 2:
            raise VerifyException(f"'{self.name}' dimension must be 0, 1 or 2, got {self.dimension}")


@irdl_op_definition
class GlobalIdOp(WorkItemQuery):
    name = "kernel.global_id"


@irdl_op_definition
class LocalIdOp(WorkItemQuery):
    name = "kernel.local_id"


@irdl_op_definition
class GroupIdOp(WorkItemQuery):
    name = "kernel.group_id"


@irdl_op_definition
class GlobalSizeOp(WorkItemQuery):
    name = "kernel.global_size"


@irdl_op_definition
class LocalSizeOp(WorkItemQuery):
    name = "kernel.local_size"


@irdl_op_definition
class NumGroupsOp(WorkItemQuery):
    name = "kernel.num_groups"


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """A work-group barrier with memory fence flags: `kernel.barrier local`, `kernel.barrier local global`."""

    name = "kernel.barrier"

    local_fence = opt_prop_def(UnitAttr)
    global_fence = opt_prop_def(UnitAttr)

    traits = traits_def(HasAncestor(FuncOp))
    assembly_format = "(`local` $local_fence^)? (`global` $global_fence^)? attr-dict"

    def __init__(self, local: bool = True, global_: bool = False):
        properties: dict[str, Attribute] = {}
        if local:
            properties["local_fence"] = UnitAttr()
        if global_:
            properties["global_fence"] = UnitAttr()
        super().__init__(properties=properties)

    @property
    def fences(self) -> list[str]:
        return [name for name, attr in (("local", self.local_fence), ("global", self.global_fence)) if attr is not None]

    def verify_(self) -> None:
        if not self.fences:
            raise VerifyException(f"'{self.name}' needs at least one fence flag (local or global)")


class _StaticAllocOp(IRDLOperation):
    """An array of a static number of elements in the address space `SPACE`."""

    SPACE: ClassVar[str]

    size = prop_def(IntegerAttr[I64])
    result = result_def(BufferType)

    traits = traits_def(HasAncestor(FuncOp))
    assembly_format = "$size attr-dict `:` type($result)"

    def __init__(self, size: int, element_type: Attribute):
        super().__init__(properties={"size": IntegerAttr(size, i64)}, result_types=[BufferType(self.SPACE, element_type)])

    @property
    def num_elements(self) -> int:
        return self.size.value.data

    def verify_(self) -> None:
        buffer_of(self, self.result, self.SPACE)
        if self.num_elements <= 0:
            raise VerifyException(f"'{self.name}' size must be positive, got {self.num_elements}")


@irdl_op_definition
class LocalAllocOp(_StaticAllocOp):
    """A work-group local array of a static number of elements.

    %tile = kernel.local_alloc 256 : !kernel.buffer<local, f32>
    """

    name = "kernel.local_alloc"
    SPACE: ClassVar[str] = "local"

    def verify_(self) -> None:
        super().verify_()
        if not isinstance(self.parent_op(), FuncOp):
            raise VerifyException(f"'{self.name}' must be at the top level of a kernel.func")


@irdl_op_definition
class PrivateAllocOp(_StaticAllocOp):
    """A work-item's own array of a static number of elements; indexed in loops marked `kernel.unroll` (see
    `UNROLL`), it stays in registers.

    %keys = kernel.private_alloc 16 : !kernel.buffer<private, i32>
    """

    name = "kernel.private_alloc"
    SPACE: ClassVar[str] = "private"


UNROLL = "kernel.unroll"
"""An attribute of an `scf.for` in a kernel: unroll it, fully where it is a unit attribute (`#pragma unroll`, e.g. so
that the private arrays it indexes by its induction variable stay in registers), by a factor where it is an integer
(`#pragma unroll 8`: several elements' loads in flight)."""


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%x = kernel.load %buf[%i] : !kernel.buffer<global, f32> -> f32`, in a kernel."""

    name = "kernel.load"

    buffer = operand_def(BufferType)
    index = operand_def(IndexType)
    result = result_def()

    traits = traits_def(MemoryReadEffect(), HasAncestor(FuncOp))
    assembly_format = "$buffer `[` $index `]` attr-dict `:` type($buffer) `->` type($result)"

    def __init__(self, buffer: SSAValue | Operation, index: SSAValue | Operation):
        buffer_type = SSAValue.get(buffer).type
        assert isinstance(buffer_type, BufferType)
        super().__init__(operands=[buffer, index], result_types=[buffer_type.element_type])

    def verify_(self) -> None:
        check_element(self, buffer_of(self, self.buffer), self.result.type, "result")


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`kernel.store %x, %buf[%i] : f32, !kernel.buffer<global, f32>`, in a kernel."""

    name = "kernel.store"

    value = operand_def()
    buffer = operand_def(BufferType)
    index = operand_def(IndexType)

    traits = traits_def(MemoryWriteEffect(), HasAncestor(FuncOp))
    assembly_format = "$value `,` $buffer `[` $index `]` attr-dict `:` type($value) `,` type($buffer)"

    def __init__(self, value: SSAValue | Operation, buffer: SSAValue | Operation, index: SSAValue | Operation):
        super().__init__(operands=[value, buffer, index])

    def verify_(self) -> None:
        check_element(self, buffer_of(self, self.buffer), self.value.type, "value")


@irdl_op_definition
class DeviceAssertOp(IRDLOperation):
    """In a kernel: unless `%cond` holds, record failure `code` and the values in `%errors`, if nothing failed before.

    kernel.device_assert %ok in %errors code 3 "f.mlir:3:5: 'soac.index': index {0} ..." (%i, %n : index, index)

    The kernel goes on (the lowering skips the faulty access); the runtime reports
    the message of the first recorded code, with the recorded values, after the call.
    """

    name = "kernel.device_assert"

    cond = operand_def(I1)
    errors = operand_def(BufferType)
    values = var_operand_def()
    code = prop_def(IntegerAttr[I64])
    message = prop_def(StringAttr)

    traits = traits_def(MemoryWriteEffect(), HasAncestor(FuncOp))

    def __init__(
        self,
        cond: SSAValue | Operation,
        errors: SSAValue | Operation,
        code: int,
        message: str,
        values: Sequence[SSAValue | Operation] = (),
    ):
        super().__init__(
            operands=[cond, errors, values],
            properties={"code": IntegerAttr(code, i64), "message": StringAttr(message)},
        )

    @property
    def error_code(self) -> int:
        return self.code.value.data

    def verify_(self) -> None:
        if self.errors.type != error_buffer_type():
            raise VerifyException(f"'{self.name}' records into a {error_buffer_type()}, not {self.errors.type}")
        if self.error_code <= 0 or self.error_code >= 2**31:
            raise VerifyException(f"'{self.name}' code must be a positive int32, got {self.error_code}")
        if len(self.values) > ERROR_VALUES:
            raise VerifyException(f"'{self.name}' records at most {ERROR_VALUES} values, got {len(self.values)}")
        check_values(self, self.values)
        check_message(self, self.message.data, len(self.values))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        printer.print_string(" in ")
        printer.print_operand(self.errors)
        printer.print_string(f" code {self.error_code} ")
        printer.print_string_literal(self.message.data)
        print_values(printer, self.values)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        cond = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        parser.parse_keyword("in")
        errors = parser.resolve_operand(parser.parse_unresolved_operand(), error_buffer_type())
        parser.parse_keyword("code")
        code = parser.parse_integer()
        message = parser.parse_str_literal()
        op = cls(cond, errors, code, message, parse_values(parser))
        return with_parsed_attributes(parser, op)
