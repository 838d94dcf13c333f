"""The GPU peers of the real-program suite: each program's array code under `jax.jit` and on CuPy, where installed.

JAX is timed by wall clock after `block_until_ready`, CuPy with CUDA events around the call; both on arrays already
on the device, after a warm-up call (which compiles JAX's program)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Peer:
    name: str
    module: Any
    """The array module the programs' `peer` factories take."""
    to_device: Callable[[Any], Any]
    to_host: Callable[[Any], np.ndarray]
    compile: Callable[[Callable[..., Any], tuple[int, ...]], Callable[..., Any]]
    timer: Callable[[Callable[[], Any], int], float]

    def time(
        self, factory: Callable[[Any], Any], static: tuple[int, ...], args: tuple[Any, ...], runs: int
    ) -> tuple[float, Any] | None:
        """The median ms of `runs` calls and the results (on the host), or None where the program has no such peer."""
        fn = factory(self.module)
        if fn is None:
            return None
        compiled = self.compile(fn, static)
        device_args = [int(a) if k in static else self.to_device(a) for k, a in enumerate(args)]
        result = compiled(*device_args)
        host = tuple(self.to_host(r) for r in result) if isinstance(result, tuple) else self.to_host(result)
        return self.timer(lambda: compiled(*device_args), runs), host


def jax_peer() -> Peer | None:
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    try:
        if not any(d.platform == "gpu" for d in jax.devices()):
            return None
    except RuntimeError:
        return None

    def timer(fn: Callable[[], Any], runs: int) -> float:
        jax.block_until_ready(fn())
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            jax.block_until_ready(fn())
            times.append((time.perf_counter() - start) * 1e3)
        return float(np.median(times))

    def to_device(a: Any) -> Any:
        return jnp.asarray(a) if isinstance(a, np.ndarray) else a

    return Peer(
        f"jax {jax.__version__}", jnp, to_device, np.asarray, lambda fn, static: jax.jit(fn, static_argnums=static), timer
    )


def cupy_peer() -> Peer | None:
    try:
        import cupy as cp
    except ImportError:
        return None

    def timer(fn: Callable[[], Any], runs: int) -> float:
        fn()
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(runs):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end))
        return float(np.median(times))

    def to_host(a: Any) -> np.ndarray:
        return cp.asnumpy(a) if isinstance(a, cp.ndarray) else np.asarray(a)

    def to_device(a: Any) -> Any:
        return cp.asarray(a) if isinstance(a, np.ndarray) else a

    return Peer(f"cupy {cp.__version__}", cp, to_device, to_host, lambda fn, static: fn, timer)


def available_peers() -> list[Peer]:
    return [p for p in (jax_peer(), cupy_peer()) if p is not None]
