"""A plain numpy reference for stencils: the input padded with numpy's own padding mode for each boundary
condition, and each neighbour a shifted slice of it (independent of the interpreter's index arithmetic)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

PAD_MODES = {"clamp": "edge", "mirror": "reflect", "wrap": "wrap", "constant": "constant"}


def neighbours(x: np.ndarray, window: Sequence[int], boundary: str, constant: float = 0) -> list[np.ndarray]:
    """The window's neighbours of every element of `x`, in row-major order of their offsets."""
    radius = [w // 2 for w in window]
    if x.size == 0:
        return [x] * int(np.prod(window))
    extra = {"constant_values": constant} if boundary == "constant" else {}
    pad = np.pad(x, [(r, r) for r in radius], mode=PAD_MODES[boundary], **extra)  # pyright: ignore[reportArgumentType,reportCallIssue]
    return [
        pad[tuple(slice(r + o, r + o + n) for r, o, n in zip(radius, offset, x.shape))]
        for offset in itertools.product(*(range(-r, r + 1) for r in radius))
    ]


def stencil(
    f: Callable[..., np.ndarray], xs: Sequence[np.ndarray], window: Sequence[int], boundary: str, constants: Sequence[float] = ()
) -> np.ndarray:
    """`f` applied to the neighbours of every input (those of the first input first)."""
    args = [n for i, x in enumerate(xs) for n in neighbours(x, window, boundary, constants[i] if constants else 0)]
    return f(*args)
