"""Arrays inside a kernel that are never stored: each row is computed where a nested SOAC reads it.

Futhark fuses a reduction over an `iota` into a loop over the indices. Inside a kernel soac does the same
when every use of the array reads it row by row, as an input of a nested SOAC (or asks for its size):

    %xs = soac.iota %k : tensor<?xi32>
    %s = soac.reduce %k (%xs : tensor<?xi32>) neutral(%z : i32) -> i32 combine(...)

becomes, with no scratch memory (so `%k` may depend on the element a work-item handles),

    %s = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (i32) {
      %x = arith.index_cast %j : index to i32
      %c = arith.addi %acc, %x : i32
      scf.yield %c : i32
    }

A `soac.iota` gives its index, a `soac.replicate` its value, and a `soac.map` over such an array (with one
reader) its lambda applied to the rows of its inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from soac import dialect as soac
from soac.lowering.conversion.kernel_builder import KValue
from xdsl.dialects import tensor
from xdsl.ir import Attribute, SSAValue

ROW_READERS = (soac.MapOp, soac.ReduceOp, soac.RedomapOp, soac.ScanOp, soac.ScanomapOp, soac.ScatterOp, soac.HistOp)
"""The nested SOACs that read their inputs one row at a time, in order (`Inliner._rows`)."""


@dataclass
class Generated:
    """An array inside a kernel whose row `i` is `row(i)`, computed at each read."""

    dims: list[SSAValue]
    element: Attribute
    row: Callable[[SSAValue], KValue]


def read_by_rows(value: SSAValue) -> bool:
    """Whether every use of the array `value` is an input of a nested SOAC that reads it by rows, or its size."""
    for use in value.uses:
        user = use.operation
        if isinstance(user, tensor.DimOp):
            continue
        if not isinstance(user, ROW_READERS):
            return False
        as_input = sum(1 for x in user.inputs if x is value)
        if sum(1 for u in value.uses if u.operation is user) != as_input:
            return False  # also a destination of a scatter or hist
    return True


def readers(value: SSAValue) -> int:
    """The number of uses of `value` that read its rows (not its size)."""
    return sum(1 for use in value.uses if not isinstance(use.operation, tensor.DimOp))
