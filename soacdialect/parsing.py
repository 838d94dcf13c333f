"""Parsing and verifying soac programs with source locations for every diagnostic.

`LocatingParser` gives every op it parses a `file:line:col` location and turns
xDSL's terse parse errors into ones that say what went wrong where: an
unexpected end of file names the region left open, an unknown op or dialect is
named at the op's name, and a value that is used but never defined is reported
at its first use. `parse_module` also verifies, reporting a failing op at its
place in the source.
"""

from __future__ import annotations

import bisect
import dataclasses
import difflib
from collections.abc import Iterable
from typing import NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.traits import IsTerminator, NoTerminator, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Position, Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

SourceSpan = Span[str] | Span[bytes]


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the closest of `candidates`, or an empty string."""
    close = difflib.get_close_matches(name, list(candidates), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _find_all(content: str | bytes, needle: str | bytes):
    """Offsets of every occurrence of `needle` in `content`."""
    start = content.find(needle)  # pyright: ignore[reportArgumentType]
    while start != -1:
        yield start
        start = content.find(needle, start + 1)  # pyright: ignore[reportArgumentType]


class LocatingParser(Parser):
    """A parser that gives every op it parses a `file:line:col` location and remembers its span.

    `line_offset` is added to every line number, for a chunk of a file split with
    `--split-input-file`.
    """

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>", line_offset: int = 0):
        super().__init__(ctx, input, name)
        self.line_offset = line_offset
        self.spans: dict[Operation, SourceSpan] = {}
        self._open_regions: list[SourceSpan] = []
        self._first_uses: dict[str, SourceSpan] = {}
        self._op_names: list[tuple[str, SourceSpan | None]] = []
        """The name of each op being parsed, outermost first, and where it is written."""
        content = self.lexer.input.content
        newline = self.lexer.input.newline
        self._line_starts = [0] + [i + len(newline) for i in _find_all(content, newline)]

    # -- locations ----------------------------------------------------------

    def _located(self, span: SourceSpan) -> SourceSpan:
        return dataclasses.replace(span, line_offset=self.line_offset) if self.line_offset else span

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        depth = len(self._op_names)
        try:
            op = super().parse_operation()
        except VerifyException as error:
            # A declarative assembly format checks the types it parsed before the op exists (`arith.addi ... : f32`).
            name, where = self._op_names[depth] if len(self._op_names) > depth else ("the operation", None)
            message = str(error)
            if message.startswith("Unexpected attribute "):
                message = f"'{name}' does not accept type {message.removeprefix('Unexpected attribute ')}"
            else:
                message = f"'{name}' does not accept these types: {message}"
            raise ParseError(self._located(where or start), message) from None
        del self._op_names[depth:]
        self.spans[op] = self._located(start)
        if isinstance(op.location, UnknownLoc):
            line_index = bisect.bisect_right(self._line_starts, start.start) - 1
            line = line_index + 1 + self.line_offset
            column = start.start - self._line_starts[line_index] + 1
            op.location = FileLineColLoc(StringAttr(self.lexer.input.name), IntAttr(line), IntAttr(column))
        return op

    # -- better errors ------------------------------------------------------

    def parse_optional_region(self, arguments: Iterable[Parser.Argument] | None = None) -> Region | None:
        if self._current_token.kind != MLIRTokenKind.L_BRACE:
            return super().parse_optional_region(arguments)
        self._open_regions.append(self._current_token.span)
        try:
            return super().parse_optional_region(arguments)
        finally:
            self._open_regions.pop()

    def raise_error(
        self,
        msg: str,
        at_position: SourceSpan | Position | None = None,
        end_position: Position | None = None,
    ) -> NoReturn:
        if at_position is None:
            at_position = self._current_token.span
        position = at_position if isinstance(at_position, int) else at_position.start
        if self._at_end_of_input(position) and not msg.startswith("values used but not defined"):
            self._raise_end_of_input(msg)
        super().raise_error(msg, at_position, end_position)  # pyright: ignore[reportCallIssue, reportArgumentType]

    def _at_end_of_input(self, position: Position) -> bool:
        token = self._current_token
        return token.kind == MLIRTokenKind.EOF and position >= token.span.start

    def _end_of_code(self) -> Position:
        """The position just after the last token of the input, skipping trailing blank and comment lines."""
        text = self.lexer.input.content
        end = len(text.rstrip())
        while end and (line_start := text.rfind("\n", 0, end) + 1) < end and text[line_start:end].lstrip().startswith("//"):
            end = len(text[:line_start].rstrip())
        return end

    def _raise_end_of_input(self, msg: str) -> NoReturn:
        """Report the end of the input, at the end of its last line, saying what was still expected."""
        msg = msg.strip()
        if self._open_regions and (msg == "in block definition" or msg.startswith("Expected '}'")):
            opened = self._located(self._open_regions[-1]).get_location()
            msg = f"expected '}}' to close the region opened at {opened}"
        elif msg == "Could not parse entire input!":
            msg = "expected an operation"
        elif msg.endswith(" expected"):
            msg = "expected " + msg.removesuffix(" expected")
        elif msg.startswith("Expected "):
            msg = "expected " + msg.removeprefix("Expected ")
        end = self._end_of_code()
        raise ParseError(self._located(Span(end, end, self.lexer.input)), f"unexpected end of file, {msg}")

    def _get_op_by_name(self, name: str) -> type[Operation]:
        # The name is the token just before the current one (quoted in the generic format).
        start = self.lexer.input.content.rfind(name, 0, self._current_token.span.start)  # pyright: ignore[reportArgumentType]
        where = Span(start, start + len(name), self.lexer.input) if start >= 0 else None
        self._op_names.append((name, where))
        if (op_type := self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)) is not None:
            return op_type
        dialect_name, dot, _ = name.partition(".")
        if not dot:
            self.raise_error(f"unknown operation '{name}' (operation names have the form 'dialect.op')", where)
        dialect = self.ctx.get_optional_dialect(dialect_name)
        if dialect is None:
            hint = did_you_mean(dialect_name, self.ctx.registered_dialect_names)
            self.raise_error(f"unknown dialect '{dialect_name}' in operation '{name}'{hint}", where)
        hint = did_you_mean(name, (op.name for op in dialect.operations))
        self.raise_error(f"unknown operation '{name}': dialect '{dialect_name}' has no such operation{hint}", where)

    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute) -> SSAValue:
        name = operand.operand_name
        if name not in self.ssa_values and name not in self._first_uses:
            self._first_uses[name] = operand.span
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as error:
            undefined = [name for name in self.forward_ssa_references if name in self._first_uses]
            if not undefined or not error.msg.startswith("values used but not defined"):
                raise
            others = ", ".join(f"%{name}" for name in undefined[1:])
            also = f" (also undefined: {others})" if others else ""
            raise ParseError(self._first_uses[undefined[0]], f"use of undefined value %{undefined[0]}{also}") from None


def location_of(op: Operation) -> str | None:
    """`file:line:col` of `op` (or of its closest located ancestor), if it was parsed from a file."""
    current: Operation | None = op
    while current is not None:
        if isinstance(loc := current.location, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        current = current.parent_op()
    return None


_REGION_ROLES = {"body": "lambda", "combine": "combine operator", "post": "post lambda"}


def _missing_terminator(op: Operation) -> str | None:
    """A message saying what terminator is missing, if `op` fails because it ends a region without being one."""
    block = op.parent_block()
    region = op.parent_region()
    parent = op.parent_op()
    if block is None or region is None or parent is None or block.last_op is not op or len(region.blocks) != 1:
        return None
    if op.has_trait(IsTerminator) or parent.has_trait(NoTerminator):
        return None
    trait = parent.get_trait(SingleBlockImplicitTerminator)
    wanted = trait.op_type.name if trait is not None else "a terminator"
    role = "region"
    if isinstance(parent, IRDLOperation):
        names = [name for name, _ in parent.get_irdl_definition().regions]
        index = parent.regions.index(region)
        if index < len(names):
            soac_role = _REGION_ROLES.get(names[index]) if parent.name.startswith("soac.") else None
            role = soac_role or f"region '{names[index]}'"
    return f"'{parent.name}' {role} must end with {wanted}, but it ends with {op.name}"


def _first_failing_op(module: ModuleOp) -> tuple[Operation, Exception] | None:
    """The first op, innermost first as xDSL verifies, whose own checks fail."""
    for op in module.walk(region_first=True):
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, DiagnosticException) as error:
            if (missing := _missing_terminator(op)) is not None:
                return op, VerifyException(missing)
            return op, error
    return None


def verify_located(module: ModuleOp, spans: dict[Operation, SourceSpan]) -> None:
    """Verify `module`; on failure raise a VerifyException that shows where the failing op is."""
    try:
        module.verify()
    except (VerifyException, DiagnosticException) as error:
        found = _first_failing_op(module)
        if found is None or (span := spans.get(found[0])) is None:
            raise
        _, op_error = found
        message = str(op_error.args[0]) if op_error.args else str(op_error)
        raise VerifyException(span.print_with_context(f"error: {message}").rstrip()) from error


def verify_after(module: ModuleOp, what: str) -> None:
    """Verify `module` after `what` changed it; on failure name the failing op and its source location, if known."""
    try:
        module.verify()
    except (VerifyException, DiagnosticException) as error:
        found = _first_failing_op(module)
        if found is None:
            raise
        op, op_error = found
        message = str(op_error.args[0]) if op_error.args else str(op_error)
        where = location_of(op) or "<unknown location>"
        raise VerifyException(f"{where}\nerror: after {what}: {message}") from error


def parse_module(ctx: Context, text: str | bytes, name: str, implicit_module: bool = True, line_offset: int = 0) -> ModuleOp:
    """Parse and verify a module, with locations in every error."""
    parser = LocatingParser(ctx, text, name, line_offset)
    module = parser.parse_module(implicit_module)
    verify_located(module, parser.spans)
    return module
