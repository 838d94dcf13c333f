"""`arith.remf`, which MLIR's arith dialect has and xDSL's lacks, and the arith dialect with it (what `make_context`
loads)."""

from xdsl.dialects.arith import Arith, FloatingPointLikeBinaryOperation
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure


@irdl_op_definition
class RemFOp(FloatingPointLikeBinaryOperation):
    """The remainder of a float division with the quotient rounded towards zero (C's exact `fmod`): it has the
    sign of the dividend, and is NaN for a zero divisor.

    See external [documentation](https://mlir.llvm.org/docs/Dialects/ArithOps/#arithremf-arithremfop).
    """

    name = "arith.remf"

    traits = traits_def(Pure())


ArithWithRemf = Dialect("arith", [*Arith.operations, RemFOp], [*Arith.attributes])
