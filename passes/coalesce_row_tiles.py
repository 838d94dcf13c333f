r"""`soac-coalesce`'s row-tiles rule: a thread-level kernel's walks along rows read them through local-memory tiles.

After the rows rule (`coalesce_rows.py`), the outer-parallel version of softmax or layernorm keeps a first kernel in
which work-item `%i` walks row `%i` of `%x` once per reduction (the max, then the sum of `exp(r - m)`), yielding
scalars. Read as it stands, neighbouring work-items read addresses a row apart; the manifest rule
(`coalesce_manifest.py`) fixes that with a transposed copy of `%x` (a read and a write of the whole array more). This
rule instead makes each walk a `soac.tiled_redomap` over the rows whose read of `%x[d0, k]` is *staged*: a work-group
of G work-items owns G consecutive rows and, chunk by chunk, copies a G x T tile of them into local memory (each row
segment read by consecutive work-items, coalesced), then each work-item folds its own tile row
(`lowering/strategies/tiled.py`, `staged_rows`). No copy of `%x` is made: two walks cost two reads of it.

    %y, %m_of = soac.segmap thread (%n) -> (tensor<?xf32>, tensor<?xf32>) lambda(%i: index) {
      %r = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
      %m = soac.reduce %w (%r : tensor<?xf32>) neutral(%ninf : f32) -> f32 combine(...) { maximumf }
      %s = soac.redomap %w (%r : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(...) { addf }
          lambda(%v: f32) { %d = arith.subf %v, %m : f32; %e = math.exp %d : f32; soac.yield %e : f32 }
      %l = f(%m, %s)
      soac.yield %l, %m : f32, f32
    }
  becomes
    %m_all = soac.tiled_redomap (%n) reduce %w tile "rows_0" block [64] reg [1] chunk 64
        reads(%x[d0, k] : tensor<?x?xf32>) neutral(%ninf : f32) -> tensor<?xf32> combine(...) lambda(%v: f32) {
          soac.yield %v : f32 } attributes {staged_rows}
    %s_all = soac.tiled_redomap (%n) reduce %w tile "rows_1" block [64] reg [1] chunk 64
        reads(%x[d0, k], %m_all[d0] : tensor<?x?xf32>, tensor<?xf32>) ... lambda(%v: f32, %m: f32) { ... }
        attributes {staged_rows}
    %y, %m_of = soac.segmap thread (%n) -> (...) lambda(%i: index) {
      %m = soac.index %m_all[%i] : tensor<?xf32> -> f32
      %s = soac.index %s_all[%i] : tensor<?xf32> -> f32
      %l = f(%m, %s)
      soac.yield %l, %m : f32, f32
    }

A kernel left reading the tiled ops' results alone (a walk and nothing else: matvec's) is dropped, its results the
tiled ops'. The walks are taken in order; what a walk's lambda uses from the kernel (an earlier walk's result, scalar code on it,
element reads by `%i`) becomes reads by `d0` and code of the tiled lambda (`soac_tile.recompute`). The rule decides
from the index expressions alone: a `segmap thread` over one dimension that no other SOAC holds, whose every
`soac.reduce` and `soac.redomap` (without map-outs, its width and operator from outside the kernel) takes rows
`%x[%i]` of 2-D arrays made before the kernel (or whole 1-D arrays, read by `k` by every row), unless their types say
they are small or their rows short (`worth_copying`, as the manifest rule decides). Any other kernel is left as it
was, for the manifest rule. The work-group size, rows per work-item and chunk are the pass's `row-block`,
`row-reg` and `row-chunk` options (tuning parameters as every tiled op's sizes); `row-tiles=false` turns it off.
"""

from __future__ import annotations

from dataclasses import dataclass

from soac import dialect as soac
from soac.dialect import REDUCED, STAGED_ROWS, TiledRedomapOp, TileSizes, YieldOp
from soac.passes.coalesce_manifest import defined_inside, worth_copying
from soac.passes.flatten_analysis import in_lambda
from soac.passes.simplify_sizes import has_size
from soac.passes.soac_tile import NotTileable, TiledNest, free_values, recompute
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.transforms.dead_code_elimination import region_dce

Walk = soac.ReduceOp | soac.RedomapOp

DEFAULT_ROW_SIZES = TileSizes((64,), (1,), 64)
"""64 rows a work-group, one a work-item, tiles of 64 elements of each row (two 128-byte lines of f32; 32 was 7%
slower for softmax on an H200)."""


@dataclass
class TileRowWalks(RewritePattern):
    """Each walk along the work-item's row of a 1-D `segmap thread` becomes a staged `soac.tiled_redomap` (see the
    module docstring); the segmap reads the walks' results by its index."""

    sizes: TileSizes
    names: list[int]
    """The number of the next tiled op's name (`rows_N`), shared with the pass."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.SegmapOp, rewriter: PatternRewriter, /) -> None:
        if op.level.data != soac.Level.THREAD or len(op.dims) != 1 or in_lambda(op):
            return
        block = op.body.block
        walks = [inner for inner in block.ops if isinstance(inner, Walk)]
        if not walks or not all(_walks_rows(op, walk) for walk in walks):
            return
        made: list[SSAValue] = []
        for walk in walks:
            try:
                nest = _nest_of(op, walk)
            except NotTileable:
                break  # this walk and the later ones stay (the manifest rule copies for them)
            tiled = self._tiled(nest, walk)
            rewriter.insert([*_width_checks(op, walk), tiled], InsertPoint.before(op))
            reads = [soac.IndexOp(result, [block.args[0]]) for result in tiled.outs]
            for read, replaced in zip(reads, walk.outs):
                read.result.name_hint = replaced.name_hint
            rewriter.replace(walk, reads, [read.result for read in reads])
            made += tiled.outs
        region_dce(op.body, rewriter)
        if (forwarded := _only_reads_of(op, made)) is not None:
            rewriter.replace(op, [], forwarded)

    def _tiled(self, nest: TiledNest, walk: Walk) -> TiledRedomapOp:
        name = f"rows_{self.names[0]}"
        self.names[0] += 1
        types = [TensorType(ne.type, [DYNAMIC_INDEX]) for ne in walk.neutral]
        tiled = TiledRedomapOp(
            [nest.nest.dims[0]], walk.width, nest.reads, list(walk.neutral), types, walk.combine.clone(),
            Region(nest.body), name, self.sizes,
        )  # fmt: skip
        tiled.attributes[STAGED_ROWS] = UnitAttr()
        tiled.location = walk.location
        for result, replaced in zip(tiled.outs, walk.outs):
            result.name_hint = (replaced.name_hint or "walk") + "_all"
        return tiled


def _only_reads_of(op: soac.SegmapOp, made: list[SSAValue]) -> list[SSAValue] | None:
    """The tiled ops' results that the segmap yields, when all it does is read them at its index (matvec's walk alone):
    they replace its results, and no kernel copies them."""
    block = op.body.block
    last = block.last_op
    if not isinstance(last, YieldOp) or len(block.ops) != len(last.operands) + 1:
        return None
    arrays: list[SSAValue] = []
    for value in last.operands:
        read = value.owner
        if not isinstance(read, soac.IndexOp) or read.array not in made or list(read.indices) != [block.args[0]]:
            return None
        arrays.append(read.array)
    if any(array.type != result.type for array, result in zip(arrays, op.outs)):
        return None
    return arrays


def _own_row(op: soac.SegmapOp, value: SSAValue) -> soac.IndexOp | None:
    """The read `soac.index %x[%i]` in the kernel's block that gives `value`, the work-item's own row, if it is one."""
    row = value.owner
    block = op.body.block
    if isinstance(row, soac.IndexOp) and row.parent_block() is block and list(row.indices) == [block.args[0]]:
        return row
    return None


def _walks_rows(op: soac.SegmapOp, walk: Walk) -> bool:
    """`walk` folds rows `%x[%i]` of 2-D arrays from outside (or whole 1-D arrays from outside) into scalars, with
    its width and operator from outside the kernel."""
    if len(walk.outs) != len(walk.neutral) or defined_inside(walk.width, op):
        return False
    if any(defined_inside(ne, op) or isinstance(ne.type, TensorType) for ne in walk.neutral):
        return False
    if any(defined_inside(v, op) for inner in walk.combine.walk() for v in inner.operands if not defined_inside(v, walk)):
        return False
    for value in walk.inputs:
        row = _own_row(op, value)
        if row is not None:
            array_type = row.array.type
            if defined_inside(row.array, op) or not isinstance(array_type, TensorType) or array_type.get_num_dims() != 2:
                return False
            if not worth_copying(row.array):
                return False  # known to be small or to have short rows: read as it is (as the manifest rule leaves it)
        elif defined_inside(value, op) or not isinstance(value.type, TensorType) or value.type.get_num_dims() != 1:
            return False
    return True


def _width_checks(op: soac.SegmapOp, walk: Walk) -> list[Operation]:
    """The walk's own checks, made before the tiled op: each input's length (a row's, along the array's last axis) is
    the walk's width, reported as the walk reports it; none where that holds by construction (`has_size`)."""
    checks: list[Operation] = []
    for position, value in enumerate(walk.inputs):
        row = _own_row(op, value)
        array, axis = (row.array, 1) if row is not None else (value, 0)
        if has_size(walk, array, axis, walk.width):
            continue
        dim = arith.ConstantOp(IntegerAttr(axis, IndexType()))
        length = tensor.DimOp(array, dim)
        same = arith.CmpiOp(length, walk.width, "eq")
        problem = f"'{walk.name}': width {{0}} does not match the outer size {{1}} of input #{position}"
        check = soac.AssertOp(same, problem, [walk.width, length])
        check.location = walk.location
        checks += [dim, length, same, check]
    return checks


def _nest_of(op: soac.SegmapOp, walk: Walk) -> TiledNest:
    """The walk in the terms of a tiled op: its rows read by `[d0, k]`, whole arrays by `[k]`, and its lambda (the
    identity for a reduce) with what it uses from the kernel read by `d0` or recomputed."""
    block: Block = op.body.block
    nest = TiledNest(op, {block.args[0]: 0})
    params: list[SSAValue] = []
    for value in walk.inputs:
        element = _element_of(value)
        row = _own_row(op, value)
        if row is not None:
            params.append(nest.read(row.array, row.indices, element, (REDUCED,)))
        else:
            params.append(nest.read(value, [], element, (REDUCED,)))
    if isinstance(walk, soac.ReduceOp):
        nest.body.add_op(YieldOp(*params))
        return nest
    lam = walk.body.block
    for param, read in zip(lam.args, params):
        nest.mapping[param] = read
    for used in free_values(walk.body, op):
        recompute(nest, used, block)
    for inner in lam.ops:
        nest.clone(inner)
    return nest


def _element_of(row: SSAValue) -> SSAValue:
    """A stand-in value of the row's element type, for `TiledNest.read`, which names its parameter after it."""
    assert isinstance(row.type, TensorType)
    stand_in = Block(arg_types=[row.type.get_element_type()])
    stand_in.args[0].name_hint = row.name_hint
    return stand_in.args[0]
