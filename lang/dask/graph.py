"""The dask graphs of the four kinds of chunked program, made with dask.array's own operations.

map     da.blockwise: the program on each chunk (its maps fused into one kernel)
reduce  da.blockwise: the program per chunk (fused map*->reduce: a redomap) gives one partial per chunk;
        da.reduction combines the partials in a tree with soac's reduce of the same operator, in chunk order
        (the operator is associative, and need not commute)
scan    da.cumreduction: the program per chunk (a scanomap); the totals are carried from chunk to chunk and
        added into each chunk by a soac map of the operator (carry on the left)
hist    da.blockwise: the program per chunk into bins holding the neutral element; da.reduction folds the
        partial histograms with a soac map of the hist's operator, starting from the destination (the program
        run on zero rows by the reference interpreter, which also gives the number of bins)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph
from soac.dialect import HistOp, ScanOp
from soac.lang import dtypes
from soac.lang.dask.host_fold import HostFold, host_fold
from soac.lang.dask.plan import Plan, refuse
from soac.lang.dask.resident import is_resident, last_row, mark_resident
from soac.lang.dask.workers import Program, StageCall
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.ir import SSAValue

_LETTERS = "abcdefghklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # i and j are the chunked and the bins' axes


@dataclass
class Inputs:
    """The call's arguments for a chunked run: the chunked dask arrays (aligned chunks on axis 0, one chunk on the
    other axes) in their places among the whole ones."""

    args: tuple[Any, ...]
    chunked_at: frozenset[int]

    @property
    def chunked(self) -> list[da.Array]:
        return [self.args[k] for k in sorted(self.chunked_at)]

    @property
    def layout(self) -> tuple[Any, ...]:
        """Where `StageCall` finds each argument: `None`, the next block it gets (a chunk, or a whole array, which is
        one block of the graph that every task reads), or `("whole", scalar)`."""
        return tuple(None if k in self.chunked_at or isinstance(a, np.ndarray) else ("whole", a) for k, a in enumerate(self.args))

    def embedded_layout(self) -> tuple[Any, ...]:
        """The layout of a task that gets only the chunks (cumreduction's): the whole arrays go in the task."""
        return tuple(None if k in self.chunked_at else ("whole", a) for k, a in enumerate(self.args))

    def pairs(self) -> list[Any]:
        """`da.blockwise`'s (array, index) pairs: a chunked array's axis 0 is `i`; its other axes and those of whole
        arrays are contracted (one block each)."""
        pairs: list[Any] = []
        letters = iter(_LETTERS)
        for k, arg in enumerate(self.args):
            if k in self.chunked_at:
                pairs += [arg, "i" + "".join(next(letters) for _ in range(arg.ndim - 1))]
            elif isinstance(arg, np.ndarray):
                pairs += [da.from_array(arg, chunks=arg.shape), "".join(next(letters) for _ in range(arg.ndim))]
        return pairs

    def rechunked(self, rows: tuple[int, ...]) -> Inputs:
        args = tuple(a.rechunk({0: rows}) if k in self.chunked_at else a for k, a in enumerate(self.args))
        return Inputs(args, self.chunked_at)


def element_dtype(value: SSAValue) -> np.dtype[Any]:
    t = value.type
    return dtypes.from_ir(t.element_type if isinstance(t, TensorType) else t).numpy


def _call(program: Program, inputs: Inputs, options: dict[str, Any], **extra: Any) -> StageCall:
    return StageCall(program, inputs.layout, options["devices"], options["budget"], host_results=options["host_results"], **extra)


def build(plan: Plan, program: Program, inputs: Inputs, options: dict[str, Any]) -> Any:
    """The dask array (or 0-d array) of the program's result."""
    results = list(plan.function.body.block.last_op.operands)  # pyright: ignore[reportOptionalMemberAccess]
    dtype = element_dtype(results[0])
    if plan.kind == "map":
        return _map(program, inputs, options, [element_dtype(r) for r in results])
    if plan.kind == "reduce":
        if len(results) > 1:
            return _reduce_tuple(program, inputs, options, [element_dtype(r) for r in results])
        return _reduce(plan, program, inputs, options, dtype)
    if plan.kind == "scan":
        return _scan(plan, program, inputs, options, dtype)
    return _hist(plan, program, inputs, options, dtype)


def _map(program: Program, inputs: Inputs, options: dict[str, Any], dtypes: list[np.dtype[Any]]) -> Any:
    """One blockwise task per chunk; several results come as a tuple per block, taken apart by `itemgetter`."""
    resident = any(is_resident(a) for a in inputs.chunked)
    keep = mark_resident if resident else _same
    if len(dtypes) == 1:
        call = _call(program, inputs, options, meta=np.empty((0,), dtypes[0]))
        return keep(da.blockwise(call, "i", *inputs.pairs(), dtype=dtypes[0], concatenate=True, meta=np.empty((0,), dtypes[0])))
    call = _call(program, inputs, options, meta=np.empty((0,), object))
    parts = da.blockwise(call, "i", *inputs.pairs(), dtype=object, concatenate=True, meta=np.empty((0,), object))
    return tuple(
        keep(da.blockwise(operator.itemgetter(k), "i", parts, "i", dtype=dtype, meta=np.empty((0,), dtype)))
        for k, dtype in enumerate(dtypes)
    )


def _same(x: da.Array) -> da.Array:
    return x


def _reduce_tuple(program: Program, inputs: Inputs, options: dict[str, Any], dtypes: list[np.dtype[Any]]) -> Any:
    """A reduce of several arrays: each chunk's partial results are one element of a structured dtype."""
    record = np.dtype([(f"r{k}", dtype) for k, dtype in enumerate(dtypes)])
    meta = np.empty((0,), record)
    partial = _call(program, inputs, options, meta=meta, record=record)
    partials = da.blockwise(partial, "i", *inputs.pairs(), adjust_chunks={"i": 1}, dtype=record, concatenate=True, meta=meta)
    stage = StageCall(replace(program, role="reduce-combine"), (None,) * len(dtypes), options["devices"], record=record)
    combine = Combine(stage, False, meta)
    result = da.reduction(
        partials, _keep, combine, combine=combine, axis=0, keepdims=False, dtype=record,
        split_every=options["split_every"], concatenate=True, meta=np.empty((), record),
    )  # fmt: skip
    return tuple(result[name] for name in record.names or ())


@dataclass(frozen=True, eq=False)
class Combine:
    """`da.reduction`'s combine and aggregate: a soac stage over the concatenated partials (a reduce's 1-D array of
    partial results; a hist's rows of partial bins, folded pairwise from the first)."""

    stage: StageCall
    rows: bool
    meta: np.ndarray
    host: HostFold | None = None
    """Folds a reduce's partials on the host instead of the stage (`host_fold`)."""

    @property
    def __name__(self) -> str:
        return self.stage.__name__

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, x: Any, axis: Any = None, keepdims: bool = False, computing_meta: bool = False, **_: Any) -> Any:
        if computing_meta:
            return self.meta
        if self.rows:
            result = x[0]
            for row in x[1:]:
                result = self.stage(result, row)
        elif x.dtype.names:  # a reduce's tuples: one field per result
            packed = self.stage(*(x[name] for name in x.dtype.names))
            return packed if keepdims else packed.reshape(())
        elif self.host is not None:
            result = self.host(np.asarray(x))
        else:
            result = self.stage(x)
        result = np.asarray(result)
        return result[None] if keepdims else result


def _keep(x: Any, axis: Any = None, keepdims: bool = True, **_: Any) -> Any:
    return x


def _reduce(plan: Plan, program: Program, inputs: Inputs, options: dict[str, Any], dtype: np.dtype[Any]) -> Any:
    partial = _call(program, inputs, options, shape_out=(1,), meta=np.empty((0,), dtype))
    partials = da.blockwise(
        partial, "i", *inputs.pairs(), adjust_chunks={"i": 1}, dtype=dtype, concatenate=True, meta=np.empty((0,), dtype)
    )
    stage = StageCall(replace(program, role="reduce-combine"), (None,), options["devices"])
    combine = Combine(stage, False, np.empty((0,), dtype), host_fold(plan.terminal, np.dtype(dtype)))
    return da.reduction(
        partials, _keep, combine, combine=combine, axis=0, keepdims=False, dtype=dtype,
        split_every=options["split_every"], concatenate=True, meta=np.empty((), dtype),
    )  # fmt: skip


@dataclass(frozen=True, eq=False)
class Carry:
    """cumreduction's binop: `op(carry, y)` for every row y of a chunk (or of a chunk's last row: the next carry)."""

    stage: StageCall

    @property
    def __name__(self) -> str:
        return self.stage.__name__

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, carry: np.ndarray, block: np.ndarray) -> Any:
        return self.stage(np.asarray(carry).reshape(-1)[0], block)


def _constant(value: SSAValue, plan: Plan) -> int | float:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr | FloatAttr):
        return owner.value.value.data
    assert plan.terminal is not None
    raise refuse(plan.terminal, "needs a constant neutral element (dask's cumreduction starts from it)")


def _without_empty_chunks(inputs: Inputs) -> Inputs:
    """cumreduction carries a chunk's last row to the next chunk: an empty chunk has none, so drop it."""
    rows = [c for c in inputs.chunked[0].chunks[0] if c] or [0]
    if len(rows) == len(inputs.chunked[0].chunks[0]):
        return inputs
    return inputs.rechunked(tuple(rows))


def _scan(plan: Plan, program: Program, inputs: Inputs, options: dict[str, Any], dtype: np.dtype[Any]) -> Any:
    assert isinstance(plan.terminal, ScanOp)
    resident = any(is_resident(a) for a in inputs.chunked)
    if not resident:
        inputs = _without_empty_chunks(inputs)
    meta = np.empty((0,), dtype)
    if len(inputs.chunked) == 1 and inputs.chunked[0].ndim == 1:
        x = inputs.chunked[0]
        scan = StageCall(program, inputs.embedded_layout(), options["devices"], options["budget"], meta=meta)
    else:  # several chunked inputs: blockwise maps make the scan's input, a plain soac scan scans each chunk
        first = _call(replace(program, role="scan-input"), inputs, options, meta=meta)
        x = da.blockwise(first, "i", *inputs.pairs(), dtype=dtype, concatenate=True, meta=meta)
        scan = StageCall(replace(program, role="scan-chunk"), (None,), options["devices"], options["budget"], meta=meta)
    carry = Carry(StageCall(replace(program, role="scan-carry"), (None, None), options["devices"], meta=meta))
    ident = _constant(plan.terminal.neutral[0], plan)
    if resident:
        return mark_resident(_resident_scan(scan, carry, ident, x, dtype))
    return da.reductions.cumreduction(scan, carry, ident, x, axis=0, dtype=dtype, method="sequential")


def _resident_scan(scan: StageCall, carry: Carry, ident: int | float, x: da.Array, dtype: np.dtype[Any]) -> da.Array:
    """cumreduction's sequential graph for resident chunks: each chunk scanned on its device, the carry into the
    next chunk computed on the host from the chunk's last element (one element read back; an empty chunk passes
    the carry on), and added into the chunk on its device."""
    scanned = x.map_blocks(scan, dtype=dtype, meta=np.empty((0,), dtype))
    name = f"soac-scan-{tokenize(scan, carry, ident, x)}"
    graph: dict[Any, Any] = {}
    incoming: Any = np.full((1,), ident, dtype)
    for k, rows in enumerate(x.chunks[0]):
        block = (scanned.name, k)
        graph[(name, k)] = block if k == 0 else (carry, incoming, block)
        if rows and k + 1 < len(x.chunks[0]):
            graph[(name, "carry", k)] = (carry, incoming, (last_row, block))
            incoming = (name, "carry", k)
    layers = HighLevelGraph.from_collections(name, graph, dependencies=[scanned])
    return da.Array(layers, name, x.chunks, meta=np.empty((0,), dtype))


def _hist(plan: Plan, program: Program, inputs: Inputs, options: dict[str, Any], dtype: np.dtype[Any]) -> Any:
    assert isinstance(plan.terminal, HistOp)
    dest = np.asarray(options["empty_run"]())
    bins = dest.shape[0]
    chunk = _call(replace(program, role="hist-chunk"), inputs, options, shape_out=(1, bins), meta=np.empty((0, 0), dtype))
    partials = da.blockwise(
        chunk, "ij", *inputs.pairs(), new_axes={"j": bins}, adjust_chunks={"i": 1}, dtype=dtype, concatenate=True,
        meta=np.empty((0, 0), dtype),
    )  # fmt: skip
    rows = da.concatenate([da.from_array(dest[None, :], chunks=(1, bins)), partials], axis=0)
    fold = StageCall(replace(program, role="hist-combine"), (None, None), options["devices"])
    combine = Combine(fold, True, np.empty((0, 0), dtype))
    return da.reduction(
        rows, _keep, combine, combine=combine, axis=0, keepdims=False, dtype=dtype,
        split_every=options["split_every"], concatenate=True, meta=np.empty((0,), dtype),
    )  # fmt: skip


def empty_chunks(arrays: Sequence[da.Array]) -> list[np.ndarray]:
    """Zero rows of each chunked array (its other dimensions kept): what the hist's empty run gets."""
    return [np.empty((0, *a.shape[1:]), a.dtype) for a in arrays]
