"""The second-order array combinators and array operations of the embedding.

Each function emits one soac op (tracing its Python lambdas into the op's
regions) and returns symbolic values. Widths are the sizes of the first array
argument; the others must have as many rows when the program runs (checked
then, and reported at the line of the call). Indexing (`getitem`) follows numpy's:
integers and slices are `soac.index` and `soac.slice`, the rest (strided and inner
slices, index arrays, masks, new axes) maps and gathers over them.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from soac import dialect as soac
from soac.lang import dtypes
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTraceError, SoacTypeError, SourceLocation, located, user_location
from soac.lang.operators import convert_scalar
from soac.lang.tracer import Scope, Tracer, arity
from soac.lang.values import (
    Array,
    Scalar,
    Value,
    as_array,
    as_index,
    as_scalar,
    as_value,
    describe_types,
    ir_types,
    known_dim,
    retyped,
    type_name,
    use,
    wrap,
)
from soac.types import array_of, row_type
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute, BlockArgument, Operation, Region


def _results(result: Any) -> list[Any]:
    return list(result) if isinstance(result, tuple | list) else [result]


def _like(t: Attribute) -> DType | None:
    return None if isinstance(t, TensorType) else dtypes.from_ir(t)


def _finish(what: str, where: SourceLocation, expected: Sequence[Attribute] | None = None) -> Callable[[Any], list[Value]]:
    """Turn what a lambda returned into values (constants take the expected types) and check them."""

    def finish(result: Any) -> list[Value]:
        items = _results(result)
        if expected is not None and len(items) != len(expected):
            raise SoacTypeError(located(f"{what} returns {len(items)} value(s), expected {len(expected)}", where))
        likes = [_like(t) for t in expected] if expected is not None else [None] * len(items)
        values = [as_value(item, like, f"a result of {what}") for item, like in zip(items, likes)]
        if expected is not None:
            values = [retyped(v, t) for v, t in zip(values, expected)]
        if expected is not None and ir_types(values) != list(expected):
            want = "(" + ", ".join(type_name(t) for t in expected) + ")"
            raise SoacTypeError(located(f"{what} returns {describe_types(values)}, expected {want}", where))
        if not values:
            raise SoacTypeError(located(f"{what} returns nothing", where))
        return values

    return finish


def _row_wrapper(arrays: Sequence[Array]) -> Callable[[BlockArgument, Scope], Value]:
    """Wraps the lambda parameter of each array's rows, the inner sizes of a row being its array's."""
    remaining = list(arrays)

    def wrap_row(arg: BlockArgument, scope: Scope) -> Value:
        return wrap(arg, scope, row_of=remaining[arg.index] if arg.index < len(remaining) else None)

    return wrap_row


def _plain_wrapper(arg: BlockArgument, scope: Scope) -> Value:
    return wrap(arg, scope)


def _lambda(
    fn: Callable[..., Any],
    arg_types: Sequence[Attribute],
    what: str,
    where: SourceLocation,
    expected: Sequence[Attribute] | None = None,
    wrapper: Callable[[BlockArgument, Scope], Value] = _plain_wrapper,
) -> tuple[Region, list[Value]]:
    tracer = Tracer.current(what)
    if not callable(fn):
        raise SoacTypeError(located(f"{what} must be a Python function (a lambda or def), not {type(fn).__name__}", where))
    block, yielded = tracer.trace_block(fn, arg_types, wrapper, what, where, _finish(what, where, expected), soac.YieldOp)
    return Region(block), yielded


def _arrays(arrays: Sequence[Any], what: str) -> list[Array]:
    if not arrays:
        raise SoacTypeError(located(f"{what} needs at least one array"))
    return [as_array(a, f"argument {k + 1} of {what}") for k, a in enumerate(arrays)]


def _emit(op: Operation, where: SourceLocation) -> Operation:
    return Tracer.current(op.name).emit(op, where)


def _wrap_results(op: Operation, width: Scalar | None) -> list[Value]:
    tracer = Tracer.current(op.name)
    out: list[Value] = []
    for result in op.results:
        value = wrap(result, tracer.scope)
        if isinstance(value, Array) and width is not None:
            value._dims[0] = width
        out.append(value)
    return out


def _single(values: list[Value]) -> Any:
    return values[0] if len(values) == 1 else tuple(values)


# ---------------------------------------------------------------------------
# SOACs
# ---------------------------------------------------------------------------


def map_(fn: Callable[..., Any], *arrays: Any) -> Any:
    """`map f xs ys ...`: `f` applied to the rows of the arrays (element-wise on 1-D arrays); a tuple of
    results gives a tuple of arrays."""
    where = user_location()
    inputs = _arrays(arrays, "sl.map")
    width = inputs[0].dim(0)
    rows = [row_type(a.ir_type) for a in inputs]
    region, yielded = _lambda(fn, rows, "the lambda of sl.map", where, wrapper=_row_wrapper(inputs))  # pyright: ignore[reportArgumentType]
    op = soac.MapOp(width.ssa, [use(a) for a in inputs], [array_of(t) for t in ir_types(yielded)], region)
    _emit(op, where)
    results = _wrap_results(op, width)
    scope = Tracer.current("").scope
    for result, value in zip(results, yielded):
        if isinstance(result, Array) and isinstance(value, Scalar | Array):
            result.weak = value.weak
        if isinstance(result, Array) and isinstance(value, Array):  # the rows' sizes, where known outside
            for k in range(value.rank):
                known = known_dim(value, k)
                if known is not None and known.scope.is_open_in(scope):
                    result._dims[k + 1] = known
    return _single(results)


def _neutral(ne: Any, inputs: Sequence[Array], what: str) -> list[Value]:
    items = _results(ne)
    if len(items) != len(inputs):
        raise SoacTypeError(located(f"{what} has {len(items)} neutral element(s) for {len(inputs)} array(s)"))
    values = []
    for item, array in zip(items, inputs):
        row = row_type(array.ir_type)
        assert row is not None
        value = retyped(as_value(item, _like(row), f"the neutral element of {what}"), row)
        if value.ir_type != row:
            raise SoacTypeError(
                located(f"{what}: the neutral element is {type_name(value.ir_type)} but the array's rows are {type_name(row)}")
            )
        values.append(value)
    return values


def _operator(op: Callable[..., Any], k: int, what: str, where: SourceLocation) -> Callable[..., Any]:
    """The operator as a function of 2k arguments: `op(a, b)` for one value, `op((a1, a2), (b1, b2))` for tuples."""
    if k == 1:
        return op
    if (takes := arity(op)) is not None and takes != 2:
        raise SoacTraceError(
            located(f"{what} gets 2 tuples of {k} values, but the Python function takes {takes} argument(s)", where)
        )

    def paired(*args: Any) -> Any:
        return op(tuple(args[:k]), tuple(args[k:]))

    return paired


def reduce(op: Callable[..., Any], ne: Any, *arrays: Any, commutative: bool = False) -> Any:
    """`reduce op ne xs`: folds the rows with an associative operator `op` whose neutral element is `ne`
    (tuples of neutral elements and arrays reduce together; `op` then takes two tuples)."""
    where = user_location()
    inputs = _arrays(arrays, "sl.reduce")
    neutral = _neutral(ne, inputs, "sl.reduce")
    types = ir_types(neutral)
    width = inputs[0].dim(0)
    what = "the operator of sl.reduce"
    region, _ = _lambda(_operator(op, len(types), what, where), types * 2, what, where, types)
    red = soac.ReduceOp(width.ssa, [n.ssa for n in neutral], [use(a) for a in inputs], region, commutative)
    _emit(red, where)
    return _single(_wrap_results(red, None))


def scan(op: Callable[..., Any], ne: Any, *arrays: Any) -> Any:
    """`scan op ne xs`: the inclusive prefix scan with an associative operator `op` and its neutral element `ne`."""
    where = user_location()
    inputs = _arrays(arrays, "sl.scan")
    neutral = _neutral(ne, inputs, "sl.scan")
    types = ir_types(neutral)
    width = inputs[0].dim(0)
    what = "the operator of sl.scan"
    region, _ = _lambda(_operator(op, len(types), what, where), types * 2, what, where, types)
    sc = soac.ScanOp(width.ssa, [n.ssa for n in neutral], [use(a) for a in inputs], region)
    _emit(sc, where)
    return _single(_wrap_results(sc, width))


def _index_and_values(dests: Sequence[Array], indices: Array, values: Sequence[Array], what: str) -> None:
    if indices.rank != 1 or not indices.dtype.is_integer:
        raise SoacTypeError(located(f"{what}: the indices must be a 1-D integer array, not a {indices.describe()}"))
    for dest, vals in zip(dests, values):
        if row_type(vals.ir_type) != row_type(dest.ir_type):
            raise SoacTypeError(
                located(f"{what}: the values are {type_name(vals.ir_type)} but the destination is {type_name(dest.ir_type)}")
            )


def _destination(dest: Array, values: Array) -> Array:
    """A weak destination (`sl.replicate(n, 0)`) of the values' type: JAX's weak types for the written array."""
    from soac.lang.operators import retype_array

    if dest.weak and not values.weak and dest.dtype != values.dtype:
        return retype_array(dest, values.dtype)
    return dest


def scatter(dest: Any, indices: Any, values: Any) -> Any:
    """`scatter dest is vs`: `dest` with `dest[is[j]] = vs[j]` for every j whose index is in bounds (others are
    dropped, as in Futhark). `dest` is consumed: it may not be used afterwards (write `sl.copy(xs)` to keep xs)."""
    where = user_location()
    target = as_array(dest, "the destination of sl.scatter")
    idx = as_array(indices, "the indices of sl.scatter")
    vals = as_array(values, "the values of sl.scatter")
    target = _destination(target, vals)
    _index_and_values([target], idx, [vals], "sl.scatter")
    width = idx.dim(0)

    def body(i: Scalar, v: Value) -> tuple[Scalar, Value]:
        return convert_scalar(i, dtypes.index), v

    region, _ = _lambda(body, [row_type(idx.ir_type), row_type(vals.ir_type)], "sl.scatter", where)  # pyright: ignore[reportArgumentType]
    op = soac.ScatterOp(width.ssa, [use(idx), use(vals)], [use(target)], region)
    _emit(op, where)
    (result,) = _wrap_results(op, None)
    assert isinstance(result, Array)
    result._dims = list(target._dims)
    result._row_of, result._offset = target, 0
    return result


def hist(dest: Any, op: Callable[..., Any], ne: Any, indices: Any, values: Any) -> Any:
    """`reduce_by_index dest op ne is vs`: `dest[is[j]] = op(dest[is[j]], vs[j])` for every j whose index is in
    bounds; `op` must be associative and commutative with neutral element `ne`. `dest` is consumed.

    A 2-D `dest` has a row per bin (Futhark's `reduce_by_index` with array elements): `vs` holds rows, `op`
    combines two rows (element-wise, e.g. `lambda a, b: a + b`, for the OpenCL backend) and `ne` is a row or one
    value for every column."""
    where = user_location()
    target = as_array(dest, "the destination of sl.hist")
    idx = as_array(indices, "the indices of sl.hist")
    vals = as_array(values, "the values of sl.hist")
    target = _destination(target, vals)
    if target.rank not in (1, 2):
        raise SoacTypeError(
            located(f"sl.hist: the destination must be a 1-D array (of bins) or a 2-D one (of rows), not a {target.describe()}")
        )
    _index_and_values([target], idx, [vals], "sl.hist")
    rows = target.rank == 2
    if rows and not isinstance(ne, Array | tuple | list):  # one value for every column of the rows
        ne = replicate(target.dim(1), ne, target.dtype)
    (neutral,) = _neutral(ne, [target], "sl.hist")
    types = [neutral.ir_type]
    what = "the operator of sl.hist"
    wrapper = _row_wrapper([target, target]) if rows else _plain_wrapper  # rows as wide as the destination's
    combine, _ = _lambda(op, types * 2, what, where, types, wrapper)
    width = idx.dim(0)

    def body(i: Scalar, v: Value) -> tuple[Scalar, Value]:
        return convert_scalar(i, dtypes.index), v

    params = [row_type(idx.ir_type), row_type(vals.ir_type)]
    region, _ = _lambda(body, params, "sl.hist", where, wrapper=_row_wrapper([idx, vals]))  # pyright: ignore[reportArgumentType]
    h = soac.HistOp(width.ssa, [use(idx), use(vals)], [use(target)], [neutral.ssa], combine, region)
    _emit(h, where)
    (result,) = _wrap_results(h, target.dim(0))
    assert isinstance(result, Array)
    result._dims = list(target._dims)
    return result


# ---------------------------------------------------------------------------
# Array construction and rearrangement
# ---------------------------------------------------------------------------


def iota(n: Any, dtype: DType = dtypes.int64) -> Array:
    """`[0, 1, ..., n-1]` (of `dtype`, i64 by default as numpy's arange)."""
    where = user_location()
    dtype = dtypes.element_type(dtype, "the dtype of sl.iota")
    if not dtype.is_integer or dtype.kind == "x":
        raise SoacTypeError(located(f"sl.iota makes integers, not {dtype}"))
    width = as_index(n, "the size of sl.iota")
    op = soac.IotaOp(width, TensorType(dtype.ir, [DYNAMIC_INDEX]))
    _emit(op, where)
    (result,) = _wrap_results(op, Scalar(width, Tracer.current("").scope, dtypes.index))
    return result  # pyright: ignore[reportReturnType]


def replicate(n: Any, value: Any, dtype: DType | None = None) -> Array:
    """`[v, v, ..., v]`, n times (`v` may be an array: the result has one more dimension)."""
    where = user_location()
    width = as_index(n, "the size of sl.replicate")
    if dtype is not None:
        dtype = dtypes.element_type(dtype, "the dtype of sl.replicate")
    v = as_value(value, dtype, "the value of sl.replicate")
    op = soac.ReplicateOp(width, use(v))
    _emit(op, where)
    tracer = Tracer.current("")
    size = Scalar(width, tracer.scope, dtypes.index)
    result = wrap(op.results[0], tracer.scope)
    assert isinstance(result, Array)
    result._dims[0] = size
    result.weak = isinstance(v, Scalar | Array) and v.weak
    if isinstance(v, Array):
        result._row_of = v
        result._offset = -1
    return result


def rotate(array: Any, amount: Any) -> Array:
    """The rows of the array rotated left by `amount` (Futhark's `rotate`): row `i` of the result is row
    `(i + amount) mod n`; a negative amount rotates right. `amount` is an int or an integer scalar."""
    where = user_location()
    a = as_array(array, "the array of sl.rotate")
    op = soac.RotateOp(use(a), as_index(amount, "sl.rotate's amount"))
    _emit(op, where)
    result = wrap(op.results[0], Tracer.current("").scope, dims=list(a._dims))
    assert isinstance(result, Array)
    return result


def roll(array: Any, shift: Any, axis: int | None = None) -> Array:
    """numpy's `roll` along the rows: row `i` of the result is row `(i - shift) mod n` (`sl.rotate(xs, -shift)`).
    `axis` must be 0, or None for a one-dimensional array (numpy rolls a flattened copy otherwise)."""
    a = as_array(array, "the array of sl.roll")
    if not (axis == 0 or (axis is None and a.rank == 1)):
        raise SoacTypeError(
            located(
                f"sl.roll rolls the rows (axis=0) only, not axis {axis} of a {a.describe()}; "
                "move the axis first with sl.transpose"
            )
        )
    if isinstance(shift, bool | np.bool_):
        raise SoacTypeError(located("sl.roll's shift must be an integer, not a bool"))
    return rotate(a, -shift)


def transpose(array: Any, perm: Sequence[int] | None = None) -> Array:
    """The array with its dimensions rearranged: result dimension i is dimension perm[i] (reversed by default)."""
    where = user_location()
    a = as_array(array, "the array of sl.transpose")
    order = list(perm) if perm is not None else list(reversed(range(a.rank)))
    if sorted(order) != list(range(a.rank)):
        raise SoacTypeError(located(f"sl.transpose: {order} is not a permutation of the {a.rank} dimensions"))
    known = [a._dims[p] for p in order]
    op = soac.TransposeOp(use(a), order)
    _emit(op, where)
    result = wrap(op.results[0], Tracer.current("").scope, dims=known)
    assert isinstance(result, Array)
    return result


def reverse(array: Any, axis: int | Sequence[int] = 0) -> Array:
    """The array with its elements in reverse order along `axis` (the rows, last first, by default: Futhark's
    `reverse`; a tuple of axes reverses each, as `np.flip`); `xs[::-1]` is `sl.reverse(xs)`."""
    where = user_location()
    a = as_array(array, "the array of sl.reverse")
    axes = [axis] if isinstance(axis, int | np.integer) else list(axis)
    dims = [int(k) + a.rank if int(k) < 0 else int(k) for k in axes]
    if not dims or len(set(dims)) != len(dims) or not all(0 <= k < a.rank for k in dims):
        raise SoacTypeError(located(f"sl.reverse: axis {axis} names no distinct axes of a {a.describe()}"))
    op = soac.ReverseOp(use(a), sorted(dims))
    _emit(op, where)
    result = wrap(op.results[0], Tracer.current("").scope, dims=list(a._dims))
    assert isinstance(result, Array)
    return result


def reshape(array: Any, shape: Any) -> Array:
    """The elements of the array in row-major order as an array of sizes `shape` (ints or integer scalars; one of
    them may be -1, the size that keeps the element count, as in numpy). The count must stay the same (checked
    when it runs)."""
    where = user_location()
    a = as_array(array, "the array of sl.reshape")
    sizes = list(shape) if isinstance(shape, tuple | list) else [shape]
    if not sizes:
        raise SoacTypeError(located(f"sl.reshape of a {a.describe()} needs at least one size"))
    free = [k for k, size in enumerate(sizes) if isinstance(size, int | np.integer) and not isinstance(size, bool) and size == -1]
    if len(free) > 1:
        raise SoacTypeError(located(f"sl.reshape: only one size may be -1, not {len(free)} of {tuple(sizes)}"))
    for size in sizes:
        if isinstance(size, int | np.integer) and not isinstance(size, bool) and size < -1:
            raise SoacTypeError(located(f"sl.reshape: size {size} is negative"))
    if free:
        rest = [size for k, size in enumerate(sizes) if k != free[0]]
        known = 1
        for size in rest:
            known = known * size
        sizes[free[0]] = a.size // known
    tracer = Tracer.current("")
    values = [as_index(size, "a size of sl.reshape") for size in sizes]
    op = soac.ReshapeOp(use(a), values)
    _emit(op, where)
    result = wrap(op.results[0], tracer.scope, dims=[Scalar(v, tracer.scope, dtypes.index) for v in values])
    assert isinstance(result, Array)
    return result


def flatten(array: Any) -> Array:
    """Futhark's `flatten`: the two outer dimensions as one, `[n][m]t -> [n*m]t` (numpy's `flatten`, to one
    dimension, is `xs.reshape(-1)`)."""
    a = as_array(array, "the array of sl.flatten")
    if a.rank < 2:
        raise SoacTypeError(located(f"sl.flatten needs an array of at least 2 dimensions, not a {a.describe()}"))
    return reshape(a, [a.dim(0) * a.dim(1), *(a.dim(k) for k in range(2, a.rank))])


def unflatten(array: Any, n: Any, m: Any) -> Array:
    """Futhark's `unflatten`: the outer dimension as two, `[n*m]t -> [n][m]t` (checked when it runs)."""
    a = as_array(array, "the array of sl.unflatten")
    return reshape(a, [n, m, *(a.dim(k) for k in range(1, a.rank))])


def copy(array: Any) -> Array:
    """A fresh copy of an array (what a consuming op such as sl.scatter may write into while the original lives on)."""
    a = as_array(array, "the array of sl.copy")
    return map_(lambda row: row, a)


# ---------------------------------------------------------------------------
# Indexing and slicing
# ---------------------------------------------------------------------------


def _position(array: Array, k: int, item: Any) -> Any:
    """An index into dimension k: negative constants (Python's or numpy's integers) count from the end, as in Python."""
    if isinstance(item, int | np.integer) and not isinstance(item, bool) and item < 0:
        return array.dim(k) + int(item)
    return item


def getitem(array: Array, key: Any) -> Any:
    """numpy's basic and advanced indexing on a symbolic array: integers (`xs[i, j]`: soac.index), slices
    (`xs[lo:hi]`: soac.slice; `xs[::s]`: a gather), slices before other indices (`m[:, j]`: a map over the rows),
    integer arrays (`xs[idx]`: a gather), bool arrays (`xs[mask]`: a filter), None (a new axis of size 1) and
    `...`."""
    where = user_location()
    use(array)
    items = list(key) if isinstance(key, tuple) else [key]
    if any(item is Ellipsis for item in items):
        k = next(k for k, item in enumerate(items) if item is Ellipsis)
        if any(item is Ellipsis for item in items[k + 1 :]):
            raise SoacTypeError(located("an index can have only one ..."))
        fill = array.rank - _counted(items[:k] + items[k + 1 :])
        items = items[:k] + [slice(None)] * builtins.max(fill, 0) + items[k + 1 :]
    if _counted(items) > array.rank:
        raise SoacTypeError(located(f"{_counted(items)} indices for a {array.describe()}"))
    if any(item is None for item in items):
        return _new_axes(array, items, where)
    return _index_items(array, items, where)


def _counted(items: Sequence[Any]) -> int:
    """The number of dimensions that `items` index (None adds one, a bool mask of rank r consumes r)."""
    return builtins.sum(
        item.rank if isinstance(item, Array) and item.dtype.kind == "b" else 1 for item in items if item is not None
    )


def _is_full(item: Any) -> bool:
    """`:`, a slice of all rows (compared by identity: a symbolic bound's `==` would build IR)."""
    return isinstance(item, slice) and item.start is None and item.stop is None and item.step is None


def _is_position(item: Any) -> bool:
    return (isinstance(item, int | np.integer) and not isinstance(item, bool | np.bool_)) or isinstance(item, Scalar)


def _index_items(array: Array, items: list[Any], where: SourceLocation) -> Any:
    positions: list[Any] = []
    while items and _is_position(items[0]):
        positions.append(as_index(_position(array, len(positions), items.pop(0)), "an index"))
    if positions:
        array = index_into(array, positions, where)
        if not items:
            return array
    item, rest = items[0], items[1:]
    if isinstance(item, slice):
        rows = array if _is_full(item) else slice_rows(array, item, where)
    elif isinstance(item, Array) and item.dtype.kind == "b":
        from soac.lang.gathers import compress

        if item.rank != 1:
            raise SoacTypeError(
                located(
                    f"a mask indexes rows: a 1-D bool array, not a {item.describe()}; flatten both first, "
                    "xs.reshape(-1)[mask.reshape(-1)]",
                    where,
                )
            )
        rows = compress(item, array)
    elif isinstance(item, Array | list):
        from soac.lang.construction import array as literal
        from soac.lang.gathers import gather

        indices = literal([_position(array, 0, k) for k in item]) if isinstance(item, list) else item
        rows = gather(array, indices)
        if rest and indices.rank != 1:
            raise SoacTypeError(
                located(
                    "an index array of several dimensions must be the last index; index the other dimensions "
                    "first (xs[:, j][idx]) or map over the rows",
                    where,
                )
            )
    elif isinstance(item, bool | np.bool_ | Scalar):
        as_index(item, "an index")  # a bool or a float: its own message
        raise AssertionError("as_index accepts no bool or float")
    else:
        got = item.describe() if isinstance(item, Value) else type(item).__name__
        raise SoacTypeError(located(f"an index is a {got}: use integers, slices, integer or bool arrays, None or ...", where))
    if all(_is_full(r) for r in rest):
        return rows
    # a slice of an inner dimension becomes its positions, computed here: the rows' slices then have a size known
    # outside the map (a map yielding soac.slice of each row is an irregular array to the lowering)
    rest = [slice_positions(rows, 1 + j, r) if isinstance(r, slice) and not _is_full(r) else r for j, r in enumerate(rest)]
    return map_(lambda row: _index_items(row, list(rest), where), rows)


def _new_axes(array: Array, items: list[Any], where: SourceLocation) -> Array:
    """`xs[:, None]`: the array (indexed by slices only) with a dimension of size 1 where each None is."""
    if not all(item is None or isinstance(item, slice) for item in items):
        raise SoacTypeError(
            located("None (a new axis) goes with slices only, e.g. v[:, None]; index first, then add the axis", where)
        )
    result = _index_items(array, [item for item in items if item is not None] or [slice(None)], where)
    sizes: list[Any] = []
    k = 0
    for item in items:
        if item is None:
            sizes.append(1)
        else:
            sizes.append(result.dim(k))
            k += 1
    sizes.extend(result.dim(d) for d in range(k, result.rank))
    return reshape(result, sizes)


def index_into(array: Array, indices: list[Any], where: SourceLocation) -> Any:
    op = soac.IndexOp(use(array), indices)
    _emit(op, where)
    tracer = Tracer.current("")
    if isinstance(op.result.type, TensorType):
        value = wrap(op.result, tracer.scope, row_of=array)
        assert isinstance(value, Array)
        value._offset = len(indices)
        return value
    return wrap(op.result, tracer.scope)


def _step(item: slice) -> int:
    step = 1 if item.step is None else item.step
    if not isinstance(step, int | np.integer) or isinstance(step, bool) or step == 0:
        raise SoacTypeError(located(f"a slice's step must be a nonzero Python int, not {item.step!r}"))
    return int(step)


def slice_rows(array: Array, item: slice, where: SourceLocation | None) -> Array:
    where = where or user_location()
    step = _step(item)
    if step == -1 and item.start is None and item.stop is None:
        return reverse(array)
    if step != 1:
        return _strided(array, item, step)
    lo = as_index(_position(array, 0, item.start if item.start is not None else 0), "a slice bound")
    hi_value = _position(array, 0, item.stop) if item.stop is not None else array.dim(0)
    hi = as_index(hi_value, "a slice bound")
    tracer = Tracer.current("")
    length = tracer.emit(arith.SubiOp(hi, lo), where).results[0]
    op = soac.SliceOp(use(array), lo, hi)
    _emit(op, where)
    value = wrap(op.result, tracer.scope, row_of=array)
    assert isinstance(value, Array)
    value._offset = 0
    value._dims[0] = Scalar(length, tracer.scope, dtypes.index)
    return value


def _strided(array: Array, item: slice, step: int) -> Array:
    """`xs[lo:hi:s]` with Python's meaning (bounds clamped to the array, negative ones from the end): a gather of
    the rows lo, lo + s, ... before hi."""
    return map_(lambda k: array[k], slice_positions(array, 0, item))


def slice_positions(array: Array, k: int, item: slice) -> Array:
    """The positions (i64) that the slice `item` picks along dimension `k` of `array`, as Python picks them."""
    from soac.lang.control import maximum, minimum

    step = _step(item)
    n = convert_scalar(array.dim(k), dtypes.int64)

    def bound(value: Any, default: Any) -> Any:
        if value is None:
            return default
        if not _is_position(value) or (isinstance(value, Scalar) and not value.dtype.is_integer):
            raise SoacTypeError(located(f"a slice bound must be an integer, not {value!r}"))
        position = convert_scalar(value, dtypes.int64) if isinstance(value, Scalar) else int(value)
        return minimum(maximum(where_negative(position, n), 0 if step > 0 else -1), n if step > 0 else n - 1)

    if step > 0:
        lo, hi = bound(item.start, 0), bound(item.stop, n)
        count = maximum((hi - lo + (step - 1)) // step, 0)
    else:
        lo, hi = bound(item.start, n - 1), bound(item.stop, -1)
        count = maximum((lo - hi + (-step - 1)) // -step, 0)
    return map_(lambda i: lo + i * step, iota(count))


def where_negative(position: Any, n: Scalar) -> Any:
    """`position + n` where `position` is negative (Python's indices from the end)."""
    from soac.lang.control import where

    if isinstance(position, int):
        return position + n if position < 0 else position
    return where(position < 0, position + n, position)


def check_at_run_time(ok: Any, message: str) -> None:
    """Fail the run with `message` (at the user's line) unless `ok` holds when the program runs."""
    Tracer.current("a check").emit(soac.AssertOp(use(as_scalar(ok, dtypes.bool_)), message))


# ---------------------------------------------------------------------------
# Reductions and scans with known operators
# ---------------------------------------------------------------------------


def _extreme(dtype: DType, highest: bool) -> int | float | bool:
    if dtype.is_float:
        return float("inf") if highest else float("-inf")
    if dtype.kind == "b":
        return highest
    info = __import__("numpy").iinfo(dtype.numpy)
    return int(info.max if highest else info.min)


def _one_d(xs: Any, what: str) -> Array:
    a = as_array(xs, f"the array of {what}")
    if a.rank != 1:
        raise SoacTypeError(located(f"{what} takes a 1-D array, not a {a.describe()}; use sl.map over the rows"))
    return a


def sum(xs: Any) -> Scalar:
    """The sum of a 1-D array (a commutative reduce)."""
    a = _one_d(xs, "sl.sum")
    return reduce(lambda x, y: x + y, 0, a, commutative=True)


def min(xs: Any) -> Scalar:
    """The smallest element of a 1-D array (its type's highest value when empty)."""
    from soac.lang.control import minimum

    a = _one_d(xs, "sl.min")
    return reduce(minimum, _extreme(a.dtype, True), a, commutative=True)


def max(xs: Any) -> Scalar:
    """The largest element of a 1-D array (its type's lowest value when empty)."""
    from soac.lang.control import maximum

    a = _one_d(xs, "sl.max")
    return reduce(maximum, _extreme(a.dtype, False), a, commutative=True)


def cumsum(xs: Any, axis: int | None = None, dtype: Any = None) -> Array:
    """numpy's cumsum: the inclusive prefix sums of a 1-D array (in `dtype` if given, else the array's type), of a
    flattened array (`axis=None`), or along `axis` (a map over the other axes; axis 0 through transposes)."""
    a = as_array(xs, "the array of sl.cumsum")
    if dtype is not None:
        a = a.astype(dtypes.element_type(dtype, "the dtype of sl.cumsum"))
    elif a.dtype.kind == "b":
        a = a.astype(dtypes.int64)
    if axis is None:
        return scan(lambda x, y: x + y, 0, a if a.rank == 1 else reshape(a, [-1]))
    if not isinstance(axis, int | np.integer) or not -a.rank <= axis < a.rank:
        raise SoacTypeError(located(f"sl.cumsum: axis {axis!r} is no axis of a {a.describe()}"))
    return _scan_along(a, int(axis) % a.rank)


def _scan_along(a: Array, k: int) -> Array:
    if a.rank == 1:
        return scan(lambda x, y: x + y, 0, a)
    if k == 0:
        order = [*range(1, a.rank), 0]
        back = [order.index(d) for d in range(a.rank)]
        return transpose(_scan_along(transpose(a, order), a.rank - 1), back)
    return map_(lambda row: _scan_along(row, k - 1), a)
