"""Splitting a traced soac.lang function into the stages of a chunked run.

The function's parameters are *chunked* (a dask array: its rows are split into
chunks along axis 0) or *whole* (a numpy array or a scalar: every chunk sees all
of it). A value computed from chunked values is *blockwise* when its rows are the
rows of the chunked inputs: a chunk of it depends only on the same chunk of the
inputs. What a plan accepts (and what `analyse` refuses, naming the op and the
user's line):

    def f(xs, ws, k):                                  # xs, ws chunked; k whole
        ys = sl.map(lambda x, w: x * w + k, xs, ws)    # blockwise: any number of maps
        return sl.sum(ys)                              # then at most one reduce, scan or hist

- any number of top-level `sl.map`s over blockwise arrays, of the chunked length;
- then at most one terminal SOAC over blockwise arrays: `sl.reduce` (to scalars,
  a tuple of them too), `sl.scan` (of one array) or `sl.hist` (one destination, which is whole);
- any computation on whole values (scalars, `sl.replicate`, maps over a whole
  array inside a lambda: a chunk reads whole arrays freely);
- the results: the maps' 1-D arrays (a map-only program) or the terminal's results.

Refused: a lambda reading a chunked array it does not map over (a gather across
chunks: `sl.map(lambda i: xs[i], idx)`), `xs[i]`, slices, reversals, transposes,
reshapes, scatters or iotas of a chunked array or length (they see only one chunk),
the chunked length used as a number (`sl.sum(xs) / xs.shape[0]`), a second
terminal SOAC, and code after the terminal one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from soac.dialect import HistOp, MapOp, ReduceOp, ScanOp
from soac.lang.errors import SourceLocation, located
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import FileLineColLoc, IntegerAttr, TensorType
from xdsl.ir import Operation, SSAValue

Kind = Literal["map", "reduce", "scan", "hist"]
_TERMINALS = {ReduceOp: "reduce", ScanOp: "scan", HistOp: "hist"}


class SoacDaskError(ValueError):
    """A program or an argument that soac.lang.dask cannot run chunk by chunk; names the op and the user's line."""


@dataclass
class Plan:
    """What a function computes chunk by chunk: its kind and the terminal SOAC (None for a map-only program)."""

    kind: Kind
    function: func.FuncOp
    terminal: Operation | None


def where(op: Operation) -> SourceLocation | None:
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
    return None


def refuse(op: Operation, message: str) -> SoacDaskError:
    place = where(op)
    return SoacDaskError(located(f"soac.lang.dask: '{op.name}' {message}", place) if place else f"'{op.name}' {message}")


def _dim_index(op: tensor.DimOp) -> int | None:
    owner = op.index.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _inner_operands(op: Operation) -> list[SSAValue]:
    """The operands of the ops nested in `op`'s regions (what its lambdas capture, among others)."""
    return [operand for region in op.regions for inner in region.walk() for operand in inner.operands]


class _Analysis:
    def __init__(self, function: func.FuncOp, chunked: set[int]):
        self.function = function
        self.blockwise: set[SSAValue] = {arg for k, arg in enumerate(function.body.block.args) if k in chunked}
        self.lengths: set[SSAValue] = set()
        """`tensor.dim` of a blockwise array on axis 0: a chunk's length, not the array's."""
        self.terminal: Operation | None = None
        self.final: set[SSAValue] = set()
        """The terminal's results when they are not blockwise (a reduce's, a hist's)."""

    def chunked_use(self, values: list[SSAValue]) -> SSAValue | None:
        return next((v for v in values if v in self.blockwise or v in self.lengths or v in self.final), None)

    def run(self) -> Plan:
        for op in self.function.body.block.ops:
            if isinstance(op, func.ReturnOp):
                return self.finish(op)
            self.visit(op)
        raise SoacDaskError("the traced function has no return")

    def visit(self, op: Operation) -> None:
        if self.chunked_use(list(op.operands)) is None and self.chunked_use(_inner_operands(op)) is None:
            return  # whole values only: every chunk computes it
        if self.terminal is not None:
            raise refuse(
                op,
                f"comes after the {self.terminal.name} and uses chunked values or its result: a reduce, scan or hist "
                "ends a chunked program (compute the rest on what it returns)",
            )
        if isinstance(op, tensor.DimOp) and op.source in self.blockwise:
            if _dim_index(op) == 0:
                self.lengths.add(op.result)
            return  # an inner dimension of a chunked array is whole
        if isinstance(op, MapOp):
            self.check_soac(op, op.width, list(op.inputs), "sl.map")
            self.blockwise.update(op.results)
            return
        kind = next((k for t, k in _TERMINALS.items() if isinstance(op, t)), None)
        if kind is None:
            captured = self.chunked_use(list(op.operands)) or self.chunked_use(_inner_operands(op))
            raise refuse(op, f"uses {self.describe(captured)}{self.why(captured)} (this op cannot be chunked)")
        self.visit_terminal(op, kind)

    def visit_terminal(self, op: Operation, kind: str) -> None:
        assert isinstance(op, ReduceOp | ScanOp | HistOp)
        if self.terminal is not None:
            raise refuse(op, f"is a second reduce, scan or hist after the {self.terminal.name}: a chunked program has one")
        self.check_soac(op, op.width, list(op.inputs), f"sl.{kind}")
        if (chunked := self.chunked_use(list(op.neutral))) is not None:
            raise refuse(op, f"has a neutral element computed from {self.describe(chunked)}")
        if isinstance(op, HistOp) and (chunked := self.chunked_use(list(op.dests))) is not None:
            raise refuse(op, f"has a destination computed from {self.describe(chunked)}; pass it whole (a numpy array)")
        if len(op.results) != 1 and not isinstance(op, ReduceOp):
            raise refuse(op, f"has {len(op.results)} results; soac.lang.dask runs a {kind} of one array only")
        if isinstance(op, ReduceOp | ScanOp) and any(isinstance(v.type, TensorType) for v in op.neutral):
            raise refuse(op, f"combines rows of arrays; soac.lang.dask runs a {kind} of scalars only")
        self.terminal = op
        (self.blockwise if isinstance(op, ScanOp) else self.final).update(op.results)

    def check_soac(self, op: Operation, width: SSAValue, inputs: list[SSAValue], what: str) -> None:
        if width not in self.lengths:
            raise refuse(op, f"({what}) has a width that is not the chunked length of its inputs")
        for value in inputs:
            if value not in self.blockwise:
                raise refuse(op, f"({what}) takes {self.describe(value)} with chunked arrays: its rows do not split with theirs")
        if (captured := self.chunked_use(_inner_operands(op))) is not None:
            why = self.why(captured) if captured in self.lengths else ": a gather across chunks"
            raise refuse(op, f"({what}) has a lambda that reads {self.describe(captured)}{why}")

    def describe(self, value: SSAValue | None) -> str:
        if value is None:
            return "a chunked value"
        name = f" {value.name_hint}" if value.name_hint else ""
        if value in self.lengths:
            return f"the chunked length{name}"
        if value in self.final:
            return f"the result{name} of the {self.terminal.name if self.terminal else 'terminal op'}"
        if value in self.blockwise:
            return f"the chunked array{name}"
        return f"the whole value{name}"

    def why(self, value: SSAValue | None) -> str:
        if value in self.lengths:
            return ", which in a chunk is the chunk's length, not the array's"
        return ", of which a chunk has only its own rows" if value in self.blockwise else ""

    def finish(self, ret: func.ReturnOp) -> Plan:
        values = list(ret.operands)
        terminal = self.terminal
        if terminal is None:
            kind: Kind = "map"
            for value in values:
                if value not in self.blockwise:
                    raise refuse(
                        ret, f"returns {self.describe(value)}, which is not chunked (a map-only program returns chunked arrays)"
                    )
                if isinstance(t := value.type, TensorType) and t.get_num_dims() != 1:
                    raise refuse(ret, "returns a chunked array of rank > 1; soac.lang.dask maps to 1-D arrays only")
            return Plan(kind, self.function, None)
        if values != list(terminal.results):
            raise refuse(ret, f"returns more than the results of the {terminal.name} (return only those)")
        kind = _TERMINALS[type(terminal)]  # pyright: ignore[reportArgumentType]
        return Plan(kind, self.function, terminal)


def analyse(function: func.FuncOp, chunked: set[int]) -> Plan:
    """The plan of `function` whose parameters at `chunked` positions are chunked along axis 0."""
    return _Analysis(function, chunked).run()
