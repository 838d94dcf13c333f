"""scan / scanomap and segscan as single-pass decoupled look-back scans (`lookback_scan.py`).

`lookback_scan` owns the tiles, the status words and the look-back; a body gives it the code
that is specific to the op: the neutral element, the operator, how a tile's elements are loaded
(applying the map lambda and writing map-outs) and how its scanned values are stored (applying
the post lambda). `lookback_scan` makes the kernels:

    kernel.launch @main_scan_init_0(...)          // zeroes the status words of the tiles and the ticket counter
    kernel.launch @main_scan_lookback_0(...)      // the scan, tile by tile in ticket order
    kernel.launch @main_scan_lookback_rows_0(...) // segscan only: tiles along many long rows
    kernel.launch @main_scan_lookback_aligned_0(...) // segscan only: rows of whole tiles, no segment flags
                                                  // (the host launches one of the three segscan kernels, the
                                                  // others with no work-items)

`_ScanomapBody` is the body of a 1-D scan or scanomap (with its reduction part, if any:
`lookback_reduce.py`); where inputs and outputs are whole 1-D arrays of 32-bit values, full tiles
move in 16-byte vectors. An iota or replicate input is computed from the element index, not read
(`generated_inputs.py`). With a `ScatterSink` (scan_scatter.py) its store
step runs a scatter on each element's results instead of storing them.

`_SegscanBody` is a regular segmented scan (every segment of length n) as one flat scan over
all elements with the segment-start flag lifted into the operator; the flags are computed from
the index, not stored, and tiles that start a segment skip the look-back. Not `flagged`, it is the
body of the third kernel: rows of whole tiles, scanned with the plain operator.
"""

from __future__ import annotations

from soac import dialect as soac
from soac.lowering.conversion import device_intrinsics as ix
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import KernelBuilder, KValue, View
from soac.lowering.conversion.sequential import Inliner, _to_index, scatter_in_bounds
from soac.lowering.strategies import lookback_scan, segred_vector
from soac.lowering.strategies.dense_places import dense_destination
from soac.lowering.strategies.generated_inputs import InputRows
from soac.lowering.strategies.group_code import componentwise_commutative, neutral_values, vectorizable, write_values
from soac.lowering.strategies.lookback_reduce import TileReduction
from soac.lowering.strategies.outputs import ScanOutputs, SegOutputs, bind
from soac.lowering.strategies.scan_scatter import Redirect, ScatterSink, sink_views, sink_writer
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IntegerType
from xdsl.dialects.builtin import i1 as ir_i1
from xdsl.ir import Attribute, SSAValue


def lookback_scan_1d(
    lw: HostLowering, op: soac.ScanOp | soac.ScanomapOp, out: ScanOutputs, warps: bool, sink: ScatterSink | None = None
) -> None:
    """A scan or scanomap whose outputs `out` are allocated; `warps`: with warp shuffles and ballots. With a `sink`,
    the kernel runs the scatter on the results instead of storing them (`scan_scatter.py`). A reduction part is
    reduced in the same kernel (`lookback_reduce.py`) and its results bound here."""
    body = _ScanomapBody(lw, op, out, sink)
    reduced = lookback_scan.lookback_scan(lw, out.width, body.make, warps=warps)
    for value, result in zip(reduced, out.reduced):
        value.name_hint = result.name_hint
    bind(lw, out.reduced, reduced)


def lookback_segscan(lw: HostLowering, op: soac.SegscanOp, seg: SegOutputs, warps: bool) -> None:
    """A segscan whose outputs `seg` are allocated, as one look-back scan over the flattened array."""
    body, aligned = _SegscanBody(lw, op, seg, flagged=True), _SegscanBody(lw, op, seg, flagged=False)
    rows = (lw.m.product(seg.dims[:-1], "segments"), seg.dims[-1])
    count = lw.m.product(seg.dims, "count")
    lookback_scan.lookback_scan(lw, count, body.make, warps=warps, rows=rows, make_aligned=aligned.make)


class _ScanomapBody:
    """The element, combine and store code of a scan/scanomap for `lookback_scan`."""

    def __init__(self, lw: HostLowering, op: soac.ScanOp | soac.ScanomapOp, out: ScanOutputs, sink: ScatterSink | None):
        self.lw, self.op, self.out, self.sink = lw, op, out, sink
        self.lam = op.body if isinstance(op, soac.ScanomapOp) else None
        self.post = op.post if isinstance(op, soac.ScanomapOp) and op.post.blocks else None

    def make(self, kb: KernelBuilder) -> lookback_scan.ScanBody:  # noqa: C901
        lw, op = self.lw, self.op
        inliner = Inliner(kb)
        reduction = self._reduction(kb, inliner)
        k = len(op.neutral) + (len(reduction.types) if reduction is not None else 0)  # the values of an item
        inputs = InputRows(lw, kb, op.inputs)
        out_views = [kb.array(a, r.name_hint) for a, r in zip(self.out.outs, self.out.scanned)]
        map_views = [kb.array(a, r.name_hint) for a, r in zip(self.out.map_outs, self.out.map_results)]
        scan_types = [v.type for v in op.neutral]
        types = [*scan_types, *(reduction.types if reduction is not None else [])]

        def scan_neutral() -> list[SSAValue]:
            return neutral_values(kb, lw, op.neutral)

        def neutral() -> list[SSAValue]:
            return [*scan_neutral(), *(reduction.neutral() if reduction is not None else [])]

        def combine(a: list[SSAValue], b: list[SSAValue]) -> list[SSAValue]:
            return inliner.inline_scalars(op.combine, [*a, *b])

        def element(rows: list[KValue]) -> list[KValue]:
            return inliner.inline(self.lam, rows) if self.lam is not None else rows

        def write(values: list[list[KValue]], targets: list[View], base: SSAValue) -> None:
            """Write item j's values to `targets` at `base + j`, in 16-byte vectors where possible."""
            for t, view in enumerate(targets):
                column = [item[t] for item in values]
                if vectorizable(view) and all(isinstance(v, SSAValue) for v in column):
                    for q in range(0, len(column), 4):
                        ix.vector_store(kb, column[q : q + 4], view, kb.m.add(base, kb.m.c(q)))  # pyright: ignore[reportArgumentType]
                else:
                    for j, value in enumerate(column):
                        kb.write_row(value, view, kb.m.add(base, kb.m.c(j)))

        def load(base: SSAValue, count: int, full: bool, end: SSAValue) -> list[list[SSAValue]]:
            items: list[list[SSAValue]] = []
            if full:
                vectors = {
                    t: [x for q in range(0, count, 4) for x in ix.vector_load(kb, view, kb.m.add(base, kb.m.c(q)), 4)]
                    for t, view in inputs.views.items()
                    if vectorizable(view)
                }
                map_values: list[list[KValue]] = []
                for j in range(count):
                    index = kb.m.add(base, kb.m.c(j))
                    rows = [vectors[t][j] if t in vectors else inputs.row(t, index) for t in range(len(op.inputs))]
                    values = element(rows)
                    items.append(values[:k])  # pyright: ignore[reportArgumentType]
                    map_values.append(values[k:])
                write(map_values, map_views, base)
                return items
            for j in range(count):
                index = kb.m.add(base, kb.m.c(j))

                def present(index: SSAValue = index) -> list[SSAValue]:
                    values = element(inputs.at(index))
                    write_values(kb, values[k:], map_views, index)
                    return values[:k]  # pyright: ignore[reportReturnType]

                items.append(kb.if_values(kb.m.lt(index, end), types, present, neutral))
            return items

        def finals(index: SSAValue, acc: list[SSAValue]) -> list[KValue]:
            if self.post is None:
                return list(acc)
            return inliner.inline(self.post, [*acc, *inputs.at(index)])

        scatter = sink_writer(lw, kb, inliner, op, self.sink) if self.sink is not None else None
        staged = _StagedPlaces.of(lw, kb, op, self.sink) if self.sink is not None else None

        def store_one(index: SSAValue, acc: list[SSAValue]) -> None:
            if scatter is not None:
                scatter(index, finals(index, acc), staged.redirect() if staged is not None else None)
            else:
                write_values(kb, finals(index, acc), out_views, index)

        def store(base: SSAValue, scanned: list[list[SSAValue]], full: bool, end: SSAValue) -> None:
            if full and scatter is None:
                write([finals(kb.m.add(base, kb.m.c(j)), acc) for j, acc in enumerate(scanned)], out_views, base)
                return
            for j, acc in enumerate(scanned):
                index = kb.m.add(base, kb.m.c(j))
                if full:
                    store_one(index, acc)
                else:
                    kb.if_then(kb.m.lt(index, end), lambda index=index, acc=acc: store_one(index, acc))

        return lookback_scan.ScanBody(
            scan_types,
            scan_neutral,
            combine,
            load,
            store,
            scatters=scatter is not None,
            reduction=reduction,
            staging=staged,
        )

    def _reduction(self, kb: KernelBuilder, inliner: Inliner) -> TileReduction | None:
        op, lw = self.op, self.lw
        if not isinstance(op, soac.ScanomapOp) or op.reduce_combine is None:
            return None
        reduce_combine = op.reduce_combine
        return TileReduction(
            [v.type for v in op.reduce_neutral],
            lambda: neutral_values(kb, lw, op.reduce_neutral),
            [lw.scalar(v) for v in op.reduce_neutral],
            lambda a, b: inliner.inline_scalars(reduce_combine, [*a, *b]),
            op.reduce_commutative is not None or componentwise_commutative(reduce_combine),
        )


class _StagedPlaces:
    """A compaction's kept elements of a full tile gathered in local memory (`dense_places.py`): each at its place
    less the tile's first place, then written out by the work-group together, consecutive work-items to consecutive
    places. Partial tiles store each element directly."""

    LOCAL_BYTES = 32768

    def __init__(self, kb: KernelBuilder, dest: View, d: int):
        self.kb, self.dest, self.d = kb, dest, d
        self.local: SSAValue | None = None
        self.first = self.count = kb.m.c(0)

    @staticmethod
    def of(lw: HostLowering, kb: KernelBuilder, op: soac.ScanOp | soac.ScanomapOp, sink: ScatterSink) -> _StagedPlaces | None:
        if not lw.options.scan_stage:
            return None
        d = dense_destination(op, sink.op)
        if d is None:
            return None
        dest = sink_views(kb, sink)[d]
        if len(dest.dims) != 1 or _bytes(dest.element) is None:
            return None
        return _StagedPlaces(kb, dest, d)

    def fits(self, tile_size: int) -> bool:
        return tile_size * (_bytes(self.dest.element) or 0) <= self.LOCAL_BYTES

    def begin(self, tile_prefix: list[SSAValue], tile_total: list[SSAValue], tile_size: int) -> None:
        self.local = lookback_scan.local_array(self.kb, tile_size, self.dest.element, "staged")
        self.first, self.count = _to_index(self.kb.b, tile_prefix[0]), _to_index(self.kb.b, tile_total[0])

    def redirect(self) -> Redirect | None:
        """Within a full tile, the destination's writes go to local memory."""
        local, kb = self.local, self.kb
        if local is None:
            return None
        return {self.d: lambda j, value: lookback_scan.lstore(kb, value, local, kb.m.sub(j, self.first))}  # pyright: ignore[reportArgumentType]

    def end(self, t: SSAValue, group: int) -> None:
        kb, local, dest = self.kb, self.local, self.dest
        assert local is not None
        lookback_scan.barrier(kb)

        def copy(e: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            j = kb.m.add(self.first, e, "place")
            kb.if_then(scatter_in_bounds(kb, j, dest.dims[0]), lambda: kb.write_row(lookback_scan.lload(kb, local, e), dest, j))
            return []

        kb.for_loop(t, self.count, kb.m.c(group), [], "e", copy)
        self.local = None


def _bytes(element: Attribute) -> int | None:
    """The size of a scalar element of at most 32 bits, else None."""
    if isinstance(element, IntegerType | Float32Type) and element.bitwidth in (8, 16, 32):
        return element.bitwidth // 8
    return None


class _SegscanBody:
    """A regular segmented scan as one flat scan of (segment start, value) pairs.

    The operator is lifted to `(f1, v1) . (f2, v2) = (f1 | f2, f2 ? v2 : v1 . v2)`, and the
    flag of element `i` is `i mod n == 0`, so no flags are stored, and tiles that start
    a segment skip the look-back (`ScanBody.segment_start`). Not `flagged`, it scans the
    plain values with the plain operator, for rows of whole tiles: a tile then starts a
    segment or lies inside one.
    """

    def __init__(self, lw: HostLowering, op: soac.SegscanOp, seg: SegOutputs, flagged: bool):
        self.lw, self.op, self.seg, self.flagged = lw, op, seg, flagged

    def make(self, kb: KernelBuilder) -> lookback_scan.ScanBody:  # noqa: C901
        lw, op = self.lw, self.op
        inliner = Inliner(kb)
        k = len(op.neutral)
        kdims = [kb.scalar(d) for d in self.seg.dims]
        outer, inner = kdims[:-1], kdims[-1]
        count = kb.m.product(kdims)
        combined_views = [kb.array(c) for c in self.seg.combined]
        map_views = [kb.array(a, r.name_hint) for a, r in zip(self.seg.map_outs, list(op.outs)[k:])]
        names = [a.name_hint for a in op.body.block.args]
        types: list[Attribute] = [ir_i1, *(v.type for v in op.neutral)]
        km = kb.m

        def neutral() -> list[SSAValue]:
            return [km.const(0, ir_i1), *neutral_values(kb, lw, op.neutral)]

        def combine(a: list[SSAValue], b: list[SSAValue]) -> list[SSAValue]:
            values = inliner.inline_scalars(op.combine, [*a[1:], *b[1:]])
            flag = km.insert(arith.OrIOp(a[0], b[0]))
            return [flag, *(km.insert(arith.SelectOp(b[0], y, x)) for x, y in zip(values, b[1:]))]

        def positions(base: SSAValue, count_: int) -> list[tuple[SSAValue, SSAValue, SSAValue]]:
            """(flat index, segment, index in segment) of `count_` consecutive elements: one division, then increments."""
            s = km.div(base, inner, "seg")
            j = km.sub(base, km.mul(s, inner), "j")
            result = [(base, s, j)]
            for e in range(1, count_):
                j = km.add(j, km.c(1))
                wrap = km.eq(j, inner)
                j = km.insert(arith.SelectOp(wrap, km.c(0), j))
                s = km.insert(arith.SelectOp(wrap, km.add(s, km.c(1)), s))
                result.append((km.add(base, km.c(e)), s, j))
            return result

        def element(i: SSAValue, s: SSAValue, j: SSAValue) -> list[SSAValue]:
            prefix = km.unflatten(s, outer, names[:-1]) if outer else []
            values = inliner.inline(op.body, [*prefix, j])
            write_values(kb, values[k:], map_views, i)
            return [km.eq(j, km.c(0)), *values[:k]]  # pyright: ignore[reportReturnType]

        plain = segred_vector.plain_source(lw, op, self.seg.dims)
        flat_source = None
        if plain is not None:
            source = kb.array(lw.array(plain), plain.name_hint)
            flat_source = View(source.buffer, source.offset, [count], source.element)
        flat_outs = [View(v.buffer, v.offset, [count], v.element) for v in combined_views]

        def load(base: SSAValue, count_: int, full: bool, end: SSAValue) -> list[list[SSAValue]]:
            items = []
            if full and flat_source is not None and vectorizable(flat_source) and count_ % 4 == 0:
                xs = [x for q in range(0, count_, 4) for x in ix.vector_load(kb, flat_source, km.add(base, km.c(q)), 4)]
                for (_, _, j), x in zip(positions(base, count_), xs):
                    items.append([km.eq(j, km.c(0)), x])
                return items
            for i, s, j in positions(base, count_):
                if full:
                    items.append(element(i, s, j))
                else:
                    items.append(kb.if_values(km.lt(i, end), types, lambda i=i, s=s, j=j: element(i, s, j), neutral))
            return items

        def store(base: SSAValue, scanned: list[list[SSAValue]], full: bool, end: SSAValue) -> None:
            if full and all(vectorizable(v) for v in flat_outs) and len(scanned) % 4 == 0:
                for t, view in enumerate(flat_outs):
                    for q in range(0, len(scanned), 4):
                        ix.vector_store(kb, [acc[1 + t] for acc in scanned[q : q + 4]], view, km.add(base, km.c(q)))
                return
            for j, acc in enumerate(scanned):
                index = km.add(base, km.c(j))
                if full:
                    write_values(kb, acc[1:], combined_views, index)
                else:
                    kb.if_then(km.lt(index, end), lambda index=index, acc=acc: write_values(kb, acc[1:], combined_views, index))

        def segment_start(index: SSAValue) -> SSAValue:
            return km.eq(km.rem(index, inner), km.c(0), "segment_start")

        if self.flagged:
            return lookback_scan.ScanBody(types, neutral, combine, load, store, segment_start)
        no_flag = km.const(0, ir_i1)
        return lookback_scan.ScanBody(
            types[1:],
            lambda: neutral()[1:],
            lambda a, b: inliner.inline_scalars(op.combine, [*a, *b]),
            lambda base, count_, full, end: [item[1:] for item in load(base, count_, full, end)],
            lambda base, scanned, full, end: store(base, [[no_flag, *acc] for acc in scanned], full, end),
            segment_start,
            flagged=False,
        )
