"""The interpreter: runs blocks in frames, splits irregular frames, calls functions."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from soac.interpreter.errors import Irregular, ShapeMismatch, SoacRuntimeError, fail
from soac.interpreter.frame import Frame, MaskedFrame
from soac.interpreter.registry import IMPLEMENTATIONS
from soac.interpreter.values import Val, dtype_of, expand, scalar, scatter_into
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, Region

TERMINATORS = frozenset({"soac.yield", "scf.yield", "func.return", "scf.condition", "tensor.yield"})


class SoacInterpreter:
    """Runs the functions of a module on numpy data.

    `thresholds` overrides the defaults of `soac.threshold` ops by name.
    """

    def __init__(self, module: ModuleOp, thresholds: Mapping[str, int] | None = None):
        from soac.signless import check_signless

        check_signless(module)
        self.module = module
        self.thresholds = dict(thresholds or {})
        self.functions: dict[str, func.FuncOp] = {op.sym_name.data: op for op in module.walk() if isinstance(op, func.FuncOp)}
        self.cache: dict[object, object] = {}
        """Per-op memo (constants, recognised operators)."""

    # -- entry point --------------------------------------------------------

    def call(self, name: str, args: Sequence[object]) -> tuple[object, ...]:
        """Run `@name` on `args`; see `soac.interpreter.run_function`."""
        function = self.functions.get(name)
        if function is None:
            known = ", ".join(f"@{f}" for f in self.functions) or "none"
            raise SoacRuntimeError(f"no function @{name} in the module (functions: {known})")
        if not function.body.blocks:
            raise SoacRuntimeError(f"@{name} is only declared, it has no body")
        inputs = function.function_type.inputs.data
        if len(args) != len(inputs):
            raise SoacRuntimeError(f"@{name} takes {len(inputs)} arguments, got {len(args)}")
        vals = [(convert_argument(name, i, t, a), 0) for i, (t, a) in enumerate(zip(inputs, args))]
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20000))
        try:
            with np.errstate(all="ignore"):
                results = self.run_block(Frame(()), function.body.block, vals)
        except RecursionError:
            raise SoacRuntimeError(f"@{name}: recursion too deep for the interpreter") from None
        finally:
            sys.setrecursionlimit(limit)
        return tuple(scalar(arr) for arr, _ in results)

    # -- blocks -------------------------------------------------------------

    def run_region(self, frame: Frame, region: Region, args: Sequence[Val]) -> list[Val]:
        return self.run_block(frame, region.block, args)

    def run_block(self, frame: Frame, block: Block, args: Sequence[Val]) -> list[Val]:
        """Bind `args` to the block arguments and run the block; return its terminator's operands."""
        env = frame.env
        for arg, val in zip(block.args, args, strict=True):
            env[arg] = val
        return self.run_ops(frame, list(block.ops), 0)

    def run_ops(self, frame: Frame, ops: list[Operation], start: int) -> list[Val]:
        env = frame.env
        for i in range(start, len(ops)):
            op = ops[i]
            if op.name in TERMINATORS:
                return [frame.lookup(v) for v in op.operands]
            impl = IMPLEMENTATIONS.get(op.name)
            if impl is None:
                raise fail(op, f"no interpreter implementation for '{op.name}'")
            try:
                results = impl(self, frame, op)
            except Irregular as irregular:
                return self.split(frame, ops, i, irregular.keys)
            for result, val in zip(op.results, results, strict=True):
                env[result] = val
        return []

    def split(self, frame: Frame, ops: list[Operation], start: int, keys: list[Val]) -> list[Val]:
        """Run `ops[start:]` once per group of lanes with equal `keys`, then merge the results."""
        p = max(rank for _, rank in keys)
        columns = [expand(key, frame.batch, p).reshape(-1) for key in keys]
        _, groups = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
        groups = groups.reshape(frame.batch[:p])
        count = int(groups.max()) + 1
        if count == 1:
            raise AssertionError(f"'{ops[start].name}' asked to split lanes with uniform keys")
        parts = [(mask, self.run_ops(MaskedFrame(frame, mask), ops, start)) for mask in (groups == g for g in range(count))]
        owner = ops[-1].parent_op() or ops[-1]
        return self.merge(frame, owner, parts)

    def merge(self, frame: Frame, owner: Operation, parts: Sequence[tuple[np.ndarray, list[Val]]]) -> list[Val]:
        """Combine the results of masked frames (disjoint masks) into values of `frame`."""
        merged: list[Val | None] = [None] * len(parts[0][1])
        for mask, results in parts:
            for j, res in enumerate(results):
                try:
                    merged[j] = scatter_into(merged[j], frame.batch, mask, res)
                except ShapeMismatch as mismatch:
                    raise fail(owner, f"result #{j} is an irregular array: {mismatch}") from None
        return [m for m in merged if m is not None]

    def run_by_lane(self, frame: Frame, op: Operation, selector: Val, regions: Sequence[Region]) -> list[Val]:
        """Run `regions[selector]` on each lane, only on the lanes that select it."""
        sel = selector[0]
        parts = []
        for g in np.unique(sel):
            mask = sel == g
            parts.append((mask, self.run_region(MaskedFrame(frame, mask), regions[int(g)], [])))
        return self.merge(frame, op, parts)

    def call_function(self, frame: Frame, op: Operation, name: str, args: list[Val]) -> list[Val]:
        function = self.functions.get(name)
        if function is None or not function.body.blocks:
            raise fail(op, f"unknown function @{name}")
        return self.run_block(Frame(frame.batch), function.body.block, args)


def convert_argument(function: str, index: int, t: Attribute, arg: object) -> np.ndarray:
    """Check one argument against its parameter type and turn it into a read-only array."""
    dtype = dtype_of(t)

    def problem() -> str:  # printing the type costs more than the checks: only on failure
        return f"argument #{index} of @{function}: expected {t}, got "

    bits = isinstance(t.get_element_type() if isinstance(t, TensorType) else t, IntegerType)  # not `index`
    if isinstance(t, TensorType):
        arr = np.asarray(arg)
        if arr.ndim != t.get_num_dims() or not _lossless(arr.dtype, dtype, bits):
            raise SoacRuntimeError(problem() + f"{arr.dtype} array of shape {arr.shape}")
        for i, (size, want) in enumerate(zip(arr.shape, t.get_shape())):
            if want >= 0 and size != want:
                raise SoacRuntimeError(problem() + f"{arr.dtype} array of shape {arr.shape} (dimension {i})")
        arr = arr.astype(dtype, copy=False).view()
    else:
        arr = _convert_scalar(arg, dtype, problem, bits)
    arr.flags.writeable = False
    return arr


def _lossless(have: np.dtype, want: np.dtype, bits: bool = True) -> bool:
    """Only widening casts within one kind (bool, integer, float), and (where `bits`: integer types, not `index`)
    unsigned integers as the signless integers of their width (their bits: a uint8 255 is the i8 that `divui`,
    `cmpi ult` and `extui` read as 255)."""
    if have == want or (bits and _same_bits(have, want)):
        return True
    if want.kind == "f":
        return have.kind == "f" and have.itemsize <= want.itemsize
    if want.kind == "i":
        return have.kind in "iu" and np.can_cast(have, want, "safe")
    return False


def _same_bits(have: np.dtype, want: np.dtype) -> bool:
    """An unsigned numpy integer given for the signless (signed) integer of its width."""
    return have.kind == "u" and want.kind == "i" and have.itemsize == want.itemsize


def _convert_scalar(arg: object, dtype: np.dtype, problem: Callable[[], str], bits: bool = True) -> np.ndarray:
    arr = np.asarray(arg)
    if arr.ndim != 0:
        raise SoacRuntimeError(problem() + f"{arr.dtype} array of shape {arr.shape}")
    if bits and _same_bits(arr.dtype, dtype):
        return arr.view(dtype).copy()
    if dtype.kind == "b":
        ok = arr.dtype.kind == "b" or (arr.dtype.kind in "iu" and int(arr) in (0, 1))
    elif dtype.kind == "i":
        info = np.iinfo(dtype)
        ok = arr.dtype.kind in "biu" and info.min <= int(arr) <= info.max
    else:
        # Python floats round to the parameter's precision; integers must convert exactly.
        ok = arr.dtype.kind == "f" or (arr.dtype.kind in "iu" and int(dtype.type(arr)) == int(arr))
    if not ok:
        raise SoacRuntimeError(problem() + f"{type(arg).__name__} {arg!r}")
    return np.array(arr, dtype=dtype)
