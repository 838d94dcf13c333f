"""The forms of issue 30 that the simplifier makes compile, fuse and run: written as a soac.lang user writes them,
each on the interpreter and on OpenCL (PoCL), against numpy, with the structure the default pipeline gives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import soac.lang as sl
from soac.dialect import TransposeOp
from soac.interpreter.errors import SoacRuntimeError

BACKENDS = ["interp", "opencl"]
RNG = np.random.default_rng(30)


def column_sums(m):
    return sl.reduce(lambda a, b: a + b, sl.replicate(m.shape[1], 0), m)


def row_scan(m):
    return sl.scan(lambda a, b: a + b, sl.replicate(m.shape[1], 0), m)


def row_scans_in_a_map(x):
    return sl.map(lambda xss: sl.scan(lambda a, b: a + b, sl.replicate(xss.shape[1], 0), xss), x)


def nest_into_nest(xss):
    y = sl.map(lambda r: sl.map(lambda v: v - 1, r), xss)
    return sl.map(lambda r: sl.map(lambda v: v * 2, r), y)


def reads_at_the_iota(xs):
    n = xs.shape[0]
    ys = sl.map(lambda i: xs[i] * 2, sl.iota(n))
    return sl.map(lambda i: ys[i] + xs[i], sl.iota(n))


def row_histograms_summed(image):
    def row_hist(row):
        return sl.hist(sl.replicate(16, sl.i32(0)), lambda a, b: a + b, 0, row, sl.replicate(row.shape[0], sl.i32(1)))

    return sl.reduce(lambda a, b: a + b, sl.replicate(16, sl.i32(0)), sl.map(row_hist, image))


def product_with_transposed(w, a):
    return sl.map(lambda r: sl.map(lambda c: sl.sum(sl.map(lambda x, y: x * y, r, c)), a.T), w)


def weight_update(xs, weights, previous):
    """Rodinia backprop's update: `row + change` reads a row of one array and a map over a row of another, two
    widths that only the size check makes one."""

    def adjust(x, row, p):
        change = 0.3 * p + x
        return row + change, change

    return sl.map(adjust, xs, weights, previous)


M = RNG.integers(-50, 50, (7, 5)).astype(np.int64)
X3 = RNG.integers(-50, 50, (3, 4, 5)).astype(np.int64)
F = RNG.random((6, 9), dtype=np.float32)
V = RNG.random(11, dtype=np.float32)
IMAGE = RNG.integers(0, 16, (9, 13)).astype(np.int32)
W, A = RNG.random((5, 4), dtype=np.float32), RNG.random((4, 6), dtype=np.float32)

CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...], Any, dict[str, int]]] = {
    "column sums": (column_sums, (M,), M.sum(0), {"soac.reduce": 1}),
    "row scan": (row_scan, (M,), np.cumsum(M, 0), {"soac.segscan": 1, "soac.scan": 0}),
    "row scans in a map": (row_scans_in_a_map, (X3,), np.cumsum(X3, 1), {}),
    "nest into nest": (nest_into_nest, (F,), (F - 1) * 2, {"soac.segmap": 1}),
    "reads at the iota": (reads_at_the_iota, (V,), V * 3, {"soac.segmap": 1, "soac.iota": 0}),
    "row histograms summed": (row_histograms_summed, (IMAGE,), np.bincount(IMAGE.ravel(), minlength=16), {}),
    "product with transposed": (product_with_transposed, (W, A), W @ A, {}),
    "maps of two widths": (
        weight_update,
        (V[:6], F, F[::-1].copy()),
        (F + (0.3 * F[::-1] + V[:6, None]), 0.3 * F[::-1] + V[:6, None]),
        {"soac.segmap": 1, "scf.if": 0},
    ),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_form_compiles_and_matches_numpy(name: str, backend: str) -> None:
    f, args, expected, _ = CASES[name]
    got = sl.jit(f, backend=backend)(*args)
    for g, e in zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]:
        np.testing.assert_allclose(g, e, rtol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fused_maps_of_two_widths_still_check_them(backend: str) -> None:
    f = sl.jit(weight_update, backend=backend)
    with pytest.raises(SoacRuntimeError, match=r"test_simplify_forms.py:\d+:\d+: 'soac.map': width 9 does not match .* 8"):
        f(V[:6], F, F[:, :8].copy())


@pytest.mark.parametrize("name", [name for name, case in CASES.items() if case[3]])
def test_form_fuses(name: str) -> None:
    f, args, _, counts = CASES[name]
    optimized = sl.jit(f, backend="interp").ir(*args, optimized=True)
    for op, count in counts.items():
        assert optimized.count(f"{op} ") == count, f"{op}\n{optimized}"


def test_transpose_of_an_invariant_array_leaves_the_lambda() -> None:
    """Hoisted out of the lambda (then, with soac-coalesce, into the branch of the only version that reads it)."""
    f = sl.jit(product_with_transposed, backend="interp")
    optimized = f.specialize(W, A).optimized
    transposes = [op for op in optimized.walk() if isinstance(op, TransposeOp)]
    assert len(transposes) == 1, f.ir(optimized=True)
    enclosing = []
    parent = transposes[0].parent_op()
    while parent is not None:
        enclosing.append(parent.name)
        parent = parent.parent_op()
    assert enclosing == ["func.func", "builtin.module"], f.ir(optimized=True)


def clamped_stencil(xs, steps):
    n = xs.shape[0]

    def step(_, v):
        left = lambda i: v[sl.maximum(i - 1, 0)]  # noqa: E731
        right = lambda i: v[sl.minimum(i + 1, n - 1)]  # noqa: E731
        return sl.map(lambda i: (left(i) + v[i] + right(i)) / 3, sl.iota(n))

    return sl.loop(steps, xs, step)


def numpy_stencil(xs: np.ndarray, steps: int) -> np.ndarray:
    for _ in range(steps):
        padded = np.concatenate([xs[:1], xs, xs[-1:]])
        xs = (padded[:-2] + padded[1:-1] + padded[2:]) / np.float32(3)
    return xs


@pytest.mark.parametrize("steps", [0, 1, 4])
def test_stencil_loop_runs_one_kernel_per_step(steps: int) -> None:
    from soac.lowering.runtime import Program

    xs = RNG.random(300, dtype=np.float32)
    f = sl.jit(clamped_stencil)
    np.testing.assert_allclose(f(xs, steps), numpy_stencil(xs, steps), rtol=1e-5)
    program = f.specialize(xs, steps).runner
    assert isinstance(program, Program)
    launched: list[str] = []

    class Recording(dict[str, Any]):
        def __getitem__(self, name: str) -> Any:
            launched.append(name)
            return super().__getitem__(name)

    kernels, program.kernels = program.kernels, Recording(program.kernels)
    try:
        f(xs, steps)
    finally:
        program.kernels = kernels
    iota_kernels = [k for k in launched if "iota" in k]
    assert len(launched) - len(iota_kernels) == steps, launched
    assert len(iota_kernels) <= 1, launched


def dot(r, c):
    return sl.sum(sl.map(lambda a, b: a * b, r, c))


def multiplicative_update(w, a, wh):
    numerator = sl.map(lambda r: sl.map(lambda c: dot(r, c), a.T), w)
    denominator = sl.map(lambda r: sl.map(lambda c: dot(r, c), wh.T), w)
    return sl.map(lambda n, d: sl.map(lambda x, y: x / y, n, d), numerator, denominator)


@pytest.mark.parametrize("backend", BACKENDS)
def test_products_with_transposed_arrays_fuse_into_one_map(backend: str) -> None:
    """W·A, W·B (each written over a transpose traced in the lambda) and their quotient: one map over W's rows once
    the transposes leave the lambdas (the issue's W·Aᵀ, W·WHᵀ, divide program)."""
    a, b = RNG.random((4, 6), dtype=np.float32), RNG.random((4, 6), dtype=np.float32) + 0.5
    f = sl.jit(multiplicative_update, backend=backend, pipeline="soac-simplify,soac-fuse,soac-simplify")
    np.testing.assert_allclose(f(W, a, b), (W @ a) / (W @ b), rtol=1e-5)
    top_level = [line for line in f.ir(optimized=True).splitlines() if line.startswith("    %") and "soac." in line]
    assert [line.split(" = ")[1].split(" ")[0] for line in top_level] == ["soac.transpose", "soac.transpose", "soac.map"]
