"""The tuning thresholds of a program: which there are, where they sit, and what parallelism they see.

`soac-flatten` guards versions with `soac.threshold "name" %par default D`
(true when `par >= t_name`) and `scf.if`. This module lists them, with their
defaults and their *path*, the thresholds compared on the way to them and the
branch taken (Futhark's `KernelPath`), and observes the `par` values each one
is compared with when a program runs under the interpreter:

    >>> [t.name for t in list_thresholds(module)]
    ['suff_outer_par_0', 'suff_intra_par_1']
    >>> observe_pars(module, "main", [xss])
    {'suff_outer_par_0': {20}, 'suff_intra_par_1': {33}}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from soac.dialect import ThresholdOp
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

MAX_THRESHOLD = 2**62
"""A threshold value that no parallelism reaches: the guarded version is never taken."""


@dataclass(frozen=True)
class ThresholdInfo:
    """One tunable threshold of a program."""

    name: str
    default: int
    path: tuple[tuple[str, bool], ...]
    """The thresholds compared before this one (outermost first) and whether their guarded branch was taken."""

    @property
    def depth(self) -> int:
        return len(self.path)

    @property
    def kind(self) -> str:
        """`outer` or `intra` for Futhark-style names, else `other`."""
        for kind in ("outer", "intra"):
            if self.name.startswith(f"suff_{kind}_par"):
                return kind
        return "other"


def guard(condition: SSAValue) -> ThresholdOp | None:
    """The threshold an `scf.if` condition tests (directly, or as one side of an `arith.andi`)."""
    owner = condition.owner
    if isinstance(owner, ThresholdOp):
        return owner
    if isinstance(owner, arith.AndIOp):
        return guard(owner.lhs) or guard(owner.rhs)
    return None


def threshold_path(op: Operation) -> tuple[tuple[str, bool], ...]:
    path: list[tuple[str, bool]] = []
    child, parent = op, op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.IfOp) and (test := guard(parent.cond)) is not None:
            path.append((test.threshold_name, child.parent_region() is parent.true_region))
        child, parent = parent, parent.parent_op()
    return tuple(reversed(path))


def list_thresholds(module: ModuleOp) -> list[ThresholdInfo]:
    """The thresholds of `module`, once each, in program order."""
    found: dict[str, ThresholdInfo] = {}
    for op in module.walk():
        if isinstance(op, ThresholdOp) and op.threshold_name not in found:
            found[op.threshold_name] = ThresholdInfo(op.threshold_name, op.default_value, threshold_path(op))
    return list(found.values())


def tuning_text(infos: Sequence[ThresholdInfo], values: Mapping[str, int] | None = None) -> str:
    """A tuning file (`name=value` lines) with the given values, else the defaults; comments show the paths."""
    lines = []
    for info in infos:
        value = (values or {}).get(info.name, info.default)
        path = " and ".join(name if taken else f"not {name}" for name, taken in info.path)
        lines.append(f"{info.name}={value}" + (f"  # when {path}" if path else ""))
    return "".join(line + "\n" for line in lines)


class ParRecorder:
    """A threshold value for the interpreter that records the parallelism it is compared with.

    The interpreter evaluates `par >= limit`; numpy defers the comparison to
    `limit.__le__(par)` because of `__array_ufunc__ = None`.
    """

    __array_ufunc__ = None

    def __init__(self, value: int, seen: set[int]):
        self.value = value
        self.seen = seen

    def __le__(self, par: Any) -> np.ndarray:
        pars = np.asarray(par)
        self.seen.update(int(p) for p in np.unique(pars))
        return pars >= self.value

    def __ge__(self, par: Any) -> np.ndarray:
        return np.asarray(par) <= self.value


def observe_pars(
    module: ModuleOp,
    name: str,
    args: Sequence[object],
    thresholds: Mapping[str, int] | None = None,
    run: Callable[..., tuple[Any, ...]] | None = None,
) -> dict[str, set[int]]:
    """Runs `@name` with the interpreter and returns the `par` values each threshold was compared with.

    Thresholds take their values from `thresholds`, else their defaults; those
    the run never reaches are absent from the result.
    """
    if run is None:
        from soac.interpreter import run_function

        run = run_function
    given = dict(thresholds or {})
    seen: dict[str, set[int]] = {info.name: set() for info in list_thresholds(module)}
    recorders = {n: ParRecorder(given.get(n, info.default), seen[n]) for n, info in zip(seen, list_thresholds(module))}
    run(module, name, list(args), thresholds=recorders)
    return {n: pars for n, pars in seen.items() if pars}
