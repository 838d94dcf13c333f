"""The OpenCL C emitter: prints every `kernel.func` of a module as one OpenCL C source (`-t opencl`).

    kernel.func @f_map_0(%xs: !kernel.buffer<global, f32>, %ys: !kernel.buffer<global, f32>, %n: index) {
      %gid = kernel.global_id 0
      %gsize = kernel.global_size 0
      scf.for %i = %gid to %n step %gsize { ... }
      kernel.return
    }

prints as

    __kernel void f_map_0(__global float *restrict xs, __global float *restrict ys, const long n) {
      const long gid = (long)get_global_id(0);
      const long gsize = (long)get_global_size(0);
      for (long i = gid; i < n; i += gsize) { ... }
    }

SSA names become C variable names; constants print as literals; `scf.for`
iteration arguments and `scf.if` results become mutable variables.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import IO

from soac.lowering import kernel as kd
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType, ModuleOp, UnitAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.target import Target

C_TYPES = {
    "f16": "half",
    "f32": "float",
    "f64": "double",
    "i1": "bool",
    "i8": "char",
    "i16": "short",
    "i32": "int",
    "i64": "long",
    "index": "long",
}
UNSIGNED = {"i1": "uchar", "i8": "uchar", "i16": "ushort", "i32": "uint", "i64": "ulong", "index": "ulong"}
C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if int long register return "
    "short signed sizeof static struct switch typedef union unsigned void volatile while bool half uchar ushort uint ulong "
    "kernel global local constant private read_only write_only true false min max abs exp log sqrt sin cos pow select".split()
)


def c_type(t: Attribute) -> str:
    if (name := C_TYPES.get(str(t))) is None:
        raise ValueError(f"no OpenCL C type for {t}")
    return name


def storage_type(t: Attribute) -> str:
    """The C type of a buffer element (`bool` is not allowed in buffers or kernel arguments)."""
    return "uchar" if str(t) == "i1" else c_type(t)


BINARY = {
    arith.AddiOp: "+",
    arith.SubiOp: "-",
    arith.MuliOp: "*",
    arith.DivSIOp: "/",
    arith.RemSIOp: "%",
    arith.AndIOp: "&",
    arith.OrIOp: "|",
    arith.XOrIOp: "^",
    arith.ShLIOp: "<<",
    arith.ShRSIOp: ">>",
    arith.AddfOp: "+",
    arith.SubfOp: "-",
    arith.MulfOp: "*",
    arith.DivfOp: "/",
}
UNSIGNED_BINARY = {arith.DivUIOp: "/", arith.RemUIOp: "%", arith.ShRUIOp: ">>"}
INTEGER_MIN_MAX = {arith.MaxSIOp: ">", arith.MinSIOp: "<", arith.MaxUIOp: ">", arith.MinUIOp: "<"}
"""Integer max/min print as `a > b ? a : b` (compared as unsigned for maxui/minui): PoCL calls the `max`/`min`
builtins out of line, which keeps a chunk fold with `max` from vectorising (23 ms against 3.0 ms for 2^24 int32).
Float max/min keep `fmax`/`fmin` (NaN semantics)."""
CALLS = {
    arith.MaximumfOp: "fmax",
    arith.MinimumfOp: "fmin",
    arith.MaxnumfOp: "fmax",
    arith.MinnumfOp: "fmin",
    mathd.ExpOp: "exp",
    mathd.LogOp: "log",
    mathd.SqrtOp: "sqrt",
    mathd.SinOp: "sin",
    mathd.CosOp: "cos",
    mathd.TanOp: "tan",
    mathd.TanhOp: "tanh",
    mathd.AtanOp: "atan",
    mathd.Atan2Op: "atan2",
    mathd.AbsFOp: "fabs",
    mathd.PowFOp: "pow",
    mathd.FmaOp: "fma",
    mathd.FloorOp: "floor",
    mathd.CeilOp: "ceil",
    mathd.ErfOp: "erf",
    mathd.RsqrtOp: "rsqrt",
    mathd.Exp2Op: "exp2",
    mathd.Log2Op: "log2",
    mathd.Log10Op: "log10",
    mathd.Log1pOp: "log1p",
    mathd.ExpM1Op: "expm1",
    mathd.RoundOp: "round",
    mathd.TruncOp: "trunc",
    mathd.CopySignOp: "copysign",
    mathd.SinhOp: "sinh",
    mathd.CoshOp: "cosh",
    mathd.AsinOp: "asin",
    mathd.AcosOp: "acos",
    mathd.CbrtOp: "cbrt",
    mathd.AcoshOp: "acosh",
    mathd.AsinhOp: "asinh",
    mathd.AtanhOp: "atanh",
    mathd.RoundEvenOp: "rint",
}
CASTS = (
    arith.IndexCastOp,
    arith.ExtSIOp,
    arith.TruncIOp,
    arith.SIToFPOp,
    arith.FPToSIOp,
    arith.ExtFOp,
    arith.TruncFOp,
)
UNSIGNED_CASTS = (arith.ExtUIOp, arith.UIToFPOp)
CMPI = {
    "eq": "==",
    "ne": "!=",
    "slt": "<",
    "sle": "<=",
    "sgt": ">",
    "sge": ">=",
    "ult": "<",
    "ule": "<=",
    "ugt": ">",
    "uge": ">=",
}
CMPF = {"oeq": "==", "ogt": ">", "oge": ">=", "olt": "<", "ole": "<=", "une": "!="}
CMPF_UNORDERED = {"ueq": "!=", "ugt": "<=", "uge": "<", "ult": ">=", "ule": ">"}
BARRIER_FLAGS = {"local": "CLK_LOCAL_MEM_FENCE", "global": "CLK_GLOBAL_MEM_FENCE"}
ATOMIC_FUNCTIONS = {
    "add": "add",
    "sub": "sub",
    "min": "min",
    "max": "max",
    "and": "and",
    "or": "or",
    "xor": "xor",
    "xchg": "xchg",
}


class EmitError(Exception):
    """Something in a kernel that has no OpenCL C form."""


@dataclass
class _Loop:
    variables: list[str]


class KernelPrinter:
    """Prints one kernel function; names are unique per kernel."""

    def __init__(self, out: IO[str]):
        self.out = out
        self.names: dict[SSAValue, str] = {}
        self.used: set[str] = set()
        self.indent = 1
        self.counter = 0

    # -- names and expressions -----------------------------------------------

    def fresh(self, hint: str | None) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", hint or "") or "v"
        if base[0].isdigit():
            base = "v" + base
        if base in C_KEYWORDS or base.startswith("get_"):
            base += "_"
        name, k = base, 1
        while name in self.used:
            name = f"{base}_{k}"
            k += 1
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
            return literal(owner.value, value.type)
        raise EmitError(f"value {value} is used before it is defined")

    def line(self, text: str) -> None:
        self.out.write("  " * self.indent + text + "\n")

    # -- kernels ----------------------------------------------------------------

    def print_kernel(self, kernel: kd.FuncOp) -> None:
        params: list[str] = []
        for arg in kernel.body.block.args:
            name = self.define(arg)
            if isinstance(arg.type, kd.BufferType):
                params.append(f"__global {storage_type(arg.type.element_type)} *restrict {name}")
            else:
                params.append(f"const {storage_type(arg.type)} {name}")
        self.out.write(f"__kernel void {kernel.kernel_name}({', '.join(params)}) {{\n")
        self.print_block(kernel.body.block)
        self.out.write("}\n")

    def print_block(self, block: Block) -> None:
        for op in block.ops:
            if isinstance(op, kd.ReturnOp):
                continue
            self.print_op(op)

    def assign(self, value: SSAValue, text: str) -> None:
        name = self.define(value)
        self.line(f"const {c_type(value.type)} {name} = {text};")

    def print_op(self, op: Operation) -> None:  # noqa: C901
        if isinstance(op, arith.ConstantOp):
            return
        if isinstance(op, kd._WorkItemQuery):  # pyright: ignore[reportPrivateUsage]
            self.assign(op.result, f"(long){op.C_FUNCTION}({op.dimension})")
        elif isinstance(op, kd.BarrierOp):
            self.line(f"barrier({' | '.join(BARRIER_FLAGS[f] for f in op.fences)});")
        elif isinstance(op, kd.LocalAllocOp):
            name = self.define(op.result)
            element = op.result.type.element_type  # pyright: ignore[reportAttributeAccessIssue]
            self.line(f"__local {storage_type(element)} {name}[{op.num_elements}];")
        elif isinstance(op, kd.LoadOp):
            load = f"{self.expr(op.buffer)}[{self.expr(op.index)}]"
            self.assign(op.result, f"({load} != 0)" if str(op.result.type) == "i1" else load)
        elif isinstance(op, kd.StoreOp):
            self.line(f"{self.expr(op.buffer)}[{self.expr(op.index)}] = {self.expr(op.value)};")
        elif isinstance(op, kd.AtomicOp):
            prefix = "atom_" if str(op.value.type) == "i64" else "atomic_"
            target = f"&{self.expr(op.buffer)}[{self.expr(op.index)}]"
            self.assign(op.result, f"{prefix}{ATOMIC_FUNCTIONS[op.kind.data]}({target}, {self.expr(op.value)})")
        elif isinstance(op, kd.DeviceAssertOp):
            self.print_device_assert(op)
        elif isinstance(op, scf.ForOp):
            self.print_for(op)
        elif isinstance(op, scf.IfOp):
            self.print_if(op)
        elif isinstance(op, scf.WhileOp):
            self.print_while(op)
        elif (emit_c := getattr(op, "emit_c", None)) is not None:
            emit_c(self)  # ops that print themselves, e.g. kernel.inline_c (lowering/intrinsics.py)
        else:
            self.assign(op.results[0], self.arith(op))

    def print_device_assert(self, op: kd.DeviceAssertOp) -> None:
        """Unless the condition holds, the first failing work-item of the call records its code and values.

        The code is an int32 in the first element of the (i64) error buffer, so
        that core 32-bit atomics suffice; the host reads it back the same way.
        """
        errors = self.expr(op.errors)
        self.line(f"if (!({self.expr(op.cond)})) {{")
        self.indent += 1
        self.line(f"if (atomic_cmpxchg((volatile __global int *){errors}, 0, {op.error_code}) == 0) {{")
        self.indent += 1
        for k, value in enumerate(op.values, start=1):
            self.line(f"{errors}[{k}] = (long){self.expr(value)};")
        self.indent -= 1
        self.line("}")
        self.indent -= 1
        self.line("}")

    # -- structured control flow ---------------------------------------------

    def declare_results(self, op: Operation, inits: list[str] | None = None) -> list[str]:
        names: list[str] = []
        for k, result in enumerate(op.results):
            name = self.define(result)
            init = f" = {inits[k]}" if inits is not None else ""
            self.line(f"{c_type(result.type)} {name}{init};")
            names.append(name)
        return names

    def yield_to(self, names: list[str], values: list[SSAValue]) -> None:
        exprs = [self.expr(v) for v in values]
        if len(names) > 1:
            temps = []
            for value, text in zip(values, exprs):
                temp = self.fresh("next")
                self.line(f"const {c_type(value.type)} {temp} = {text};")
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
        self.line(f"for ({c_type(iv.type)} {i} = {lb}; {i} < {ub}; {increment}) {{")
        self.print_nested(op.body.block, names)
        self.line("}")

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
            self.line(f"{c_type(arg.type)} {name} = {self.expr(init)};")
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

    # -- scalar code --------------------------------------------------------------

    def arith(self, op: Operation) -> str:  # noqa: C901
        kind = type(op)
        operands = [self.expr(v) for v in op.operands]
        if kind in BINARY:
            return f"{operands[0]} {BINARY[kind]} {operands[1]}"
        if kind in UNSIGNED_BINARY:
            u = UNSIGNED[str(op.results[0].type)]
            return f"({c_type(op.results[0].type)})(({u}){operands[0]} {UNSIGNED_BINARY[kind]} ({u}){operands[1]})"
        if kind in CALLS:
            return f"{CALLS[kind]}({', '.join(operands)})"
        if isinstance(op, CASTS):
            return f"({c_type(op.results[0].type)}){operands[0]}"
        if isinstance(op, UNSIGNED_CASTS):
            return f"({c_type(op.results[0].type)})({UNSIGNED[str(op.operands[0].type)]}){operands[0]}"
        if isinstance(op, arith.FPToUIOp):
            return f"({c_type(op.results[0].type)})({UNSIGNED[str(op.results[0].type)]}){operands[0]}"
        if isinstance(op, arith.NegfOp):
            return f"-{operands[0]}"
        if isinstance(op, arith.SelectOp):
            return f"{operands[0]} ? {operands[1]} : {operands[2]}"
        if kind in INTEGER_MIN_MAX:
            a, b = operands
            if op.operands[0] is op.operands[1]:
                return a  # max(x, x): no self-comparison for the C compiler to warn about
            x, y = a, b
            if isinstance(op, arith.MaxUIOp | arith.MinUIOp):
                u = UNSIGNED[str(op.results[0].type)]
                x, y = f"({u}){a}", f"({u}){b}"
            return f"{x} {INTEGER_MIN_MAX[kind]} {y} ? {a} : {b}"
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
            u = UNSIGNED[str(op.results[0].type)]
            return f"({c_type(op.results[0].type)})(({u}){a} / ({u}){b} + (({u}){a} % ({u}){b} != 0))"
        if isinstance(op, mathd.AbsIOp):
            return f"({c_type(op.results[0].type)})abs({operands[0]})"
        if isinstance(op, arith.BitcastOp):
            return f"as_{c_type(op.results[0].type)}({operands[0]})"
        if isinstance(op, mathd.FPowIOp | mathd.IPowIOp):
            return f"pown({operands[0]}, (int){operands[1]})"
        raise EmitError(f"'{op.name}' has no OpenCL C form")

    @staticmethod
    def cmpi(op: arith.CmpiOp, operands: list[str]) -> str:
        predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        a, b = operands
        if predicate.startswith("u"):
            u = UNSIGNED[str(op.lhs.type)]
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


def literal(attr: Attribute, t: Attribute) -> str:
    """A C literal for a constant."""
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "true" if value else "false"
        if isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data == 64):
            return f"({value + 1}L - 1)" if value == -(2**63) else f"{value}L"
        if value == -(2**31):  # `-2147483648` is a long in C (the literal is 2147483648, negated)
            return "(-2147483647 - 1)"
        return str(value)
    if isinstance(attr, FloatAttr):
        value = attr.value.data
        suffix = "f" if str(t) == "f32" else ""
        if math.isnan(value):
            return "NAN"
        if math.isinf(value):
            return "INFINITY" if value > 0 else "-INFINITY"
        text = repr(float(value))
        return text + suffix
    if isinstance(attr, UnitAttr):
        return "true"
    raise EmitError(f"no C literal for {attr}")


def _needs(module: ModuleOp, type_name: str) -> bool:
    for op in module.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            t = value.type
            if isinstance(t, kd.BufferType):
                t = t.element_type
            if str(t) == type_name:
                return True
    return False


def emit_opencl(module: ModuleOp, out: IO[str]) -> None:
    """Print the OpenCL C source of every kernel in `module`."""
    kernels = [op for op in module.walk() if isinstance(op, kd.FuncOp)]
    out.write("// OpenCL C generated by soac (soac-to-kernel, -t opencl)\n")
    if _needs(module, "f64"):
        out.write("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
    if any(isinstance(op, kd.AtomicOp) and str(op.value.type) == "i64" for op in module.walk()):
        out.write("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n")
    for kernel in kernels:
        out.write("\n")
        KernelPrinter(out).print_kernel(kernel)


def opencl_source(module: ModuleOp) -> str:
    import io

    stream = io.StringIO()
    emit_opencl(module, stream)
    return stream.getvalue()


@dataclass(frozen=True)
class OpenCLTarget(Target):
    """`-t opencl`: the OpenCL C kernels of a module (lowering soac ops with soac-to-kernel first, if any)."""

    name = "opencl"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if any(op.dialect_name() == "soac" for op in module.walk()):
            from soac.lowering.conversion.soac_to_kernel import SoacToKernelPass

            SoacToKernelPass().apply(ctx, module)
        emit_opencl(module, output)
