"""Stream compaction of 1-D arrays (`sl.filter`, `sl.compress`, numpy's `xs[mask]`) as one scan whose kernel scatters.

`kept_in_order(flags, xs)` emits a scanomap of the flags and an iota of the rows that counts the kept elements (one
i32 sum), and a scatter that takes all three of its post results: each kept element goes to its place among the kept
ones, and the last row (i == n - 1) writes the kept total. The destination is a `tensor.empty` (the places after the
total are never read), so nothing fills it:

    %fresh = tensor.empty(%n) : tensor<?xi32>
    %count = soac.replicate %c1, %zero : i32 -> tensor<?xi32>
    %is = soac.iota %n : tensor<?xi32>
    %at, %last, %total = soac.scanomap %n (%flags, %is : tensor<?xi1>, tensor<?xi32>) neutral(%zero : i32) -> (...)
        combine(%a: i32, %b: i32) { ...; soac.yield %a + %b }
        lambda(%keep: i1, %i: i32) { soac.yield (i32)%keep }
        post(%kept: i32, %keep: i1, %i: i32) { soac.yield %keep ? %kept - 1 : -1, %i == n - 1 ? 0 : -1, %kept }
    %out, %counted = soac.scatter %n (%at, %last, %total, %xs) into(%fresh, %count)
        lambda(%q: i32, %l: i32, %t: i32, %x: i32) { soac.yield (index)%q, (index)%l, %x, %t }

Fusion moves a filter's predicate (a map producing the flags) into the scanomap, and on GPUs the look-back scan's
kernel does the scatter (`lowering/strategies/scan_scatter.py`): the input is read once and only the kept elements
are written. The iota is never stored: the scan's kernel computes row i as i (`lowering/strategies/
generated_inputs.py`), so the last row costs no second scanned value (on an H200, 2^28 i32: 0.859 ms for the scan
kernel with the rows scanned beside the kept count, 0.746 with the kept count alone; bench/compaction_variants.py).
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
from soac.lang.soacs import check_at_run_time, iota
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
    final = convert_scalar(n, i32) - 1
    zero = as_scalar(0, i32)
    fresh = _empty(xs, where)
    count = full(1, 0, i32)
    rows = iota(n, i32)

    def combine(a: Scalar, b: Scalar) -> Scalar:
        return a + b

    def counted(keep: Scalar, _i: Scalar) -> Scalar:
        return convert_scalar(keep, i32)

    def post(kept: Scalar, keep: Scalar, i: Scalar) -> tuple[Any, ...]:
        none = as_scalar(-1, i32)
        return select(keep, kept - 1, none), select(i == final, zero, none), kept

    what = "the compaction"
    scanned = [i32.ir]
    row_types = [row_type(flags.ir_type), i32.ir]
    combine_region, _ = trace_lambda(combine, scanned * 2, what, where, scanned)
    body, _ = trace_lambda(counted, row_types, what, where, scanned)
    post_region, _ = trace_lambda(post, [*scanned, *row_types], what, where, [i32.ir] * 3)
    places = TensorType(i32.ir, [-1])
    scan = soac.ScanomapOp(n.ssa, [zero.ssa], [use(flags), use(rows)], [places] * 3, combine_region, body, post_region)
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
