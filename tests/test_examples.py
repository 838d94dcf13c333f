"""The programs in examples/: they round-trip through soac-opt, and compute what their comments say.

Each example runs under the interpreter on inputs chosen here, as written and
after each pass pipeline, and is compared with an independent numpy
computation. The `soac-run` command quoted in each example's header runs, with
the interpreter and with the OpenCL backend, and prints the results the header
shows.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function
from soac.parsing import parse_module
from soac.passes import get_all_passes
from soac.tools.soac_opt import SoacOptMain
from soac.tools.soac_run import run as soac_run
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stencil_reference  # pyright: ignore[reportMissingImports]

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
EXAMPLE_NAMES = sorted(path.name for path in EXAMPLES.glob("*.mlir"))

# Runs an example's @main on some inputs: run("map_scan.mlir", xs) -> results.
Runner = Callable[..., tuple[Any, ...]]


def soac_opt(tmp_path: Path, source: str | Path, *options: str) -> str:
    """What `soac-opt SOURCE OPTIONS...` prints (run in-process: it is the same code)."""
    if not isinstance(source, Path):
        (source_path := tmp_path / "input.mlir").write_text(source)
        source = source_path
    out = tmp_path / "output.mlir"
    SoacOptMain(args=[str(source), *options, "-o", str(out)]).run()
    return out.read_text()


def load(name: str, pipeline: str = "") -> ModuleOp:
    """An example, transformed by a `soac-opt -p` pipeline if one is given."""
    path = EXAMPLES / name
    ctx = make_context()
    module = parse_module(ctx, path.read_text(), str(path))
    if pipeline:
        PassPipeline.parse_spec(get_all_passes(), pipeline).apply(ctx, module)
        module.verify()
    return module


# ---------------------------------------------------------------------------
# Round trips and the documented commands
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_round_trip(name: str, tmp_path: Path) -> None:
    """custom → generic → custom gives the same text, and printing is a fixed point."""
    custom = soac_opt(tmp_path, EXAMPLES / name)
    generic = soac_opt(tmp_path, EXAMPLES / name, "--print-op-generic")
    assert '"soac.' in generic
    assert soac_opt(tmp_path, generic) == custom
    assert soac_opt(tmp_path, custom) == custom


def documented_run(name: str) -> tuple[list[str], list[str]]:
    """The `soac-run` arguments in an example's header and the result lines it shows."""
    header = [line.removeprefix("//").strip() for line in (EXAMPLES / name).read_text().splitlines() if line.startswith("//")]
    commands = [line for line in header if line.startswith("soac-run ")]
    assert len(commands) == 1, f"{name} must show exactly one soac-run command in its header"
    shown: list[str] = []
    for line in header[header.index(commands[0]) + 1 :]:
        if line.startswith("result #"):
            shown.append(line)
        elif shown and line.startswith("["):
            shown[-1] += " " + line
        else:
            break
    assert shown, f"{name} must show the results of its soac-run command"
    return shlex.split(commands[0])[1:], shown


@pytest.mark.parametrize("backend", ["interp", "opencl"])
@pytest.mark.parametrize("name", EXAMPLE_NAMES)
@pytest.mark.slow
def test_documented_command(name: str, backend: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The command runs in-process (`soac-run`'s own `run`, as `soac_opt` above): a new Python per command would
    spend more time importing than running."""
    args, shown = documented_run(name)
    monkeypatch.chdir(ROOT)
    try:
        soac_run([*args, "--backend", backend])
    except SystemExit as exit:
        pytest.fail(f"soac-run exited with {exit.code}: {capsys.readouterr().err}")
    printed = [re.sub(r"\s+", " ", line) for line in re.split(r"\n(?=result #)", capsys.readouterr().out.strip())]
    assert printed == [re.sub(r"\s+", " ", line) for line in shown]


def test_every_example_is_checked() -> None:
    assert set(EXAMPLE_NAMES) == set(CHECKS), "add a numpy check for every example"


# ---------------------------------------------------------------------------
# Semantics against numpy
# ---------------------------------------------------------------------------


def random() -> np.random.Generator:
    return np.random.default_rng(1234)


def check_map_scan(run: Runner) -> None:
    xs = random().integers(-1000, 1000, 1000, dtype=np.int32)
    (sums,) = run("map_scan.mlir", xs)
    np.testing.assert_array_equal(sums, np.cumsum(3 * xs + 1, dtype=np.int32))


def check_scanomap_scanomap(run: Runner) -> None:
    inp = random().integers(-100, 100, 777, dtype=np.int32)
    sums, maxs = run("scanomap_scanomap.mlir", inp)
    np.testing.assert_array_equal(sums, np.cumsum(inp * inp, dtype=np.int32))
    np.testing.assert_array_equal(maxs, np.maximum.accumulate(inp))


def check_radix_sort_step(run: Runner) -> None:
    xs = random().integers(np.iinfo(np.int32).min, np.iinfo(np.int32).max, 500, dtype=np.int32)
    for digit in (0, 5, 31):
        bits = (xs.view(np.uint32) >> digit) & 1
        (out,) = run("radix_sort_step.mlir", xs, np.int32(digit))
        np.testing.assert_array_equal(out, np.concatenate([xs[bits == 0], xs[bits == 1]]))


def check_radix_sort_sorts(run: Runner) -> None:
    """32 steps, one per bit, sort u32 data."""
    xs = random().integers(0, 2**32, 200, dtype=np.uint32).view(np.int32)
    out = xs
    for digit in range(32):
        (out,) = run("radix_sort_step.mlir", out, np.int32(digit))
    np.testing.assert_array_equal(np.asarray(out).view(np.uint32), np.sort(xs.view(np.uint32)))


def check_radix_sort(run: Runner) -> None:
    """u32 order: keys with the top bit set (negative as i32) come last; duplicates, n = 0 and 1."""
    rng = random()
    for xs in (
        rng.integers(0, 2**32, 1000, dtype=np.uint32).view(np.int32),
        rng.choice(np.array([5, -1, 1 << 20, 5, -(2**31)], np.int32), 300),
        np.zeros(0, np.int32),
        np.array([-7], np.int32),
    ):
        (out,) = run("radix_sort.mlir", xs)
        np.testing.assert_array_equal(np.asarray(out).view(np.uint32), np.sort(xs.view(np.uint32)))


def check_radix_sort_partition(run: Runner, name: str = "radix_sort_partition.mlir") -> None:
    """The sort on soac.partition: u32 order, duplicates, n = 0 and 1."""
    rng = random()
    for xs in (
        rng.integers(0, 2**32, 1000, dtype=np.uint32).view(np.int32),
        rng.choice(np.array([5, -1, 1 << 20, 5, -(2**31)], np.int32), 300),
        np.zeros(0, np.int32),
        np.array([-7], np.int32),
    ):
        (out,) = run(name, xs)
        np.testing.assert_array_equal(np.asarray(out).view(np.uint32), np.sort(xs.view(np.uint32)))


def check_radix_sort_onesweep(run: Runner) -> None:
    """The same sort with an upfront histogram of all digit places, each partition given its counts."""
    check_radix_sort_partition(run, "radix_sort_onesweep.mlir")


def check_radix_sort_pairs(run: Runner) -> None:
    """Pairs sorted stably by u32 key: with values 0..n-1, numpy's stable argsort."""
    rng = random()
    for xs in (rng.integers(0, 2**32, 1000, dtype=np.uint32).view(np.int32), np.full(77, 9, np.int32)):
        keys, values = run("radix_sort_pairs.mlir", xs, np.arange(len(xs), dtype=np.int32))
        order = np.argsort(xs.view(np.uint32), kind="stable")
        np.testing.assert_array_equal(keys, xs[order])
        np.testing.assert_array_equal(values, order)


def check_matmul(run: Runner) -> None:
    rng = random()
    a = rng.standard_normal((13, 7), dtype=np.float32)
    b = rng.standard_normal((7, 9), dtype=np.float32)
    (c,) = run("matmul.mlir", a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def check_all_pairs(run: Runner) -> None:
    xs = random().standard_normal(300, dtype=np.float32)
    (sums,) = run("all_pairs.mlir", xs)
    expected = xs.astype(np.float64).sum() + len(xs) * xs.astype(np.float64)
    np.testing.assert_allclose(sums, expected, rtol=1e-4, atol=1e-3)


def check_nbody(run: Runner) -> None:
    rng = random()
    xs, ys, zs = (rng.standard_normal(120, dtype=np.float32) for _ in range(3))
    ms = rng.random(120, dtype=np.float32)
    vx, vy, vz = (rng.standard_normal(120, dtype=np.float32) for _ in range(3))
    dt = np.float32(0.01)
    d = np.stack([xs, ys, zs])[:, None, :].astype(np.float64) - np.stack([xs, ys, zs])[:, :, None]
    r2 = (d * d).sum(0) + 1e-4
    accel = (d * (ms[None, :] / (r2 * np.sqrt(r2)))[None]).sum(2)
    got = run("nbody.mlir", xs, ys, zs, ms, vx, vy, vz, dt)
    for v, a, g in zip((vx, vy, vz), accel, got):
        np.testing.assert_allclose(g, v + dt * a, rtol=1e-4, atol=1e-3)


def check_sum_rows(run: Runner) -> None:
    xss = random().standard_normal((20, 33), dtype=np.float32)
    (sums,) = run("sum_rows.mlir", xss)
    np.testing.assert_allclose(sums, xss.sum(axis=1), rtol=1e-5, atol=1e-5)


def locvolcalib_reference(u: np.ndarray, a: np.ndarray, steps: int) -> np.ndarray:
    u = u.astype(np.float64)
    for _ in range(steps):
        ys = u.copy()
        for j in range(1, u.shape[1]):
            ys[:, j] = u[:, j] + a[j] * ys[:, j - 1]
        u = ys / np.maximum.accumulate(np.maximum(1.0, np.abs(ys)), axis=1)
    return u


def check_locvolcalib(run: Runner) -> None:
    rng = random()
    u0 = rng.standard_normal((6, 17), dtype=np.float32)
    a = rng.uniform(-0.9, 0.9, 17).astype(np.float32)
    for steps in (0, 1, 4):
        (u,) = run("locvolcalib.mlir", u0, a, np.int64(steps))
        np.testing.assert_allclose(u, locvolcalib_reference(u0, a, steps), rtol=1e-4, atol=1e-5)


def check_inplace_update(run: Runner) -> None:
    xs = random().integers(0, 10, 300, dtype=np.int32)
    (hist,) = run("inplace_update.mlir", xs, np.int64(12))
    np.testing.assert_array_equal(hist, np.bincount(xs, minlength=12))


def check_seg_ops(run: Runner) -> None:
    xss = random().integers(-50, 50, (9, 11), dtype=np.int64)
    doubled, sums, prefix = run("seg_ops.mlir", xss)
    np.testing.assert_array_equal(doubled, 2 * xss)
    np.testing.assert_array_equal(sums, xss.sum(axis=1))
    np.testing.assert_array_equal(prefix, np.cumsum(xss, axis=1))


def check_partition(run: Runner) -> None:
    rng = random()
    for xs in (rng.integers(-100, 100, 1000, dtype=np.int32), np.zeros(0, np.int32), np.full(7, -3, np.int32)):
        filtered, parts = run("partition.mlir", xs)
        np.testing.assert_array_equal(filtered, xs[xs > 0])
        np.testing.assert_array_equal(parts, np.concatenate([xs[xs > 0], xs[xs <= 0]]))


def check_histogram(run: Runner) -> None:
    rng = random()
    for xs, k in (
        (rng.uniform(-0.5, 1.5, 5000).astype(np.float32), 37),
        (np.zeros(0, np.float32), 4),
        (np.ones(3, np.float32), 1),
    ):
        counts, sums = run("histogram.mlir", xs, np.int64(k))
        bins = np.where(xs < 0, -1, (xs * np.float32(k)).astype(np.int32))
        inside = (bins >= 0) & (bins < k)
        np.testing.assert_array_equal(counts, np.bincount(bins[inside], minlength=k))
        np.testing.assert_allclose(sums, np.bincount(bins[inside], weights=xs[inside], minlength=k), rtol=1e-4, atol=1e-4)


def check_blur(run: Runner) -> None:
    img = random().standard_normal((37, 50), dtype=np.float32)
    (blurred,) = run("blur.mlir", img)
    expected = stencil_reference.stencil(lambda *ns: sum(ns) * np.float32(1 / 9), [img], (3, 3), "clamp")
    np.testing.assert_allclose(blurred, expected, rtol=1e-5, atol=1e-5)


def check_jacobi(run: Runner) -> None:
    grid = random().standard_normal((21, 34), dtype=np.float32)
    for steps in (0, 1, 7):
        (u,) = run("jacobi.mlir", grid, np.int64(steps))
        expected = grid
        for _ in range(steps):
            expected = stencil_reference.stencil(
                lambda _nw, no, _ne, we, _c, ea, _sw, so, _se: ((no + so) + (ea + we)) * np.float32(0.25),
                [expected],
                (3, 3),
                "constant",
            )
        np.testing.assert_allclose(u, expected, rtol=1e-5, atol=1e-5)


def check_moving_average(run: Runner) -> None:
    for n in (1000, 3, 1):
        xs = random().standard_normal(n, dtype=np.float32)
        (avg,) = run("moving_average.mlir", xs)
        expected = stencil_reference.stencil(lambda *ns: sum(ns) * np.float32(0.2), [xs], (5,), "mirror")
        np.testing.assert_allclose(avg, expected, rtol=1e-5, atol=1e-5)


CHECKS: dict[str, list[Callable[[Runner], None]]] = {
    "map_scan.mlir": [check_map_scan],
    "nbody.mlir": [check_nbody],
    "scanomap_scanomap.mlir": [check_scanomap_scanomap],
    "radix_sort_step.mlir": [check_radix_sort_step, check_radix_sort_sorts],
    "radix_sort.mlir": [check_radix_sort],
    "radix_sort_partition.mlir": [check_radix_sort_partition],
    "radix_sort_onesweep.mlir": [check_radix_sort_onesweep],
    "radix_sort_pairs.mlir": [check_radix_sort_pairs],
    "histogram.mlir": [check_histogram],
    "matmul.mlir": [check_matmul],
    "all_pairs.mlir": [check_all_pairs],
    "sum_rows.mlir": [check_sum_rows],
    "locvolcalib.mlir": [check_locvolcalib],
    "inplace_update.mlir": [check_inplace_update],
    "seg_ops.mlir": [check_seg_ops],
    "partition.mlir": [check_partition],
    "blur.mlir": [check_blur],
    "jacobi.mlir": [check_jacobi],
    "moving_average.mlir": [check_moving_average],
}

# The examples keep their meaning through each pipeline (one whose passes do not exist yet is skipped).
PIPELINES = ["", "soac-fuse", "soac-flatten", "soac-fuse,soac-flatten", "soac-fuse,soac-flatten,soac-tile"]


# The flattened programs also run on OpenCL (tests/lowering/test_examples_opencl.py runs them as written;
# tests/lowering/conversion/test_flattened.py forces every version).
BACKENDS = [(pipeline, "interp") for pipeline in PIPELINES] + [(p, "opencl") for p in PIPELINES if "soac-flatten" in p]


@pytest.mark.parametrize(("pipeline", "backend"), BACKENDS, ids=lambda p: p or "as-written")
@pytest.mark.parametrize("check", [c for checks in CHECKS.values() for c in checks], ids=lambda c: c.__name__)
def test_semantics(check: Callable[[Runner], None], pipeline: str, backend: str) -> None:
    missing = [name for name in filter(None, pipeline.split(",")) if name not in get_all_passes()]
    if missing:
        pytest.skip(f"no pass {', '.join(missing)} yet")
    execute = run_function
    if backend == "opencl":
        runtime = pytest.importorskip("soac.lowering.runtime", exc_type=ImportError)
        execute = runtime.run_function
    modules: dict[str, ModuleOp] = {}

    def run(name: str, *args: Any) -> tuple[Any, ...]:
        if name not in modules:
            modules[name] = load(name, pipeline)
        return execute(modules[name], "main", list(args))

    check(run)
