"""Each version of flattened matrix multiplication, and the autotuned choice, over a sweep of shapes.

    python bench/matmul_versions.py [--work 25] [--runs 3] [--device gpu]

As in seed 004's incremental-flattening experiment: `2^n x 2^m` times
`2^m x 2^n` with `m = work - 2n`, so every shape does `2^work` multiply-adds.
examples/matmul.mlir goes through `soac-flatten` (incremental); each version is
forced by setting the thresholds on its path to 0 (take it) or 2^62 (skip it).
The autotuner (soac-autotune's search) is run on all shapes at once with the
same kernel-time measure, and its choice is timed per shape. Times are the
sum of the OpenCL kernel times of one call (median of --runs).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from soac.context import make_context
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes.soac_flatten import SoacFlattenPass
from soac.passes.thresholds import MAX_THRESHOLD, ThresholdInfo, list_thresholds, observe_pars
from soac.tools.soac_autotune import Tuner
from xdsl.context import Context

sys.path.insert(0, str(Path(__file__).resolve().parent))
from first_timing import profiled

ROOT = Path(__file__).resolve().parents[1]


def versions(infos: list[ThresholdInfo]) -> dict[str, dict[str, int]]:
    """Threshold settings that force each leaf version of the versioned nest."""
    leaves = [(*info.path, (info.name, True)) for info in infos]
    deepest = max(infos, key=lambda info: info.depth)
    leaves.append((*deepest.path, (deepest.name, False)))
    forced = {}
    for leaf in leaves:
        label = " / ".join(f"{name}{'' if taken else '!'}" for name, taken in leaf if taken) or "fully flattened"
        config = {info.name: MAX_THRESHOLD for info in infos}
        config.update({name: 0 if taken else MAX_THRESHOLD for name, taken in leaf})
        forced[label] = config
    return forced


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=int, default=25)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--device", default=None)
    parser.add_argument("--json", default=None)
    options = parser.parse_args()

    path = ROOT / "examples" / "matmul.mlir"
    module = parse_module(make_context(), path.read_text(), str(path))
    SoacFlattenPass().apply(Context(), module)
    infos = list_thresholds(module)
    forced = versions(infos)
    program = compile_module(module, options.device)
    events = profiled(program)
    rng = np.random.default_rng(0)
    shapes = [(n, options.work - 2 * n) for n in range(0, options.work // 2 + 1, 2)]
    datasets = [
        [rng.uniform(-1, 1, (2**n, 2**m)).astype(np.float32), rng.uniform(-1, 1, (2**m, 2**n)).astype(np.float32)]
        for n, m in shapes
    ]

    def kernel_ms(j: int, thresholds: dict[str, int] | None) -> float:
        times = []
        for _ in range(options.runs + 1):
            events.clear()
            result = program.call("main", datasets[j], thresholds)[0]
            times.append(sum(e.profile.end - e.profile.start for e in events) * 1e-6)
        a, b = datasets[j]
        expected = a.astype(np.float64) @ b.astype(np.float64)
        assert np.allclose(result, expected, rtol=1e-3, atol=1e-3 * max(1, a.shape[1]) ** 0.5), "wrong result"
        return float(np.median(times[1:]))

    print(f"device: {program.device.name}; 2^{options.work} multiply-adds per shape; kernel ms, median of {options.runs}")
    everything_off = {info.name: MAX_THRESHOLD for info in infos}
    pars = [observe_pars(module, "main", data, everything_off) for data in datasets]
    tuned = Tuner(infos, pars, lambda j, config: kernel_ms(j, config), lambda line: print(line, file=sys.stderr)).tune()
    columns = [*forced, "defaults", "autotuned"]
    table: list[dict[str, Any]] = []
    print(f"{'n':>3} {'m':>3} " + " ".join(f"{c[:22]:>22}" for c in columns))
    for j, (n, m) in enumerate(shapes):
        row = {label: kernel_ms(j, config) for label, config in forced.items()}
        row["defaults"] = kernel_ms(j, None)
        row["autotuned"] = kernel_ms(j, tuned)
        table.append({"n": n, "m": m, **row})
        print(f"{n:3d} {m:3d} " + " ".join(f"{row[c]:22.3f}" for c in columns), flush=True)
    print("tuned thresholds: " + ", ".join(f"{k}={v}" for k, v in sorted(tuned.items())))
    if options.json:
        Path(options.json).write_text(json.dumps({"device": program.device.name, "rows": table, "tuned": tuned}, indent=1))


if __name__ == "__main__":
    main()
