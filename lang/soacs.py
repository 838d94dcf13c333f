"""The second-order array combinators and array operations of the embedding.

Each function emits one soac op (tracing its Python lambdas into the op's
regions) and returns symbolic values. Widths are the sizes of the first array
argument; the others must have as many rows when the program runs (checked
then, and reported at the line of the call). Indexing is `soac.lang.indexing`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from soac import dialect as soac
from soac.lang import dtypes
from soac.lang.conversions import as_index, convert_scalar, retyped
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTraceError, SoacTypeError, SourceLocation, located, user_location
from soac.lang.lambdas import (
    array_arguments,
    emit_at,
    plain_wrapper,
    results_list,
    row_wrapper,
    scalar_dtype_of,
    single,
    trace_lambda,
    wrap_results,
)
from soac.lang.tracer import Tracer, arity
from soac.lang.values import Array, Scalar, Value, as_array, as_scalar, as_value, ir_types, known_dim, type_name, use, wrap
from soac.types import array_of, row_type
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType

# ---------------------------------------------------------------------------
# SOACs
# ---------------------------------------------------------------------------


def map_(fn: Callable[..., Any], *arrays: Any) -> Any:
    """`map f xs ys ...`: `f` applied to the rows of the arrays (element-wise on 1-D arrays); a tuple of
    results gives a tuple of arrays."""
    where = user_location()
    inputs = array_arguments(arrays, "sl.map")
    width = inputs[0].dim(0)
    rows = [row_type(a.ir_type) for a in inputs]
    region, yielded = trace_lambda(fn, rows, "the lambda of sl.map", where, wrapper=row_wrapper(inputs))  # pyright: ignore[reportArgumentType]
    op = soac.MapOp(width.ssa, [use(a) for a in inputs], [array_of(t) for t in ir_types(yielded)], region)
    emit_at(op, where)
    results = wrap_results(op, width)
    scope = Tracer.current("").scope
    for result, value in zip(results, yielded):
        if isinstance(result, Array) and isinstance(value, Scalar | Array):
            result.weak = value.weak
        if isinstance(result, Array) and isinstance(value, Array):  # the rows' sizes, where known outside
            for k in range(value.rank):
                known = known_dim(value, k)
                if known is not None and known.scope.is_open_in(scope):
                    result._dims[k + 1] = known
    return single(results)


def _neutral(ne: Any, inputs: Sequence[Array], what: str) -> list[Value]:
    items = results_list(ne)
    if len(items) != len(inputs):
        raise SoacTypeError(located(f"{what} has {len(items)} neutral element(s) for {len(inputs)} array(s)"))
    values = []
    for item, array in zip(items, inputs):
        row = row_type(array.ir_type)
        assert row is not None
        value = retyped(as_value(item, scalar_dtype_of(row), f"the neutral element of {what}"), row)
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
    inputs = array_arguments(arrays, "sl.reduce")
    neutral = _neutral(ne, inputs, "sl.reduce")
    types = ir_types(neutral)
    width = inputs[0].dim(0)
    what = "the operator of sl.reduce"
    region, _ = trace_lambda(_operator(op, len(types), what, where), types * 2, what, where, types)
    red = soac.ReduceOp(width.ssa, [n.ssa for n in neutral], [use(a) for a in inputs], region, commutative)
    emit_at(red, where)
    return single(wrap_results(red, None))


def scan(op: Callable[..., Any], ne: Any, *arrays: Any) -> Any:
    """`scan op ne xs`: the inclusive prefix scan with an associative operator `op` and its neutral element `ne`."""
    where = user_location()
    inputs = array_arguments(arrays, "sl.scan")
    neutral = _neutral(ne, inputs, "sl.scan")
    types = ir_types(neutral)
    width = inputs[0].dim(0)
    what = "the operator of sl.scan"
    region, _ = trace_lambda(_operator(op, len(types), what, where), types * 2, what, where, types)
    sc = soac.ScanOp(width.ssa, [n.ssa for n in neutral], [use(a) for a in inputs], region)
    emit_at(sc, where)
    return single(wrap_results(sc, width))


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

    region, _ = trace_lambda(body, [row_type(idx.ir_type), row_type(vals.ir_type)], "sl.scatter", where)  # pyright: ignore[reportArgumentType]
    op = soac.ScatterOp(width.ssa, [use(idx), use(vals)], [use(target)], region)
    emit_at(op, where)
    (result,) = wrap_results(op, None)
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
    wrapper = row_wrapper([target, target]) if rows else plain_wrapper  # rows as wide as the destination's
    combine, _ = trace_lambda(op, types * 2, what, where, types, wrapper)
    width = idx.dim(0)

    def body(i: Scalar, v: Value) -> tuple[Scalar, Value]:
        return convert_scalar(i, dtypes.index), v

    params = [row_type(idx.ir_type), row_type(vals.ir_type)]
    region, _ = trace_lambda(body, params, "sl.hist", where, wrapper=row_wrapper([idx, vals]))  # pyright: ignore[reportArgumentType]
    h = soac.HistOp(width.ssa, [use(idx), use(vals)], [use(target)], [neutral.ssa], combine, region)
    emit_at(h, where)
    (result,) = wrap_results(h, target.dim(0))
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
    emit_at(op, where)
    (result,) = wrap_results(op, Scalar(width, Tracer.current("").scope, dtypes.index))
    return result  # pyright: ignore[reportReturnType]


def replicate(n: Any, value: Any, dtype: DType | None = None) -> Array:
    """`[v, v, ..., v]`, n times (`v` may be an array: the result has one more dimension)."""
    where = user_location()
    width = as_index(n, "the size of sl.replicate")
    if dtype is not None:
        dtype = dtypes.element_type(dtype, "the dtype of sl.replicate")
    v = as_value(value, dtype, "the value of sl.replicate")
    op = soac.ReplicateOp(width, use(v))
    emit_at(op, where)
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


def retype_array(array: Array, dtype: DType) -> Array:
    """A weak array as one of `dtype`: a replicate of a constant is made again of the new type, others converted
    element-wise; a weak float array meeting integers stays as it is (the mismatch is reported where it is used)."""
    if array.dtype == dtype or (array.dtype.is_float and not dtype.is_float) or dtype.kind in "xb":
        return array
    owner = array.ssa.owner
    if isinstance(owner, soac.ReplicateOp) and isinstance(value := owner.value.owner, arith.ConstantOp):
        width = Scalar(owner.width, array.scope, dtypes.index)
        return replicate(width, value.value.value.data, dtype)  # pyright: ignore[reportAttributeAccessIssue]
    return array.astype(dtype)


def rotate(array: Any, amount: Any) -> Array:
    """The rows of the array rotated left by `amount` (Futhark's `rotate`): row `i` of the result is row
    `(i + amount) mod n`; a negative amount rotates right. `amount` is an int or an integer scalar."""
    where = user_location()
    a = as_array(array, "the array of sl.rotate")
    op = soac.RotateOp(use(a), as_index(amount, "sl.rotate's amount"))
    emit_at(op, where)
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
    emit_at(op, where)
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
    emit_at(op, where)
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
    emit_at(op, where)
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
    info = np.iinfo(dtype.numpy)
    return int(info.max if highest else info.min)


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
