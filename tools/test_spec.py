"""The test stanzas a soac program carries in its comments, in the shape of Futhark's `futhark test`.

A stanza block starts at a comment line `// ==` and runs to the end of that run of
`//` comment lines; a file may have several blocks. Inside a block:

    // ==
    // entry: main other            the functions the block's cases call (default: main)
    // tags { slow gpu }            names that `soac-test --exclude` and `--only` select on
    // input { [1, 2, 3] }          Futhark data values, one per parameter
    // output { [4i32, 11, 21] }    the expected results; without `output` the results are
    //                              compared with the reference interpreter's on the unoptimised program
    // input @ data/big.in          a data file (text or binary) beside the program
    // output @ data/big.out
    // input { [1] 5i64 }
    // error: out of bounds         the call must fail with a message matching this regex
    // random input { [1000000]i32 [10][20]f32 }   random values of these shapes and types
    // nobench input { ... }        not timed by soac-bench; `compiled` skips the interpreter backend
    // structure { soac.scanomap 1 soac.map 0 }
    //                              op counts after the default pipeline
    // structure pipeline(soac-fuse) { soac.scanomap 1 }
    //                              op counts after a given pipeline (`pipeline()` is the program as written)

`parse_test_spec` reads the blocks of a program; malformed stanzas raise `SpecError` naming
the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from soac.passes import DEFAULT_PIPELINE

__all__ = ["DEFAULT_PIPELINE"]
"""The pipeline of `structure` checks without `pipeline(...)`, and of the optimised runs."""

_STANZA_START = re.compile(r"^\s*//\s*==\s*$")
_COMMENT = re.compile(r"^\s*//( ?)(.*)$")
_CASE_MODIFIERS = ("compiled", "nobench", "random")
_RANDOM_SHAPE = re.compile(r"((?:\[\d+\])*)(bool|[iuf](?:8|16|32|64))")


class SpecError(Exception):
    """A malformed test stanza: the message is `file:line: problem`."""


@dataclass(frozen=True)
class Values:
    """Values of a case: literal Futhark data text, a data file, or random shapes."""

    line: int
    text: str | None = None
    file: Path | None = None
    random: tuple[tuple[tuple[int, ...], str], ...] | None = None
    """(shape, Futhark element type) per value, for `random input`."""

    def describe(self, limit: int = 40) -> str:
        """How Futhark names a dataset: the file name, or the values as written."""
        if self.file is not None:
            return self.file.name
        if self.random is not None:
            text = " ".join("".join(f"[{d}]" for d in shape) + t for shape, t in self.random)
        else:
            text = " ".join((self.text or "").split())
        return f'"{text if len(text) <= limit else text[: limit - 3] + "..."}"'


@dataclass(frozen=True)
class TestCase:
    """One `input` stanza and what it expects."""

    entry: str
    index: int
    input: Values
    output: Values | None = None
    error: str | None = None
    """A regex that the failure's message must match (`error:`)."""
    compiled_only: bool = False
    no_bench: bool = False
    tags: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"@{self.entry} #{self.index} ({self.input.describe()})"


@dataclass(frozen=True)
class StructureCheck:
    """Expected op counts after a pipeline (`structure [pipeline(P)] { op count ... }`)."""

    line: int
    pipeline: str
    counts: tuple[tuple[str, int], ...]


@dataclass
class TestSpec:
    """Every case and structure check of one program."""

    path: Path
    cases: list[TestCase] = field(default_factory=list[TestCase])
    structures: list[StructureCheck] = field(default_factory=list[StructureCheck])
    entries: dict[str, int] = field(default_factory=dict[str, int])
    """The entry points the blocks name, with the line that names each."""


@dataclass
class _Block:
    """The text of one stanza block with its comment markers removed, and the file line of each text line."""

    text: str
    lines: list[int]


def stanza_blocks(source: str) -> list[_Block]:
    """The stanza blocks of a program's text."""
    blocks: list[_Block] = []
    current: _Block | None = None
    for number, line in enumerate(source.splitlines(), 1):
        comment = _COMMENT.match(line)
        if current is not None and comment is not None and not _STANZA_START.match(line):
            current.text += comment.group(2) + "\n"
            current.lines.append(number)
            continue
        current = None
        if _STANZA_START.match(line):
            current = _Block("", [])
            blocks.append(current)
    return blocks


class _Reader:
    """A cursor over one block's text that reports errors at file lines."""

    def __init__(self, block: _Block, path: Path):
        self.text, self.block_lines, self.path, self.pos = block.text, block.lines, path, 0

    def line(self, pos: int | None = None) -> int:
        index = self.text.count("\n", 0, self.pos if pos is None else pos)
        return self.block_lines[min(index, len(self.block_lines) - 1)] if self.block_lines else 0

    def error(self, message: str, pos: int | None = None) -> SpecError:
        return SpecError(f"{self.path}:{self.line(pos)}: {message}")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def at_end(self) -> bool:
        self.skip_space()
        return self.pos >= len(self.text)

    def peek_word(self) -> str:
        self.skip_space()
        match = re.compile(r"[^\s{}]+").match(self.text, self.pos)
        return match.group(0) if match else self.text[self.pos : self.pos + 1]

    def word(self) -> str:
        word = self.peek_word()
        self.pos += len(word)
        return word

    def rest_of_line(self) -> str:
        self.skip_inline_space()
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end
        text, self.pos = self.text[self.pos : end].strip(), end
        return text

    def skip_inline_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def braces(self, what: str) -> tuple[str, int]:
        """The text between `{` and its matching `}`, and the file line of the `{`."""
        self.skip_space()
        start = self.pos
        if not self.text.startswith("{", start):
            raise self.error(f"expected '{{' after {what}, found {self.describe_next()}")
        depth = 0
        for pos in range(start, len(self.text)):
            depth += {"{": 1, "}": -1}.get(self.text[pos], 0)
            if depth == 0:
                self.pos = pos + 1
                return self.text[start + 1 : pos], self.line(start)
        raise self.error(f"the '{{' of {what} is never closed", start)

    def describe_next(self) -> str:
        return f"'{self.peek_word()}'" if not self.at_end() else "the end of the block"


def _values(reader: _Reader, what: str) -> Values:
    """`{ data }` or `@ file` after `input`/`output`."""
    reader.skip_space()
    line = reader.line()
    if reader.text.startswith("@", reader.pos):
        reader.pos += 1
        name = reader.word()
        if not name or name in "{}":
            raise reader.error(f"expected a file name after '{what} @'")
        return Values(line, file=reader.path.parent / name)
    text, line = reader.braces(what)
    return Values(line, text=text)


def _random_values(reader: _Reader) -> Values:
    text, line = reader.braces("random input")
    shapes: list[tuple[tuple[int, ...], str]] = []
    for item in text.split():
        match = _RANDOM_SHAPE.fullmatch(item)
        if match is None:
            raise SpecError(f"{reader.path}:{line}: expected a shape and type like [100][10]f32 in random input, found '{item}'")
        dims = tuple(int(d) for d in re.findall(r"\d+", match.group(1)))
        shapes.append((dims, match.group(2)))
    return Values(line, random=tuple(shapes))


def _structure(reader: _Reader) -> StructureCheck:
    reader.skip_space()
    line, pipeline = reader.line(), DEFAULT_PIPELINE
    if reader.text.startswith("pipeline(", reader.pos):
        depth, start = 0, reader.pos + len("pipeline(")
        for pos in range(start - 1, len(reader.text)):
            depth += {"(": 1, ")": -1}.get(reader.text[pos], 0)
            if depth == 0:
                pipeline, reader.pos = reader.text[start:pos].strip(), pos + 1
                break
        else:
            raise reader.error("the '(' of 'pipeline(' is never closed")
    body, body_line = reader.braces("structure")
    words = body.split()
    if len(words) % 2:
        raise SpecError(f"{reader.path}:{body_line}: structure wants pairs of an op name and a count, got '{body.strip()}'")
    counts: list[tuple[str, int]] = []
    for name, count in zip(words[::2], words[1::2]):
        if not count.isdigit():
            raise SpecError(f"{reader.path}:{body_line}: the count of {name} in structure must be a number, got '{count}'")
        counts.append((name, int(count)))
    return StructureCheck(line, pipeline, tuple(counts))


def _parse_block(block: _Block, spec: TestSpec) -> None:  # noqa: C901
    reader = _Reader(block, spec.path)
    entries: dict[str, int] = {}
    tags: tuple[str, ...] = ()
    cases: list[tuple[dict[str, bool], Values, Values | None, str | None]] = []
    while not reader.at_end():
        line = reader.line()
        keyword = reader.word()
        if keyword == "entry:":
            names = reader.rest_of_line().split()
            if not names:
                raise reader.error("'entry:' names no function")
            entries.update((name.lstrip("@"), line) for name in names)
        elif keyword == "tags":
            tags += tuple(reader.braces("tags")[0].split())
        elif keyword == "structure":
            spec.structures.append(_structure(reader))
        elif keyword in (*_CASE_MODIFIERS, "input"):
            modifiers = {}
            while keyword in _CASE_MODIFIERS:
                modifiers[keyword] = True
                keyword = reader.word()
            if keyword != "input":
                raise reader.error(f"expected 'input' after '{' '.join(modifiers)}', found '{keyword}'")
            values = _random_values(reader) if modifiers.get("random") else _values(reader, "input")
            output, error = None, None
            if reader.peek_word() == "auto":
                reader.word()
                if reader.word() != "output":
                    raise reader.error("expected 'output' after 'auto'")
            elif reader.peek_word() == "output":
                reader.word()
                output = _values(reader, "output")
            elif reader.peek_word() == "error:":
                reader.word()
                error = reader.rest_of_line()
                try:
                    re.compile(error)
                except re.error as problem:
                    raise reader.error(f"'error:' wants a regular expression: {problem}") from None
            cases.append((modifiers, values, output, error))
        elif keyword in ("output", "auto", "error:"):
            raise reader.error(f"'{keyword}' must follow an input, once (a case is 'input {{...}}' then output or error:)", None)
        else:
            raise reader.error(f"expected 'input', 'output', 'error:', 'structure', 'entry:' or 'tags', found '{keyword}'", None)
    named = entries or {"main": block.lines[0] - 1 if block.lines else 0}
    for entry, line in named.items():
        spec.entries.setdefault(entry, line)
        first = sum(case.entry == entry for case in spec.cases)
        for index, (modifiers, values, output, error) in enumerate(cases, first):
            spec.cases.append(
                TestCase(
                    entry, index, values, output, error,
                    compiled_only="compiled" in modifiers, no_bench="nobench" in modifiers, tags=tags,
                )
            )  # fmt: skip


def parse_test_spec(path: Path, source: str | None = None) -> TestSpec:
    """The stanzas of the program at `path` (read from disk unless `source` is given)."""
    if source is None:
        source = path.read_text()
    spec = TestSpec(path)
    for block in stanza_blocks(source):
        _parse_block(block, spec)
    return spec
