"""Host loops over kernels (soac.lowering.runtime.host_plan): no host sync per iteration, and the scalars that are the same in
every iteration (launch sizes) computed once, before the first iteration only."""

from __future__ import annotations

import numpy as np
import pytest
import soac.lang as sl
from soac.lowering.runtime.errors import ProgramError
from soac.lowering.runtime.host_plan import PlanBuilder
from xdsl.dialects import func, scf


@sl.jit
def relax(xs, n):
    return sl.loop(n, xs, lambda i, ys: sl.map(lambda y: y * 0.5 + 1.0, ys))


def _reference(xs: np.ndarray, n: int) -> np.ndarray:
    for _ in range(n):
        xs = xs * np.float32(0.5) + np.float32(1.0)
    return xs


def test_a_loop_of_kernels_never_waits_for_the_device() -> None:
    xs = np.linspace(0, 1, 300, dtype=np.float32)
    relax(xs, 1)
    counts = sl.transfer_counts()
    counts.reset()
    got = relax(xs, 40)
    assert (counts.element_reads, counts.element_writes) == (0, 0)
    np.testing.assert_allclose(got, _reference(xs, 40), rtol=1e-6)
    np.testing.assert_array_equal(relax(xs, 0), xs)


def test_launch_sizes_are_hoisted_out_of_the_loop() -> None:
    relax(np.ones(4, np.float32), 1)
    names = [op.name for op in _hoisted(relax)]
    assert "arith.muli" in names  # the global size
    assert "arith.divui" in names  # by the group size, a constant
    assert "arith.cmpi" not in names  # the carried array's size against the input's: differs per iteration


@sl.jit
def repeated_quotient(x, d, n):
    return sl.loop(n, x, lambda i, s: s + 100 // d)


def test_a_division_stays_in_its_loop() -> None:
    """An invariant division by a value that may be zero is not hoisted (it would fail before the iteration's earlier
    checks), and a loop that never runs does not fail."""
    assert repeated_quotient(np.int64(1), np.int64(0), np.int64(0)) == 1
    assert repeated_quotient(np.int64(1), np.int64(7), np.int64(3)) == 1 + 3 * 14
    with pytest.raises(ProgramError, match="integer division by zero"):
        repeated_quotient(np.int64(1), np.int64(0), np.int64(2))
    assert [op.name for op in _hoisted(repeated_quotient)] == []


def _hoisted(jitted: sl.JitFunction) -> list:
    program = jitted.last.runner
    function = next(op for op in program.module.body.block.ops if isinstance(op, func.FuncOp))
    loop = next(op for op in function.walk() if isinstance(op, scf.ForOp))
    assert any(op.name == "arith.floordivsi" for op in loop.body.block.ops) or jitted is relax
    return PlanBuilder(program).invariant_scalars(loop, loop.body.block)


@sl.jit
def halve_until(xs, steps):
    def body(k, ys):
        return k + 1, sl.map(lambda y: y * 0.5, ys)

    return sl.while_loop(lambda k, ys: k < steps, body, (np.int64(0), xs))


@sl.jit
def halve_until_small(xs):
    def body(ys):
        return sl.map(lambda y: y * 0.5, ys)

    return sl.while_loop(lambda ys: sl.max(ys) > 1.0, body, xs)


def test_a_while_loop_waits_only_for_a_condition_computed_on_the_device() -> None:
    xs = np.full(100, 64.0, np.float32)
    halve_until(xs, np.int64(1)), halve_until_small(xs)
    counts = sl.transfer_counts()
    counts.reset()
    k, got = halve_until(xs, np.int64(5))
    assert counts.element_reads == 0  # the condition is the host's counter
    assert k == 5
    np.testing.assert_array_equal(got, xs / 32)
    counts.reset()
    np.testing.assert_array_equal(halve_until_small(xs), np.ones(100, np.float32))
    assert counts.element_reads == 7  # one read of the maximum per test: 64, 32, ..., 1
