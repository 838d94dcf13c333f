"""`scf` and `func.call`: control flow, per lane when conditions or bounds differ between lanes.

A uniform condition (or loop bounds) runs the region in the current frame. A
condition that differs between lanes runs each region only on the lanes that
take it (a masked frame) and merges the results, so a branch never runs where
it could fail. Loops with per-lane bounds or conditions run in lockstep while
all lanes are active, then continue on the lanes still active.
"""

from __future__ import annotations

import numpy as np
from soac.interpreter.core import SoacInterpreter
from soac.interpreter.errors import ShapeMismatch, fail
from soac.interpreter.frame import Frame, MaskedFrame
from soac.interpreter.registry import implements
from soac.interpreter.values import Val, dtype_of, expand, own, scatter_into, uniform
from xdsl.dialects import func, scf
from xdsl.ir import Operation


@implements("scf.if")
def if_op(interp: SoacInterpreter, frame: Frame, op: scf.IfOp) -> list[Val]:
    cond = frame.lookup(op.cond)
    regions = [op.true_region, op.false_region]
    choice = uniform(cond)
    if choice is not None:
        region = regions[0 if bool(choice) else 1]
        return interp.run_region(frame, region, []) if region.blocks else []
    if not op.false_region.blocks:
        interp.run_region(MaskedFrame(frame, cond[0]), op.true_region, [])
        return []
    selector = np.logical_not(cond[0]).astype(np.int64)
    return interp.run_by_lane(frame, op, (selector, cond[1]), regions)


@implements("scf.index_switch")
def index_switch(interp: SoacInterpreter, frame: Frame, op: scf.IndexSwitchOp) -> list[Val]:
    arg = frame.lookup(op.arg)
    cases = [int(c) for c in op.cases.get_values()]
    regions = [*op.case_regions, op.default_region]
    choice = uniform(arg)
    if choice is not None:
        position = cases.index(int(choice)) if int(choice) in cases else len(cases)
        return interp.run_region(frame, regions[position], [])
    selector = np.full(arg[0].shape, len(cases), np.int64)
    for position, case in enumerate(cases):
        selector[arg[0] == case] = position
    return interp.run_by_lane(frame, op, (selector, arg[1]), regions)


@implements("scf.execute_region")
def execute_region(interp: SoacInterpreter, frame: Frame, op: scf.ExecuteRegionOp) -> list[Val]:
    return interp.run_region(frame, op.region, [])


def _merge_state(op: Operation, state: list[Val], batch: tuple[int, ...], mask: np.ndarray, new: list[Val]) -> list[Val]:
    try:
        return [scatter_into(old, batch, mask, val) for old, val in zip(state, new)]
    except ShapeMismatch as mismatch:
        raise fail(op, f"a loop-carried value changes shape between lanes: {mismatch}") from None


@implements("scf.for")
def for_op(interp: SoacInterpreter, frame: Frame, op: scf.ForOp) -> list[Val]:
    bounds = [frame.lookup(v) for v in (op.lb, op.ub, op.step)]
    vals = [frame.lookup(v) for v in op.iter_args]
    dtype = dtype_of(op.lb.type)
    uniforms = [uniform(b) for b in bounds]
    if any(u is None for u in uniforms):
        return _batched_for(interp, frame, op, bounds, vals)
    lb, ub, step = (int(u) for u in uniforms)  # pyright: ignore[reportArgumentType]
    if step <= 0:
        raise fail(op, f"step {step} is not positive")
    for i in range(lb, ub, step):
        vals = interp.run_region(frame, op.body, [(np.asarray(i, dtype), 0), *vals])
    return vals


def _batched_for(interp: SoacInterpreter, frame: Frame, op: scf.ForOp, bounds: list[Val], vals: list[Val]) -> list[Val]:
    batch, rank = frame.batch, frame.rank
    dtype = dtype_of(op.lb.type)
    lb, ub, step = (expand(b, batch, rank).astype(np.int64) for b in bounds)
    if np.any(step <= 0):
        raise fail(op, f"step {int(step[step <= 0].flat[0])} is not positive")
    trips = np.maximum(0, -((lb - ub) // step))
    low, high = (int(trips.min()), int(trips.max())) if trips.size else (0, 0)
    for t in range(low):
        vals = interp.run_region(frame, op.body, [((lb + t * step).astype(dtype), rank), *vals])
    if high > low:
        vals = [own(v, batch, rank) for v in vals]
    for t in range(low, high):
        mask = trips > t
        lanes = MaskedFrame(frame, mask)
        index = ((lb + t * step)[mask].astype(dtype), 1)
        new = interp.run_region(lanes, op.body, [index, *(lanes.translate(v) for v in vals)])
        vals = _merge_state(op, vals, batch, mask, new)
    return vals


@implements("scf.while")
def while_op(interp: SoacInterpreter, frame: Frame, op: scf.WhileOp) -> list[Val]:
    vals = [frame.lookup(v) for v in op.arguments]
    while True:
        cond, *vals = interp.run_region(frame, op.before_region, vals)
        go = uniform(cond)
        if go is None:
            break
        if not bool(go):
            return vals
        vals = interp.run_region(frame, op.after_region, vals)
    batch, rank = frame.batch, frame.rank
    active = np.array(expand(cond, batch, rank))
    state = [own(v, batch, rank) for v in vals]
    while active.any():
        lanes = MaskedFrame(frame, active)
        after = interp.run_region(lanes, op.after_region, [lanes.translate(v) for v in state])
        cond, *new = interp.run_region(lanes, op.before_region, after)
        state = _merge_state(op, state, batch, active, new)
        still = active.copy()
        still[active] = expand(cond, lanes.batch, 1)
        active = still
    return state


@implements("func.call")
def call(interp: SoacInterpreter, frame: Frame, op: func.CallOp) -> list[Val]:
    args = [frame.lookup(v) for v in op.arguments]
    return interp.call_function(frame, op, op.callee.root_reference.data, args)
