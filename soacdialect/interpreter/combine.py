"""Reductions and inclusive scans along one axis with an associative operator region.

When the operator yields, for each output `j`, a single recognised arith op
applied to `(a_j, b_j)` (in either order), numpy's `ufunc.reduce` /
`ufunc.accumulate` do the work. Otherwise the operator region is evaluated
vectorised: a pairwise tree for reductions (log n evaluations, odd elements
carried) and Hillis-Steele for scans (log n evaluations). Both keep the left
operand on the left, so non-commutative operators are fine. The neutral element
is combined on the left at the end, as in `foldl op ne xs`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from soac.interpreter.arith import BINARY
from soac.interpreter.core import SoacInterpreter
from soac.interpreter.frame import Frame
from soac.interpreter.values import Val, align, expand, unsigned_dtype
from xdsl.ir import Operation, Region

# name -> (ufunc for integer/float data, ufunc for i1 data or None, works on unsigned bits)
_FAST: dict[str, tuple[np.ufunc, np.ufunc | None, bool]] = {
    "arith.addf": (np.add, None, False),
    "arith.mulf": (np.multiply, None, False),
    "arith.maxnumf": (np.fmax, None, False),
    "arith.minnumf": (np.fmin, None, False),
    "arith.addi": (np.add, np.bitwise_xor, False),
    "arith.muli": (np.multiply, np.bitwise_and, False),
    "arith.andi": (np.bitwise_and, np.bitwise_and, False),
    "arith.ori": (np.bitwise_or, np.bitwise_or, False),
    "arith.xori": (np.bitwise_xor, np.bitwise_xor, False),
    "arith.maxsi": (np.maximum, np.bitwise_and, False),
    "arith.minsi": (np.minimum, np.bitwise_or, False),
    "arith.maxui": (np.maximum, np.bitwise_or, True),
    "arith.minui": (np.minimum, np.bitwise_and, True),
}


def recognise(interp: SoacInterpreter, region: Region) -> list[str] | None:
    """The op names if `region` is `yield op_0(a_0, b_0), op_1(a_1, b_1), ...`, else None."""
    key = ("operator", region)
    if key not in interp.cache:
        interp.cache[key] = _recognise(region)
    return interp.cache[key]  # pyright: ignore[reportReturnType]


def _recognise(region: Region) -> list[str] | None:
    block = region.block
    ops = list(block.ops)
    k = len(block.args) // 2
    if len(ops) != k + 1 or len(ops[-1].operands) != k:
        return None
    names = []
    for j, value in enumerate(ops[-1].operands):
        owner = value.owner
        if not isinstance(owner, Operation) or owner.name not in _FAST or len(owner.operands) != 2:
            return None
        if set(owner.operands) != {block.args[j], block.args[k + j]} or block.args[j] is block.args[k + j]:
            return None
        names.append(owner.name)
    return names


def _ufunc(name: str, x: np.ndarray) -> tuple[np.ufunc, np.ndarray, np.dtype]:
    """The ufunc for op `name` on data `x`, and `x` as the ufunc should see it."""
    ufunc, for_bool, on_unsigned = _FAST[name]
    if x.dtype == np.bool_:
        assert for_bool is not None
        return for_bool, x, x.dtype
    if on_unsigned:
        u = x.view(unsigned_dtype(x.dtype))
        return ufunc, u, u.dtype
    return ufunc, x, x.dtype


def _cut(axis: int, piece: slice | int) -> tuple[slice | int, ...]:
    return (slice(None),) * axis + (piece,)


def apply(interp: SoacInterpreter, frame: Frame, region: Region, args: Sequence[Val], batch: tuple[int, ...]) -> list[np.ndarray]:
    """Run the operator on lanes `batch` (an extension of `frame.batch`); full-shape results."""
    results = interp.run_region(Frame(batch, frame), region, args)
    return [expand(val, batch, len(batch)) for val in results]


def reduce_axis(
    interp: SoacInterpreter,
    frame: Frame,
    region: Region,
    neutral: Sequence[Val],
    xs: Sequence[np.ndarray],
    outer: tuple[int, ...],
) -> list[np.ndarray]:
    """Reduce the arrays `xs` (shape `outer + (n,) + elem`) along axis `len(outer)`."""
    axis = len(outer)
    n = xs[0].shape[axis]
    if n == 0:
        return [np.array(expand(ne, outer, axis)) for ne in neutral]
    if (names := recognise(interp, region)) is not None:
        results = []
        for name, x, (ne, rank) in zip(names, xs, neutral):
            ufunc, data, dtype = _ufunc(name, x)
            total = ufunc.reduce(data, axis=axis, dtype=dtype).view(x.dtype)
            results.append(np.asarray(BINARY[name](align(ne, rank, axis), total)))
        return results
    current = list(xs)
    while n > 1:
        half = n // 2
        lhs = [(x[_cut(axis, slice(0, 2 * half, 2))], axis + 1) for x in current]
        rhs = [(x[_cut(axis, slice(1, 2 * half, 2))], axis + 1) for x in current]
        pairs = apply(interp, frame, region, lhs + rhs, (*outer, half))
        if n % 2:
            pairs = [np.concatenate([p, x[_cut(axis, slice(n - 1, n))]], axis=axis) for p, x in zip(pairs, current)]
        current, n = pairs, half + n % 2
    last = [(x[_cut(axis, 0)], axis) for x in current]
    return apply(interp, frame, region, [*neutral, *last], outer)


def scan_axis(
    interp: SoacInterpreter,
    frame: Frame,
    region: Region,
    neutral: Sequence[Val],
    xs: Sequence[np.ndarray],
    outer: tuple[int, ...],
) -> list[np.ndarray]:
    """Inclusive scan of the arrays `xs` (shape `outer + (n,) + elem`) along axis `len(outer)`."""
    axis = len(outer)
    n = xs[0].shape[axis]
    if n == 0:
        return [np.zeros((*outer, 0, *x.shape[axis + 1 :]), x.dtype) for x in xs]
    if (names := recognise(interp, region)) is not None:
        results = []
        for name, x, (ne, rank) in zip(names, xs, neutral):
            ufunc, data, dtype = _ufunc(name, x)
            running = ufunc.accumulate(data, axis=axis, dtype=dtype).view(x.dtype)
            results.append(np.asarray(BINARY[name](align(ne, rank, axis + 1), running)))
        return results
    current = list(xs)
    step = 1
    while step < n:
        lhs = [(x[_cut(axis, slice(0, n - step))], axis + 1) for x in current]
        rhs = [(x[_cut(axis, slice(step, n))], axis + 1) for x in current]
        tails = apply(interp, frame, region, lhs + rhs, (*outer, n - step))
        current = [np.concatenate([x[_cut(axis, slice(0, step))], t], axis=axis) for x, t in zip(current, tails)]
        step *= 2
    return apply(interp, frame, region, [*neutral, *((x, axis + 1) for x in current)], (*outer, n))
