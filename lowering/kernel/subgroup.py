"""Sub-group (warp) ops of the kernel dialect: lanes exchanging values without local memory.

    %up = kernel.shuffle up %x, %delta width 32 : i32
    %mask = kernel.ballot %p width 32
    %same = kernel.match_any %c width 32 : i32

A sub-group is `width` consecutive work-items of a work-group (a power of two);
every work-item of it must execute the op together (no lane may have left in a
branch). `kernel.shuffle` gives the value of another lane: `up` the lane `delta`
below (its own value if there is none), `down` the lane `delta` above (likewise),
`idx` the lane given, `xor` the lane whose number differs in the bits of the mask
given. `kernel.ballot` gives an i32 whose bit `l` says whether lane `l`'s
predicate holds. `kernel.match_any` gives the mask of the lanes whose value equals
this lane's (PTX's `match.any.sync`: one instruction where ballots per bit of the
value would take one each).

Whether a device has sub-groups of a width is a property of the target
(`soac.lowering.kernel.target`): the OpenCL emitter refuses these ops for targets
without them. On NVIDIA a sub-group narrower than the warp is a segment of it, and
the whole warp must execute the shuffle; ballots are of whole warps only.
"""

from __future__ import annotations

from typing import ClassVar

from soac.lowering.kernel.attributes import ShuffleMode, ShuffleModeAttr
from soac.lowering.kernel.device import FuncOp
from xdsl.dialects.builtin import I32, I64, IntegerAttr, i1, i32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import HasAncestor
from xdsl.utils.exceptions import VerifyException

SHUFFLE_MODES = tuple(mode.value for mode in ShuffleMode)
MAX_SUBGROUP_WIDTH = 64


def _check_width(op: Operation, width: int) -> None:
    if width < 2 or width > MAX_SUBGROUP_WIDTH or width & (width - 1):
        raise VerifyException(f"'{op.name}' width must be a power of two from 2 to {MAX_SUBGROUP_WIDTH}, got {width}")


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """A 32-bit value from another lane of the sub-group.

    %y = kernel.shuffle down %x, %delta width 32 : f32
    """

    name = "kernel.shuffle"

    T: ClassVar = VarConstraint("T", AnyAttr())

    mode = prop_def(ShuffleModeAttr)
    width = prop_def(IntegerAttr[I64])
    value = operand_def(T)
    lane = operand_def(I32)
    result = result_def(T)

    traits = traits_def(HasAncestor(FuncOp))
    assembly_format = "$mode $value `,` $lane `width` $width attr-dict `:` type($value)"

    def __init__(self, mode: str, value: SSAValue | Operation, lane: SSAValue | Operation, width: int = 32):
        super().__init__(
            operands=[value, lane],
            result_types=[SSAValue.get(value).type],
            properties={"mode": ShuffleModeAttr(ShuffleMode(mode)), "width": IntegerAttr(width, i64)},
        )

    @property
    def lanes(self) -> int:
        return self.width.value.data

    def verify_(self) -> None:
        _check_width(self, self.lanes)
        if str(self.value.type) not in ("i32", "f32"):
            raise VerifyException(f"'{self.name}' moves 32-bit values (i32 or f32), not {self.value.type}")


class _MaskOp(IRDLOperation):
    """A sub-group op whose result is an i32 mask of lanes (lane 0 in the lowest bit)."""

    width = prop_def(IntegerAttr[I64])
    result = result_def(i32)

    traits = traits_def(HasAncestor(FuncOp))

    def __init__(self, operand: SSAValue | Operation, width: int = 32):
        super().__init__(operands=[operand], result_types=[i32], properties={"width": IntegerAttr(width, i64)})

    @property
    def lanes(self) -> int:
        return self.width.value.data

    def verify_(self) -> None:
        _check_width(self, self.lanes)
        if self.lanes > 32:
            raise VerifyException(f"'{self.name}' gives an i32 mask, so its width is at most 32, got {self.lanes}")


@irdl_op_definition
class BallotOp(_MaskOp):
    """The lanes of the sub-group whose predicate holds, as the bits of an i32 (lane 0 in the lowest bit).

    %mask = kernel.ballot %p width 32
    """

    name = "kernel.ballot"

    predicate = operand_def(i1)

    assembly_format = "$predicate `width` $width attr-dict"


@irdl_op_definition
class MatchAnyOp(_MaskOp):
    """The lanes of the sub-group whose value equals this lane's, as the bits of an i32 (lane 0 in the lowest bit).

    %same = kernel.match_any %c width 32 : i32
    """

    name = "kernel.match_any"

    value = operand_def(I32)

    assembly_format = "$value `width` $width attr-dict `:` type($value)"
