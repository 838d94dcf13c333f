"""Runtime values: numpy arrays with a number of leading batch (lane) dimensions.

A value `(arr, r)` in a frame with batch shape `B` has `arr.shape == B[:r] + shape`,
where `shape` is the value's own shape in every lane (`()` for scalars). A value
of batch rank `r < len(B)` is uniform over the batch dimensions `B[r:]`; rank-0
values (constants, host data) are never materialised per lane.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from soac.interpreter.errors import ShapeMismatch
from soac.types import numpy_dtype, signless_problem
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    TensorType,
)
from xdsl.ir import Attribute

Val = tuple[np.ndarray, int]
"""An array and its batch rank."""

_UNSIGNED = {
    np.dtype(np.int8): np.dtype(np.uint8),
    np.dtype(np.int16): np.dtype(np.uint16),
    np.dtype(np.int32): np.dtype(np.uint32),
    np.dtype(np.int64): np.dtype(np.uint64),
}


@cache
def dtype_of(t: Attribute) -> np.dtype:
    """The numpy dtype of a scalar type, or of the elements of a tensor type."""
    if (dtype := numpy_dtype(t)) is None:
        raise TypeError(signless_problem(t) or f"the interpreter does not support the type {t}")
    return dtype


def bitwidth(dtype: np.dtype) -> int:
    return 1 if dtype == np.bool_ else dtype.itemsize * 8


def unsigned_dtype(dtype: np.dtype) -> np.dtype:
    return _UNSIGNED[dtype]


def static_shape(t: TensorType, dynamic: list[int]) -> tuple[int, ...]:
    """The shape of `t` with its dynamic dimensions taken in order from `dynamic`."""
    sizes = iter(dynamic)
    return tuple(next(sizes) if d == DYNAMIC_INDEX else d for d in t.get_shape())


def align(arr: np.ndarray, rank: int, to: int) -> np.ndarray:
    """View `arr` (batch rank `rank`) with singleton batch axes so that its batch rank is `to`."""
    if rank == to:
        return arr
    return arr.reshape(arr.shape[:rank] + (1,) * (to - rank) + arr.shape[rank:])


def expand(val: Val, batch: tuple[int, ...], to: int) -> np.ndarray:
    """A (read-only, broadcast) view of `val` with batch rank `to`, i.e. shape `batch[:to] + shape`."""
    arr, rank = val
    return np.broadcast_to(align(arr, rank, to), batch[:to] + arr.shape[rank:])


def own(val: Val, batch: tuple[int, ...], to: int) -> Val:
    """A fresh, writeable copy of `val` with batch rank at least `to`."""
    to = max(to, val[1])
    return np.array(expand(val, batch, to)), to


def shape_of(val: Val) -> tuple[int, ...]:
    """The per-lane shape of a value."""
    return val[0].shape[val[1] :]


def uniform(val: Val) -> np.ndarray | None:
    """The single per-lane value of `val` if all lanes agree (or there are none), else None."""
    arr, rank = val
    if rank == 0:
        return arr
    if arr.size == 0:
        return np.zeros(arr.shape[rank:], arr.dtype)
    first = arr[(0,) * rank]
    if np.array_equal(arr, np.broadcast_to(first, arr.shape)):
        return first
    return None


def lift(val: Val, batch: tuple[int, ...], extra: tuple[int, ...]) -> Val:
    """Turn a value of a child frame with batch `batch + extra` into a value of the parent frame.

    The result has the per-lane shape `extra + shape`; it keeps a batch rank
    below `len(batch)` when the child value did not depend on the inner lanes.
    """
    arr, rank = val
    outer = len(batch)
    target = min(rank, outer)
    inner = align(arr, rank, target + len(extra))
    return np.broadcast_to(inner, batch[:target] + extra + arr.shape[rank:]), target


def scatter_into(out: Val | None, batch: tuple[int, ...], mask: np.ndarray, res: Val) -> Val:
    """Write `res`, a value of the masked frame selecting `mask` (over `batch[:p]`), into `out`.

    `out` must be None (a fresh array is made) or a value created by this function
    or by `own`, which is written in place. Raises ShapeMismatch when the per-lane
    shapes differ.
    """
    p = mask.ndim
    arr, rank = res
    shape = arr.shape[rank:]
    rq = p if rank == 0 else p + rank - 1
    if out is None:
        oarr, orank = np.empty(batch[:rq] + shape, arr.dtype), rq
    else:
        oarr, orank = out
        if oarr.shape[orank:] != shape:
            raise ShapeMismatch(oarr.shape[orank:], shape)
        if orank < rq:
            oarr, orank = own(out, batch, rq)
    k = int(np.count_nonzero(mask))
    inner = arr if rank == 0 else align(arr, rank, 1 + orank - p)
    oarr[mask] = np.broadcast_to(inner, (k, *batch[p:orank], *shape))
    return oarr, orank


def scalar(arr: np.ndarray) -> object:
    """A numpy scalar or array to hand back to Python callers."""
    return arr.dtype.type(arr[()]) if arr.ndim == 0 else np.array(arr)
