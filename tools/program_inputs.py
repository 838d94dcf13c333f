"""The arguments and expected results of a test case, as values of a function's parameter and result types.

Values come from Futhark data (`soac.tools.futhark_data`): an untyped literal (`3`,
`[1.5, 2]`) converts to the type it meets, within range; a typed one (`3i64`,
`empty([0]f32)`, binary data) must have that type's kind and width.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from soac.tools.futhark_data import DataValue, parse_text, read_data_file
from soac.tools.soac_run import InputError, convert_data_value
from soac.tools.test_spec import Values
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute

__all__ = ["InputError", "case_arguments", "data_values", "expected_results"]


def data_values(values: Values, source: str, seed: int = 0) -> list[DataValue]:
    """The values of an `input`/`output` stanza of the program `source`: its literal text, its data file, or fresh
    random values."""
    if values.file is not None:
        return read_data_file(values.file)
    if values.random is not None:
        rng = np.random.default_rng(seed)
        try:
            return [DataValue(random_array(rng, shape, name), True, values.line) for shape, name in values.random]
        except MemoryError:
            raise InputError(f"{source}:{values.line}: random input {values.describe()} does not fit in memory") from None
    return parse_text(values.text or "", source, values.line)


def random_array(rng: np.random.Generator, shape: tuple[int, ...], name: str) -> np.ndarray:
    """Random values as `futhark dataset` makes them: integers over their type's range, floats in [0, 1)."""
    if name == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    dtype = np.dtype({"i": "int", "u": "uint", "f": "float"}[name[0]] + name[1:])
    if dtype.kind == "f":
        return rng.random(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def _converted(
    items: Sequence[DataValue], types: Sequence[Attribute], what: str, values: Values, source: str
) -> list[np.ndarray]:
    """The data values as values of `types`; InputError names the stanza's line, or the data file and its line."""
    where = str(values.file) if values.file is not None else f"{source}:{values.line}"
    if len(items) != len(types):
        raise InputError(f"{where}: {what} {len(types)} value{'s' if len(types) != 1 else ''}, the data has {len(items)}")
    arrays: list[np.ndarray] = []
    for index, (item, t) in enumerate(zip(items, types)):
        try:
            arrays.append(convert_data_value(item, t))
        except InputError as error:
            line = f":{item.line}" if values.file is not None and item.line else ""
            raise InputError(f"{where}{line}: value #{index} ({t}): {error}") from None
    return arrays


def case_arguments(function: FuncOp, values: Values, source: str, seed: int = 0) -> list[Any]:
    """The arguments of a call of `function` on a case's input values (`source` names the program)."""
    types = [arg.type for arg in function.body.block.args]
    items = data_values(values, source, seed)
    arrays = _converted(items, types, f"@{function.sym_name.data} takes", values, source)
    return [a if isinstance(t, TensorType) else a[()] for a, t in zip(arrays, types)]


def expected_results(function: FuncOp, values: Values, source: str) -> list[np.ndarray]:
    """A case's expected results, as values of `function`'s result types."""
    items = data_values(values, source)
    return _converted(items, function.function_type.outputs.data, f"@{function.sym_name.data} returns", values, source)
