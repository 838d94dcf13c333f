"""Errors raised by the reference interpreter, and the internal signals it uses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from soac.parsing import location_of
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

if TYPE_CHECKING:
    from soac.interpreter.values import Val


class SoacRuntimeError(Exception):
    """A program went wrong at run time: `file:line:col: 'op.name': problem`."""


def where(op: Operation) -> str:
    """`file:line:col` of `op`, or `@function` when it was not parsed from a file."""
    if (location := location_of(op)) is not None:
        return location
    parent: Operation | None = op
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return f"in @{parent.sym_name.data}" if parent is not None else "<unknown location>"


def fail(op: Operation, problem: str) -> SoacRuntimeError:
    """The error to raise for `problem` at `op`."""
    return SoacRuntimeError(f"{where(op)}: '{op.name}': {problem}")


class Irregular(Exception):
    """Internal: an op needs its `keys` uniform over the lanes of the current frame.

    The block runner catches it, groups the lanes by their key values and runs
    the rest of the block once per group, where the keys are uniform.
    """

    def __init__(self, keys: list[Val]):
        super().__init__("irregular")
        self.keys = keys


class ShapeMismatch(Exception):
    """Internal: lanes produced arrays of different shapes (an irregular nested array)."""

    def __init__(self, first: tuple[int, ...], second: tuple[int, ...]):
        super().__init__(f"rows of shapes {first} and {second}")
        self.first = first
        self.second = second
