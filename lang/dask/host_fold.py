"""The last combine of a reduce's partials on the host, where the operator is one numpy ufunc.

A reduce over chunks ends with a few partials (one a chunk, or one a device group) on the host. Folding them with
soac's program of the operator costs a device call (an upload, a launch, a read: 0.3-0.6 ms on a GPU, more than a
chunk of 10^8 elements takes to reduce there). Where the operator is one arith op that numpy has as a ufunc (a sum,
a product, a bitwise or integer min/max) and its neutral element a constant, numpy folds them instead, in the
partials' own type (integers wrap as on the device):

    soac.reduce (%xs) neutral(%zero) lambda(%a: f32, %b: f32) { %s = arith.addf %a, %b; soac.yield %s }
      partials [p0, p1, p2]  ->  np.add.reduce([0.0, p0, p1, p2], dtype=float32)

Floating-point min and max stay on the device (numpy's NaN rules need not be the device's), as do unsigned
operators (soac.lang writes them between bitcasts, so the lambda is not one op).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from soac.dialect import ReduceOp
from soac.lowering.strategies.group_code import is_commutative
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Operation

_UFUNCS: dict[type[Operation], np.ufunc] = {
    arith.AddfOp: np.add,
    arith.AddiOp: np.add,
    arith.MulfOp: np.multiply,
    arith.MuliOp: np.multiply,
    arith.AndIOp: np.bitwise_and,
    arith.OrIOp: np.bitwise_or,
    arith.XOrIOp: np.bitwise_xor,
    arith.MaxSIOp: np.maximum,
    arith.MinSIOp: np.minimum,
}


@dataclass(frozen=True)
class HostFold:
    """`ufunc.reduce` of the neutral element and the partials, in the partials' type."""

    ufunc: np.ufunc
    neutral: int | float

    def __call__(self, partials: np.ndarray) -> np.ndarray:
        dtype = partials.dtype
        values = np.concatenate([np.array(self.neutral).astype(dtype)[None], partials.reshape(-1)])
        return np.asarray(self.ufunc.reduce(values, dtype=dtype))


def host_fold(terminal: Operation | None, dtype: np.dtype) -> HostFold | None:
    """The host fold of a reduce of one value of `dtype` (numbers only) whose operator is one ufunc, else None."""
    if not isinstance(terminal, ReduceOp) or len(terminal.neutral) != 1 or dtype.kind not in "iuf":
        return None
    if not is_commutative(terminal.combine):
        return None
    op = terminal.combine.block.first_op
    neutral = terminal.neutral[0].owner
    if not isinstance(neutral, arith.ConstantOp) or not isinstance(neutral.value, IntegerAttr | FloatAttr):
        return None
    if (ufunc := _UFUNCS.get(type(op))) is None:
        return None
    return HostFold(ufunc, neutral.value.value.data)


__all__ = ["HostFold", "host_fold"]
