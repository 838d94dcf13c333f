"""The output targets (`-t NAME`) this package defines, imported lazily."""

from collections.abc import Callable

from xdsl.utils.target import Target


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    def get_opencl() -> type[Target]:
        from soac.lowering.opencl.emitter import OpenCLTarget

        return OpenCLTarget

    return {"opencl": get_opencl}
