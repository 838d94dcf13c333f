"""Symbolic values: `Scalar` and `Array`, and turning Python values into them.

A symbolic value wraps one SSA value of the function being traced and the scope
(block) that defines it. This module holds the value classes only: it makes
constants, checks that a value may be used where it is, and knows the sizes of
arrays (`xs.shape`). Their Python operators and numpy-style methods (`x + y`,
`xs.sum()`, `xs[i]`) build on the modules above this one, so they live in
`soac.lang.methods`, which attaches them when `soac.lang` is imported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from soac.lang import dtypes
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTraceError, SoacTypeError, SourceLocation, SymbolicBoolError, located, user_location
from soac.lang.tracer import Scope, Tracer, location_of, set_name
from xdsl.dialects import tensor
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue

Constant = int | float | bool | np.generic
_F32_OVERFLOW = 2.0**128 - 2.0**103
"""Halfway from f32's largest value to 2^128: a float at least this large rounds to infinity in f32."""


_OPERATOR_UFUNCS = {
    "add": ("__add__", "__radd__"),
    "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"),
    "true_divide": ("__truediv__", "__rtruediv__"),
    "divide": ("__truediv__", "__rtruediv__"),
    "floor_divide": ("__floordiv__", "__rfloordiv__"),
    "remainder": ("__mod__", "__rmod__"),
    "power": ("__pow__", "__rpow__"),
    "bitwise_and": ("__and__", "__rand__"),
    "bitwise_or": ("__or__", "__ror__"),
    "bitwise_xor": ("__xor__", "__rxor__"),
    "left_shift": ("__lshift__", "__rlshift__"),
    "right_shift": ("__rshift__", "__rrshift__"),
    "less": ("__lt__", "__gt__"),
    "less_equal": ("__le__", "__ge__"),
    "greater": ("__gt__", "__lt__"),
    "greater_equal": ("__ge__", "__le__"),
    "equal": ("__eq__", "__eq__"),
    "not_equal": ("__ne__", "__ne__"),
}
"""The ufuncs of Python's binary operators, with the symbolic value's methods for them (first operand, second)."""

_SAME_NAME = ("sqrt", "exp", "exp2", "log", "log2", "sin", "cos", "tan", "tanh", "floor", "ceil", "isnan")
_SAME_NAME += ("maximum", "minimum", "power", "where", "sum", "cumsum", "min", "max", "transpose", "copy")
_SAME_NAME += ("reshape", "mean", "argmin", "argmax", "dot", "matmul", "clip", "concatenate", "stack", "zeros", "ones")
_SAME_NAME += ("full", "take", "compress", "bincount", "arange", "abs", "array", "prod", "any", "all", "var", "std")
_SAME_NAME += ("square", "zeros_like", "ones_like", "full_like", "searchsorted", "squeeze", "expand_dims", "pad")
_SAME_NAME += ("broadcast_to",)
_INSTEAD = {name: f"sl.{name}" for name in _SAME_NAME} | {
    "arctan": "sl.atan",
    "arctan2": "sl.atan2",
    "absolute": "sl.abs",
    "negative": "-x",
    "invert": "~x",
    "bitwise_not": "~x",
    "logical_not": "~x",
    "amin": "sl.min",
    "amax": "sl.max",
    "flip": "sl.reverse",
    "roll": "sl.roll",
}
"""What soac.lang offers for a numpy function (or ufunc) of this name."""


class Value:
    """A symbolic value of a traced function: an SSA value and the block that defines it."""

    __hash__ = object.__hash__

    def __init__(self, ssa: SSAValue, scope: Scope, origin: SourceLocation | None = None):
        self.ssa = ssa
        self.scope = scope
        self.origin = origin

    @property
    def ir_type(self) -> Attribute:
        return self.ssa.type

    def __bool__(self) -> bool:
        raise SymbolicBoolError(
            located(
                f"Python control flow (if, while, and, or, not, bool()) on a symbolic {self.describe()}: its value is "
                "only known when the program runs; use sl.cond(p, then_fn, else_fn), sl.where(p, a, b), "
                "sl.loop or sl.while_loop, and &, |, ~ on booleans"
            )
        )

    def __iter__(self) -> Any:
        raise SoacTypeError(located(f"cannot iterate over a symbolic {self.describe()} in Python; use sl.map or sl.loop"))

    def __contains__(self, item: Any) -> bool:
        raise SoacTypeError(
            located(f"'in' on a symbolic {self.describe()} needs a Python bool; use sl.reduce, e.g. sl.max(xs == x)")
        )

    def __index__(self) -> int:
        raise SoacTypeError(located(f"a symbolic {self.describe()} cannot be used where Python needs an int"))

    def __float__(self) -> float:
        raise SoacTypeError(
            located(f"a symbolic {self.describe()} cannot be used where Python needs a float (math.*); use sl.sqrt, sl.exp, ...")
        )

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy's operators on a symbolic value are its own (`np.float32(2) * x` is `x.__rmul__(np.float32(2))`), and
        numpy's other ufuncs (`np.sqrt(x)`) are refused at the user's line, naming soac.lang's function."""
        dunders = _OPERATOR_UFUNCS.get(ufunc.__name__)
        if dunders is not None and method == "__call__" and not kwargs and len(inputs) == 2:
            forward, reflected = dunders
            other = inputs[1] if inputs[0] is self else inputs[0]
            if isinstance(other, np.ndarray) and other.ndim == 0:
                other = other[()]  # numpy's comparisons pass a numpy scalar as a 0-d array
            return getattr(self, forward if inputs[0] is self else reflected)(other)
        name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        raise SoacTypeError(located(self._numpy_refused(name, _INSTEAD.get(name))))

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        raise SoacTypeError(located(self._numpy_refused(func.__name__, _INSTEAD.get(func.__name__))))

    def _numpy_refused(self, name: str, instead: str | None) -> str:
        message = f"numpy's {name} cannot run on a symbolic {self.describe()}: its value is only known when the program runs"
        if instead is not None:
            return f"{message}; use {instead} instead"
        return f"{message}; use soac.lang's combinators and functions (sl.sum, sl.map, sl.where, sl.sqrt, ...)"

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise SoacTypeError(
            located(
                f"a symbolic {self.describe()} cannot become a numpy array (np.asarray, np.float32(x), ...): its value "
                "is only known when the program runs; convert with sl.f32(x) or x.astype(sl.f32)"
            )
        )

    def describe(self) -> str:
        raise NotImplementedError


class Scalar(Value):
    """A symbolic scalar of an element type.

    A scalar computed from Python constants only (`sl.where(x < 0, 1, -1)`) is *weak*, as Python constants are:
    it takes the type of a typed value it meets (`... * x` with `x: i32` multiplies i32s).
    """

    def __init__(self, ssa: SSAValue, scope: Scope, dtype: DType, origin: SourceLocation | None = None, weak: bool = False):
        super().__init__(ssa, scope, origin)
        self.dtype = dtype
        self.weak = weak
        self.narrowed: dict[DType, Scalar] = {}
        """A weak argument's conversions to narrower integer types, made once (see `retyped`)."""

    def describe(self) -> str:
        return f"{self.dtype} scalar"

    def __repr__(self) -> str:
        return f"Scalar({self.dtype}, {self.ssa.name_hint or '?'})"

    def __round__(self, ndigits: Any = None) -> Any:
        raise SoacTypeError(located(f"round() of a symbolic {self.describe()}; sl.floor(x + 0.5) rounds halves up"))

    def __pos__(self) -> Any:
        return self


class Array(Value):
    """A symbolic array: an element type and a rank; its sizes are symbolic `index` scalars (`xs.shape`)."""

    def __init__(
        self,
        ssa: SSAValue,
        scope: Scope,
        origin: SourceLocation | None = None,
        dims: Sequence[Scalar | None] | None = None,
        row_of: Array | None = None,
    ):
        super().__init__(ssa, scope, origin)
        t = ssa.type
        assert isinstance(t, TensorType)
        self.dtype = dtypes.from_ir(t.get_element_type())
        self.rank = t.get_num_dims()
        self._dims: list[Scalar | None] = list(dims) if dims is not None else [None] * self.rank
        self._row_of = row_of
        """For a lambda's row of an array (or an element or slice of it): that array, which knows the sizes."""
        self._offset = 1
        """Dimension k of this array is dimension k + offset of `_row_of`."""
        self.weak = False
        """Made from Python constants only (`sl.replicate(n, 0)`): takes the type of the typed arrays it meets."""

    def describe(self) -> str:
        return f"{self.rank}-D {self.dtype} array"

    def __repr__(self) -> str:
        return f"Array({self.dtype}, rank={self.rank}, {self.ssa.name_hint or '?'})"

    def __len__(self) -> int:
        raise SoacTypeError(located("len() of a symbolic array must be a Python int; use xs.shape[0] (a symbolic size)"))

    def dim(self, k: int) -> Scalar:
        """The size of dimension `k`, as an `index` scalar (made once, just after the array)."""
        tracer = Tracer.current("a size")
        known = self._dims[k]
        if known is not None and known.scope.is_open_in(tracer.scope):
            return known
        if self._row_of is not None:
            size = self._row_of.dim(k + self._offset)
        else:
            op = tensor.DimOp(self.ssa, tracer.index_constant(k, self.scope))
            op.location = location_of(user_location())
            tracer.emit_after(self.ssa, self.scope, op)
            size = Scalar(op.results[0], self.scope, dtypes.index)
            if self.ssa.name_hint:
                op.results[0].name_hint = f"{self.ssa.name_hint}_len" if k == 0 else f"{self.ssa.name_hint}_d{k}"
        self._dims[k] = size
        return size

    @property
    def shape(self) -> tuple[Scalar, ...]:
        return tuple(self.dim(k) for k in range(self.rank))

    @property
    def ndim(self) -> int:
        return self.rank

    @property
    def size(self) -> Scalar:
        """The number of elements (an `index` scalar), as numpy's `size`."""
        count = self.dim(0)
        for k in range(1, self.rank):
            count = count * self.dim(k)
        return count

    def __setitem__(self, key: Any, value: Any) -> None:
        raise SoacTypeError(
            located(
                f"a symbolic {self.describe()} cannot be assigned to; use xs.at[i].set(v), "
                "sl.scatter(dest, indices, values) or sl.where"
            )
        )


def known_dim(array: Array, k: int) -> Scalar | None:
    """The size of dimension `k` of `array` where tracing knows it already (its own or the array it is a row of);
    makes no IR."""
    while True:
        if 0 <= k < len(array._dims) and (known := array._dims[k]) is not None:
            return known
        if array._row_of is None:
            return None
        array, k = array._row_of, k + array._offset


# ---------------------------------------------------------------------------
# Wrapping and unwrapping
# ---------------------------------------------------------------------------


def wrap(ssa: SSAValue, scope: Scope, row_of: Array | None = None, dims: Sequence[Scalar | None] | None = None) -> Value:
    """The symbolic value of `ssa` (defined in `scope`'s block)."""
    if isinstance(ssa.type, TensorType):
        return Array(ssa, scope, user_location(), dims=dims, row_of=row_of)
    return Scalar(ssa, scope, dtypes.from_ir(ssa.type), user_location())


def emit_value(op: Operation, dtype: DType | None = None, weak: bool = False) -> Any:
    """Emit `op` (one result) and wrap its result (a weak scalar if `weak`)."""
    tracer = Tracer.current(op.name)
    tracer.emit(op)
    result = op.results[0]
    if dtype is not None and not isinstance(result.type, TensorType):
        return Scalar(result, tracer.scope, dtype, user_location(), weak)
    return wrap(result, tracer.scope)


def use(value: Value) -> SSAValue:
    """The SSA value of `value`, checking that it may be used here: not made in a lambda that has been traced
    already (or by another trace)."""
    if not value.scope.is_open_in(Tracer.current("a symbolic value").scope):
        origin = f" (made at {value.origin})" if value.origin is not None else ""
        raise SoacTraceError(
            located(f"a value computed inside {value.scope.what}{origin} is used outside it; return it from the lambda instead")
        )
    return value.ssa


def name_locals(frames: Sequence[dict[str, Any]], scope: Scope) -> None:
    """Name the values that `scope`'s block defined after the local variables that hold them (innermost first)."""
    for local_names in frames:
        for name, value in local_names.items():
            if isinstance(value, Value) and value.scope is scope and value.ssa.name_hint is None:
                set_name(value.ssa, name)


def constant(value: Constant, dtype: DType, weak: bool = False) -> Scalar:
    """A constant of `dtype` in the current block; a Python value that `dtype` cannot hold exactly is an error."""
    tracer = Tracer.current("a constant")
    check_constant(value, dtype)
    python_value: int | float | bool = bool(value) if dtype.kind == "b" else float(value) if dtype.is_float else int(value)  # pyright: ignore[reportArgumentType]
    ssa = tracer.constant(python_value, dtype.ir)
    return Scalar(ssa, tracer.scope, dtype, user_location(), weak)


def check_constant(value: Constant, dtype: DType) -> None:
    kind = dtypes.of_python(value)
    if kind is None:
        raise SoacTypeError(located(f"{type(value).__name__} {value!r} is no scalar of the embedding"))
    if dtype.kind == "b" and kind.kind != "b":
        raise SoacTypeError(located(f"the constant {value!r} where a bool is needed; write True or False"))
    if dtype.is_integer and kind.is_float:
        raise SoacTypeError(located(f"the float constant {value!r} where a {dtype} is needed; convert explicitly"))
    if dtype.kind in "iu" and not (np.iinfo(dtype.numpy).min <= int(value) <= np.iinfo(dtype.numpy).max):  # pyright: ignore[reportArgumentType]
        raise SoacTypeError(located(f"the constant {value!r} does not fit in {dtype}"))
    if dtype == dtypes.float32 and math.isfinite(value) and abs(float(value)) >= _F32_OVERFLOW:  # pyright: ignore[reportArgumentType]
        raise SoacTypeError(located(f"the constant {value!r} does not fit in f32 (it would round to infinity)"))


def as_value(value: Any, like: DType | None = None, what: str = "a value", where: SourceLocation | None = None) -> Value:
    """`value` as a symbolic value: Python constants take the type `like` (else numpy's default for them); an error
    names `where` (default: the user's line that runs)."""
    if isinstance(value, Value):
        use(value)
        return value
    if isinstance(value, np.ndarray):
        raise SoacTypeError(
            located(f"{what} is a numpy array captured from Python; pass it as an argument of the jitted function", where)
        )
    dtype = like or python_default(value)
    if dtype is None:
        raise SoacTypeError(located(f"{what} is a {type(value).__name__}, not a symbolic value or a scalar constant", where))
    if isinstance(value, np.generic) and like is not None and dtypes.from_numpy(value.dtype) not in (None, like):
        raise SoacTypeError(located(f"{what} is a {value.dtype} constant where a {like} is needed", where))
    return constant(value, dtype, weak=not isinstance(value, np.generic))


def python_default(value: Any) -> DType | None:
    """The type of a Python or numpy constant that nothing else fixes: numpy's (i64, f64), except that a Python
    float in a program whose float arguments are all f32 is an f32 (as in JAX, where floats are f32)."""
    dtype = dtypes.of_python(value)
    if dtype == dtypes.float64 and not isinstance(value, np.generic):
        tracer = Tracer.current_or_none()
        if tracer is not None and tracer.default_float is not None:
            return tracer.default_float
    return dtype


def argument_values(args: Sequence[SSAValue], types: Sequence[tuple[DType, int | None]], scope: Scope) -> list[Value]:
    """The symbolic arguments of a traced function. A Python int or float argument is weak (its type marked so by
    `dtypes.of_argument`): it takes the type of the typed values it meets, as in JAX. Sets the program's float
    type: f32 when its typed float arguments are all f32, for Python floats that nothing else types."""
    floats = {dtype for dtype, _ in types if dtype.is_float and not dtype.weak}
    Tracer.current("the arguments").default_float = dtypes.float32 if floats == {dtypes.float32} else None
    values: list[Value] = []
    for arg, (dtype, rank) in zip(args, types):
        value = wrap(arg, scope)
        if rank is None and dtype.weak and isinstance(value, Scalar):
            value.weak = True
        values.append(value)
    return values


def as_scalar(value: Any, like: DType | None = None, what: str = "a scalar") -> Scalar:
    result = as_value(value, like, what)
    if not isinstance(result, Scalar):
        raise SoacTypeError(located(f"{what} must be a scalar, not a {result.describe()}"))
    return result


def as_array(value: Any, what: str = "an array") -> Array:
    Tracer.current(what.rpartition(" of ")[2] or what)
    if not isinstance(value, Array):
        got = value.describe() if isinstance(value, Value) else type(value).__name__
        raise SoacTypeError(located(f"{what} must be a symbolic array, not a {got}"))
    use(value)
    return value


def ir_types(values: Sequence[Value]) -> list[Attribute]:
    return [v.ir_type for v in values]


def describe_types(values: Sequence[Value]) -> str:
    return "(" + ", ".join(type_name(v.ir_type) for v in values) + ")"


def type_name(t: Attribute) -> str:
    """`i32`, `[]f32`, `[][]i64`: Futhark's spelling of a type, for messages."""
    if isinstance(t, TensorType):
        return "[]" * t.get_num_dims() + type_name(t.get_element_type())
    try:
        return dtypes.from_ir(t).name
    except ValueError:
        return str(t)
