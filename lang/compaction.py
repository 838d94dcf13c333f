"""Stream compaction of 1-D arrays (`sl.filter`, `sl.compress`, numpy's `xs[mask]`) as one scan whose kernel scatters.

`kept_in_order(flags, xs)` emits a scanomap of the flags that counts the kept elements and the rows (two i32 sums),
and a scatter that takes all three of its post results: each kept element goes to its place among the kept ones,
and the last row writes the kept total. The destination is a `tensor.empty` (the places after the total are never
read), so nothing fills it:

    %fresh = tensor.empty(%n) : tensor<?xi32>
    %count = soac.replicate %c1, %zero : i32 -> tensor<?xi32>
    %at, %last, %total = soac.scanomap %n (%flags : tensor<?xi1>) neutral(%zero, %zero : i32, i32) -> (...)
        combine(%a0: i32, %a1: i32, %b0: i32, %b1: i32) { ...; soac.yield %a0 + %b0, %a1 + %b1 }
        lambda(%keep: i1) { soac.yield (i32)%keep, 1 }
        post(%kept: i32, %rows: i32, %keep: i1) { soac.yield %keep ? %kept - 1 : -1, %rows == n ? 0 : -1, %kept }
    %out, %counted = soac.scatter %n (%at, %last, %total, %xs) into(%fresh, %count)
        lambda(%q: i32, %l: i32, %t: i32, %x: i32) { soac.yield (index)%q, (index)%l, %x, %t }

Fusion moves a filter's predicate (a map producing the flags) into the scanomap, and on GPUs the look-back scan's
kernel does the scatter (`lowering/strategies/scan_scatter.py`): the input is read once and only the kept elements
are written.
"""

from __future__ import annotations

from typing import Any

from soac import dialect as soac
from soac.lang import dtypes
from soac.lang.construction import full
from soac.lang.control import where as select
from soac.lang.conversions import convert_scalar
from soac.lang.errors import user_location
from soac.lang.lambdas import emit_at, trace_lambda, wrap_results
from soac.lang.soacs import check_at_run_time
from soac.lang.tracer import Tracer
from soac.lang.values import Array, Scalar, as_scalar, use, wrap
from soac.types import row_type
from xdsl.dialects import tensor
from xdsl.dialects.builtin import TensorType

MOST_ROWS = 2**31 - 1
"""The kept elements' places are counted in i32 (the look-back scan carries 32-bit values)."""


def kept_in_order(flags: Array, xs: Array) -> tuple[Array, Array]:
    """The 1-D array `xs` with the elements whose flag is true first, in order (the places after them unspecified),
    and their number (i32, as a 1-element array)."""
    where = user_location()
    n = xs.dim(0)
    i32 = dtypes.int32
    check_at_run_time(convert_scalar(n, dtypes.int64) <= MOST_ROWS, "a compaction of 2^31 elements or more")
    rows = convert_scalar(n, i32)
    zero = as_scalar(0, i32)
    fresh = _empty(xs, where)
    count = full(1, 0, i32)

    def combine(a0: Scalar, a1: Scalar, b0: Scalar, b1: Scalar) -> tuple[Any, ...]:
        return a0 + b0, a1 + b1

    def counted(keep: Scalar) -> tuple[Any, ...]:
        return convert_scalar(keep, i32), as_scalar(1, i32)

    def post(kept: Scalar, seen: Scalar, keep: Scalar) -> tuple[Any, ...]:
        none = as_scalar(-1, i32)
        return select(keep, kept - 1, none), select(seen == rows, zero, none), kept

    what = "the compaction"
    types = [i32.ir] * 2
    combine_region, _ = trace_lambda(combine, types * 2, what, where, types)
    body, _ = trace_lambda(counted, [row_type(flags.ir_type)], what, where, types)
    post_region, _ = trace_lambda(post, [*types, row_type(flags.ir_type)], what, where, [i32.ir] * 3)
    places = TensorType(i32.ir, [-1])
    scan = soac.ScanomapOp(n.ssa, [zero.ssa, zero.ssa], [use(flags)], [places] * 3, combine_region, body, post_region)
    emit_at(scan, where)
    at, last, total = wrap_results(scan, n)

    def scatter_body(q: Scalar, lt: Scalar, t: Scalar, x: Scalar) -> tuple[Any, ...]:
        return convert_scalar(q, dtypes.index), convert_scalar(lt, dtypes.index), x, t

    params = [i32.ir, i32.ir, i32.ir, row_type(xs.ir_type)]
    region, _ = trace_lambda(scatter_body, params, what, where)
    inputs = [use(at), use(last), use(total), use(xs)]  # pyright: ignore[reportArgumentType]
    scatter = soac.ScatterOp(n.ssa, inputs, [use(fresh), use(count)], region)
    emit_at(scatter, where)
    out, kept = wrap_results(scatter, None)
    assert isinstance(out, Array)
    assert isinstance(kept, Array)
    out._dims = [n]
    return kept, out


def _empty(xs: Array, where: Any) -> Array:
    """A new array of `xs`'s type and length, its contents unspecified (`tensor.empty`)."""
    op = tensor.EmptyOp([xs.dim(0).ssa], xs.ir_type)
    emit_at(op, where)
    result = wrap(op.tensor, Tracer.current("sl.filter").scope)
    assert isinstance(result, Array)
    result._dims = [xs.dim(0)]
    return result
