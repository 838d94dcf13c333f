"""Errors in Python terms: a mistake in a traced program is reported at the user's Python line (with the line's
text), at trace time for type and shape mistakes and at run time for bounds, on both backends."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soac.lang as sl
from soac.interpreter import SoacRuntimeError

HERE = Path(__file__)
INTS = np.arange(5, dtype=np.int32)


def line_of(marker: str) -> str:
    """`test_errors.py:N` for the line of this file that ends with the comment `marker`."""
    lines = HERE.read_text().splitlines()
    (number,) = [k + 1 for k, line in enumerate(lines) if line.rstrip().endswith(f"# {marker}")]
    return f"{HERE}:{number}"


def test_mixing_types_names_the_line_and_the_fix() -> None:
    @sl.jit(backend="interp")
    def f(xs, scale):
        return sl.map(lambda x: x * scale, xs)  # MIXED

    with pytest.raises(sl.SoacTypeError) as error:
        f(INTS, np.float32(2))
    message = str(error.value)
    assert message.startswith(line_of("MIXED") + ": '*' of i32 and f32")
    assert "sl.f32(x)" in message
    assert "return sl.map(lambda x: x * scale, xs)" in message


def test_python_if_on_a_symbolic_value_is_refused_with_the_combinators_to_use() -> None:
    @sl.jit(backend="interp")
    def f(xs):
        def clip(x):
            if x > 3:  # PYTHON IF
                return x
            return 3

        return sl.map(clip, xs)

    with pytest.raises(sl.SymbolicBoolError, match="Python control flow") as error:
        f(INTS)
    assert str(error.value).startswith(line_of("PYTHON IF"))
    assert "sl.cond" in str(error.value)
    assert "sl.where" in str(error.value)
    assert isinstance(error.value, TypeError)


def test_builtin_min_and_and_are_python_control_flow_too() -> None:
    @sl.jit(backend="interp")
    def f(xs):
        return sl.map(lambda x: x > 0 and x < 3, xs)  # AND

    with pytest.raises(sl.SymbolicBoolError) as error:
        f(INTS)
    assert str(error.value).startswith(line_of("AND"))


def test_an_operator_returning_the_wrong_type_names_the_reduce() -> None:
    @sl.jit(backend="interp")
    def f(xs):
        return sl.reduce(lambda a, b: sl.f32(a + b), 0, xs)  # OPERATOR TYPE

    with pytest.raises(sl.SoacTypeError, match=r"the operator of sl.reduce returns \(f32\), expected \(i32\)") as error:
        f(INTS)
    assert str(error.value).startswith(line_of("OPERATOR TYPE"))


def test_a_lambda_with_the_wrong_number_of_parameters() -> None:
    @sl.jit(backend="interp")
    def f(xs, ys):
        return sl.map(lambda x: x, xs, ys)  # ARITY

    with pytest.raises(sl.SoacTraceError, match="gets 2 argument") as error:
        f(INTS, INTS)
    assert str(error.value).startswith(line_of("ARITY"))


def test_a_value_leaking_out_of_its_lambda() -> None:
    leaked = []

    @sl.jit(backend="interp")
    def f(xs):
        sl.map(lambda x: leaked.append(x * 2) or x, xs)  # MADE
        return leaked[0] + 1  # LEAKED

    with pytest.raises(sl.SoacTraceError, match=r"inside the lambda of sl\.map") as error:
        f(INTS)
    assert str(error.value).startswith(line_of("LEAKED"))
    assert line_of("MADE") in str(error.value)


def test_using_an_array_after_scatter_consumed_it() -> None:
    @sl.jit(backend="interp")
    def f(dest, idx, vals):
        result = sl.scatter(dest, idx, vals)  # CONSUMES
        return result, dest[0]

    with pytest.raises(sl.SoacTypeError, match=r"consumes %dest, but 'soac\.index' uses it afterwards") as error:
        f(np.zeros(3, np.float32), INTS, np.ones(5, np.float32))
    assert str(error.value).startswith(line_of("CONSUMES"))


def test_rank_and_argument_errors() -> None:
    @sl.jit(backend="interp")
    def f(m):
        return sl.sum(m)  # RANK

    with pytest.raises(sl.SoacTypeError, match="takes a 1-D array, not a 2-D i32 array") as error:
        f(np.zeros((2, 2), np.int32))
    assert str(error.value).startswith(line_of("RANK"))
    with pytest.raises(sl.SoacTypeError, match="argument 1: a float16 array has no type in soac") as error:
        f(np.zeros(2, np.float16))  # FLOAT16
    assert str(error.value).startswith(line_of("FLOAT16"))

    @sl.jit(backend="interp")
    def g(xs):
        return len(xs)  # LEN

    with pytest.raises(sl.SoacTypeError, match=r"use xs.shape\[0\]") as error:
        g(INTS)
    assert str(error.value).startswith(line_of("LEN"))


def test_combinators_outside_a_traced_function() -> None:
    with pytest.raises(sl.SoacTraceError, match=r"inside a function decorated with @soac\.lang\.jit"):
        sl.map(lambda x: x, INTS)


@pytest.mark.parametrize("backend", ["interp", "opencl"])
def test_out_of_bounds_at_run_time_names_the_line(backend: str) -> None:
    @sl.jit(backend=backend)
    def f(xs, i):
        return xs[i] * 2  # OUT OF BOUNDS

    assert f(INTS, 4) == 8
    with pytest.raises(SoacRuntimeError) as error:
        f(INTS, 7)
    assert str(error.value).startswith(line_of("OUT OF BOUNDS") + ":")
    assert "'soac.index': index 7 is out of bounds for dimension 0 of size 5" in str(error.value)


def test_astype_takes_numpy_dtypes_and_names_the_line_of_one_without_a_soac_type() -> None:
    @sl.jit(backend="interp")
    def f(xs):
        return xs.astype(np.float32), sl.iota(xs.shape[0], dtype=np.int32)

    halves, positions = f(INTS)
    assert halves.dtype == np.float32
    assert positions.dtype == np.int32

    @sl.jit(backend="interp")
    def g(xs):
        return xs.astype(np.float16)  # HALF

    with pytest.raises(sl.SoacTypeError, match=r"the type of astype must be an element type .* not float16") as error:
        g(INTS)
    assert str(error.value).startswith(line_of("HALF"))


def test_a_call_with_the_wrong_arguments_names_the_function_its_parameters_and_the_line() -> None:
    @sl.jit(backend="interp")
    def add(xs, ys):
        return sl.map(lambda x, y: x + y, xs, ys)

    with pytest.raises(sl.SoacTypeError, match=r"add\(xs, ys\) is called with 1 argument: missing .*'ys'") as error:
        add(INTS)  # TOO FEW
    assert str(error.value).startswith(line_of("TOO FEW"))
    with pytest.raises(sl.SoacTypeError, match=r"add\(xs, ys\) is called with 3 arguments: too many") as error:
        add(INTS, INTS, INTS)  # TOO MANY
    assert str(error.value).startswith(line_of("TOO MANY"))
    with pytest.raises(sl.SoacTypeError, match=r"add\(xs, ys\) takes its arguments by position, not by keyword \(ys\)") as error:
        add(INTS, ys=INTS)  # KEYWORD
    assert str(error.value).startswith(line_of("KEYWORD"))

    @sl.jit(backend="interp")
    def twice(xs):
        return add(xs)  # INLINED

    with pytest.raises(sl.SoacTypeError, match=r"add\(xs, ys\) is called with 1 argument") as error:
        twice(INTS)
    assert str(error.value).startswith(line_of("INLINED"))
    assert add(INTS, INTS).tolist() == [0, 2, 4, 6, 8]


def test_a_result_that_is_no_value_is_reported_at_the_return() -> None:
    @sl.jit(backend="interp")
    def f(xs):
        ys = sl.map(lambda x: x + 1, xs)
        return {"ys": ys}  # RETURNS DICT

    with pytest.raises(sl.SoacTypeError, match=r"result 1 of f is a dict, not a symbolic value") as error:
        f(INTS)
    assert str(error.value).startswith(line_of("RETURNS DICT"))

    @sl.jit(backend="interp")
    def g(xs):
        return xs, "label"  # RETURNS STR

    with pytest.raises(sl.SoacTypeError, match=r"result 2 of g is a str") as error:
        g(INTS)
    assert str(error.value).startswith(line_of("RETURNS STR"))

    @sl.jit(backend="interp")
    def h(xs):
        sl.map(lambda x: x + 1, xs)  # RETURNS NOTHING

    with pytest.raises(sl.SoacTraceError, match=r"the function returns nothing") as error:
        h(INTS)
    assert str(error.value).startswith(line_of("RETURNS NOTHING"))


def test_numpy_functions_refuse_symbolic_values_instead_of_returning_them() -> None:
    @sl.jit(backend="interp")
    def f(xs):
        return np.sum(xs)  # NUMPY SUM

    with pytest.raises(sl.SoacTypeError, match=r"numpy's sum cannot run on a symbolic 1-D i32 array.*sl\.sum") as error:
        f(INTS)
    assert str(error.value).startswith(line_of("NUMPY SUM"))

    @sl.jit(backend="interp")
    def g(xs):
        return np.int32(2) * xs + np.int32(1)  # numpy scalars still defer to the symbolic operators

    assert g(INTS).tolist() == [1, 3, 5, 7, 9]


def test_numpy_ufuncs_refuse_symbolic_values_naming_soac_lang_s_function() -> None:
    @sl.jit(backend="interp")
    def f(xs):
        return np.sqrt(xs)  # NUMPY SQRT

    with pytest.raises(
        sl.SoacTypeError, match=r"numpy's sqrt cannot run on a symbolic 1-D f32 array.*use sl\.sqrt instead"
    ) as error:
        f(INTS.astype(np.float32))
    assert str(error.value).startswith(line_of("NUMPY SQRT"))

    @sl.jit(backend="interp")
    def g(xs):
        return sl.map(lambda x: np.arctan2(x, 1.0), xs)  # NUMPY ARCTAN2

    with pytest.raises(sl.SoacTypeError, match=r"numpy's arctan2 .* f32 scalar.*use sl\.atan2 instead") as error:
        g(INTS.astype(np.float32))
    assert str(error.value).startswith(line_of("NUMPY ARCTAN2"))

    @sl.jit(backend="interp")
    def h(xs):
        return np.add.reduce(xs)  # NUMPY REDUCE

    with pytest.raises(sl.SoacTypeError, match=r"numpy's add.reduce cannot run .* \(sl.sum, sl.map") as error:
        h(INTS)
    assert str(error.value).startswith(line_of("NUMPY REDUCE"))


def test_numpy_operators_and_comparisons_on_symbolic_values_are_soac_lang_s() -> None:
    @sl.jit(backend="interp")
    def f(xs):
        total = sl.sum(xs)
        return np.int32(9) < total, np.int32(9) == total, np.subtract(np.int32(1), xs), xs * np.int32(2)

    bigger, same, differences, doubles = f(INTS)
    assert bool(bigger)
    assert not bool(same)
    assert differences.tolist() == [1, 0, -1, -2, -3]
    assert doubles.tolist() == [0, 2, 4, 6, 8]


def test_a_tuple_operator_with_the_wrong_number_of_parameters() -> None:
    @sl.jit(backend="interp")
    def f(xs, ys):
        return sl.reduce(lambda a, b, c: a, (0, 0), xs, ys)  # TUPLE ARITY

    with pytest.raises(sl.SoacTraceError, match=r"sl.reduce gets 2 tuples of 2 values, .* takes 3") as error:
        f(INTS, INTS)
    assert str(error.value).startswith(line_of("TUPLE ARITY"))


def test_a_float_constant_that_f32_cannot_hold_is_refused_at_the_line() -> None:
    """`xs + 1e300` on f32 was an OverflowError from deep inside xDSL; f32's largest value and infinity still work."""

    @sl.jit(backend="interp")
    def f(xs):
        return xs + 1e300  # F32_OVERFLOW

    with pytest.raises(sl.SoacTypeError) as error:
        f(np.ones(2, np.float32))
    assert str(error.value).startswith(line_of("F32_OVERFLOW") + ": the constant 1e+300 does not fit in f32")
    fits = sl.jit(lambda xs: (sl.minimum(xs, 3.4028235e38), sl.maximum(xs, -float("inf"))), backend="interp")
    largest, same = fits(np.array([np.inf, 1], np.float32))
    np.testing.assert_array_equal(largest, [np.finfo(np.float32).max, 1])
    np.testing.assert_array_equal(same, [np.inf, 1])


def test_a_numpy_bool_is_no_index_or_size() -> None:
    """`xs[np.True_]` read xs[1] (numpy adds an axis), as `sl.iota(np.True_)` was one long; Python's True was
    already refused."""

    @sl.jit(backend="interp")
    def f(xs):
        return xs[np.True_]  # NUMPY_BOOL_INDEX

    with pytest.raises(sl.SoacTypeError) as error:
        f(INTS)
    assert str(error.value).startswith(line_of("NUMPY_BOOL_INDEX") + ": an index must be an integer, not a bool")
    with pytest.raises(sl.SoacTypeError, match=r"the size of sl\.iota must be an integer, not a bool"):
        sl.jit(lambda xs: sl.iota(np.False_), backend="interp")(INTS)


def assign_first(xs):
    xs[0] = 5
    return xs


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda xs: round(xs[0]), r"round\(\) of a symbolic i32 scalar"),
        (lambda xs: pow(xs[0], 2, 5), r"pow\(x, y, m\) on a symbolic value; write x \*\* y % m"),
        (lambda xs: xs[0] in xs, "'in' on a symbolic 1-D i32 array needs a Python bool"),
        (assign_first, r"cannot be assigned to; use sl\.scatter"),
        (lambda xs: xs @ xs, "'@' on symbolic arrays"),
    ],
)
def test_python_builtins_that_need_a_value_are_refused_at_the_line(fn, message) -> None:
    """These were TypeErrors from Python, naming no line (Scalar has no __round__, ...)."""
    with pytest.raises(sl.SoacTypeError, match=message) as error:
        sl.jit(fn, backend="interp")(INTS)
    assert str(error.value).startswith(f"{HERE}:")
