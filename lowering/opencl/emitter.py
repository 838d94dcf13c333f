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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from soac.lowering import kernel as kd
from soac.lowering.c.operators import EmitError as EmitError
from soac.lowering.c.printer import C_KEYWORDS, CPrinter
from soac.lowering.kernel.target import TARGETS, DeviceTarget, target_of_module
from soac.lowering.opencl.target import opencl_spelling
from xdsl.context import Context
from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerAttr, IntegerType, ModuleOp, f32
from xdsl.ir import Attribute, Operation, SSAValue
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
OPENCL_KEYWORDS = C_KEYWORDS | frozenset(
    "half uchar ushort uint ulong kernel global local constant private read_only write_only select".split()
)


def c_type(t: Attribute) -> str:
    if (name := C_TYPES.get(str(t))) is None:
        raise ValueError(f"no OpenCL C type for {t}")
    return name


def _read_and_written(kernel: kd.FuncOp) -> set[SSAValue]:
    """The buffers a kernel both reads and writes. They are not `restrict`: work-items may pass values through
    them (a group's arrays, written by some work-items and read by others after a barrier), and a compiler may
    take a restrict pointer's memory to be out of the barrier's reach (NVIDIA's did: the stores of a loop between
    two barriers were lost)."""
    reads: set[SSAValue] = set()
    writes: set[SSAValue] = set()
    for op in kernel.walk():
        if isinstance(op, kd.LoadOp | kd.VectorLoadOp | kd.AtomicLoadOp | kd.AtomicOp | kd.AtomicCmpxchgOp):
            reads.add(op.buffer)
        if isinstance(op, kd.StoreOp | kd.VectorStoreOp | kd.AtomicStoreOp | kd.AtomicOp | kd.AtomicCmpxchgOp):
            writes.add(op.buffer)
    return reads & writes


def storage_type(t: Attribute) -> str:
    """The C type of a buffer element (`bool` is not allowed in buffers or kernel arguments)."""
    return "uchar" if str(t) == "i1" else c_type(t)


FLOAT_ATOMIC_ADD = """
inline float soac_atomic_add_f32_{space}(volatile __{space} float *p, float v) {{
  union {{ uint u; float f; }} old, next;
  old.f = *p;
  for (;;) {{
    next.f = old.f + v;
    const uint seen = atomic_cmpxchg((volatile __{space} uint *)p, old.u, next.u);
    if (seen == old.u) return old.f;
    old.u = seen;
  }}
}}
"""
"""f32 `kernel.atomic add` as a compare-and-swap loop on the element's bits (OpenCL C has no float atomics)."""
PTX_FLOAT_ATOMIC_ADD = {
    "global": """
inline float soac_atomic_add_f32_global(volatile __global float *p, float v) {
  float old;
  asm volatile("atom.global.add.f32 %0, [%1], %2;" : "=f"(old) : "l"((ulong)p), "f"(v) : "memory");
  return old;
}
""",
    "local": """
inline float soac_atomic_add_f32_local(volatile __local float *p, float v) {
  float old;
  asm volatile("atom.shared.add.f32 %0, [%1], %2;" : "=f"(old) : "r"((uint)(ulong)p), "f"(v) : "memory");
  return old;
}
""",
}
"""f32 `kernel.atomic add` as one PTX atomic, for targets with `ptx_float_atomics` (NVIDIA)."""
PTX_MIN_MAX_TYPES = frozenset({"i8", "i16", "i32"})
PTX_MIN_MAX = """
inline int soac_min_s32(int a, int b) { int r; asm("min.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
inline int soac_max_s32(int a, int b) { int r; asm("max.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
"""
"""Signed min and max for targets with `ptx_min_max` (see `OpenCLSpelling.ptx_min_max` for NVIDIA's miscompile)."""
WORK_ITEM_FUNCTIONS: dict[type[kd.WorkItemQuery], str] = {
    kd.GlobalIdOp: "get_global_id",
    kd.LocalIdOp: "get_local_id",
    kd.GroupIdOp: "get_group_id",
    kd.GlobalSizeOp: "get_global_size",
    kd.LocalSizeOp: "get_local_size",
    kd.NumGroupsOp: "get_num_groups",
}
"""The OpenCL C work-item function of each work-item query (its `size_t`, cast to `long`)."""
FENCE_FLAGS = {"local": "CLK_LOCAL_MEM_FENCE", "global": "CLK_GLOBAL_MEM_FENCE"}
SPACES = {"local": "__local", "global": "__global", "private": "__private"}
UNSIGNED_ATOMICS = {"umin": "min", "umax": "max"}
"""Atomics that OpenCL C spells as the signed ones on unsigned pointers."""
EXTENDED_64_BIT_ATOMICS = ("min", "max", "umin", "umax", "and", "or", "xor")
"""64-bit atomics of `cl_khr_int64_extended_atomics`; the others are `cl_khr_int64_base_atomics`."""


class KernelPrinter(CPrinter):
    """Prints one kernel function as OpenCL C; names are unique per kernel."""

    LANGUAGE = "OpenCL C"
    TYPES = C_TYPES
    UNSIGNED_TYPES = UNSIGNED
    KEYWORDS = OPENCL_KEYWORDS

    def __init__(self, out: IO[str], target: DeviceTarget = TARGETS["generic"]):
        super().__init__(out)
        self.target = target
        self.spelling = opencl_spelling(target)
        self.lanes: str | None = None
        """The local array that emulated shuffles and ballots go through (`OpenCLSpelling.emulated_subgroups`)."""

    def reserved(self, name: str) -> bool:
        return super().reserved(name) or name.startswith("get_")  # the work-item functions

    # -- kernels ----------------------------------------------------------------

    def print_kernel(self, kernel: kd.FuncOp) -> None:
        self.index_bits = kernel.index_bits
        params: list[str] = []
        shared = _read_and_written(kernel)
        for arg in kernel.body.block.args:
            name = self.define(arg)
            if isinstance(arg.type, kd.BufferType):
                restrict = "" if arg in shared else "restrict "
                params.append(f"__global {storage_type(arg.type.element_type)} *{restrict}{name}")
            else:
                params.append(f"const {storage_type(arg.type) if str(arg.type) == 'i1' else self.c_type(arg.type)} {name}")
        self.out.write(f"__kernel void {kernel.kernel_name}({', '.join(params)}) {{\n")
        self.lanes = None
        if self.spelling.emulated_subgroups and any(
            isinstance(op, kd.ShuffleOp | kd.BallotOp | kd.MatchAnyOp) for op in kernel.walk()
        ):
            self.lanes = self.fresh("lanes")
            self.line(f"__local int {self.lanes}[{self.target.subgroup_width}];")
        self.print_block(kernel.body.block)
        self.out.write("}\n")

    def _op_printers(self) -> dict[type[Operation], Callable[[Any], None]]:
        work_items = {query: self.print_work_item_query for query in WORK_ITEM_FUNCTIONS}
        return {
            **super()._op_printers(),
            **work_items,
            kd.ReturnOp: lambda op: None,
            kd.BarrierOp: lambda op: self.line(f"barrier({' | '.join(FENCE_FLAGS[f] for f in op.fences)});"),
            kd.LocalAllocOp: self.print_local_alloc,
            kd.PrivateAllocOp: self.print_private_alloc,
            kd.LoadOp: self.print_load,
            kd.StoreOp: lambda op: self.line(f"{self.element(op.buffer, op.index)} = {self.expr(op.value)};"),
            kd.DeviceAssertOp: self.print_device_assert,
            kd.VectorLoadOp: self.print_vector_load,
            kd.VectorStoreOp: self.print_vector_store,
            kd.AtomicLoadOp: self.print_atomic_load,
            kd.AtomicStoreOp: self.print_atomic_store,
            kd.FenceOp: lambda op: self.line(self.fence(op.space_names, op.scope.data)),
            kd.AtomicOp: self.print_atomic,
            kd.AtomicCmpxchgOp: self.print_atomic_cmpxchg,
            kd.ShuffleOp: self.print_shuffle,
            kd.BallotOp: self.print_ballot,
            kd.MatchAnyOp: self.print_match_any,
        }

    def print_work_item_query(self, op: kd.WorkItemQuery) -> None:
        self.assign(op.result, f"({self.c_type(op.result.type)}){WORK_ITEM_FUNCTIONS[type(op)]}({op.dimension})")

    def element(self, buffer: SSAValue, index: SSAValue) -> str:
        return f"{self.expr(buffer)}[{self.expr(index)}]"

    def print_local_alloc(self, op: kd.LocalAllocOp) -> None:
        name = self.define(op.result)
        element = op.result.type.element_type  # pyright: ignore[reportAttributeAccessIssue]
        vectors = [u.operation for u in op.result.uses if isinstance(u.operation, kd.VectorLoadOp | kd.VectorStoreOp)]
        align = max((v.align.value.data for v in vectors), default=0)  # vector accesses need an aligned start
        attribute = f" __attribute__((aligned({align})))" if align else ""
        self.line(f"__local {storage_type(element)} {name}[{op.num_elements}]{attribute};")

    def print_private_alloc(self, op: kd.PrivateAllocOp) -> None:
        element = op.result.type.element_type  # pyright: ignore[reportAttributeAccessIssue]
        self.line(f"{storage_type(element)} {self.define(op.result)}[{op.num_elements}];")

    def before_for(self, op: scf.ForOp) -> None:
        if (unroll := op.attributes.get(kd.UNROLL)) is None:
            return
        # right before the loop: after the variables a loop with results carries; a factor where the attribute has one
        self.line(f"#pragma unroll {unroll.value.data}" if isinstance(unroll, IntegerAttr) else "#pragma unroll")

    def print_load(self, op: kd.LoadOp) -> None:
        load = self.element(op.buffer, op.index)
        self.assign(op.result, f"({load} != 0)" if str(op.result.type) == "i1" else load)

    # -- memory: vectors, ordered accesses, atomics ----------------------------

    def vector_pointer(self, op: kd.VectorLoadOp | kd.VectorStoreOp) -> str:
        """`(const __global int4*)(xs + i)`: the vector that `op` accesses (`volatile` where the op is)."""
        buffer_type = _buffer_type(op.buffer)
        vector = f"{storage_type(buffer_type.element_type)}{op.width}"
        qualifiers = ["const"] if isinstance(op, kd.VectorLoadOp) else []
        qualifiers += ["volatile"] if op.volatile is not None else []
        qualifiers.append(SPACES[buffer_type.space_name])
        return f"({' '.join(qualifiers)} {vector}*)({self.expr(op.buffer)} + {self.expr(op.index)})"

    def print_vector_load(self, op: kd.VectorLoadOp) -> None:
        element = storage_type(op.elements[0].type)
        vector = self.fresh("vec")
        self.line(f"const {element}{op.width} {vector} = *{self.vector_pointer(op)};")
        for k, result in enumerate(op.elements):
            self.assign(result, f"{vector}.s{k:x}")

    def print_vector_store(self, op: kd.VectorStoreOp) -> None:
        vector = f"{storage_type(op.elements[0].type)}{op.width}"
        values = ", ".join(self.expr(v) for v in op.elements)
        self.line(f"*{self.vector_pointer(op)} = ({vector})({values});")

    def volatile_element(self, buffer: SSAValue, index: SSAValue) -> str:
        """OpenCL C 1.2 has no atomic loads and stores: an aligned volatile access of a 32- or 64-bit word is one."""
        buffer_type = _buffer_type(buffer)
        pointer = f"volatile {SPACES[buffer_type.space_name]} {storage_type(buffer_type.element_type)}*"
        return f"*({pointer})&{self.element(buffer, index)}"

    def fence(self, spaces: Sequence[str], scope: str) -> str:
        """`mem_fence`, which NVIDIA compiles to a fence of the work-group only: a device-scope fence on global
        memory prints as PTX `membar.gl` on targets with `ptx_fences`."""
        if scope == "device" and "global" in spaces and self.spelling.ptx_fences:
            return 'asm volatile("membar.gl;" ::: "memory");'
        return f"mem_fence({' | '.join(FENCE_FLAGS[f] for f in spaces)});"

    def fence_for(self, op: kd.AtomicLoadOp | kd.AtomicStoreOp) -> str:
        return self.fence([_buffer_type(op.buffer).space_name], op.scope.data)

    def print_atomic_load(self, op: kd.AtomicLoadOp) -> None:
        self.assign(op.result, self.volatile_element(op.buffer, op.index))
        if op.order.data == "acquire":
            self.line(self.fence_for(op))

    def print_atomic_store(self, op: kd.AtomicStoreOp) -> None:
        if op.order.data == "release":
            self.line(self.fence_for(op))
        self.line(f"{self.volatile_element(op.buffer, op.index)} = {self.expr(op.value)};")

    def atomic_call(self, function: str, op: kd.AtomicOp | kd.AtomicCmpxchgOp, operands: list[SSAValue]) -> str:
        """`atomic_<function>(&buf[i], ...)` (`atom_` for 64-bit elements; `umin`/`umax` on an unsigned pointer)."""
        buffer_type = _buffer_type(op.buffer)
        element = str(buffer_type.element_type)
        prefix = "atom_" if element == "i64" else "atomic_"
        target = f"&{self.element(op.buffer, op.index)}"
        args = [self.expr(v) for v in operands]
        if function not in UNSIGNED_ATOMICS:
            return f"{prefix}{function}({', '.join([target, *args])})"
        u = UNSIGNED[element]
        unsigned_args = [f"(volatile {SPACES[buffer_type.space_name]} {u}*){target}", *(f"({u}){a}" for a in args)]
        return f"({c_type(buffer_type.element_type)}){prefix}{UNSIGNED_ATOMICS[function]}({', '.join(unsigned_args)})"

    def print_atomic(self, op: kd.AtomicOp) -> None:
        buffer_type = _buffer_type(op.buffer)
        if str(buffer_type.element_type) == "f32":
            target = f"&{self.element(op.buffer, op.index)}"
            self.assign(op.result, f"soac_atomic_add_f32_{buffer_type.space_name}({target}, {self.expr(op.value)})")
            return
        self.assign(op.result, self.atomic_call(op.kind.data, op, [op.value]))

    def print_atomic_cmpxchg(self, op: kd.AtomicCmpxchgOp) -> None:
        buffer_type = _buffer_type(op.buffer)
        element = buffer_type.element_type
        if not isinstance(element, Float32Type | Float64Type):
            self.assign(op.result, self.atomic_call("cmpxchg", op, [op.expected, op.new]))
            return
        bits = "long" if element.bitwidth == 64 else "int"
        function = "atom_cmpxchg" if element.bitwidth == 64 else "atomic_cmpxchg"
        pointer = f"(volatile {SPACES[buffer_type.space_name]} u{bits}*)&{self.element(op.buffer, op.index)}"
        self.assign(op.result, f"({bits}){function}({pointer}, (u{bits}){self.expr(op.expected)}, (u{bits}){self.expr(op.new)})")

    # -- sub-groups -------------------------------------------------------------

    def check_subgroups(self, op: kd.ShuffleOp | kd.BallotOp | kd.MatchAnyOp) -> None:
        if op.lanes > self.target.subgroup_width:
            have = f"sub-groups of {self.target.subgroup_width} lanes" if self.target.has_subgroups else "no sub-groups"
            raise EmitError(
                f"'{op.name}' needs sub-groups of {op.lanes} lanes, but target '{self.target.name}' has {have} "
                "(lower for a target with them, e.g. soac-to-kernel{target=nvidia})"
            )

    def print_shuffle(self, op: kd.ShuffleOp) -> None:
        """`shfl.sync` in inline PTX (NVIDIA's OpenCL has no sub-group shuffles); f32 values go through their bits."""
        self.check_subgroups(op)
        bits = self.fresh("shuffled") if op.value.type == f32 else self.define(op.result)
        self.line(f"int {bits};")
        value = self.expr(op.value)
        value = f"as_int({value})" if op.value.type == f32 else value
        if self.lanes is not None:
            self.print_emulated_shuffle(op, bits, value)
        else:
            self.print_ptx_shuffle(op, bits, value)
        if op.value.type == f32:
            self.assign(op.result, f"as_float({bits})")

    def print_ptx_shuffle(self, op: kd.ShuffleOp, bits: str, value: str) -> None:
        clamp = 0 if op.mode.data == "up" else op.lanes - 1
        control = (32 - op.lanes) << 8 | clamp
        c = "0" if control == 0 else f"{control:#x}"
        mode = "bfly" if op.mode.data == "xor" else op.mode.data
        self.line(
            f'asm volatile("shfl.sync.{mode}.b32 %0, %1, %2, {c}, 0xffffffff;" '
            f': "=r"({bits}) : "r"({value}), "r"({self.expr(op.lane)}));'
        )

    def print_emulated_shuffle(self, op: kd.ShuffleOp, bits: str, value: str) -> None:
        """`lanes[me] = value; barrier; bits = lanes[source]; barrier` (`emulated_subgroups`; PTX's clamping)."""
        width, delta = op.lanes, f"(int){self.expr(op.lane)}"
        me = f"((int)get_local_id(0) & {self.target.subgroup_width - 1})"
        first = f"({me} & ~{width - 1})"
        source = {
            "up": f"({me} - {delta} >= {first} ? {me} - {delta} : {me})",
            "down": f"({me} + {delta} < {first} + {width} ? {me} + {delta} : {me})",
            "idx": f"({first} + ({delta} & {width - 1}))",
            "xor": f"({first} + (({me} ^ {delta}) & {width - 1}))",
        }[op.mode.data]
        self.line(f"{self.lanes}[{me}] = {value};")
        self.line("barrier(CLK_LOCAL_MEM_FENCE);")
        self.line(f"{bits} = {self.lanes}[{source}];")
        self.line("barrier(CLK_LOCAL_MEM_FENCE);")

    def print_ballot(self, op: kd.BallotOp) -> None:
        """`vote.sync.ballot` in inline PTX, of the whole warp: narrower ballots would need their segment's bits."""
        name = self.declare_mask(op, "ballots")
        predicate = self.expr(op.predicate)
        if self.lanes is not None:
            self.print_emulated_mask(name, f"{predicate} ? (int)(1u << {self.lane_number()}) : 0", "{}")
            return
        self.line(
            'asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }" '
            f': "=r"({name}) : "r"((uint){predicate}));'
        )

    def print_match_any(self, op: kd.MatchAnyOp) -> None:
        """`match.any.sync` in inline PTX, of the whole warp (emulated: each lane compares every lane's value)."""
        name = self.declare_mask(op, "matches")
        value = self.expr(op.value)
        if self.lanes is not None:
            self.print_emulated_mask(name, value, f"({{}} == {value} ? (int)(1u << l) : 0)")
            return
        self.line(f'asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"({name}) : "r"({value}));')

    def declare_mask(self, op: kd.BallotOp | kd.MatchAnyOp, what: str) -> str:
        """The declared result of a whole-warp mask op (`what`: its plural, for the error)."""
        self.check_subgroups(op)
        if op.lanes != self.target.subgroup_width:
            raise EmitError(
                f"'{op.name}' of {op.lanes} lanes: target '{self.target.name}' has {what} of its whole "
                f"{self.target.subgroup_width}-lane sub-groups only"
            )
        name = self.define(op.result)
        self.line(f"int {name};")
        return name

    def lane_number(self) -> str:
        return f"((int)get_local_id(0) & {self.target.subgroup_width - 1})"

    def print_emulated_mask(self, name: str, mine: str, bit_of: str) -> None:
        """`lanes[me] = mine`, then `name` ORs `bit_of` of every lane's entry (`{}` stands for `lanes[l]`)."""
        assert self.lanes is not None
        self.line(f"{self.lanes}[{self.lane_number()}] = {mine};")
        self.line("barrier(CLK_LOCAL_MEM_FENCE);")
        self.line(f"{name} = 0;")
        self.line(f"for (int l = 0; l < {self.target.subgroup_width}; l++) {name} |= {bit_of.format(f'{self.lanes}[l]')};")
        self.line("barrier(CLK_LOCAL_MEM_FENCE);")

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

    # -- OpenCL C's builtins ---------------------------------------------------------

    def integer_min_max(self, op: Operation, a: str, b: str) -> str:
        """Signed min and max of up to 32 bits as inline PTX on targets with `ptx_min_max`."""
        signed = isinstance(op, arith.MaxSIOp | arith.MinSIOp) and str(op.results[0].type) in PTX_MIN_MAX_TYPES
        if op.operands[0] is op.operands[1] or not (self.spelling.ptx_min_max and signed):
            return super().integer_min_max(op, a, b)
        function = "soac_max_s32" if isinstance(op, arith.MaxSIOp) else "soac_min_s32"
        return f"({c_type(op.results[0].type)}){function}({a}, {b})"

    def bitcast(self, op: Operation, x: str) -> str:
        return f"as_{c_type(op.results[0].type)}({x})"

    def integer_power(self, op: Operation, x: str, n: str) -> str:
        return f"pown({x}, (int){n})"

    def integer_abs(self, op: Operation, x: str) -> str:
        return f"({c_type(op.results[0].type)})abs({x})"

    def bit_count(self, op: Operation, x: str) -> str:
        """`clz`, `popcount`, and trailing zeros through `clz` of the lowest set bit (OpenCL C 1.2 has no `ctz`)."""
        t = op.results[0].type
        cast = f"({c_type(t)})"
        if isinstance(op, math.CountLeadingZerosOp):
            return f"{cast}clz({x})"
        if isinstance(op, math.CtPopOp):
            return f"{cast}popcount({x})"
        assert isinstance(t, IntegerType)
        width, u = t.width.data, UNSIGNED[str(t)]
        return f"{x} == 0 ? {width} : {cast}({width - 1} - clz(({u}){x} & -({u}){x}))"


def _buffer_type(value: SSAValue) -> kd.BufferType:
    assert isinstance(value.type, kd.BufferType)
    return value.type


def _needs(module: ModuleOp, type_name: str) -> bool:
    for op in module.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            t = value.type
            if isinstance(t, kd.BufferType):
                t = t.element_type
            if str(t) == type_name:
                return True
    return False


def _float_atomic_spaces(kernels: list[kd.FuncOp]) -> set[str]:
    """The address spaces of the f32 atomic adds of `kernels`."""
    return {
        _buffer_type(op.buffer).space_name
        for kernel in kernels
        for op in kernel.walk()
        if isinstance(op, kd.AtomicOp) and str(_buffer_type(op.buffer).element_type) == "f32"
    }


def _atomics_64(module: ModuleOp) -> set[str]:
    """The OpenCL extensions the module's 64-bit atomics need."""
    needed: set[str] = set()
    for op in module.walk():
        if isinstance(op, kd.AtomicOp | kd.AtomicCmpxchgOp) and str(op.result.type) == "i64":
            needed.add("cl_khr_int64_base_atomics")
            if isinstance(op, kd.AtomicOp) and op.kind.data in EXTENDED_64_BIT_ATOMICS:
                needed.add("cl_khr_int64_extended_atomics")
    return needed


def emit_opencl(module: ModuleOp, out: IO[str], target: DeviceTarget | None = None) -> None:
    """Print the OpenCL C source of every kernel in `module` for `target` (default: the module's `kernel.target`)."""
    target = target or target_of_module(module)
    spelling = opencl_spelling(target)
    kernels = [op for op in module.walk() if isinstance(op, kd.FuncOp)]
    out.write("// OpenCL C generated by soac (soac-to-kernel, -t opencl)\n")
    if _needs(module, "f64"):
        out.write("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
    for extension in sorted(_atomics_64(module)):
        out.write(f"#pragma OPENCL EXTENSION {extension} : enable\n")
    for space in sorted(_float_atomic_spaces(kernels)):
        out.write(PTX_FLOAT_ATOMIC_ADD[space] if spelling.ptx_float_atomics else FLOAT_ATOMIC_ADD.format(space=space))
    if spelling.ptx_min_max and any(isinstance(op, arith.MaxSIOp | arith.MinSIOp) for kernel in kernels for op in kernel.walk()):
        out.write(PTX_MIN_MAX)
    for kernel in kernels:
        out.write("\n")
        KernelPrinter(out, target).print_kernel(kernel)


def opencl_source(module: ModuleOp, target: DeviceTarget | None = None) -> str:
    import io

    stream = io.StringIO()
    emit_opencl(module, stream, target)
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
