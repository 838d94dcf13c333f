"""NumPy's products on symbolic arrays: `dot`, `matmul` and `@`, as maps of sums of products (which fusion makes
redomaps, and flattening tiles)."""

from __future__ import annotations

from typing import Any

from soac.lang.errors import SoacTypeError, located
from soac.lang.operators import unify_arrays
from soac.lang.reductions import _sum_1d
from soac.lang.soacs import map_, transpose
from soac.lang.values import Array, Scalar, as_array


def _dot_1d(a: Array, b: Array) -> Scalar:
    return _sum_1d(a * b)


def dot(a: Any, b: Any) -> Any:
    """numpy's dot for scalars, vectors and matrices: a sum of products over the last axis of `a` and the first of
    `b` (maps of sums, which fusion makes redomaps)."""
    if not isinstance(a, Array) or not isinstance(b, Array):
        return a * b
    x, y = unify_arrays([a, b])
    if x.rank == 1 and y.rank == 1:
        return _dot_1d(x, y)
    if x.rank == 2 and y.rank == 1:
        return map_(lambda row: _dot_1d(row, y), x)
    if x.rank == 1 and y.rank == 2:
        return map_(lambda column: _dot_1d(x, column), transpose(y))
    if x.rank == 2 and y.rank == 2:
        columns = transpose(y)
        return map_(lambda row: map_(lambda column: _dot_1d(row, column), columns), x)
    raise SoacTypeError(
        located(f"sl.dot of a {x.describe()} and a {y.describe()}: only scalars, vectors and matrices; use sl.matmul")
    )


def matmul(a: Any, b: Any) -> Any:
    """numpy's matmul (`a @ b`): `dot` for vectors and matrices, mapped over the leading (batch) axes of arrays of
    one rank above 2."""
    x = as_array(a, "the left operand of '@'")
    y = as_array(b, "the right operand of '@'")
    if x.rank <= 2 and y.rank <= 2:
        return dot(x, y)
    if x.rank == y.rank:
        return map_(lambda p, q: matmul(p, q), x, y)
    raise SoacTypeError(located(f"'@' of a {x.describe()} and a {y.describe()}: batched products need equal ranks; use sl.map"))
