"""Inputs of top-level hists, scans and scatters that their kernels compute instead of reading: an iota (row i is i)
or a replicate of a scalar (every row is the scalar), made for such ops alone.

    %rows = soac.iota %m : tensor<?xi64>                 // m = 4n: a histogram of 4 digits per key
    %ones = soac.replicate %m, %one : i32 -> tensor<?xi32>
    %h = soac.hist %m (%rows, %ones : ...) into(%bins : ...) ... lambda(%r: i64, %w: i32) { ... }

    %is = soac.iota %n : tensor<?xi32>                   // sl.filter: the row index, for the post lambda
    %at, ... = soac.scanomap %n (%flags, %is : ...) ... post(%kept: i32, %keep: i1, %i: i32) { ... }

Neither array is stored: `lower_iota` and `lower_replicate` bind such a result to an empty buffer with the array's
sizes (`placeholder`), and the readers' rows take `r = i` and `w = %one` (`row_source`, `InputRows`). Without this, a
histogram of every digit place of a sort would write and read 12 bytes per key and place, and a filter 4 more per
element. Every strategy of these ops reads its inputs through `InputRows` (hists: `histogram.py`; scans and
scanomaps, with a reduction part or a scatter in their kernel or not: `lookback_bodies.py`, `chunked_scan.py`,
`reduce_then_scan.py`, `scan_scatter.py`; scatters: `maps.lower_scatter`), so whether an array is generated depends
only on its uses, never on the strategy chosen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, KValue, View, tensor_element
from soac.lowering.conversion.sequential import _cast_index
from soac.passes.split_scan_reduce import in_soac_lambda
from xdsl.dialects import tensor
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

Row = Callable[[SSAValue], KValue]
"""The row of an input at index i, built in the kernel."""

READERS = (soac.HistOp, soac.ScanOp, soac.ScanomapOp, soac.ScatterOp)
"""The top-level ops whose kernels read their inputs through `InputRows` (or `row_source`)."""


def _read_as_input(value: SSAValue, user: soac.HistOp | soac.ScanOp | soac.ScanomapOp | soac.ScatterOp) -> bool:
    """Whether every use of `value` by `user` is one of its inputs (not a destination, not a neutral element)."""
    as_input = sum(1 for x in user.inputs if x is value)
    return sum(1 for u in value.uses if u.operation is user) == as_input


def _generated_inputs_only(value: SSAValue) -> bool:
    """Whether every use of `value` is an input of a top-level hist, scan, scanomap or scatter, or its size there."""
    if not any(not isinstance(use.operation, tensor.DimOp) for use in value.uses):
        return False
    for use in value.uses:
        user = use.operation
        if isinstance(user, tensor.DimOp) and not in_soac_lambda(user):
            continue
        if not isinstance(user, READERS) or in_soac_lambda(user) or not _read_as_input(value, user):
            return False
    return True


def generates(op: soac.IotaOp | soac.ReplicateOp) -> bool:
    """Whether the ops that read `op`'s array compute its rows themselves (a 1-D iota, a replicate of a scalar)."""
    if in_soac_lambda(op) or not isinstance(op.result.type, TensorType) or op.result.type.get_num_dims() != 1:
        return False
    if isinstance(op, soac.ReplicateOp) and isinstance(op.value.type, TensorType):
        return False
    return _generated_inputs_only(op.result)


def placeholder(lw: HostLowering, op: soac.IotaOp | soac.ReplicateOp) -> None:
    """Bind `op`'s result to an empty buffer with the array's sizes: only kernels that generate its rows use it."""
    width = lw.scalar(op.width)
    element = tensor_element(op.result.type)
    empty = lw.alloc(element, [lw.m.c(0)], "generated")
    lw.env[op.result] = HostArray(empty.buffer, [width], element)


def row_source(lw: HostLowering, kb: KernelBuilder, value: SSAValue) -> Row | None:
    """How a kernel gets row i of `value` when it is generated; None for a stored array."""
    owner = value.owner
    if isinstance(owner, soac.IotaOp) and generates(owner):
        element = tensor_element(owner.result.type)
        return lambda i: _cast_index(kb.b, i, element)
    if isinstance(owner, soac.ReplicateOp) and generates(owner):
        scalar = kb.scalar(lw.scalar(owner.value), "v")
        return lambda _i: scalar
    return None


class InputRows:
    """The inputs of an op in one kernel: a view of each stored array (a kernel argument), the rows of each generated
    one computed from the index.

        rows = InputRows(lw, kb, op.inputs)
        rows.at(i)          // [load xs[i], (i32)i] for inputs (%xs, %iota)
        rows.views          // {0: the view of %xs}: what vector loads may read
    """

    def __init__(self, lw: HostLowering, kb: KernelBuilder, values: Sequence[SSAValue]):
        self.kb = kb
        self.sources = [row_source(lw, kb, x) for x in values]
        self.views: dict[int, View] = {
            t: kb.array(lw.array(x), x.name_hint) for t, x in enumerate(values) if self.sources[t] is None
        }

    def row(self, t: int, index: SSAValue) -> KValue:
        """Row `index` of input `t`."""
        source = self.sources[t]
        return source(index) if source is not None else self.kb.row(self.views[t], index)

    def at(self, index: SSAValue) -> list[KValue]:
        """Row `index` of every input."""
        return [self.row(t, index) for t in range(len(self.sources))]
