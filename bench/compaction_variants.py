"""Kernel time of the compaction scan, 2^28 i32 at 50%: with two scanned values (kept elements, rows: what
`lang/compaction.py` emitted before), one (the kept elements only; its count is wrong, for timing what the row count
costs), and one with an iota of the rows as a second input that the scan kernel computes (what `lang/compaction.py`
emits now: the last row is i == n - 1; `lowering/strategies/generated_inputs.py`).

    python bench/compaction_variants.py [--log2-n 28] [--runs 5]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from resident import kernel_breakdown  # pyright: ignore[reportMissingImports]

PROGRAMS = Path(__file__).resolve().parent / "programs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log2-n", type=int, default=28)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    from soac.context import make_context
    from soac.lowering.runtime import choose_device, compile_module, device_put
    from soac.parsing import parse_module
    from soac.passes import get_all_passes
    from xdsl.passes import PassPipeline

    device = choose_device()
    xs = np.random.default_rng(5).integers(-(2**31), 2**31, 1 << options.log2_n, dtype=np.int64).astype(np.int32)
    dx = device_put(xs, device)
    for name in ("compaction_two_values", "compaction_one_value_timing", "compaction_iota"):
        module = parse_module(make_context(), (PROGRAMS / f"{name}.mlir").read_text(), f"{name}.mlir")
        PassPipeline.parse_spec(get_all_passes(), "soac-fuse").apply(make_context(), module)
        program = compile_module(module, device)
        out, counted = program.call("main", [dx])
        kept = xs[xs > 0]
        ok = np.array_equal(np.asarray(out)[: len(kept)], kept)
        count_ok = int(np.asarray(counted)[0]) == len(kept)
        times = kernel_breakdown(program, lambda program=program: program.call("main", [dx], device_results=True), options.runs)
        listed = ", ".join(f"{k} {v:.3f}" for k, v in times.items())
        print(f"{name:<32} kernels {sum(times.values()):.3f} ms ({listed}); kept right: {ok}; count right: {count_ok}")


if __name__ == "__main__":
    main()
