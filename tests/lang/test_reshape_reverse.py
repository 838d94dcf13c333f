"""`sl.reverse` (`xs[::-1]`), `sl.reshape` (`xs.reshape`), `sl.flatten` and `sl.unflatten` give numpy's results on both
backends, at function level and on rows inside lambdas; mistakes are `SoacTypeError`s at the user's line, and a
reshape to another element count fails when it runs, at its line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soac.lang as sl
from soac.interpreter import SoacRuntimeError

HERE = Path(__file__)
BACKENDS = ["interp", "opencl"]


def line_of(marker: str) -> str:
    lines = HERE.read_text().splitlines()
    (number,) = [k + 1 for k, line in enumerate(lines) if line.rstrip().endswith(f"# {marker}")]
    return f"{HERE}:{number}"


def _program(m, v):
    a = sl.flatten(m)
    b = sl.unflatten(a, m.shape[1], m.shape[0])
    c = m[::-1]
    d = sl.reverse(m, 1)
    e = m.reshape(-1)
    f = sl.reverse(m, (0, 1))
    g = sl.map(lambda r: sl.sum(r[::-1].reshape(2, -1)[0]), m)
    h = v[::-1].reshape((2, v.shape[0] // 2))
    k = sl.map(lambda r: sl.reverse(sl.unflatten(r, 2, r.shape[0] // 2), 1), m)
    return a, b, c, d, e, f, g, h, k


def _numpy(m, v):
    n, w = m.shape
    g = np.array([r[::-1].reshape(2, -1)[0].sum(dtype=m.dtype) for r in m], dtype=m.dtype).reshape(n)
    k = np.stack([r.reshape(2, w // 2)[:, ::-1] for r in m]) if n else np.zeros((0, 2, w // 2), m.dtype)
    return m.reshape(-1), m.reshape(w, n), m[::-1], m[:, ::-1], m.reshape(-1), m[::-1, ::-1], g, v[::-1].reshape(2, -1), k


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(3, 4), (1, 2), (0, 6), (33, 10)])
def test_results_match_numpy(backend: str, shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(sum(shape))
    m = rng.integers(-100, 100, shape).astype(np.int32)
    v = rng.standard_normal(2 * shape[1]).astype(np.float32)
    got = sl.jit(_program, backend=backend)(m, v)
    for k, (g, e) in enumerate(zip(got, _numpy(m, v), strict=True)):
        assert g.shape == e.shape, f"result #{k}"
        np.testing.assert_array_equal(g, e, err_msg=f"result #{k}")


def test_the_ops_show_in_the_ir() -> None:
    f = sl.jit(lambda m: (sl.flatten(m), m[::-1]), backend="interp")
    f(np.zeros((2, 3), np.int32))
    ir = f.ir()
    assert "soac.reshape %m (" in ir
    assert "soac.reverse %m [0]" in ir


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reshape_to_another_count_fails_at_its_line(backend: str) -> None:
    def f(xs):
        return xs.reshape(4, 2)  # BAD COUNT

    with pytest.raises(SoacRuntimeError) as error:
        sl.jit(f, backend=backend)(np.arange(6, dtype=np.int32))
    assert str(error.value).startswith(line_of("BAD COUNT"))
    assert "'soac.reshape': cannot reshape an array of 6 elements to sizes (4, 2)" in str(error.value)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (lambda m: sl.reverse(m, 2), "sl.reverse: axis 2 names no distinct axes of a 2-D i32 array"),
        (lambda m: sl.reverse(m, (0, 0)), "sl.reverse: axis (0, 0) names no distinct axes"),
        (lambda m: m.reshape(-1, -1), "sl.reshape: only one size may be -1"),
        (lambda m: m.reshape(3, -4), "sl.reshape: size -4 is negative"),
        (lambda m: m.reshape(2.5), "a size of sl.reshape must be an integer, not a "),
        (lambda m: sl.flatten(m[0]), "sl.flatten needs an array of at least 2 dimensions, not a 1-D i32 array"),
        (lambda m: m[::0], "a slice's step must be a nonzero Python int, not 0"),
        (lambda m: sl.reshape(m, ()), "sl.reshape of a 2-D i32 array needs at least one size"),
    ],
)
def test_mistakes_are_type_errors_at_the_users_line(body, problem: str) -> None:
    def f(m):
        return body(m)

    with pytest.raises(sl.SoacTypeError) as error:
        sl.jit(f, backend="interp")(np.zeros((2, 3), np.int32))
    assert str(error.value).startswith(f"{HERE}:"), str(error.value)
    assert problem in str(error.value)
