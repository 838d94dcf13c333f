"""The Mandelbrot set's escape counts over a grid of the complex plane (Accelerate's and Futhark's mandelbrot): a map
over pixels of a while loop."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program, is_jax

LEFT, WIDTH, TOP, HEIGHT = -2.25, 3.0, -1.25, 2.5


def mandelbrot(height, width, limit):
    def pixel(i, j):
        cr = LEFT + WIDTH * sl.f32(j) / sl.f32(width)
        ci = TOP + HEIGHT * sl.f32(i) / sl.f32(height)

        def step(k, zr, zi):
            return k + 1, zr * zr - zi * zi + cr, 2.0 * zr * zi + ci

        inside = lambda k, zr, zi: (k < limit) & (zr * zr + zi * zi <= 4.0)  # noqa: E731
        k, _, _ = sl.while_loop(inside, step, (sl.i32(0), sl.f32(0), sl.f32(0)))
        return k

    rows, cols = sl.iota(height, dtype=sl.i32), sl.iota(width, dtype=sl.i32)
    return sl.map(lambda i: sl.map(lambda j: pixel(i, j), cols), rows)


def grid(xp: Any, height: int, width: int) -> tuple[Any, Any]:
    f = np.float32
    cr = f(LEFT) + f(WIDTH) * xp.arange(width, dtype=f) / f(width)
    ci = f(TOP) + f(HEIGHT) * xp.arange(height, dtype=f) / f(height)
    return xp.broadcast_to(cr[None, :], (height, width)), xp.broadcast_to(ci[:, None], (height, width))


def peer(xp: Any):
    def mandelbrot(height, width, limit):
        cr, ci = grid(xp, height, width)

        def step(_, state):
            k, zr, zi = state
            live = zr * zr + zi * zi <= 4
            zr, zi = xp.where(live, zr * zr - zi * zi + cr, zr), xp.where(live, np.float32(2) * zr * zi + ci, zi)
            return k + live.astype(np.int32), zr, zi

        zero = xp.zeros((height, width), np.float32)
        state = (xp.zeros((height, width), np.int32), zero, zero)
        if is_jax(xp):
            from jax import lax

            return lax.fori_loop(0, limit, step, state)[0]
        for i in range(limit):
            state = step(i, state)
        return state[0]

    return mandelbrot


def reference(height: int, width: int, limit: int) -> np.ndarray:
    """Iterates only the points still inside (most escape early)."""
    cr, ci = (a.ravel() for a in grid(np, int(height), int(width)))
    counts = np.zeros(cr.size, np.int32)
    live = np.arange(cr.size)
    zr, zi = np.zeros(cr.size, np.float32), np.zeros(cr.size, np.float32)
    for _ in range(int(limit)):
        keep = zr * zr + zi * zi <= 4
        live, zr, zi = live[keep], zr[keep], zi[keep]
        if not live.size:
            break
        counts[live] += 1
        zr, zi = zr * zr - zi * zi + cr[live], np.float32(2) * zr * zi + ci[live]
    return counts.reshape(int(height), int(width))


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    return np.int32(size["height"]), np.int32(size["width"]), np.int32(size["limit"])


PROGRAM = Program(
    "mandelbrot",
    "Accelerate examples (mandelbrot), Futhark benchmarks (mandelbrot): escape counts, a while loop per pixel",
    mandelbrot,
    reference,
    inputs,
    {"gpu": {"height": 2000, "width": 3000, "limit": 256}, "small": {"height": 120, "width": 180, "limit": 100}},
    peer,
    static=(0, 1, 2),
    mismatch=5e-3,
)
