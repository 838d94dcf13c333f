"""`soac.stencil`, vectorised: each input is padded once by the window's radius as its boundary condition says (the
pad is a gather with numpy index arrays: numpy's padding modes `edge`, `reflect`, `wrap` and `constant`), and every
neighbour is then a shifted view of the padded array, with the lanes of the enclosing frame as leading axes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from soac import dialect as soac
from soac.interpreter.core import SoacInterpreter
from soac.interpreter.errors import fail
from soac.interpreter.frame import Frame
from soac.interpreter.registry import implements
from soac.interpreter.soac_ops import run_lambda, sizes
from soac.interpreter.values import Val, expand, lift


def boundary_index(index: np.ndarray, size: int, boundary: str) -> np.ndarray:
    """Where the (possibly out-of-bounds) positions `index` of an axis of `size > 0` elements read.

    `mirror` reflects across the edge without repeating it (-1 reads 1, `size` reads `size - 2`), repeatedly for
    positions more than a period away; `constant` clamps (the caller replaces what lies outside)."""
    if boundary == "wrap":
        return np.mod(index, size)
    if boundary == "mirror":
        if size == 1:
            return np.zeros_like(index)
        period = 2 * (size - 1)
        folded = np.mod(index, period)
        return np.where(folded < size, folded, period - folded)
    return np.clip(index, 0, size - 1)


def padded(arr: np.ndarray, lanes: int, radius: Sequence[int], boundary: str, constant: np.ndarray | None) -> np.ndarray:
    """`arr` (shape `lanes axes + dims`) padded by `radius` on both sides of each of its last axes."""
    dims = arr.shape[lanes:]
    positions = [np.arange(-r, n + r) for n, r in zip(dims, radius)]
    grid = np.ix_(*(boundary_index(p, n, boundary) for p, n in zip(positions, dims)))
    out = arr[(slice(None),) * lanes + grid]
    if constant is None:
        return out
    inside = np.ones(out.shape[lanes:], dtype=bool)
    for axis, (p, n) in enumerate(zip(positions, dims)):
        shape = [1] * len(dims)
        shape[axis] = len(p)
        inside &= ((p >= 0) & (p < n)).reshape(shape)
    return np.where(inside, out, constant.reshape(constant.shape + (1,) * len(dims)))


@implements("soac.stencil")
def stencil(interp: SoacInterpreter, frame: Frame, op: soac.StencilOp) -> list[Val]:
    dims = tuple(sizes(frame, op, op.dims, "dimension"))
    batch, lanes = frame.batch, frame.rank
    boundary = op.boundary.data
    radius = [e // 2 for e in op.window_shape]
    constants = [expand(frame.lookup(c), batch, lanes) for c in op.constants] or [None] * len(op.inputs)
    args: list[Val] = []
    for i, (value, constant) in enumerate(zip(op.inputs, constants)):
        arr = expand(frame.lookup(value), batch, lanes)
        for d, (size, n) in enumerate(zip(arr.shape[lanes:], dims)):
            if size != n:
                raise fail(op, f"input #{i} has {size} elements in dimension {d}, but the index space has {n}")
        if 0 in dims:
            args.extend((arr, lanes + len(dims)) for _ in op.offsets)
            continue
        pad = padded(arr, lanes, radius, boundary, constant)
        for offset in op.offsets:
            window = tuple(slice(r + o, r + o + n) for r, o, n in zip(radius, offset, dims))
            args.append((pad[(slice(None),) * lanes + window], lanes + len(dims)))
    ys = run_lambda(interp, frame, op.body, args, dims)
    return [lift(y, batch, dims) for y in ys]
