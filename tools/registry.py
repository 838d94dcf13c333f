"""What this package registers with xDSL: its dialects, its output targets and the `xdsl.universe` entry point.

    from soac.tools.registry import get_all_dialects, get_all_targets

Each is a name and a factory that imports on first use, so a tool that parses only `soac` IR never imports the
kernel dialect or the OpenCL emitter. `SOAC_UNIVERSE` (pyproject.toml's `xdsl.universe` entry point) adds the passes
(`soac.passes.get_all_passes`), so that `xdsl-opt` sees all three; `soac.context.make_context` loads the dialects.
"""

from collections.abc import Callable

from soac.passes import get_all_passes
from xdsl.ir import Dialect
from xdsl.universe import Universe
from xdsl.utils.target import Target


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """The dialects this package defines, by name."""

    def get_soac() -> Dialect:
        from soac.dialect import Soac

        return Soac

    def get_kernel() -> Dialect:
        from soac.lowering.kernel import Kernel

        return Kernel

    return {"soac": get_soac, "kernel": get_kernel}


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """The output targets (`-t NAME`) this package defines."""

    def get_opencl() -> type[Target]:
        from soac.lowering.opencl.emitter import OpenCLTarget

        return OpenCLTarget

    return {"opencl": get_opencl}


SOAC_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    all_targets=get_all_targets(),
)
