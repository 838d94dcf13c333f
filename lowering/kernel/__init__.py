"""The `kernel` dialect: OpenCL-style GPU kernels and the host code that launches them.

Device side, inside `kernel.func`:

    kernel.func @scale(%xs: !kernel.buffer<global, f32>, %out: !kernel.buffer<global, f32>, %n: index) {
      %gid = kernel.global_id 0
      %tile = kernel.local_alloc 256 : !kernel.buffer<local, f32>
      %x = kernel.load %xs[%gid] : !kernel.buffer<global, f32> -> f32
      kernel.store %x, %tile[%lid] : f32, !kernel.buffer<local, f32>
      kernel.barrier local
      %old = kernel.atomic add %counter[%zero], %one : !kernel.buffer<global, i32>, i32
      kernel.return
    }

Host side, inside `func.func` (scf for control flow):

    %buf = kernel.alloc %n : !kernel.buffer<global, f32>
    kernel.launch @scale(%xs, %buf, %n : ...) global %g local %l
    %s = kernel.read %buf[%i] : !kernel.buffer<global, f32> -> f32
    kernel.write %s, %buf[%i] : f32, !kernel.buffer<global, f32>
    kernel.copy %n from %a[%i] to %b[%j] : !kernel.buffer<global, f32>
    %t = kernel.threshold "suff_outer_par_0" default 32768
    kernel.check_eq %a, %b "soac.map at f.mlir:3:5: input #0 has the wrong number of rows"
    kernel.assert %ok, "f.mlir:3:5: 'soac.index': index {0} is out of bounds for dimension 0 of size {1}" (%i, %n : index, index)

Buffers are flat arrays of elements; multi-dimensional arrays are row-major
with their sizes carried as separate `index` values.

Run-time checks (bounds, division by zero, sizes): on the host, `kernel.assert`
fails the run at once. In a kernel, `kernel.device_assert` records the first
failure of a call in the call's error buffer (`kernel.error_buffer`, passed to
every kernel that can fail) with an atomic compare-and-swap: slot 0 holds the
failing assertion's `code` (an int32; 0 while nothing failed), slots 1... its
`values`. The code leads back to the assertion and its message, which names the
soac op and its location; the runtime reads the buffer once per call:

    %errors = kernel.error_buffer : !kernel.buffer<global, i64>
    kernel.device_assert %ok in %errors code 3 "f.mlir:3:5: 'soac.index': index {0} ..." (%i, %n : index, index)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from soac.syntax import with_parsed_attributes
from xdsl.dialects.builtin import (
    I1,
    I64,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
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
from xdsl.parser import AttrParser, Parser
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
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

ADDRESS_SPACES = ("global", "local")

# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


@irdl_attr_definition
class BufferType(ParametrizedAttribute, TypeAttribute):
    """A flat array of scalars in an OpenCL address space: `!kernel.buffer<global, f32>`."""

    name = "kernel.buffer"

    space: StringAttr
    element_type: Attribute

    def __init__(self, space: str, element_type: Attribute):
        super().__init__(StringAttr(space), element_type)

    @property
    def space_name(self) -> str:
        return self.space.data

    def verify(self) -> None:
        if self.space.data not in ADDRESS_SPACES:
            raise VerifyException(f"buffer address space must be one of {ADDRESS_SPACES}, got '{self.space.data}'")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        space = parser.parse_identifier()
        parser.parse_punctuation(",")
        element = parser.parse_type()
        parser.parse_punctuation(">")
        return (StringAttr(space), element)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.space.data}, ")
        printer.print_attribute(self.element_type)
        printer.print_string(">")


def global_buffer(element_type: Attribute) -> BufferType:
    return BufferType("global", element_type)


def _buffer(op: Operation, value: SSAValue, space: str | None = None) -> BufferType:
    if not isinstance(value.type, BufferType):
        raise VerifyException(f"'{op.name}' expects a !kernel.buffer, got {value.type}")
    if space is not None and value.type.space_name != space:
        raise VerifyException(f"'{op.name}' expects a {space} buffer, got {value.type}")
    return value.type


def _check_element(op: Operation, buffer: BufferType, value_type: Attribute, what: str) -> None:
    if value_type != buffer.element_type:
        raise VerifyException(f"'{op.name}' {what} has type {value_type} but the buffer holds {buffer.element_type}")


# ---------------------------------------------------------------------------
# Kernel functions
# ---------------------------------------------------------------------------


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
    """

    name = "kernel.func"

    sym_name = prop_def(StringAttr, prop_name="sym_name")
    function_type = prop_def(FunctionType)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(self, name: str, arg_types: Sequence[Attribute], body: Region):
        super().__init__(
            properties={"sym_name": StringAttr(name), "function_type": FunctionType.from_lists(arg_types, [])},
            regions=[body],
        )

    @property
    def kernel_name(self) -> str:
        return self.sym_name.data

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

    def print(self, printer: Printer) -> None:
        printer.print_string(" @" + self.kernel_name + "(")
        printer.print_list(self.body.block.args, printer.print_block_argument)
        printer.print_string(") ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        name = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        body = parser.parse_region(args)
        op = cls(name, [a.type for a in args], body)
        return with_parsed_attributes(parser, op)


class _WorkItemQuery(IRDLOperation):
    """`%gid = kernel.global_id 0`: an OpenCL work-item function of dimension 0, 1 or 2."""

    C_FUNCTION: ClassVar[str]

    dim = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)

    traits = traits_def(Pure(), HasAncestor(FuncOp))

    def __init__(self, dim: int = 0):
        super().__init__(properties={"dim": IntegerAttr(dim, i64)}, result_types=[IndexType()])

    @property
    def dimension(self) -> int:
        return self.dim.value.data

    def verify_(self) -> None:
        if not 0 <= self.dimension <= 2:
            raise VerifyException(f"'{self.name}' dimension must be 0, 1 or 2, got {self.dimension}")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dimension}")
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls(parser.parse_integer())
        return with_parsed_attributes(parser, op)


@irdl_op_definition
class GlobalIdOp(_WorkItemQuery):
    name = "kernel.global_id"
    C_FUNCTION: ClassVar[str] = "get_global_id"


@irdl_op_definition
class LocalIdOp(_WorkItemQuery):
    name = "kernel.local_id"
    C_FUNCTION: ClassVar[str] = "get_local_id"


@irdl_op_definition
class GroupIdOp(_WorkItemQuery):
    name = "kernel.group_id"
    C_FUNCTION: ClassVar[str] = "get_group_id"


@irdl_op_definition
class GlobalSizeOp(_WorkItemQuery):
    name = "kernel.global_size"
    C_FUNCTION: ClassVar[str] = "get_global_size"


@irdl_op_definition
class LocalSizeOp(_WorkItemQuery):
    name = "kernel.local_size"
    C_FUNCTION: ClassVar[str] = "get_local_size"


@irdl_op_definition
class NumGroupsOp(_WorkItemQuery):
    name = "kernel.num_groups"
    C_FUNCTION: ClassVar[str] = "get_num_groups"


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """A work-group barrier with memory fence flags: `kernel.barrier local`, `kernel.barrier local global`."""

    name = "kernel.barrier"

    local_fence = opt_prop_def(UnitAttr)
    global_fence = opt_prop_def(UnitAttr)

    traits = traits_def(HasAncestor(FuncOp))

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

    def print(self, printer: Printer) -> None:
        printer.print_string(" " + " ".join(self.fences))
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        flags: set[str] = set()
        while (flag := parser.parse_optional_keyword("local") or parser.parse_optional_keyword("global")) is not None:
            flags.add(flag)
        op = cls("local" in flags, "global" in flags)
        return with_parsed_attributes(parser, op)


@irdl_op_definition
class LocalAllocOp(IRDLOperation):
    """A work-group local array of a static number of elements.

    %tile = kernel.local_alloc 256 : !kernel.buffer<local, f32>
    """

    name = "kernel.local_alloc"

    size = prop_def(IntegerAttr[I64])
    result = result_def(BufferType)

    traits = traits_def(HasAncestor(FuncOp))

    def __init__(self, size: int, element_type: Attribute):
        super().__init__(properties={"size": IntegerAttr(size, i64)}, result_types=[BufferType("local", element_type)])

    @property
    def num_elements(self) -> int:
        return self.size.value.data

    def verify_(self) -> None:
        _buffer(self, self.result, "local")
        if self.num_elements <= 0:
            raise VerifyException(f"'{self.name}' size must be positive, got {self.num_elements}")
        if not isinstance(self.parent_op(), FuncOp):
            raise VerifyException(f"'{self.name}' must be at the top level of a kernel.func")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.num_elements}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        size = parser.parse_integer()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        result = parser.parse_type()
        if not isinstance(result, BufferType):
            parser.raise_error("expected a !kernel.buffer type", pos)
        return cls.create(properties={"size": IntegerAttr(size, i64)}, result_types=[result], attributes=attrs)


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
        _check_element(self, _buffer(self, self.buffer), self.result.type, "result")


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
        _check_element(self, _buffer(self, self.buffer), self.value.type, "value")


ATOMIC_KINDS = ("add", "sub", "min", "max", "and", "or", "xor", "xchg")


@irdl_op_definition
class AtomicOp(IRDLOperation):
    """An atomic read-modify-write on a 32-bit integer element; gives the old value.

    %old = kernel.atomic add %counter[%i], %one : !kernel.buffer<global, i32>, i32
    """

    name = "kernel.atomic"

    kind = prop_def(StringAttr)
    buffer = operand_def(BufferType)
    index = operand_def(IndexType)
    value = operand_def()
    result = result_def()

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), HasAncestor(FuncOp))

    def __init__(self, kind: str, buffer: SSAValue | Operation, index: SSAValue | Operation, value: SSAValue | Operation):
        super().__init__(
            operands=[buffer, index, value],
            properties={"kind": StringAttr(kind)},
            result_types=[SSAValue.get(value).type],
        )

    def verify_(self) -> None:
        if self.kind.data not in ATOMIC_KINDS:
            raise VerifyException(f"'{self.name}' kind must be one of {', '.join(ATOMIC_KINDS)}, got '{self.kind.data}'")
        buffer = _buffer(self, self.buffer)
        _check_element(self, buffer, self.value.type, "value")
        _check_element(self, buffer, self.result.type, "result")
        if str(buffer.element_type) not in ("i32", "i64"):
            raise VerifyException(f"'{self.name}' works on i32 or i64 elements, not {buffer.element_type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.buffer)
        printer.print_string("[")
        printer.print_operand(self.index)
        printer.print_string("], ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)
        printer.print_string(", ")
        printer.print_attribute(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        kind = parser.parse_identifier()
        buffer = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        index = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        buffer_type = parser.parse_type()
        parser.parse_punctuation(",")
        value_type = parser.parse_type()
        op = cls(
            kind,
            parser.resolve_operand(buffer, buffer_type),
            parser.resolve_operand(index, IndexType()),
            parser.resolve_operand(value, value_type),
        )
        op.attributes |= attrs
        return op


# ---------------------------------------------------------------------------
# Host operations
# ---------------------------------------------------------------------------


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
        _buffer(self, self.result, "global")
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
        _check_element(self, _buffer(self, self.buffer, "global"), self.result.type, "result")
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
        _check_element(self, _buffer(self, self.buffer, "global"), self.value.type, "value")
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
    """Reads a tunable threshold's value (from the run's threshold dict, else `default`).

    %t = kernel.threshold "suff_outer_par_0" default 32768
    """

    name = "kernel.threshold"

    threshold = prop_def(StringAttr)
    default = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)

    traits = traits_def(Pure())

    def __init__(self, threshold: str, default: int):
        super().__init__(
            properties={"threshold": StringAttr(threshold), "default": IntegerAttr(default, i64)},
            result_types=[IndexType()],
        )

    @property
    def threshold_name(self) -> str:
        return self.threshold.data

    @property
    def default_value(self) -> int:
        return self.default.value.data

    def verify_(self) -> None:
        self.verify_host()

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.threshold_name)
        printer.print_string(f" default {self.default_value}")
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        name = parser.parse_str_literal()
        parser.parse_keyword("default")
        op = cls(name, parser.parse_integer())
        return with_parsed_attributes(parser, op)


@irdl_op_definition
class CheckEqOp(_HostOp):
    """Fails the run with `message` (and both values) unless `%lhs == %rhs`; checks sizes before launches.

    kernel.check_eq %n, %rows "soac.map at f.mlir:3:5: input #0 has a different number of rows than the width"
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


ERROR_VALUES = 8
"""The most values a failing `kernel.device_assert` records (slots 1... of the error buffer)."""

ERROR_SLOTS = 1 + ERROR_VALUES
"""The size of a call's error buffer in i64 elements: the failure code, then its values."""


def error_buffer_type() -> BufferType:
    return global_buffer(i64)


def _check_message(op: Operation, message: str, count: int) -> None:
    try:
        message.format(*range(count))
    except (IndexError, KeyError, ValueError) as error:
        raise VerifyException(f"'{op.name}' message does not take {count} values: {error}") from None


def _check_values(op: Operation, values: Sequence[SSAValue]) -> None:
    for value in values:
        if not isinstance(value.type, IndexType | IntegerType):
            raise VerifyException(f"'{op.name}' reports integer or index values, not {value.type}")


def _print_values(printer: Printer, values: Sequence[SSAValue]) -> None:
    if not values:
        return
    printer.print_string(" (")
    printer.print_list(values, printer.print_operand)
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


def _parse_values(parser: Parser) -> list[SSAValue]:
    if parser.parse_optional_punctuation("(") is None:
        return []
    pos = parser.pos
    unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return parser.resolve_operands(unresolved, types, pos)


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
        _check_values(self, self.values)
        _check_message(self, self.message.data, len(self.values))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        printer.print_string(", ")
        printer.print_string_literal(self.message.data)
        _print_values(printer, self.values)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        cond = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        parser.parse_punctuation(",")
        message = parser.parse_str_literal()
        op = cls(cond, message, _parse_values(parser))
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
        _check_values(self, self.values)
        _check_message(self, self.message.data, len(self.values))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        printer.print_string(" in ")
        printer.print_operand(self.errors)
        printer.print_string(f" code {self.error_code} ")
        printer.print_string_literal(self.message.data)
        _print_values(printer, self.values)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        cond = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        parser.parse_keyword("in")
        errors = parser.resolve_operand(parser.parse_unresolved_operand(), error_buffer_type())
        parser.parse_keyword("code")
        code = parser.parse_integer()
        message = parser.parse_str_literal()
        op = cls(cond, errors, code, message, _parse_values(parser))
        return with_parsed_attributes(parser, op)


DEVICE_OPS: tuple[type[Operation], ...] = (
    GlobalIdOp,
    LocalIdOp,
    GroupIdOp,
    GlobalSizeOp,
    LocalSizeOp,
    NumGroupsOp,
    BarrierOp,
    LocalAllocOp,
    LoadOp,
    StoreOp,
    AtomicOp,
    DeviceAssertOp,
)

Kernel = Dialect(
    "kernel",
    [
        FuncOp,
        ReturnOp,
        *DEVICE_OPS,
        AllocOp,
        CopyOp,
        ReadOp,
        WriteOp,
        LaunchOp,
        ThresholdOp,
        CheckEqOp,
        AssertOp,
        ErrorBufferOp,
    ],
    [BufferType],
)
