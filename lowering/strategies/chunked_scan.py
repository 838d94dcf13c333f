"""CPU-shaped scans and reductions (`scan="chunked"`): one work-item per contiguous chunk, no local memory, no barriers.

The input is cut into `C = clamp(ceil(n / chunk-min), 1, max-groups)` chunks of
`ceil(n / C)` elements (rounded up to a multiple of `chunk-align`, so chunks start
on cache lines; both soac-to-kernel options, 4096 and 16 by default); every kernel
is launched as C work-groups of one work-item, so PoCL runs each chunk as one plain sequential loop over contiguous memory (which
its compiler unrolls, and vectorises where the loop is a reduction) and spreads
the chunks over its threads.

scan / scanomap, two kernels:

1. `chunk_reduce`: chunk c folds its elements, the map lambda applied on the fly,
   into its aggregate (one read of the input);
2. `chunk_scan`: chunk c folds the aggregates of chunks 0 .. c-1, in order, into
   its exclusive prefix (C is small), then re-scans its elements from it, applying
   the map lambda and the post lambda and writing the results and map-outs (one
   read, one write).

reduce / redomap: `chunk_reduce` also writes the map-outs and stores one partial per
chunk; `chunk_partials` (one work-item) folds the partials in order and the host
reads the result.

Operands are combined in their order everywhere, so any associative operator
works (several values, non-commutative, arrays of rows through the map lambda).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, KValue, View
from soac.lowering.conversion.sequential import Inliner
from soac.lowering.kernel import ReadOp
from soac.lowering.strategies.generated_inputs import InputRows
from soac.lowering.strategies.scan_scatter import ScatterSink, sink_writer
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import SSAValue

ElementFn = Callable[[SSAValue], list[KValue]]
FOLD_BLOCK = 256
"""Elements a chunk of a floating-point reduction folds from the neutral element before adding them in
(`fold_blocked`)."""


def _grid(lw: HostLowering, width: SSAValue) -> tuple[SSAValue, SSAValue]:
    """The number of chunks (at least 1) and the elements per chunk, on the host."""
    m = lw.m
    least, align = m.c(lw.options.chunk_min), m.c(lw.options.chunk_align)
    chunks = m.max(m.min(m.ceildiv(width, least), m.c(lw.max_groups)), m.c(1), "chunks")
    size = m.mul(m.ceildiv(m.ceildiv(width, chunks), align), align, "chunk_size")
    return chunks, size


class _ChunkKernel:
    """One kernel of a chunked scan or reduction: its chunk `[lo, hi)`, elements, operator and loops."""

    def __init__(self, lw: HostLowering, name: str, op: soac.ScanOp | soac.ScanomapOp | soac.ReduceOp | soac.RedomapOp):
        self.lw, self.op = lw, op
        self.kb = kb = lw.kernel(name)
        self.inliner = Inliner(kb)
        self.k = len(op.neutral)
        self.lam = op.body if isinstance(op, soac.ScanomapOp | soac.RedomapOp) else None
        self.chunk = kb.global_id("chunk")
        kb.thread_id = self.chunk
        self._inputs: InputRows | None = None

    @property
    def inputs(self) -> InputRows:
        """The inputs in the kernel (stored ones made arguments on first use; `generated_inputs.py`)."""
        if self._inputs is None:
            self._inputs = InputRows(self.lw, self.kb, self.op.inputs)
        return self._inputs

    def bounds(self, size: SSAValue) -> tuple[SSAValue, SSAValue]:
        m = self.kb.m
        n, ksize = self.kb.scalar(self.lw.scalar(self.op.width)), self.kb.scalar(size)
        lo = m.min(m.mul(self.chunk, ksize), n, "lo")
        return lo, m.min(m.add(lo, ksize), n, "hi")

    def neutral(self) -> list[SSAValue]:
        return [self.kb.scalar(self.lw.scalar(v), v.name_hint or "ne") for v in self.op.neutral]

    def combine(self, a: Sequence[SSAValue], b: Sequence[KValue]) -> list[SSAValue]:
        return self.inliner.inline_scalars(self.op.combine, [*a, *b])

    def element(self, i: SSAValue) -> list[KValue]:
        rows = self.inputs.at(i)
        return self.inliner.inline(self.lam, rows) if self.lam is not None else rows

    def fold(
        self,
        lo: SSAValue,
        hi: SSAValue,
        init: Sequence[SSAValue],
        each: Callable[[SSAValue, list[KValue], list[SSAValue]], None] | None = None,
    ) -> list[SSAValue]:
        """Fold elements `lo .. hi-1` into `init` in order; `each(i, values, acc)` sees every step."""

        def body(i: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
            values = self.element(i)
            new = self.combine(accs, values[: self.k])
            if each is not None:
                each(i, values, new)
            return new

        return self.kb.for_loop(lo, hi, self.kb.m.c(1), list(init), "i", body)

    def fold_blocked(
        self,
        lo: SSAValue,
        hi: SSAValue,
        init: Sequence[SSAValue],
        each: Callable[[SSAValue, list[KValue], list[SSAValue]], None] | None = None,
    ) -> list[SSAValue]:
        """Fold elements `lo .. hi-1` into `init` in order, `FOLD_BLOCK` at a time: each block from the neutral element,
        then into the running value. The same result for an associative operator; for floating-point sums the
        rounding error grows with the block and the number of blocks rather than with the chunk's length (a chunk
        of 2^21 f32 summed serially drifts by about 1e-5 of the sum)."""
        m = self.kb.m

        def block(b: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
            inner = self.fold(b, m.min(m.add(b, m.c(FOLD_BLOCK)), hi, "block_end"), self.neutral(), each)
            return self.combine(accs, inner)

        return self.kb.for_loop(lo, hi, m.c(FOLD_BLOCK), list(init), "b", block)

    def fold_array(self, arrays: Sequence[HostArray], lo: SSAValue, hi: SSAValue, init: Sequence[SSAValue]) -> list[SSAValue]:
        """Fold `arrays[lo .. hi-1]` (one array per value) into `init` in order."""
        views = [self.kb.array(a) for a in arrays]

        def body(j: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
            return self.combine(accs, [self.kb.load(v, j) for v in views])

        return self.kb.for_loop(lo, hi, self.kb.m.c(1), list(init), "j", body)

    def store(self, values: Sequence[SSAValue], arrays: Sequence[HostArray], index: SSAValue) -> None:
        for value, array in zip(values, arrays):
            self.kb.store(value, self.kb.array(array), index)


def _write(kb: KernelBuilder, values: Sequence[KValue], views: Sequence[View], index: SSAValue) -> None:
    for value, view in zip(values, views):
        kb.write_row(value, view, index)


def lower_scan(
    lw: HostLowering,
    op: soac.ScanOp | soac.ScanomapOp,
    outs: list[HostArray],
    scanned: list[SSAValue],
    map_outs: list[HostArray],
    map_results: list[SSAValue],
    sink: ScatterSink | None = None,
) -> None:
    """A scan or scanomap whose outputs `outs` (scanned values) and `map_outs` are allocated; with a `sink`, the
    scatter that takes its results runs on them instead (`scan_scatter.py`)."""
    m = lw.m
    chunks, size = _grid(lw, lw.scalar(op.width))
    aggs = [lw.alloc(v.type, [chunks], f"{v.name_hint or 'acc'}_chunk_aggs") for v in op.neutral]

    # Phase 1: the aggregate of every chunk.
    ck = _ChunkKernel(lw, "chunk_reduce", op)
    lo, hi = ck.bounds(size)
    ck.store(ck.fold(lo, hi, ck.neutral()), aggs, ck.chunk)
    lw.add_kernel(ck.kb, chunks, m.c(1))

    # Phase 2: the chunk's prefix from the aggregates before it, then the chunk re-scanned from there.
    ck = _ChunkKernel(lw, "chunk_scan", op)
    kb = ck.kb
    post = op.post if isinstance(op, soac.ScanomapOp) and op.post.blocks else None
    out_views = [kb.array(a, r.name_hint) for a, r in zip(outs, scanned)]
    map_views = [kb.array(a, r.name_hint) for a, r in zip(map_outs, map_results)]
    prefix = ck.fold_array(aggs, kb.m.c(0), ck.chunk, ck.neutral())
    lo, hi = ck.bounds(size)
    scatter = sink_writer(lw, kb, ck.inliner, op, sink) if sink is not None else None

    def write(i: SSAValue, values: list[KValue], acc: list[SSAValue]) -> None:
        finals: list[KValue] = list(acc)
        if post is not None:
            finals = ck.inliner.inline(post, [*acc, *ck.inputs.at(i)])
        if scatter is not None:
            scatter(i, finals)
        else:
            _write(kb, finals, out_views, i)
        _write(kb, values[ck.k :], map_views, i)

    ck.fold(lo, hi, prefix, write)
    lw.add_kernel(kb, chunks, m.c(1))


def lower_reduce(lw: HostLowering, op: soac.ReduceOp | soac.RedomapOp, map_outs: list[HostArray]) -> list[SSAValue]:
    """A reduce or redomap whose map-outs are allocated; gives the reduced values (read by the host)."""
    m = lw.m
    chunks, size = _grid(lw, lw.scalar(op.width))
    partials = [lw.alloc(v.type, [chunks], f"{v.name_hint or 'acc'}_partials") for v in op.neutral]
    k = len(op.neutral)

    ck = _ChunkKernel(lw, "chunk_reduce", op)
    kb = ck.kb
    map_views = [kb.array(a, r.name_hint) for a, r in zip(map_outs, list(op.outs)[k:])]
    lo, hi = ck.bounds(size)

    def write_map_outs(i: SSAValue, values: list[KValue], _: list[SSAValue]) -> None:
        _write(kb, values[k:], map_views, i)

    fold = ck.fold_blocked if any(isinstance(v.type, AnyFloat) for v in op.neutral) else ck.fold
    ck.store(fold(lo, hi, ck.neutral(), write_map_outs if map_views else None), partials, ck.chunk)
    lw.add_kernel(kb, chunks, m.c(1))

    finals = [lw.alloc(v.type, [m.c(1)], f"{v.name_hint or 'acc'}_result") for v in op.neutral]
    ck = _ChunkKernel(lw, "chunk_partials", op)
    ck.store(ck.fold_array(partials, ck.kb.m.c(0), ck.kb.scalar(chunks), ck.neutral()), finals, ck.kb.m.c(0))
    lw.add_kernel(ck.kb, m.c(1), m.c(1))
    return [m.insert(ReadOp(f.buffer, m.c(0)), r.name_hint) for f, r in zip(finals, op.outs)]
