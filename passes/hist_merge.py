"""Horizontal hist+hist fusion: when two histograms update the same bins, and the fused one.

Two `soac.hist` of one width fuse into one hist with both destination sets when, row by row, they update the same
bin of destinations of the same length. Both are checked on the IR, conservatively:

* **the same bin** (`same_bin`): the index each lambda yields is computed the same way from the same arrays.
  Two values are equivalent when they are the same value from outside both lambdas; or parameters of the two
  lambdas that receive rows of the same input array; or results (of the same number) of two region-free ops of
  the lambdas with the same name, properties and attributes whose operands are pairwise equivalent. After
  map->hist fusion this recognises `hist (map f xs)` twice with one `f`; an index computed with a loop or branch
  (an op with regions) is never equivalent to anything.
* **the same number of bins** (`same_length`): the destinations' lengths are the same static size, or come from
  the same value: `soac.replicate %m` / `soac.iota %m` / a map of width `%m` / `tensor.dim %x, 0` give `%m` (or
  the length of `%x`); a hist, scatter or update result has the length of the array it updates; any other array
  is its own length.

    %c = soac.hist %n (%xs : tensor<?xi32>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) { add } lambda(%x: i32) { %i = f(%x) ... soac.yield %i, %one : index, i32 }
    %m = soac.hist %n (%xs, %ws : ...) into(%d2 : tensor<?xi32>) neutral(%lo : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) { max } lambda(%x: i32, %w: i32) { %i = f(%x) ... soac.yield %i, %w : index, i32 }
becomes
    %c, %m = soac.hist %n (%xs, %ws : ...) into(%d1, %d2 : ...) neutral(%z, %lo : i32, i32)
        -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %a_1: i32, %b: i32, %b_1: i32) { add; max }
        lambda(%x: i32, %w: i32) { %i = f(%x) ... soac.yield %i, %one, %w : index, i32, i32 }

(the second lambda's copy of the index computation is dead and removed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from soac.dialect import HistOp, IotaOp, MapOp, ReplicateOp, ScatterOp, UpdateOp, YieldOp
from soac.passes.screma import combine_operators, move_lambda, new_block
from soac.passes.screma_merge import Fused
from soac.passes.screma_merge import _collect_inputs as collect_inputs  # pyright: ignore[reportPrivateUsage]
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue


@dataclass
class _Equivalence:
    """Structural equivalence of values of the lambdas of two hists (memoised)."""

    first: HistOp
    second: HistOp
    known: dict[tuple[SSAValue, SSAValue], bool] = field(default_factory=dict[tuple[SSAValue, SSAValue], bool])

    def values(self, a: SSAValue, b: SSAValue) -> bool:
        if (found := self.known.get((a, b))) is not None:
            return found
        self.known[(a, b)] = False  # no cycles in SSA form, but stay safe
        result = self._values(a, b)
        self.known[(a, b)] = result
        return result

    def _values(self, a: SSAValue, b: SSAValue) -> bool:
        inside_a, inside_b = self._local(a, self.first), self._local(b, self.second)
        if not inside_a and not inside_b:
            return a == b
        if not (inside_a and inside_b) or a.type != b.type:
            return False
        if isinstance(a, BlockArgument) or isinstance(b, BlockArgument):
            return self._params(a, b)
        op_a, op_b = a.owner, b.owner
        assert isinstance(op_a, Operation)
        assert isinstance(op_b, Operation)
        return self._ops(op_a, op_b) and a.index == b.index  # pyright: ignore[reportAttributeAccessIssue]

    def _params(self, a: SSAValue, b: SSAValue) -> bool:
        """Parameters of the two lambdas that receive rows of one input array."""
        if not isinstance(a, BlockArgument) or not isinstance(b, BlockArgument):
            return False
        if a.block is not self.first.body.block or b.block is not self.second.body.block:
            return False  # a block argument of a nested region
        return self.first.inputs[a.index] == self.second.inputs[b.index]

    def _ops(self, a: Operation, b: Operation) -> bool:
        if a.name != b.name or a.regions or b.regions or a.successors or b.successors:
            return False
        if len(a.operands) != len(b.operands) or len(a.results) != len(b.results):
            return False
        if a.properties != b.properties or a.attributes != b.attributes:
            return False
        return all(self.values(x, y) for x, y in zip(a.operands, b.operands))

    @staticmethod
    def _local(value: SSAValue, hist: HistOp) -> bool:
        """True if `value` is defined inside `hist`'s lambda."""
        owner = value.owner
        block = owner if isinstance(owner, Block) else owner.parent_block()
        return block is not None and hist.body.is_ancestor(block)


def _bin_of(hist: HistOp) -> SSAValue:
    yield_op = hist.body.block.last_op
    assert isinstance(yield_op, YieldOp)
    return yield_op.arguments[0]


def same_bin(first: HistOp, second: HistOp) -> bool:
    """The two lambdas compute the same bin for every row (see the module docstring)."""
    return _Equivalence(first, second).values(_bin_of(first), _bin_of(second))


def _constant_index(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def length_of(array: SSAValue) -> int | SSAValue:
    """A static length, or a value that stands for the (run-time) length of the 1-D `array`."""
    t = array.type
    if isinstance(t, TensorType) and t.get_num_dims() >= 1 and t.get_shape()[0] >= 0:
        return t.get_shape()[0]
    owner = array.owner
    if isinstance(owner, ReplicateOp | IotaOp | MapOp):
        return _width_length(owner.width)
    if isinstance(owner, HistOp | ScatterOp):
        return length_of(owner.dests[array.index])  # pyright: ignore[reportAttributeAccessIssue]
    if isinstance(owner, UpdateOp):
        return length_of(owner.array)
    return array


def _width_length(width: SSAValue) -> int | SSAValue:
    """A width as a length: `tensor.dim %x, 0` is the length of `%x`."""
    owner = width.owner
    if isinstance(owner, tensor.DimOp) and _constant_index(owner.index) == 0:
        return length_of(owner.source)
    if (constant := _constant_index(width)) is not None:
        return constant
    return width


def same_length(first: HistOp, second: HistOp) -> bool:
    """The destinations of both hists have the same length (see the module docstring)."""
    return length_of(first.dests[0]) == length_of(second.dests[0])


def merge_hists(first: HistOp, second: HistOp) -> Fused:
    """One hist updating both destination sets with the tupled operator; `same_bin` and `same_length` must hold."""
    blocks = (first.body.block, second.body.block)
    inputs = collect_inputs([(first.inputs, blocks[0]), (second.inputs, blocks[1])], set())
    body = new_block(inputs.rows(), inputs.hints)
    first_vals = move_lambda(blocks[0], body, [body.args[inputs.index(v)] for v in first.inputs])
    second_vals = move_lambda(blocks[1], body, [body.args[inputs.index(v)] for v in second.inputs])
    body.add_op(YieldOp(*first_vals, *second_vals[1:]))
    combine = combine_operators([(first.combine.block, list(first.neutral)), (second.combine.block, list(second.neutral))])
    op = HistOp(
        first.width, inputs.values, [*first.dests, *second.dests], [*first.neutral, *second.neutral], combine, Region(body)
    )
    return op, dict(zip([*first.outs, *second.outs], op.outs, strict=True))
