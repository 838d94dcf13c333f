"""Sharing: an expression computed once and used twice is one SSA value in the traced IR, never duplicated
(the sharing-recovery problem of deep embeddings; tracing eagerly into SSA keeps it by construction)."""

from __future__ import annotations

import re

import numpy as np
import soac.lang as sl


def ops(text: str, name: str) -> int:
    return len(re.findall(rf"= {re.escape(name)}\b", text))


def test_a_scalar_expression_used_twice_is_computed_once() -> None:
    @sl.jit(backend="interp")
    def f(xs):
        def g(x):
            t = sl.exp(x * x)  # one muli-like op and one exp, used twice below
            return t + t * t

        return sl.map(g, xs)

    ir = f.ir(np.zeros(3, np.float32))
    assert ops(ir, "arith.mulf") == 2  # x * x and t * t
    assert ops(ir, "math.exp") == 1
    assert re.search(r"%t = math\.exp", ir)
    assert re.search(r"arith\.addf %t, ", ir)
    xs = np.array([0.5, -1.0, 2.0], np.float32)
    t = np.exp(xs * xs)
    np.testing.assert_allclose(f(xs), t + t * t, rtol=1e-6)


def test_an_array_used_by_two_soacs_is_one_soac() -> None:
    @sl.jit(backend="interp")
    def f(xs):
        ys = sl.map(lambda x: x * 3, xs)
        return sl.sum(ys), sl.map(lambda a, b: a - b, ys, ys)

    ir = f.ir(np.zeros(3, np.int32))
    assert ir.count("soac.map") == 2
    assert re.search(r"soac\.map %\w+ \(%ys, %ys : ", ir)
    assert ir.count("soac.reduce") == 1


def test_sizes_and_constants_are_made_once() -> None:
    @sl.jit(backend="interp")
    def f(xs, ys):
        a = sl.map(lambda x: x + 1, xs)
        b = sl.map(lambda x, y: x * y, a, ys)
        return sl.scan(lambda p, q: p + q, 0, b), xs.shape[0] + xs.shape[0]

    ir = f.ir(np.zeros(3, np.int64), np.zeros(3, np.int64))
    assert ops(ir, "tensor.dim") == 1  # the width of xs, reused by both maps and the scan
    assert ir.count("arith.constant 0 : index") == 1
    assert ops(ir, "arith.addi") == 3  # x + 1, p + q, and the sum of the sizes


def test_a_lambda_reads_a_value_of_the_enclosing_function_without_copying_it() -> None:
    @sl.jit(backend="interp")
    def f(xs, k):
        scale = k * k
        return sl.map(lambda x: x * scale + scale, xs)

    ir = f.ir(np.zeros(2, np.int64), 3)
    assert ops(ir, "arith.muli") == 2  # k * k outside, x * scale inside
    assert re.search(r"arith\.muli %x, %scale", ir)
    assert re.search(r"arith\.addi %\w+, %scale", ir)
    np.testing.assert_array_equal(f(np.array([1, 2], np.int64), 3), [18, 27])
