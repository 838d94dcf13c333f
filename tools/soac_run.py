"""`soac-run`: runs a function of a soac program on numpy inputs.

    soac-run FILE [--entry NAME] [--input ARG ...] [--backend interp|opencl]
                  [--output DIR] [--threshold NAME=VALUE ...] [--tuning FILE]

Each `--input` is a `.npy` file or a literal (`3`, `2.5`, `true`, `[1,2,3]`,
`[[1,2],[3,4]]`), converted to the type of the matching parameter. Every error
is one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from soac.context import make_context
from soac.parsing import parse_module
from soac.tools.diagnostics import fail, run_cleanly
from soac.types import numpy_dtype
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, BlockArgument

RunFunction = Callable[..., tuple[Any, ...]]


class InputError(Exception):
    """An input that cannot become a value of its parameter's type."""


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


def shape_of(t: Attribute) -> tuple[int, ...]:
    """The static shape of a type (DYNAMIC_INDEX for `?`); `()` for a scalar."""
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


_NAMES: dict[str, Any] = {"true": True, "false": False, "True": True, "False": False, "inf": np.inf, "nan": np.nan}


def _literal_value(node: ast.expr) -> Any:
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal_value(e) for e in node.elts]
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal_value(node.operand)
        if not isinstance(value, list):
            return -value if isinstance(node.op, ast.USub) else value
    raise ValueError


def parse_literal(text: str) -> Any:
    """A scalar or (nested) list: `3`, `-2.5`, `true`, `inf`, `[1, 2, 3]`, `[[1, 2], [3, 4]]`."""
    try:
        return _literal_value(ast.parse(text.strip(), mode="eval").body)
    except (ValueError, SyntaxError, RecursionError):
        raise InputError(f"cannot read '{shorten(text)}': expected a number, true/false, or a list like [1, 2, 3]") from None


def convert(values: np.ndarray[Any, Any], t: Attribute, strict_kind: bool) -> np.ndarray[Any, Any]:
    """`values` as an array of type `t`: checks rank, static sizes, element kind and range."""
    dtype = numpy_dtype(t)
    if dtype is None:
        raise InputError(f"parameters of type {t} cannot be given on the command line")
    shape = shape_of(t)
    if values.ndim != len(shape):
        what = "a scalar" if not shape else f"a {len(shape)}-D array"
        got = "a scalar" if values.ndim == 0 else f"a {values.ndim}-D array of shape {values.shape}"
        raise InputError(f"expected {what}, got {got}")
    for dim, (want, got) in enumerate(zip(shape, values.shape)):
        if want != DYNAMIC_INDEX and want != got:
            raise InputError(f"dimension {dim} has size {got} but the type wants {want}")
    if values.dtype.kind not in "biuf":
        raise InputError(f"cannot use values of dtype {values.dtype} as {dtype}")
    if strict_kind and not np.can_cast(values.dtype, dtype, casting="same_kind"):
        raise InputError(f"the array holds {values.dtype} values, which do not convert to {dtype}")
    if dtype.kind == "b":
        if values.dtype.kind != "b" and not np.isin(values, (0, 1)).all():
            raise InputError("expected booleans (true/false or 0/1)")
    elif dtype.kind in "iu":
        if values.dtype.kind == "f" and not (np.isfinite(values).all() and (values == np.round(values)).all()):
            raise InputError(f"expected integers for {dtype}")
        info = np.iinfo(dtype)
        if values.size and (values.min() < info.min or values.max() > info.max):
            raise InputError(f"values out of range for {dtype} [{info.min}, {info.max}]")
    return values.astype(dtype)


def load_npy(text: str, t: Attribute) -> np.ndarray[Any, Any]:
    try:
        loaded = np.load(text, allow_pickle=False)
    except FileNotFoundError:
        raise InputError(f"cannot read '{text}': no such file") from None
    except IsADirectoryError:
        raise InputError(f"cannot read '{text}': it is a directory") from None
    except PermissionError:
        raise InputError(f"cannot read '{text}': permission denied") from None
    except (OSError, ValueError, EOFError):
        raise InputError(f"cannot read '{text}': not a .npy file") from None
    if not isinstance(loaded, np.ndarray):
        raise InputError(f"cannot read '{text}': not a single .npy array")
    return convert(loaded, t, strict_kind=True)


def is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except OSError:
        return False


def read_input(text: str, t: Attribute) -> Any:
    """The value of one `--input`: a `.npy` file or a literal, converted to `t`."""
    if text.endswith(".npy"):
        array = load_npy(text, t)
    else:
        try:
            literal = parse_literal(text)
        except InputError:
            if not is_file(text):
                raise
            literal = load_npy(text, t)
        try:
            values = np.asarray(literal)
        except ValueError:
            raise InputError(f"cannot read '{shorten(text)}': the rows have different lengths") from None
        array = convert(values, t, strict_kind=False)
    return array if array.ndim else array[()]


def describe_param(index: int, arg: BlockArgument) -> str:
    name = arg.name_hint or f"arg{index}"
    return f"input #{index} (%{name} : {arg.type})"


def read_inputs(func: FuncOp, texts: Sequence[str]) -> list[Any]:
    params = func.body.block.args
    if len(texts) != len(params):
        wanted = ", ".join(f"%{a.name_hint or f'arg{i}'} : {a.type}" for i, a in enumerate(params)) or "none"
        count = f"{len(params)} input{'' if len(params) == 1 else 's'}"
        fail(f"error: @{func.sym_name.data} takes {count} ({wanted}), got {len(texts)}")
    values: list[Any] = []
    for index, (text, arg) in enumerate(zip(texts, params)):
        try:
            values.append(read_input(text, arg.type))
        except InputError as error:
            fail(f"error: {describe_param(index, arg)}: {error}")
    return values


# ---------------------------------------------------------------------------
# Thresholds
# ---------------------------------------------------------------------------


def parse_threshold(text: str, where: str) -> tuple[str, int]:
    """`name=value` → (name, value); `where` prefixes the error."""
    name, eq, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not eq or not name:
        fail(f"error: {where}: expected 'name=value', got {text.strip()!r}")
    try:
        number = int(value)
    except ValueError:
        fail(f"error: {where}: threshold '{name}' needs an integer value, got {value!r}")
    if number < 0:
        fail(f"error: {where}: threshold '{name}' must not be negative, got {number}")
    return name, number


def read_thresholds(tuning: str | None, options: Sequence[str]) -> dict[str, int] | None:
    """The thresholds of a tuning file (`name=value` lines, `#` comments), then of `--threshold` options."""
    thresholds: dict[str, int] = {}
    if tuning is not None:
        try:
            lines = Path(tuning).read_text().splitlines()
        except (OSError, UnicodeDecodeError) as error:
            fail(f"error: cannot read tuning file '{tuning}': {getattr(error, 'strerror', None) or error}")
        for number, line in enumerate(lines, 1):
            if line := line.split("#", 1)[0].strip():
                name, value = parse_threshold(line, f"{tuning}:{number}")
                thresholds[name] = value
    for option in options:
        name, value = parse_threshold(option, "--threshold")
        thresholds[name] = value
    return thresholds or None


def check_tile_sizes(module: ModuleOp, values: dict[str, int] | None) -> None:
    """Fail cleanly when the tile sizes set by a tuning file or `--threshold` are not usable."""
    from soac.passes.tile_sizes import TileSizeError, with_tile_sizes

    try:
        with_tile_sizes(module, values)
    except TileSizeError as error:
        fail(f"error: {error}")


# ---------------------------------------------------------------------------
# Running and printing
# ---------------------------------------------------------------------------


def find_entry(module: ModuleOp, entry: str | None) -> FuncOp:
    funcs = {op.sym_name.data: op for op in module.walk() if isinstance(op, FuncOp) and op.body.blocks}
    names = ", ".join(f"@{name}" for name in funcs) or "none"
    if entry is not None:
        if entry not in funcs:
            fail(f"error: no function @{entry} in the program (functions: {names})")
        return funcs[entry]
    if "main" in funcs:
        return funcs["main"]
    if len(funcs) == 1:
        return next(iter(funcs.values()))
    fail(f"error: no @main function; choose one with --entry (functions: {names})")


def load_backend(backend: str) -> tuple[RunFunction, tuple[type[Exception], ...]]:
    """The backend's `run_function` and the errors it reports failing programs with."""
    from soac.interpreter import SoacRuntimeError

    if backend == "interp":
        from soac.interpreter import run_function

        return run_function, (SoacRuntimeError,)
    try:
        from soac.lowering import runtime
    except Exception as error:
        fail(f"error: the opencl backend is not available: {error}")
    return runtime.run_function, (SoacRuntimeError, getattr(runtime, "OpenCLRuntimeError", SoacRuntimeError))


def format_result(index: int, t: Attribute, value: Any) -> str:
    head = f"result #{index} : {t} = "
    array = np.asarray(value)
    if array.ndim == 0:
        return head + str(array[()])
    body = np.array2string(array, threshold=1000, edgeitems=4, max_line_width=120, prefix=" " * len(head))
    return head + body


def as_result(value: Any, t: Attribute) -> np.ndarray[Any, Any]:
    dtype = numpy_dtype(t)
    array = np.asarray(value)
    return array.astype(dtype, copy=False) if dtype is not None and array.dtype != dtype else array


def write_outputs(directory: str, results: Sequence[np.ndarray[Any, Any]]) -> None:
    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for index, result in enumerate(results):
            np.save(out / f"result{index}.npy", result)
    except OSError as error:
        fail(f"error: cannot write to '{directory}': {error.strerror or error}")


class ArgumentParser(argparse.ArgumentParser):
    """Reports a bad command line in one line, like every other error."""

    def error(self, message: str) -> NoReturn:
        fail(f"error: {message} (see 'soac-run --help')", 2)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="soac-run", description="Run a function of a soac program on numpy inputs.")
    parser.add_argument("file", metavar="FILE", help="the program (.mlir); '-' reads stdin")
    parser.add_argument("--entry", metavar="NAME", help="the function to run (default: main, or the only function)")
    parser.add_argument(
        "--input", metavar="ARG", nargs="+", action="extend", default=[],
        help="one per parameter, in order: a .npy file or a literal such as 3, 2.5, true, [1,2,3], [[1,2],[3,4]]",
    )  # fmt: skip
    parser.add_argument("--backend", choices=("interp", "opencl"), default="interp", help="how to run (default: interp)")
    parser.add_argument("--output", metavar="DIR", help="also write DIR/result0.npy, DIR/result1.npy, ...")
    parser.add_argument(
        "--threshold", metavar="NAME=VALUE", action="append", default=[], help="set a tuning threshold (repeatable)"
    )
    parser.add_argument("--tuning", metavar="FILE", help="a tuning file of 'name=value' lines ('#' starts a comment)")
    parser.add_argument(
        "--list-thresholds",
        action="store_true",
        help="print the program's thresholds and tile sizes as a tuning file of defaults, and stop",
    )
    return parser


def run(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    thresholds = read_thresholds(args.tuning, args.threshold)
    if args.file == "-":
        text, name = sys.stdin.read(), "<stdin>"
    else:
        text, name = Path(args.file).read_text(), args.file
    module = parse_module(make_context(), text, name)
    if args.list_thresholds:
        from soac.passes.thresholds import list_thresholds, tuning_text
        from soac.passes.tile_sizes import list_tile_parameters, tile_tuning_text

        print(tuning_text(list_thresholds(module)) + tile_tuning_text(list_tile_parameters(module)), end="")
        return
    check_tile_sizes(module, thresholds)
    func = find_entry(module, args.entry)
    inputs = read_inputs(func, args.input)
    run_function, runtime_errors = load_backend(args.backend)
    try:
        values = run_function(module, func.sym_name.data, inputs, thresholds=thresholds)
    except runtime_errors as error:
        message = str(error)
        fail(message if message.startswith("error") else f"error: {message}")
    result_types = func.function_type.outputs.data
    results = [as_result(v, t) for v, t in zip(values, result_types)]
    for index, (t, result) in enumerate(zip(result_types, results)):
        print(format_result(index, t, result))
    if args.output is not None:
        write_outputs(args.output, results)


def main() -> None:
    run_cleanly(run)


if __name__ == "__main__":
    main()
