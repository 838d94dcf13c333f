"""Random element-wise expressions (hypothesis) built with Python's operators, traced by soac.lang and run on the
interpreter after the passes, against the same expression evaluated by numpy on int32 and float64 arrays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import soac.lang as sl
from hypothesis import given, settings
from hypothesis import strategies as st

Expr = tuple[Any, ...]

INT_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
}
FLOAT_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
}


def expressions(binary: dict[str, Callable[[Any, Any], Any]], constants: st.SearchStrategy[Any]) -> st.SearchStrategy[Expr]:
    leaves = st.one_of(st.just(("x",)), st.just(("y",)), constants.map(lambda c: ("const", c)))

    def extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
        return st.one_of(
            st.tuples(st.sampled_from(sorted(binary)), children, children),
            st.tuples(st.just("neg"), children),
            st.tuples(st.just("max"), children, children),
            st.tuples(st.just("where<"), children, children, children, children),
            st.tuples(st.just("//"), children, st.integers(1, 7)),
            st.tuples(st.just("%"), children, st.integers(1, 7)),
        )

    return st.recursive(leaves, extend, max_leaves=8)


def evaluate(expr: Expr, x: Any, y: Any, lib: Any) -> Any:
    """The expression with `lib` providing maximum and where: soac.lang or numpy."""
    kind = expr[0]
    if kind == "x":
        return x
    if kind == "y":
        return y
    if kind == "const":
        return expr[1]
    args = [evaluate(e, x, y, lib) if isinstance(e, tuple) else e for e in expr[1:]]
    if kind == "neg":
        return -args[0]
    if kind == "max":
        return lib.maximum(args[0], args[1])
    if kind == "where<":
        return lib.where(args[0] < args[1], args[2], args[3])
    if kind == "//":
        return args[0] // args[1]
    if kind == "%":
        return args[0] % args[1]
    return INT_BINARY.get(kind, FLOAT_BINARY.get(kind))(args[0], args[1])  # pyright: ignore[reportOptionalCall]


def run_both(expr: Expr, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    f = sl.jit(lambda xs, ys: sl.map(lambda a, b: evaluate(expr, a, b, sl), xs, ys), backend="interp")
    with np.errstate(all="ignore"):
        expected = np.broadcast_to(evaluate(expr, x, y, np), x.shape).astype(x.dtype)
    return f(x, y), expected


@settings(max_examples=40, deadline=None)
@given(expressions(INT_BINARY, st.integers(-20, 20)), st.integers(0, 2**32 - 1))
def test_int32_expressions(expr: Expr, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, y = (rng.integers(-(2**31), 2**31, 17).astype(np.int32) for _ in range(2))
    got, expected = run_both(expr, x, y)
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=40, deadline=None)
@given(expressions(FLOAT_BINARY, st.floats(-4, 4).map(lambda v: round(v, 2))), st.integers(0, 2**32 - 1))
def test_float64_expressions(expr: Expr, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, y = (rng.uniform(-10, 10, 17) for _ in range(2))
    got, expected = run_both(expr, x, y)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


@settings(max_examples=2, deadline=None)
@given(st.lists(expressions(INT_BINARY, st.integers(-20, 20)), min_size=8, max_size=8), st.integers(0, 2**32 - 1))
def test_int32_expressions_on_opencl(exprs: list[Expr], seed: int) -> None:
    """Eight random expressions in one program (one OpenCL build) on PoCL, against numpy."""
    rng = np.random.default_rng(seed)
    x, y = (rng.integers(-(2**31), 2**31, 300).astype(np.int32) for _ in range(2))

    def program(xs, ys):
        return tuple(sl.map(lambda a, b, e=e: evaluate(e, a, b, sl), xs, ys) for e in exprs)

    results = sl.jit(program)(x, y)
    for expr, got in zip(exprs, results):
        with np.errstate(all="ignore"):
            expected = np.broadcast_to(evaluate(expr, x, y, np), x.shape).astype(np.int32)
        np.testing.assert_array_equal(got.astype(np.int32), expected)
