"""The `soac` dialect: each lambda runs once, over all its lanes, in a child frame."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from soac import dialect as soac
from soac.interpreter.combine import reduce_axis, scan_axis
from soac.interpreter.core import SoacInterpreter
from soac.interpreter.errors import Irregular, SoacRuntimeError, fail, where
from soac.interpreter.frame import Frame
from soac.interpreter.indexing import gather, grids, update
from soac.interpreter.registry import implements
from soac.interpreter.values import Val, dtype_of, expand, lift, own, uniform
from soac.messages import format_message, reshape_problem
from xdsl.ir import Operation, Region, SSAValue


def sizes(frame: Frame, op: Operation, values: Sequence[SSAValue], what: str = "size") -> list[int]:
    """The integer values of `values`, which must agree over the lanes (else the lanes are split)."""
    vals = [frame.lookup(v) for v in values]
    found = [uniform(v) for v in vals]
    if any(u is None for u in found):
        raise Irregular([v for v, u in zip(vals, found) if u is None])
    ints = [int(u) for u in found]  # pyright: ignore[reportArgumentType]
    for size in ints:
        if size < 0:
            raise fail(op, f"negative {what} {size}")
    return ints


def width(frame: Frame, op: Operation, inputs: Sequence[SSAValue]) -> int:
    """The width of a SOAC; on a frame without lanes it is taken from the first input."""
    if inputs and 0 in frame.batch:
        arr, rank = frame.lookup(inputs[0])
        return arr.shape[rank]
    (n,) = sizes(frame, op, [op.operands[0]], "width")
    return n


def rows(frame: Frame, op: Operation, inputs: Sequence[SSAValue], n: int) -> list[Val]:
    """The inputs as lambda arguments of the child frame `frame.batch + (n,)`."""
    args = []
    for i, value in enumerate(inputs):
        val = frame.lookup(value)
        outer = val[0].shape[val[1]]
        if outer != n:
            raise fail(op, f"width {n} does not match the outer size {outer} of input #{i}")
        args.append((expand(val, frame.batch, frame.rank), frame.rank + 1))
    return args


def run_lambda(interp: SoacInterpreter, frame: Frame, region: Region, args: Sequence[Val], extra: tuple[int, ...]) -> list[Val]:
    return interp.run_region(frame.child(extra), region, args)


def full(frame: Frame, vals: Sequence[Val], extra: tuple[int, ...]) -> list[np.ndarray]:
    """Child-frame values as arrays of shape `frame.batch + extra + shape`."""
    batch = frame.batch + extra
    return [expand(v, batch, len(batch)) for v in vals]


@implements("soac.map")
def map_op(interp: SoacInterpreter, frame: Frame, op: soac.MapOp) -> list[Val]:
    n = width(frame, op, op.inputs)
    ys = run_lambda(interp, frame, op.body, rows(frame, op, op.inputs, n), (n,))
    return [lift(y, frame.batch, (n,)) for y in ys]


@implements("soac.reduce", "soac.scan")
def reduce_or_scan(interp: SoacInterpreter, frame: Frame, op: soac.ReduceOp | soac.ScanOp) -> list[Val]:
    n = width(frame, op, op.inputs)
    xs = [arr for arr, _ in rows(frame, op, op.inputs, n)]
    neutral = [frame.lookup(v) for v in op.neutral]
    combine = reduce_axis if isinstance(op, soac.ReduceOp) else scan_axis
    return [(r, frame.rank) for r in combine(interp, frame, op.combine, neutral, xs, frame.batch)]


@implements("soac.redomap", "soac.scanomap")
def redomap_or_scanomap(interp: SoacInterpreter, frame: Frame, op: soac.RedomapOp | soac.ScanomapOp) -> list[Val]:
    n = width(frame, op, op.inputs)
    args = rows(frame, op, op.inputs, n)
    ys = run_lambda(interp, frame, op.body, args, (n,))
    k = len(op.neutral)
    neutral = [frame.lookup(v) for v in op.neutral]
    map_outs = [lift(y, frame.batch, (n,)) for y in ys[k:]]
    if isinstance(op, soac.RedomapOp):
        reduced = reduce_axis(interp, frame, op.combine, neutral, full(frame, ys[:k], (n,)), frame.batch)
        return [(r, frame.rank) for r in reduced] + map_outs
    red_outs: list[Val] = []
    if op.reduce_combine is not None:
        # The reduction part: the values after the scanned ones, reduced like soac.reduce.
        r = len(op.reduce_neutral)
        red_neutral = [frame.lookup(v) for v in op.reduce_neutral]
        values = full(frame, ys[k : k + r], (n,))
        red_outs = [(x, frame.rank) for x in reduce_axis(interp, frame, op.reduce_combine, red_neutral, values, frame.batch)]
        map_outs = map_outs[r:]
    scanned = scan_axis(interp, frame, op.combine, neutral, full(frame, ys[:k], (n,)), frame.batch)
    post = op.post
    if not post.blocks:
        return [(s, frame.rank) for s in scanned] + red_outs + map_outs
    f = op.num_forwarded
    forwarded = ys[len(ys) - f :] if f else []  # values of the lambda's frame, as the post lambda runs in one alike
    map_outs = map_outs[: len(map_outs) - f]
    outs = run_lambda(interp, frame, post, [*((s, frame.rank + 1) for s in scanned), *args, *forwarded], (n,))
    return [lift(y, frame.batch, (n,)) for y in outs] + red_outs + map_outs


@implements("soac.scatter")
def scatter(interp: SoacInterpreter, frame: Frame, op: soac.ScatterOp) -> list[Val]:
    """Writes `dest_j[index_j] = value_j` for every row whose index is in bounds (Futhark's partial scatter: an
    index outside the destination, such as -1, drops the row); when two rows write one place, the later row wins."""
    n = width(frame, op, op.inputs)
    ys = run_lambda(interp, frame, op.body, rows(frame, op, op.inputs, n), (n,))
    k = len(op.dests)
    batch, rank = frame.batch, frame.rank
    results = []
    for j, dest in enumerate(op.dests):
        out, _ = own(frame.lookup(dest), batch, rank)
        index, values = full(frame, [ys[j], ys[k + j]], (n,))
        index = index.astype(np.int64)
        inside = (index >= 0) & (index < out.shape[rank])
        lanes = [np.broadcast_to(g, index.shape)[inside] for g in grids((*batch, n), rank, rank + 1)]
        out[(*lanes, index[inside])] = values[inside]
        results.append((out, rank))
    return results


def index_space(frame: Frame, dims: Sequence[int]) -> list[Val]:
    """The block arguments of a segmented op: index `j` varies along batch axis `rank + j`."""
    batch = frame.batch + tuple(dims)
    args = []
    for j, d in enumerate(dims):
        axis = frame.rank + j
        column = np.arange(d, dtype=np.int64).reshape((1,) * axis + (d,))
        args.append((np.broadcast_to(column, batch[: axis + 1]), axis + 1))
    return args


@implements("soac.segmap", "soac.segred", "soac.segscan")
def segmented(interp: SoacInterpreter, frame: Frame, op: soac.SegmapOp | soac.SegredOp | soac.SegscanOp) -> list[Val]:
    extra = tuple(sizes(frame, op, op.dims, "dimension"))
    ys = run_lambda(interp, frame, op.body, index_space(frame, extra), extra)
    if isinstance(op, soac.SegmapOp):
        return [lift(y, frame.batch, extra) for y in ys]
    k = len(op.neutral)
    neutral = [frame.lookup(v) for v in op.neutral]
    combined_axes = extra[:-1] if isinstance(op, soac.SegredOp) else extra
    combine = reduce_axis if isinstance(op, soac.SegredOp) else scan_axis
    combined = combine(interp, frame, op.combine, neutral, full(frame, ys[:k], extra), frame.batch + extra[:-1])
    assert all(c.shape[: frame.rank + len(combined_axes)] == frame.batch + combined_axes for c in combined)
    return [(c, frame.rank) for c in combined] + [lift(y, frame.batch, extra) for y in ys[k:]]


@implements("soac.iota")
def iota(interp: SoacInterpreter, frame: Frame, op: soac.IotaOp) -> list[Val]:
    (n,) = sizes(frame, op, [op.width])
    dtype = dtype_of(op.result.type)
    values = np.arange(n, dtype=np.int64)
    return [((values & 1).astype(np.bool_) if dtype == np.bool_ else values.astype(dtype), 0)]


@implements("soac.replicate")
def replicate(interp: SoacInterpreter, frame: Frame, op: soac.ReplicateOp) -> list[Val]:
    (n,) = sizes(frame, op, [op.width])
    arr, rank = frame.lookup(op.value)
    return [(np.broadcast_to(np.expand_dims(arr, rank), (*arr.shape[:rank], n, *arr.shape[rank:])), rank)]


@implements("soac.transpose")
def transpose(interp: SoacInterpreter, frame: Frame, op: soac.TransposeOp) -> list[Val]:
    arr, rank = frame.lookup(op.array)
    return [(arr.transpose([*range(rank), *(rank + p for p in op.perm)]), rank)]


@implements("soac.reshape")
def reshape(interp: SoacInterpreter, frame: Frame, op: soac.ReshapeOp) -> list[Val]:
    arr, rank = frame.lookup(op.array)
    if 0 in frame.batch:  # a lambda without lanes does not run
        shape = [max(int(uniform(frame.lookup(s)) or 0), 0) for s in op.sizes]
        return [(arr.reshape(arr.shape[:rank] + tuple(shape)), rank)]
    shape = sizes(frame, op, op.sizes)
    count = int(np.prod(arr.shape[rank:]))
    if count != int(np.prod(shape)):
        raise fail(op, format_message(reshape_problem(len(shape)), [count, *shape]))
    return [(arr.reshape(arr.shape[:rank] + tuple(shape)), rank)]


@implements("soac.reverse")
def reverse(interp: SoacInterpreter, frame: Frame, op: soac.ReverseOp) -> list[Val]:
    arr, rank = frame.lookup(op.array)
    return [(np.flip(arr, [rank + d for d in op.dims]), rank)]


@implements("soac.rotate")
def rotate(interp: SoacInterpreter, frame: Frame, op: soac.RotateOp) -> list[Val]:
    """Row `i` of the result is row `(i + amount) mod n` of the array, in each lane with its own amount."""
    array, amount = frame.lookup(op.array), frame.lookup(op.amount)
    arr, ra = array
    n = arr.shape[ra]
    if n == 0:
        return [array]
    if amount[1] == 0:
        return [(np.roll(arr, -int(amount[0]), axis=ra), ra)]
    rank = max(ra, amount[1])
    rows_index = (expand(amount, frame.batch, rank)[..., None] + np.arange(n)) % n
    return [(expand(array, frame.batch, rank)[(*grids(frame.batch, rank, rank + 1), rows_index)], rank)]

@implements("soac.index")
def index(interp: SoacInterpreter, frame: Frame, op: soac.IndexOp) -> list[Val]:
    return [gather(frame, op, frame.lookup(op.array), [frame.lookup(i) for i in op.indices])]


@implements("soac.update")
def update_op(interp: SoacInterpreter, frame: Frame, op: soac.UpdateOp) -> list[Val]:
    array, value = frame.lookup(op.array), frame.lookup(op.value)
    return [update(frame, op, array, [frame.lookup(i) for i in op.indices], value)]


@implements("soac.slice")
def slice_op(interp: SoacInterpreter, frame: Frame, op: soac.SliceOp) -> list[Val]:
    array, start, end = frame.lookup(op.array), frame.lookup(op.start), frame.lookup(op.end)
    arr, ra = array
    size = arr.shape[ra]
    rank = max(start[1], end[1])
    first, last = expand(start, frame.batch, rank), expand(end, frame.batch, rank)
    bad = np.flatnonzero((first < 0) | (first > last) | (last > size))
    if bad.size:
        s, e = first.flat[bad[0]], last.flat[bad[0]]
        raise fail(op, f"slice [{s}:{e}] is out of bounds for an array of outer size {size}")
    if rank == 0:
        return [(arr[(slice(None),) * ra + (slice(int(first), int(last)),)], ra)]
    count = uniform((last - first, rank))
    if count is None:
        raise Irregular([(last - first, rank)])
    rank = max(rank, ra)
    rows_index = expand(start, frame.batch, rank)[..., None] + np.arange(int(count))
    full_array = expand(array, frame.batch, rank)
    return [(full_array[(*grids(frame.batch, rank, rank + 1), rows_index)], rank)]


@implements("soac.threshold")
def threshold(interp: SoacInterpreter, frame: Frame, op: soac.ThresholdOp) -> list[Val]:
    par, rank = frame.lookup(op.par)
    limit = interp.thresholds.get(op.threshold_name, op.default_value)
    return [(np.asarray(par >= limit), rank)]


@implements("soac.tiled_redomap")
def tiled_redomap(interp: SoacInterpreter, frame: Frame, op: soac.TiledRedomapOp) -> list[Val]:
    """`results[d...] = redomap` over `k`: every read gathered over the whole space `dims x width`, then reduced."""
    dims = sizes(frame, op, op.dims, "dimension")
    (width,) = sizes(frame, op, [op.width], "width")
    space = (*dims, width)
    args = [
        _read_elements(frame, op, r, frame.lookup(array), symbols, space)
        for r, (array, symbols) in enumerate(zip(op.reads, op.accesses))
    ]
    ys = run_lambda(interp, frame, op.body, args, space)
    neutral = [frame.lookup(ne) for ne in op.neutral]
    reduced = reduce_axis(interp, frame, op.combine, neutral, full(frame, ys, space), frame.batch + tuple(dims))
    return [(r, frame.rank) for r in reduced]


def _read_elements(
    frame: Frame, op: soac.TiledRedomapOp, r: int, val: Val, symbols: Sequence[int], space: tuple[int, ...]
) -> Val:
    """Read #r of `op` at every point of `space` (the index space, then the reduced dimension)."""
    array = expand(val, frame.batch, frame.rank)
    shape = array.shape[frame.rank :]
    indices: list[np.ndarray] = []
    for p, symbol in enumerate(symbols):
        axis = len(space) - 1 if symbol == soac.REDUCED else symbol
        extent = space[axis]
        if symbol == soac.REDUCED and shape[p] != extent:
            raise fail(op, f"read #{r} has {shape[p]} elements in dimension {p}, but the reduction has width {extent}")
        if symbol != soac.REDUCED and shape[p] < extent:
            raise fail(op, f"read #{r}: d{symbol} of size {extent} is out of bounds for dimension {p} of size {shape[p]}")
        indices.append(np.arange(extent).reshape([extent if a == axis else 1 for a in range(len(space))]))
    gathered = array[(slice(None),) * frame.rank + tuple(indices)] if indices else array[..., *([None] * len(space))]
    return np.broadcast_to(gathered, frame.batch + space), frame.rank + len(space)


@implements("soac.assert")
def assert_op(interp: SoacInterpreter, frame: Frame, op: soac.AssertOp) -> list[Val]:
    """Fails with the message, its values taken at the first lane where `%ok` does not hold."""
    ok, rank = frame.lookup(op.ok)
    failing = np.argwhere(~ok.astype(np.bool_))
    if len(failing) == 0 or 0 in frame.batch:  # a lambda without lanes does not run
        return []
    lane = tuple(failing[0])
    values = []
    for value in op.values:
        arr, value_rank = frame.lookup(value)
        values.append(int(arr[lane[: min(rank, value_rank)]].reshape(-1)[0]))
    raise SoacRuntimeError(f"{where(op)}: {format_message(op.message.data, values)}")
