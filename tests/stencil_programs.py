"""Stencil programs for the tests: a weighted sum of the neighbours of one or more i32 inputs (some weights 0, so
that some neighbours are unused), for any rank, window and boundary, with its numpy reference."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import stencil_reference  # pyright: ignore[reportMissingImports]

CONSTANT = 7
"""The value outside the arrays under boundary `constant`."""


def weights(window: Sequence[int], inputs: int) -> list[int]:
    """The weight of each lambda parameter: -2..2, so that about a fifth of the neighbours are unused."""
    count = math.prod(window) * inputs
    return [(3 * k + 1) % 5 - 2 for k in range(count)]


def stencil_program(
    window: Sequence[int], boundary: str, inputs: int = 1, tile: Sequence[int] | None = None, name: str = "main"
) -> str:
    rank = len(window)
    tensor = f"tensor<{'x'.join('?' * rank)}xi32>"
    names = [f"%x{i}" for i in range(inputs)]
    dims = [f"%n{d}" for d in range(rank)]
    lines = [f"func.func @{name}({', '.join(f'{x}: {tensor}' for x in names)}) -> {tensor} {{"]
    for d in range(rank):
        lines.append(f"  %c{d} = arith.constant {d} : index")
        lines.append(f"  %n{d} = tensor.dim %x0, %c{d} : {tensor}")
    head = f"soac.stencil ({', '.join(dims)}) window [{', '.join(map(str, window))}] {boundary}"
    if boundary == "constant":
        lines.append(f"  %edge = arith.constant {CONSTANT} : i32")
        head += f"({', '.join(['%edge'] * inputs)} : {', '.join(['i32'] * inputs)})"
    if tile is not None:
        head += f" tile [{', '.join(map(str, tile))}]"
    params = [f"%p{k}: i32" for k in range(math.prod(window) * inputs)]
    lines.append(
        f"  %r = {head} ({', '.join(names)} : {', '.join([tensor] * inputs)}) -> {tensor} lambda({', '.join(params)}) {{"
    )
    lines.append("    %acc0 = arith.constant 0 : i32")
    acc = "%acc0"
    for k, w in enumerate(weights(window, inputs)):
        if w == 0:
            continue
        lines.append(f"    %w{k} = arith.constant {w} : i32")
        lines.append(f"    %t{k} = arith.muli %p{k}, %w{k} : i32")
        lines.append(f"    %acc{k + 1} = arith.addi {acc}, %t{k} : i32")
        acc = f"%acc{k + 1}"
    lines.append(f"    soac.yield {acc} : i32")
    lines.append("  }")
    lines.append(f"  func.return %r : {tensor}")
    lines.append("}")
    return "\n".join(lines)


def reference(xs: Sequence[np.ndarray], window: Sequence[int], boundary: str) -> np.ndarray:
    ws = weights(window, len(xs))

    def weighted(*ns: np.ndarray) -> np.ndarray:
        total = np.zeros(xs[0].shape, np.int64)
        for w, n in zip(ws, ns):
            total += w * n.astype(np.int64)
        return total.astype(np.int32)

    return stencil_reference.stencil(weighted, xs, window, boundary, [CONSTANT] * len(xs))


def random_inputs(rng: np.random.Generator, shape: Sequence[int], inputs: int) -> list[np.ndarray]:
    return [rng.integers(-100, 100, tuple(shape), dtype=np.int32) for _ in range(inputs)]


BOUNDARIES = ("clamp", "mirror", "wrap", "constant")
WINDOWS = {1: [(3,), (7,)], 2: [(3, 3), (5, 3), (1, 5)], 3: [(3, 3, 3)]}
AWKWARD_SHAPES = {
    1: [(1,), (2,), (5,), (300,), (1031,)],
    2: [(1, 1), (2, 3), (3, 70), (9, 129), (65, 33)],
    3: [(1, 2, 1), (3, 5, 40), (6, 9, 33)],
}
"""Sizes smaller than the windows, one element, not multiples of any tile, and a few tiles."""


def cases() -> list[tuple[tuple[int, ...], str, tuple[int, ...]]]:
    """(window, boundary, shape) for every rank, boundary and awkward shape."""
    return [
        (window, boundary, shape)
        for rank in (1, 2, 3)
        for window, boundary, shape in itertools.product(WINDOWS[rank], BOUNDARIES, AWKWARD_SHAPES[rank])
    ]


def function_name(window: Sequence[int], boundary: str) -> str:
    return f"{boundary}_{'x'.join(map(str, window))}"


def stencil_module(windows: Sequence[Sequence[int]], inputs: int = 1) -> str:
    """One function per window and boundary (`function_name`), to build a single program for many cases."""
    return "\n\n".join(stencil_program(w, b, inputs, name=function_name(w, b)) for w, b in itertools.product(windows, BOUNDARIES))


INPUTS = {1: 1, 2: 2, 3: 1}
"""Inputs per stencil by rank: the 2-D cases read two arrays (Accelerate's `stencil2`)."""
