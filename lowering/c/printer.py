"""`CPrinter`: prints a function body of `arith`, `math` and `scf` ops as C, for any C-like emitter to build on.

    %s = arith.addf %a, %b : f32
    %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %s) -> (f32) { ... scf.yield %next : f32 }

prints as

    const float s = a + b;
    float r = s;
    for (int64_t i = lo; i < hi; i++) { ... r = next; }

SSA names become C variable names (made unique per function, never a keyword); constants print as literals where
they are used; `scf.for` iteration arguments, `scf.if` results and `scf.while` state become mutable variables.
The scalar code gives the interpreter's results where C's operators differ: `i1` arithmetic, signed comparisons
and casts read true as -1, casts to `i1` keep the lowest bit, shifts by the width or more give 0 or the sign,
integer add, sub and mul wrap.

A language subclasses it with its type names (`TYPES`, `UNSIGNED_TYPES`), its reserved words, the builtins C
lacks (`bitcast`, `integer_power`, `integer_abs`, `bit_count`) and the printers of its own ops (`op_printers`).
The defaults are C99 with `<stdint.h>`, `<stdbool.h>` and `<math.h>`; the builtins C lacks raise `EmitError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import IO, Any, ClassVar

from soac.lowering.c.operators import (
    BINARY,
    BOOLEAN_BINARY,
    BOOLEAN_DIVISIONS,
    CALLS,
    CASTS,
    CMPF,
    CMPF_UNORDERED,
    CMPI,
    INTEGER_MIN_MAX,
    NAN_PROPAGATING,
    SHIFTS,
    UNSIGNED_BINARY,
    UNSIGNED_CASTS,
    WRAPPING,
    EmitError,
    bit_width,
    constant_value,
    is_bool,
    literal,
)
from xdsl.dialects import arith, scf
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, i32
from xdsl.ir import Attribute, Block, Operation, SSAValue

C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if int long register return "
    "short signed sizeof static struct switch typedef union unsigned void volatile while bool true false "
    "min max abs exp log sqrt sin cos pow".split()
)
"""C's keywords and the names of functions that a variable must not hide."""


class CPrinter:
    """Prints the ops of one function as C statements; names are unique per printer."""

    LANGUAGE: ClassVar[str] = "C"
    TYPES: ClassVar[Mapping[str, str]] = {
        "f32": "float",
        "f64": "double",
        "i1": "bool",
        "i8": "int8_t",
        "i16": "int16_t",
        "i32": "int32_t",
        "i64": "int64_t",
        "index": "int64_t",
    }
    """The language's name of each scalar type."""
    UNSIGNED_TYPES: ClassVar[Mapping[str, str]] = {
        "i1": "uint8_t",
        "i8": "uint8_t",
        "i16": "uint16_t",
        "i32": "uint32_t",
        "i64": "uint64_t",
        "index": "uint64_t",
    }
    """The unsigned type of each integer type's width, that unsigned ops cast to."""
    KEYWORDS: ClassVar[frozenset[str]] = C_KEYWORDS

    def __init__(self, out: IO[str]):
        self.out = out
        self.op_printers = self._op_printers()
        self.names: dict[SSAValue, str] = {}
        self.used: set[str] = set()
        self.next_suffix: dict[str, int] = {}
        self.indent = 1
        self.index_bits = 64
        """The width of `index` in the function being printed (a kernel's `index_bitwidth`)."""

    # -- types, names and expressions -------------------------------------------

    def c_type(self, t: Attribute) -> str:
        if (name := self.TYPES.get(self._type_key(t))) is None:
            raise ValueError(f"no {self.LANGUAGE} type for {t}")
        return name

    def unsigned(self, t: Attribute) -> str:
        return self.UNSIGNED_TYPES[self._type_key(t)]

    def _type_key(self, t: Attribute) -> str:
        return "i32" if self.index_bits == 32 and isinstance(t, IndexType) else str(t)

    def bit_width(self, t: Attribute) -> int:
        return self.index_bits if isinstance(t, IndexType) else bit_width(t)

    def reserved(self, name: str) -> bool:
        """Whether a variable may not be called `name`."""
        return name in self.KEYWORDS

    def fresh(self, hint: str | None) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", hint or "") or "v"
        if base[0].isdigit():
            base = "v" + base
        if self.reserved(base):
            base += "_"
        name, k = base, self.next_suffix.get(base, 1)  # names are only added: the ones before k are taken
        if name in self.used:
            while (name := f"{base}_{k}") in self.used:
                k += 1
            self.next_suffix[base] = k + 1
        self.used.add(name)
        return name

    def define(self, value: SSAValue, name: str | None = None) -> str:
        self.names[value] = name or self.fresh(value.name_hint)
        return self.names[value]

    def expr(self, value: SSAValue) -> str:
        if (name := self.names.get(value)) is not None:
            return name
        owner = value.owner
        if isinstance(owner, arith.ConstantOp):
            if self.index_bits == 32 and isinstance(value.type, IndexType):
                return self._index_literal(owner.value)
            return literal(owner.value, value.type)
        raise EmitError(f"value {value} is used before it is defined")

    def _index_literal(self, attr: Attribute) -> str:
        assert isinstance(attr, IntegerAttr)
        if not -(2**31) <= attr.value.data < 2**31:
            raise EmitError(f"the index constant {attr.value.data} does not fit the function's 32-bit indices")
        return literal(attr, i32)

    def line(self, text: str) -> None:
        self.out.write("  " * self.indent + text + "\n")

    def assign(self, value: SSAValue, text: str) -> None:
        name = self.define(value)
        self.line(f"const {self.c_type(value.type)} {name} = {text};")

    # -- statements ---------------------------------------------------------------

    def print_block(self, block: Block) -> None:
        for op in block.ops:
            self.print_op(op)

    def print_op(self, op: Operation) -> None:
        if isinstance(op, arith.ConstantOp):
            return
        if (printer := self.op_printers.get(type(op))) is not None:
            printer(op)
        else:
            self.assign(op.results[0], self.arith(op))

    def _op_printers(self) -> dict[type[Operation], Callable[[Any], None]]:
        """The printers of the ops that are statements rather than one expression; subclasses add theirs."""
        return {scf.ForOp: self.print_for, scf.IfOp: self.print_if, scf.WhileOp: self.print_while}

    # -- structured control flow ---------------------------------------------------

    def declare_results(self, op: Operation, inits: list[str] | None = None) -> list[str]:
        names: list[str] = []
        for k, result in enumerate(op.results):
            name = self.define(result)
            init = f" = {inits[k]}" if inits is not None else ""
            self.line(f"{self.c_type(result.type)} {name}{init};")
            names.append(name)
        return names

    def yield_to(self, names: list[str], values: list[SSAValue]) -> None:
        exprs = [self.expr(v) for v in values]
        if len(names) > 1:
            temps = []
            for value, text in zip(values, exprs):
                temp = self.fresh("next")
                self.line(f"const {self.c_type(value.type)} {temp} = {text};")
                temps.append(temp)
            exprs = temps
        for name, text in zip(names, exprs):
            if name != text:
                self.line(f"{name} = {text};")

    def print_nested(self, block: Block, names: list[str]) -> None:
        self.indent += 1
        for op in block.ops:
            if isinstance(op, scf.YieldOp):
                self.yield_to(names, list(op.operands))
            elif not isinstance(op, scf.ConditionOp):
                self.print_op(op)
        self.indent -= 1

    def print_for(self, op: scf.ForOp) -> None:
        names = self.declare_results(op, [self.expr(v) for v in op.iter_args])
        iv, *carried = op.body.block.args
        for arg, name in zip(carried, names):
            self.names[arg] = name
        i = self.define(iv)
        lb, ub, step = self.expr(op.lb), self.expr(op.ub), self.expr(op.step)
        increment = f"{i}++" if step == "1" or step == "1L" else f"{i} += {step}"
        self.before_for(op)
        self.line(f"for ({self.c_type(iv.type)} {i} = {lb}; {i} < {ub}; {increment}) {{")
        self.print_nested(op.body.block, names)
        self.line("}")

    def before_for(self, op: scf.ForOp) -> None:
        """Lines right before the `for` statement of `op` (after its carried variables): a language's pragmas."""

    def print_if(self, op: scf.IfOp) -> None:
        names = self.declare_results(op)
        self.line(f"if ({self.expr(op.cond)}) {{")
        self.print_nested(op.true_region.block, names)
        if op.false_region.blocks and (op.results or len(op.false_region.block.ops) > 1):
            self.line("} else {")
            self.print_nested(op.false_region.block, names)
        self.line("}")

    def print_while(self, op: scf.WhileOp) -> None:
        before, after = op.before_region.block, op.after_region.block
        state: list[str] = []
        for arg, init in zip(before.args, op.arguments):
            name = self.define(arg)
            self.line(f"{self.c_type(arg.type)} {name} = {self.expr(init)};")
            state.append(name)
        results = self.declare_results(op)
        for arg, name in zip(after.args, results):
            self.names[arg] = name
        self.line("while (1) {")
        self.indent += 1
        for inner in before.ops:
            if isinstance(inner, scf.ConditionOp):
                self.yield_to(results, list(inner.args))
                self.line(f"if (!({self.expr(inner.condition)})) break;")
            else:
                self.print_op(inner)
        self.indent -= 1
        self.print_nested(after, state)
        self.line("}")

    # -- scalar code ----------------------------------------------------------------

    def arith(self, op: Operation) -> str:  # noqa: C901
        """The C expression of an `arith` or `math` op."""
        kind = type(op)
        operands = [self.expr(v) for v in op.operands]
        result = op.results[0].type
        if is_bool(result) and kind in BOOLEAN_BINARY:
            return f"{operands[0]} {BOOLEAN_BINARY[kind]} {operands[1]}"
        if is_bool(result) and isinstance(op, BOOLEAN_DIVISIONS):  # by true: -1 signed, 1 unsigned
            return "false" if isinstance(op, arith.RemSIOp | arith.RemUIOp) else operands[0]
        if isinstance(op, SHIFTS):
            return self.shift(op, *operands)
        if kind in WRAPPING and isinstance(result, IntegerType) and result.width.data > 1:
            u = self.UNSIGNED_TYPES["i64" if result.width.data == 64 else "i32"]
            return f"({self.c_type(result)})(({u}){operands[0]} {WRAPPING[kind]} ({u}){operands[1]})"
        if kind in BINARY:
            return f"{operands[0]} {BINARY[kind]} {operands[1]}"
        if kind in UNSIGNED_BINARY:
            u = self.unsigned(result)
            return f"({self.c_type(result)})(({u}){operands[0]} {UNSIGNED_BINARY[kind]} ({u}){operands[1]})"
        if kind in NAN_PROPAGATING:
            a, b = operands
            return f"isnan({a}) || isnan({b}) ? {a} + {b} : {NAN_PROPAGATING[kind]}({a}, {b})"
        if kind in CALLS:
            return f"{CALLS[kind]}({', '.join(operands)})"
        if isinstance(op, CASTS):
            return self.cast(op, operands[0])
        if isinstance(op, UNSIGNED_CASTS):
            return f"({self.c_type(result)})({self.unsigned(op.operands[0].type)}){operands[0]}"
        if isinstance(op, arith.FPToUIOp):
            if is_bool(result):
                return f"(bool)(({self.UNSIGNED_TYPES['i64']}){operands[0]} & 1)"
            return f"({self.c_type(result)})({self.unsigned(result)}){operands[0]}"
        if isinstance(op, arith.NegfOp):
            return f"-{operands[0]}"
        if isinstance(op, arith.SelectOp):
            return f"{operands[0]} ? {operands[1]} : {operands[2]}"
        if kind in INTEGER_MIN_MAX:
            return self.integer_min_max(op, *operands)
        if isinstance(op, arith.CmpiOp):
            return self.cmpi(op, operands)
        if isinstance(op, arith.CmpfOp):
            return self.cmpf(op, operands)
        if isinstance(op, arith.FloorDivSIOp):
            a, b = operands
            return f"({a} / {b} - (({a} % {b} != 0) && (({a} < 0) != ({b} < 0))))"
        if isinstance(op, arith.CeilDivSIOp):
            a, b = operands
            return f"({a} / {b} + (({a} % {b} != 0) && (({a} < 0) == ({b} < 0))))"
        if isinstance(op, arith.CeilDivUIOp):
            a, b = operands
            u = self.unsigned(result)
            return f"({self.c_type(result)})(({u}){a} / ({u}){b} + (({u}){a} % ({u}){b} != 0))"
        if isinstance(op, mathd.AbsIOp):
            return self.integer_abs(op, operands[0])
        if isinstance(op, arith.BitcastOp):
            return self.bitcast(op, operands[0])
        if isinstance(op, mathd.FPowIOp | mathd.IPowIOp):
            return self.integer_power(op, *operands)
        if isinstance(op, mathd.CountLeadingZerosOp | mathd.CtPopOp | mathd.CountTrailingZerosOp):
            return self.bit_count(op, operands[0])
        raise EmitError(f"'{op.name}' has no {self.LANGUAGE} form")

    def integer_min_max(self, op: Operation, a: str, b: str) -> str:
        """`maxsi`, `minsi`, `maxui`, `minui` as a conditional (see `INTEGER_MIN_MAX`)."""
        if op.operands[0] is op.operands[1]:
            return a  # max(x, x): no self-comparison for the C compiler to warn about
        x, y = a, b
        if isinstance(op, arith.MaxUIOp | arith.MinUIOp):
            u = self.unsigned(op.results[0].type)
            x, y = f"({u}){a}", f"({u}){b}"
        return f"{x} {INTEGER_MIN_MAX[type(op)]} {y} ? {a} : {b}"

    def shift(self, op: Operation, a: str, b: str) -> str:
        """Shifts by the width or more (poison in MLIR, the count masked in OpenCL C) give what the interpreter
        gives: 0, or the sign for `shrsi`. The count is read unsigned; `shli` shifts the unsigned bits (a negative
        signed value shifted left is undefined in C)."""
        t = op.results[0].type
        if is_bool(t):  # the count is 0 or 1, the width
            return a if isinstance(op, arith.ShRSIOp) else f"({a} && !{b})"
        width, u, name = self.bit_width(t), self.unsigned(t), self.c_type(t)
        count = constant_value(op.operands[1])
        fits = count is not None and 0 <= count < width
        if isinstance(op, arith.ShRSIOp):
            return f"{a} >> {b}" if fits else f"({name})({a} >> (({u}){b} < {width} ? ({u}){b} : {width - 1}))"
        moved = f"({name})(({u}){a} {'<<' if isinstance(op, arith.ShLIOp) else '>>'} ({u}){b})"
        return moved if fits else f"(({u}){b} < {width} ? {moved} : 0)"

    def cast(self, op: Operation, x: str) -> str:
        """A C cast, but for `i1`: signed casts from it read true as -1, casts to it keep the lowest bit."""
        source, result = op.operands[0].type, op.results[0].type
        if is_bool(result) and not is_bool(source):
            return f"(bool)((({self.TYPES['i64']}){x}) & 1)"
        if is_bool(source) and isinstance(op, arith.ExtSIOp | arith.IndexCastOp | arith.SIToFPOp):
            return f"({self.c_type(result)})(-({self.TYPES['i32']}){x})"
        return f"({self.c_type(result)}){x}"

    def cmpi(self, op: arith.CmpiOp, operands: list[str]) -> str:
        predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        a, b = operands
        if predicate.startswith("s") and is_bool(op.lhs.type):  # signed, true (-1) is below false
            a, b = b, a
        if predicate.startswith("u"):
            u = self.unsigned(op.lhs.type)
            a, b = f"({u}){a}", f"({u}){b}"
        return f"{a} {CMPI[predicate]} {b}"

    @staticmethod
    def cmpf(op: arith.CmpfOp, operands: list[str]) -> str:
        predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        a, b = operands
        if predicate in CMPF:
            return f"{a} {CMPF[predicate]} {b}"
        if predicate in CMPF_UNORDERED:
            return f"!({a} {CMPF_UNORDERED[predicate]} {b})"
        return {
            "one": f"({a} < {b} || {a} > {b})",
            "ord": f"!(isnan({a}) || isnan({b}))",
            "uno": f"(isnan({a}) || isnan({b}))",
            "true": "true",
            "false": "false",
        }[predicate]

    # -- builtins that C lacks ---------------------------------------------------------

    def bitcast(self, op: Operation, x: str) -> str:
        """`arith.bitcast`: the bits of `x` as the result type."""
        raise EmitError(f"'{op.name}' has no {self.LANGUAGE} form")

    def integer_power(self, op: Operation, x: str, n: str) -> str:
        """`math.fpowi`, `math.ipowi`: `x` to an integer power."""
        raise EmitError(f"'{op.name}' has no {self.LANGUAGE} form")

    def integer_abs(self, op: Operation, x: str) -> str:
        """`math.absi` of any integer width."""
        raise EmitError(f"'{op.name}' has no {self.LANGUAGE} form")

    def bit_count(self, op: Operation, x: str) -> str:
        """`math.ctlz`, `math.ctpop`, `math.cttz`."""
        raise EmitError(f"'{op.name}' has no {self.LANGUAGE} form")
