"""Fixtures for the lowering tests: run a soac function on the interpreter and on OpenCL (PoCL in CI), compare."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import Program, compile_module
from soac.parsing import parse_module
from soac.types import numpy_dtype
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute
from xdsl.printer import Printer


def parse(text: str, name: str = "test.mlir") -> ModuleOp:
    return parse_module(make_context(), text, name)


def random_value(t: Attribute, size: int, rng: np.random.Generator) -> object:
    """A random argument of type `t`; every array dimension and every index argument is `size`."""
    if isinstance(t, TensorType):
        dtype = numpy_dtype(t)
        shape = tuple(size if d < 0 else d for d in t.get_shape())
        if dtype == np.bool_:
            return rng.random(shape) < 0.5
        if dtype.kind == "f":
            return rng.uniform(-2, 2, shape).astype(dtype)
        return rng.integers(-50, 50, shape).astype(dtype)
    if str(t) == "index":
        return np.int64(size)
    dtype = numpy_dtype(t)
    if dtype == np.bool_:
        return np.bool_(rng.random() < 0.5)
    return dtype.type(rng.integers(-3, 4))


def random_args(module: ModuleOp, name: str, size: int, seed: int = 0) -> list[object]:
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == name)
    rng = np.random.default_rng(seed)
    return [random_value(t, size, rng) for t in function.function_type.inputs.data]


def assert_same(expected: Sequence[object], got: Sequence[object], rtol: float = 1e-4, atol: float = 1e-4) -> None:
    assert len(expected) == len(got)
    for k, (e, g) in enumerate(zip(expected, got)):
        e_arr, g_arr = np.asarray(e), np.asarray(g)
        assert e_arr.shape == g_arr.shape, f"result #{k}: shape {g_arr.shape}, expected {e_arr.shape}"
        assert e_arr.dtype == g_arr.dtype, f"result #{k}: dtype {g_arr.dtype}, expected {e_arr.dtype}"
        if e_arr.dtype.kind == "f":
            np.testing.assert_allclose(g_arr, e_arr, rtol=rtol, atol=atol, err_msg=f"result #{k}")
        else:
            np.testing.assert_array_equal(g_arr, e_arr, err_msg=f"result #{k}")


def check(
    module: ModuleOp, name: str, args: Sequence[object], thresholds: Mapping[str, int] | None = None, **options: object
) -> None:
    """The OpenCL results of `@name` equal the interpreter's."""
    expected = interpret(module, name, args, thresholds)
    assert_same(expected, compiled(module, **options).call(name, args, thresholds))


_COMPILED: dict[tuple[str, ...], Program] = {}


def compiled(module: ModuleOp, **options: object) -> Program:
    """`compile_module(module, **options)`, once per session for each module (its text with locations, which its
    run-time errors report), options and `SOAC_*` environment: a test run on several inputs lowers and builds once."""
    text = io.StringIO()
    Printer(stream=text, print_debuginfo=True).print_op(module)
    environment = sorted((k, v) for k, v in os.environ.items() if k.startswith("SOAC_"))
    key = (text.getvalue(), repr(sorted(options.items())), repr(environment))
    if (program := _COMPILED.get(key)) is None:
        program = _COMPILED[key] = compile_module(module, **options)  # pyright: ignore[reportArgumentType]
    return program


@pytest.fixture
def differential():
    """`differential(text, name, args, thresholds=None, **options)`: parse `text`, compare interpreter and OpenCL."""

    def run(text: str, name: str, args: Sequence[object], thresholds: Mapping[str, int] | None = None, **options: object) -> None:
        check(parse(text), name, args, thresholds, **options)

    return run


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


@pytest.fixture(name="parse")
def parse_fixture():
    """`parse(text, name="test.mlir")`: a verified module with source locations."""
    return parse


@pytest.fixture(name="random_args")
def random_args_fixture():
    return random_args


@pytest.fixture(name="assert_same")
def assert_same_fixture():
    return assert_same
