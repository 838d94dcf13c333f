"""Black-Scholes pricing of European call and put options (NVIDIA's CUDA sample, Accelerate's and Futhark's
blackscholes benchmarks), with the classic polynomial approximation of the normal distribution function."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program

RATE, VOLATILITY = 0.02, 0.30
A1, A2, A3, A4, A5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
RSQRT2PI = 0.39894228040143267794


def blackscholes(price, strike, years):
    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * abs(d))
        tail = RSQRT2PI * sl.exp(-0.5 * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))))
        return sl.where(d > 0.0, 1.0 - tail, tail)

    def option(s, x, t):
        root = VOLATILITY * sl.sqrt(t)
        d1 = (sl.log(s / x) + (RATE + 0.5 * VOLATILITY * VOLATILITY) * t) / root
        d2 = d1 - root
        discounted = x * sl.exp(-RATE * t)
        return s * cnd(d1) - discounted * cnd(d2), discounted * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1))

    return sl.map(option, price, strike, years)


def peer(xp: Any):
    f = np.float32

    def cnd(d):
        k = f(1) / (f(1) + f(0.2316419) * xp.abs(d))
        poly = k * (f(A1) + k * (f(A2) + k * (f(A3) + k * (f(A4) + k * f(A5)))))
        tail = f(RSQRT2PI) * xp.exp(f(-0.5) * d * d) * poly
        return xp.where(d > 0, f(1) - tail, tail)

    def blackscholes(s, x, t):
        root = f(VOLATILITY) * xp.sqrt(t)
        d1 = (xp.log(s / x) + f(RATE + 0.5 * VOLATILITY * VOLATILITY) * t) / root
        d2 = d1 - root
        discounted = x * xp.exp(f(-RATE) * t)
        return s * cnd(d1) - discounted * cnd(d2), discounted * (f(1) - cnd(d2)) - s * (f(1) - cnd(d1))

    return blackscholes


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    n = size["n"]
    return (
        rng.uniform(5, 30, n).astype(np.float32),
        rng.uniform(1, 100, n).astype(np.float32),
        rng.uniform(0.25, 10, n).astype(np.float32),
    )


PROGRAM = Program(
    "blackscholes",
    "NVIDIA CUDA samples / Accelerate examples / Futhark benchmarks: Black-Scholes call and put prices",
    blackscholes,
    peer(np),
    inputs,
    {"gpu": {"n": 10_000_000}, "small": {"n": 20_000}},
    peer,
    rtol=1e-4,
)
