"""Tuning files and threshold names: the thresholds and tile sizes a run is given, read and checked by name.

A tuning file has `name=value` lines and `#` comments (`soac-run --tuning`, `soac-autotune`'s output,
`sl.jit(tuning=...)`), and `soac-to-kernel.OPTION=VALUE` lines for the lowering options its thresholds were tuned
with (they apply where it is used, unless given otherwise); `unknown_threshold` says which name is no threshold or
tile size of a program, so that a typo does not silently change nothing. Bad input raises `InputError`, saying what
is wrong where.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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


OPTION_PREFIX = "soac-to-kernel."
"""A tuning file's line `soac-to-kernel.hist=global` sets a lowering option (the kernels its thresholds were tuned
with), as `soac-to-kernel{hist=global}` does."""


def read_tuning_file(tuning: str | Path) -> dict[str, int]:
    """The thresholds of a tuning file (`name=value` lines, `#` comments); InputError says what is wrong where."""
    return read_tuning(tuning)[0]


def read_tuning(tuning: str | Path) -> tuple[dict[str, int], dict[str, object]]:
    """The thresholds and the lowering options (by field name, `OPTION_PREFIX` lines) of a tuning file; InputError
    says what is wrong where."""
    from soac.lowering.conversion.options import LoweringOptions, option_fields, parse_option

    try:
        lines = Path(tuning).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read tuning file '{tuning}': {getattr(error, 'strerror', None) or error}") from None
    thresholds: dict[str, int] = {}
    options: dict[str, object] = {}
    for number, line in enumerate(lines, 1):
        if not (line := line.split("#", 1)[0].strip()):
            continue
        if not line.startswith(OPTION_PREFIX):
            name, value = parse_threshold(line, f"{tuning}:{number}")
            thresholds[name] = value
            continue
        written, _, text = line[len(OPTION_PREFIX) :].partition("=")
        name = written.strip().replace("-", "_")
        if name not in option_fields():
            known = [f.replace("_", "-") for f in option_fields()]
            hint = did_you_mean(written.strip(), known)
            raise InputError(f"{tuning}:{number}: soac-to-kernel has no option '{written.strip()}'{hint}")
        try:
            options[name] = parse_option(name, text.strip())
            LoweringOptions(**{name: options[name]})
        except ValueError as error:
            raise InputError(f"{tuning}:{number}: {error}") from None
    return thresholds, options


def tuning_text(thresholds: Mapping[str, int], options: Mapping[str, object] | None = None) -> str:
    """A tuning file: the lowering options (as `OPTION_PREFIX` lines), then the thresholds, each sorted."""
    spelt = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in (options or {}).items()}
    lines = [f"{OPTION_PREFIX}{k.replace('_', '-')}={v}" for k, v in sorted(spelt.items())]
    return "".join(f"{line}\n" for line in [*lines, *(f"{k}={v}" for k, v in sorted(thresholds.items()))])


def unknown_threshold(module: ModuleOp, names: Iterable[str]) -> str | None:
    """What is wrong with the first of `names` that names no threshold or tile size of the program (None if each
    does: a typo would otherwise change nothing)."""
    known = [t.name for t in list_thresholds(module)] + [p.name for p in list_tile_parameters(module)]
    for name in names:
        if name not in known:
            has = f"its thresholds and tile sizes: {', '.join(known)}" if known else "it has none"
            return f"the program has no threshold or tile size '{name}'{did_you_mean(name, known)} ({has})"
    return None
