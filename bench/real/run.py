"""The real-program suite: programs of Futhark's benchmarks, Rodinia and Accelerate's examples written in soac.lang,
each checked against numpy and timed against JAX and CuPy (see bench/real/README.md).

    python bench/real/run.py --gpu                  # the GPU sizes on the first GPU; JAX and CuPy where installed
    python bench/real/run.py --small                # small sizes on PoCL (CI); no peers
    python bench/real/run.py --gpu --only nbody,softmax --runs 20 --out bench/out_real
    python bench/real/run.py --gpu --only backprop,matvec --segred teams    # a segmented strategy forced
    python bench/real/run.py --gpu --only softmax --coalesce                 # with soac-coalesce's transposed copies
    python bench/real/run.py --gpu --only softmax,matvec --variants tiled,coalesce,rowtiles   # pipelines side by side

For each program soac reports: the first call (tracing, passes, lowering and the OpenCL build, the device opened
before the first program as a user's process opens it once; with soac's
on-disk cache and the binary caches of pyopencl, PoCL and NVIDIA's driver off), the numpy-in/numpy-out call
`f(*args)`, the device-resident call (inputs uploaded once, results left on the device: see probe.py) and the summed
time of the kernels and copies one call enqueues (OpenCL profiling). Where the program has `soac.threshold`s, every
combination of each threshold at 0 (its version taken) or 2^62 (never) is run, and the distinct versions (by the
kernels they launch) are checked and timed device-resident. With `--autotune`, `sl.jit(autotune=True)`'s first call
is timed too ("tune s": the search and the call) and its choice device-resident ("tuned/best"). Peers run the same
computation as array code on device arrays (`jax.jit`, CuPy). Times are medians of `--runs` calls, in ms.
Results go to `<out>/results.json` and `<out>/table.txt`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ["SOAC_CACHE_DIR"] = "off"  # every first call traces, runs the passes, lowers
for cache in ("PYOPENCL_NO_CACHE", "POCL_KERNEL_CACHE=0", "CUDA_CACHE_DISABLE"):  # and builds: no binary caches
    name, _, value = cache.partition("=")
    os.environ.setdefault(name, value or "1")

from peers import available_peers  # noqa: E402
from probe import Probe, thresholds_of  # noqa: E402
from soac.lowering.strategies.choice import SEGRED_STRATEGIES, SEGSCAN_STRATEGIES  # noqa: E402
from suite import PROGRAMS, Program, agree  # noqa: E402

NEVER = 2**62


def _variants() -> dict[str, tuple[str, dict[str, str], str]]:
    from soac.passes.standard import DEFAULT_PIPELINE, GPU_COPIES_PIPELINE, GPU_PIPELINE, TILED_PIPELINE

    copies = "soac-coalesce{read-through=false rows=false row-tiles=false}"
    rows_over_copies = "soac-coalesce{read-through=false row-tiles=false}"

    def row_tiles(options: str = "") -> str:
        return f"{TILED_PIPELINE},soac-coalesce{{read-through=false{' ' + options if options else ''}}}"

    return {
        "tiled": (TILED_PIPELINE, {}, "soac.lang's GPU pipeline"),
        "copies": (f"{TILED_PIPELINE},{copies}", {}, "with session 37's transposed copies alone"),
        "coalesce": (GPU_COPIES_PIPELINE, {}, "session 40's GPU pipeline: the copies and the rows rule, no row tiles"),
        "coalesce-unroll-8": (GPU_COPIES_PIPELINE, {"row-unroll": "8"}, "coalesce, #pragma unroll 8 on the work-items' rows"),
        "coalesce-unroll-16": (GPU_COPIES_PIPELINE, {"row-unroll": "16"}, "coalesce, #pragma unroll 16 on the work-items' rows"),
        "rowtiles": (GPU_PIPELINE, {}, "GPU_PIPELINE: the rows rule, the walks along rows through local-memory tiles"),
        "rowtiles-block-128": (row_tiles("row-block=128"), {}, "rowtiles, 128 rows a work-group"),
        "rowtiles-block-32": (row_tiles("row-block=32"), {}, "rowtiles, 32 rows a work-group"),
        "rowtiles-chunk-64": (row_tiles("row-chunk=64"), {}, "rowtiles, tiles of 64 elements a row"),
        "rowtiles-reg-2": (row_tiles("row-block=128 row-reg=2"), {}, "rowtiles, 2 rows a work-item, 128 a group"),
        "rowtiles-unsplit": (GPU_PIPELINE, {"tile-split-items": "1"}, "rowtiles, rows never split into slices"),
        "no-tile": (DEFAULT_PIPELINE, {}, "without soac-tile"),
        "copies-no-tile": (f"{DEFAULT_PIPELINE},{copies}", {}, "session 37's copies, without soac-tile"),
        "coalesce-no-tile": (f"{DEFAULT_PIPELINE},{rows_over_copies}", {}, "coalesce without soac-tile"),
        "coalesce-no-tile-unroll-8": (
            f"{DEFAULT_PIPELINE},{rows_over_copies}",
            {"row-unroll": "8"},
            "coalesce without soac-tile, #pragma unroll 8 on the work-items' rows",
        ),
        "rowtiles-no-tile": (f"{DEFAULT_PIPELINE},soac-coalesce{{read-through=false}}", {}, "rowtiles without soac-tile"),
        "rounds-before": (TILED_PIPELINE, {"seg-uniform-rounds": "false"}, "tiled, the segred folds' rounds before issue 27"),
        "streams-8": (TILED_PIPELINE, {"seg-streams": "8"}, "tiled, 8 loads in flight in the segred folds"),
        "groups-8192": (TILED_PIPELINE, {"max-groups": "8192"}, "tiled, up to 8192 work-groups a launch (1024)"),
    }


VARIANTS = _variants()
"""`--variants`: name -> (pass pipeline, soac-to-kernel options over the command's, what it is)."""


@dataclass
class Version:
    label: str
    thresholds: dict[str, int]
    kernels: list[str]
    resident_ms: float | None = None
    kernel_ms: float | None = None
    error: str | None = None


@dataclass
class Row:
    program: str
    origin: str
    size: dict[str, int]
    first_call_ms: float | None = None
    call_ms: float | None = None
    resident_ms: float | None = None
    kernel_ms: float | None = None
    launches: int | None = None
    thresholds: dict[str, int] = field(default_factory=dict)
    default_version: str | None = None
    versions: list[Version] = field(default_factory=list)
    tune_s: float | None = None
    """With --autotune: the cost of sl.jit(autotune=True)'s first call (the search and the call)."""
    tuned: dict[str, int] = field(default_factory=dict)
    tuned_ms: float | None = None
    """With --autotune: the device-resident time with the thresholds the search chose."""
    peers: dict[str, float | None] = field(default_factory=dict)
    peer_errors: dict[str, str] = field(default_factory=dict)
    error: str | None = None


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def failure(error: BaseException) -> str:
    return f"{type(error).__name__}: {(str(error).splitlines() or [''])[0][:300]}"


def version_label(forced: dict[str, int]) -> str:
    """`outer_par_0+ intra_par_1-`: + where the threshold is 0 (its version taken when reached), - where never."""
    return " ".join(f"{name.removeprefix('suff_')}{'+' if value == 0 else '-'}" for name, value in forced.items())


def run_versions(program: Program, probe: Probe, expected: Any, row: Row, default_kernels: list[str], runs: int) -> None:
    """Force every combination of the thresholds; time each distinct version (by the kernels it launches) once."""
    seen: dict[tuple[str, ...], Version] = {}
    for values in itertools.product((0, NEVER), repeat=len(row.thresholds)):
        forced = dict(zip(row.thresholds, values))
        try:
            kernel_ms, kernels = probe.kernel_ms(forced, 1)
        except Exception as error:
            row.versions.append(Version(version_label(forced), forced, [], error=failure(error)))
            continue
        key = tuple(sorted(set(kernels)))
        if key in seen:
            continue
        version = seen[key] = Version(version_label(forced), forced, sorted(set(kernels)))
        row.versions.append(version)
        try:
            version.error = check_version(program, probe, expected, forced)
            version.kernel_ms = kernel_ms if runs <= 1 else probe.kernel_ms(forced, runs)[0]
            version.resident_ms = probe.resident_ms(forced, runs)
        except Exception as error:
            version.error = failure(error)
        if sorted(set(default_kernels)) == version.kernels:
            row.default_version = version.label


def check_version(program: Program, probe: Probe, expected: Any, forced: dict[str, int]) -> str | None:
    results = probe.program.call(probe.name, probe.args, forced)
    got = tuple(results) if len(results) > 1 else results[0]
    return agree(program, expected, got)


def run_program(
    program: Program,
    scale: str,
    device: str | None,
    peers: list[Any],
    runs: int,
    pipeline: str | None,
    lowering: dict[str, str] | None = None,
    autotune: bool = False,
) -> Row:
    import soac.lang as sl

    rng = np.random.default_rng(0)
    size = program.sizes[scale]
    row = Row(program.name, program.origin, size)
    args = program.inputs(rng, size)
    expected = program.reference(*args)
    try:
        jitted = sl.jit(program.soac, device=device, pipeline=pipeline, lowering=lowering)
        start = time.perf_counter()
        compiled = jitted.specialize(*args)
        row.first_call_ms = (time.perf_counter() - start) * 1e3
        if (problem := agree(program, expected, jitted(*args))) is not None:
            row.error = f"wrong result: {problem}"
            return row
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            jitted(*args)
            times.append((time.perf_counter() - start) * 1e3)
        row.call_ms = float(np.median(times))
        probe = Probe(compiled.runner, compiled.name, args)
        row.kernel_ms, kernels = probe.kernel_ms({}, runs)
        row.launches = len(kernels)
        row.resident_ms = probe.resident_ms({}, runs)
        row.thresholds = thresholds_of(compiled.optimized_text)
        if row.thresholds:
            run_versions(program, probe, expected, row, kernels, runs)
        if row.thresholds and autotune:
            tuner = sl.jit(program.soac, device=device, pipeline=pipeline, lowering=lowering, autotune=True)
            start = time.perf_counter()
            tuner(*args)
            row.tune_s = time.perf_counter() - start
            row.tuned = tuner.tuned_thresholds(tuner.specialize(*args), args)
            row.tuned_ms = probe.resident_ms(row.tuned, runs)
    except Exception as error:
        row.error = failure(error)
        return row
    for peer in peers:
        try:
            timed = peer.time(program.peer, tuple(program.static), args, runs) if program.peer else None
            if timed is None:
                continue
            ms, got = timed
            row.peers[peer.name] = ms
            if (problem := agree(program, expected, got)) is not None:
                row.peer_errors[peer.name] = f"wrong result: {problem}"
        except Exception as error:
            row.peers[peer.name] = None
            row.peer_errors[peer.name] = failure(error)
    return row


def best_version(row: Row) -> Version | None:
    timed = [v for v in row.versions if v.resident_ms is not None and v.error is None]
    return min(timed, key=lambda v: v.resident_ms or 0.0) if timed else None


def _num(value: float | None, width: int, digits: int = 3) -> str:
    return f"{value:{width}.{digits}f}" if value is not None else " " * (width - 1) + "-"


def table(rows: list[Row], peer_names: list[str]) -> str:
    header = (
        f"{'program':26} {'first s':>7} {'numpy ms':>9} {'resident':>9} {'kernels':>9} {'best forced':>11} "
        f"{'dflt/best':>9} {'tune s':>6} {'tuned/best':>10} "
        + " ".join(f"{name.split()[0]:>9}" for name in peer_names)
        + f" {'soac/peer':>9}  size"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        if r.error:
            lines.append(f"{r.program:26} FAILED {r.error}")
            continue
        best = best_version(r)
        ratio = r.resident_ms / best.resident_ms if best and best.resident_ms and r.resident_ms else None
        peer_times = [r.peers.get(name) for name in peer_names]
        fastest = min((t for t in peer_times if t), default=None)
        versus = r.resident_ms / fastest if fastest and r.resident_ms else None
        size = " ".join(f"{k}={v}" for k, v in r.size.items())
        cells = [
            _num((r.first_call_ms or 0) / 1e3, 7, 2),
            _num(r.call_ms, 9),
            _num(r.resident_ms, 9),
            _num(r.kernel_ms, 9),
            _num(best.resident_ms if best else None, 11),
            _num(ratio, 9, 2),
            _num(r.tune_s, 6, 2),
            _num(r.tuned_ms / best.resident_ms if r.tuned_ms and best and best.resident_ms else None, 10, 2),
            *(_num(t, 9) for t in peer_times),
            _num(versus, 9, 2),
        ]
        lines.append(f"{r.program:26} {' '.join(cells)}  {size}")
    lines.append("")
    lines.append("versions (thresholds forced: + taken when reached, - never), device-resident ms / kernel ms:")
    for r in rows:
        for v in r.versions:
            mark = " (default)" if v.label == r.default_version else ""
            what = f"FAILED {v.error}" if v.error else f"{_num(v.resident_ms, 9)} {_num(v.kernel_ms, 9)}"
            lines.append(f"  {r.program:26} {v.label:48} {what}{mark}")
    errors = [(r.program, name, e) for r in rows for name, e in r.peer_errors.items()]
    if errors:
        lines.append("")
        lines.extend(f"  {program}: {name}: {error}" for program, name, error in errors)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--gpu", dest="scale", action="store_const", const="gpu", help="GPU sizes (default)")
    group.add_argument("--small", dest="scale", action="store_const", const="small", help="small sizes on PoCL (CI)")
    parser.add_argument("--only", help="comma-separated programs: " + ",".join(p.name for p in PROGRAMS))
    parser.add_argument("--runs", type=int, default=None, help="timed calls per measurement (median; default 10, small 2)")
    parser.add_argument("--device", default=None, help="OpenCL device (SOAC_OPENCL_DEVICE's forms; small: pocl)")
    parser.add_argument("--out", default=str(HERE.parent / "out_real"), help="folder for results.json and table.txt")
    parser.add_argument("--no-peers", action="store_true", help="time soac only")
    parser.add_argument(
        "--pipeline", default=None, help="soac.lang's pass pipeline (default: soac.lang's for the device's target)"
    )
    parser.add_argument(
        "--coalesce", action="store_true", help="with soac-coalesce's transposed copies (soac.passes.GPU_PIPELINE)"
    )
    parser.add_argument("--no-tile", action="store_true", help="without soac-tile (the outer-parallel versions stay segmaps)")
    parser.add_argument(
        "--variants",
        default=None,
        help="run each program under several pipelines in one run, rows labelled program[variant]: "
        + ", ".join(f"{name} ({what})" for name, (_, _, what) in VARIANTS.items()),
    )
    parser.add_argument("--segred", default="auto", choices=SEGRED_STRATEGIES, help="soac-to-kernel's segred strategy")
    parser.add_argument("--segscan", default="auto", choices=SEGSCAN_STRATEGIES, help="soac-to-kernel's segscan strategy")
    parser.add_argument(
        "--autotune", action="store_true", help="also time sl.jit(autotune=True): the search's cost and its choice"
    )
    options = parser.parse_args(argv)
    variants = options.variants.split(",") if options.variants else [None]
    if unknown_variants := sorted({v for v in variants if v is not None} - set(VARIANTS)):
        parser.error(f"unknown variants: {', '.join(unknown_variants)}")
    if options.pipeline is None and (options.coalesce or options.no_tile):
        from soac.passes.standard import COALESCE_STEP, DEFAULT_PIPELINE

        tiling = [] if options.no_tile else ["soac-tile{untranspose=true}", "soac-small-intra"]
        steps = [DEFAULT_PIPELINE, *tiling] + ([COALESCE_STEP] if options.coalesce else [])
        options.pipeline = ",".join(steps)
    lowering = {"segred": options.segred, "segscan": options.segscan}
    scale = options.scale or "gpu"
    runs = options.runs or (2 if scale == "small" else 10)
    device = options.device or ("pocl" if scale == "small" else None)
    wanted = options.only.split(",") if options.only else None
    unknown = sorted(set(wanted or []) - {p.name for p in PROGRAMS})
    if unknown:
        parser.error(f"unknown programs: {', '.join(unknown)}")
    programs = [p for p in PROGRAMS if wanted is None or p.name in wanted]

    from soac.lowering.runtime import choose_device, memory_of

    start = time.perf_counter()
    chosen = choose_device(device)
    memory_of(chosen)  # the context, queue and staging memory: once per process, not part of a program's first call
    init_s = time.perf_counter() - start
    peers = [] if options.no_peers or scale == "small" else available_peers()
    named = ", ".join(p.name for p in peers) or "none"
    progress(f"device: {chosen.platform.name} / {chosen.name} (opened in {init_s:.2f} s); peers: {named}")
    started = time.perf_counter()
    rows = []
    for k, program in enumerate(programs, 1):
        for n, variant in enumerate(variants):
            start = time.perf_counter()
            pipeline, changes = (options.pipeline, {}) if variant is None else VARIANTS[variant][:2]
            with_peers = peers if n == 0 else []  # the peers once a program
            r = run_program(program, scale, device, with_peers, runs, pipeline, {**lowering, **changes}, options.autotune)
            r.program = r.program if variant is None else f"{r.program}[{variant}]"
            rows.append(r)
            state = f"FAILED {r.error}" if r.error else f"{r.resident_ms:.3f} ms resident"
            progress(f"[{k}/{len(programs)}] {r.program}: {state} ({time.perf_counter() - start:.1f} s)")
    peer_names = [p.name for p in peers]
    header = (
        f"device: {chosen.name} ({chosen.platform.name}); host: {platform.node()}; "
        f"date: {datetime.now(UTC).isoformat(timespec='seconds')}; command: {' '.join(sys.argv)}; runs: {runs}"
    )
    text = table(rows, peer_names)
    print(header)
    print(text)
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    report = {
        "device": chosen.name,
        "platform": chosen.platform.name,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join(sys.argv),
        "scale": scale,
        "runs": runs,
        "peers": peer_names,
        "seconds": time.perf_counter() - started,
        "rows": [asdict(r) for r in rows],
    }
    (out / "results.json").write_text(json.dumps(report, indent=1))
    (out / "table.txt").write_text(header + "\n" + text + "\n")
    failed = [r for r in rows if r.error] + [r for r in rows for v in r.versions if v.error]
    progress(f"done in {time.perf_counter() - started:.1f} s; {len(failed)} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
