"""Vertical fusion of `soac.stencil` with elementwise maps (a map nest as deep as the stencil's rank, each level
only mapping the next over its rows, the innermost lambda on scalars).

* **map -> stencil** (producer): the stencil reads the map's inputs instead, and its lambda computes the map's
  lambda on each neighbour it uses. That recomputes the producer once per used neighbour (up to the window's
  size), so only *cheap* producers fuse: at most `CHEAP_OPS` scalar ops without regions (no loops, no nested
  SOACs) - the rule by which Futhark's fusion refuses to duplicate expensive work, here with a budget since a
  stencil is bound by memory and a few recomputed flops cost less than writing and reading back the array. The
  map's results must have no other use (else it would still run; its arrays are not recomputed twice). Only
  boundaries `clamp`, `mirror` and `wrap` fuse: there a neighbour of `map f xs` is `f` of that neighbour of `xs`;
  under `constant(v)` a neighbour outside is `v`, not `f` of anything.
* **stencil -> map** (consumer): the map's lambda runs after the stencil's on its values; the map's other inputs
  become stencil inputs read at the centre only. Results of the stencil still used elsewhere stay results.

    %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) { %y = arith.mulf %x, %x ... }
    %zs = soac.stencil (%n) window [3] clamp (%ys : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %r: f32) {
      %s = arith.addf %l, %r : f32 ...
    }
becomes
    %zs = soac.stencil (%n) window [3] clamp (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x0: f32, %x1: f32, %x2: f32) {
      %y = arith.mulf %x0, %x0 : f32
      %y_1 = arith.mulf %x2, %x2 : f32
      %s = arith.addf %y, %y_1 : f32 ...
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from soac.dialect import MapOp, StencilOp, YieldOp
from soac.passes.fusion_graph import BlockGraph
from soac.passes.screma_merge import Fused
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

CHEAP_OPS = 8
"""The most scalar ops a producer map's lambda may have to be recomputed per neighbour of a stencil."""


@dataclass
class ElementwiseNest:
    """A map nest applying `body` (on scalars) to every element of its `inputs`, over `widths`."""

    top: MapOp
    widths: list[SSAValue]
    inputs: list[SSAValue]
    body: Block


def elementwise_nest(op: Operation, rank: int) -> ElementwiseNest | None:
    """`op` as an elementwise map nest of depth `rank`, or None."""
    if not isinstance(op, MapOp):
        return None
    widths: list[SSAValue] = []
    level = op
    for depth in range(rank):
        widths.append(level.width)
        block = level.body.block
        if depth == rank - 1:
            if any(isinstance(a.type, TensorType) for a in block.args):
                return None
            return ElementwiseNest(op, widths, list(op.inputs), block)
        inner = block.first_op
        if not isinstance(inner, MapOp) or list(inner.inputs) != list(block.args) or not block.args:
            return None
        last = block.last_op
        if inner.next_op is not last or not isinstance(last, YieldOp) or list(last.operands) != list(inner.outs):
            return None
        level = inner
    return None


def is_cheap(body: Block) -> bool:
    ops = list(body.ops)[:-1]
    return len(ops) <= CHEAP_OPS and not any(op.regions for op in ops)


def _only_inputs_of(values: Sequence[SSAValue], op: Operation, start: int, end: int) -> bool:
    return all(use.operation is op and start <= use.index < end for v in values for use in v.uses)


def _clone_body(body: Block, into: Block, args: Sequence[SSAValue]) -> list[SSAValue]:
    """Clone `body`'s ops (not its yield) into `into` with its parameters bound to `args`; gives what it yields."""
    mapper: dict[SSAValue, SSAValue] = dict(zip(body.args, args, strict=True))
    for op in body.ops:
        if isinstance(op, YieldOp):
            return [mapper.get(v, v) for v in op.operands]
        into.add_op(op.clone(value_mapper=mapper))
    return []


def _new_stencil(
    stencil: StencilOp,
    inputs: Sequence[SSAValue],
    body: Block,
    result_types: Sequence,
    constants: Sequence[SSAValue] | None = None,
) -> StencilOp:
    return StencilOp(
        list(stencil.dims),
        stencil.window_shape,
        stencil.boundary.data,
        list(inputs),
        list(result_types),
        Region(body),
        list(stencil.constants if constants is None else constants),
        stencil.tile_shape,
    )


def _constants_with(stencil: StencilOp, added: Sequence[SSAValue]) -> list[SSAValue] | None:
    """The stencil's constants and one for each input in `added` under `constant(v)`: inputs read only at the centre
    never fall off the edge, so any value of their element type serves, one of the stencil's own constants; None if
    it has none of that type."""
    constants = list(stencil.constants)
    if stencil.boundary.data != "constant":
        return constants
    by_type = {c.type: c for c in reversed(constants)}
    for x in added:
        element = x.type.get_element_type()  # pyright: ignore[reportAttributeAccessIssue]
        if element not in by_type:
            return None
        constants.append(by_type[element])
    return constants


def _producer_arguments(
    stencil: StencilOp,
    nest: ElementwiseNest,
    produced: dict[SSAValue, int],
    new_params: dict[SSAValue, Sequence[SSAValue]],
    body: Block,
) -> list[SSAValue]:
    """What each of the stencil lambda's old parameters becomes: a new parameter (inputs kept), the producer's lambda
    on that neighbour of its inputs (cloned into `body` once per neighbour used), or itself (unused)."""
    points, old = len(stencil.offsets), stencil.body.block
    old_args: list[SSAValue] = []
    computed: dict[int, list[SSAValue]] = {}
    for i, x in enumerate(stencil.inputs):
        for k in range(points):
            param = old.args[i * points + k]
            if x not in produced:
                old_args.append(new_params[x][k])
                continue
            if not param.uses:
                old_args.append(param)  # unused: bound to itself, never read
                continue
            if k not in computed:
                computed[k] = _clone_body(nest.body, body, [new_params[a][k] for a in nest.inputs])
            old_args.append(computed[k][produced[x]])
    return old_args


def fuse_map_into_stencil(producer: Operation, stencil: StencilOp) -> Fused | None:
    """map -> stencil, for a cheap producer under a boundary that commutes with it."""
    rank = len(stencil.dims)
    nest = elementwise_nest(producer, rank)
    if nest is None or stencil.boundary.data == "constant" or not is_cheap(nest.body):
        return None
    if nest.widths != list(stencil.dims):
        return None
    start = rank
    if not _only_inputs_of(list(producer.results), stencil, start, start + len(stencil.inputs)):
        return None
    points = len(stencil.offsets)
    old = stencil.body.block
    produced = {v: j for j, v in enumerate(producer.results)}
    kept = [x for x in stencil.inputs if x not in produced]
    inputs = [*kept, *nest.inputs]
    body = Block(arg_types=[t.get_element_type() for t in (x.type for x in inputs) for _ in range(points)])  # pyright: ignore
    new_params = {x: body.args[i * points : (i + 1) * points] for i, x in enumerate(inputs)}
    hints = {x: [old.args[stencil.inputs.index(x) * points + k].name_hint for k in range(points)] for x in kept}
    hints.update({x: [a.name_hint] * points for x, a in zip(nest.inputs, nest.body.args)})
    for x in inputs:
        for param, hint in zip(new_params[x], hints[x]):
            param.name_hint = hint
    old_args = _producer_arguments(stencil, nest, produced, new_params, body)
    for op in list(old.ops):
        op.detach()
        body.add_op(op)
    for param, arg in zip(old.args, old_args):
        if param is not arg:
            param.replace_all_uses_with(arg)
    fused = _new_stencil(stencil, inputs, body, stencil.outs.types)
    return fused, dict(zip(stencil.outs, fused.outs, strict=True))


def fuse_stencil_into_map(stencil: StencilOp, consumer: Operation) -> Fused | None:
    """stencil -> map: the map's lambda after the stencil's; its other inputs read at the centre."""
    rank = len(stencil.dims)
    nest = elementwise_nest(consumer, rank)
    if nest is None or nest.widths != list(stencil.dims):
        return None
    for value in stencil.outs:
        for use in value.uses:
            inside = consumer.is_ancestor(use.operation)
            if inside and not (use.operation is consumer and 1 <= use.index < 1 + len(nest.inputs)):
                return None
    if not any(x in stencil.outs for x in nest.inputs):
        return None
    points, centre = len(stencil.offsets), len(stencil.offsets) // 2
    others = [x for x in dict.fromkeys(nest.inputs) if x not in stencil.outs]
    if (constants := _constants_with(stencil, others)) is None:
        return None
    inputs = [*stencil.inputs, *others]
    body = Block(arg_types=[t.get_element_type() for t in (x.type for x in inputs) for _ in range(points)])  # pyright: ignore
    for param, old in zip(body.args, stencil.body.block.args):
        param.name_hint = old.name_hint
    for i, x in enumerate(others):
        param = body.args[(len(stencil.inputs) + i) * points + centre]
        param.name_hint = nest.body.args[nest.inputs.index(x)].name_hint
    values = _clone_body(stencil.body.block, body, body.args[: len(stencil.inputs) * points])
    by_result = dict(zip(stencil.outs, values))
    at_centre = {x: body.args[(len(stencil.inputs) + i) * points + centre] for i, x in enumerate(others)}
    mapped = _clone_body(nest.body, body, [by_result[x] if x in by_result else at_centre[x] for x in nest.inputs])
    exported = [v for v in stencil.outs if any(not consumer.is_ancestor(u.operation) for u in v.uses)]
    yielded = [*mapped, *(by_result[v] for v in exported)]
    body.add_op(YieldOp(*yielded))
    result_types = [*consumer.result_types, *(v.type for v in exported)]
    fused = _new_stencil(stencil, inputs, body, result_types, constants)
    replacements = dict(zip(consumer.results, fused.outs[: len(consumer.results)]))
    replacements.update(zip(exported, fused.outs[len(consumer.results) :]))
    return fused, replacements


def try_fuse_stencil(graph: BlockGraph, producer: Operation, consumer: Operation) -> Operation | None:
    """Fuse a map->stencil or stencil->map pair of `graph.block` if a rule applies; return the fused op or None."""
    if isinstance(consumer, StencilOp) and isinstance(producer, MapOp):
        build = fuse_map_into_stencil
    elif isinstance(producer, StencilOp) and isinstance(consumer, MapOp):
        build = fuse_stencil_into_map
    else:
        return None
    if (anchor := graph.vertical_anchor(producer, consumer)) is None:
        return None
    if (fused := build(producer, consumer)) is None:  # pyright: ignore[reportArgumentType]
        return None
    return graph.replace_pair(fused, anchor, consumer, producer)
