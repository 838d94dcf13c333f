"""`soac-tile`: block and register tiling of thread-level nests whose work-items read the same arrays (seed 004).

A flattened nest in which every work-item folds a reduction over arrays that other
work-items read too wastes memory bandwidth: in matrix multiplication each row of `a`
is read by all `m` work-items of that row. This pass finds such nests and turns them
into a `soac.tiled_redomap`, which names the reads by the symbols that index them:

Before (the outer-parallel version of examples/matmul.mlir after soac-flatten):

    %c = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
      %arow = soac.index %a[%i] : tensor<?x?xf32> -> tensor<?xf32>
      %bcol = soac.index %bt[%j] : tensor<?x?xf32> -> tensor<?xf32>
      %dot = soac.redomap %k (%arow, %bcol : ...) neutral(%zero : f32) -> f32 combine(...) lambda(%x: f32, %y: f32) {...}
      soac.yield %dot : f32
    }

After:

    %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [64, 64] reg [4, 4] chunk 16
        reads(%a[d0, k], %bt[d1, k] : ...) neutral(%zero : f32) -> tensor<?x?xf32> combine(...) lambda(%x: f32, %y: f32) {...}

Two shapes of nest are tiled, wherever they are (also inside the versions of soac-flatten):

* a `segmap thread` over 1 or 2 dimensions whose lambda computes one `soac.redomap` over rows
  of arrays from outside read by its indices, or over whole 1-D arrays from outside (seed 004:
  `map (\\x -> redomap (+) (\\y -> y + x) 0 xs) xs`; nbody's `map (\\b -> reduce vadd (0,0,0)
  (map (force b) xs ys zs ms)) bodies`). The accumulator may be a tuple. What the redomap's
  lambda uses from the segmap, element reads by the indices and `arith`/`math` code computed
  from them, becomes reads and code of the tiled lambda; code after the redomap stays in the
  segmap, which then reads the tiled op's results by its indices (nbody's velocity update):

      %ax, %ay, %az = soac.tiled_redomap (%n) reduce %n ... reads(%xs[k], %ys[k], %zs[k], %ms[k], %xs[d0], ...)
      %vx, ... = soac.segmap thread (%n) lambda(%i) { %a = soac.index %ax[%i]; ...; soac.yield ... }

* a `segred thread` over 2 or 3 dimensions whose lambda reads elements by its indices and
  computes scalars from them (the fully flattened version of the same nests), unless a read
  has every index (matvec's `a[d0, k]`: its own lowering reads such rows coalesced).

A nest is tiled only when it reuses data: some read of the reduction lacks an index of the
outer space, so the work-items along that index share it. The steps of seed 004's
derivation are the parts of the tiled op (see `TiledRedomapOp` and its lowering in
`lowering/strategies/tiled.py`): `block` strip-mines the outer segmap into work-groups of
tiles, `chunk` strip-mines the reduction into a loop over chunks interchanged outside the
work-items, each chunk of a shared read is copied by the whole group into local memory,
and `reg` gives each work-item a block of results held in registers.

Inside soac-flatten's versions, the intra-group versions tried before a tiled one become opt-in: their
thresholds default to 2^62 (`prefer_tiled_version`), so the tiled kernel runs unless tuning says otherwise.

A redomap outside any lambda whose lambda folds over arrays from outside (nbody's potential energy, `sum_i m_i *
sum_j f(i, j)`) is first split into a segmap of its lambda and a reduce when the segmap would be tiled
(`tile_reduced_nests`).

Options `block`, `reg` and `chunk` set the sizes of every tiled nest (0: the defaults of
`default_sizes`; `block-d1` and `reg-d1` dimension 1's of 2-D nests, for rectangular blocks); the
sizes are also tuning parameters (`soac-run --list-thresholds`). `untranspose` makes tiled ops
read `b` where they read `transpose b` (matmul's `bt`), so that no transpose kernel runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from soac.dialect import (
    REDUCED,
    IndexOp,
    Level,
    RedomapOp,
    SegmapOp,
    SegredOp,
    TiledRedomapOp,
    TileSizes,
    TransposeOp,
    YieldOp,
    defined_inside,
)
from soac.parsing import location_of
from soac.passes.flatten_analysis import in_lambda
from soac.passes.thresholds import MAX_THRESHOLD, guard
from soac.passes.tile_reduced_nests import SplitReducedNest
from xdsl.context import Context
from xdsl.dialects import builtin, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, DenseArrayBase, IntegerAttr, TensorType, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint


def default_sizes(rank: int) -> TileSizes:
    """Tile sizes that are good on an H200 (bench/RESULTS.md, "Block and register tiling")."""
    if rank == 1:
        return TileSizes((128,), (2,), 128)
    return TileSizes((128, 128), (8, 8), 8)


class NotTileable(Exception):
    """Internal: the nest does not have a shape the pass tiles."""


@dataclass
class TiledNest:
    """A nest in the terms of `soac.tiled_redomap`: its reads, and a lambda of their elements being built."""

    nest: Operation
    symbols: dict[SSAValue, int]
    """The nest's index values and the symbols they stand for (`0, 1`: d0, d1; `REDUCED`: k)."""
    reads: list[tuple[SSAValue, tuple[int, ...]]] = field(default_factory=list)
    body: Block = field(default_factory=Block)
    mapping: dict[SSAValue, SSAValue] = field(default_factory=dict)

    def read(self, array: SSAValue, indices: Sequence[SSAValue], like: SSAValue, extra: tuple[int, ...] = ()) -> SSAValue:
        """A new read of `array` by the symbols of `indices` (then `extra`); its element is a new lambda parameter
        standing for `like`."""
        if defined_inside(array, self.nest):
            raise NotTileable
        if any(i not in self.symbols for i in indices):
            raise NotTileable
        access = (*(self.symbols[i] for i in indices), *extra)
        if len(set(access)) != len(access):
            raise NotTileable
        self.reads.append((array, access))
        param = self.body.insert_arg(like.type, len(self.body.args))
        param.name_hint = like.name_hint
        return param

    def by_symbols(self, op: IndexOp) -> bool:
        """The read is indexed by the nest's indices (else it reads one place for every work-item)."""
        return any(i in self.symbols for i in op.indices)

    def clone(self, op: Operation) -> None:
        """Clone `op` into the lambda; it may use values from outside the nest, reads and what was cloned before."""
        for inner in op.walk():
            for operand in inner.operands:
                if operand in self.symbols or (defined_inside(operand, self.nest) and not defined_inside(operand, op)):
                    if operand not in self.mapping:
                        raise NotTileable
        self.body.add_op(op.clone(value_mapper=self.mapping))

    def reads_alone(self, rank: int) -> bool:
        """Some read of the reduction has every index of the outer space: each work-item reads it alone.

        A segred with such a read (matvec's `a[d0, k]`, backprop's weights) is not tiled: its own lowering reads the
        rows by teams of work-items along k, coalesced, where the tiled kernel would give each work-item its own rows
        (neighbours a row apart) to save reads of a vector that the caches hold anyway."""
        return any(REDUCED in access and len(access) == rank + 1 for _, access in self.reads)

    def reuses(self, rank: int) -> bool:
        """Some read of the reduction is shared by the work-items along an index of the outer space."""
        return any(REDUCED in access and len(access) <= rank for _, access in self.reads)


def _from_segmap(op: SegmapOp) -> tuple[TiledNest, RedomapOp]:
    """`segmap thread (dims) { scalar code; redomap; scalar code; yield }`: the redomap's inputs are rows read by
    the indices or whole arrays from outside; what its lambda uses from the segmap (element reads by the indices
    and scalar code computed from them) is read and recomputed in the tiled op's lambda."""
    block = op.body.block
    nest = TiledNest(op, {arg: d for d, arg in enumerate(block.args)})
    redomaps = [o for o in block.ops if isinstance(o, RedomapOp)]
    if len(redomaps) != 1:
        raise NotTileable
    (red,) = redomaps
    if len(red.outs) != len(red.neutral) or defined_inside(red.width, op):
        raise NotTileable
    lam = red.body.block
    for param, value in zip(lam.args, red.inputs):
        row = value.owner
        if isinstance(row, IndexOp) and row.parent_block() is block and isinstance(value.type, TensorType):
            nest.mapping[param] = nest.read(row.array, row.indices, param, (REDUCED,))
        elif not defined_inside(value, op) and isinstance(value.type, TensorType) and value.type.get_num_dims() == 1:
            nest.mapping[param] = nest.read(value, [], param, (REDUCED,))
        else:
            raise NotTileable
    for used in free_values(red.body, op):
        recompute(nest, used, block)
    for inner in lam.ops:
        nest.clone(inner)
    return nest, red


def recompute(nest: TiledNest, value: SSAValue, block: Block) -> None:
    """Make `value`, computed in the segmap's lambda `block`, available in the tiled op's lambda: an element read by
    the indices becomes a read, scalar code is cloned after what it uses."""
    if value in nest.mapping:
        return
    owner = value.owner
    if not isinstance(owner, Operation) or owner.parent_block() is not block:
        raise NotTileable  # an index used as a value, or a value from a nested region
    if isinstance(owner, IndexOp) and not isinstance(value.type, TensorType):
        nest.mapping[value] = nest.read(owner.array, owner.indices, value)
        return
    if owner.regions or not _is_scalar_code(owner):
        raise NotTileable
    for operand in owner.operands:
        if defined_inside(operand, nest.nest):
            recompute(nest, operand, block)
    nest.clone(owner)


def _is_scalar_code(op: Operation) -> bool:
    """Pure `arith` or `math` code on scalars, which a work-item may compute again at every step."""
    scalar = all(not isinstance(v.type, TensorType) for v in (*op.operands, *op.results))
    return scalar and op.dialect_name() in ("arith", "math")


def free_values(region: Region, nest: Operation) -> list[SSAValue]:
    """Values defined in `nest` outside `region` that ops in `region` use, once each, in order of use."""
    found: dict[SSAValue, None] = {}
    owner = region.parent_op()
    assert owner is not None
    for inner in region.walk():
        for operand in inner.operands:
            if defined_inside(operand, nest) and not defined_inside(operand, owner):
                found[operand] = None
    return list(found)


def _from_segred(op: SegredOp) -> TiledNest:
    """`segred thread (dims, k) { element reads by the indices; scalar code; yield the values reduced }`."""
    block = op.body.block
    *outer, k = block.args
    nest = TiledNest(op, {arg: d for d, arg in enumerate(outer)} | {k: REDUCED})
    if not isinstance(block.last_op, YieldOp):
        raise NotTileable
    for inner in block.ops:
        if isinstance(inner, IndexOp) and not isinstance(inner.result.type, TensorType) and nest.by_symbols(inner):
            nest.mapping[inner.result] = nest.read(inner.array, inner.indices, inner.result)
        else:
            nest.clone(inner)
    return nest


@dataclass
class TileNest(RewritePattern):
    """Replaces a thread-level nest that reuses data by a `soac.tiled_redomap`."""

    sizes: dict[int, TileSizes]
    counter: list[int]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SegmapOp | SegredOp, rewriter: PatternRewriter, /) -> None:
        if op.level.data != Level.THREAD or in_lambda(op):
            return
        found = _tileable(op)
        if found is None:
            return
        nest, red, (dims, width, neutral, combine) = found
        rank = len(dims)
        if problem := self.sizes[rank].problem(rank):
            raise ValueError(f"soac-tile: {location_of(op) or op.name}: for this {rank}-dimensional nest, {problem}")
        name = f"tile_{self.counter[0]}"
        self.counter[0] += 1
        types = [TensorType(ne.type, [DYNAMIC_INDEX] * rank) for ne in neutral]
        tiled = TiledRedomapOp(
            dims, width, nest.reads, neutral, types, combine.clone(), Region(nest.body), name, self.sizes[rank]
        )
        if red is None or _yields_exactly(op, red):
            for result, replaced in zip(tiled.outs, op.outs):
                result.name_hint = replaced.name_hint
            rewriter.replace(op, tiled)
        else:
            for result, replaced in zip(tiled.outs, red.outs):
                result.name_hint = replaced.name_hint
            rewriter.insert_op(tiled, InsertPoint.before(op))
            _read_results(op, red, tiled, rewriter)
        prefer_tiled_version(tiled)


NestParts = tuple[list[SSAValue], SSAValue, list[SSAValue], Region]
"""The index space's sizes, the reduction's width, the neutral elements and the combining operator of a nest."""


def _tileable(op: SegmapOp | SegredOp) -> tuple[TiledNest, RedomapOp | None, NestParts] | None:
    """The nest of `op` in the terms of a tiled op (and a segmap's redomap), if it has a shape soac-tile tiles and
    its work-items share a read."""
    red: RedomapOp | None = None
    try:
        if isinstance(op, SegmapOp):
            if len(op.dims) not in (1, 2):
                return None
            nest, red = _from_segmap(op)
            parts = (list(op.dims), red.width, list(red.neutral), red.combine)
        else:
            if len(op.dims) not in (2, 3):
                return None
            nest = _from_segred(op)
            parts = (list(op.dims[:-1]), op.dims[-1], list(op.neutral), op.combine)
    except NotTileable:
        return None
    rank = len(parts[0])
    if not nest.reuses(rank) or (isinstance(op, SegredOp) and nest.reads_alone(rank)):
        return None
    if any(defined_inside(ne, op) for ne in parts[2]) or any(defined_inside(v, op) for v in _free_in(parts[3])):
        return None
    return nest, red, parts


def _yields_exactly(op: SegmapOp, red: RedomapOp) -> bool:
    """The segmap yields the redomap's results, in order, and does nothing else with them."""
    block = op.body.block
    last = block.last_op
    return isinstance(last, YieldOp) and list(last.operands) == list(red.outs) and last.prev_op is red


def _read_results(op: SegmapOp, red: RedomapOp, tiled: TiledRedomapOp, rewriter: PatternRewriter) -> None:
    """The segmap keeps the scalar code around the redomap, which it now reads from the tiled op's results:

        %r = soac.segmap thread (%n) lambda(%i) { %x = ...; %s = soac.redomap ...; %t = f(%s, %x); soac.yield %t }

    becomes

        %s_all = soac.tiled_redomap (%n) ...
        %r = soac.segmap thread (%n) lambda(%i) { %s = soac.index %s_all[%i]; %x = ...; %t = f(%s, %x); soac.yield %t }

    and what only the redomap used is dropped."""
    block = op.body.block
    reads = [IndexOp(result, list(block.args)) for result in tiled.outs]
    for read, replaced in zip(reads, red.outs):
        read.result.name_hint = replaced.name_hint
    rewriter.replace(red, reads, [read.result for read in reads])
    for inner in reversed(list(block.ops)):
        if isinstance(inner, YieldOp) or any(result.uses for result in inner.results):
            continue
        if isinstance(inner, IndexOp) or _is_scalar_code(inner):
            rewriter.erase_op(inner)


def prefer_tiled_version(op: TiledRedomapOp) -> None:
    """Make the intra-group versions that soac-flatten put before `op` opt-in: their thresholds default to 2^62.

    soac-flatten tries `a work-group per outer element` before the thread-level nest that is now tiled; with
    Futhark's default of 32 for `suff_intra_par`, matrix multiplication of 1024 x 1024 matrices runs a
    work-group per row, 27x slower than the tiled kernel on an H200. The intra-group version stays in the
    program, and `soac-autotune` still takes it where it measures faster.
    """
    child, parent = op, op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.IfOp) and child.parent_region() is parent.false_region:
            test = guard(parent.cond)
            if test is not None and test.threshold_name.startswith("suff_intra_par"):
                test.default = IntegerAttr(MAX_THRESHOLD, i64)
        child, parent = parent, parent.parent_op()


def _free_in(region: Region) -> list[SSAValue]:
    owner = region.parent_op()
    assert owner is not None
    return [v for inner in region.walk() for v in inner.operands if not defined_inside(v, owner)]


def read_untransposed(op: TiledRedomapOp) -> list[TransposeOp]:
    """Reads of a 2-D transposed array read the array itself, their symbols swapped; gives the transposes read.

        %bt = soac.transpose %b [1, 0]
        ... soac.tiled_redomap ... reads(%a[d0, k], %bt[d1, k] : ...)

    becomes `reads(%a[d0, k], %b[k, d1] : ...)`: the tiled kernel copies chunks of b's rows (consecutive along d1)
    instead of bt's, and the transpose is not needed where nothing else reads it."""
    read_from: list[TransposeOp] = []
    accesses = op.accesses
    first = len(op.dims) + 1
    for r, (array, access) in enumerate(zip(op.reads, accesses)):
        transpose = array.owner
        if not isinstance(transpose, TransposeOp) or tuple(transpose.perm) != (1, 0) or len(access) != 2:
            continue
        op.operands[first + r] = transpose.array
        accesses[r] = (access[1], access[0])
        read_from.append(transpose)
    if read_from:
        op.properties["access"] = ArrayAttr([DenseArrayBase.from_list(i64, list(a)) for a in accesses])
    return read_from


def _sizes(rank: int, block: int, reg: int, chunk: int, block_d1: int = 0, reg_d1: int = 0) -> TileSizes:
    """The sizes of the options for nests of `rank` dimensions (0: the default; `block_d1`, `reg_d1`: dimension 1's
    of a 2-D nest, 0: as dimension 0's)."""
    default = default_sizes(rank)
    blocks = (block,) * rank if block else default.block
    regs = (reg,) * rank if reg else default.reg
    if rank == 2:
        blocks = (blocks[0], block_d1 or blocks[1])
        regs = (regs[0], reg_d1 or regs[1])
    return TileSizes(blocks, regs, chunk or default.chunk)


@dataclass(frozen=True)
class SoacTilePass(ModulePass):
    """Block and register tiling of thread-level nests that reuse the arrays they read."""

    name = "soac-tile"

    block: int = 0
    """Elements per work-group along each dimension (0: the default)."""
    reg: int = 0
    """Elements per work-item along each dimension, held in registers (0: the default)."""
    chunk: int = 0
    """Elements of the reduction per chunk copied to local memory (0: the default)."""
    block_d1: int = 0
    """Elements per work-group along dimension 1 of 2-D nests (0: as `block`)."""
    reg_d1: int = 0
    """Elements per work-item along dimension 1 of 2-D nests (0: as `reg`): `reg=8 reg-d1=16` gives each work-item an
    8 x 16 block of results."""
    untranspose: bool = False
    """Tiled ops read a transposed 2-D array (`soac.transpose %b [1, 0]`) as the array itself, the symbols swapped
    (`read_untransposed`); a transpose that nothing else reads is then dropped."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        sizes = {rank: _sizes(rank, self.block, self.reg, self.chunk, self.block_d1, self.reg_d1) for rank in (1, 2)}
        existing = [o.tile_name for o in op.walk() if isinstance(o, TiledRedomapOp)]
        counter = [1 + max((int(n[5:]) for n in existing if n[5:].isdigit()), default=-1)]
        split = SplitReducedNest(lambda segmap: _tileable(segmap) is not None)  # nbody's potential: see its module
        PatternRewriteWalker(split, apply_recursively=False).rewrite_module(op)
        PatternRewriteWalker(TileNest(sizes, counter), apply_recursively=False).rewrite_module(op)
        if self.untranspose:
            read_from = [t for tiled in op.walk() if isinstance(tiled, TiledRedomapOp) for t in read_untransposed(tiled)]
            for transpose in dict.fromkeys(read_from):
                if not transpose.result.uses:
                    transpose.detach()
                    transpose.erase()
