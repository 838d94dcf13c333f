"""Tuning files and threshold names: the thresholds and tile sizes a run is given, read and checked by name.

A tuning file has `name=value` lines and `#` comments (`soac-run --tuning`, `soac-autotune`'s output, `sl.jit(tuning=
...)`); `unknown_threshold` says which name is no threshold or tile size of a program, so that a typo does not
silently change nothing. Bad input raises `InputError`, saying what is wrong where.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from soac.parsing import did_you_mean
from soac.passes.thresholds import list_thresholds
from soac.passes.tile_sizes import list_tile_parameters
from xdsl.dialects.builtin import ModuleOp


class InputError(Exception):
    """An input that cannot become a value of its parameter's type, or a bad tuning file or threshold."""


def parse_threshold(text: str, where: str) -> tuple[str, int]:
    """`name=value` → (name, value); `where` prefixes the InputError."""
    name, eq, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not eq or not name:
        raise InputError(f"{where}: expected 'name=value', got {text.strip()!r}")
    try:
        number = int(value)
    except ValueError:
        raise InputError(f"{where}: threshold '{name}' needs an integer value, got {value!r}") from None
    if number < 0:
        raise InputError(f"{where}: threshold '{name}' must not be negative, got {number}")
    return name, number


def read_tuning_file(tuning: str | Path) -> dict[str, int]:
    """The thresholds of a tuning file (`name=value` lines, `#` comments); InputError says what is wrong where."""
    try:
        lines = Path(tuning).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read tuning file '{tuning}': {getattr(error, 'strerror', None) or error}") from None
    thresholds: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if line := line.split("#", 1)[0].strip():
            name, value = parse_threshold(line, f"{tuning}:{number}")
            thresholds[name] = value
    return thresholds


def unknown_threshold(module: ModuleOp, names: Iterable[str]) -> str | None:
    """What is wrong with the first of `names` that names no threshold or tile size of the program (None if each
    does: a typo would otherwise change nothing)."""
    known = [t.name for t in list_thresholds(module)] + [p.name for p in list_tile_parameters(module)]
    for name in names:
        if name not in known:
            has = f"its thresholds and tile sizes: {', '.join(known)}" if known else "it has none"
            return f"the program has no threshold or tile size '{name}'{did_you_mean(name, known)} ({has})"
    return None
