"""Check the fast kernels on a device against numpy at awkward sizes (run before timing on a new device).

    python bench/check_kernels.py [--device nvidia] [--scan lookback|reduce-then-scan|chunked]

Covers map->scan and scan_scan (fused and unfused, the given scan strategy), sum,
and the segmented reduction and scan at several segment lengths. Prints one
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
    from soac.passes.soac_fuse import SoacFusePass
    from xdsl.context import Context

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
    for name in ("segred", "segscan"):
        for level in ("group", "thread"):
            program = compile_module(load(name, False, level), device, scan=scan)  # pyright: ignore[reportArgumentType]

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
