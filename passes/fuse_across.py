r"""Fusion across `transpose`, `reverse` and `reshape` (Futhark's fuse-across-transpose and fuse-across-reshape).

An array op applied to the result of an element-wise map nest (a nest of maps as deep as the result's rank, each
lambda passing its rows to the next map and the innermost computing a scalar from its elements alone) is the same
nest over the array op applied to each of the nest's inputs: the consumer then reads the producer's element at
the transformed index, and vertical fusion takes the nest into the SOAC that uses the array op's result.

    %b = soac.map %n (%a : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%r: tensor<?xi32>) {
      %row = soac.map %m (%r : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) { ... soac.yield %y : i32 }
      soac.yield %row : tensor<?xi32>
    }
    %c = soac.transpose %b [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
becomes
    %c_in = soac.transpose %a [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
    %c = soac.map %w0 (%c_in : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%r: tensor<?xi32>) {
      %row = soac.map %w1 (%r : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) { ... soac.yield %y : i32 }
      soac.yield %row : tensor<?xi32>
    }
with the widths `%w0`, `%w1` the sizes of `%c_in` (a reshape's own sizes). It applies where the array op's
result feeds SOACs or more array ops (a chain `unflatten |> transpose` moves step by step) and the nest's
result has no other use, so nothing is computed twice.

Where the producer is a map nest that is not element-wise over its inputs (a level maps over an array free in the
nest, as in `map (\a -> map (\b -> a*b) B) A |> flatten |> map f`), the array op moves the other way: an
element-wise consumer nest over its result is the same nest over its source, followed by the array op. The
consumer then reads the producer's own result, and vertical fusion takes the producer in:

    %f = soac.reshape %prod (%nm) : tensor<?x?xi32> -> tensor<?xi32>
    %r = soac.map %nm (%f : tensor<?xi32>) -> tensor<?xf64> lambda(%e: i32) { ... }
becomes
    %r_nest = soac.map %n (%prod : tensor<?x?xi32>) -> tensor<?x?xf64> lambda(%row: tensor<?xi32>) {
      %inner = soac.map %m (%row : tensor<?xi32>) -> tensor<?xf64> lambda(%e: i32) { ... }
      soac.yield %inner : tensor<?xf64>
    }
    %r = soac.reshape %r_nest (%nm) : tensor<?x?xf64> -> tensor<?xf64>
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from soac.dialect import SOAC_WITH_LAMBDAS, MapOp, ReshapeOp, ReverseOp, TransposeOp, YieldOp
from soac.passes.flatten_analysis import defined_in
from soac.passes.flatten_checks import array_dim, same_size
from soac.passes.simplify_sizes import DimOf, Size, SizeResolver, constant_index
from soac.types import array_of_rank
from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

ArrayOp = TransposeOp | ReverseOp | ReshapeOp
ARRAY_OPS = (TransposeOp, ReverseOp, ReshapeOp)


@dataclass
class ElementwiseNest:
    """A map nest of `depth` levels whose innermost lambda `body` computes one scalar from the elements alone."""

    op: MapOp
    depth: int
    body: Block
    widths: list[SSAValue | None]
    """The width of each level, where it is a value from outside the nest."""


def _rank(value: SSAValue) -> int:
    return value.type.get_num_dims() if isinstance(value.type, TensorType) else 0


def _size_code(op: Operation) -> bool:
    return isinstance(op, arith.ConstantOp | tensor.DimOp)


def elementwise_nest(op: MapOp) -> ElementwiseNest | None:
    """`op` as an element-wise nest, if it is one (its lambdas may also compute sizes, which the nest drops)."""
    if len(op.outs) != 1 or any(_rank(x) != _rank(op.outs[0]) for x in op.inputs):
        return None
    current, depth, widths = op, 1, [op.width]
    while True:
        block = current.body.block
        inner = [o for o in block.ops if isinstance(o, MapOp)]
        if not inner:
            break
        (nested,) = inner if len(inner) == 1 else (None,)
        terminator = block.last_op
        if nested is None or len(nested.outs) != 1 or list(nested.inputs) != list(block.args):
            return None
        if terminator is None or list(terminator.operands) != [nested.outs[0]]:
            return None
        if not all(o is nested or o is terminator or _size_code(o) for o in block.ops):
            return None
        current, depth = nested, depth + 1
        widths.append(nested.width)
    if not all(_is_input_size(op, k, w) for k, w in enumerate(widths)):
        return None  # the nest checks a width against its rows that the new nest would not
    body = current.body.block
    if depth != _rank(op.outs[0]) or any(isinstance(a.type, TensorType) for a in body.args):
        return None
    for inner_op in current.body.walk():
        for operand in inner_op.operands:
            if defined_in(operand, op) and not defined_in(operand, current):
                return None  # the element's value depends on an outer level of the nest
    return ElementwiseNest(op, depth, body, [None if defined_in(w, op) else w for w in widths])


def _is_input_size(op: MapOp, level: int, width: SSAValue) -> bool:
    """True if `width` is, by construction, the size of dimension `level` of the nest's first input: `tensor.dim`
    of it or of a row of it that a lambda of the nest gets as its first parameter, or the width of the op that
    built it."""
    if same_size(width, array_dim(op.inputs[0], level)):
        return True
    dim = width.owner
    if not isinstance(dim, tensor.DimOp) or not isinstance(index := dim.index.owner, arith.ConstantOp):
        return False
    source, axis = dim.source, index.value.value.data  # pyright: ignore[reportAttributeAccessIssue]
    while isinstance(block := source.owner, Block) and source is block.args[0]:
        parent = block.parent_op()
        if not isinstance(parent, MapOp) or not (parent is op or op.is_ancestor(parent)):
            break
        source, axis = parent.inputs[0], axis + 1
    return source is op.inputs[0] and axis == level


def _feeds_fusion(value: SSAValue, block: Block | None) -> bool:
    users = [use.operation for use in value.uses]
    return bool(users) and all(u.parent_block() is block and isinstance(u, SOAC_WITH_LAMBDAS + ARRAY_OPS) for u in users)


def _same_op_on(op: ArrayOp, array: SSAValue) -> ArrayOp:
    if isinstance(op, TransposeOp):
        return TransposeOp(array, op.perm)
    if isinstance(op, ReverseOp):
        return ReverseOp(array, op.dims)
    return ReshapeOp(array, list(op.sizes))


def push_into_nest(op: ArrayOp) -> MapOp | None:
    """Rewrite `op(nest(xs...))` as `nest(op(xs)...)` (see the module docstring); gives the new nest or None."""
    source = op.operands[0]
    producer = source.owner
    if not isinstance(producer, MapOp) or not source.has_one_use() or producer.parent_block() is not op.parent_block():
        return None
    if (nest := elementwise_nest(producer)) is None or not _feeds_fusion(op.result, op.parent_block()):
        return None
    builder = Builder(InsertPoint.before(op))
    inputs: list[SSAValue] = []
    for x in producer.inputs:
        moved = builder.insert(_same_op_on(op, x))
        moved.location = op.location
        moved.result.name_hint = f"{op.result.name_hint}_in" if op.result.name_hint else None
        inputs.append(moved.result)
    if isinstance(op, ReshapeOp):
        widths: Sequence[SSAValue] = list(op.sizes)
    else:
        known = [nest.widths[p] for p in op.perm] if isinstance(op, TransposeOp) else nest.widths
        widths = [w if w is not None else _dim(builder, inputs[0], k) for k, w in enumerate(known)]
    new = builder.insert(_nest(nest, inputs, widths))
    new.location = producer.location
    new.outs[0].name_hint = op.result.name_hint
    Rewriter.replace_op(op, [], [new.outs[0]])
    Rewriter.erase_op(producer)
    return new


def pull_out_of_nest(op: ArrayOp) -> MapOp | None:
    """Rewrite `nest(op(x))` as `op(nest(x))` where `x` comes from a map nest in the same block that the array op
    cannot move into (see the module docstring); gives the new nest or None."""
    source, result = op.operands[0], op.result
    producer = source.owner
    if not isinstance(producer, MapOp) or producer.parent_block() is not op.parent_block() or not result.has_one_use():
        return None
    consumer = next(iter(result.uses)).operation
    if not isinstance(consumer, MapOp) or consumer.parent_block() is not op.parent_block():
        return None
    if list(consumer.inputs) != [result] or (nest := elementwise_nest(consumer)) is None:
        return None
    builder = Builder(InsertPoint.before(consumer))
    resolver = SizeResolver(consumer)
    widths = [_known_size(builder, consumer, resolver.size(source, k), source, k) for k in range(_rank(source))]
    new = builder.insert(_nest(nest, [source], widths))
    new.location = consumer.location
    new.outs[0].name_hint = f"{consumer.outs[0].name_hint}_nest" if consumer.outs[0].name_hint else None
    moved = builder.insert(_same_op_on(op, new.outs[0]))
    moved.location = op.location
    moved.result.name_hint = consumer.outs[0].name_hint
    Rewriter.replace_op(consumer, [], [moved.result])
    Rewriter.erase_op(op)
    return new


def _known_size(builder: Builder, point: Operation, size: Size | None, array: SSAValue, axis: int) -> SSAValue:
    """A value before `point` for `size` (the producer's own width where the resolver knows it, so that the nest does
    not read the array it fuses with for its size; an existing `tensor.dim` where there is one, so that fusion sees
    the same width), else `tensor.dim` of `array`."""
    block = point.parent_block()
    if isinstance(size, SSAValue):
        return size
    if isinstance(size, DimOf):
        array, axis = size.array, size.dim
    for use in array.uses:
        dim = use.operation
        if isinstance(dim, tensor.DimOp) and constant_index(dim.index) == axis and dim.parent_block() is block:
            if dim.is_before_in_block(point):
                return dim.result
    return _dim(builder, array, axis)


def _dim(builder: Builder, array: SSAValue, axis: int) -> SSAValue:
    index = builder.insert(arith.ConstantOp(IntegerAttr(axis, IndexType())))
    return builder.insert(tensor.DimOp(array, index)).result


def _nest(nest: ElementwiseNest, inputs: Sequence[SSAValue], widths: Sequence[SSAValue]) -> MapOp:
    """The maps over `inputs` with `widths` level by level, the innermost running a copy of `nest.body`."""
    elements = [t.get_element_type() for t in (x.type for x in inputs) if isinstance(t, TensorType)]
    (result_element,) = [v.type for v in nest.body.last_op.operands]  # pyright: ignore[reportOptionalMemberAccess]
    depth = len(widths)

    def level(k: int, rows: Sequence[SSAValue]) -> MapOp:
        block = Block(arg_types=[array_of_rank(e, depth - k - 1) for e in elements])
        if k == depth - 1:
            mapper = dict(zip(nest.body.args, block.args))
            for arg, old in zip(block.args, nest.body.args):
                arg.name_hint = old.name_hint
            for inner in nest.body.ops:
                block.add_op(inner.clone(mapper))
        else:
            inner_map = level(k + 1, block.args)
            block.add_ops([inner_map, YieldOp(inner_map.outs[0])])
        return MapOp(widths[k], rows, [array_of_rank(result_element, depth - k)], Region(block))

    return level(0, inputs)
