"""Checks of a SOAC's lambdas that every op's verifier shares: parameters, yields, operators and results."""

from __future__ import annotations

from collections.abc import Sequence

from soac.dialect.base import YieldOp
from soac.types import all_compatible, compatible, format_types, row_type
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException


def lambda_block(op: Operation, region: Region, role: str):
    if len(region.blocks) != 1:
        raise VerifyException(f"'{op.name}' {role} must have exactly one block")
    return region.block


def yielded_types(op: Operation, region: Region, role: str) -> list[Attribute]:
    block = lambda_block(op, region, role)
    terminator = block.last_op
    if not isinstance(terminator, YieldOp):
        found = terminator.name if terminator is not None else "nothing"
        raise VerifyException(f"'{op.name}' {role} must end with soac.yield, found {found}")
    return list(terminator.arguments.types)


def check_params(op: Operation, region: Region, role: str, expected: Sequence[Attribute], what: str) -> None:
    """Check that the lambda's parameters are compatible with `expected`."""
    args = lambda_block(op, region, role).args
    if len(args) != len(expected):
        raise VerifyException(
            f"'{op.name}' {role} takes {len(args)} parameter{'' if len(args) == 1 else 's'} but {len(expected)} "
            f"{'is' if len(expected) == 1 else 'are'} expected ({what}: {format_types(expected)})"
        )
    for i, (arg, want) in enumerate(zip(args, expected)):
        if not compatible(arg.type, want):
            raise VerifyException(f"'{op.name}' {role} parameter #{i} has type {arg.type}, expected {want} from {what}")


def check_yields(op: Operation, region: Region, role: str, expected: Sequence[Attribute], what: str) -> None:
    got = yielded_types(op, region, role)
    if not all_compatible(got, expected):
        raise VerifyException(f"'{op.name}' {role} yields {format_types(got)}, expected {format_types(expected)} from {what}")


def check_results(op: Operation, got: Sequence[Attribute], expected: Sequence[Attribute], source: str = "its lambdas") -> None:
    if not all_compatible(got, expected):
        raise VerifyException(
            f"'{op.name}' has result types {format_types(got)}, expected {format_types(expected)} from {source}"
        )


def input_rows(op: Operation, inputs: Sequence[SSAValue], kind: str = "input") -> list[Attribute]:
    rows: list[Attribute] = []
    for i, value in enumerate(inputs):
        if (inner := row_type(value.type)) is None:
            raise VerifyException(f"'{op.name}' {kind} #{i} has type {value.type}, which is not an array")
        rows.append(inner)
    return rows


def check_operator(
    op: Operation,
    combine: Region,
    neutral: Sequence[SSAValue],
    role: str = "combine operator",
    what: str = "neutral elements",
) -> list[Attribute]:
    """Check an associative operator `(a..., b...) -> c...` against the neutral elements."""
    ne_types = [v.type for v in neutral]
    if not ne_types:
        raise VerifyException(f"'{op.name}' needs at least one {what[:-1]}")
    check_params(op, combine, role, ne_types + ne_types, f"the {what} (twice)")
    check_yields(op, combine, role, ne_types, f"the {what}")
    return ne_types


def check_inputs_match_neutral(op: Operation, inputs: Sequence[SSAValue], ne_types: Sequence[Attribute]) -> None:
    rows = input_rows(op, inputs)
    if not all_compatible(rows, ne_types):
        raise VerifyException(
            f"'{op.name}' input elements {format_types(rows)} do not match the neutral elements {format_types(ne_types)}"
        )


def check_reduce_lambda(
    op: Operation, body: Region, ne_types: Sequence[Attribute], role: str, what: str = "neutral element types"
) -> list[Attribute]:
    """Check that `body` yields the reduced values first; return its map-out element types."""
    yielded = yielded_types(op, body, role)
    k = len(ne_types)
    if len(yielded) < k or not all_compatible(yielded[:k], ne_types):
        raise VerifyException(
            f"'{op.name}' {role} yields {format_types(yielded)} but must start with the {what} {format_types(ne_types)}"
        )
    return yielded[k:]
