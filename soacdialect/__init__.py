"""soac: Futhark-style second-order array combinators as an xDSL dialect."""

from typing import Any


def __getattr__(name: str) -> Any:
    """`soac.jit` is `soac.lang.jit` (imported when first asked for: the dialect alone does not load the embedding)."""
    if name == "jit":
        from soac.lang import jit

        return jit
    raise AttributeError(f"module 'soac' has no attribute '{name}'")
