"""Parsing and verifying soac programs with source locations for every diagnostic."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, VerifyException
from xdsl.utils.lexer import Span


class LocatingParser(Parser):
    """A parser that gives every op it parses a `file:line:col` location and remembers its span."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>"):
        super().__init__(ctx, input, name)
        self.spans: dict[Operation, Span[str] | Span[bytes]] = {}

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        op = super().parse_operation()
        self.spans[op] = start
        if isinstance(op.location, UnknownLoc):
            where = start.get_location()
            op.location = FileLineColLoc(StringAttr(where.file), IntAttr(where.line), IntAttr(where.col))
        return op


def location_of(op: Operation) -> str | None:
    """`file:line:col` of `op` (or of its closest located ancestor), if it was parsed from a file."""
    current: Operation | None = op
    while current is not None:
        if isinstance(loc := current.location, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        current = current.parent_op()
    return None


def _first_failing_op(module: ModuleOp) -> tuple[Operation, Exception] | None:
    """The first op, innermost first as xDSL verifies, whose own checks fail."""
    for op in module.walk(region_first=True):
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, DiagnosticException) as error:
            return op, error
    return None


def verify_located(module: ModuleOp, spans: dict[Operation, Span[str] | Span[bytes]]) -> None:
    """Verify `module`; on failure raise a VerifyException that shows where the failing op is."""
    try:
        module.verify()
    except (VerifyException, DiagnosticException) as error:
        found = _first_failing_op(module)
        if found is None or (span := spans.get(found[0])) is None:
            raise
        op, op_error = found
        message = str(op_error.args[0]) if op_error.args else str(op_error)
        raise VerifyException(span.print_with_context(f"error: {message}").rstrip()) from error


def parse_module(ctx: Context, text: str | bytes, name: str, implicit_module: bool = True) -> ModuleOp:
    """Parse and verify a module, with locations in every error."""
    parser = LocatingParser(ctx, text, name)
    module = parser.parse_module(implicit_module)
    verify_located(module, parser.spans)
    return module
