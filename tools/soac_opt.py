"""`soac-opt`: xdsl-opt with the soac dialects, passes and targets (found through the universe).

Every op it parses carries its `file:line:col`, and a program that does not
verify is reported at the failing op's place in the source. An unknown pass or
pass option in `-p` is reported at its place in the pipeline.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, get_origin, get_type_hints

from soac.parsing import did_you_mean, parse_module, verify_after
from soac.tools.diagnostics import run_cleanly
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, PipelineLexer, SpecTokenKind, _convert_arg_to_type, parse_pipeline
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Span
from xdsl.xdsl_opt_main import xDSLOptMain

PipelineSpan = Span[str]


@dataclass
class PassMention:
    """Where a pass and its options are written in a `-p` pipeline."""

    name: PipelineSpan
    options: dict[str, PipelineSpan] = field(default_factory=dict[str, PipelineSpan])
    """The span of each option, `key=value,...`, by its key as written."""


def pipeline_mentions(pipeline: str) -> list[PassMention]:
    """The spans of the passes and options of a pass pipeline (which must already parse)."""
    mentions: list[PassMention] = []
    depth = 0
    previous = SpecTokenKind.COMMA
    key: str | None = None
    key_start = 0
    lexer = PipelineLexer(pipeline)
    while (token := lexer.lex()).kind is not SpecTokenKind.EOF:
        if depth == 1 and key is not None and token.kind in (SpecTokenKind.SPACE, SpecTokenKind.R_BRACE):
            mentions[-1].options[key] = Span(key_start, token.span.start, token.span.input)
            key = None
        if token.kind is SpecTokenKind.IDENT and depth == 0 and previous is SpecTokenKind.COMMA:
            mentions.append(PassMention(token.span))
        elif token.kind is SpecTokenKind.IDENT and depth == 1 and previous in (SpecTokenKind.L_BRACE, SpecTokenKind.SPACE):
            key, key_start = token.span.text, token.span.start
        depth += {SpecTokenKind.L_BRACE: 1, SpecTokenKind.R_BRACE: -1}.get(token.kind, 0)
        previous = token.kind
    return mentions


def _type_name(hint: Any) -> str:
    return str(hint).replace("typing.", "") if get_origin(hint) else getattr(hint, "__name__", str(hint))


def check_pass_options(pass_type: type[ModulePass], spec: ArgSpec, mention: PassMention) -> None:
    """Report an unknown option, or an option value of the wrong type, at its place in the pipeline."""
    hints = get_type_hints(pass_type)
    fields = {f.name: hints[f.name] for f in dataclasses.fields(pass_type) if f.init and f.name != "name"}
    known = f"its options: {', '.join(name.replace('_', '-') for name in fields)}" if fields else "it has no options"
    for written, values in spec.parameters.items():
        where = mention.options.get(written, mention.name)
        if (hint := fields.get(written.replace("-", "_"))) is None:
            raise ParseError(where, f"pass '{spec.name}' has no option '{written}' ({known})")
        try:
            _convert_arg_to_type(values, hint)
        except ValueError:
            wanted = f"option '{written}' of pass '{spec.name}' takes a value of type {_type_name(hint)}"
            given = f"not '{', '.join(str(v) for v in values)}'" if values else "but none was given"
            raise ParseError(where, f"{wanted}, {given}") from None


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


def check_pipeline(pipeline: str, available_passes: Mapping[str, Callable[[], type[ModulePass]]]) -> None:
    """Report an unknown pass or pass option at its place in `pipeline` (a ParseError; ArgSpecParseError where the
    pipeline does not parse)."""
    specs = list(parse_pipeline(pipeline))
    for spec, mention in zip(specs, pipeline_mentions(pipeline)):
        if spec.name == "mlir-opt":
            continue
        if spec.name not in available_passes:
            hint = did_you_mean(spec.name, available_passes)
            raise ParseError(mention.name, f"unknown pass '{spec.name}'{hint}")
        pass_type = available_passes[spec.name]()
        check_pass_options(pass_type, spec, mention)
        try:
            pass_type.from_pass_spec(spec)
        except ValueError as error:
            raise ParseError(mention.name, f"bad options for pass '{spec.name}': {error}") from None


def main() -> None:
    run_cleanly(lambda: SoacOptMain(description="soac optimizer driver").run())


if __name__ == "__main__":
    main()
