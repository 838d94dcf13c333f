"""What a suite program provides: the soac.lang function, a numpy reference, inputs at two sizes, array-code peers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Inputs = Callable[[np.random.Generator, dict[str, int]], tuple[Any, ...]]


@dataclass(frozen=True)
class Program:
    name: str
    origin: str
    """Where the program comes from (Futhark's benchmarks, Rodinia, Accelerate's examples)."""
    soac: Callable[..., Any]
    """The program written with soac.lang (not yet jitted)."""
    reference: Callable[..., Any]
    """numpy: the same results as `soac`, from the same arguments."""
    inputs: Inputs
    sizes: dict[str, dict[str, int]]
    """Named sizes for `inputs`: "gpu" (the issue's where it gives one) and "small" (PoCL, CI)."""
    peer: Callable[[Any], Callable[..., Any]] | None = None
    """Given an array module (jax.numpy, cupy; numpy for the tests), the program as array code on its arrays."""
    static: Sequence[int] = ()
    """Arguments that the peers take as Python ints (JAX's static_argnums): sizes and step counts."""
    rtol: float = 1e-4
    """Results agree when max |got - expected| <= rtol * max |expected| (per result; integers exactly)."""
    mismatch: float = 0.0
    """The fraction of integer elements that may differ (escape counts of chaotic iterations under FMA contraction)."""
    failed_forms: Sequence[tuple[str, str]] = field(default_factory=tuple)
    """Natural formulations that fail to compile or run today: (the form, the error's first line)."""


def agree(program: Program, expected: Any, got: Any) -> str | None:
    """None where `got` matches `expected` result by result, else what differs."""
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    if len(expected) != len(got):
        return f"{len(got)} results, expected {len(expected)}"
    for k, (e, g) in enumerate(zip(expected, got)):
        e, g = np.asarray(e), np.asarray(g)
        if e.shape != g.shape:
            return f"result #{k} has shape {g.shape}, expected {e.shape}"
        if e.dtype.kind in "biu":
            differ = int(np.count_nonzero(e != g))
            if differ > program.mismatch * e.size:
                return f"result #{k}: {differ} of {e.size} elements differ"
            continue
        scale = float(np.max(np.abs(e))) if e.size else 0.0
        error = float(np.max(np.abs(e.astype(np.float64) - g))) if e.size else 0.0
        if not error <= program.rtol * scale + 1e-30:
            return f"result #{k}: max error {error:.3g} against max |expected| {scale:.3g} (rtol {program.rtol})"
    return None


def is_jax(xp: Any) -> bool:
    return xp.__name__.startswith("jax")


def fori(xp: Any, n: int, body: Callable[[int, Any], Any], init: Any) -> Any:
    """`init` after `n` steps of `body(i, state)`: lax.fori_loop for JAX, a Python loop for numpy and CuPy."""
    if is_jax(xp):
        from jax import lax

        return lax.fori_loop(0, n, body, init)
    for i in range(n):
        init = body(i, init)
    return init


def bincount(xp: Any, xs: Any, length: int, weights: Any = None) -> Any:
    """Counts (or sums of `weights`) per value of `xs` in [0, length), in every array module."""
    if is_jax(xp):
        return xp.bincount(xs, weights, length=length)
    return xp.bincount(xs, weights, minlength=length)
