"""soac.lang.dask folds a reduce's last partials on the host where the operator is one numpy ufunc (issue 29): the
results equal the device's, integers wrap as there, and no device call combines them."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
import soac.lang as sl
import soac.lang.dask as sd
from soac.lang.dask.host_fold import host_fold
from soac.lang.dask.plan import analyse
from soac.lang.jit import argument_type, trace

LAYOUTS = {"uneven": (5, 1, 4, 2), "empty chunks": (0, 7, 0, 0, 5, 0)}


def wrapping_sum(xs):
    return sl.reduce(lambda a, b: a + b, 0, xs)


def product(xs):
    return sl.reduce(lambda a, b: a * b, 1, xs)


def bits(xs):
    return sl.reduce(lambda a, b: a ^ b, 0, xs)


def largest(xs):
    return sl.reduce(sl.maximum, -(2**31), xs)


def unsigned_largest(xs):
    return sl.reduce(sl.maximum, sl.u32(0), xs)


def float_largest(xs):
    return sl.reduce(sl.maximum, -np.inf, xs)


def offset_sum(xs, k):
    return sl.reduce(lambda a, b: a + b, k, xs)


def last_valid(xs):
    return sl.reduce(lambda a, b: sl.where(b == -1, a, b), -1, xs)


INT32 = np.array([2**30, 2**30, 7, -3, 2**30, 5, 11, -(2**31), 9, 2**29, 3, 1], np.int32)
CASES = {
    "wrapping int32 sum": (wrapping_sum, INT32, True),
    "int32 product": (product, INT32 % 7 + 1, True),
    "xor": (bits, INT32, True),
    "signed max": (largest, INT32, True),
    "unsigned max (stays on the device: bitcasts)": (unsigned_largest, INT32.view(np.uint32), False),
    "f32 max (stays on the device: NaN rules)": (float_largest, INT32.astype(np.float32), False),
    "not one op": (last_valid, INT32, False),
}


def _terminal(fn, values: np.ndarray, *scalars: object):
    types = [argument_type(k, a) for k, a in enumerate((values, *scalars))]
    module, _ = trace(fn, types, fn.__name__)
    return analyse(module.body.block.first_op, {0}).terminal  # pyright: ignore[reportArgumentType]


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("layout", list(LAYOUTS.values()), ids=list(LAYOUTS))
def test_host_fold_equals_the_device_fold(name: str, layout: tuple[int, ...]) -> None:
    fn, values, on_host = CASES[name]
    assert (host_fold(_terminal(fn, values), values.dtype) is not None) == on_host
    expected = sl.jit(fn)(values)
    xs = sd.persist(da.from_array(values, chunks=(layout,)), devices=("0:0", "0:0"), scheduler="threads")
    with dask.config.set({"soac.join-bytes": 0}):
        grouped = sd.jit(fn, devices=("0:0", "0:0"))(xs).compute()
    per_chunk = sd.jit(fn)(da.from_array(values, chunks=(layout,))).compute(scheduler="threads")
    assert grouped.dtype == per_chunk.dtype == np.asarray(expected).dtype
    assert grouped == expected
    assert per_chunk == expected


def test_a_neutral_element_from_an_argument_stays_on_the_device() -> None:
    values = np.arange(10, dtype=np.int64)
    assert host_fold(_terminal(offset_sum, values, 5), values.dtype) is None


def test_the_host_fold_makes_no_device_call_to_combine() -> None:
    values = np.arange(12, dtype=np.int32)
    xs = sd.persist(da.from_array(values, chunks=((5, 1, 4, 2),)), devices=("0:0", "0:0"), scheduler="threads")
    program = sd.jit(wrapping_sum, devices=("0:0", "0:0"))
    with dask.config.set({"soac.join-bytes": 0}):
        program(xs).compute()  # compiles
        moved = sl.transfer_counts("0:0")
        moved.reset()
        assert program(xs).compute() == values.sum()
    assert moved.uploads == 0
    assert moved.downloads == 2  # each group's partials, one copy a group: nothing combined on the device
