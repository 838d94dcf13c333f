"""Device intrinsics that the fast reduction and scan kernels need and plain kernel ops cannot say.

`kernel.inline_c` carries a fragment of OpenCL C with placeholders: `{0}`, `{1}`, ...
are its operands (as C expressions) and `{r0}`, `{r1}`, ... its results, which the
emitter declares (uninitialised) just before the fragment:

    %w = kernel.inline_c "{r0} = *(volatile __global long*)&{0}[{1}];" (%status, %i) : (!kernel.buffer<global, i64>, index) -> i64

The helpers below build the fragments the kernels use: volatile loads and stores
of 64-bit status words, spin-waits on them, 16-byte vector loads and stores, and
(NVIDIA only, through inline PTX, since NVIDIA's OpenCL has no sub-groups) warp
shuffles and ballots. Values of other scalar types go through 32-bit integers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Self

from soac.lowering.conversion.kernel_builder import KernelBuilder, View
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, StringAttr, i32, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer


@irdl_op_definition
class InlineCOp(IRDLOperation):
    """A fragment of OpenCL C (see the module docstring); it may read and write memory."""

    name = "kernel.inline_c"

    code = prop_def(StringAttr)
    args = var_operand_def()
    outs = var_result_def()

    def __init__(self, code: str, args: Sequence[SSAValue], result_types: Sequence[Attribute]):
        super().__init__(operands=[list(args)], result_types=[list(result_types)], properties={"code": StringAttr(code)})

    def emit_c(self, printer: object) -> None:
        """Print the fragment with `printer` (an `opencl_emitter.KernelPrinter`)."""
        from soac.lowering.opencl.emitter import c_type

        text = self.code.data
        for k, result in enumerate(self.outs):
            name = printer.define(result)  # pyright: ignore[reportAttributeAccessIssue]
            printer.line(f"{c_type(result.type)} {name};")  # pyright: ignore[reportAttributeAccessIssue]
            text = text.replace(f"{{r{k}}}", name)
        for k in reversed(range(len(self.args))):
            text = text.replace(f"{{{k}}}", printer.expr(self.args[k]))  # pyright: ignore[reportAttributeAccessIssue]
        for line in text.split("\n"):
            printer.line(line)  # pyright: ignore[reportAttributeAccessIssue]

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.code.data)
        printer.print_string(" (")
        printer.print_list(self.args, printer.print_operand)
        printer.print_string(") : (")
        printer.print_list([a.type for a in self.args], printer.print_attribute)
        printer.print_string(") -> (")
        printer.print_list([r.type for r in self.outs], printer.print_attribute)
        printer.print_string(")")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        code = parser.parse_str_literal()
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        parser.parse_punctuation("->")
        results = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        args = [parser.resolve_operand(u, t) for u, t in zip(unresolved, types, strict=True)]
        return cls(code, args, results)


def inline_c(kb: KernelBuilder, code: str, args: Sequence[SSAValue], result_types: Sequence[Attribute]) -> list[SSAValue]:
    op = InlineCOp(code, args, result_types)
    kb.b.insert(op)
    return list(op.outs)


# -- 32-bit round trips ---------------------------------------------------------


def bit_width(t: Attribute) -> int | None:
    name = str(t)
    return {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "f32": 32, "i64": 64, "f64": 64, "index": 64, "f16": 16}.get(name)


def fits_32(t: Attribute) -> bool:
    width = bit_width(t)
    return width is not None and width <= 32 and str(t) != "f16"


def to_bits32(kb: KernelBuilder, value: SSAValue) -> SSAValue:
    """The bits of a scalar of at most 32 bits as an i32."""
    t = str(value.type)
    if t == "i32":
        return value
    if t == "f32":
        return kb.m.insert(arith.BitcastOp(value, i32))
    return kb.m.insert(arith.ExtUIOp(value, i32))


def from_bits32(kb: KernelBuilder, bits: SSAValue, t: Attribute) -> SSAValue:
    if str(t) == "i32":
        return bits
    if str(t) == "f32":
        return kb.m.insert(arith.BitcastOp(bits, t))
    return kb.m.insert(arith.TruncIOp(bits, t))


def pack_status(kb: KernelBuilder, flag: int, value: SSAValue) -> SSAValue:
    """`flag << 32 | bits(value)` as an i64 status word."""
    low = kb.m.insert(arith.ExtUIOp(to_bits32(kb, value), i64))
    if flag == 0:
        return low
    high = kb.m.const(flag << 32, i64)
    return kb.m.insert(arith.OrIOp(low, high))


def unpack_value(kb: KernelBuilder, word: SSAValue, t: Attribute) -> SSAValue:
    return from_bits32(kb, kb.m.insert(arith.TruncIOp(word, i32)), t)


def status_flag(kb: KernelBuilder, word: SSAValue) -> SSAValue:
    return kb.m.insert(arith.TruncIOp(kb.m.insert(arith.ShRUIOp(word, kb.m.const(32, i64))), i32))


# -- status words -----------------------------------------------------------------


def store_volatile(kb: KernelBuilder, word: SSAValue, buffer: View, index: SSAValue) -> None:
    inline_c(kb, "*(volatile __global long*)&{0}[{1}] = {2};", [buffer.buffer, index, word], [])


SPIN_SLEEP_NS = int(os.environ.get("SOAC_SCAN_SLEEP", "0"))
"""NVIDIA: nanoseconds to back off between polls of a status word that is not ready (0: spin)."""


def spin_status(kb: KernelBuilder, buffers: Sequence[View], index: SSAValue, nvidia: bool = False) -> list[SSAValue]:
    """Wait until the status words `buffers[*][index]` are published with one and the same flag; gives the words."""
    reads = "\n".join(f"  {{r{k}}} = *(volatile __global long*)&{{{k}}}[{{{len(buffers)}}}];" for k in range(len(buffers)))
    agree = " || ".join(f"(ulong){{r{k}}} >> 32 != (ulong){{r0}} >> 32" for k in range(1, len(buffers)))
    condition = "((ulong){r0} >> 32) == 0" + (f" || {agree}" if agree else "")
    pause = f'\n  if ({condition}) asm volatile("nanosleep.u32 {SPIN_SLEEP_NS};");' if SPIN_SLEEP_NS and nvidia else ""
    code = "do {\n" + reads + pause + f"\n}} while ({condition});"
    return inline_c(kb, code, [*(b.buffer for b in buffers), index], [i64] * len(buffers))


# -- vector memory access ------------------------------------------------------


def vector_load(kb: KernelBuilder, view: View, index: SSAValue, width: int) -> list[SSAValue]:
    """`width` consecutive elements from `view[index]` (16-byte aligned) in one vector load."""
    from soac.lowering.opencl.emitter import storage_type

    ctype = storage_type(view.element)
    fields = "".join(f"\n{{r{k}}} = _v.s{k:x};" for k in range(width))
    code = f"{{ const {ctype}{width} _v = *(const __global {ctype}{width}*)({{0}} + {{1}});{fields} }}"
    return inline_c(kb, code, [view.buffer, kb.m.add(view.offset, index)], [view.element] * width)


def vector_store(kb: KernelBuilder, values: Sequence[SSAValue], view: View, index: SSAValue) -> None:
    from soac.lowering.opencl.emitter import storage_type

    ctype = storage_type(view.element)
    width = len(values)
    parts = ", ".join(f"{{{k + 2}}}" for k in range(width))
    code = f"*(__global {ctype}{width}*)({{0}} + {{1}}) = ({ctype}{width})({parts});"
    inline_c(kb, code, [view.buffer, kb.m.add(view.offset, index), *values], [])


# -- NVIDIA warp intrinsics (inline PTX) -------------------------------------------


def _as_i32_index(kb: KernelBuilder, value: SSAValue) -> SSAValue:
    if isinstance(value.type, IntegerType) and value.type.width.data == 32:
        return value
    return kb.m.insert(arith.IndexCastOp(value, i32))


def shuffle(kb: KernelBuilder, mode: str, value: SSAValue, lane: SSAValue) -> SSAValue:
    """`shfl.sync.<mode>` (`up`, `down`, `idx`, `bfly`) of a scalar of at most 32 bits across the full warp."""
    clamp = {"up": "0", "down": "0x1f", "idx": "0x1f", "bfly": "0x1f"}[mode]
    code = f'asm volatile("shfl.sync.{mode}.b32 %0, %1, %2, {clamp}, 0xffffffff;" : "=r"({{r0}}) : "r"({{0}}), "r"({{1}}));'
    (bits,) = inline_c(kb, code, [to_bits32(kb, value), _as_i32_index(kb, lane)], [i32])
    return from_bits32(kb, bits, value.type)


def ballot(kb: KernelBuilder, predicate: SSAValue) -> SSAValue:
    """The warp's `vote.sync.ballot` of an i1: bit `l` is set when lane `l`'s predicate holds."""
    code = (
        'asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }" '
        ': "=r"({r0}) : "r"((uint){0}));'
    )
    (bits,) = inline_c(kb, code, [predicate], [i32])
    return bits


def lowest_set_bit(kb: KernelBuilder, bits: SSAValue) -> SSAValue:
    """The index of the lowest set bit of an i32 (32 when none), as an index."""
    code = "{r0} = {0} == 0 ? 32L : (long)(31 - clz((uint){0} & (uint)(-{0})));"
    (result,) = inline_c(kb, code, [bits], [kb.m.c(0).type])
    return result


def atomic_ticket(kb: KernelBuilder, counter: View) -> SSAValue:
    """`atomic_inc(&counter[0])` as an index."""
    (ticket,) = inline_c(kb, "{r0} = (long)atomic_inc((volatile __global int*)&{0}[0]);", [counter.buffer], [kb.m.c(0).type])
    return ticket
