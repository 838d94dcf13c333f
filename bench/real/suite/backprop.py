"""Rodinia's backprop, one layer: the forward pass into a small hidden layer (a map over hidden units of a dot
product over all inputs, then the sigmoid) and the weight update with momentum (a map over the weight matrix)."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program

ETA, MOMENTUM = 0.3, 0.3


def backprop(inputs, weights, previous_change, delta):
    hidden = sl.map(lambda column: 1.0 / (1.0 + sl.exp(-sl.sum(column * inputs))), weights.T)

    def adjust(x, row, previous):
        change = ETA * delta * x + MOMENTUM * previous
        return row + change, change

    new_weights, change = sl.map(adjust, inputs, weights, previous_change)
    return hidden, new_weights, change


def peer(xp: Any):
    f = np.float32

    def backprop(inputs, weights, previous_change, delta):
        hidden = f(1) / (f(1) + xp.exp(-(inputs @ weights)))
        change = f(ETA) * delta[None, :] * inputs[:, None] + f(MOMENTUM) * previous_change
        return hidden, weights + change, change

    return backprop


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    n, hidden = size["inputs"], size["hidden"]
    return (
        rng.random(n, dtype=np.float32),
        rng.uniform(-0.05, 0.05, (n, hidden)).astype(np.float32),
        rng.uniform(-0.05, 0.05, (n, hidden)).astype(np.float32),
        rng.uniform(-1, 1, hidden).astype(np.float32),
    )


PROGRAM = Program(
    "backprop",
    "Rodinia backprop: a layer's forward pass and weight update",
    backprop,
    peer(np),
    inputs,
    {"gpu": {"inputs": 1 << 20, "hidden": 16}, "small": {"inputs": 3000, "hidden": 16}},
    peer,
    rtol=1e-4,
)
