"""Kernels for the element-parallel SOACs and the host side of the array ops.

Maps, scatters, segmaps, iota, replicate and transpose are grid-stride loops:
`min(ceil(n / group), max-groups)` work-groups, each work-item handling
elements `gid, gid + global_size, ...` (several elements per work-item when
the array is large, coalesced on GPUs):

    kernel.func @f_map_0(%xs: !kernel.buffer<global, f32>, %out: !kernel.buffer<global, f32>, %n: index) {
      %gid = kernel.global_id 0
      %gsize = kernel.global_size 0
      scf.for %i = %gid to %n step %gsize {
        ... the lambda, inlined ...
        kernel.store %y, %out[%i] : f32, !kernel.buffer<global, f32>
      }
      kernel.return
    }

With `contiguous` (the lowering's choice for CPU devices) the same grid gives
each work-item a contiguous run instead, `[gid * per, (gid + 1) * per)` with
`per = ceil(n / global_size)` rounded up to a multiple of `chunk-align` (16): on PoCL
a work-item striding by the global size (512 elements with 8 groups of 64)
takes about 190 ms for a 2^24-element map, a contiguous run about 13 ms.

Segmented maps run over the flattened index space and unflatten the position
into the lambda's indices; `level group` maps the same way (the level is a code
generation hint that only changes the strategy of segred and segscan).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import HostArray, KernelBuilder, KValue, View, tensor_element
from soac.lowering.conversion.sequential import Inliner, _cast_index, rotated_row
from soac.lowering.kernel import AllocOp, CopyOp, GlobalSizeOp, ReadOp, WriteOp
from soac.lowering.strategies import generated_inputs, transpose
from soac.lowering.strategies.scan_scatter import scatter_row
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation, SSAValue


def grid_stride(
    lw: HostLowering,
    kb: KernelBuilder,
    work: SSAValue,
    name: str,
    body: callable,  # pyright: ignore[reportGeneralTypeIssues]
) -> None:
    """Emit `for i = gid; i < work; i += global_size: body(i)` and launch it over a grid for `work` items.

    With `lw.contiguous` (CPU devices) work-item `gid` runs `body` over its own contiguous range instead."""
    work_k = kb.scalar(work)
    gid = kb.global_id()
    kb.thread_id = gid
    gsize = kb.m.insert(GlobalSizeOp(0), "gsize")

    def loop(i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        body(i)
        return []

    if lw.contiguous:
        lo, hi = contiguous_range(lw, kb, work_k, gid, gsize)
        kb.for_loop(lo, hi, kb.m.c(1), [], name, loop)
    else:
        kb.for_loop(gid, work_k, gsize, [], name, loop)
    global_size, local_size = lw.grid(work)
    lw.add_kernel(kb, global_size, local_size)


def contiguous_range(
    lw: HostLowering, kb: KernelBuilder, count: SSAValue, gid: SSAValue, gsize: SSAValue
) -> tuple[SSAValue, SSAValue]:
    """Work-item `gid`'s range `[lo, hi)` of `count` items in the contiguous layout: `per = ceil(count / gsize)`
    rounded up to a multiple of `chunk-align`."""
    m, align = kb.m, kb.m.c(lw.options.chunk_align)
    per = m.mul(m.ceildiv(m.ceildiv(count, gsize), align), align, "per")
    lo = m.min(m.mul(gid, per), count, "lo")
    return lo, m.min(m.add(lo, per), count, "hi")


def grid_stride_indexed(
    lw: HostLowering,
    kb: KernelBuilder,
    dims: Sequence[SSAValue],
    name: str,
    names: Sequence[str | None],
    body: Callable[[SSAValue, list[SSAValue]], None],
) -> None:
    """`grid_stride` over the flat positions of an index space of sizes `dims` (host values), calling
    `body(flat, indices)`. The indices are carried by the loop and advanced by the decomposed stride
    (`KernelBuilder.advance`), so the divisions of `unflatten` run once per work-item, not once per element:

        %i0, %j0 = unflatten(%gid)          %si, %sj = unflatten(%gsize)        (divisors at least 1)
        scf.for %p = %gid to %count step %gsize iter_args(%i = %i0, %j = %j0) {
          body(%p, [%i, %j])
          %j1 = %j + %sj;  %over = %j1 >= %dj;  %j2 = %over ? %j1 - %dj : %j1;  %i2 = %i + %si + (%over ? 1 : 0)
          scf.yield %i2, %j2
    """
    work = lw.m.product(dims, "count")
    if len(dims) < 2:
        grid_stride(lw, kb, work, name, lambda flat: body(flat, [flat]))
        return
    m = kb.m
    count = kb.scalar(work)
    kernel_dims = [kb.scalar(d) for d in dims]
    gid = kb.global_id()
    kb.thread_id = gid
    gsize = m.insert(GlobalSizeOp(0), "gsize")
    positive = [m.max(d, m.c(1)) for d in kernel_dims]  # no division by zero where the space is empty
    if lw.contiguous:
        (lo, hi), stride = contiguous_range(lw, kb, count, gid, gsize), m.c(1)
        step = [m.c(0)] * (len(dims) - 1) + [m.c(1)]
    else:
        lo, hi, stride = gid, count, gsize
        step = m.unflatten(gsize, positive, [None] * len(dims))
    first = m.unflatten(lo, positive, list(names))

    def loop(flat: SSAValue, indices: list[SSAValue]) -> list[SSAValue]:
        body(flat, indices)
        return m.advance(indices, step, kernel_dims)

    kb.for_loop(lo, hi, stride, first, name, loop)
    global_size, local_size = lw.grid(work)
    lw.add_kernel(kb, global_size, local_size)


def _outputs(
    lw: HostLowering, width: SSAValue, results: Sequence[SSAValue], row_dims: Sequence[list[SSAValue]]
) -> list[HostArray]:
    outs: list[HostArray] = []
    for result, dims in zip(results, row_dims):
        array = lw.alloc(tensor_element(result.type), [width, *dims], result.name_hint)
        lw.env[result] = array
        outs.append(array)
    return outs


def lower_map(lw: HostLowering, op: soac.MapOp) -> None:
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    outs = _outputs(lw, width, op.outs, lw.row_dims(op, op.body, op.outs))
    kb = lw.kernel("map")
    inliner = Inliner(kb)
    views = [kb.array(lw.array(x), x.name_hint) for x in op.inputs]
    out_views = [kb.array(o, r.name_hint) for o, r in zip(outs, op.outs)]

    def body(i: SSAValue) -> None:
        values = inliner.inline(op.body, [kb.row(v, i) for v in views])
        for value, out in zip(values, out_views):
            kb.write_row(value, out, i)

    grid_stride(lw, kb, width, "i", body)


def fresh_copy(lw: HostLowering, array: HostArray, name: str | None) -> HostArray:
    """A copy of `array` in a new buffer.

    Host arrays share buffers (loops, branches and function arguments pass them
    on without copying), so an op that consumes its array writes into a copy.
    """
    copy = lw.alloc(array.element, array.dims, name)
    lw.builder.insert(CopyOp(lw.m.product(array.dims), array.buffer, lw.m.c(0), copy.buffer, lw.m.c(0)))
    return copy


FRESH_MAKERS = (soac.ReplicateOp, soac.IotaOp, soac.SegmapOp, tensor.EmptyOp)
"""Ops whose result is always a new buffer."""


def consumed_target(lw: HostLowering, op: Operation, dest: SSAValue, name: str | None) -> HostArray:
    """The buffer an op that consumes `dest` (a scatter, hist or seghist) writes: the destination's own when an op
    that always makes a new buffer (`FRESH_MAKERS`) in the same block (not one outside a loop that runs `op` many
    times) made it for `op` alone, so that no one else sees the buffer; else a copy (`fresh_copy`)."""
    maker = dest.owner
    if isinstance(maker, FRESH_MAKERS) and maker.parent is op.parent and dest.has_one_use():
        return lw.array(dest)
    return fresh_copy(lw, lw.array(dest), name)


def scatter_destinations(lw: HostLowering, op: soac.ScatterOp) -> list[HostArray]:
    """The buffers `op` writes (see `consumed_target`), bound to its results."""
    dests = [consumed_target(lw, op, d, r.name_hint) for d, r in zip(op.dests, op.outs)]
    for result, dest in zip(op.outs, dests):
        lw.env[result] = dest
    return dests


def lower_scatter(lw: HostLowering, op: soac.ScatterOp) -> None:
    width = lw.scalar(op.width)
    lw.check_rows(op, width, op.inputs)
    dests = scatter_destinations(lw, op)
    kb = lw.kernel("scatter")
    inliner = Inliner(kb)
    inputs = generated_inputs.InputRows(lw, kb, op.inputs)
    dest_views = [kb.array(d, r.name_hint) for d, r in zip(dests, op.dests)]
    grid_stride(lw, kb, width, "i", lambda i: scatter_row(kb, inliner, op, inputs.at(i), dest_views))


def lower_iota(lw: HostLowering, op: soac.IotaOp) -> None:
    if generated_inputs.generates(op):  # the hists, scans and scatters that read it compute its rows
        generated_inputs.placeholder(lw, op)
        return
    width = lw.scalar(op.width)
    element = tensor_element(op.result.type)
    (out,) = _outputs(lw, width, [op.result], [[]])
    kb = lw.kernel("iota")
    view = kb.array(out, op.result.name_hint or "out")
    grid_stride(lw, kb, width, "i", lambda i: kb.store(_cast_index(kb.b, i, element), view, i))


def lower_replicate(lw: HostLowering, op: soac.ReplicateOp) -> None:
    if generated_inputs.generates(op):
        generated_inputs.placeholder(lw, op)
        return
    width = lw.scalar(op.width)
    source = lw.lookup(op.value)
    inner = source.dims if isinstance(source, HostArray) else []
    (out,) = _outputs(lw, width, [op.result], [inner])
    kb = lw.kernel("replicate")
    view = kb.array(out, op.result.name_hint or "out")
    value: KValue = kb.array(source, op.value.name_hint) if isinstance(source, HostArray) else kb.scalar(source, "v")
    grid_stride(lw, kb, width, "i", lambda i: kb.write_row(value, view, i))


def lower_empty(lw: HostLowering, op: tensor.EmptyOp) -> None:
    """`tensor.empty`: a buffer of the sizes, its contents unspecified (a scatter's destination whose unwritten
    places no one reads, as sl.filter's), so nothing is launched."""
    result_type = op.tensor.type
    assert isinstance(result_type, TensorType)
    sizes = iter(op.dynamic_sizes)
    dims = [lw.scalar(next(sizes)) if d == DYNAMIC_INDEX else lw.m.c(d) for d in result_type.get_shape()]
    lw.env[op.tensor] = lw.alloc(result_type.element_type, dims, op.tensor.name_hint)


def lower_transpose(lw: HostLowering, op: soac.TransposeOp) -> None:
    """A copy with the permuted sizes: through local-memory tiles where the last two dimensions swap
    (`transpose.tiled`), else a grid-stride loop over the result's elements."""
    if transpose.tiled(lw, op):
        transpose.lower_tiled_transpose(lw, op)
        return
    source = lw.array(op.array)
    perm = op.perm
    dims = [source.dims[p] for p in perm]
    out = lw.alloc(source.element, dims, op.result.name_hint)
    lw.env[op.result] = out
    kb = lw.kernel("transpose")
    src = kb.array(source, op.array.name_hint or "src")
    dst = kb.array(out, op.result.name_hint or "dst")

    def body(flat: SSAValue, indices: list[SSAValue]) -> None:
        source_indices = [indices[perm.index(k)] for k in range(len(perm))]
        kb.store(kb.load(src, kb.m.row_major(source_indices, src.dims), "x"), dst, flat)

    grid_stride_indexed(lw, kb, dims, "p", [f"i{k}" for k in range(len(dims))], body)


def lower_reverse(lw: HostLowering, op: soac.ReverseOp) -> None:
    """A copy whose element at `c` is the source's at `c` with each reversed coordinate `k` read as `dim - 1 - k`."""
    source = lw.array(op.array)
    out = lw.alloc(source.element, source.dims, op.result.name_hint)
    lw.env[op.result] = out
    kb = lw.kernel("reverse")
    src = kb.array(source, op.array.name_hint or "src")
    dst = kb.array(out, op.result.name_hint or "dst")

    def body(flat: SSAValue, coords: list[SSAValue]) -> None:
        kb.store(kb.load(src, kb.m.row_major(reversed_coords(kb, op, coords, src.dims), src.dims), "x"), dst, flat)

    grid_stride_indexed(lw, kb, source.dims, "p", [f"i{k}" for k in range(len(source.dims))], body)


def lower_rotate(lw: HostLowering, op: soac.RotateOp) -> None:
    """A copy whose row `i` is the source's row `(i + amount) mod n`."""
    source = lw.array(op.array)
    amount = lw.scalar(op.amount)
    out = lw.alloc(source.element, source.dims, op.result.name_hint)
    lw.env[op.result] = out
    kb = lw.kernel("rotate")
    src = kb.array(source, op.array.name_hint or "src")
    dst = kb.array(out, op.result.name_hint or "dst")
    shift = kb.scalar(amount)

    def body(flat: SSAValue) -> None:
        coords = kb.m.unflatten(flat, dst.dims, [f"i{k}" for k in range(len(dst.dims))])
        at = [rotated_row(kb, coords[0], shift, src.dims[0]), *coords[1:]]
        kb.store(kb.load(src, kb.m.row_major(at, src.dims), "x"), dst, flat)

    grid_stride(lw, kb, lw.m.product(source.dims, "count"), "p", body)


def reversed_coords(
    kb: KernelBuilder, op: soac.ReverseOp, coords: Sequence[SSAValue], dims: Sequence[SSAValue]
) -> list[SSAValue]:
    m = kb.m
    return [m.sub(m.sub(d, m.c(1)), c) if k in op.dims else c for k, (c, d) in enumerate(zip(coords, dims))]


def lower_reshape(lw: HostLowering, op: soac.ReshapeOp) -> None:
    """The source's buffer with the new sizes (arrays are row-major and immutable), after checking them."""
    source = lw.array(op.array)
    sizes = [lw.scalar(s) for s in op.sizes]
    for size in sizes:
        lw.check_size(op, size, "size")
    lw.check_reshape(op, lw.m.product(source.dims, "count"), sizes)
    lw.env[op.result] = HostArray(source.buffer, sizes, source.element)


def lower_segmap(lw: HostLowering, op: soac.SegmapOp) -> None:
    dims = [lw.scalar(d) for d in op.dims]
    row_dims = lw.row_dims(op, op.body, op.outs)
    outs: list[HostArray] = []
    for result, inner in zip(op.outs, row_dims):
        array = lw.alloc(tensor_element(result.type), [*dims, *inner], result.name_hint)
        lw.env[result] = array
        outs.append(array)
    kb = lw.kernel("segmap")
    inliner = Inliner(kb)
    out_views = [kb.array(o, r.name_hint) for o, r in zip(outs, op.outs)]
    kernel_dims = [kb.scalar(d) for d in dims]
    names = [a.name_hint for a in op.body.block.args]

    def body(flat: SSAValue, indices: list[SSAValue]) -> None:
        values = inliner.inline(op.body, indices)
        for value, out in zip(values, out_views):
            flat_view = View(out.buffer, out.offset, [kb.m.product(kernel_dims), *out.dims[len(dims) :]], out.element)
            kb.write_row(value, flat_view, flat)

    grid_stride_indexed(lw, kb, dims, "p", names, body)


# ---------------------------------------------------------------------------
# Array ops on the host: copies between buffers, single-element reads/writes
# ---------------------------------------------------------------------------


def _gather(lw: HostLowering, op: Operation, array: SSAValue, indices: Sequence[SSAValue], result: SSAValue) -> None:
    source = lw.array(array)
    host_indices = [lw.scalar(i) for i in indices]
    lw.check_indices(op, host_indices, source.dims)
    offset = lw.m.row_major(host_indices, source.dims)
    if len(host_indices) == source.rank:
        lw.env[result] = lw.m.insert(ReadOp(source.buffer, offset), result.name_hint)
        return
    inner = source.dims[len(host_indices) :]
    out = lw.alloc(source.element, inner, result.name_hint)
    lw.builder.insert(CopyOp(lw.m.product(inner), source.buffer, offset, out.buffer, lw.m.c(0)))
    lw.env[result] = out


def lower_index(lw: HostLowering, op: soac.IndexOp) -> None:
    _gather(lw, op, op.array, list(op.indices), op.result)


def lower_extract(lw: HostLowering, op: tensor.ExtractOp) -> None:
    _gather(lw, op, op.tensor, list(op.indices), op.result)


def lower_slice(lw: HostLowering, op: soac.SliceOp) -> None:
    """A copy of the rows, or the source's buffer itself where the slice is a prefix of an array made in this
    function that nothing else reads (a filter's kept elements: no copy)."""
    source = lw.array(op.array)
    m = lw.m
    start, end = lw.scalar(op.start), lw.scalar(op.end)
    lw.check_slice(op, start, end, source.dims[0])
    rows = m.sub(end, start, "rows")
    if lw.m.constant_of(start) == 0 and _prefix_of_own_buffer(op, source):
        lw.env[op.result] = HostArray(source.buffer, [rows, *source.dims[1:]], source.element)
        return
    row_size = m.product(source.dims[1:])
    out = lw.alloc(source.element, [rows, *source.dims[1:]], op.result.name_hint)
    lw.builder.insert(CopyOp(m.mul(rows, row_size), source.buffer, m.mul(start, row_size), out.buffer, m.c(0)))
    lw.env[op.result] = out


def _prefix_of_own_buffer(op: soac.SliceOp, source: HostArray) -> bool:
    """Whether the sliced rows (from row 0) are of a buffer the function allocated, and the slice is the source's
    only reader (but for its sizes), so that the rows after it are dead and it may share the buffer."""
    if not isinstance(source.buffer.owner, AllocOp):
        return False
    return all(use.operation is op or isinstance(use.operation, tensor.DimOp) for use in op.array.uses)


def _update(
    lw: HostLowering, op: Operation, array: SSAValue, indices: Sequence[SSAValue], value_of: SSAValue, result: SSAValue
) -> None:
    source = lw.array(array)
    host_indices = [lw.scalar(i) for i in indices]
    lw.check_indices(op, host_indices, source.dims)
    value = lw.lookup(value_of)
    if isinstance(value, HostArray):
        lw.check_shape(op, value.dims, source.dims[len(host_indices) :])
    target = fresh_copy(lw, source, result.name_hint)
    offset = lw.m.row_major(host_indices, target.dims)
    if isinstance(value, HostArray):
        count = lw.m.product(value.dims)
        lw.builder.insert(CopyOp(count, value.buffer, lw.m.c(0), target.buffer, offset))
    else:
        lw.builder.insert(WriteOp(value, target.buffer, offset))
    lw.env[result] = target


def lower_update(lw: HostLowering, op: soac.UpdateOp) -> None:
    _update(lw, op, op.array, list(op.indices), op.value, op.result)


def lower_insert(lw: HostLowering, op: tensor.InsertOp) -> None:
    _update(lw, op, op.dest, list(op.indices), op.scalar, op.result)
