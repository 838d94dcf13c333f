"""`soac-opt`: xdsl-opt with the soac dialects, passes and targets (found through the universe).

Every op it parses carries its `file:line:col`, and a program that does not
verify is reported at the failing op's place in the source.
"""

from typing import IO

from soac.parsing import parse_module
from soac.tools.diagnostics import run_cleanly
from xdsl.xdsl_opt_main import xDSLOptMain


class SoacOptMain(xDSLOptMain):
    version_format = "soac-opt built on xdsl {xdsl_version}"

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]):
            return parse_module(self.ctx, io.read(), self.get_input_name(), not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir


def main() -> None:
    run_cleanly(lambda: SoacOptMain(description="soac optimizer driver").run())
