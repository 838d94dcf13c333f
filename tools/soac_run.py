"""`soac-run`: runs a function of a soac program on numpy inputs.

    soac-run FILE [--entry NAME] [--input ARG ...] [--backend interp|opencl]
                  [--output DIR|FILE|- [-b]] [--threshold NAME=VALUE ...] [--tuning FILE]

Each `--input` is a `.npy` file, a literal (`3`, `2.5`, `true`, `[1,2,3]`,
`[[1,2],[3,4]]`), or Futhark data: a data file, text or binary, or literal text in
Futhark's syntax (`[1i64, 2i64]`, `empty([0]f32)`). One Futhark data input may hold
several values, which fill consecutive parameters. Values are converted to the
parameter types; a value whose type is written (`3i64`, binary data) must have its
parameter's type. `--output` writes `.npy` files into a directory, or every result in
Futhark's data format to a file with an extension or to stdout (`-`), text or binary
(`-b`). Every error is one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from soac.context import make_context
from soac.parsing import parse_module
from soac.passes.tuning import InputError as InputError
from soac.passes.tuning import parse_threshold as parse_threshold
from soac.passes.tuning import read_tuning
from soac.passes.tuning import read_tuning_file as read_tuning_file
from soac.passes.tuning import unknown_threshold as unknown_threshold
from soac.tools.diagnostics import fail, run_cleanly
from soac.tools.futhark_data import DataError, DataValue, format_binary, format_text, parse_text, read_data_file, type_name
from soac.types import numpy_dtype, signless_problem
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, BlockArgument

RunFunction = Callable[..., tuple[Any, ...]]


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
        raise InputError(signless_problem(t) or f"parameters of type {t} cannot be given on the command line")
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
    if values.dtype.kind == "u" and dtype.kind == "i" and values.dtype.itemsize == dtype.itemsize:
        return values  # unsigned values (u8 data, a uint8 .npy) are the bits of the signless integer: kept unsigned
    if strict_kind and not np.can_cast(values.dtype, dtype, casting="same_kind"):
        raise InputError(f"the array holds {values.dtype} values, which do not convert to {dtype}")
    if dtype.kind == "b":
        if values.dtype.kind != "b" and not np.isin(values, (0, 1)).all():
            raise InputError("expected booleans (true/false or 0/1)")
    elif dtype.kind in "iu":
        check_integers(values, dtype)
    return values.astype(dtype)


def check_integers(values: np.ndarray[Any, Any], dtype: np.dtype[Any]) -> None:
    """InputError unless `values` are integers in `dtype`'s range; one in the range of the unsigned type of its
    width is told how to give its bits."""
    if values.dtype.kind == "f" and not (np.isfinite(values).all() and (values == np.round(values)).all()):
        raise InputError(f"expected integers for {dtype}")
    info = np.iinfo(dtype)
    if values.size and (values.min() < info.min or values.max() > info.max):
        unsigned = np.iinfo(f"u{dtype.itemsize}")
        bits = values.min() >= 0 and values.max() <= unsigned.max and dtype.kind == "i"
        hint = f" (for an unsigned value's bits give it typed: {values.max()}u{dtype.itemsize * 8})" if bits else ""
        raise InputError(f"values out of range for {dtype} [{info.min}, {info.max}]{hint}")


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
    """The value of one `--input` that holds one value (a `.npy` file or a literal), converted to `t`."""
    given = expand_input(text)
    if len(given) != 1:
        raise InputError(f"'{shorten(text)}' holds {len(given)} values, expected one")
    return given[0].convert(t)


_FUTHARK_SYNTAX = re.compile(r"\d[iuf](?:8|16|32|64)\b|\bempty\(|\bf(?:16|32|64)\.")
_NPY_MAGIC = b"\x93NUMPY"


@dataclass(frozen=True)
class GivenValue:
    """One value of an `--input`: a .npy file (read once its type is known), a literal, or a Futhark data value."""

    text: str
    literal: Any = None
    data: DataValue | None = None

    def convert(self, t: Attribute) -> Any:
        if self.data is not None:
            array = convert_data_value(self.data, t)
        elif self.literal is None:
            array = load_npy(self.text, t)
        else:
            try:
                values = np.asarray(self.literal)
            except ValueError:
                raise InputError(f"cannot read '{shorten(self.text)}': the rows have different lengths") from None
            array = convert(values, t, strict_kind=False)
        return array if array.ndim else array[()]


def expand_input(text: str) -> list[GivenValue]:
    """The values of one `--input`: a .npy file, a literal, or Futhark data (a file, or text like `[1i64, 2i64]`),
    which may hold several values."""
    if text.endswith(".npy"):
        return [GivenValue(text)]
    try:
        return [GivenValue(text, literal=parse_literal(text))]
    except InputError as error:
        if is_file(text):
            with open(text, "rb") as file:
                if file.read(len(_NPY_MAGIC)) == _NPY_MAGIC:
                    return [GivenValue(text)]
            return [GivenValue(text, data=value) for value in read_data_file(text)]
        try:
            return [GivenValue(text, data=value) for value in parse_text(text, "--input")]
        except DataError as problem:
            if not _FUTHARK_SYNTAX.search(text):
                raise error from None
            raise InputError(f"cannot read '{shorten(text)}': {str(problem).removeprefix('--input:1: ')}") from None


def _kind_and_width(dtype: np.dtype[Any]) -> tuple[str, int]:
    """Signed and unsigned integers of one width are interchangeable (soac's integers are signless)."""
    return ("i" if dtype.kind == "u" else dtype.kind, dtype.itemsize)


def convert_data_value(value: DataValue, t: Attribute) -> np.ndarray[Any, Any]:
    """A Futhark data value as an array of type `t`: an untyped literal converts as `--input` literals do, a typed
    one must have the kind and width of `t`'s elements."""
    want = numpy_dtype(t)
    have = value.value.dtype
    if value.typed and want is not None and _kind_and_width(have) != _kind_and_width(want):
        raise InputError(f"the data holds {type_name(have)} values, expected {t}")
    return convert(value.value, t, strict_kind=value.typed)


def describe_param(index: int, arg: BlockArgument) -> str:
    name = arg.name_hint or f"arg{index}"
    return f"input #{index} (%{name} : {arg.type})"


def read_arguments(func: FuncOp, texts: Sequence[str]) -> list[Any]:
    """The arguments of `func` from `--input`s; InputError says which input is wrong and why."""
    params = func.body.block.args
    given: list[GivenValue] = []
    for text in texts:
        try:
            given.extend(expand_input(text))
        except DataError as error:
            raise InputError(str(error)) from None
        except InputError as error:
            if len(given) < len(params):
                raise InputError(f"{describe_param(len(given), params[len(given)])}: {error}") from None
            raise
    if len(given) != len(params):
        wanted = ", ".join(f"%{a.name_hint or f'arg{i}'} : {a.type}" for i, a in enumerate(params)) or "none"
        count = f"{len(params)} input{'' if len(params) == 1 else 's'}"
        raise InputError(f"@{func.sym_name.data} takes {count} ({wanted}), got {len(given)}")
    values: list[Any] = []
    for index, (value, arg) in enumerate(zip(given, params)):
        try:
            values.append(value.convert(arg.type))
        except InputError as error:
            raise InputError(f"{describe_param(index, arg)}: {error}") from None
    return values


def read_inputs(func: FuncOp, texts: Sequence[str]) -> list[Any]:
    try:
        return read_arguments(func, texts)
    except InputError as error:
        fail(f"error: {error}")


# ---------------------------------------------------------------------------
# Thresholds
# ---------------------------------------------------------------------------


def read_thresholds(tuning: str | None, options: Sequence[str]) -> dict[str, int] | None:
    """The thresholds of a tuning file, then of `--threshold` options (which win); fails cleanly on a bad one."""
    try:
        thresholds = read_tuning(tuning)[0] if tuning is not None else {}
        thresholds.update(parse_threshold(option, "--threshold") for option in options)
    except InputError as error:
        fail(f"error: {error}")
    return thresholds or None


def check_threshold_names(module: ModuleOp, options: Sequence[str]) -> None:
    """Fail cleanly when a `--threshold` option names no threshold or tile size of the program."""
    if (problem := unknown_threshold(module, (option.partition("=")[0].strip() for option in options))) is not None:
        fail(f"error: --threshold: {problem}")


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


def is_data_file(output: str) -> bool:
    """Whether `--output` names a Futhark data file (`-`, or a path with an extension that is not a directory)."""
    path = Path(output)
    return output == "-" or (bool(path.suffix) and not output.endswith(("/", "\\")) and not path.is_dir())


def write_data(output: str, results: Sequence[np.ndarray[Any, Any]], binary: bool) -> None:
    """The results as a Futhark data file (or on stdout for `-`), text or binary."""
    data = format_binary(results) if binary else format_text(results).encode()
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        Path(output).write_bytes(data)
    except OSError as error:
        fail(f"error: cannot write '{output}': {error.strerror or error}")


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
    parser.add_argument(
        "--output", metavar="DIR|FILE",
        help="also write DIR/result0.npy, DIR/result1.npy, ...; or, for FILE with an extension (results.out), every "
        "result in Futhark's data format; '-' writes that format to stdout instead of the result lines",
    )  # fmt: skip
    parser.add_argument("-b", "--binary", action="store_true", help="write --output FILE in Futhark's binary data format")
    parser.add_argument(
        "--threshold", metavar="NAME=VALUE", action="append", default=[], help="set a tuning threshold (repeatable)"
    )
    parser.add_argument("--tuning", metavar="FILE", help="a tuning file of 'name=value' lines ('#' starts a comment)")
    parser.add_argument(
        "--autotune",
        action="store_true",
        help="with --backend opencl: time the program's versions on these inputs first (once per size class, kept "
        "beside soac.lang's cache) and run the fastest; --threshold options win",
    )
    parser.add_argument(
        "--list-thresholds",
        action="store_true",
        help="print the program's thresholds and tile sizes as a tuning file of defaults, and stop",
    )
    return parser


def run(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    if args.binary and (args.output is None or not is_data_file(args.output)):
        fail("error: -b writes a data file: give --output FILE (with an extension) or --output -", 2)
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
    check_threshold_names(module, args.threshold)
    check_tile_sizes(module, thresholds)
    func = find_entry(module, args.entry)
    inputs = read_inputs(func, args.input)
    if args.autotune and args.backend != "opencl":
        fail("error: --autotune times the program's versions on a device: add --backend opencl", 2)
    run_function, runtime_errors = load_backend(args.backend)
    # A tuning file's lowering options (the kernels its thresholds were tuned with) apply to the OpenCL backend.
    lowering = read_tuning(args.tuning)[1] if args.tuning is not None and args.backend == "opencl" else {}
    try:
        if args.autotune:
            from soac.lang.autotune import tune_module

            thresholds = tune_module(module, func.sym_name.data, inputs, thresholds or {}, lowering)
        extra = {"lowering": lowering} if lowering else {}
        values = run_function(module, func.sym_name.data, inputs, thresholds=thresholds, **extra)
    except runtime_errors as error:
        message = str(error)
        fail(message if message.startswith("error") else f"error: {message}")
    result_types = func.function_type.outputs.data
    results = [as_result(v, t) for v, t in zip(values, result_types)]
    if args.output != "-":
        for index, (t, result) in enumerate(zip(result_types, results)):
            print(format_result(index, t, result))
    if args.output is not None and is_data_file(args.output):
        write_data(args.output, results, args.binary)
    elif args.output is not None:
        write_outputs(args.output, results)


def main() -> None:
    run_cleanly(run)


if __name__ == "__main__":
    main()
