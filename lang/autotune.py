"""Online autotuning: `sl.jit(..., autotune=True)` picks a program's versions on the first call for a size class.

`soac-flatten` guards each version of a nest with a threshold (`par >= t_name`), and the device-aware defaults
pick a version without timing anything. With `autotune=True`, the first call whose arguments fall in a new *size
class* times the versions on those arguments and keeps the fastest, as Triton's `@autotune` does; later calls of
the class run it directly. The choice is kept in memory and on disk beside the compile cache
(`autotune-<program key>.json`), so another process reuses it.

The search is Futhark's (`soac-autotune`): one threshold at a time, deepest first, each tried at 0 (its version
taken wherever reached) and at `MAX_THRESHOLD` (never taken), the other thresholds at their best so far. A size class
is the power-of-two bucket of every array dimension and every integer argument: within a class each threshold sees
a parallelism of about the same size, so one choice serves it. The report of each search (`JitFunction.tunings`)
gives its cost in seconds, the time of every candidate, and the default's time for comparison.
"""

from __future__ import annotations

import io
import json
import logging
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from soac.lang import cache
from soac.lowering.runtime import compile_module, device_put
from soac.passes.thresholds import MAX_THRESHOLD, ThresholdInfo, list_thresholds
from soac.passes.tile_sizes import with_tile_sizes
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

log = logging.getLogger("soac.lang")

RUNS = 3
"""Fewest timed calls per candidate (after one untimed call), of which the median counts."""

MAX_RUNS = 25
BUDGET = 0.03
"""Seconds of timed calls a candidate gets (between RUNS and MAX_RUNS calls): fast programs, whose resident times
differ by host noise of tens of microseconds, are timed more often."""

SLOW = 3.0
"""A candidate whose first timed call takes this many times the best so far is not timed again."""

Measure = Callable[[Mapping[str, int]], float]
"""Seconds that one call takes with the given thresholds."""


@dataclass
class TuningReport:
    """What one search found and what it cost."""

    size_class: str
    thresholds: dict[str, int]
    """The chosen thresholds, each 0 (its version taken where reached) or MAX_THRESHOLD (never); those not named keep
    their defaults."""
    seconds: float
    """Wall time of the search: every timed call of every candidate."""
    default_ms: float
    tuned_ms: float
    candidates: dict[str, float] = field(default_factory=dict)
    """Milliseconds of each candidate tried, labelled like `outer_par_0+ intra_par_1-`."""


def size_class(args: Sequence[object]) -> str:
    """The power-of-two bucket of every array dimension and integer argument, e.g. `[2^16x2^10] 2^4`."""
    parts = []
    for arg in args:
        shape = getattr(arg, "shape", None)
        if shape is not None and len(shape):
            parts.append("[" + "x".join(_bucket(int(d)) for d in shape) + "]")
        elif isinstance(arg, (bool, np.bool_)):
            parts.append("b")
        elif isinstance(arg, (int, np.integer)):
            parts.append(_bucket(int(arg)))
        else:
            parts.append("s")
    return " ".join(parts)


def _bucket(value: int) -> str:
    return "0" if value <= 0 else f"2^{math.ceil(math.log2(value))}"


def label(thresholds: Mapping[str, int]) -> str:
    return " ".join(f"{name.removeprefix('suff_')}{'+' if v == 0 else '-'}" for name, v in thresholds.items())


def search(infos: Sequence[ThresholdInfo], measure: Measure) -> tuple[dict[str, int], dict[str, float], float]:
    """The fastest thresholds timed (those not named keep their defaults), the milliseconds of every candidate
    tried, and the defaults' milliseconds."""
    timed: dict[tuple[tuple[str, int], ...], float] = {}
    best_seconds = math.inf

    def time_of(candidate: dict[str, int]) -> float:
        nonlocal best_seconds
        key = tuple(sorted(candidate.items()))
        if key not in timed:
            timed[key] = measure(candidate)
            best_seconds = min(best_seconds, timed[key])
        return timed[key]

    default_seconds = time_of({})
    chosen: dict[str, int] = {}
    for info in sorted(infos, key=lambda i: -i.depth):
        options = {value: time_of({**chosen, info.name: value}) for value in (0, MAX_THRESHOLD)}
        chosen[info.name] = min(options, key=options.__getitem__)
    candidates = {label(dict(key)) or "defaults": seconds * 1e3 for key, seconds in timed.items()}
    fastest = min(timed, key=timed.__getitem__)  # the search's path may have passed a faster mix than its end
    return dict(fastest), candidates, default_seconds * 1e3


def timer(call: Callable[[Mapping[str, int]], object], runs: int = RUNS) -> Measure:
    """A `Measure` from a call that runs the program to completion: one untimed call, then the median of at least
    `runs` calls (more, up to MAX_RUNS, until BUDGET seconds are spent), cut short for a candidate far slower than the
    best so far."""
    best = [math.inf]

    def measure(thresholds: Mapping[str, int]) -> float:
        call(thresholds)
        times: list[float] = []
        while len(times) < MAX_RUNS and (len(times) < runs or sum(times) < BUDGET):
            start = time.perf_counter()
            call(thresholds)
            times.append(time.perf_counter() - start)
            if times[0] > SLOW * best[0]:
                break
        median = float(np.median(times))
        best[0] = min(best[0], median)
        return median

    return measure


def resident_timer(program: Any, name: str, args: Sequence[object], base: Mapping[str, int], fixed: Mapping[str, int]) -> Measure:
    """A `Measure` of `program`'s (a `soac.lowering.runtime.Program`) `@name` on `args` uploaded once, results left on
    the device: what the versions differ in. The candidates' thresholds win over `base`, and `fixed` over both."""
    resident = [device_put(a, program.device) if isinstance(a, np.ndarray) and a.ndim else a for a in args]

    def call(forced: Mapping[str, int]) -> None:
        for result in program.call(name, resident, {**base, **forced, **fixed}, True):
            if hasattr(result, "block_until_ready"):
                result.block_until_ready()

    return timer(call)


@dataclass
class Autotuner:
    """The choices of one compiled program, by size class, in memory and on disk."""

    key: str
    """The compiled program's cache key (it names the device, so each device tunes on its own)."""
    module: ModuleOp
    choices: dict[str, dict[str, int]] | None = None

    def thresholds(
        self, args: Sequence[object], make_measure: Callable[[], Measure]
    ) -> tuple[dict[str, int], TuningReport | None]:
        """The thresholds for `args`' size class, with the report of a search if this call made one (timed by the
        `Measure` that `make_measure` gives: it may upload the arguments first)."""
        infos = list_thresholds(self.module)
        if not infos:
            return {}, None
        if self.choices is None:
            self.choices = self._load()
        bucket = size_class(args)
        if (known := self.choices.get(bucket)) is not None:
            return known, None
        start = time.perf_counter()
        chosen, candidates, default_ms = search(infos, make_measure())
        report = TuningReport(bucket, chosen, time.perf_counter() - start, default_ms, 0.0, candidates)
        report.tuned_ms = candidates.get(label(chosen) or "defaults", default_ms)
        self.choices[bucket] = chosen
        self._store()
        log.info(
            "autotuned %s for %s in %.2f s: %s (%.3f ms; defaults %.3f ms)",
            self.key[:12],
            bucket,
            report.seconds,
            label(chosen) or "defaults",
            report.tuned_ms,
            default_ms,
        )
        return chosen, report

    def _path(self) -> str | None:
        folder = cache.cache_dir()
        return None if folder is None else os.path.join(folder, f"autotune-{self.key}.json")

    def _load(self) -> dict[str, dict[str, int]]:
        path = self._path()
        if path is None:
            return {}
        try:
            with open(path) as f:
                loaded = json.load(f)
        except (OSError, ValueError):
            return {}
        return {str(k): {str(n): int(v) for n, v in t.items()} for k, t in loaded.items() if isinstance(t, dict)}

    def _store(self) -> None:
        path = self._path()
        if path is None or self.choices is None:
            return
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                json.dump(self.choices, f, indent=1, sort_keys=True)
            os.replace(tmp, path)
        except OSError:
            pass


def tune_module(
    module: ModuleOp,
    name: str,
    args: Sequence[object],
    named: Mapping[str, int],
    lowering: Mapping[str, Any] | None = None,
) -> dict[str, int]:
    """`soac-run --autotune`: the thresholds of `module`'s `@name` for `args`' size class on the default OpenCL
    device (with soac-to-kernel's `lowering` options), searched now (and kept beside soac.lang's cache) unless an
    earlier run chose them; `named` thresholds win. A search's report goes to stderr."""
    options = dict(lowering or {})
    program = compile_module(with_tile_sizes(module, named), **options)
    text = io.StringIO()
    Printer(stream=text).print_op(module)
    device = program.device
    described = " ".join(f"{k}={v}" for k, v in sorted(options.items()))
    key = cache.cache_key(text.getvalue(), f"{device.platform.name}|{device.name}|{device.driver_version}", described)
    chosen, report = Autotuner(key, module).thresholds(args, lambda: resident_timer(program, name, args, {}, named))
    if report is not None:
        tried = ", ".join(f"{label} {ms:.3f} ms" for label, ms in report.candidates.items())
        print(
            f"autotune: {report.size_class}: {label(chosen) or 'defaults'} in {report.seconds:.2f} s ({tried})",
            file=sys.stderr,
        )
    return {**chosen, **named}
