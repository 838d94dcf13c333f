"""Check the fast kernels on a device against numpy at awkward sizes (run before timing on a new device).

    python bench/check_kernels.py [--device nvidia] [--scan lookback|reduce-then-scan|chunked]

Covers map->scan and scan_scan (fused and unfused, the given scan strategy), sum,
scan_reduce (fused: one look-back kernel with the lookback strategy; and split), scanomaps with
non-commutative reduction parts (scan_reduce_ordered: i32 and f64 values), and the segmented
reduction and scan at several segment lengths, each strategy forced. Prints one
line per check and the full build log of any kernel that fails to build.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SEG_SHAPES = (
    (1, 1), (3, 5), (100, 4), (50, 8), (1000, 16), (1000, 32), (500, 64), (300, 128), (5, 132), (7, 4099),
    (3, 8192), (2, 16384), (3, 20000), (2, 300000), (2, 2**20 + 4),
)  # fmt: skip


def main() -> int:  # noqa: C901
    from soac.context import make_context
    from soac.lowering.runtime import choose_device, compile_module, scan_strategy_for
    from soac.parsing import parse_module
    from soac.passes import get_all_passes
    from soac.passes.soac_fuse import SoacFusePass
    from xdsl.context import Context
    from xdsl.passes import PassPipeline

    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    parser.add_argument("--scan", default=None)
    options = parser.parse_args()
    device = choose_device(options.device)
    scan = options.scan or scan_strategy_for(device)
    print(f"device {device.name}; scan {scan}")
    rng = np.random.default_rng(0)
    failures = 0

    def load(name: str, fuse: bool, level: str = "group") -> object:
        text = (ROOT / "bench" / "programs" / f"{name}.mlir").read_text().replace("LEVEL", level)
        module = parse_module(make_context(), text, name)
        if fuse:
            SoacFusePass().apply(Context(), module)
        return module

    def check(label: str, run: object) -> None:
        nonlocal failures
        try:
            run()  # pyright: ignore[reportCallIssue]
            print(f"ok   {label}")
        except Exception:
            failures += 1
            print(f"FAIL {label}\n{traceback.format_exc()}")

    sizes = [1, 7, 4096, 4097, 65536 * 3 + 5, 2**22 + 3]
    reduce_sizes = [0, *sizes, 128 * 8192 + 1, 300 * 8192 + 77, 2**24 + 5]  # more blocks than work-items at the end
    for name in ("map_scan", "scan_scan", "sum"):
        for fuse in (False, True):
            program = compile_module(load(name, fuse), device, scan=scan)  # pyright: ignore[reportArgumentType]

            def run(program: object = program, name: str = name) -> None:
                for n in sizes:
                    xs = rng.integers(-100, 100, n).astype(np.int32)
                    got = program.call("main", [xs])  # pyright: ignore[reportAttributeAccessIssue]
                    if name == "map_scan":
                        expected = [np.cumsum(3 * xs + 1, dtype=np.int32)]
                    elif name == "scan_scan":
                        expected = [np.cumsum(xs * xs, dtype=np.int32), np.maximum.accumulate(xs)]
                    else:
                        expected = [np.sum(3 * xs + 1, dtype=np.int32)]
                    for e, g in zip(expected, got, strict=True):
                        assert np.array_equal(np.asarray(g), e), f"n={n}: {np.asarray(g).ravel()[:8]} != {e.ravel()[:8]}"

            check(f"{name} fused={fuse}", run)
    for label, passes in (("fused", "soac-fuse"), ("split", "soac-fuse,soac-split-scan-reduce")):
        module = parse_module(make_context(), (ROOT / "bench" / "programs" / "scan_reduce.mlir").read_text(), label)
        PassPipeline.parse_spec(get_all_passes(), passes).apply(make_context(), module)
        program = compile_module(module, device, scan=scan)  # pyright: ignore[reportArgumentType]

        def run_scan_reduce(program: object = program) -> None:
            for n in reduce_sizes:
                xs = rng.integers(-100, 100, n).astype(np.int32)
                got = program.call("main", [xs])  # pyright: ignore[reportAttributeAccessIssue]
                ys = 3 * xs + 1
                expected = [np.cumsum(ys, dtype=np.int32), np.sum(ys, dtype=np.int32), ys.max() if n else np.int32(-(2**31))]
                for e, g in zip(expected, got, strict=True):
                    assert np.array_equal(np.asarray(g), e), f"n={n}: {np.asarray(g).ravel()[:8]} != {np.asarray(e).ravel()[:8]}"

        kernels = "two kernels" if "main_reduce" in program.source else "one kernel"
        check(f"scan_reduce {label} ({kernels})", run_scan_reduce)
    ordered = compile_module(  # pyright: ignore[reportArgumentType]
        parse_module(make_context(), (ROOT / "bench" / "programs" / "scan_reduce_ordered.mlir").read_text(), "ordered"),
        device,
        scan=scan,
    )
    for function in ("main", "wide"):

        def run_ordered(function: str = function) -> None:
            for n in reduce_sizes:
                xs = np.where(rng.random(n) < 0.5, 0, rng.integers(-100, 100, n)).astype(np.int32)
                sums, last, other = ordered.call(function, [xs])  # pyright: ignore[reportAttributeAccessIssue]
                nonzero = xs[xs != 0]
                assert np.array_equal(sums, np.cumsum(xs, dtype=np.int32)), f"n={n}: scan"
                assert last == (nonzero[-1] if nonzero.size else 0), f"n={n}: last non-zero {last}"
                expected = np.count_nonzero(xs) if function == "main" else np.sum(xs, dtype=np.float64)
                assert other == expected, f"n={n}: {other} != {expected}"

        check(f"scan_reduce_ordered @{function}", run_ordered)
    strategies = {"segred": ("auto", "thread", "teams"), "segscan": ("auto", "thread", "group")}
    for name in ("segred", "segscan"):
        for level in strategies[name]:  # the strategy soac-to-kernel's segred/segscan option forces
            program = compile_module(load(name, False, "thread"), device, scan=scan, **{name: level})  # pyright: ignore[reportArgumentType]

            def run_seg(program: object = program, name: str = name) -> None:
                for m, n in SEG_SHAPES:
                    xss = rng.integers(-100, 100, (m, n)).astype(np.int32)
                    (got,) = program.call("main", [xss])  # pyright: ignore[reportAttributeAccessIssue]
                    expected = xss.sum(axis=1, dtype=np.int32) if name == "segred" else np.cumsum(xss, axis=1, dtype=np.int32)
                    assert np.array_equal(got, expected), f"{m}x{n}: {got.ravel()[:8]} != {expected.ravel()[:8]}"

            check(f"{name} {level}", run_seg)
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
