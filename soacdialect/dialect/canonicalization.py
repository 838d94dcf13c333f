"""Canonicalisation patterns of the soac dialect: drop the parts of a SOAC that nothing uses.

xDSL's `canonicalize` pass picks them up from `soac.map`, `soac.reduce`, `soac.scan`, `soac.redomap` and `soac.scanomap`
(`soac-opt -p canonicalize`, or any pipeline that embeds it). A map loses the results no
one uses and the inputs its lambda ignores:

    %a, %b = soac.map %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
        lambda(%x: i32, %y: i32) { %p = arith.addi %x, %x : i32  %q = arith.muli %x, %y : i32
                                   soac.yield %p, %q : i32, i32 }        // only %a is used
  becomes
    %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32>
        lambda(%x: i32) { %p = arith.addi %x, %x : i32  soac.yield %p : i32 }

and a reduction keeps only the parts of its operator whose results are used (Futhark's
`unused-reduce`, FU-59), when the parts do not depend on each other:

    %s, %p = soac.reduce %n (%xs, %ys : ...) neutral(%zero, %one : i32, i32) -> (i32, i32)
        combine(%x1: i32, %y1: i32, %x2: i32, %y2: i32) { %s = arith.addi %x1, %x2 ...
                                                          %p = arith.muli %y1, %y2 ...
                                                          soac.yield %s, %p }  // only %s is used
  becomes
    %s = soac.reduce %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32
        combine(%x1: i32, %x2: i32) { %s = arith.addi %x1, %x2 : i32  soac.yield %s : i32 }

A scan loses unused parts the same way. A redomap loses unused reduction parts, and unused
map-outs and ignored inputs as a map does; a scanomap loses unused map-outs, reduction
parts (all of its reduction part when none is used), post results, and the scanned values
that nothing reads any more, and becomes a redomap (or a map) when nothing reads its scan.
Reads at the index of an `iota` of a map's width become inputs of the map (FU-49), and a
slice of a map's result becomes a map of slices of its inputs (FU-45/47). A `soac.assert` whose condition is true
whatever the values (a constant `true`, or an `arith.ori` with such an operand) goes. Ops whose results are all unused
are left to dead code elimination.
"""

from __future__ import annotations

from collections.abc import Sequence

from soac.dialect.array_ops import IndexOp, IotaOp, ReplicateOp, SliceOp
from soac.dialect.base import YieldOp, canonicalization_pattern
from soac.dialect.consumption import defined_inside
from soac.dialect.control import AssertOp
from soac.dialect.screma import MapOp, RedomapOp, ReduceOp, ScanomapOp, ScanOp
from soac.types import row_type
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, i64
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.transforms.dead_code_elimination import region_dce


def _unused(values: Sequence[SSAValue]) -> list[int]:
    return [k for k, v in enumerate(values) if v.first_use is None]


def _trimmed(region: Region, keep_args: Sequence[int], keep_yields: Sequence[int]) -> Region | None:
    """A copy of a single-block `region` that yields only `keep_yields` and has only the `keep_args` parameters
    (None when a dropped parameter is still used once the dead code is gone)."""
    copy = region.clone()
    block = copy.block
    terminator = block.last_op
    assert terminator is not None
    operands = list(terminator.operands)
    terminator.detach()
    terminator.erase()
    block.add_op(YieldOp(*(operands[k] for k in keep_yields)))
    region_dce(copy)
    dropped = [arg for k, arg in enumerate(block.args) if k not in keep_args]
    if any(arg.first_use is not None for arg in dropped):
        return None
    for arg in dropped:
        block.erase_arg(arg)
    return copy


def _separable_parts(combine: Block, k: int) -> list[int]:
    """The part of a k-value operator each value belongs to: values whose code shares parameters share a part."""
    parent = list(range(k))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    args = {arg: arg.index % k for arg in combine.args}
    depends: dict[SSAValue, set[int]] = {arg: {part} for arg, part in args.items()}
    for op in combine.ops:
        used = {part for operand in _operands_within(op) for part in depends.get(operand, ())}
        for result in op.results:
            depends[result] = used
    terminator = combine.last_op
    assert terminator is not None
    for value_index, value in enumerate(terminator.operands):
        for part in depends.get(value, ()):
            parent[find(part)] = find(value_index)
    return [find(i) for i in range(k)]


def _operands_within(op: Operation) -> list[SSAValue]:
    """The operands of `op` and of every op nested in it."""
    return [operand for nested in op.walk() for operand in nested.operands]


def _removable(combine: Block, needed: set[int]) -> list[int]:
    """The values of a `k`-value operator that can go: those in parts of the operator with no `needed` value."""
    k = len(combine.args) // 2
    parts = _separable_parts(combine, k)
    kept_parts = {parts[i] for i in needed}
    return [i for i in range(k) if parts[i] not in kept_parts]


def _removable_parts(op: ReduceOp | ScanOp | RedomapOp) -> list[int]:
    """The reduced (scanned) values that can go: unused, and in parts of the operator with no used value."""
    k = len(op.neutral)
    unused = set(_unused(list(op.outs)[:k]))
    return _removable(op.combine.block, {i for i in range(k) if i not in unused})


def _replace(rewriter: PatternRewriter, op: Operation, new: Operation, kept: Sequence[int]) -> None:
    new.location = op.location
    results: list[SSAValue | None] = [None] * len(op.results)
    for new_index, old_index in enumerate(kept):
        results[old_index] = new.results[new_index]
    rewriter.replace(op, new, results)


@canonicalization_pattern
class RemoveUnusedMapParts(RewritePattern):
    """`soac.map` without the results nobody uses and the inputs its lambda ignores."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MapOp, rewriter: PatternRewriter) -> None:
        unused_results, ignored = _unused(list(op.outs)), _unused(list(op.body.block.args))
        if len(unused_results) == len(op.outs) or (not unused_results and not ignored):
            return
        kept = [k for k in range(len(op.outs)) if k not in unused_results]
        inputs = [k for k in range(len(op.inputs)) if k not in ignored]
        body = _trimmed(op.body, inputs, kept)
        if body is None:
            return
        new = MapOp(op.width, [op.inputs[k] for k in inputs], [op.outs[k].type for k in kept], body)
        _replace(rewriter, op, new, kept)


@canonicalization_pattern
class RemoveUnusedReduceParts(RewritePattern):
    """`soac.reduce` and `soac.scan` without the parts of their operator whose results nobody uses."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceOp | ScanOp, rewriter: PatternRewriter) -> None:
        k = len(op.neutral)
        removed = _removable_parts(op)
        if not removed or len(removed) == k:
            return
        kept = [i for i in range(k) if i not in removed]
        combine = _trimmed(op.combine, [*kept, *(k + i for i in kept)], kept)
        if combine is None:
            return
        neutral, inputs = [op.neutral[i] for i in kept], [op.inputs[i] for i in kept]
        if isinstance(op, ScanOp):
            new = ScanOp(op.width, neutral, inputs, combine)
        else:
            new = ReduceOp(op.width, neutral, inputs, combine, op.commutative is not None)
        _replace(rewriter, op, new, kept)


@canonicalization_pattern
class RemoveUnusedRedomapParts(RewritePattern):
    """`soac.redomap` without unused reduction parts, unused map-outs and ignored inputs."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RedomapOp, rewriter: PatternRewriter) -> None:
        k = len(op.neutral)
        removed = _removable_parts(op)
        unused_map_outs = [k + i for i in _unused(list(op.outs)[k:])]
        ignored = _unused(list(op.body.block.args))
        if len(removed) == k or (not removed and not unused_map_outs and not ignored):
            return
        reduced = [i for i in range(k) if i not in removed]
        kept = [*reduced, *(i for i in range(k, len(op.outs)) if i not in unused_map_outs)]
        inputs = [i for i in range(len(op.inputs)) if i not in ignored]
        combine = _trimmed(op.combine, [*reduced, *(k + i for i in reduced)], reduced)
        body = _trimmed(op.body, inputs, kept)
        if combine is None or body is None:
            return
        new = RedomapOp(
            op.width,
            [op.neutral[i] for i in reduced],
            [op.inputs[i] for i in inputs],
            [op.outs[i].type for i in kept],
            combine,
            body,
            op.commutative is not None,
        )
        _replace(rewriter, op, new, kept)


@canonicalization_pattern
class RemoveUnusedScanomapParts(RewritePattern):
    """`soac.scanomap` without unused map-outs, unused reduction parts (the whole reduction part when none is used),
    unused post results, forwarded values the post lambda does not use, and the scanned values that nothing needs
    any more, where the operators allow.

    A scanomap whose scan nobody reads becomes a redomap of its reduction part (a map without one).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ScanomapOp, rewriter: PatternRewriter) -> None:
        k, r, s, f = len(op.neutral), len(op.reduce_neutral), op.num_scanned, op.num_forwarded
        outs = list(op.outs)
        m, fixed = len(outs) - s - r, k + len(op.inputs)
        unused = set(_unused(outs))
        if all(j in unused for j in range(s)):
            _without_scan(op, rewriter, unused)
            return
        post: Region | None = None
        post_keep = list(range(s))
        if op.post.blocks:
            post_keep = [j for j in range(s) if j not in unused] or post_keep
            post = _trimmed(op.post, range(len(op.post.block.args)), post_keep)
            if post is None:
                return
            needed = {i for i in range(k) if post.block.args[i].first_use is not None}
            forwards = [t for t in range(f) if post.block.args[fixed + t].first_use is not None]
        else:
            needed = {i for i in range(k) if i not in unused}
            forwards = []
        scan_removed = _removable(op.combine.block, needed) if needed else []
        reduce_needed = {i for i in range(r) if s + i not in unused}
        reduce_removed = _removable(op.reduce_combine.block, reduce_needed) if op.reduce_combine is not None else []
        map_removed = [j for j in range(m) if s + r + j in unused]
        unchanged = len(post_keep) == s and len(forwards) == f
        if unchanged and not scan_removed and not reduce_removed and not map_removed:
            return
        scans = [i for i in range(k) if i not in scan_removed]
        reduces = [i for i in range(r) if i not in reduce_removed]
        maps = [j for j in range(m) if j not in map_removed]
        combine = _trimmed(op.combine, [*scans, *(k + i for i in scans)], scans)
        body_keep = [*scans, *(k + i for i in reduces), *(k + r + j for j in maps), *(k + r + m + t for t in forwards)]
        body = _trimmed(op.body, range(len(op.inputs)), body_keep)
        if post is not None:
            post_args = [*scans, *range(k, fixed), *(fixed + t for t in forwards)]
            post = _trimmed(post, post_args, range(len(post_keep)))
        reduce_combine = None
        if op.reduce_combine is not None and reduces:
            reduce_combine = _trimmed(op.reduce_combine, [*reduces, *(r + i for i in reduces)], reduces)
            if reduce_combine is None:
                return
        if combine is None or body is None or (op.post.blocks and post is None):
            return
        firsts = post_keep if op.post.blocks else scans
        kept = [*firsts, *(s + i for i in reduces), *(s + r + j for j in maps)]
        new = ScanomapOp(
            op.width,
            [op.neutral[i] for i in scans],
            op.inputs,
            [outs[i].type for i in kept],
            combine,
            body,
            post,
            reduce_neutral=[op.reduce_neutral[i] for i in reduces],
            reduce_combine=reduce_combine,
            reduce_commutative=op.reduce_commutative is not None,
        )
        _replace(rewriter, op, new, kept)


@canonicalization_pattern
class ForwardedRowsAsPostRows(RewritePattern):
    """A value a scanomap's lambda forwards that the post lambda has anyway, an input row (a lambda parameter) or a
    value defined outside the op, is read there instead (then `RemoveUnusedScanomapParts` drops the forwarding):

        lambda(%x: i32) { ... soac.yield %y, %x : i32, i32 } post(%s: i32, %x_1: i32, %f: i32) { ... %f ... }
      becomes
        lambda(%x: i32) { ... soac.yield %y, %x : i32, i32 } post(%s: i32, %x_1: i32, %f: i32) { ... %x_1 ... }
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ScanomapOp, rewriter: PatternRewriter) -> None:
        f = op.num_forwarded
        if not f:
            return
        body, post = op.body.block, op.post.block
        yielded = list(body.last_op.operands)[-f:]  # pyright: ignore[reportOptionalMemberAccess]
        rows = post.args[len(op.neutral) : len(op.neutral) + len(op.inputs)]
        for param, value in zip(post.args[len(post.args) - f :], yielded):
            if not param.uses:
                continue
            if isinstance(value, BlockArgument) and value.block is body:
                rewriter.replace_all_uses_with(param, rows[value.index])
            elif not defined_inside(value, op):
                rewriter.replace_all_uses_with(param, value)


_ROWS_OF_WIDTH = (MapOp, ScanOp, ScanomapOp, RedomapOp, IotaOp, ReplicateOp)


def _has_rows(array: SSAValue, width: SSAValue) -> bool:
    """Whether `array` provably has `width` rows: an array result of a SOAC of that very width."""
    owner = array.owner
    return isinstance(owner, _ROWS_OF_WIDTH) and owner.width is width and row_type(array.type) is not None


def _rows_known(array: SSAValue, width: SSAValue) -> bool:
    """Whether `array` provably has `width` rows: `_has_rows`, or `width` is `tensor.dim array, 0`."""
    if _has_rows(array, width):
        return True
    dim = width.owner
    if not isinstance(dim, tensor.DimOp) or dim.source is not array:
        return False
    index = dim.index.owner
    return isinstance(index, arith.ConstantOp) and isinstance(index.value, IntegerAttr) and index.value.value.data == 0


def _as_positions(param: SSAValue) -> list[SSAValue]:
    """`param` (an iota's element) and its conversions to `index` (`arith.index_cast`, as the embedding's i64 iota
    gives; a narrower iota may wrap): each is the row number."""
    if isinstance(param.type, IndexType):
        return [param]
    if param.type != i64:  # a narrower iota wraps where the index would not
        return []
    return [use.operation.result for use in param.uses if isinstance(use.operation, arith.IndexCastOp)]


@canonicalization_pattern
class IotaIndexingToMapInput(RewritePattern):
    """Rows read by the iota index become map inputs (Futhark's FU-49), so that fusion sees them:

        %ys = soac.map %n (...) ...
        %zs = soac.map %n (%io : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
          %y = soac.index %ys[%i] : tensor<?xi32> -> i32 ...
      becomes
        %zs = soac.map %n (%io, %ys : tensor<?xindex>, tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %y: i32) { ...

    where `%io = soac.iota %n` has the map's width and `%ys` provably has as many rows (a SOAC of that width, or
    `%n` is `tensor.dim %ys, 0`). An integer iota's element read through `arith.index_cast` counts as the index.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MapOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        reads: list[IndexOp] = []
        for input_, param in zip(op.inputs, block.args):
            if not isinstance(iota := input_.owner, IotaOp) or iota.width is not op.width:
                continue
            for position in _as_positions(param):
                for use in position.uses:
                    index = use.operation
                    if (
                        isinstance(index, IndexOp)
                        and index.parent_block() is block
                        and list(index.indices) == [position]
                        and _rows_known(index.array, op.width)
                    ):
                        reads.append(index)
        if not reads:
            return
        body = op.body.clone()
        inputs = list(op.inputs)
        params: dict[SSAValue, SSAValue] = dict(zip(inputs, body.block.args))
        clones = {original: clone for original, clone in zip(block.ops, body.block.ops)}
        for read in reads:
            array = read.array
            if array not in params:
                inputs.append(array)
                params[array] = body.block.insert_arg(read.result.type, len(body.block.args))
            copy = clones[read]
            copy.results[0].replace_all_uses_with(params[array])
            copy.detach()
            copy.erase()
        new = MapOp(op.width, inputs, op.outs.types, body)
        _replace(rewriter, op, new, range(len(op.outs)))


def _without_scan(op: ScanomapOp, rewriter: PatternRewriter, unused: set[int]) -> None:
    """Replace a scanomap whose scanned (post) results are unused by a redomap of its reduction part, or by a map."""
    k, s = len(op.neutral), op.num_scanned
    rest = list(range(s, len(op.outs)))
    if all(j in unused for j in rest):
        return  # nothing is used: dead code elimination removes it
    body = _trimmed(op.body, range(len(op.inputs)), [k + j - s for j in rest])
    if body is None:
        return
    types = [op.outs[j].type for j in rest]
    if op.reduce_combine is not None:
        combine = op.reduce_combine.clone()
        commutative = op.reduce_commutative is not None
        new: Operation = RedomapOp(op.width, op.reduce_neutral, op.inputs, types, combine, body, commutative)
    else:
        new = MapOp(op.width, op.inputs, types, body)
    _replace(rewriter, op, new, rest)


@canonicalization_pattern
class SliceOfMapToMapOfSlices(RewritePattern):
    """A slice of a map's only result, used nowhere else, becomes a map of slices of its inputs (FU-45/47), so that
    only the rows kept are computed and soac-fuse can fuse the map with its consumers of the slice's width. The
    inputs must provably have the map's width as their row count (else the map's size check would be lost):

        %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) { ... }
        %s = soac.slice %a[%lo : %hi] : tensor<?xi32> -> tensor<?xi32>
      becomes
        %xs_s = soac.slice %xs[%lo : %hi] : tensor<?xi32> -> tensor<?xi32>
        %w = arith.subi %hi, %lo : index
        %s = soac.map %w (%xs_s : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) { ... }
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SliceOp, rewriter: PatternRewriter) -> None:
        producer = op.array.owner
        if not isinstance(producer, MapOp) or len(producer.outs) != 1 or not op.array.has_one_use():
            return
        # The map checks that its inputs have `width` rows; the slices of them would not, so that must be known.
        if not producer.inputs or not all(_rows_known(x, producer.width) for x in producer.inputs):
            return
        slices = [SliceOp(x, op.start, op.end) for x in producer.inputs]
        for new_slice, x in zip(slices, producer.inputs):
            new_slice.location = op.location
            new_slice.result.name_hint = f"{x.name_hint or 'input'}_rows"
        width = arith.SubiOp(op.end, op.start)
        width.result.name_hint = "rows"
        new = MapOp(width, [x.result for x in slices], [op.result.type], producer.body.clone())
        new.location = producer.location
        new.outs[0].name_hint = op.result.name_hint
        rewriter.replace(op, [*slices, width, new], [new.outs[0]])
        rewriter.erase(producer)


def _always_true(condition: SSAValue) -> bool:
    """Whether an `i1` is true whatever the values: a constant `true`, an `ori` with such an operand, an `andi` of
    such operands."""
    owner = condition.owner
    if isinstance(owner, arith.ConstantOp):
        return isinstance(owner.value, IntegerAttr) and owner.value.value.data != 0
    if isinstance(owner, arith.OrIOp):
        return _always_true(owner.lhs) or _always_true(owner.rhs)
    if isinstance(owner, arith.AndIOp):
        return _always_true(owner.lhs) and _always_true(owner.rhs)
    return False


@canonicalization_pattern
class DropAlwaysTrueAssert(RewritePattern):
    """A check that cannot fail goes (else it reaches the kernels as `if (!(true))`), e.g. a flattened map's row check
    where the rows are known to match:

        %same = arith.constant true
        %ok = arith.ori %empty, %same : i1
        soac.assert %ok, "'soac.scan': width {0} does not match the outer size {1} of input #1" (%n, %n : index, index)
      becomes nothing (the `ori` and the constant are left to dead code elimination).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AssertOp, rewriter: PatternRewriter) -> None:
        if not _always_true(op.ok):
            return
        rewriter.erase(op)
