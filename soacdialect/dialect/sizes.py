"""One place for the sizes of a SOAC's results: each op says where every dimension of its results comes from.

This is MLIR's `ReifyRankedShapedTypeOpInterface` for the soac dialect. An op answers `result_dims(k)` with one
`Extent` per dimension of its result `k`, in terms of its own operands and lambdas, and leaves it to the caller to
obtain each extent where it needs it (the host before a launch, a kernel before a lambda runs, a pass at a
`tensor.dim`):

    %ys = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
      %y = soac.reverse %row [0] : tensor<?xf32>
      soac.yield %y : tensor<?xf32>
    }

`map.result_dims(0)` is `[%n, DimOf(%y, 0)]`; `reverse.result_dims(0)` is `[DimOf(%row, 0)]`; and a lambda's
row parameter is a row of its input: `map.parameter_dims(%row)` is `[DimOf(%xss, 1)]`. An operator's parameters have
its neutral elements' sizes (`operator_parameter_dims`), which only the passes rely on. The callers
(`soac.lowering.conversion.sizes.Sizes`, `soac.passes.simplify_sizes.SizeResolver`) follow these answers and add
only what is not an op's to say: loops, branches and the values a place already has.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import BlockArgument, Operation, Region, SSAValue


@dataclass(frozen=True)
class DimOf:
    """Dimension `dim` of `array`."""

    array: SSAValue
    dim: int


Extent = SSAValue | DimOf | int | None
"""Where one dimension of a result comes from: an index value of the program (a width, a size operand), a dimension
of another array (an operand, a neutral element, a value a lambda yields), a size the op fixes statically (a
partition's bucket count), or None where the op does not fix it (the rows of a slice)."""


def rank_of(value: SSAValue) -> int:
    """The number of dimensions of `value` (0 for a scalar)."""
    return value.type.get_num_dims() if isinstance(value.type, TensorType) else 0


def dims_of(array: SSAValue, first: int = 0) -> list[Extent]:
    """The dimensions of `array` from `first` on."""
    return [DimOf(array, d) for d in range(first, rank_of(array))]


def rows_of(width: SSAValue, row: SSAValue) -> list[Extent]:
    """An array of `width` rows, each the size of `row` (a scalar row: a one-dimensional array)."""
    return [width, *dims_of(row)]


def yielded(region: Region, index: int) -> SSAValue:
    """The `index`-th value a lambda yields."""
    terminator = region.block.last_op
    assert terminator is not None
    return terminator.operands[index]


class ResultDimsInterface(Operation, abc.ABC):
    """An op that says where the dimensions of its array results come from (`result_dims`), and of the array
    parameters of its lambdas (`parameter_dims`)."""

    @abc.abstractmethod
    def result_dims(self, index: int) -> list[Extent]:
        """One extent per dimension of result `index`, outermost first."""
        raise NotImplementedError()

    def parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        """One extent per dimension of an array parameter that the op gives one of its lambdas, as it gives it (a row
        of an input); None where the op does not say."""
        return None

    def operator_parameter_dims(self, parameter: BlockArgument) -> list[Extent] | None:
        """One extent per dimension of a parameter of an operator (or a post lambda), as the op's neutral elements
        promise it (the arguments of an operator are its neutral elements and values of the same sizes: the program's
        promise, which a pass may rely on but memory must not be sized by); None where the op does not say."""
        return None


def row_parameter_dims(inputs: Sequence[SSAValue], body: Region, parameter: BlockArgument) -> list[Extent] | None:
    """A parameter of a lambda that takes a row of each input: the input's dimensions after the first."""
    if parameter.block.parent is not body or parameter.index >= len(inputs):
        return None
    return dims_of(inputs[parameter.index], 1)
