"""Hoisting: code that does not depend on a lambda's parameters or a loop's iteration moves out of it.

An op in a SOAC lambda (or operator, or post lambda) whose operands all come from outside the SOAC computes the same
value for every element; in an `scf.for` or `scf.while` body, the same value in every iteration. `HoistInvariantCode`
moves it before the SOAC or loop, so that it is computed once and fusion sees it beside its consumers:

    %r = soac.map %n (%ws : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%w: tensor<?xf32>) {
      %at = soac.transpose %a [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>     // the same for every %w
      %row = soac.map %m (%at : tensor<?x?xf32>) -> tensor<?xf32> lambda(%c: tensor<?xf32>) { ... }
      soac.yield %row : tensor<?xf32>
    }
  becomes
    %at = soac.transpose %a [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
    %r = soac.map %n (%ws : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%w: tensor<?xf32>) {
      %row = soac.map %m (%at : tensor<?x?xf32>) -> tensor<?xf32> lambda(%c: tensor<?xf32>) { ... }
      soac.yield %row : tensor<?xf32>
    }

A lambda may run for no element and a loop for no iteration, so only code that cannot fail moves: scalar arithmetic
other than integer division by a value that may be zero, `tensor.dim`, thresholds, `iota` and `replicate` of sizes
that cannot be negative, `transpose`, `reverse`, `rotate`, branches and loops of such code, and SOACs of such code
whose inputs provably have the SOAC's width as their rows; and no array that is consumed (each element or iteration
updates a fresh one). A `soac.slice` may be out of bounds and a `soac.reshape` may not fit: they stay, as do in-place updates,
scatters and histograms (they consume an array) and `soac.assert`. The first block of an `scf.while` runs at least
once, so from there every invariant op but those that consume an array moves.

A read `soac.index %xs[%i, ...]` moves where every index is provably in bounds, as Futhark hoists an index whose
bounds check is gone: an element of `soac.iota %n`, or the induction variable of an `scf.for` from a non-negative
start to `%n`, where `%n` is the size of that dimension of `%xs`. It moves out of a loop, or out of a lambda into
code that still runs on the device (a lambda around it); a read leaving a kernel for the host would cost a transfer.
An `iota` or `replicate` does not leave a kernel either: inside one it is computed where it is read, on the host it
is stored:

    %r = soac.map %n (%is : tensor<?xindex>) -> tensor<?x?xf32> lambda(%j: index) {    // %is = soac.iota %n
      %row = soac.map %m (%ks : tensor<?xindex>) -> tensor<?xf32> lambda(%k: index) {
        %xs_j = soac.index %xss[%j] : tensor<?x?xf32> -> tensor<?xf32>                // %n = tensor.dim %xss, 0
        ...
  becomes
      %xs_j = soac.index %xss[%j] : tensor<?x?xf32> -> tensor<?xf32>
      %row = soac.map %m (%ks : tensor<?xindex>) -> tensor<?xf32> lambda(%k: index) { ... }
"""

from __future__ import annotations

from soac import dialect as soac
from soac.passes.simplify_cse import possibly_consumed
from soac.passes.simplify_sizes import SizeResolver, constant_index, rows_match_width, same_size
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator, is_side_effect_free, is_speculatable

_INTEGER_DIVISIONS = (
    arith.DivSIOp,
    arith.DivUIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
    arith.RemSIOp,
    arith.RemUIOp,
)
"""Integer divisions fail on a zero divisor (xDSL marks some of them `Pure`, as if they could not)."""
_CONSUMING = (soac.UpdateOp, soac.ScatterOp, soac.HistOp, soac.SeghistOp)
_READS = (soac.IndexOp, soac.SliceOp, soac.ReshapeOp)
_GENERATED = (soac.IotaOp, soac.ReplicateOp)
"""Arrays a kernel computes where it reads them (`lowering/conversion/generated.py`): on the host they are stored."""
_SOACS_OVER_ELEMENTS = (soac.MapOp, soac.RedomapOp, soac.ScanomapOp, soac.ScatterOp, soac.HistOp)
_SOACS_WITH_INPUTS = (soac.MapOp, soac.ReduceOp, soac.ScanOp, soac.RedomapOp, soac.ScanomapOp)


def _non_negative(value: SSAValue) -> bool:
    """Whether an index value cannot be negative: a size, a non-negative constant, or sums and products of those."""
    owner = value.owner
    if isinstance(owner, tensor.DimOp):
        return True
    if (constant := constant_index(value)) is not None:
        return constant >= 0
    if isinstance(owner, arith.AddiOp | arith.MuliOp | arith.MaxSIOp):
        return _non_negative(owner.lhs) and _non_negative(owner.rhs)
    return False


def cannot_fail(op: Operation) -> bool:
    """Whether running `op` (and what it holds) where it would not have run can neither fail nor consume."""
    match op:
        case soac.YieldOp() | scf.YieldOp():
            return True
        case soac.IotaOp() | soac.ReplicateOp():
            return _non_negative(op.width)
        case soac.TransposeOp() | soac.ReverseOp() | soac.RotateOp() | soac.ThresholdOp():
            return True
        case _ if isinstance(op, _INTEGER_DIVISIONS):
            divisor = constant_index(op.operands[1])
            return divisor is not None and divisor != 0
        case tensor.DimOp():
            return constant_index(op.index) is not None
        case _ if isinstance(op, (*_CONSUMING, *_READS, soac.AssertOp, scf.WhileOp)):
            return False
        case scf.IfOp() | scf.ForOp():
            return _all_cannot_fail(op)
        case _ if isinstance(op, _SOACS_WITH_INPUTS):
            inputs = list(op.inputs)  # pyright: ignore[reportAttributeAccessIssue]
            width = op.width  # pyright: ignore[reportAttributeAccessIssue]
            return _all_cannot_fail(op) and rows_match_width(op, inputs, width)
        case _ if op.regions:
            return False
        case _:
            return is_side_effect_free(op) and is_speculatable(op)


def _ranges_below(index: SSAValue) -> SSAValue | None:
    """The size `%n` for an index that provably lies in `[0, %n)`: an iota's element (through `arith.index_cast`), or
    an `scf.for` induction variable from a non-negative start to `%n`."""
    if isinstance(cast := index.owner, arith.IndexCastOp):
        index = cast.input
    if not isinstance(index, BlockArgument):
        return None
    holder = index.block.parent_op()
    if isinstance(holder, scf.ForOp) and index.index == 0:
        return holder.ub if _non_negative(holder.lb) else None
    if isinstance(holder, _SOACS_OVER_ELEMENTS) and index.block.parent is holder.body:  # pyright: ignore[reportAttributeAccessIssue]
        inputs = list(holder.inputs)  # pyright: ignore[reportAttributeAccessIssue]
        if index.index < len(inputs) and isinstance(iota := inputs[index.index].owner, soac.IotaOp):
            return iota.width
    return None


def in_bounds(read: soac.IndexOp) -> bool:
    """Whether every index of `read` provably lies within its dimension of the array read."""
    resolver = SizeResolver(read)
    for dim, index in enumerate(read.indices):
        bound = _ranges_below(index)
        if bound is None or not same_size(resolver.size(read.array, dim), resolver.scalar(bound, 0)):
            return False
    return True


def _on_device(op: Operation) -> bool:
    """Whether `op` sits in a SOAC lambda (so it runs in a kernel, or sequentially inside one)."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, soac.SOAC_WITH_LAMBDAS):
            return True
        parent = parent.parent_op()
    return False


def _leaves_kernel(holder: Operation) -> bool:
    """Whether code hoisted out of `holder` would leave a kernel for the host: `holder` is a SOAC outside any lambda."""
    return isinstance(holder, soac.SOAC_WITH_LAMBDAS) and not _on_device(holder)


def _hoistable_read(candidate: Operation, holder: Operation) -> bool:
    """Whether `candidate` is a read that cannot fail and that may leave `holder` (see the module's docstring)."""
    if not isinstance(candidate, soac.IndexOp) or not in_bounds(candidate):
        return False
    return not _leaves_kernel(holder)


def _all_cannot_fail(op: Operation) -> bool:
    return all(cannot_fail(nested) for region in op.regions for block in region.blocks for nested in block.ops)


def _fails_at_most(op: Operation) -> bool:
    """Whether `op` only reads: it may fail, but moving it to where it runs anyway changes nothing else."""
    return isinstance(op, _READS) or (not isinstance(op, _CONSUMING) and is_side_effect_free(op))


def _makes_consumed(op: Operation) -> bool:
    """Whether an array `op` makes is consumed: each element or iteration needs a fresh one."""
    return any(isinstance(r.type, TensorType) and possibly_consumed(r) for r in op.results)


def _invariant(op: Operation, holder: Operation) -> bool:
    """Whether `op` (with what it holds) uses no value that `holder` defines, other than its own."""
    for nested in op.walk():
        for operand in nested.operands:
            if not soac.defined_inside(operand, op) and soac.defined_inside(operand, holder):
                return False
    return True


def _bodies(op: Operation) -> list[tuple[Block, bool]]:
    """The blocks invariant code may leave, each with whether it always runs (`scf.while`'s condition block)."""
    if isinstance(op, scf.WhileOp):
        return [(op.before_region.block, True), (op.after_region.block, False)]
    if isinstance(op, scf.ForOp) or isinstance(op, soac.SOAC_WITH_LAMBDAS):
        return [(block, False) for region in op.regions for block in _blocks(region)]
    return []


def _blocks(region: Region) -> list[Block]:
    return list(region.blocks) if len(region.blocks) == 1 else []


class HoistInvariantCode(RewritePattern):
    """Moves invariant code out of SOAC lambdas and loop bodies (see the module's docstring)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        bodies = _bodies(op)
        if not bodies:
            return
        for block, always_runs in bodies:
            for candidate in list(block.ops):
                if candidate.has_trait(IsTerminator) or not _invariant(candidate, op) or _makes_consumed(candidate):
                    continue
                if isinstance(candidate, _GENERATED) and _leaves_kernel(op):
                    continue
                if not (cannot_fail(candidate) or (always_runs and _fails_at_most(candidate)) or _hoistable_read(candidate, op)):
                    continue
                candidate.detach()
                rewriter.insert(candidate, InsertPoint.before(op))


class HoistInvariantAssert(RewritePattern):
    """Moves a `soac.assert` whose operands all come from outside a SOAC's element lambda out of it, holding also
    when the SOAC has no element (then the lambda never checked it). The check then runs once, and the lambda no longer
    holds an op that flattening would give a kernel of its own. Only a check that nothing before it in the lambda
    can fail moves, so the first failure stays the first:

        %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
          soac.assert %same, "'soac.map': width {0} does not match the outer size {1} of input #1" (%m, %k : index, index)
          ...
      becomes
        %c0 = arith.constant 0 : index
        %empty = arith.cmpi eq, %n, %c0 : index
        %checked = arith.ori %same, %empty : i1
        soac.assert %checked, "'soac.map': width {0} does not match the outer size {1} of input #1" (%m, %k : index, index)
        %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
          ...
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.AssertOp, rewriter: PatternRewriter, /) -> None:
        holder = op.parent_op()
        if not isinstance(holder, _SOACS_OVER_ELEMENTS) or op.parent_block() is not holder.body.block:
            return
        if any(soac.defined_inside(operand, holder) for operand in op.operands):
            return
        if not all(cannot_fail(earlier) or isinstance(earlier, soac.AssertOp) for earlier in _ops_before(op)):
            return
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        empty = arith.CmpiOp(holder.width, zero, "eq")
        checked = arith.OrIOp(op.ok, empty)
        hoisted = soac.AssertOp(checked, op.message.data, op.values)
        hoisted.location = op.location
        for new in (zero, empty, checked, hoisted):
            rewriter.insert(new, InsertPoint.before(holder))
        rewriter.erase(op)


class EraseRepeatedAssert(RewritePattern):
    """Erases a `soac.assert` that repeats an earlier one of its block: the same condition, message and values."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.AssertOp, rewriter: PatternRewriter, /) -> None:
        for earlier in _ops_before(op):
            if isinstance(earlier, soac.AssertOp) and earlier.operands == op.operands and earlier.message == op.message:
                rewriter.erase(op)
                return


def _ops_before(op: Operation) -> list[Operation]:
    block = op.parent_block()
    assert block is not None
    earlier: list[Operation] = []
    for other in block.ops:
        if other is op:
            return earlier
        earlier.append(other)
    return earlier
