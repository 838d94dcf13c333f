"""`sl.rotate` (Futhark's `rotate`, left) and `sl.roll` (numpy's `roll` along the rows) give numpy's results on both
backends, with constant and traced amounts, at function level and on rows inside a lambda; mistakes, and numpy's own
`np.roll` on a symbolic array, are `SoacTypeError`s at the user's line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soac.lang as sl

HERE = Path(__file__)
BACKENDS = ["interp", "opencl"]


def line_of(marker: str) -> str:
    lines = HERE.read_text().splitlines()
    (number,) = [k + 1 for k, line in enumerate(lines) if line.rstrip().endswith(f"# {marker}")]
    return f"{HERE}:{number}"


def _program(m, v, k):
    a = sl.rotate(m, 2)
    b = sl.roll(v, k)
    c = sl.roll(m, -3, axis=0)
    d = sl.map(lambda r, i: sl.rotate(r, i), m, sl.iota(m.shape[0]))
    return a, b, c, d


def _numpy(m, v, k):
    d = np.stack([np.roll(r, -i) for i, r in enumerate(m)]) if len(m) else m.copy()
    return np.roll(m, -2, axis=0), np.roll(v, k), np.roll(m, -3, axis=0), d


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("shape", "k"), [((3, 4), 1), ((5, 2), -7), ((0, 6), 4), ((33, 10), 100)])
def test_results_match_numpy(backend: str, shape: tuple[int, int], k: int) -> None:
    rng = np.random.default_rng(sum(shape))
    m = rng.integers(-100, 100, shape).astype(np.int32)
    v = rng.standard_normal(shape[1]).astype(np.float32)
    got = sl.jit(_program, backend=backend)(m, v, np.int64(k))
    for g, e in zip(got, _numpy(m, v, k), strict=True):
        np.testing.assert_array_equal(np.asarray(g), e)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (lambda m: sl.roll(m, 1, axis=1), "sl.roll rolls the rows (axis=0) only, not axis 1 of a 2-D i32 array"),
        (lambda m: sl.roll(m, 1), "sl.roll rolls the rows (axis=0) only, not axis None of a 2-D i32 array"),
        (lambda m: sl.rotate(m, 1.5), "sl.rotate's amount must be an integer"),
        (lambda m: np.roll(m, 1, axis=0), "numpy's roll cannot run on a symbolic 2-D i32 array"),
    ],
    ids=["axis-1", "axis-none-2d", "float-amount", "np-roll"],
)
def test_mistakes_are_type_errors_at_the_users_line(body, problem: str) -> None:
    def f(m):
        return body(m)

    with pytest.raises(sl.SoacTypeError) as error:
        sl.jit(f, backend="interp")(np.zeros((2, 3), np.int32))
    assert str(error.value).startswith(f"{HERE}:"), str(error.value)
    assert problem in str(error.value)
