"""The dialects this package defines, imported lazily."""

from collections.abc import Callable

from xdsl.ir import Dialect


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    def get_soac() -> Dialect:
        from soac.dialect import Soac

        return Soac

    def get_kernel() -> Dialect:
        from soac.lowering.kernel import Kernel

        return Kernel

    return {"soac": get_soac, "kernel": get_kernel}
