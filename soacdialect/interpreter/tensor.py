"""`tensor` ops on per-lane arrays."""

from __future__ import annotations

import numpy as np
from soac.interpreter.core import SoacInterpreter
from soac.interpreter.errors import fail
from soac.interpreter.frame import Frame
from soac.interpreter.indexing import gather, update
from soac.interpreter.registry import implements
from soac.interpreter.soac_ops import sizes
from soac.interpreter.values import Val, dtype_of, expand, static_shape
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation


def _result_type(op: tensor.EmptyOp | tensor.SplatOp | tensor.FromElementsOp) -> TensorType:
    result = op.results[0].type
    assert isinstance(result, TensorType)
    return result


@implements("tensor.empty")
def empty(interp: SoacInterpreter, frame: Frame, op: tensor.EmptyOp) -> list[Val]:
    result = _result_type(op)
    shape = static_shape(result, sizes(frame, op, op.dynamic_sizes))
    return [(np.zeros(shape, dtype_of(result)), 0)]


@implements("tensor.splat")
def splat(interp: SoacInterpreter, frame: Frame, op: tensor.SplatOp) -> list[Val]:
    arr, rank = frame.lookup(op.input)
    shape = static_shape(_result_type(op), sizes(frame, op, op.dynamicSizes))
    return [(np.broadcast_to(arr.reshape(arr.shape + (1,) * len(shape)), arr.shape + shape), rank)]


@implements("tensor.from_elements")
def from_elements(interp: SoacInterpreter, frame: Frame, op: tensor.FromElementsOp) -> list[Val]:
    vals = [frame.lookup(v) for v in op.elements]
    rank = max((r for _, r in vals), default=0)
    shape = _result_type(op).get_shape()
    dtype = dtype_of(_result_type(op))
    if not vals:
        return [(np.zeros(shape, dtype), 0)]
    stacked = np.stack([expand(v, frame.batch, rank) for v in vals], axis=rank)
    return [(stacked.reshape(frame.batch[:rank] + tuple(shape)).astype(dtype, copy=False), rank)]


@implements("tensor.dim")
def dim(interp: SoacInterpreter, frame: Frame, op: tensor.DimOp) -> list[Val]:
    arr, rank = frame.lookup(op.source)
    (which,) = sizes(frame, op, [op.index], "dimension")
    if which >= arr.ndim - rank:
        raise fail(op, f"dimension {which} is out of bounds for an array of rank {arr.ndim - rank}")
    return [(np.asarray(arr.shape[rank + which], np.int64), 0)]


@implements("tensor.extract")
def extract(interp: SoacInterpreter, frame: Frame, op: tensor.ExtractOp) -> list[Val]:
    return [gather(frame, op, frame.lookup(op.tensor), [frame.lookup(i) for i in op.indices])]


@implements("tensor.insert")
def insert(interp: SoacInterpreter, frame: Frame, op: tensor.InsertOp) -> list[Val]:
    dest, value = frame.lookup(op.dest), frame.lookup(op.scalar)
    return [update(frame, op, dest, [frame.lookup(i) for i in op.indices], value)]


@implements("tensor.cast")
def cast(interp: SoacInterpreter, frame: Frame, op: tensor.CastOp) -> list[Val]:
    arr, rank = frame.lookup(op.source)
    target = op.dest.type
    if isinstance(target, TensorType):
        for i, (have, want) in enumerate(zip(arr.shape[rank:], target.get_shape())):
            if want != DYNAMIC_INDEX and have != want:
                raise fail(op, f"dimension {i} has size {have}, not {want}")
    return [(arr, rank)]


def _slice_params(frame: Frame, op: tensor.ExtractSliceOp | tensor.InsertSliceOp) -> tuple[list[int], list[int], list[int]]:
    dynamic = [iter(sizes(frame, op, values, "slice parameter")) for values in (op.offsets, op.sizes, op.strides)]
    statics = [op.static_offsets.get_values(), op.static_sizes.get_values(), op.static_strides.get_values()]
    return tuple([next(d) if s == DYNAMIC_INDEX else int(s) for s in st] for d, st in zip(dynamic, statics))  # pyright: ignore[reportReturnType]


def _cuts(op: Operation, shape: tuple[int, ...], offsets: list[int], counts: list[int], strides: list[int]) -> list[slice]:
    cuts = []
    for i, (start, count, stride) in enumerate(zip(offsets, counts, strides)):
        if start < 0 or stride <= 0 or (count > 0 and start + (count - 1) * stride >= shape[i]):
            raise fail(op, f"{count} elements from {start} by {stride} are out of bounds for dimension {i} of size {shape[i]}")
        cuts.append(slice(start, start + count * stride, stride))
    return cuts


@implements("tensor.extract_slice")
def extract_slice(interp: SoacInterpreter, frame: Frame, op: tensor.ExtractSliceOp) -> list[Val]:
    arr, rank = frame.lookup(op.source)
    offsets, counts, strides = _slice_params(frame, op)
    shape = arr.shape[rank:]
    cuts = _cuts(op, shape, offsets, counts, strides)
    piece = arr[(slice(None),) * rank + tuple(cuts)]
    result = op.result.type
    assert isinstance(result, TensorType)
    kept = list(piece.shape[rank:])
    while len(kept) > result.get_num_dims():
        kept.remove(1)  # rank-reducing: drop unit dimensions
    return [(piece.reshape(piece.shape[:rank] + tuple(kept)), rank)]


@implements("tensor.insert_slice")
def insert_slice(interp: SoacInterpreter, frame: Frame, op: tensor.InsertSliceOp) -> list[Val]:
    source, dest = frame.lookup(op.source), frame.lookup(op.dest)
    offsets, counts, strides = _slice_params(frame, op)  # pyright: ignore[reportArgumentType]
    rank = max(source[1], dest[1])
    out = np.array(expand(dest, frame.batch, rank))
    shape = out.shape[rank:]
    cuts = _cuts(op, shape, offsets, counts, strides)
    target = out[(slice(None),) * rank + tuple(cuts)]
    target[...] = expand(source, frame.batch, rank).reshape(target.shape)  # the source may be rank-reduced
    return [(out, rank)]
