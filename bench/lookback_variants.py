"""Look-back scan tile shapes side by side in one run (issue 17): each configuration checked, then timed like bench/run.py.

    python bench/lookback_variants.py [--configs default,default/96/128,nolookback,...] [--benches map_scan,scan_scan]
        [--log2-size 28] [--runs 5] [--device gpu] [--ptxas]

A configuration is `NAME[/ITEMS[/GROUP]]`: `default`, `split` (two published values in two status arrays rather than
paired words, soac-to-kernel's `scan-status=split`), or `nolookback` to skip the look-back (`scan-lookback=false`:
wrong results, the floor of the rest; not checked), then optionally the items per work-item and the work-group size
(`scan-items`, `scan-group`; 0 = the default). Variants of the kernel's code are compared the same way: the issue 17 runs
selected them with a `+`-joined list of SOAC_LOOKBACK_VARIANT features in NAME (commit 738866d; see RESULTS.md).
Benchmarks: map_scan, scan_scan (fused), and map_scan_unfused, scan_scan_unfused (no passes). Each configuration's
program is first checked against numpy at awkward sizes, then its kernel time (OpenCL profiling, as bench/run.py)
at 2^log2-size is the median of `--runs` calls, with the result of the first call checked, and printed as a ratio
to the time of copying the input (clEnqueueCopyBuffer) measured in the same run.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # pyright: ignore[reportMissingImports]

CHECK_SIZES = [1, 4097, 8192 * 3 + 5, 2**20 + 3]
Expected = Callable[[np.ndarray], list[np.ndarray]]
BENCHES: dict[str, tuple[str, str, Expected]] = {
    "map_scan": ("map_scan", "soac-fuse", lambda x: [np.cumsum(3 * x + 1, dtype=np.int32)]),
    "map_scan_unfused": ("map_scan", "", lambda x: [np.cumsum(3 * x + 1, dtype=np.int32)]),
    "scan_scan": ("scan_scan", "soac-fuse", lambda x: [np.cumsum(x * x, dtype=np.int32), np.maximum.accumulate(x)]),
    "scan_scan_unfused": ("scan_scan", "", lambda x: [np.cumsum(x * x, dtype=np.int32), np.maximum.accumulate(x)]),
}


def configure(config: str) -> tuple[bool, dict[str, object]]:
    """soac-to-kernel's options for `config`, and whether the results can be checked."""
    name, items, group = [*config.split("/"), "0", "0"][:3]
    if name not in ("default", "split", "nolookback"):
        raise ValueError(f"unknown configuration '{name}': expected default, split or nolookback")
    options: dict[str, object] = {"scan_items": int(items), "scan_group": int(group)}
    options.update(scan_lookback=name != "nolookback", scan_status="split" if name == "split" else "paired")
    return name != "nolookback", options


def ptxas_info(source: str, device: object) -> str:
    """The register and spill lines of the NVIDIA compiler's verbose log for the look-back kernels of `source`."""
    import pyopencl as cl
    from soac.lowering.runtime.program import _context  # pyright: ignore[reportPrivateUsage]

    try:
        program = cl.Program(_context(device)[0], source).build(options=["-cl-nv-verbose"])
        log = program.get_build_info(device, cl.program_build_info.LOG)
    except Exception as error:
        return f"; no ptxas log: {type(error).__name__}"
    lines, kernel = [], ""
    for line in log.splitlines():
        if "Compiling entry function" in line:
            kernel = line.split("'")[1] if "'" in line else line
        elif "scan_lookback" in kernel and ("registers" in line or "spill" in line):
            lines.append(line.split("info    :")[-1].strip())
    return "; " + " | ".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="default,default/64/128,default/96/128,default/32/256,nolookback")
    parser.add_argument("--benches", default="map_scan,scan_scan")
    parser.add_argument("--log2-size", type=int, default=28)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--device", default=None)
    parser.add_argument("--ptxas", action="store_true", help="print NVIDIA's register and spill counts of the scan kernels")
    options = parser.parse_args()

    device, rng, xs, memcpy = run.variant_inputs(options)
    print(f"{'bench':<18} {'config':<28} {'ms':>7} {'x memcpy':>9}  check", flush=True)
    failures = 0
    for bench in options.benches.split(","):
        name, passes, expected_of = BENCHES[bench]
        expected = expected_of(xs)
        text = run.program_text(name)
        for config in options.configs.split(","):
            checked, lowering = configure(config)
            started = time.perf_counter()
            try:
                timed = run.Timed(run.Variant(config, text, passes, segmented=lowering), device)
                status = "ok" if checked else "not checked"
                if checked:
                    for size in CHECK_SIZES:
                        small = rng.integers(-100, 100, size).astype(np.int32)
                        _, got, _ = timed.run([small])
                        for e, g in zip(expected_of(small), got, strict=True):
                            if not np.array_equal(e, np.asarray(g)):
                                status = f"WRONG at n={size}"
                _first, got, _ = timed.run([xs])
                if checked and not all(np.array_equal(e, np.asarray(g)) for e, g in zip(expected, got, strict=True)):
                    status = f"WRONG at n=2^{options.log2_size}"
                timed.keep_on_device()
                ms = float(np.median([timed.run([xs])[0] for _ in range(options.runs)]))
                failures += status.startswith("WRONG")
                if options.ptxas:
                    status += ptxas_info(timed.program.source, device)
                line = f"{ms:7.3f} {ms / memcpy:9.3f}  {status}"
            except Exception as error:
                failures += 1
                line = f"FAILED {type(error).__name__}: {str(error).splitlines()[0][:160]}"
            print(f"{bench:<18} {config:<28} {line} ({time.perf_counter() - started:.1f} s)", flush=True)
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
