"""Pass pipelines as text: every pass soac knows, and checks that report a bad pass or option at its place.

`check_pipeline("soac-fuse,soac-to-kernel{hist=shared}", all_passes())` raises a ParseError pointing at `hist=shared`
(`soac-opt -p` and `sl.jit(pipeline=...)` report it so).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, get_origin, get_type_hints

from soac.parsing import did_you_mean
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, PipelineLexer, SpecTokenKind, _convert_arg_to_type, parse_pipeline
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span


def all_passes() -> dict[str, Callable[[], type[Any]]]:
    """xDSL's passes and soac's (`soac.passes.get_all_passes`), by pipeline name."""
    from soac.passes import get_all_passes
    from xdsl.transforms import get_all_passes as xdsl_passes

    return {**xdsl_passes(), **get_all_passes()}


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
