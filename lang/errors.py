"""Errors of the embedding, in Python terms: each names the line of the user's program that caused it."""

from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass
from types import CodeType, FrameType

from soac import parsing

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class SourceLocation:
    """A place in the user's Python program: what an op of the traced IR records as its location."""

    filename: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}"

    def source_line(self) -> str:
        return linecache.getline(self.filename, self.line).strip()


_LIBRARY_DIRS = tuple(
    {_PACKAGE_DIR, os.path.dirname(os.path.abspath(parsing.__file__)), sys.prefix, sys.base_prefix, sys.exec_prefix}
)
"""Where code is not the user's: this package, soac's dialect, Python's and the environment's libraries."""
_USER_CODE: dict[CodeType, bool] = {}


def is_user_code(code: CodeType) -> bool:
    """True for code of the user's program: not this package's, nor Python's own (frozen modules, `<...>`)."""
    known = _USER_CODE.get(code)
    if known is None:
        filename = code.co_filename
        known = not filename.startswith("<") and not os.path.abspath(filename).startswith(_LIBRARY_DIRS)
        _USER_CODE[code] = known
    return known


def _is_user_frame(frame: FrameType) -> bool:
    return not os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR)


def user_location() -> SourceLocation:
    """The innermost frame of the caller's program outside this package (its line and 1-based column)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and not _is_user_frame(frame):
        frame = frame.f_back
    if frame is None:
        return SourceLocation("<unknown>", 0, 0)
    return frame_location(frame)


def frame_location(frame: FrameType) -> SourceLocation:
    """The line and 1-based column of the instruction that `frame` runs."""
    column = 0
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2
    if 0 <= index < len(positions) and positions[index][2] is not None:
        column = positions[index][2] or 0
    return SourceLocation(frame.f_code.co_filename, frame.f_lineno or 0, column + 1)


def located(message: str, where: SourceLocation | None = None) -> str:
    """`file.py:12: message`, followed by the source line."""
    where = where or user_location()
    text = where.source_line()
    return f"{where}: {message}" + (f"\n    {text}" if text else "")


class SoacTraceError(Exception):
    """A program that cannot be traced: misuse of the embedding, reported at the user's line."""


class SoacTypeError(SoacTraceError, TypeError):
    """A type, rank or arity mismatch in a traced program, reported at the user's line."""


class SymbolicBoolError(SoacTypeError):
    """Python control flow (`if`, `while`, `and`, `or`, `not`, `bool()`) applied to a symbolic value."""
