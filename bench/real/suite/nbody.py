"""One step of an all-pairs n-body simulation (Accelerate's n-body, Futhark's nbody benchmark): each body's
acceleration is a reduction over all bodies, then velocities and positions move by `dt`."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program

EPSILON = 1e-2


def nbody(xs, ys, zs, ms, vx, vy, vz, dt):
    def acceleration(xi, yi, zi):
        def pull(xj, yj, zj, mj):
            dx, dy, dz = xj - xi, yj - yi, zj - zi
            r2 = dx * dx + dy * dy + dz * dz + EPSILON
            s = mj / (r2 * sl.sqrt(r2))
            return dx * s, dy * s, dz * s

        add = lambda a, b: (a[0] + b[0], a[1] + b[1], a[2] + b[2])  # noqa: E731
        return sl.reduce(add, (0.0, 0.0, 0.0), *sl.map(pull, xs, ys, zs, ms))

    ax, ay, az = sl.map(acceleration, xs, ys, zs)
    vx, vy, vz = vx + ax * dt, vy + ay * dt, vz + az * dt
    return xs + vx * dt, ys + vy * dt, zs + vz * dt, vx, vy, vz


def peer(xp: Any):
    def step(xs, ys, zs, ms, vx, vy, vz, dt):
        dx, dy, dz = xs[None, :] - xs[:, None], ys[None, :] - ys[:, None], zs[None, :] - zs[:, None]
        r2 = dx * dx + dy * dy + dz * dz + np.float32(EPSILON)
        s = ms[None, :] / (r2 * xp.sqrt(r2))
        vx, vy, vz = vx + (dx * s).sum(1) * dt, vy + (dy * s).sum(1) * dt, vz + (dz * s).sum(1) * dt
        return xs + vx * dt, ys + vy * dt, zs + vz * dt, vx, vy, vz

    return step


def reference(xs, ys, zs, ms, vx, vy, vz, dt):
    """The peer's step on numpy, 1024 bodies at a time (an n x n matrix of 16384 bodies is 1 GiB)."""
    parts = []
    for lo in range(0, xs.size, 1024):
        hi = lo + 1024
        dx, dy, dz = xs[None, :] - xs[lo:hi, None], ys[None, :] - ys[lo:hi, None], zs[None, :] - zs[lo:hi, None]
        r2 = dx * dx + dy * dy + dz * dz + np.float32(EPSILON)
        s = ms[None, :] / (r2 * np.sqrt(r2))
        parts.append(((dx * s).sum(1), (dy * s).sum(1), (dz * s).sum(1)))
    ax, ay, az = (np.concatenate([p[k] for p in parts]) if parts else np.zeros(0, np.float32) for k in range(3))
    vx, vy, vz = vx + ax * dt, vy + ay * dt, vz + az * dt
    return xs + vx * dt, ys + vy * dt, zs + vz * dt, vx, vy, vz


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    n = size["n"]
    position = [rng.uniform(-1, 1, n).astype(np.float32) for _ in range(3)]
    mass = rng.uniform(0.1, 1, n).astype(np.float32) / np.float32(n)
    velocity = [rng.uniform(-0.1, 0.1, n).astype(np.float32) for _ in range(3)]
    return (*position, mass, *velocity, np.float32(0.01))


PROGRAM = Program(
    "nbody",
    "Accelerate examples (n-body), Futhark benchmarks (nbody): one all-pairs step",
    nbody,
    reference,
    inputs,
    {"gpu": {"n": 16384}, "small": {"n": 700}},
    peer,
    rtol=1e-3,
)
