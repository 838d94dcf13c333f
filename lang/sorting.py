"""Sorting on the ranking primitive: `sl.partition` (one `soac.partition`) and the least-significant-digit radix sorts
built of it (`sl.sort`, `sl.argsort`, `sl.sort_by_key`).

A radix sort is one stable partition per digit place, the lowest place first; each partition's lambda computes the
digit from the key it moves, so only the keys (and values) travel between the passes. Keys are compared as the
unsigned integers that order like them: a signed integer's sign bit flipped, a float's bits flipped whole where it is
negative and its sign bit flipped elsewhere (-0.0 counts as 0.0, as numpy orders them; NaNs are not ordered).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from soac import dialect as soac
from soac.lang import dtypes
from soac.lang.construction import full
from soac.lang.control import where as select
from soac.lang.conversions import convert_scalar
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTypeError, located, user_location
from soac.lang.lambdas import emit_at, row_wrapper, trace_lambda
from soac.lang.soacs import hist, iota, map_
from soac.lang.tracer import Tracer
from soac.lang.values import Array, Scalar, as_array, as_scalar, emit_value, use, wrap
from soac.types import row_type
from xdsl.dialects import arith

DIGIT_BITS = 8
"""Bits of a digit by default: 256 buckets, 4 passes over 32-bit keys (CUB's Onesweep uses 8)."""
MAX_DIGIT_BITS = 11
"""2048 buckets: the most whose counters a GPU work-group holds (`strategies/partition.py`)."""
SORTABLE = (dtypes.int32, dtypes.uint32, dtypes.int64, dtypes.uint64, dtypes.float32, dtypes.float64)


def partition(buckets: int, fn: Callable[..., Any], *arrays: Any, counts: Any = None) -> tuple[Array, ...]:
    """The stable multi-way partition (`soac.partition`): `fn` gives each row of the 1-D `arrays` a bucket in
    `[0, buckets)`; returns `(counts, *arrays)` with each array's rows ordered by bucket, within a bucket in their
    order, and the rows of buckets outside the range last. `counts[b]` (i32) is the rows of bucket `b`. Passing the
    `counts` (an i32 array of `buckets` entries, e.g. from one histogram of several partitions' buckets) lets a GPU
    partition in one pass over the rows (the interpreter checks them).

        counts, evens_first = sl.partition(2, lambda x: x % 2, xs)
    """
    where = user_location()
    if not isinstance(buckets, int) or isinstance(buckets, bool) or not 1 <= buckets <= soac.PARTITION_MAX_BUCKETS:
        most = soac.PARTITION_MAX_BUCKETS
        raise SoacTypeError(located(f"sl.partition takes 1 to {most} buckets (a Python int), not {buckets!r}", where))
    if not arrays:
        raise SoacTypeError(located("sl.partition needs at least one array", where))
    inputs = [as_array(a, f"argument {k + 3} of sl.partition") for k, a in enumerate(arrays)]
    for a in inputs:
        if a.rank != 1:
            raise SoacTypeError(located(f"sl.partition moves the elements of 1-D arrays, not a {a.describe()}", where))

    def body(*rows: Any) -> tuple[Any, ...]:
        bucket = as_scalar(fn(*rows), None, "the bucket of sl.partition")
        if not bucket.dtype.is_integer:
            what = f"the bucket function of sl.partition must give an integer, not a {bucket.dtype} scalar"
            raise SoacTypeError(located(what, where))
        return (convert_scalar(bucket, dtypes.index), *rows)

    known = None
    if counts is not None:
        known = as_array(counts, "the counts of sl.partition")
        if known.rank != 1 or known.dtype != dtypes.int32:
            raise SoacTypeError(located(f"sl.partition takes known counts as a 1-D i32 array, not a {known.describe()}", where))
    return _emit_partition(buckets, body, inputs, inputs, known, where)


def _emit_partition(
    buckets: int, body: Callable[..., tuple[Any, ...]], inputs: list[Array], moved: list[Array], known: Array | None, where: Any
) -> tuple[Array, ...]:
    """A `soac.partition` of `inputs` whose lambda `body` gives a row's bucket and the rows it moves, of the types of
    the arrays `moved`; its counts and moved arrays."""
    region, _ = trace_lambda(body, [row_type(a.ir_type) for a in inputs], "sl.partition", where, wrapper=row_wrapper(inputs))
    types = [a.ir_type for a in moved]
    given = use(known) if known is not None else None
    op = soac.PartitionOp(inputs[0].dim(0).ssa, [use(a) for a in inputs], buckets, types, region, given)
    emit_at(op, where)
    scope = Tracer.current("sl.partition").scope
    counts, *outs = [wrap(r, scope) for r in op.results]
    for out in outs:
        assert isinstance(out, Array)
        out._dims[0] = inputs[0].dim(0)
    return (counts, *outs)  # pyright: ignore[reportReturnType]


def _unsigned(dtype: DType) -> DType:
    return dtypes.uint32 if dtype.bits == 32 else dtypes.uint64


def ordered_bits(key: Scalar) -> Scalar:
    """The unsigned integer that orders like `key` (see the module docstring)."""
    kind = _unsigned(key.dtype)
    sign = 1 << (key.dtype.bits - 1)
    if key.dtype.is_unsigned:
        return key
    bits = emit_value(arith.BitcastOp(use(key), kind.ir), kind)
    if not key.dtype.is_float:
        return bits ^ kind(sign)
    bits = select(bits == kind(sign), kind(0), bits)  # -0.0 as 0.0
    return select(bits >= kind(sign), ~bits, bits ^ kind(sign))


def _digit_passes(dtype: DType, digit_bits: int, what: str) -> int:
    if dtype not in SORTABLE:
        names = ", ".join(d.name for d in SORTABLE)
        raise SoacTypeError(located(f"{what} sorts keys of {names}, not {dtype}"))
    if not isinstance(digit_bits, int) or not 1 <= digit_bits <= MAX_DIGIT_BITS:
        raise SoacTypeError(located(f"{what}: digit_bits must be an int from 1 to {MAX_DIGIT_BITS}, not {digit_bits!r}"))
    return -(-dtype.bits // digit_bits)


def _keys(xs: Any, what: str) -> Array:
    keys = as_array(xs, f"the keys of {what}")
    if keys.rank != 1:
        raise SoacTypeError(located(f"{what} sorts a 1-D array, not a {keys.describe()}"))
    return keys


def _digit(key: Scalar, shift: int | Scalar, mask: int) -> Scalar:
    """Digit `(bits >> shift) & mask` of the key's ordered bits (`shift` a Python int or an integer scalar)."""
    bits = ordered_bits(key)
    kind = bits.dtype
    amount = kind(shift) if isinstance(shift, int) else shift.astype(kind)
    return (bits >> amount) & kind(mask)


def digit_histogram(keys: Array, shift: int, digit_bits: int) -> Array:
    """How many keys have each digit (`2**digit_bits` i32 counts) at the place `shift` bits up: one pass over the keys
    (on the H200 four of these took 0.9 ms for 10^8 keys, one histogram of the four places' `4n` rows 1.6 ms:
    `bench/digit_hist.py`)."""
    mask = (1 << digit_bits) - 1
    digits = map_(lambda k: _digit(k, shift, mask).astype(dtypes.index), keys)
    ones = full(digits.dim(0), 1, dtypes.int32)
    return hist(full(1 << digit_bits, 0, dtypes.int32), lambda a, b: a + b, 0, digits, ones)


def _radix_sort(keys: Array, values: list[Array], digit_bits: int, what: str) -> list[Array]:
    """The keys and values ordered by key, stably: one partition per digit place, lowest first, each given its
    counts (the histogram of the place's digits of the keys, known before any partition runs: Onesweep)."""
    passes = _digit_passes(keys.dtype, digit_bits, what)
    buckets, mask = 1 << digit_bits, (1 << digit_bits) - 1
    histograms = [digit_histogram(keys, p * digit_bits, digit_bits) for p in range(passes)]
    arrays = [keys, *values]
    for p in range(passes):
        shift = p * digit_bits

        def digit(key: Scalar, *_: Any, shift: int = shift) -> Scalar:
            return _digit(key, shift, mask).astype(dtypes.index)

        _, *arrays = partition(buckets, digit, *arrays, counts=histograms[p])
    return arrays


def sort(xs: Any, digit_bits: int = DIGIT_BITS) -> Array:
    """numpy's `sort(xs, kind='stable')` of a 1-D array of i32, u32, i64, u64, f32 or f64 (NaN-free): a radix sort
    of `digit_bits` bits a pass (one `soac.partition` of `2**digit_bits` buckets each)."""
    (result,) = _radix_sort(_keys(xs, "sl.sort"), [], digit_bits, "sl.sort")
    return result


def argsort(xs: Any, digit_bits: int = DIGIT_BITS) -> Array:
    """numpy's `argsort(xs, kind='stable')` (i64 positions) of a 1-D array that `sl.sort` sorts."""
    keys = _keys(xs, "sl.argsort")
    _, order = _radix_sort(keys, [iota(keys.dim(0))], digit_bits, "sl.argsort")
    return order


def sort_by_key(keys: Any, values: Any, digit_bits: int = DIGIT_BITS) -> tuple[Array, Array]:
    """`(keys[order], values[order])` for the stable order of `keys` (a 1-D array that `sl.sort` sorts, `values` a
    1-D array as long): key-value pairs sorted by key."""
    k = _keys(keys, "sl.sort_by_key")
    v = as_array(values, "the values of sl.sort_by_key")
    if v.rank != 1:
        raise SoacTypeError(located(f"sl.sort_by_key moves the elements of a 1-D array of values, not a {v.describe()}"))
    sorted_keys, sorted_values = _radix_sort(k, [v], digit_bits, "sl.sort_by_key")
    return sorted_keys, sorted_values
