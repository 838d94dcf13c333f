"""Jacobi sweeps of a 5-point stencil with `sl.stencil` (the `soac.stencil` op, as bench/programs/jacobi_5pt.mlir):
each point becomes the mean of its four neighbours, zero outside the grid (`boundary="constant"`; `clamp`,
`mirror` and `wrap` are the others). `w[di, dj]` is the neighbour at that offset.

    python examples/python/stencil.py
"""

import numpy as np
import soac.lang as sl


def stencil(grid, steps):
    def sweep(t, u):
        return sl.stencil(lambda w: 0.25 * (w[-1, 0] + w[1, 0] + w[0, -1] + w[0, 1]), u, boundary="constant")

    return sl.loop(steps, grid, sweep)


def reference(grid: np.ndarray, steps: int) -> np.ndarray:
    u = grid
    for _ in range(steps):
        p = np.pad(u, 1)
        u = (np.float32(0.25) * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])).astype(grid.dtype)
    return u


if __name__ == "__main__":
    grid = np.zeros((6, 6), np.float32)
    grid[2:4, 2:4] = 1
    print(sl.jit(stencil)(grid, 3), reference(grid, 3), sep="\n")
