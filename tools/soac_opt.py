"""`soac-opt`: xdsl-opt with the soac dialects, passes and targets (found through the universe).

Every op it parses carries its `file:line:col`, and a program that does not
verify is reported at the failing op's place in the source. An unknown pass or
pass option in `-p` is reported at its place in the pipeline.
"""

from __future__ import annotations

import dataclasses
from typing import IO

from soac.parsing import parse_module, verify_after
from soac.passes.pipelines import PassMention as PassMention
from soac.passes.pipelines import check_pass_options as check_pass_options
from soac.passes.pipelines import check_pipeline
from soac.passes.pipelines import pipeline_mentions as pipeline_mentions
from soac.tools.diagnostics import run_cleanly
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException
from xdsl.xdsl_opt_main import xDSLOptMain


class SoacOptMain(xDSLOptMain):
    version_format = "soac-opt built on xdsl {xdsl_version}"

    def register_all_dialects(self) -> None:
        """xDSL's dialects and soac's, with `arith.remf` in arith (see soac.arith_remf)."""
        from soac.arith_remf import ArithWithRemf
        from xdsl.universe import Universe

        for name, factory in Universe.get_multiverse().all_dialects.items():
            self.ctx.register_dialect(name, (lambda: ArithWithRemf) if name == "arith" else factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            return parse_module(self.ctx, io.read(), self.get_input_name(), not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        if file_extension == "mlir":
            return parse_module(self.ctx, chunk.read(), self.get_input_name(), not self.args.no_implicit_module, start_offset)
        return super().parse_chunk(chunk, file_extension, start_offset)

    def setup_pipeline(self) -> None:
        self.check_pipeline(self.args.passes)
        super().setup_pipeline()
        verify_between = self.pipeline.callback
        if verify_between is None:
            return

        def callback(previous: ModulePass | None, module: ModuleOp, next_pass: ModulePass | None) -> None:
            try:
                verify_between(previous, module, next_pass)
            except DiagnosticException:
                what = f"pass '{previous.name}'" if previous is not None else "parsing"
                verify_after(module, what)
                raise

        self.pipeline = dataclasses.replace(self.pipeline, callback=callback)

    def check_pipeline(self, pipeline: str) -> None:
        check_pipeline(pipeline, self.available_passes)


def main() -> None:
    run_cleanly(lambda: SoacOptMain(description="soac optimizer driver").run())


if __name__ == "__main__":
    main()
