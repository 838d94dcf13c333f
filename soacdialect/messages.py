"""The messages of run-time checks: `soac.assert`, and `kernel.assert` and `kernel.device_assert` after lowering.

A message is a template whose fields `{0}`, `{1}`... name the integers the check reports, with an optional
integer format spec (`{0:d}`, `{1:x}`, `{0:>8}`, `{2:08b}`). The verifiers reject every other field, so that
the interpreter and the OpenCL runtime, which both fill a message in with `format_message`, can format any
reported value.

`error_message(op, problem)` places a problem at its op (`f.mlir:3:5: 'soac.index': index {0} is out of bounds ...`),
as the lowering's checks and the runtime's host arithmetic report it; `describe(op)` names an op and its place for
compile-time errors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from string import Formatter

from soac.parsing import location_of
from xdsl.dialects import func
from xdsl.ir import Operation

INTEGER_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?#?0?[0-9]{0,3}[,_]?[bdoxXn]?")
"""A format spec for integers: fill and alignment, sign, `#`, `0`, a width below 1000, grouping and the type
(no `c`, which fails for negative values, and no float types)."""

FIELD_NAME = re.compile(r"[0-9]+")


def message_problem(message: str, count: int) -> str | None:
    """Why `message` cannot report `count` integers (None where it formats any `count` integers)."""
    try:
        fields = [(name, spec, conversion) for _, name, spec, conversion in Formatter().parse(message) if name is not None]
    except ValueError as error:
        return str(error)
    for name, spec, conversion in fields:
        field = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        if not FIELD_NAME.fullmatch(name):
            return f"field '{field}' names no value (fields are {{0}}, {{1}}, ... for the values in order)"
        if int(name) >= count:
            return f"field '{field}' names value #{name}, but there {_values(count)}"
        if conversion or not INTEGER_SPEC.fullmatch(spec) or _spec_fails(spec):
            return f"field '{field}' is not an integer format such as {{0:d}}, {{0:x}}, {{0:>8}} or {{0:08b}} (widths below 1000)"
    return None


def reshape_problem(rank: int) -> str:
    """A reshape to sizes of another element count: value 0 is the array's count, values 1 to `rank` the sizes."""
    items = ", ".join(f"{{{1 + k}}}" for k in range(rank))
    return f"cannot reshape an array of {{0}} elements to sizes ({items}{',' if rank == 1 else ''})"


def format_message(message: str, values: Sequence[int]) -> str:
    """`message` with the reported `values` filled in (a message that `message_problem` accepts)."""
    return message.format(*(int(value) for value in values))


def describe(op: Operation) -> str:
    """`'soac.map' at f.mlir:3:5` for messages."""
    where = location_of(op)
    return f"'{op.name}'" + (f" at {where}" if where else "")


def where(op: Operation) -> str:
    """`file:line:col` of `op`, or `in @function` when it was not parsed from a file (as the interpreter says)."""
    if (location := location_of(op)) is not None:
        return location
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return f"in @{parent.sym_name.data}" if parent is not None else "<unknown location>"


def error_message(op: Operation, problem: str) -> str:
    """The message template of a failed check at `op`: `problem` may use `{0}`, `{1}`... for the reported values."""
    return located_message(op, f"'{op.name}': {problem}")


def located_message(op: Operation, message: str) -> str:
    """`message` (a template of `{0}`, `{1}`...) after the place of `op`: what a `soac.assert` reports."""
    place = where(op).replace("{", "{{").replace("}", "}}")
    return f"{place}: {message}"


def index_problem(dimension: int) -> str:
    return f"index {{0}} is out of bounds for dimension {dimension} of size {{1}}"


def shape_problem(rank: int) -> str:
    """A value of the wrong shape for a row of rank `rank` (the values: the value's sizes, then the row's)."""

    def shape(first: int) -> str:
        items = ", ".join(f"{{{first + k}}}" for k in range(rank))
        return f"({items},)" if rank == 1 else f"({items})"

    return f"a value of shape {shape(0)} does not fit a row of shape {shape(rank)}"


def width_problem(input_number: int) -> str:
    return f"width {{0}} does not match the outer size {{1}} of input #{input_number}"


SLICE_PROBLEM = "slice [{0}:{1}] is out of bounds for an array of outer size {2}"
DIVISION_PROBLEM = "integer division by zero"


def _spec_fails(spec: str) -> bool:
    """Whether an integer spec is still malformed (`,` with `x`): for such a spec, the same for every integer."""
    try:
        format(0, spec)
    except ValueError:
        return True
    return False


def _values(count: int) -> str:
    if count == 0:
        return "are no values"
    return "is 1 value" if count == 1 else f"are {count} values"
