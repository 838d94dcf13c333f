"""Fixtures for the interpreter tests: parse IR text and run one of its functions."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest
from soac.dialect import Soac
from soac.interpreter import run_function
from soac.parsing import parse_module
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.scf import Scf
from xdsl.dialects.tensor import Tensor

_CACHE: dict[str, ModuleOp] = {}


def make_context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Arith, Math, Scf, Tensor, Soac):
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str) -> ModuleOp:
    """Parse (and verify) a module from `test.mlir`; cached, since hypothesis runs one program many times."""
    if text not in _CACHE:
        _CACHE[text] = parse_module(make_context(), text, "test.mlir")
    return _CACHE[text]


Runner = Callable[..., tuple[object, ...]]


@pytest.fixture(scope="session")
def run() -> Runner:
    """`run(ir_text, *args, name="main", thresholds=None)` -> the results of `@name`."""

    def runner(text: str, *args: object, name: str = "main", thresholds: Mapping[str, int] | None = None) -> tuple[object, ...]:
        return run_function(parse(text), name, list(args), thresholds)

    return runner


@pytest.fixture
def context() -> Context:
    return make_context()


@pytest.fixture(scope="session")
def module() -> Callable[[str], ModuleOp]:
    return parse
