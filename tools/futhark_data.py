"""Futhark's data format, text and binary: the values that `futhark test`, `futhark bench` and `futhark dataset` use.

Text values are Futhark literals: `3`, `-2i64`, `0x1Fu8`, `1_000`, `2.5`, `1e3f32`,
`f32.nan`, `-f64.inf`, `true`, nested arrays `[[1, 2], [3, 4]]` and empty arrays
`empty([0][3]i32)`, separated by whitespace or commas; `--` starts a comment. An integer without a suffix is an `i32`, a
decimal number an `f64`, unless it sits in an array beside typed elements. A binary
value is the byte `b`, the version 2, the rank, a four-character type name (`" i32"`,
`"bool"`, ...), the dimensions as little-endian u64s, then the elements, little-endian
and row-major. A file may mix text and binary values.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

TYPES: dict[str, np.dtype[Any]] = {
    name: np.dtype(dtype)
    for name, dtype in [
        ("i8", "<i1"), ("i16", "<i2"), ("i32", "<i4"), ("i64", "<i8"),
        ("u8", "<u1"), ("u16", "<u2"), ("u32", "<u4"), ("u64", "<u8"),
        ("f16", "<f2"), ("f32", "<f4"), ("f64", "<f8"), ("bool", "?"),
    ]
}  # fmt: skip
"""Futhark's primitive types and their numpy dtypes."""

_BINARY_VERSION = 2
_TOKEN = re.compile(
    r"""(?P<space>(?:\s|--[^\n]*)+)
      | (?P<special>-?f(?:16|32|64)\.(?:nan|inf)(?![\w.]))
      | (?P<bool>(?:true|false)(?![\w.]))
      | (?P<empty>empty(?![\w.]))
      | (?P<number>[-+]?\.?\d(?:[eE][-+]|[\w.])*)
      | (?P<punct>[\[\](),])""",
    re.VERBOSE,
)
"""A number token takes in everything up to the next separator; `_NUMBER` then says whether it is well formed."""
_NUMBER = re.compile(
    r"(?P<body>[-+]?(?:0[xX]_*[0-9a-fA-F][0-9a-fA-F_]*|0[bB]_*[01][01_]*|(?:\d[\d_]*)?(?:\.[\d_]*)?(?:[eE][-+]?\d+)?))"
    r"(?P<suffix>[a-zA-Z]\w*)?"
)
_RADIX = re.compile(r"[-+]?0[xXbB]")


class DataError(Exception):
    """A value that does not parse; the message is `source:line: problem`."""


@dataclass(frozen=True)
class DataValue:
    """One value of a data file."""

    value: np.ndarray
    """A 0-d array for a scalar."""
    typed: bool
    """Whether the element type was written (a suffix, `empty(...)`, a boolean, or binary data)."""
    line: int
    """The line where the value starts (0 for binary values)."""


def type_name(dtype: np.dtype[Any]) -> str:
    """Futhark's name of a numpy dtype: `i32`, `f64`, `bool`."""
    return "bool" if dtype.kind == "b" else f"{dtype.kind}{dtype.itemsize * 8}"


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------


@dataclass
class _Scalar:
    text: str
    dtype: np.dtype[Any] | None
    """None for an untyped integer or decimal number."""


class _TextReader:
    def __init__(self, text: str, source: str, first_line: int):
        self.text, self.source, self.first_line, self.pos = text, source, first_line, 0

    def error(self, message: str, pos: int | None = None) -> DataError:
        line = self.first_line + self.text.count("\n", 0, self.pos if pos is None else pos)
        return DataError(f"{self.source}:{line}: {message}")

    def line(self) -> int:
        return self.first_line + self.text.count("\n", 0, self.pos)

    def skip_space(self) -> None:
        match = _TOKEN.match(self.text, self.pos)
        if match and match.lastgroup == "space":
            self.pos = match.end()

    def at_end(self) -> bool:
        self.skip_space()
        return self.pos >= len(self.text)

    def token(self) -> tuple[str, str]:
        self.skip_space()
        match = _TOKEN.match(self.text, self.pos)
        if match is None or match.lastgroup == "space":
            found = self.text[self.pos : self.pos + 12].split()[0] if self.text[self.pos :].strip() else "the end"
            raise self.error(f"expected a value, found '{found}'")
        self.pos = match.end()
        return match.lastgroup or "", match.group(0)

    def expect(self, punct: str) -> None:
        text = self.token()[1] if not self.at_end() else "the end"
        if text != punct:
            raise self.error(f"expected '{punct}', found '{text}'")

    def value(self) -> tuple[Any, np.dtype[Any] | None]:
        """A nested list of `_Scalar`s (or an array for `empty`), and its element type."""
        kind, text = self.token()
        if kind == "punct" and text == "[":
            return self.array()
        if kind == "empty":
            return self.empty()
        if kind == "bool":
            return _Scalar(text, TYPES["bool"]), TYPES["bool"]
        if kind == "special":
            dtype = TYPES[text.lstrip("-")[:3]]
            return _Scalar(text, dtype), dtype
        if kind == "number":
            scalar = _number(text, self)
            return scalar, scalar.dtype
        raise self.error(f"expected a value, found '{text}'", self.pos - len(text))

    def array(self) -> tuple[Any, np.dtype[Any] | None]:
        start = self.pos - 1
        rows: list[Any] = []
        dtype: np.dtype[Any] | None = None
        if self.at_end():
            raise self.error("the '[' is never closed", start)
        if self.text.startswith("]", self.pos):
            raise self.error("an empty array needs its type: write empty([0]i32)", start)
        while True:
            row, row_dtype = self.value()
            dtype = _unify(dtype, row_dtype, self, start)
            rows.append(row)
            if self.at_end():
                raise self.error("the '[' is never closed", start)
            separator = self.text[self.pos]
            self.pos += 1
            if separator == "]":
                return rows, dtype
            if separator != ",":
                raise self.error(f"expected ',' or ']' in an array, found '{separator}'", self.pos - 1)
            if self.at_end():
                raise self.error("the '[' is never closed", start)

    def empty(self) -> tuple[Any, np.dtype[Any] | None]:
        start = self.pos
        self.expect("(")
        match = re.compile(r"\s*((?:\[\s*\d+\s*\]\s*)+)([a-z0-9]+)\s*\)").match(self.text, self.pos)
        if match is None:
            raise self.error("expected a shape and type like empty([0][3]i32)", start)
        dims = tuple(int(d) for d in re.findall(r"\d+", match.group(1)))
        if match.group(2) not in TYPES:
            raise self.error(f"unknown type '{match.group(2)}' in empty(...)", start)
        if 0 not in dims:
            raise self.error(f"empty({match.group(1).replace(' ', '')}{match.group(2)}) has no zero dimension", start)
        self.pos = match.end()
        dtype = TYPES[match.group(2)]
        return np.zeros(dims, dtype), dtype


def _number(text: str, reader: _TextReader) -> _Scalar:
    """A number token (just read) as its digits and its suffix's type; a hexadecimal number takes `f32` as digits."""
    start = reader.pos - len(text)
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise reader.error(f"'{text}' is not a number", start)
    suffix = match.group("suffix")
    if suffix is not None and (suffix not in TYPES or suffix == "bool"):
        raise reader.error(f"unknown type suffix '{suffix}' in '{text}'", start)
    return _Scalar(match.group("body").replace("_", ""), TYPES[suffix] if suffix else None)


def _unify(have: np.dtype[Any] | None, new: np.dtype[Any] | None, reader: _TextReader, start: int) -> np.dtype[Any] | None:
    if have is None or new is None or have == new:
        return have or new
    raise reader.error(f"an array mixes {type_name(have)} and {type_name(new)} elements", start)


def _is_decimal(text: str) -> bool:
    return not _RADIX.match(text) and any(c in text for c in ".eE")


def _scalar_value(scalar: _Scalar, dtype: np.dtype[Any], reader: _TextReader, start: int) -> Any:
    text = scalar.text
    if dtype.kind == "b":
        if text not in ("true", "false"):
            raise reader.error(f"{text} is not a boolean, but the value has type bool", start)
        return text == "true"
    if text.lstrip("-").startswith("f"):
        return -np.inf if text.startswith("-") and text.endswith("inf") else np.inf if text.endswith("inf") else np.nan
    if dtype.kind == "f":
        return _float_value(text, dtype, reader, start)
    return _int_value(text, dtype, reader, start)


def _float_value(text: str, dtype: np.dtype[Any], reader: _TextReader, start: int) -> float:
    """`text` (a decimal or integer literal) as a float of `dtype`, which must not round it to infinity."""
    try:
        number = float(int(text, 0)) if _RADIX.match(text) else float(text)
    except OverflowError:
        number = math.inf
    with np.errstate(over="ignore"):
        if math.isinf(number) or np.isinf(dtype.type(number)):
            raise reader.error(f"{text} is out of range for {type_name(dtype)}", start)
    return number


def _int_value(text: str, dtype: np.dtype[Any], reader: _TextReader, start: int) -> int:
    if _is_decimal(text):
        raise reader.error(f"{text} is not an integer, but the value has type {type_name(dtype)}", start)
    number = int(text, 0) if _RADIX.match(text) else int(text)
    info = np.iinfo(dtype)
    if not info.min <= number <= info.max:
        raise reader.error(f"{text} is out of range for {type_name(dtype)}", start)
    return number


def _default_type(scalars: list[_Scalar]) -> np.dtype[Any]:
    return TYPES["f64"] if any(_is_decimal(s.text) for s in scalars) else TYPES["i32"]


def _flatten(value: Any, reader: _TextReader, start: int) -> tuple[list[_Scalar], tuple[int, ...]]:
    if isinstance(value, _Scalar):
        return [value], ()
    if isinstance(value, np.ndarray):
        return [], value.shape
    shapes, items = set(), []
    for row in value:
        row_items, shape = _flatten(row, reader, start)
        shapes.add(shape)
        items.extend(row_items)
    if len(shapes) != 1:
        raise reader.error("the rows of an array have different shapes", start)
    return items, (len(value), *shapes.pop())


def parse_text(text: str, source: str = "<input>", first_line: int = 1) -> list[DataValue]:
    """The values in Futhark's text syntax in `text` (its first line is line `first_line` of `source`)."""
    reader = _TextReader(text, source, first_line)
    values: list[DataValue] = []
    while not reader.at_end():
        if reader.text.startswith(",", reader.pos):  # commas may separate values, like whitespace
            reader.pos += 1
            continue
        start, line = reader.pos, reader.line()
        value, dtype = reader.value()
        if isinstance(value, np.ndarray):
            values.append(DataValue(value, True, line))
            continue
        scalars, shape = _flatten(value, reader, start)
        element = dtype or _default_type(scalars)
        array = np.array([_scalar_value(s, element, reader, start) for s in scalars], dtype=element).reshape(shape)
        values.append(DataValue(array, dtype is not None, line))
    return values


def _text_scalar(value: Any, dtype: np.dtype[Any]) -> str:
    if dtype.kind == "b":
        return "true" if value else "false"
    name = type_name(dtype)
    if dtype.kind == "f":
        if np.isnan(value):
            return f"{name}.nan"
        if np.isinf(value):
            return f"{'-' if value < 0 else ''}{name}.inf"
        return f"{dtype.type(value)!s}{name}"
    return f"{int(value)}{name}"


def _text_array(array: np.ndarray) -> str:
    if array.ndim == 0:
        return _text_scalar(array[()], array.dtype)
    return "[" + ", ".join(_text_array(row) for row in array) + "]"


def format_text(values: Sequence[Any]) -> str:
    """The values in Futhark's text syntax, one per line, every element typed."""
    lines: list[str] = []
    for value in values:
        array = _checked(np.asarray(value))
        if array.size == 0 and array.ndim:
            lines.append(f"empty({''.join(f'[{d}]' for d in array.shape)}{type_name(array.dtype)})")
        else:
            lines.append(_text_array(array))
    return "".join(line + "\n" for line in lines)


def _checked(array: np.ndarray) -> np.ndarray:
    if type_name(array.dtype) not in TYPES:
        raise DataError(f"values of dtype {array.dtype} have no Futhark type")
    return array


# ---------------------------------------------------------------------------
# Binary
# ---------------------------------------------------------------------------

_BINARY_NAMES = {name: f"{name:>4}".encode() for name in TYPES}
_BINARY_TYPES = {code: name for name, code in _BINARY_NAMES.items()}


def format_binary(values: Sequence[Any]) -> bytes:
    """The values in Futhark's binary format."""
    out = bytearray()
    for value in values:
        array = _checked(np.asarray(value))
        name = type_name(array.dtype)
        out += b"b" + bytes([_BINARY_VERSION, array.ndim]) + _BINARY_NAMES[name]
        out += struct.pack(f"<{array.ndim}Q", *array.shape)
        out += np.ascontiguousarray(array, dtype=TYPES[name]).tobytes()
    return bytes(out)


def _binary_value(data: bytes, pos: int, where: str) -> tuple[DataValue, int]:
    """The binary value at `pos` and where it ends; `where` (`source:line`) starts its errors."""

    def error(message: str) -> DataError:
        return DataError(f"{where}: binary value at byte {pos}: {message}")

    if len(data) < pos + 7:
        raise error("the header is cut short")
    version, rank, code = data[pos + 1], data[pos + 2], data[pos + 3 : pos + 7]
    if version != _BINARY_VERSION:
        raise error(f"format version {version}, expected {_BINARY_VERSION}")
    name = _BINARY_TYPES.get(code)
    if name is None:
        raise error(f"unknown type {code.decode(errors='replace')!r}")
    start = pos + 7 + 8 * rank
    if len(data) < start:
        raise error("the shape is cut short")
    shape = struct.unpack_from(f"<{rank}Q", data, pos + 7)
    dtype = TYPES[name]
    count = math.prod(shape)
    end = start + count * dtype.itemsize
    if len(data) < end:
        raise error(f"expected {count} {name} elements, the data ends first")
    try:
        array = np.frombuffer(data, dtype, count, start).reshape(shape).copy()
    except ValueError:
        raise error(f"the shape {list(shape)} is too large") from None
    return DataValue(array, True, 0), end


def parse_binary(data: bytes, source: str = "<input>") -> list[DataValue]:
    """The values of binary data (whitespace may separate them)."""
    return parse_data(data, source, text=False)


def parse_data(data: bytes, source: str = "<input>", text: bool = True) -> list[DataValue]:
    """Text and binary values, in any mix (only binary ones when `text` is false)."""
    values: list[DataValue] = []
    pos, line = 0, 1
    while pos < len(data):
        if data[pos : pos + 1].isspace():
            line += data[pos] == ord("\n")
            pos += 1
        elif _binary_starts(data, pos) or not text:
            if data[pos : pos + 1] != b"b":
                raise DataError(f"{source}:{line}: binary value at byte {pos}: expected the byte 'b'")
            value, pos = _binary_value(data, pos, f"{source}:{line}")
            values.append(value)
        else:
            end = _text_end(data, pos)
            try:
                chunk = data[pos:end].decode()
            except UnicodeDecodeError:
                raise DataError(f"{source}:{line}: the data is neither text nor binary values") from None
            values.extend(parse_text(chunk, source, line))
            line += chunk.count("\n")
            pos = end
    return values


def _binary_starts(data: bytes, pos: int) -> bool:
    return data[pos : pos + 1] == b"b" and pos + 1 < len(data) and data[pos + 1] < 32


def _text_end(data: bytes, pos: int) -> int:
    """Where the text starting at `pos` ends: at a binary value that starts a line or follows whitespace."""
    match = re.compile(rb"(?<=\s)b[\x00-\x1f]").search(data, pos)
    return match.start() if match else len(data)


def read_data_file(path: str | Path) -> list[DataValue]:
    """The values of a data file; DataError names the file when it cannot be read."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a directory") from None
    except OSError as error:
        raise DataError(f"{path}: cannot read it: {error.strerror or error}") from None
    return parse_data(data, str(path))
