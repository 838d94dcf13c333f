"""The xDSL context that every soac tool, pass and test parses programs in."""

from soac.arith_remf import ArithWithRemf
from soac.tools.registry import get_all_dialects
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.scf import Scf
from xdsl.dialects.tensor import Tensor


def make_context() -> Context:
    """A context with builtin, func, arith (with `arith.remf`), math, scf, tensor and every soac dialect loaded.

    The soac dialects (see `soac.tools.registry.get_all_dialects`) are registered
    lazily, so they are only imported when a program uses them.
    """
    ctx = Context()
    for dialect in (Builtin, Func, ArithWithRemf, Math, Scf, Tensor):
        ctx.load_dialect(dialect)
    for name, factory in get_all_dialects().items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx
