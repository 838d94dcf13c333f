"""The soac benchmark suite: soac programs (fused and unfused, every version) against numpy, CuPy, torch and JAX.

    python bench/run.py --gpu                 # full sizes on the GPU (NVIDIA OpenCL), peers on the GPU
    python bench/run.py --smoke               # tiny sizes on PoCL (CPU), numpy only; what CI runs
    python bench/run.py --cpu                 # PoCL at medium sizes (fused map->scan vs numpy)
    python bench/run.py --gpu --only map_scan,sum --runs 20 --out bench/out

Benchmarks (programs in bench/programs/): map_scan, scan_scan (horizontal
scanomap-scanomap), sum (redomap; CUB peers for these three where nvcc is there), scan_reduce (a scan and two
reductions of one mapped input, and a scan with a non-commutative reduction part: one look-back kernel, or split in
two), radix_sort (32 steps), segred and segscan
sweeps over segment lengths at a constant total size, matmul over a shape
sweep, locvolcalib (examples/locvolcalib.mlir). Each soac program runs in
pipeline variants (`unfused`: no passes; `fused`: soac-fuse; more where a pass
or a level gives more versions). Times are medians of `--runs` calls: for soac
the sum of the OpenCL profiling times of the kernels and copies one call
enqueues (uploading inputs and reading results are not counted), for peers
CUDA events (torch, CuPy) or wall time after a sync (JAX, numpy).

Columns: ms; GB/s of the bytes the operation must move (inputs read once,
outputs written once); `BW frac` = that rate over the device's copy rate
(clEnqueueCopyBuffer of the input, counted as read + write); `x memcpy` = time
over the time of copying the input array; `speedup` = against the first soac
variant of the same case. Results go to `<out>/results.json` and, when
matplotlib is installed, `<out>/*.png`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from peers import Peer, available_peers  # noqa: E402

# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


@dataclass
class Variant:
    """One soac version of a case: a program text, the passes to run, thresholds, scan strategy."""

    label: str
    text: str
    passes: str = ""
    thresholds: dict[str, int] = field(default_factory=dict)
    scan: str | None = None
    segmented: dict[str, Any] = field(default_factory=dict)
    """soac-to-kernel's options forced (`segred`, `segscan`, or any other field of `LoweringOptions`); none: the
    lowering chooses."""
    optional: bool = False
    """A failure is reported but does not fail the run (versions from passes still in progress)."""


@dataclass
class Case:
    bench: str
    name: str
    params: dict[str, Any]
    args: list[Any]
    expected: list[np.ndarray]
    bytes_moved: int
    copy_bytes: int
    variants: list[Variant]
    peers: list[Peer]
    rtol: float = 0.0


@dataclass
class Row:
    bench: str
    case: str
    params: dict[str, Any]
    label: str
    kind: str
    ms: float | None
    gbs: float | None = None
    bw_frac: float | None = None
    x_memcpy: float | None = None
    speedup: float | None = None
    launches: int | None = None
    error: str | None = None
    optional: bool = False


def program_text(name: str) -> str:
    return (ROOT / "bench" / "programs" / f"{name}.mlir").read_text()


def example_text(name: str) -> str:
    return (ROOT / "examples" / f"{name}.mlir").read_text()


def fused_variants(text: str, extra: list[Variant] | None = None) -> list[Variant]:
    return [Variant("unfused", text), Variant("fused", text, "soac-fuse"), *(extra or [])]


def case_map_scan(size: int, rng: np.random.Generator, scans: list[str | None]) -> Case:
    xs = rng.integers(-100, 100, size).astype(np.int32)
    text = program_text("map_scan")
    variants = [Variant("unfused", text), Variant("fused", text, "soac-fuse")]
    for scan in scans:
        if scan:
            variants += [Variant(f"unfused/{scan}", text, "", scan=scan), Variant(f"fused/{scan}", text, "soac-fuse", scan=scan)]
    return Case(
        "map_scan",
        f"n={size}",
        {"n": size},
        [xs],
        [np.cumsum(3 * xs + 1, dtype=np.int32)],
        8 * size,
        4 * size,
        variants,
        [p for p in PEERS if p.supports("map_scan")],
    )


def case_scan_scan(size: int, rng: np.random.Generator) -> Case:
    xs = rng.integers(-100, 100, size).astype(np.int32)
    text = program_text("scan_scan")
    return Case(
        "scan_scan",
        f"n={size}",
        {"n": size},
        [xs],
        [np.cumsum(xs * xs, dtype=np.int32), np.maximum.accumulate(xs)],
        12 * size,
        4 * size,
        [
            Variant("unfused", text),
            Variant("vertical", text, "soac-fuse{horizontal=false}"),
            Variant("fused", text, "soac-fuse"),
        ],
        [p for p in PEERS if p.supports("scan_scan")],
    )


def case_scan_reduce(size: int, rng: np.random.Generator, lookback: bool) -> Case:
    """Two reductions and a scan of one mapped input: the prefix sums, the sum and the max of 3x+1, fused into one
    scanomap with a reduction part. `fused` runs it as one look-back kernel where the scan strategy is `lookback`,
    `split` as a scanomap and a redomap (two kernels, the input read twice), `unfused` as a scan and two reductions;
    with `lookback`, `fused/lookback` forces the look-back strategy (the one-kernel version on PoCL, whose default is
    `chunked`)."""
    xs = rng.integers(-100, 100, size).astype(np.int32)
    ys = 3 * xs + 1
    text = program_text("scan_reduce")
    return Case(
        "scan_reduce",
        f"n={size}",
        {"n": size},
        [xs],
        [np.cumsum(ys, dtype=np.int32), np.asarray(np.sum(ys, dtype=np.int32)), np.asarray(ys.max())],
        8 * size,
        4 * size,
        [
            Variant("split", text, "soac-fuse,soac-split-scan-reduce"),  # first: `speedup` is against it
            Variant("fused", text, "soac-fuse"),
            Variant("unfused", text),
            *([Variant("fused/lookback", text, "soac-fuse", scan="lookback")] if lookback else []),
        ],
        [p for p in PEERS if p.supports("scan_reduce")],
    )


def case_scan_reduce_ordered(size: int, rng: np.random.Generator, lookback: bool) -> Case:
    """A scan and a non-commutative reduction part (the last non-zero element, the count of non-zero elements):
    the one-kernel version takes contiguous tiles; `split` runs a scanomap and a redomap."""
    xs = np.where(rng.random(size) < 0.5, 0, rng.integers(-100, 100, size)).astype(np.int32)
    nonzero = np.flatnonzero(xs)
    text = program_text("scan_reduce_ordered")
    return Case(
        "scan_reduce",
        f"ordered n={size}",
        {"n": size},
        [xs],
        [
            np.cumsum(xs, dtype=np.int32),
            np.asarray(xs[nonzero[-1]] if nonzero.size else 0, np.int32),
            np.asarray(nonzero.size, np.int32),
        ],
        8 * size,
        4 * size,
        [
            Variant("split", text, "soac-split-scan-reduce"),
            Variant("fused", text),
            *([Variant("fused/lookback", text, scan="lookback")] if lookback else []),
        ],
        [],
    )


def case_sum(size: int, rng: np.random.Generator) -> Case:
    xs = rng.integers(-100, 100, size).astype(np.int32)
    text = program_text("sum")
    return Case(
        "sum",
        f"n={size}",
        {"n": size},
        [xs],
        [np.asarray(np.sum(3 * xs + 1, dtype=np.int32))],
        4 * size,
        4 * size,
        fused_variants(text),
        [p for p in PEERS if p.supports("sum")],
    )


def case_radix(size: int, rng: np.random.Generator) -> Case:
    xs = rng.integers(0, 2**31, size).astype(np.int32)
    text = program_text("radix_sort")
    return Case(
        "radix_sort",
        f"n={size}",
        {"n": size},
        [xs],
        [np.sort(xs.view(np.uint32)).view(np.int32)],
        8 * size,
        4 * size,
        fused_variants(text),
        [p for p in PEERS if p.supports("radix_sort")],
    )


def case_seg(kind: str, total: int, seglen: int, rng: np.random.Generator) -> Case:
    m = total // seglen
    xss = rng.integers(-100, 100, (m, seglen)).astype(np.int32)
    text = program_text(kind)
    expected = xss.sum(axis=1, dtype=np.int32) if kind == "segred" else np.cumsum(xss, axis=1, dtype=np.int32)
    text = text.replace("LEVEL", "thread")
    forced = ("teams",) if kind == "segred" else ("group",)
    variants = [Variant("auto", text), *(Variant(s, text, segmented={kind: s}) for s in forced)]
    if seglen <= 4096:
        variants.append(Variant("thread", text, segmented={kind: "thread"}))
    return Case(
        kind,
        f"len={seglen}",
        {"segments": m, "seglen": seglen, "total": total},
        [xss],
        [expected],
        4 * total + 4 * expected.size,
        4 * total,
        variants,
        [p for p in PEERS if p.supports(kind)],
    )


def case_matmul(n: int, k: int, m: int, rng: np.random.Generator) -> Case:
    a = rng.uniform(-1, 1, (n, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, m)).astype(np.float32)
    text = example_text("matmul")
    return Case(
        "matmul",
        f"{n}x{k}x{m}",
        {"n": n, "k": k, "m": m, "flops": 2 * n * k * m},
        [a, b],
        [a @ b],
        4 * (n * k + k * m + n * m),
        4 * (n * k + k * m + n * m),
        [*flatten_variants(text), Variant("tiled", text, "soac-fuse,soac-flatten,soac-tile")],
        [p for p in PEERS if p.supports("matmul")],
        rtol=1e-3,
    )


def case_locvol(rows: int, cols: int, steps: int, rng: np.random.Generator) -> Case:
    u0 = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    a = rng.uniform(-0.9, 0.9, cols).astype(np.float32)
    expected = locvol_reference(u0, a, steps)
    text = example_text("locvolcalib")
    return Case(
        "locvolcalib",
        f"{rows}x{cols}x{steps}",
        {"rows": rows, "cols": cols, "steps": steps},
        [u0, a, np.int64(steps)],
        [expected],
        8 * rows * cols * steps,
        4 * rows * cols,
        flatten_variants(text),
        [p for p in PEERS if p.supports("locvolcalib")],
        rtol=1e-3,
    )


def locvol_reference(u0: np.ndarray, a: np.ndarray, steps: int) -> np.ndarray:
    u = u0.copy()
    for _ in range(steps):
        ys = np.empty_like(u)
        ys[:, 0] = u[:, 0]
        for j in range(1, u.shape[1]):
            ys[:, j] = u[:, j] + a[j] * ys[:, j - 1]
        u = ys / np.maximum.accumulate(np.maximum(np.float32(1), np.abs(ys)), axis=1)
    return u


def flatten_variants(text: str) -> list[Variant]:
    """unfused, fused, and, when soac-flatten exists, its versions with every threshold at 0 (parallel) or at its top."""
    variants = fused_variants(text)
    try:
        from soac.passes.soac_flatten import SoacFlattenPass  # noqa: F401
    except ImportError:
        return variants
    variants.append(Variant("flattened", text, "soac-fuse,soac-flatten", optional=True))
    variants.append(Variant("flattened/all-inner", text, "soac-fuse,soac-flatten", thresholds={"*": 0}, optional=True))
    variants.append(Variant("flattened/outer-only", text, "soac-fuse,soac-flatten", thresholds={"*": 2**62}, optional=True))
    return variants


# ---------------------------------------------------------------------------
# Running soac programs
# ---------------------------------------------------------------------------


class Timed:
    """A compiled program whose kernel launches and copies are timed with OpenCL profiling events."""

    def __init__(self, variant: Variant, device: Any, group_size: int | None = None, max_groups: int | None = None):
        import pyopencl as cl
        from soac.context import make_context
        from soac.lowering.runtime import compile_module
        from soac.parsing import parse_module
        from soac.passes import get_all_passes
        from xdsl.passes import PassPipeline

        self.cl = cl
        module = parse_module(make_context(), variant.text, variant.label)
        if variant.passes:
            PassPipeline.parse_spec(get_all_passes(), variant.passes).apply(make_context(), module)
        self.module = module
        self.thresholds = self._thresholds(variant.thresholds)
        self.program = compile_module(
            module, device, group_size=group_size, scan=variant.scan, max_groups=max_groups, **variant.segmented
        )
        program = self.program
        program.queue = cl.CommandQueue(program.context, program.device, properties=cl.command_queue_properties.PROFILING_ENABLE)
        self.events: list[Any] = []
        events = self.events

        def recording(kernel: Any) -> Any:
            def launch(*args: Any) -> Any:
                event = kernel(*args)
                events.append(event)
                return event

            return launch

        program.kernels = {name: recording(kernel) for name, kernel in program.kernels.items()}

        def copy(count: Any, source: Any, source_offset: Any, dest: Any, dest_offset: Any) -> None:
            size = source.dtype.itemsize
            if int(count) == 0:
                return
            events.append(
                cl.enqueue_copy(
                    program.queue,
                    dest.buffer,
                    source.buffer,
                    byte_count=int(count) * size,
                    src_offset=int(source_offset) * size,
                    dst_offset=int(dest_offset) * size,
                )
            )

        program.copy = copy  # pyright: ignore[reportAttributeAccessIssue]

    def keep_on_device(self) -> None:
        """For the timed calls: upload each input once and leave the results on the device (not timed either way)."""
        program = self.program
        binders_of, uploaded = program.binders_of, {}

        def caching(name: str, k: int, bind: Any) -> Any:
            def bound(arg: Any) -> list[Any]:
                key = (name, k, id(arg))
                if key not in uploaded:
                    uploaded[key] = (arg, bind(arg))
                return uploaded[key][1]

            return bound

        def cached_binders(name: str, inputs: Any) -> tuple[Any, ...]:
            return tuple(caching(name, k, bind) for k, bind in enumerate(binders_of(name, inputs)))

        program.binders_of = cached_binders  # pyright: ignore[reportAttributeAccessIssue]
        program._unbind = lambda types, flat: flat  # pyright: ignore[reportAttributeAccessIssue]

    def _thresholds(self, wanted: dict[str, int]) -> dict[str, int]:
        if "*" not in wanted:
            return wanted
        from soac.dialect import ThresholdOp

        names = {op.threshold_name for op in self.module.walk() if isinstance(op, ThresholdOp)}  # pyright: ignore[reportAttributeAccessIssue]
        return {name: wanted["*"] for name in names}

    def run(self, args: list[Any]) -> tuple[float, list[Any], int]:
        self.events.clear()
        results = self.program.call("main", args, self.thresholds)
        kernel_ms = sum(e.profile.end - e.profile.start for e in self.events) * 1e-6
        return kernel_ms, list(results), len(self.events)


def variant_inputs(options: argparse.Namespace) -> tuple[Any, np.random.Generator, np.ndarray, float]:
    """For the scripts that time variants of one kernel (`--device`, `--log2-size`, `--runs`): the device, a random
    generator, a random int32 input of 2^log2-size elements and the time to copy it; prints the run's first line."""
    from soac.lowering.runtime import choose_device

    device = choose_device(options.device)
    rng = np.random.default_rng(0)
    n = 2**options.log2_size
    xs = rng.integers(-100, 100, n).astype(np.int32)
    memcpy = copy_ms(device, 4 * n, 9)
    print(f"device: {device.name}; n = 2^{options.log2_size}; memcpy {memcpy:.3f} ms; runs {options.runs}", flush=True)
    return device, rng, xs, memcpy


def copy_ms(device: Any, nbytes: int, runs: int) -> float:
    import pyopencl as cl
    from soac.lowering.runtime.program import _context  # pyright: ignore[reportPrivateUsage]

    context, _ = _context(device)
    queue = cl.CommandQueue(context, device, properties=cl.command_queue_properties.PROFILING_ENABLE)
    src = cl.Buffer(context, cl.mem_flags.READ_WRITE, nbytes)
    dst = cl.Buffer(context, cl.mem_flags.READ_WRITE, nbytes)
    cl.enqueue_fill_buffer(queue, src, np.int32(1), 0, nbytes).wait()
    times = []
    for _ in range(runs + 1):
        event = cl.enqueue_copy(queue, dst, src, byte_count=nbytes)
        event.wait()
        times.append((event.profile.end - event.profile.start) * 1e-6)
    return float(np.median(times[1:]))


def same(expected: np.ndarray, got: Any, rtol: float) -> bool:
    got = np.asarray(got)
    if got.shape != expected.shape:
        return False
    if rtol:
        return bool(np.allclose(got, expected, rtol=rtol, atol=rtol))
    return bool(np.array_equal(got, expected))


# ---------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------

PEERS: list[Peer] = []


def build_cases(options: argparse.Namespace, rng: np.random.Generator) -> list[Case]:
    wanted = set(options.only.split(",")) if options.only else None
    mode = options.mode
    big = {"smoke": 12, "cpu": 24, "gpu": 28}[mode] if options.log2_size is None else options.log2_size
    sweep_total = {"smoke": 2**12, "cpu": 2**22, "gpu": 2**27}[mode]
    seglens = [4**k * 16 for k in range(11)]  # 16 ... 2^24
    seglens = [s for s in seglens if s <= sweep_total]
    if mode == "smoke":
        seglens = [16, 256, 4096]
    radix_sizes = {"smoke": [1000], "cpu": [10**5], "gpu": [10**7, 10**8]}[mode]
    matmul_shapes = {
        "smoke": [(16, 16, 16)],
        "cpu": [(64, 64, 64), (256, 256, 256)],
        "gpu": [(32, 65536, 32), (256, 4096, 256), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 64, 4096)],
    }[mode]
    locvol = {"smoke": [(8, 16, 2)], "cpu": [(128, 256, 4)], "gpu": [(256, 256, 64), (4096, 256, 16)]}[mode]
    scans = [None] + (["reduce-then-scan"] if mode == "gpu" else ["lookback"] if mode == "smoke" else [])

    builders: list[tuple[str, Callable[[], list[Case]]]] = [
        ("map_scan", lambda: [case_map_scan(2**big, rng, scans)]),
        ("scan_scan", lambda: [case_scan_scan(2**big, rng)]),
        ("sum", lambda: [case_sum(2**big, rng)]),
        (
            "scan_reduce",
            lambda: [
                case_scan_reduce(2**big, rng, lookback=mode != "gpu"),
                case_scan_reduce_ordered(2**big, rng, lookback=mode != "gpu"),
            ],
        ),
        ("radix_sort", lambda: [case_radix(n, rng) for n in radix_sizes]),
        ("segred", lambda: [case_seg("segred", sweep_total, s, rng) for s in seglens]),
        ("segscan", lambda: [case_seg("segscan", sweep_total, s, rng) for s in seglens]),
        ("matmul", lambda: [case_matmul(*shape, rng) for shape in matmul_shapes]),
        ("locvolcalib", lambda: [case_locvol(*shape, rng) for shape in locvol]),
    ]
    cases: list[Case] = []
    for name, build in builders:
        if wanted is None or name in wanted:
            cases.extend(build())
    return cases


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_case(  # noqa: C901
    case: Case, device: Any, options: argparse.Namespace, memcpy: dict[int, float]
) -> list[Row]:
    rows: list[Row] = []
    if case.copy_bytes not in memcpy:
        memcpy[case.copy_bytes] = copy_ms(device, case.copy_bytes, max(options.runs, 5))
    copy = memcpy[case.copy_bytes]
    copy_rate = 2 * case.copy_bytes / copy  # bytes per ms

    def row(label: str, kind: str, ms: float | None, launches: int | None = None, error: str | None = None) -> Row:
        r = Row(case.bench, case.name, case.params, label, kind, ms, launches=launches, error=error)
        if ms:
            r.gbs = case.bytes_moved / ms / 1e6
            r.bw_frac = case.bytes_moved / ms / copy_rate
            r.x_memcpy = ms / copy
        return r

    runs = options.runs if case.bytes_moved >= 2**20 or options.mode == "smoke" else max(options.runs, 10)
    wanted = set(options.variants.split(",")) if options.variants else None
    for variant in case.variants:
        if wanted is not None and variant.label not in wanted:
            continue
        start = time.perf_counter()
        try:
            timed = Timed(variant, device, options.group_size)
            first_ms, results, launches = timed.run(case.args)
            for e, g in zip(case.expected, results, strict=True):
                if not same(e, g, case.rtol) and not os.environ.get("SOAC_BENCH_NO_CHECK"):
                    raise AssertionError(f"wrong result (got {np.asarray(g).ravel()[:6]}, expected {e.ravel()[:6]})")
            timed.keep_on_device()
            times = [first_ms] if runs <= 1 else [timed.run(case.args)[0] for _ in range(runs)]
            rows.append(row(variant.label, "soac", float(np.median(times)), launches))
        except Exception as error:
            rows.append(row(variant.label, "soac", None, error=f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"))
            rows[-1].optional = variant.optional
        progress(f"  {case.bench} {case.name} {variant.label}: {_fmt(rows[-1])} ({time.perf_counter() - start:.1f} s)")
    if not options.no_peers:
        for peer in case.peers:
            start = time.perf_counter()
            try:
                cpu_runs = 1 if case.bytes_moved > 2**29 else min(runs, 3)
                ms, result = peer.time(case.bench, case.args, runs if peer.kind == "gpu" else cpu_runs)
                ok = all(same(e, g, case.rtol or (1e-3 if e.dtype.kind == "f" else 0)) for e, g in zip(case.expected, result))
                rows.append(row(peer.name, peer.kind, ms, error=None if ok else "wrong result"))
            except Exception as error:
                rows.append(row(peer.name, peer.kind, None, error=f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"))
            progress(f"  {case.bench} {case.name} {peer.name}: {_fmt(rows[-1])} ({time.perf_counter() - start:.1f} s)")
    rows.append(row("memcpy (clEnqueueCopyBuffer)", "baseline", copy))
    rows[-1].gbs, rows[-1].bw_frac = copy_rate / 1e6, 1.0
    first = next((r.ms for r in rows if r.kind == "soac" and r.ms), None)
    for r in rows:
        if r.ms and first:
            r.speedup = first / r.ms
    return rows


def _fmt(r: Row) -> str:
    return f"{r.ms:.3f} ms" if r.ms else f"FAILED {r.error}"


def _num(value: float | None, width: int, digits: int) -> str:
    return f"{value:{width}.{digits}f}" if value is not None else " " * (width - 1) + "-"


def table(rows: list[Row]) -> str:
    lines = []
    header = (
        f"{'benchmark':12} {'case':18} {'variant / peer':34} {'ms':>10} {'GB/s':>8} {'BW frac':>8} {'x memcpy':>9} {'speedup':>8}"
    )
    lines.append(header)
    lines.append("-" * len(header))
    last = None
    for r in rows:
        key = (r.bench, r.case)
        if last is not None and key != last:
            lines.append("")
        last = key
        if r.ms is None:
            lines.append(f"{r.bench:12} {r.case:18} {r.label:34} {'FAILED':>10}  {r.error}")
            continue
        cells = [_num(r.ms, 10, 3), _num(r.gbs, 8, 1), _num(r.bw_frac, 8, 2), _num(r.x_memcpy, 9, 2), _num(r.speedup, 8, 2)]
        flag = "" if r.error is None else f"  ({r.error})"
        lines.append(f"{r.bench:12} {r.case:18} {r.label:34} {' '.join(cells)}{flag}")
    return "\n".join(lines)


def plots(rows: list[Row], out: Path) -> list[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        progress("matplotlib is not installed: no plots")
        return []
    written = []
    for bench, x_key in (("segred", "seglen"), ("segscan", "seglen")):
        selected = [r for r in rows if r.bench == bench and r.ms and r.kind != "baseline"]
        if not selected:
            continue
        fig, ax = plt.subplots(figsize=(7, 4))
        for label in dict.fromkeys(r.label for r in selected):
            points = sorted((r.params[x_key], r.bw_frac) for r in selected if r.label == label)
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("segment length")
        ax.set_ylabel("fraction of memcpy bandwidth")
        ax.axhline(1.0, color="grey", linewidth=0.5)
        ax.set_title(f"{bench}: {selected[0].params['total']} int32 in total")
        ax.legend(fontsize=7)
        path = out / f"{bench}.png"
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(str(path))
    summary = [r for r in rows if r.bench in ("map_scan", "scan_scan", "sum", "scan_reduce") and r.ms and r.kind != "baseline"]
    if summary:
        fig, ax = plt.subplots(figsize=(8, 4))
        labels = [f"{r.bench}\n{r.label}" for r in summary]
        ax.barh(range(len(summary)), [r.x_memcpy for r in summary])
        ax.set_yticks(range(len(summary)), labels, fontsize=6)
        ax.set_xlabel("time / memcpy time of the input")
        ax.invert_yaxis()
        path = out / "bandwidth.png"
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(str(path))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--gpu", dest="mode", action="store_const", const="gpu", help="full sizes on the GPU (default)")
    group.add_argument("--cpu", dest="mode", action="store_const", const="cpu", help="PoCL on the CPU, medium sizes")
    group.add_argument("--smoke", dest="mode", action="store_const", const="smoke", help="tiny sizes on PoCL (CI)")
    parser.add_argument(
        "--only",
        help="comma-separated benchmarks: map_scan,scan_scan,sum,scan_reduce,radix_sort,segred,segscan,matmul,locvolcalib",
    )
    parser.add_argument("--runs", type=int, default=None, help="timed calls per variant (median)")
    parser.add_argument("--log2-size", type=int, default=None, help="log2 of the 1-D sizes (default 28 on the GPU)")
    parser.add_argument("--device", default=None, help="OpenCL device (see soac.lowering.runtime.choose_device)")
    parser.add_argument("--out", default=None, help="folder for results.json and plots (default bench/out-<mode>)")
    parser.add_argument("--no-peers", action="store_true", help="time soac only")
    parser.add_argument("--peers", help="comma-separated peers to time (by the start of their names), e.g. cub,torch")
    parser.add_argument("--group-size", type=int, default=None, help="work-group size (default: the runtime's)")
    parser.add_argument("--variants", help="comma-separated soac variants to run (default: all), e.g. fused,group")
    options = parser.parse_args(argv)
    options.mode = options.mode or "gpu"
    options.runs = options.runs or {"smoke": 1, "cpu": 3, "gpu": 10}[options.mode]
    device_spec = options.device or {"smoke": "pocl", "cpu": "pocl", "gpu": None}[options.mode]

    from soac.lowering.runtime import choose_device, scan_strategy_for

    device = choose_device(device_spec)
    peers = available_peers(gpu=options.mode == "gpu", smoke=options.mode == "smoke" or options.no_peers)
    if options.peers:
        wanted = [w.lower() for w in options.peers.split(",")]
        peers = [p for p in peers if any(p.name.lower().startswith(w) for w in wanted)]
    PEERS.extend(peers)
    out = Path(options.out or ROOT / "bench" / f"out-{options.mode}")
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    progress(f"device: {device.platform.name} / {device.name}; default scan: {scan_strategy_for(device)}")
    progress(f"peers: {', '.join(p.name for p in PEERS) or 'none'}")
    started = time.perf_counter()
    cases = build_cases(options, rng)
    rows: list[Row] = []
    memcpy: dict[int, float] = {}
    for k, case in enumerate(cases, 1):
        progress(f"[{k}/{len(cases)}] {case.bench} {case.name}")
        rows.extend(run_case(case, device, options, memcpy))
    text = table(rows)
    header = (
        f"device: {device.name} ({device.platform.name}, {device.version}); host: {platform.node()}; "
        f"date: {datetime.now(UTC).isoformat(timespec='seconds')}; command: {' '.join(sys.argv)}"
    )
    print(header)
    print(text)
    report = {
        "device": device.name,
        "platform": device.platform.name,
        "default_scan": scan_strategy_for(device),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join(sys.argv),
        "mode": options.mode,
        "seconds": time.perf_counter() - started,
        "rows": [asdict(r) for r in rows],
        "env": {k: v for k, v in os.environ.items() if k.startswith("SOAC_")},
    }
    (out / "results.json").write_text(json.dumps(report, indent=1, default=str))
    (out / "table.txt").write_text(header + "\n" + text + "\n")
    for path in plots(rows, out):
        progress(f"wrote {path}")
    failed = [r for r in rows if r.kind == "soac" and r.ms is None and not r.optional]
    progress(f"done in {time.perf_counter() - started:.1f} s; {len(failed)} soac variants failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
