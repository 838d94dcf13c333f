"""SOAC-to-SOAC passes: fusion, flattening and their helpers (one pass per file)."""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes this package defines, by pipeline name, imported lazily."""
    return {}
