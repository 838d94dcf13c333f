"""The Python operators and numpy-style methods of symbolic values, attached to their classes by `install()`.

`soac.lang.values` holds the value classes alone, below everything that builds IR from them; what `x + y`,
`xs.sum(axis=0)`, `xs[i]`, `xs.at[i].set(v)` and `sl.f32(x)` do is written in the modules above (operators,
reductions, indexing, ...). This module, which imports those, gives the classes these methods when `soac.lang` is
imported (JAX's `register_jax_array_methods` does the same for its arrays), so that no module imports one that
imports it back:

    x + y              # Scalar.__add__ -> operators.binary("+", x, y): arith.addf, or a soac.map on arrays
    xs.max(axis=1)     # Array.max -> reductions.max
    sl.f32(x)          # DType.__call__ -> operators.convert
"""

from __future__ import annotations

from typing import Any

from soac.lang import construction, control, dtypes, indexing, products, reductions, soacs
from soac.lang.conversions import convert_scalar
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTypeError, located
from soac.lang.operators import binary, convert, elementwise, unary
from soac.lang.updates import IndexUpdateHelper
from soac.lang.values import Array, Scalar


class _Operators:
    """Python's operators, shared by scalars and arrays (element-wise on arrays)."""

    def __add__(self, other: Any) -> Any:
        return binary("+", self, other)

    def __radd__(self, other: Any) -> Any:
        return binary("+", other, self)

    def __sub__(self, other: Any) -> Any:
        return binary("-", self, other)

    def __rsub__(self, other: Any) -> Any:
        return binary("-", other, self)

    def __mul__(self, other: Any) -> Any:
        return binary("*", self, other)

    def __rmul__(self, other: Any) -> Any:
        return binary("*", other, self)

    def __truediv__(self, other: Any) -> Any:
        return binary("/", self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return binary("/", other, self)

    def __floordiv__(self, other: Any) -> Any:
        return binary("//", self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return binary("//", other, self)

    def __mod__(self, other: Any) -> Any:
        return binary("%", self, other)

    def __rmod__(self, other: Any) -> Any:
        return binary("%", other, self)

    def __pow__(self, other: Any, modulo: Any = None) -> Any:
        if modulo is not None:
            raise SoacTypeError(located("pow(x, y, m) on a symbolic value; write x ** y % m"))
        return binary("**", self, other)

    def __rpow__(self, other: Any) -> Any:
        return binary("**", other, self)

    def __divmod__(self, other: Any) -> Any:
        return binary("//", self, other), binary("%", self, other)

    def __rdivmod__(self, other: Any) -> Any:
        return binary("//", other, self), binary("%", other, self)

    def __and__(self, other: Any) -> Any:
        return binary("&", self, other)

    def __rand__(self, other: Any) -> Any:
        return binary("&", other, self)

    def __or__(self, other: Any) -> Any:
        return binary("|", self, other)

    def __ror__(self, other: Any) -> Any:
        return binary("|", other, self)

    def __xor__(self, other: Any) -> Any:
        return binary("^", self, other)

    def __rxor__(self, other: Any) -> Any:
        return binary("^", other, self)

    def __lshift__(self, other: Any) -> Any:
        return binary("<<", self, other)

    def __rshift__(self, other: Any) -> Any:
        return binary(">>", self, other)

    def __lt__(self, other: Any) -> Any:
        return binary("<", self, other)

    def __le__(self, other: Any) -> Any:
        return binary("<=", self, other)

    def __gt__(self, other: Any) -> Any:
        return binary(">", self, other)

    def __ge__(self, other: Any) -> Any:
        return binary(">=", self, other)

    def __eq__(self, other: Any) -> Any:  # pyright: ignore[reportIncompatibleMethodOverride]
        return binary("==", self, other)

    def __ne__(self, other: Any) -> Any:  # pyright: ignore[reportIncompatibleMethodOverride]
        return binary("!=", self, other)

    __hash__ = None  # pyright: ignore[reportAssignmentType]
    """`==` builds IR, so a symbolic value is no dictionary key."""

    def __neg__(self) -> Any:
        return unary("-", self)

    def __abs__(self) -> Any:
        return unary("abs", self)

    def __invert__(self) -> Any:
        return unary("~", self)


class _ScalarMethods:
    """What scalars have beyond the shared operators."""

    def __rlshift__(self, other: Any) -> Any:
        return binary("<<", other, self)

    def __rrshift__(self, other: Any) -> Any:
        return binary(">>", other, self)

    def astype(self: Any, dtype: DType) -> Scalar:
        return convert_scalar(self, dtypes.element_type(dtype, "the type of astype"))


class _ArrayMethods:
    """numpy's array methods and properties, and indexing."""

    @property
    def T(self) -> Array:
        return soacs.transpose(self)

    def reshape(self, *shape: Any) -> Array:
        """`xs.reshape(n, m)` or `xs.reshape((n, m))`: `sl.reshape`."""
        return soacs.reshape(self, shape[0] if len(shape) == 1 and isinstance(shape[0], tuple | list) else shape)

    @property
    def at(self: Any) -> Any:
        """JAX's `xs.at[i].set(v)`, `.add(v)`, `.get(mode=...)`: see `soac.lang.updates`."""
        return IndexUpdateHelper(self)

    def sum(self, axis: Any = None, keepdims: bool = False) -> Any:
        return reductions.sum(self, axis=axis, keepdims=keepdims)

    def max(self, axis: Any = None, keepdims: bool = False) -> Any:
        return reductions.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis: Any = None, keepdims: bool = False) -> Any:
        return reductions.min(self, axis=axis, keepdims=keepdims)

    def mean(self, axis: Any = None, keepdims: bool = False) -> Any:
        return reductions.mean(self, axis=axis, keepdims=keepdims)

    def prod(self, axis: Any = None, keepdims: bool = False) -> Any:
        return reductions.prod(self, axis=axis, keepdims=keepdims)

    def any(self, axis: Any = None, keepdims: bool = False) -> Any:
        return reductions.any(self, axis=axis, keepdims=keepdims)

    def all(self, axis: Any = None, keepdims: bool = False) -> Any:
        return reductions.all(self, axis=axis, keepdims=keepdims)

    def var(self, axis: Any = None, keepdims: bool = False, ddof: int = 0) -> Any:
        return reductions.var(self, axis=axis, keepdims=keepdims, ddof=ddof)

    def std(self, axis: Any = None, keepdims: bool = False, ddof: int = 0) -> Any:
        return reductions.std(self, axis=axis, keepdims=keepdims, ddof=ddof)

    def cumsum(self, axis: Any = None, dtype: Any = None) -> Any:
        return soacs.cumsum(self, axis=axis, dtype=dtype)

    def argmax(self, axis: Any = None) -> Any:
        return reductions.argmax(self, axis=axis)

    def argmin(self, axis: Any = None) -> Any:
        return reductions.argmin(self, axis=axis)

    def flatten(self) -> Array:
        """numpy's `xs.flatten()`: all dimensions as one (`xs.reshape(-1)`; `sl.flatten` is Futhark's, two as one)."""
        return soacs.reshape(self, [-1])

    ravel = flatten

    def copy(self) -> Array:
        return soacs.copy(self)

    def transpose(self, *axes: Any) -> Array:
        """numpy's `m.transpose()`, `m.transpose(1, 0, 2)` or `m.transpose((1, 0, 2))`: `sl.transpose`."""
        order = axes[0] if len(axes) == 1 and isinstance(axes[0], tuple | list) else axes
        return soacs.transpose(self, list(order) if order else None)

    def squeeze(self, axis: Any = None) -> Array:
        return construction.squeeze(self, axis)

    def clip(self, lo: Any = None, hi: Any = None) -> Array:
        return control.clip(self, lo, hi)

    def dot(self, other: Any) -> Any:
        return products.dot(self, other)

    def astype(self, dtype: DType) -> Array:
        element = dtypes.element_type(dtype, "the type of astype")
        return elementwise(lambda x: convert_scalar(x, element), [self])

    def __getitem__(self: Any, key: Any) -> Any:
        return indexing.getitem(self, key)

    def __matmul__(self, other: Any) -> Any:
        return products.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return products.matmul(other, self)


def _dtype_call(self: DType, value: Any) -> Any:
    """`sl.f32(x)`: converts a symbolic value (element-wise for arrays), or makes a constant."""
    return convert(value, self)


_CLASS_BOOKKEEPING = ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__")
_CLASS_BOOKKEEPING += ("__static_attributes__",)


def _members(cls: type) -> dict[str, Any]:
    """The methods and properties a class body defines (without what Python adds to every class)."""
    return {name: member for name, member in vars(cls).items() if name not in _CLASS_BOOKKEEPING}


def install() -> None:
    """Give `Scalar`, `Array` and `DType` their operators and methods (once, when `soac.lang` is imported)."""
    for name, member in {**_members(_Operators), **_members(_ScalarMethods)}.items():
        setattr(Scalar, name, member)
    for name, member in {**_members(_Operators), **_members(_ArrayMethods)}.items():
        setattr(Array, name, member)
    DType.__call__ = _dtype_call  # pyright: ignore[reportAttributeAccessIssue]
