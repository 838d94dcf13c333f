"""Erasing the signedness of integer types: soac's IR is signless, as MLIR's `arith` is.

An integer of soac's IR is `iN`: its bits. Whether they are read as signed or unsigned is said by the op that reads
them (`divsi`/`divui`, `cmpi slt`/`cmpi ult`, `extsi`/`extui`, `sitofp`/`uitofp`, `maxsi`/`maxui`, `shrsi`/`shrui`),
so the interpreter, the passes and the kernels know one integer type per width. A front end that wants its values
to carry their signedness while it builds them (soac.lang traces numpy's `uint8` as `ui8`) makes `ui8` values, its
constants as a signless constant and an `arith.bitcast` (`arith.constant` only takes signless integers), and erases
the signedness before the passes:

    %c = arith.constant -1 : i8                       %c = arith.constant -1 : i8
    %u = arith.bitcast %c : i8 to ui8        ──▶      %m = arith.maxui %x, %c : i8
    %m = arith.maxui %x, %u : ui8
"""

from __future__ import annotations

from dataclasses import dataclass

from soac.parsing import location_of
from soac.types import signless_problem
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerType, ModuleOp, Signedness
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    TypeConversionPattern,
    attr_type_rewrite_pattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import VerifyException


class SignlessIntegers(TypeConversionPattern):
    """`uiN` and `siN` become `iN`, wherever they are (results, block arguments, tensor elements, function types)."""

    @attr_type_rewrite_pattern
    def convert_type(self, typ: IntegerType) -> Attribute | None:
        if typ.signedness.data == Signedness.SIGNLESS:
            return None
        return IntegerType(typ.width.data)


class DropIdentityBitcast(RewritePattern):
    """An `arith.bitcast` to its operand's own type is its operand."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.BitcastOp, rewriter: PatternRewriter) -> None:
        if op.input.type != op.result.type:
            return
        rewriter.replace(op, (), [op.input])


def erase_signedness(module: ModuleOp) -> None:
    """Make every integer type of `module` signless and drop the bitcasts that only changed signedness."""
    PatternRewriteWalker(SignlessIntegers(recursive=True), apply_recursively=False).rewrite_module(module)
    PatternRewriteWalker(DropIdentityBitcast(), apply_recursively=False).rewrite_module(module)


def _types_of(op: Operation) -> list[Attribute]:
    types = [*op.result_types, *op.operand_types]
    types += [arg.type for region in op.regions for block in region.blocks for arg in block.args]
    if isinstance(op, func.FuncOp):
        types += [*op.function_type.inputs.data, *op.function_type.outputs.data]
    return types


def check_signless(module: ModuleOp) -> None:
    """VerifyException, naming the op and its place, if an integer type of `module` is signed or unsigned
    (the interpreter and soac-to-kernel know the signless integers only)."""
    for op in module.walk():
        for t in _types_of(op):
            if (problem := signless_problem(t)) is not None:
                place = location_of(op) or "<unknown location>"
                raise VerifyException(f"{place}: '{op.name}': {problem}")


@dataclass(frozen=True)
class SoacSignless(ModulePass):
    """`soac-signless`: `erase_signedness` as a pass, for IR that a front end built with `ui8`-style types."""

    name = "soac-signless"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        erase_signedness(op)
