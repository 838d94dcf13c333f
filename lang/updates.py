"""JAX's indexed updates and guarded reads: `xs.at[i].set(v)`, `.add(v)`, `.multiply(v)`, `.min(v)`, `.max(v)` and
`.get(mode=..., fill_value=...)`.

At scalar positions an update is Futhark's `xs with [i] = v` (`soac.update`); at an array of positions `.set`
is a `soac.scatter` and the others a `soac.hist` with their operator, so that repeated positions combine (as in
JAX). Unlike JAX's, these updates consume `xs`: it may not be used afterwards (write `sl.copy(xs)` to keep it).
Positions outside the array fail when the program runs for scalar positions, and are dropped for arrays of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from soac import dialect as soac
from soac.lang.control import maximum, minimum
from soac.lang.conversions import as_index, retyped
from soac.lang.errors import SoacTypeError, located, user_location
from soac.lang.indexing import _position, gather, gather_point
from soac.lang.soacs import _extreme, hist, replicate, retype_array, scatter
from soac.lang.tracer import Tracer
from soac.lang.values import Array, Scalar, Value, as_value, use, wrap


class IndexUpdateHelper:
    """`xs.at`: indexing it (`xs.at[i]`) gives the place to update or read."""

    def __init__(self, array: Array):
        self.array = array

    def __getitem__(self, key: Any) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, key)


class IndexUpdateRef:
    """`xs.at[key]`: `key` is integer positions (one per dimension, or fewer for rows) or one integer array."""

    def __init__(self, array: Array, key: Any):
        self.array = array
        self.items = list(key) if isinstance(key, tuple) else [key]
        if not self.items or len(self.items) > array.rank:
            raise SoacTypeError(located(f"xs.at[...] takes 1 to {array.rank} positions of a {array.describe()}"))
        self.positions = [isinstance(i, int | np.integer | Scalar) and not isinstance(i, bool | np.bool_) for i in self.items]
        scattered = len(self.items) == 1 and isinstance(self.items[0], Array)
        if not (all(self.positions) or scattered):
            raise SoacTypeError(
                located(
                    "xs.at[...] takes integer positions (xs.at[i, j]) or one integer array (xs.at[idx]); "
                    "for slices, update with sl.scatter over sl.iota"
                )
            )
        self.scattered = scattered

    def get(self, mode: str | None = None, fill_value: Any = None) -> Any:
        """The value(s) at the place: see `soac.lang.gathers.gather` for `mode` ('clip', 'wrap', 'fill')."""
        if self.scattered:
            return gather(self.array, self.items[0], mode, fill_value)
        return gather_point(self.array, self.items, mode, fill_value)

    def set(self, value: Any) -> Array:
        """The array with the place holding `value` (consumes the array)."""
        if self.scattered:
            return scatter(self.array, self.items[0], self._values(value))
        return self._update(lambda old, new: new, value)

    def add(self, value: Any) -> Array:
        return self._combine(lambda a, b: a + b, 0, value)

    def multiply(self, value: Any) -> Array:
        return self._combine(lambda a, b: a * b, 1, value)

    def min(self, value: Any) -> Array:
        return self._combine(minimum, _extreme(self.array.dtype, True), value)

    def max(self, value: Any) -> Array:
        return self._combine(maximum, _extreme(self.array.dtype, False), value)

    def _combine(self, op: Callable[[Any, Any], Any], neutral: Any, value: Any) -> Array:
        if self.scattered:
            if self.array.rank != 1:
                raise SoacTypeError(located("xs.at[idx] with an operator updates a 1-D array; use sl.hist for rows"))
            return hist(self.array, op, neutral, self.items[0], self._values(value))
        return self._update(op, value)

    def _values(self, value: Any) -> Array:
        """The values written at an array of positions: an array as long, or one value for all of them."""
        indices = self.items[0]
        if isinstance(value, Array) and value.rank == self.array.rank:
            return value
        return replicate(indices.dim(0), value, self.array.dtype if not isinstance(value, Value) else None)

    def _update(self, op: Callable[[Any, Any], Any], value: Any) -> Array:
        where = user_location()
        array = self.array
        if array.weak and isinstance(value, Scalar | Array) and not value.weak:  # sl.zeros(n).at[i].set(x): x's type
            array = retype_array(array, value.dtype)
        old = array[tuple(self.items)]
        like = old.dtype if isinstance(old, Scalar) else None
        new = op(old, as_value(value, like, "the value written by xs.at[...]"))
        if isinstance(old, Scalar):
            new = retyped(as_value(new, like), old.ir_type)
        if new.ir_type != old.ir_type:
            raise SoacTypeError(
                located(f"xs.at[...] writes a {new.describe()} where the {array.describe()} holds a {old.describe()}")
            )
        indices = [as_index(_position(array, k, item), "a position") for k, item in enumerate(self.items)]
        op_ = soac.UpdateOp(use(array), indices, use(new))
        tracer = Tracer.current("xs.at[...]")
        tracer.emit(op_, where)
        result = wrap(op_.result, tracer.scope, dims=list(array._dims))
        assert isinstance(result, Array)
        result._row_of, result._offset = array._row_of, array._offset
        return result
