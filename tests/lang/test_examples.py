"""The programs of examples/python/ against numpy on both backends, and the embedded map->scan against the
hand-written examples/map_scan.mlir: the same OpenCL C, character for character."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import soac.lang as sl
from soac.context import make_context
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module
from soac.passes import DEFAULT_PIPELINE
from soac.tools.soac_test import all_passes
from xdsl.passes import PassPipeline

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
RNG = np.random.default_rng(15)


def example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"lang_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def inputs(name: str) -> list[tuple[object, ...]]:
    """Two datasets per example (of one type, of different sizes), edge cases included."""
    ints = RNG.integers(-1000, 1000, 1000).astype(np.int32)
    if name in ("map_scan", "scanomap_scanomap"):
        return [(ints,), (np.zeros(0, np.int32),)]
    if name == "matmul":
        return [
            (RNG.random((17, 9), np.float32), RNG.random((9, 23), np.float32)),
            (np.ones((1, 3), np.float32), np.ones((3, 2), np.float32)),
        ]
    if name == "histogram":
        values = RNG.uniform(-0.1, 1.1, 2000).astype(np.float32)
        return [(values, 16), (values[:5], 3)]
    if name == "kmeans":  # points in clusters, k centres; k = 1; one coordinate; a centre no point is nearest to
        points = (RNG.random((600, 3), np.float32) + RNG.integers(0, 4, (600, 1)).astype(np.float32)).astype(np.float32)
        far = np.array([[0.5], [1.5], [100.0]], np.float32)
        return [(points, points[:5].copy()), (points, points[:1].copy()), (points[:40, :1].copy(), far)]
    if name == "histeq":  # an 8-bit image, levels 0 and 255 and a flat image included
        image = np.clip(RNG.normal(100, 30, (40, 30)), 0, 255).astype(np.uint8)
        image[0, :2] = (0, 255)
        return [(image,), (np.full((3, 4), 200, np.uint8),)]
    keys = RNG.integers(0, 2**32, 300, dtype=np.uint32)
    return [(keys,), (np.array([3, 2**32 - 1, 0, 2**31 - 1, 2**31, 3], np.uint32),)]


NAMES = ["map_scan", "scanomap_scanomap", "matmul", "histogram", "radix_sort", "kmeans", "histeq"]


@pytest.mark.parametrize("backend", ["interp", "opencl"])
@pytest.mark.parametrize("name", NAMES)
def test_example_against_numpy(name: str, backend: str) -> None:
    module = example(name)
    f = sl.jit(getattr(module, name), backend=backend)
    for args in inputs(name):
        got = f(*args)
        expected = module.reference(*args)
        for g, e in zip(got if isinstance(got, tuple) else (got,), expected if isinstance(expected, tuple) else (expected,)):
            assert g.dtype == e.dtype
            np.testing.assert_allclose(g, e, rtol=1e-5)
    assert len(f.specializations) == 1


def test_fusion_is_visible_in_the_ir() -> None:
    f = sl.jit(example("scanomap_scanomap").scanomap_scanomap, backend="interp")
    xs = np.arange(4, dtype=np.int32)
    assert f.ir(xs).count("soac.scan ") == 2
    optimized = f.ir(xs, optimized=True)
    assert optimized.count("soac.scanomap ") == 1
    assert "soac.scan " not in optimized
    assert "soac.map " not in optimized


def test_embedded_map_scan_gives_the_opencl_of_the_hand_written_program() -> None:
    """Same fused scanomap, same kernels: the generated OpenCL C is identical (the Python names are the IR's)."""
    f = sl.jit(example("map_scan").map_scan, name="main")
    xs = np.arange(100, dtype=np.int32)
    np.testing.assert_array_equal(f(xs), np.cumsum(3 * xs + 1))
    ctx = make_context()
    path = ROOT / "examples" / "map_scan.mlir"
    module = parse_module(ctx, path.read_text(), str(path))
    PassPipeline.parse_spec(all_passes(), DEFAULT_PIPELINE).apply(ctx, module)
    hand_written = compile_module(module).source
    assert "__kernel" in hand_written
    assert f.opencl() == hand_written


def test_examples_run_as_scripts() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / "map_scan.py")], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[ 4 11 21 34] [ 4 11 21 34]"


def test_inspecting_a_program_found_on_disk_and_the_kernels_of_an_interpreted_one() -> None:
    f = sl.jit(example("map_scan").map_scan, backend="interp")
    xs = np.arange(8, dtype=np.int32)
    f(xs)
    again = sl.jit(example("map_scan").map_scan, backend="interp")  # found on disk: the IR is parsed back
    hits = sl.cache_stats.disk_hits
    np.testing.assert_array_equal(again(xs), f(xs))
    assert sl.cache_stats.disk_hits == hits + 1
    assert again.ir(optimized=True) == f.ir(optimized=True)
    assert "soac.scanomap" in again.ir(optimized=True)
    assert again.ir() == f.ir()
    assert "__kernel void map_scan_" in again.opencl()
