"""Host-side ops of the kernel dialect: device memory, launches, thresholds and run-time checks.

Inside `func.func` (scf for control flow):

    %buf = kernel.alloc %n : !kernel.buffer<global, f32>
    kernel.launch @scale(%xs, %buf, %n : ...) global %g local %l
    %s = kernel.read %buf[%i] : !kernel.buffer<global, f32> -> f32
    kernel.write %s, %buf[%i] : f32, !kernel.buffer<global, f32>
    kernel.copy %n from %a[%i] to %b[%j] : !kernel.buffer<global, f32>
    %t = kernel.threshold "suff_outer_par_0" default 32768
    kernel.check_eq %n, %rows "f.mlir:3:5: 'soac.map': width {0} does not match the outer size {1} of input #0"
    kernel.assert %ok, "f.mlir:3:5: 'soac.index': index {0} is out of bounds for dimension 0 of size {1}" (%i, %n : index, index)
    %errors = kernel.error_buffer : !kernel.buffer<global, i64>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from soac.dialect import OnDevice, parse_on_device, print_on_device, verify_on_device
from soac.lowering.kernel.device import FuncOp
from soac.lowering.kernel.types import (
    BufferType,
    buffer_of,
    check_element,
    check_message,
    check_values,
    error_buffer_type,
    global_buffer,
    parse_values,
    print_values,
)
from soac.syntax import with_parsed_attributes
from xdsl.dialects.builtin import (
    I1,
    I64,
    IndexType,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException


class _HostOp(IRDLOperation):
    def verify_host(self) -> None:
        parent = self.parent_op()
        while parent is not None:
            if isinstance(parent, FuncOp):
                raise VerifyException(f"'{self.name}' is a host operation and cannot appear inside a kernel.func")
            parent = parent.parent_op()


@irdl_op_definition
class AllocOp(_HostOp):
    """Allocates a global device buffer of `%size` elements.

    %buf = kernel.alloc %n : !kernel.buffer<global, f32>
    """

    name = "kernel.alloc"

    size = operand_def(IndexType)
    result = result_def(BufferType)

    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$size attr-dict `:` type($result)"

    def __init__(self, size: SSAValue | Operation, element_type: Attribute):
        super().__init__(operands=[size], result_types=[global_buffer(element_type)])

    def verify_(self) -> None:
        buffer_of(self, self.result, "global")
        self.verify_host()


@irdl_op_definition
class CopyOp(_HostOp):
    """Copies `%count` elements between global buffers (device to device).

    kernel.copy %count from %src[%i] to %dst[%j] : !kernel.buffer<global, f32>
    """

    name = "kernel.copy"

    T: ClassVar = VarConstraint("T", base(BufferType))

    count = operand_def(IndexType)
    source = operand_def(T)
    source_offset = operand_def(IndexType)
    dest = operand_def(T)
    dest_offset = operand_def(IndexType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$count `from` $source `[` $source_offset `]` `to` $dest `[` $dest_offset `]` attr-dict `:` type($source)"

    def __init__(
        self,
        count: SSAValue | Operation,
        source: SSAValue | Operation,
        source_offset: SSAValue | Operation,
        dest: SSAValue | Operation,
        dest_offset: SSAValue | Operation,
    ):
        super().__init__(operands=[count, source, source_offset, dest, dest_offset])

    def verify_(self) -> None:
        if self.source.type != self.dest.type:
            raise VerifyException(f"'{self.name}' copies between different buffer types {self.source.type} and {self.dest.type}")
        self.verify_host()


@irdl_op_definition
class ReadOp(_HostOp):
    """Reads one element of a device buffer back to the host.

    %x = kernel.read %buf[%i] : !kernel.buffer<global, f32> -> f32
    """

    name = "kernel.read"

    buffer = operand_def(BufferType)
    index = operand_def(IndexType)
    result = result_def()

    traits = traits_def(MemoryReadEffect())
    assembly_format = "$buffer `[` $index `]` attr-dict `:` type($buffer) `->` type($result)"

    def __init__(self, buffer: SSAValue | Operation, index: SSAValue | Operation):
        buffer_type = SSAValue.get(buffer).type
        assert isinstance(buffer_type, BufferType)
        super().__init__(operands=[buffer, index], result_types=[buffer_type.element_type])

    def verify_(self) -> None:
        check_element(self, buffer_of(self, self.buffer, "global"), self.result.type, "result")
        self.verify_host()


@irdl_op_definition
class WriteOp(_HostOp):
    """Writes one host value into a device buffer.

    kernel.write %x, %buf[%i] : f32, !kernel.buffer<global, f32>
    """

    name = "kernel.write"

    value = operand_def()
    buffer = operand_def(BufferType)
    index = operand_def(IndexType)

    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$value `,` $buffer `[` $index `]` attr-dict `:` type($value) `,` type($buffer)"

    def __init__(self, value: SSAValue | Operation, buffer: SSAValue | Operation, index: SSAValue | Operation):
        super().__init__(operands=[value, buffer, index])

    def verify_(self) -> None:
        check_element(self, buffer_of(self, self.buffer, "global"), self.value.type, "value")
        self.verify_host()


@irdl_op_definition
class LaunchOp(_HostOp):
    """Launches a kernel over a one-dimensional NDRange.

    kernel.launch @k(%xs, %n : !kernel.buffer<global, f32>, index) global %g local %l
    """

    name = "kernel.launch"

    kernel = prop_def(SymbolRefAttr)
    args = var_operand_def()
    global_size = operand_def(IndexType)
    local_size = operand_def(IndexType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        kernel: str,
        args: Sequence[SSAValue | Operation],
        global_size: SSAValue | Operation,
        local_size: SSAValue | Operation,
    ):
        super().__init__(operands=[args, global_size, local_size], properties={"kernel": SymbolRefAttr(kernel)})

    @property
    def kernel_name(self) -> str:
        return self.kernel.root_reference.data

    def verify_(self) -> None:
        self.verify_host()
        callee = SymbolTable.lookup_symbol(self, self.kernel)
        if callee is None:
            return
        if not isinstance(callee, FuncOp):
            raise VerifyException(f"'{self.name}' @{self.kernel_name} is not a kernel.func")
        expected = list(callee.function_type.inputs)
        got = [a.type for a in self.args]
        if got != expected:
            raise VerifyException(
                f"'{self.name}' @{self.kernel_name} gets arguments ({', '.join(map(str, got))}) "
                f"but the kernel takes ({', '.join(map(str, expected))})"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" @{self.kernel_name}(")
        printer.print_list(self.args, printer.print_operand)
        if self.args:
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)
        printer.print_string(") global ")
        printer.print_operand(self.global_size)
        printer.print_string(" local ")
        printer.print_operand(self.local_size)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        name = parser.parse_symbol_name().data
        parser.parse_punctuation("(")
        args: list[SSAValue] = []
        if parser.parse_optional_punctuation(")") is None:
            pos = parser.pos
            unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            args = parser.resolve_operands(unresolved, types, pos)
        parser.parse_keyword("global")
        global_size = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_keyword("local")
        local_size = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        op = cls(name, args, global_size, local_size)
        return with_parsed_attributes(parser, op)


@irdl_op_definition
class ThresholdOp(_HostOp):
    """Reads a tunable threshold's value (from the run's threshold dict, else the device's figure named by
    `device` where there is one, else `default`).

    %t = kernel.threshold "suff_outer_par_0" default 32768 device "resident"
    """

    name = "kernel.threshold"

    threshold = prop_def(StringAttr)
    default = prop_def(IntegerAttr[I64])
    on_device = opt_prop_def(StringAttr)
    result = result_def(IndexType)

    traits = traits_def(Pure())

    def __init__(self, threshold: str, default: int, on_device: OnDevice | None = None):
        properties: dict[str, Attribute] = {"threshold": StringAttr(threshold), "default": IntegerAttr(default, i64)}
        if on_device is not None:
            properties["on_device"] = StringAttr(on_device.value)
        super().__init__(properties=properties, result_types=[IndexType()])

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
        self.verify_host()
        verify_on_device(self, self.on_device)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.threshold_name)
        printer.print_string(f" default {self.default_value}")
        print_on_device(printer, self.on_device)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        name = parser.parse_str_literal()
        parser.parse_keyword("default")
        op = cls(name, parser.parse_integer(), parse_on_device(parser))
        return with_parsed_attributes(parser, op)


@irdl_op_definition
class CheckEqOp(_HostOp):
    """Fails the run with `message`, its `{0}` and `{1}` replaced by the values, unless `%lhs == %rhs`; checks sizes
    before launches.

    kernel.check_eq %n, %rows "f.mlir:3:5: 'soac.map': width {0} does not match the outer size {1} of input #0"
    """

    name = "kernel.check_eq"

    lhs = operand_def(IndexType)
    rhs = operand_def(IndexType)
    message = prop_def(StringAttr)

    traits = traits_def(MemoryWriteEffect())

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation, message: str):
        super().__init__(operands=[lhs, rhs], properties={"message": StringAttr(message)})

    def verify_(self) -> None:
        self.verify_host()
        check_message(self, self.message.data, 2)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        printer.print_string(" ")
        printer.print_string_literal(self.message.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        lhs = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_punctuation(",")
        rhs = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        op = cls(lhs, rhs, parser.parse_str_literal())
        return with_parsed_attributes(parser, op)


@irdl_op_definition
class AssertOp(_HostOp):
    """Fails the run with `message`, its `{k}` replaced by the values, unless `%cond` holds.

    kernel.assert %ok, "f.mlir:3:5: 'soac.slice': slice [{0}:{1}] is out of bounds ..." (%s, %e : index, index)
    """

    name = "kernel.assert"

    cond = operand_def(I1)
    values = var_operand_def()
    message = prop_def(StringAttr)

    traits = traits_def(MemoryWriteEffect())

    def __init__(self, cond: SSAValue | Operation, message: str, values: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[cond, values], properties={"message": StringAttr(message)})

    def verify_(self) -> None:
        self.verify_host()
        check_values(self, self.values)
        check_message(self, self.message.data, len(self.values))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        printer.print_string(", ")
        printer.print_string_literal(self.message.data)
        print_values(printer, self.values)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        cond = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        parser.parse_punctuation(",")
        message = parser.parse_str_literal()
        op = cls(cond, message, parse_values(parser))
        return with_parsed_attributes(parser, op)


@irdl_op_definition
class ErrorBufferOp(_HostOp):
    """The current call's error buffer, which kernels that can fail record their first failure in.

    %errors = kernel.error_buffer : !kernel.buffer<global, i64>
    """

    name = "kernel.error_buffer"

    result = result_def(BufferType)

    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[error_buffer_type()])

    def verify_(self) -> None:
        self.verify_host()
        if self.result.type != error_buffer_type():
            raise VerifyException(f"'{self.name}' gives a {error_buffer_type()}, not {self.result.type}")
