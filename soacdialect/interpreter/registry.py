"""The table of op implementations, filled by the `@implements` decorator."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from soac.interpreter.core import SoacInterpreter
    from soac.interpreter.frame import Frame
    from soac.interpreter.values import Val

Impl = Callable[["SoacInterpreter", "Frame", Any], Sequence["Val"]]

IMPLEMENTATIONS: dict[str, Impl] = {}


def implements(*names: str) -> Callable[[Impl], Impl]:
    """Register the decorated function as the implementation of the ops called `names`.

    It is called as `impl(interpreter, frame, op)` and returns one value per result.
    """

    def register(impl: Impl) -> Impl:
        for name in names:
            IMPLEMENTATIONS[name] = impl
        return impl

    return register
