"""Type helpers shared by the soac dialect, its interpreter and its passes.

Arrays are builtin tensors whose outer dimension is the SOAC width. An array of
rank 1 has scalar elements; an array of higher rank has rows, which are arrays
themselves (`tensor<?x4xf32>` has rows of type `tensor<4xf32>`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute


def row_type(array: Attribute) -> Attribute | None:
    """The type of one element of `array` along its outer dimension, or None if `array` is no array."""
    if not isinstance(array, TensorType) or array.get_num_dims() == 0:
        return None
    shape = array.get_shape()
    if len(shape) == 1:
        return array.get_element_type()
    return TensorType(array.get_element_type(), shape[1:])


def array_of(element: Attribute, outer: int = DYNAMIC_INDEX) -> TensorType:
    """The type of an array whose rows are `element`."""
    if isinstance(element, TensorType):
        return TensorType(element.get_element_type(), (outer, *element.get_shape()))
    return TensorType(element, (outer,))


def array_of_rank(element: Attribute, outer_dims: int) -> Attribute:
    """The type of an `outer_dims`-dimensional array of `element` (`element` itself for 0)."""
    for _ in range(outer_dims):
        element = array_of(element)
    return element


def peel(array: Attribute, dims: int) -> Attribute | None:
    """The element type left after indexing `dims` outer dimensions of `array`."""
    for _ in range(dims):
        if (inner := row_type(array)) is None:
            return None
        array = inner
    return array


def _dims_compatible(a: int, b: int) -> bool:
    return a == b or DYNAMIC_INDEX in (a, b)


def compatible(a: Attribute, b: Attribute) -> bool:
    """Equal types, where a dynamic dimension (`?`) matches any size."""
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return (
            a.get_element_type() == b.get_element_type()
            and a.get_num_dims() == b.get_num_dims()
            and all(_dims_compatible(x, y) for x, y in zip(a.get_shape(), b.get_shape()))
        )
    return a == b


def rows_compatible(array: Attribute, element: Attribute) -> bool:
    """True if `array` is an array whose rows have a type compatible with `element`."""
    inner = row_type(array)
    return inner is not None and compatible(inner, element)


def all_compatible(xs: Sequence[Attribute], ys: Sequence[Attribute]) -> bool:
    return len(xs) == len(ys) and all(compatible(x, y) for x, y in zip(xs, ys))


def is_integer_like(t: Attribute) -> bool:
    """An integer type usable as an index or a count: `index` or `iN` with N > 1 (not the boolean `i1`)."""
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data > 1)


def format_types(types: Iterable[Attribute]) -> str:
    """`(f32, tensor<?xi32>)`, for error messages."""
    return "(" + ", ".join(str(t) for t in types) + ")"


_NUMPY_INTEGERS = {1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_NUMPY_FLOATS: tuple[tuple[type[Attribute], type[np.floating]], ...] = (
    (Float16Type, np.float16),
    (Float32Type, np.float32),
    (Float64Type, np.float64),
)


def numpy_dtype(t: Attribute) -> np.dtype | None:
    """The numpy dtype of a scalar type, or of the elements of a tensor type; None if there is none.

    Integers are signless, as in `arith`: `iN` is held as a signed numpy integer
    (`i1` as bool) and `index` as int64; `uiN` and `siN` have none (see `signless_problem`).
    """
    if isinstance(t, TensorType):
        t = t.get_element_type()
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType):
        if t.signedness.data != Signedness.SIGNLESS:
            return None
        integer = _NUMPY_INTEGERS.get(t.width.data)
        return None if integer is None else np.dtype(integer)
    return next((np.dtype(dtype) for kind, dtype in _NUMPY_FLOATS if isinstance(t, kind)), None)


def signless_problem(t: Attribute) -> str | None:
    """Why `t` (or the element type of a tensor `t`) is no type of soac's signless IR, or None if it is one."""
    if isinstance(t, TensorType):
        t = t.get_element_type()
    if not isinstance(t, IntegerType) or t.signedness.data == Signedness.SIGNLESS:
        return None
    return (
        f"soac's integers are signless: {t} is i{t.width.data}, read as unsigned or signed by the ops "
        "(divui, remui, shrui, cmpi ult, extui, uitofp, maxui, ...); soac-opt -p soac-signless rewrites the types"
    )
