"""Timing of device-resident calls for the bench scripts: the median wall time of a step followed by a wait for the
device (a queue's `finish`, a CUDA synchronize), after one untimed call."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np


def median_ms(step: Callable[[], Any], finish: Callable[[], Any], runs: int) -> float:
    """The median over `runs` of `step(); finish()` in milliseconds, after a warm-up call."""
    step()
    finish()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        finish()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))
