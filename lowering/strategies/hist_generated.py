"""Inputs of a top-level `soac.hist` that its kernel computes instead of reading: an iota (row i is i) or a replicate
of a scalar (every row is the scalar), made for the hist alone.

    %rows = soac.iota %m : tensor<?xi64>                 // m = 4n: a histogram of 4 digits per key
    %ones = soac.replicate %m, %one : i32 -> tensor<?xi32>
    %h = soac.hist %m (%rows, %ones : ...) into(%bins : ...) ... lambda(%r: i64, %w: i32) { ... }

Neither array is stored: `lower_iota` and `lower_replicate` bind such a result to an empty buffer with the array's
sizes (`placeholder`), and the hist's rows take `r = i` and `w = %one` (`row_source`). Without this, a histogram of
every digit place of a sort would write and read 12 bytes per key and place.
"""

from __future__ import annotations

from collections.abc import Callable

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, tensor_element
from soac.lowering.conversion.sequential import _cast_index
from soac.passes.split_scan_reduce import in_soac_lambda
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

Row = Callable[[SSAValue], SSAValue]
"""The row of a generated input at index i, built in the kernel."""


def _hist_input_only(value: SSAValue) -> bool:
    """Whether every use of `value` is an input of a top-level hist."""
    if not value.uses:
        return False
    for use in value.uses:
        user = use.operation
        if not isinstance(user, soac.HistOp) or in_soac_lambda(user) or not 1 <= use.index <= len(user.inputs):
            return False
    return True


def generates(op: soac.IotaOp | soac.ReplicateOp) -> bool:
    """Whether the hists that read `op`'s array compute its rows themselves (a 1-D iota, a replicate of a scalar)."""
    if in_soac_lambda(op) or not isinstance(op.result.type, TensorType) or op.result.type.get_num_dims() != 1:
        return False
    if isinstance(op, soac.ReplicateOp) and isinstance(op.value.type, TensorType):
        return False
    return _hist_input_only(op.result)


def placeholder(lw: HostLowering, op: soac.IotaOp | soac.ReplicateOp) -> None:
    """Bind `op`'s result to an empty buffer with the array's sizes: only hists that generate its rows use it."""
    width = lw.scalar(op.width)
    element = tensor_element(op.result.type)
    empty = lw.alloc(element, [lw.m.c(0)], "generated")
    lw.env[op.result] = HostArray(empty.buffer, [width], element)


def row_source(lw: HostLowering, kb: KernelBuilder, value: SSAValue) -> Row | None:
    """How a hist kernel gets row i of `value` when it is generated; None for a stored array."""
    owner = value.owner
    if isinstance(owner, soac.IotaOp) and generates(owner):
        element = tensor_element(owner.result.type)
        return lambda i: _cast_index(kb.b, i, element)
    if isinstance(owner, soac.ReplicateOp) and generates(owner):
        scalar = kb.scalar(lw.scalar(owner.value), "v")
        return lambda _i: scalar
    return None
