"""The radix sorts (issues 12 and 28) against CUB, CuPy and torch, in one run on one GPU.

    python bench/sort.py [--sizes 100000000,1000000] [--runs 9] [--json OUT] [--device gpu] [--no-peers] [--breakdown]
                         [--one-bit] [--scan-variants ITEMS:LAYOUT,...]
    python bench/sort.py --partition [--sizes 1000000,10000000,100000000] [--kinds keys,pairs]
                         [--distributions uniform,few,sorted] [--runs 9] [--json OUT] [--device gpu] [--breakdown]
                         [--lowering 'partition-match=ballots partition-items=12' ...]

`--partition` (issue 28) times the sorts on the ranking primitive, examples/radix_sort_onesweep.mlir (`keys`: one
upfront histogram, then one partition per digit place given its counts: one pass each on GPUs),
examples/radix_sort_pairs.mlir (`pairs`, the same with i32 values 0..n-1: the stable argsort) and, with `--kinds
keys-counting`, examples/radix_sort_partition.mlir (partitions that count their tiles first), for each size, kind and key
distribution (`uniform` 32-bit, `few`: 16 distinct values, `sorted`: the uniform keys sorted), checked against
numpy (the stable sort and argsort of the keys as uint32), against `cub::DeviceRadixSort::SortKeys`/`SortPairs`
(bench/cub_sort.cu, the same distributions of its own keys), `cupy.sort` / `cupy.argsort` then `take`, and
`torch.sort` (stable; pairs: then a gather of the values), all on the same device in the same run; soac/peer
ratios are of soac's kernel times. Each `--lowering` adds a row under each sort: soac with those soac-to-kernel
options forced (kernel and wall ms, soac/CUB, soac/torch). Without `--partition`, the rest of this docstring: the issue-12 sort.

For each size: uniformly random uint32 keys (held in int32). soac runs examples/radix_sort.mlir after
`soac-fuse` with the keys resident on the device and the result left there; two times are reported:
`kernels`, the sum of the kernels' and copies' OpenCL profiling events of one call, and `wall`, the wall clock
around the call (the host evaluator's launches and its final wait included). The result is checked against
numpy's sort. Peers: `cupy.sort` and `torch.sort` (CUDA events; the same keys, uint32 where torch sorts it,
else int32, which is the same work in another order), and `cub::DeviceRadixSort::SortKeys` (bench/cub_sort.cu,
built with nvcc when it is there; CUDA events, its own uniformly random uint32 keys). Medians of `--runs` calls
after a warm-up. `--breakdown` prints the kernel times of one soac call by kernel name; `--one-bit` also times the
thesis' 1-bit sort (bench/programs/radix_sort.mlir: 32 steps of examples/radix_sort_step.mlir) the same way;
`--scan-variants 8:contiguous,8:striped,4:striped` times soac at the first size with the look-back scan's items per
work-item and layout forced (SOAC_SCAN_ITEMS, SOAC_SCAN_LAYOUT), one process each.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from peers import build_cuda  # noqa: E402  # pyright: ignore[reportMissingImports]
from run import Timed, Variant  # noqa: E402  # pyright: ignore[reportMissingImports]

PROGRAM = ROOT.parent / "examples" / "radix_sort.mlir"
ONE_BIT = ROOT / "programs" / "radix_sort.mlir"


def soac_times(
    device: object,
    keys: np.ndarray,
    runs: int,
    breakdown: bool,
    program: Path = PROGRAM,
    args: list[np.ndarray] | None = None,
    expected: list[np.ndarray] | None = None,
    lowering: dict[str, Any] | None = None,
    check: bool = True,
) -> dict[str, Any]:
    """Times `program` on `args` (default: the keys) after checking its results against `expected` (default: the
    keys sorted as uint32; not checked without `check`); `lowering`: soac-to-kernel's options forced."""
    timed = Timed(Variant(program.stem, program.read_text(), passes="soac-fuse", segmented=lowering or {}), device)
    args = [keys] if args is None else args
    expected = [np.sort(keys.view(np.uint32)).view(np.int32)] if expected is None else expected
    _, results, _ = timed.run(args)
    for result, want in zip(results, expected, strict=True):
        if check:
            np.testing.assert_array_equal(result, want)
    compiled = timed.program
    by_kernel: list[tuple[str, Any]] = []

    def named(name: str, kernel: Any) -> Any:
        def launch(*args: Any) -> Any:
            event = kernel(*args)
            by_kernel.append((name, event))
            return event

        return launch

    compiled.kernels = {name: named(name, k) for name, k in compiled.kernels.items()}
    timed.keep_on_device()
    kernels, walls = [], []
    for _ in range(runs + 1):
        by_kernel.clear()
        start = time.perf_counter()
        kernel_ms, _, launches = timed.run(args)
        walls.append((time.perf_counter() - start) * 1e3)
        kernels.append(kernel_ms)
    times = {"kernels": float(np.median(kernels[1:])), "wall": float(np.median(walls[1:])), "launches": launches}
    if breakdown:
        per_name: dict[str, float] = defaultdict(float)
        for name, event in by_kernel:
            per_name[name] += (event.profile.end - event.profile.start) * 1e-6
        times["breakdown"] = dict(sorted(per_name.items(), key=lambda item: -item[1]))
    return times


def cupy_ms(keys: np.ndarray, expected: np.ndarray, runs: int) -> float | None:
    try:
        import cupy as cp
    except ImportError:
        return None
    data = cp.asarray(keys.view(np.uint32))
    np.testing.assert_array_equal(cp.sort(data).get(), expected)
    cp.sort(data)
    times = []
    for _ in range(runs):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        cp.sort(data)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def torch_ms(keys: np.ndarray, expected: np.ndarray, runs: int) -> tuple[float, str] | None:
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    try:
        data, dtype = torch.from_numpy(keys.view(np.uint32)).cuda(), "uint32"
        torch.sort(data)
    except (RuntimeError, TypeError):
        data, dtype = torch.from_numpy(keys).cuda(), "int32"
    values = torch.sort(data).values.cpu().numpy()
    want = expected if dtype == "uint32" else np.sort(keys)
    np.testing.assert_array_equal(values.view(want.dtype), want)
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.sort(data)
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return float(np.median(times)), dtype


def cub_ms(binary: Path | None, n: int, runs: int, kind: str = "keys", distribution: str = "uniform") -> float | None:
    if binary is None:
        return None
    done = subprocess.run([str(binary), str(n), str(runs), kind, distribution], capture_output=True, text=True, check=True)
    ms, ok = done.stdout.split()
    assert ok == "1", f"CUB's result is not sorted: {done.stdout}"
    return float(ms)


def dataset(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Uniformly random uint32 keys held in int32, and their sorted order as uint32 (kept in the temporary folder:
    numpy takes seconds to sort 10^8 keys, and runs with other settings reuse them)."""
    cache = Path(tempfile.gettempdir()) / f"soac_sort_{n}.npz"
    if cache.exists():
        saved = np.load(cache)
        return saved["keys"], saved["expected"]
    keys = np.random.default_rng(n).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.int32)
    expected = np.sort(keys.view(np.uint32))
    np.savez(cache, keys=keys, expected=expected)
    return keys, expected


def scan_variants(spec: str, n: int, runs: int, device: str) -> list[dict[str, Any]]:
    """soac's sort of `n` keys with the look-back scan's items per work-item and tile layout forced, one process per
    `ITEMS:LAYOUT` of `spec` (the settings are read when soac is imported)."""
    found = []
    for variant in filter(None, spec.split(",")):
        items, layout = variant.split(":")
        env = {**os.environ, "SOAC_SCAN_ITEMS": items, "SOAC_SCAN_LAYOUT": layout}
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "variant.json"
            command = [sys.executable, __file__, "--no-peers", "--breakdown", "--sizes", str(n), "--runs", str(runs)]
            done = subprocess.run([*command, "--device", device, "--json", str(out)], env=env, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"{'':>12}scan {variant}: failed: {done.stderr.strip().splitlines()[-1:]}", flush=True)
                continue
            (row,) = json.loads(out.read_text())["rows"]
        scan = max((ms for name, ms in row["breakdown"].items() if "lookback" in name), default=None)
        found.append({"variant": variant, "kernels": row["soac_kernels"], "wall": row["soac_wall"], "scan": scan})
        scan_text = f", its slowest look-back kernel {scan:.3f} ms" if scan is not None else ""
        print(
            f"{'':>12}scan {variant}: kernels {row['soac_kernels']:.3f} ms, wall {row['soac_wall']:.3f} ms{scan_text}", flush=True
        )
    return found


def show(t: float | None) -> str:
    return f"{t:9.3f}" if t is not None else f"{'-':>9}"


PARTITION_PROGRAMS = {
    "keys": ROOT.parent / "examples" / "radix_sort_onesweep.mlir",
    "pairs": ROOT.parent / "examples" / "radix_sort_pairs.mlir",
    "keys-counting": ROOT.parent / "examples" / "radix_sort_partition.mlir",
}


def keys_of(n: int, distribution: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """uint32 keys of a distribution held in int32, their stable sort and argsort as uint32 (int32 positions);
    kept in the temporary folder, as `dataset`."""
    cache = Path(tempfile.gettempdir()) / f"soac_sort_{distribution}_{n}.npz"
    if cache.exists():
        saved = np.load(cache)
        return saved["keys"], saved["expected"], saved["order"]
    rng = np.random.default_rng(n)
    uniform = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    if distribution == "few":
        keys = rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)[rng.integers(0, 16, n)]
    elif distribution == "sorted":
        keys = np.sort(uniform)
    elif distribution == "uniform":
        keys = uniform
    else:
        raise SystemExit(f"unknown distribution {distribution!r}: choose uniform, few or sorted")
    order = np.argsort(keys, kind="stable").astype(np.int32)
    expected = keys[order]
    np.savez(cache, keys=keys.view(np.int32), expected=expected, order=order)
    return keys.view(np.int32), expected, order


def cupy_pair_ms(keys: np.ndarray, kind: str, expected: np.ndarray, order: np.ndarray, runs: int) -> float | None:
    """`cupy.sort` (keys) or `cupy.argsort` then `take` of the values (pairs), CUDA events."""
    try:
        import cupy as cp
    except ImportError:
        return None
    data = cp.asarray(keys.view(np.uint32))
    values = cp.arange(len(keys), dtype=cp.int32)

    def call() -> Any:
        if kind == "keys":
            return cp.sort(data)
        return cp.take(values, cp.argsort(data))

    np.testing.assert_array_equal(call().get(), expected if kind == "keys" else order)
    times = []
    for _ in range(runs):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def torch_pair_ms(keys: np.ndarray, kind: str, expected: np.ndarray, order: np.ndarray, runs: int) -> float | None:
    """`torch.sort(stable=True)` of the keys (as uint32 where torch sorts it, else int64 holding them), for pairs
    with a gather of the values by the indices it gives, CUDA events."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    try:
        data = torch.from_numpy(keys.view(np.uint32)).cuda()
        torch.sort(data)
    except (RuntimeError, TypeError):
        data = torch.from_numpy(keys.view(np.uint32).astype(np.int64)).cuda()
    values = torch.arange(len(keys), dtype=torch.int32, device="cuda")

    def call() -> Any:
        sorted_keys, indices = torch.sort(data, stable=True)
        return sorted_keys if kind == "keys" else values[indices]

    got = call().cpu().numpy()
    want = expected if kind == "keys" else order
    np.testing.assert_array_equal(got.astype(np.int64), want.astype(np.int64))
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return float(np.median(times))


def lowering_variants(
    options: argparse.Namespace,
    device: Any,
    keys: np.ndarray,
    args: list[np.ndarray],
    want: list[np.ndarray],
    program: Path,
    row: dict[str, Any],
) -> list[dict[str, Any]]:
    """`--lowering`: the sort again with each set of soac-to-kernel options forced, checked and timed alike."""
    from soac.lowering.conversion.options import parse_option

    found = []
    for spec in options.lowering:
        forced = {}
        for item in spec.split():
            name, _, text = item.partition("=")
            field = name.replace("-", "_")
            forced[field] = parse_option(field, text)
        soac = soac_times(device, keys, options.runs, options.breakdown, program, args, want, forced)
        ratios = [soac["kernels"] / row[p] if row[p] else None for p in ("cub", "torch")]
        print(f"{'':>12}{spec:<24} " + " ".join(f"{show(t):>10}" for t in [soac["kernels"], soac["wall"], *ratios]), flush=True)
        for name, ms in soac.get("breakdown", {}).items():
            print(f"{'':>16}{name:<28} {ms:9.3f}", flush=True)
        timed = {"soac_kernels": soac["kernels"], "soac_wall": soac["wall"], "breakdown": soac.get("breakdown")}
        found.append({"options": spec, **timed})
    return found


def partition_sorts(options: argparse.Namespace, device: Any, nvidia: bool) -> None:
    """`--partition`: the sorts on soac.partition against the peers, one row per size, kind and distribution."""
    cub = build_cuda(ROOT / "cub_sort.cu") if nvidia else None
    header = ["soac kern", "soac wall", "CUB", "cupy", "torch", "soac/CUB", "soac/torch"]
    print(f"{'n':>10} {'keys':>8} {'kind':>13} " + " ".join(f"{h:>10}" for h in header) + "  (ms)", flush=True)
    rows = []
    for n in (int(s) for s in options.sizes.split(",")):
        for distribution in options.distributions.split(","):
            keys, expected, order = keys_of(n, distribution)
            for kind in options.kinds.split(","):
                if kind not in PARTITION_PROGRAMS:
                    raise SystemExit(f"unknown kind {kind!r}: choose {', '.join(PARTITION_PROGRAMS)}")
                pairs = kind == "pairs"
                args = [keys, np.arange(n, dtype=np.int32)] if pairs else [keys]
                want = [expected.view(np.int32), order] if pairs else [expected.view(np.int32)]
                soac = soac_times(device, keys, options.runs, options.breakdown, PARTITION_PROGRAMS[kind], args, want)
                row: dict[str, Any] = {
                    "n": n,
                    "distribution": distribution,
                    "kind": kind,
                    "soac_kernels": soac["kernels"],
                    "soac_wall": soac["wall"],
                    "soac_launches": soac["launches"],
                    "cub": cub_ms(cub, n, options.runs, "pairs" if pairs else "keys", distribution),
                    "cupy": cupy_pair_ms(keys, "pairs" if pairs else "keys", expected, order, options.runs) if nvidia else None,
                    "torch": torch_pair_ms(keys, "pairs" if pairs else "keys", expected, order, options.runs) if nvidia else None,
                }
                ratios = [soac["kernels"] / row[p] if row[p] else None for p in ("cub", "torch")]
                times = [row["soac_kernels"], row["soac_wall"], row["cub"], row["cupy"], row["torch"], *ratios]
                print(f"{n:>10} {distribution:>8} {kind:>13} " + " ".join(f"{show(t):>10}" for t in times), flush=True)
                if "breakdown" in soac:
                    row["breakdown"] = soac["breakdown"]
                    for name, ms in soac["breakdown"].items():
                        print(f"{'':>12}{name:<32} {ms:9.3f}", flush=True)
                row["variants"] = lowering_variants(options, device, keys, args, want, PARTITION_PROGRAMS[kind], row)
                rows.append(row)
    if options.json:
        Path(options.json).write_text(json.dumps({"device": device.name, "rows": rows}, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000000,1000000")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--device", default="gpu", help="as SOAC_OPENCL_DEVICE (peers run only on an NVIDIA GPU)")
    parser.add_argument("--no-peers", action="store_true", help="time soac only")
    parser.add_argument("--breakdown", action="store_true", help="print soac's kernel times by kernel")
    parser.add_argument("--one-bit", action="store_true", help="also time the 1-bit sort (bench/programs/radix_sort.mlir)")
    parser.add_argument(
        "--scan-variants", default="", metavar="ITEMS:LAYOUT,...", help="also time soac with these scan settings (first size)"
    )
    parser.add_argument("--partition", action="store_true", help="time the sorts on soac.partition (issue 28)")
    parser.add_argument("--kinds", default="keys,pairs", help="with --partition: keys, pairs, keys-counting")
    parser.add_argument("--distributions", default="uniform,few,sorted", help="with --partition: uniform, few, sorted")
    parser.add_argument(
        "--lowering",
        action="append",
        default=[],
        metavar="OPTIONS",
        help="with --partition: also time soac with these soac-to-kernel options, e.g. 'partition-match=ballots' (repeatable)",
    )
    options = parser.parse_args()
    from soac.lowering.runtime import choose_device

    device = choose_device(options.device)
    nvidia = "nvidia" in device.platform.name.lower() and not options.no_peers  # pyright: ignore[reportAttributeAccessIssue]
    if options.partition:
        print(f"device: {device.name}; runs = {options.runs}", flush=True)
        partition_sorts(options, device, nvidia)
        return
    cub = build_cuda(ROOT / "cub_sort.cu") if nvidia else None
    print(f"device: {device.name}; runs = {options.runs}", flush=True)
    header = ["soac kern", "soac wall", "CUB", "cupy", "torch", "soac/CUB", "soac/cupy"]
    print(f"{'n':>10} " + " ".join(f"{h:>9}" for h in header) + "  (ms; soac/peer from kernel times)", flush=True)
    rows = []
    for n in (int(s) for s in options.sizes.split(",")):
        keys, expected = dataset(n)
        soac = soac_times(device, keys, options.runs, options.breakdown)
        torch = torch_ms(keys, expected, options.runs) if nvidia else None
        row: dict[str, Any] = {
            "n": n,
            "soac_kernels": soac["kernels"],
            "soac_wall": soac["wall"],
            "soac_launches": soac["launches"],
            "cub": cub_ms(cub, n, options.runs),
            "cupy": cupy_ms(keys, expected, options.runs) if nvidia else None,
            "torch": torch[0] if torch else None,
            "torch_dtype": torch[1] if torch else None,
        }
        ratios = [soac["kernels"] / row[p] if row[p] else None for p in ("cub", "cupy")]
        times = [row["soac_kernels"], row["soac_wall"], row["cub"], row["cupy"], row["torch"], *ratios]
        print(f"{n:>10} " + " ".join(show(t) for t in times), flush=True)
        if "breakdown" in soac:
            row["breakdown"] = soac["breakdown"]
            for name, ms in soac["breakdown"].items():
                print(f"{'':>12}{name:<28} {ms:9.3f}", flush=True)
        if options.one_bit:
            one_bit = soac_times(device, keys, min(options.runs, 3), False, ONE_BIT)
            row["one_bit_kernels"], row["one_bit_wall"] = one_bit["kernels"], one_bit["wall"]
            print(f"{'':>12}1-bit sort (32 steps): kernels {one_bit['kernels']:.3f} ms, wall {one_bit['wall']:.3f} ms")
        if options.scan_variants and not rows:
            row["scan_variants"] = scan_variants(options.scan_variants, n, options.runs, options.device)
        rows.append(row)
    if options.json:
        Path(options.json).write_text(json.dumps({"device": device.name, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
