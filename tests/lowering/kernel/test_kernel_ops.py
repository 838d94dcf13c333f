"""The kernel dialect's memory and sub-group ops: round trips, verifiers, their OpenCL C, and runs on PoCL.

`kernel.vector_load`/`vector_store`, `kernel.atomic_load`/`atomic_store`, `kernel.fence`, `kernel.atomic`,
`kernel.atomic_cmpxchg`, `kernel.shuffle` and `kernel.ballot` (see `soac.lowering.kernel.memory` and `subgroup`).
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from soac.lowering.kernel import (
    AtomicCmpxchgOp,
    AtomicLoadOp,
    AtomicOp,
    AtomicStoreOp,
    BallotOp,
    FenceOp,
    Kernel,
    ShuffleOp,
    VectorLoadOp,
    VectorStoreOp,
)
from soac.lowering.kernel.target import TARGETS
from soac.lowering.opencl.emitter import EmitError, opencl_source
from soac.lowering.runtime import Program, compile_module
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer


def _context() -> Context:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    ctx.load_dialect(Kernel)
    return ctx


def parse_kernel(text: str) -> ModuleOp:
    return Parser(_context(), text).parse_module()


def generic(module: ModuleOp) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


# ---------------------------------------------------------------------------
# Round trip
# ---------------------------------------------------------------------------

ALL_OPS = """builtin.module attributes {kernel.target = "nvidia"} {
  kernel.func @ops(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>) {
    %gid = kernel.global_id 0
    %tile = kernel.local_alloc 64 : !kernel.buffer<local, i32>
    %a, %b, %c, %d = kernel.vector_load %xs[%gid] width 4 align 16 : !kernel.buffer<global, i32>
    kernel.vector_store %d, %c, %b, %a into %xs[%gid] align 16 : !kernel.buffer<global, i32>
    %f0, %f1 = kernel.vector_load %fs[%gid] width 2 align 8 : !kernel.buffer<global, f32>
    kernel.vector_store %f1, %f0 into %fs[%gid] align 8 : !kernel.buffer<global, f32>
    %l0, %l1, %l2, %l3, %l4, %l5, %l6, %l7 = kernel.vector_load %tile[%gid] width 8 align 32 : !kernel.buffer<local, i32>
    %w = kernel.atomic_load %ws[%gid] acquire device : !kernel.buffer<global, i64> -> i64
    kernel.atomic_store %w, %ws[%gid] release device : i64, !kernel.buffer<global, i64>
    %v0, %v1 = kernel.vector_load %ws[%gid] width 2 align 16 volatile : !kernel.buffer<global, i64>
    kernel.vector_store %v1, %v0 into %ws[%gid] align 16 volatile : !kernel.buffer<global, i64>
    %r = kernel.atomic_load %tile[%gid] relaxed workgroup : !kernel.buffer<local, i32> -> i32
    kernel.atomic_store %r, %tile[%gid] relaxed workgroup : i32, !kernel.buffer<local, i32>
    kernel.fence local global scope workgroup
    kernel.fence global scope device
    %add = kernel.atomic add %xs[%gid], %a : !kernel.buffer<global, i32>, i32
    %sub = kernel.atomic sub %xs[%gid], %a : !kernel.buffer<global, i32>, i32
    %min = kernel.atomic min %xs[%gid], %a : !kernel.buffer<global, i32>, i32
    %max = kernel.atomic max %ws[%gid], %w : !kernel.buffer<global, i64>, i64
    %umin = kernel.atomic umin %xs[%gid], %a : !kernel.buffer<global, i32>, i32
    %umax = kernel.atomic umax %ws[%gid], %w : !kernel.buffer<global, i64>, i64
    %and = kernel.atomic and %xs[%gid], %a : !kernel.buffer<global, i32>, i32
    %or = kernel.atomic or %tile[%gid], %a : !kernel.buffer<local, i32>, i32
    %xor = kernel.atomic xor %xs[%gid], %a : !kernel.buffer<global, i32>, i32
    %xchg = kernel.atomic xchg %ws[%gid], %w : !kernel.buffer<global, i64>, i64
    %was = kernel.atomic_cmpxchg %xs[%gid], %a, %b : !kernel.buffer<global, i32>
    %was64 = kernel.atomic_cmpxchg %ws[%gid], %w, %max : !kernel.buffer<global, i64>
    %bits = kernel.atomic_cmpxchg %fs[%gid], %a, %b : !kernel.buffer<global, f32>
    %lane = arith.constant 1 : i32
    %up = kernel.shuffle up %a, %lane width 32 : i32
    %down = kernel.shuffle down %f0, %lane width 16 : f32
    %idx = kernel.shuffle idx %a, %lane width 8 : i32
    %bfly = kernel.shuffle xor %f1, %lane width 64 : f32
    %p = arith.cmpi eq, %a, %b : i32
    %mask = kernel.ballot %p width 32
    kernel.return
  }
}"""

NEW_OPS = (
    "kernel.vector_load",
    "kernel.vector_store",
    "kernel.atomic_load",
    "kernel.atomic_store",
    "kernel.fence",
    "kernel.atomic",
    "kernel.atomic_cmpxchg",
    "kernel.shuffle",
    "kernel.ballot",
)


def test_every_new_op_round_trips() -> None:
    module = parse_kernel(ALL_OPS)
    module.verify()
    assert {op.name for op in module.walk()} >= set(NEW_OPS)
    printed = str(module)
    assert printed == ALL_OPS
    again = parse_kernel(printed)
    again.verify()
    assert str(again) == printed


def test_every_new_op_round_trips_in_generic_form() -> None:
    text = generic(parse_kernel(ALL_OPS))
    for name in NEW_OPS:
        assert f'"{name}"(' in text
    module = parse_kernel(text)
    module.verify()
    assert str(module) == ALL_OPS
    assert generic(module) == text


def test_builders_give_the_parsed_form() -> None:
    """The Python constructors derive what the syntax spells out: results and alignment from the buffer."""
    module = parse_kernel(ALL_OPS)
    values: dict[str, SSAValue] = {}
    for op in module.walk():
        for region in op.regions:
            for arg in region.block.args:
                values[arg.name_hint or ""] = arg
        for result in op.results:
            values[result.name_hint or ""] = result
    xs, fs, ws, gid, a, b, w, lane, p = (values[k] for k in ("xs", "fs", "ws", "gid", "a", "b", "w", "lane", "p"))

    load = VectorLoadOp(xs, gid, 4)
    assert (load.width, load.align.value.data, [str(r.type) for r in load.elements]) == (4, 16, ["i32"] * 4)
    assert VectorLoadOp(ws, gid, 2).align.value.data == 16
    store = VectorStoreOp([a, b], fs, gid)
    assert (store.width, store.align.value.data) == (2, 8)
    acquire = AtomicLoadOp(ws, gid, "acquire")
    assert (acquire.order.data, acquire.scope.data, str(acquire.result.type)) == ("acquire", "device", "i64")
    release = AtomicStoreOp(w, ws, gid, "release", "workgroup")
    assert (release.order.data, release.scope.data) == ("release", "workgroup")
    assert FenceOp(["local", "global"], "device").space_names == ["local", "global"]
    assert str(AtomicOp("umax", ws, gid, w).result.type) == "i64"
    assert str(AtomicCmpxchgOp(xs, gid, a, b).result.type) == "i32"
    shuffle = ShuffleOp("xor", a, lane, 16)
    assert (shuffle.mode.data, shuffle.lanes, str(shuffle.result.type)) == ("xor", 16, "i32")
    assert (BallotOp(p).lanes, str(BallotOp(p).result.type)) == (32, "i32")


# The verifiers' failure modes are FileCheck cases: tests/filecheck/dialect/kernel-invalid.mlir (and, for values
# outside the dialect's enumerations, kernel-parse-errors.mlir).


# ---------------------------------------------------------------------------
# The OpenCL C of the ops
# ---------------------------------------------------------------------------


def kernel_module(body: str, target: str | None = None, args: str = "") -> ModuleOp:
    """A verified module of one kernel @k with buffers %xs (i32), %fs (f32), %ws (i64), index %gid and i32 %one."""
    attributes = f' attributes {{kernel.target = "{target}"}}' if target else ""
    text = (
        f"builtin.module{attributes} {{\n"
        "  kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, "
        f"%ws: !kernel.buffer<global, i64>{args}) {{\n"
        "    %gid = kernel.global_id 0\n"
        "    %one = arith.constant 1 : i32\n"
        f"    {body.strip()}\n"
        "    kernel.return\n"
        "  }\n"
        "}"
    )
    module = parse_kernel(text)
    module.verify()
    return module


def kernel_lines(module: ModuleOp) -> list[str]:
    """The stripped lines of the body of the module's kernel."""
    source = opencl_source(module)
    body = source.split("__kernel void k(", 1)[1].split("\n", 1)[1]
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    assert lines[-1] == "}"
    return lines[:-1]


def test_acquire_load_prints_the_fence_after_the_volatile_load() -> None:
    lines = kernel_lines(
        kernel_module("""
    %w = kernel.atomic_load %ws[%gid] acquire device : !kernel.buffer<global, i64> -> i64
    kernel.store %w, %ws[%gid] : i64, !kernel.buffer<global, i64>
    """)
    )
    load = lines.index("const long w = *(volatile __global long*)&ws[gid];")
    assert lines[load + 1] == "mem_fence(CLK_GLOBAL_MEM_FENCE);"
    assert lines[load + 2] == "ws[gid] = w;"


def test_relaxed_load_and_store_print_no_fence() -> None:
    lines = kernel_lines(
        kernel_module("""
    %w = kernel.atomic_load %ws[%gid] relaxed device : !kernel.buffer<global, i64> -> i64
    kernel.atomic_store %w, %ws[%gid] relaxed device : i64, !kernel.buffer<global, i64>
    """)
    )
    assert lines[1:3] == ["const long w = *(volatile __global long*)&ws[gid];", "*(volatile __global long*)&ws[gid] = w;"]
    assert not any("mem_fence" in line for line in lines)


def test_release_store_prints_the_fence_before_the_volatile_store() -> None:
    lines = kernel_lines(
        kernel_module("""
    kernel.atomic_store %one, %xs[%gid] release device : i32, !kernel.buffer<global, i32>
    """)
    )
    store = lines.index("*(volatile __global int*)&xs[gid] = 1;")
    assert lines[store - 1] == "mem_fence(CLK_GLOBAL_MEM_FENCE);"
    assert lines.count("mem_fence(CLK_GLOBAL_MEM_FENCE);") == 1


def test_fences_print_their_spaces() -> None:
    lines = kernel_lines(
        kernel_module("""
    kernel.fence local global scope workgroup
    kernel.fence global scope device
    kernel.fence local scope workgroup
    """)
    )
    assert lines[1:4] == [
        "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
        "mem_fence(CLK_GLOBAL_MEM_FENCE);",
        "mem_fence(CLK_LOCAL_MEM_FENCE);",
    ]


def test_local_space_accesses_print_local() -> None:
    lines = kernel_lines(
        kernel_module("""
    %tile = kernel.local_alloc 64 : !kernel.buffer<local, i32>
    %a, %b, %c, %d = kernel.vector_load %tile[%gid] width 4 align 16 : !kernel.buffer<local, i32>
    kernel.vector_store %d, %c, %b, %a into %tile[%gid] align 16 : !kernel.buffer<local, i32>
    %r = kernel.atomic_load %tile[%gid] acquire workgroup : !kernel.buffer<local, i32> -> i32
    kernel.atomic_store %r, %tile[%gid] release workgroup : i32, !kernel.buffer<local, i32>
    %old = kernel.atomic umax %tile[%gid], %r : !kernel.buffer<local, i32>, i32
    %add = kernel.atomic add %tile[%gid], %old : !kernel.buffer<local, i32>, i32
    %was = kernel.atomic_cmpxchg %tile[%gid], %add, %one : !kernel.buffer<local, i32>
    """)
    )
    text = "\n".join(lines)
    assert "const int4 vec = *(const __local int4*)(tile + gid);" in lines
    assert "*(__local int4*)(tile + gid) = (int4)(d, c, b, a);" in lines
    load = lines.index("const int r = *(volatile __local int*)&tile[gid];")
    assert lines[load + 1] == "mem_fence(CLK_LOCAL_MEM_FENCE);"
    store = lines.index("*(volatile __local int*)&tile[gid] = r;")
    assert lines[store - 1] == "mem_fence(CLK_LOCAL_MEM_FENCE);"
    assert "const int old = (int)atomic_max((volatile __local uint*)&tile[gid], (uint)r);" in lines
    assert "const int add = atomic_add(&tile[gid], old);" in lines
    assert "const int was = atomic_cmpxchg(&tile[gid], add, 1);" in lines
    assert "__global" not in text.split("__local int tile[64]", 1)[1]


def test_local_buffers_accessed_as_vectors_are_aligned_for_them() -> None:
    lines = kernel_lines(
        kernel_module("""
    %tile = kernel.local_alloc 64 : !kernel.buffer<local, i32>
    %wide = kernel.local_alloc 32 : !kernel.buffer<local, i64>
    %plain = kernel.local_alloc 8 : !kernel.buffer<local, i32>
    %a, %b = kernel.vector_load %tile[%gid] width 2 align 8 : !kernel.buffer<local, i32>
    %c, %d, %e, %f = kernel.vector_load %tile[%gid] width 4 align 16 : !kernel.buffer<local, i32>
    %w = kernel.load %ws[%gid] : !kernel.buffer<global, i64> -> i64
    kernel.vector_store %w, %w, %w, %w into %wide[%gid] align 32 : !kernel.buffer<local, i64>
    kernel.store %a, %plain[%gid] : i32, !kernel.buffer<local, i32>
    """)
    )
    assert lines[1:4] == [
        "__local int tile[64] __attribute__((aligned(16)));",
        "__local long wide[32] __attribute__((aligned(32)));",
        "__local int plain[8];",
    ]


def test_vectors_print_vector_types_and_components() -> None:
    lines = kernel_lines(
        kernel_module("""
    %f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7 = kernel.vector_load %fs[%gid] width 8 align 32 : !kernel.buffer<global, f32>
    kernel.vector_store %f7, %f0 into %fs[%gid] align 8 : !kernel.buffer<global, f32>
    %w0, %w1 = kernel.vector_load %ws[%gid] width 2 align 16 : !kernel.buffer<global, i64>
    """)
    )
    assert lines[1] == "const float8 vec = *(const __global float8*)(fs + gid);"
    assert lines[2:10] == [f"const float f{k} = vec.s{k};" for k in range(8)]
    assert lines[10] == "*(__global float2*)(fs + gid) = (float2)(f7, f0);"
    assert lines[11:14] == [
        "const long2 vec_1 = *(const __global long2*)(ws + gid);",
        "const long w0 = vec_1.s0;",
        "const long w1 = vec_1.s1;",
    ]


def test_volatile_vectors_are_accessed_through_volatile_pointers() -> None:
    lines = kernel_lines(
        kernel_module("""
    %w0, %w1 = kernel.vector_load %ws[%gid] width 2 align 16 volatile : !kernel.buffer<global, i64>
    kernel.vector_store %w1, %w0 into %ws[%gid] align 16 volatile : !kernel.buffer<global, i64>
    """)
    )
    assert lines[1] == "const long2 vec = *(const volatile __global long2*)(ws + gid);"
    assert lines[4] == "*(volatile __global long2*)(ws + gid) = (long2)(w1, w0);"


def test_sixteen_wide_vectors_name_their_components_in_hex() -> None:
    names = ", ".join(f"%v{k}" for k in range(16))
    lines = kernel_lines(kernel_module(f"{names} = kernel.vector_load %xs[%gid] width 16 align 64 : !kernel.buffer<global, i32>"))
    assert lines[1] == "const int16 vec = *(const __global int16*)(xs + gid);"
    assert lines[2 + 10] == "const int v10 = vec.sa;"
    assert lines[2 + 15] == "const int v15 = vec.sf;"


@pytest.mark.parametrize(
    ("kind", "element", "line"),
    [
        ("umin", "i32", "const int old = (int)atomic_min((volatile __global uint*)&xs[gid], (uint)v);"),
        ("umax", "i32", "const int old = (int)atomic_max((volatile __global uint*)&xs[gid], (uint)v);"),
        ("min", "i32", "const int old = atomic_min(&xs[gid], v);"),
        ("xchg", "i32", "const int old = atomic_xchg(&xs[gid], v);"),
        ("umin", "i64", "const long old = (long)atom_min((volatile __global ulong*)&ws[gid], (ulong)v);"),
        ("max", "i64", "const long old = atom_max(&ws[gid], v);"),
        ("sub", "i64", "const long old = atom_sub(&ws[gid], v);"),
    ],
)
def test_atomic_calls(kind: str, element: str, line: str) -> None:
    buffer = "%xs" if element == "i32" else "%ws"
    lines = kernel_lines(
        kernel_module(f"""
    %v = kernel.load {buffer}[%gid] : !kernel.buffer<global, {element}> -> {element}
    %old = kernel.atomic {kind} {buffer}[%gid], %v : !kernel.buffer<global, {element}>, {element}
    """)
    )
    assert lines[2] == line


def test_compare_and_swap_on_floats_swaps_their_bits() -> None:
    lines = kernel_lines(kernel_module("%was = kernel.atomic_cmpxchg %fs[%gid], %one, %one : !kernel.buffer<global, f32>"))
    assert lines[1] == "const int was = (int)atomic_cmpxchg((volatile __global uint*)&fs[gid], (uint)1, (uint)1);"


@pytest.mark.parametrize(("target", "ptx"), [("nvidia", True), ("generic", False), ("cpu", False)])
def test_device_fences_on_global_memory_are_membar_gl_on_nvidia(target: str, ptx: bool) -> None:
    """NVIDIA's `mem_fence` fences the work-group only; a lock taken and released across work-groups needs `membar.gl`
    (the `copies` histogram with locks gave wrong bins on the H200 without it)."""
    module = kernel_module(
        """
    kernel.fence global scope device
    %v = kernel.atomic_load %xs[%gid] acquire device : !kernel.buffer<global, i32> -> i32
    kernel.atomic_store %v, %xs[%gid] release device : i32, !kernel.buffer<global, i32>
    kernel.fence local global scope workgroup
    """,
        target,
    )
    lines = kernel_lines(module)
    membar = 'asm volatile("membar.gl;" ::: "memory");'
    assert lines.count(membar) == (3 if ptx else 0)
    assert lines.count("mem_fence(CLK_GLOBAL_MEM_FENCE);") == (0 if ptx else 3)
    assert "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);" in lines


@pytest.mark.parametrize(("target", "ptx"), [("nvidia", True), ("generic", False), ("cpu", False)])
def test_f32_atomic_add_is_one_ptx_atomic_on_nvidia(target: str, ptx: bool) -> None:
    module = kernel_module(
        """
    %f = kernel.load %fs[%gid] : !kernel.buffer<global, f32> -> f32
    %old = kernel.atomic add %fs[%gid], %f : !kernel.buffer<global, f32>, f32
    %tile = kernel.local_alloc 64 : !kernel.buffer<local, f32>
    %was = kernel.atomic add %tile[%gid], %f : !kernel.buffer<local, f32>, f32
    """,
        target,
    )
    source = opencl_source(module)
    assert ("atom.global.add.f32" in source) == ptx
    assert ("atom.shared.add.f32" in source) == ptx
    assert ("atomic_cmpxchg((volatile __global uint *)p, old.u, next.u)" in source) == (not ptx)
    assert "const float old = soac_atomic_add_f32_global(&fs[gid], f);" in source
    assert "const float was = soac_atomic_add_f32_local(&tile[gid], f);" in source


@pytest.mark.parametrize(
    ("body", "pragmas"),
    [
        ("%old = kernel.atomic max %ws[%gid], %w : !kernel.buffer<global, i64>, i64", ["base", "extended"]),
        ("%old = kernel.atomic umin %ws[%gid], %w : !kernel.buffer<global, i64>, i64", ["base", "extended"]),
        ("%old = kernel.atomic xor %ws[%gid], %w : !kernel.buffer<global, i64>, i64", ["base", "extended"]),
        ("%old = kernel.atomic add %ws[%gid], %w : !kernel.buffer<global, i64>, i64", ["base"]),
        ("%old = kernel.atomic xchg %ws[%gid], %w : !kernel.buffer<global, i64>, i64", ["base"]),
        ("%old = kernel.atomic_cmpxchg %ws[%gid], %w, %w : !kernel.buffer<global, i64>", ["base"]),
        ("%old = kernel.atomic max %xs[%gid], %one : !kernel.buffer<global, i32>, i32", []),
        ("%old = kernel.atomic_load %ws[%gid] acquire device : !kernel.buffer<global, i64> -> i64", []),
    ],
)
def test_64_bit_atomics_enable_their_extensions(body: str, pragmas: list[str]) -> None:
    module = kernel_module(f"%w = kernel.load %ws[%gid] : !kernel.buffer<global, i64> -> i64\n    {body}")
    found = re.findall(r"#pragma OPENCL EXTENSION cl_khr_int64_(\w+)_atomics : enable", opencl_source(module))
    assert found == pragmas


SHUFFLE = "%s = kernel.shuffle down %one, %one width 32 : i32"
BALLOT = "%p = arith.cmpi eq, %one, %one : i32\n    %m = kernel.ballot %p width 32"


@pytest.mark.parametrize("target", [None, "generic", "cpu"])
@pytest.mark.parametrize(
    ("body", "op", "ptx"), [(SHUFFLE, "kernel.shuffle", "shfl.sync.down.b32"), (BALLOT, "kernel.ballot", "vote.sync.ballot.b32")]
)
def test_subgroup_ops_need_a_target_with_subgroups(body: str, op: str, ptx: str, target: str | None) -> None:
    module = kernel_module(body, target)
    name = target or "generic"
    with pytest.raises(EmitError, match=rf"'{op}' needs sub-groups of 32 lanes, but target '{name}' has no sub-groups"):
        opencl_source(module)
    assert ptx in opencl_source(module, TARGETS["nvidia"])  # the module's target is what refuses them


def test_shuffles_wider_than_the_targets_subgroups_are_refused() -> None:
    module = kernel_module("%s = kernel.shuffle xor %one, %one width 64 : i32", "nvidia")
    with pytest.raises(
        EmitError, match=r"'kernel.shuffle' needs sub-groups of 64 lanes, but target 'nvidia' has sub-groups of 32"
    ):
        opencl_source(module)


def test_ballots_narrower_than_a_warp_are_refused() -> None:
    """NVIDIA's vote.sync.ballot gives the whole warp's bits; a 16-lane ballot would need its half's."""
    module = kernel_module("%p = arith.constant true\n    %b = kernel.ballot %p width 16", "nvidia")
    with pytest.raises(EmitError, match=r"'kernel.ballot' of 16 lanes: target 'nvidia' has ballots of its whole 32-lane"):
        opencl_source(module)
    assert "vote.sync.ballot.b32" in opencl_source(
        kernel_module("%p = arith.constant true\n    %b = kernel.ballot %p width 32", "nvidia")
    )


def shuffle_asm(mode: str, width: int, element: str = "i32") -> list[str]:
    value = "%one" if element == "i32" else "%x"
    module = kernel_module(
        f"""
    %x = arith.sitofp %one : i32 to f32
    %s = kernel.shuffle {mode} {value}, %one width {width} : {element}
    """,
        "nvidia",
    )
    return [line for line in kernel_lines(module) if not line.startswith(("const long gid", "const float x"))]


def test_shuffle_xor_prints_a_butterfly() -> None:
    assert shuffle_asm("xor", 32) == [
        "int s;",
        'asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(s) : "r"(1), "r"(1));',
    ]


@pytest.mark.parametrize(
    ("mode", "width", "control"),
    [
        ("up", 32, "0"),
        ("down", 32, "0x1f"),
        ("idx", 32, "0x1f"),
        ("up", 16, "0x1000"),
        ("down", 16, "0x100f"),  # ((32 - 16) << 8) | 15
        ("xor", 16, "0x100f"),
        ("idx", 8, "0x1807"),
        ("up", 2, "0x1e00"),
        ("down", 2, "0x1e01"),
    ],
)
def test_shuffle_control_words(mode: str, width: int, control: str) -> None:
    ptx_mode = "bfly" if mode == "xor" else mode
    (asm,) = [line for line in shuffle_asm(mode, width) if line.startswith("asm")]
    assert f'"shfl.sync.{ptx_mode}.b32 %0, %1, %2, {control}, 0xffffffff;"' in asm


def test_f32_shuffles_go_through_the_bits() -> None:
    lines = shuffle_asm("up", 32, "f32")
    assert lines == [
        "int shuffled;",
        'asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(shuffled) : "r"(as_int(x)), "r"(1));',
        "const float s = as_float(shuffled);",
    ]


def ptx_shuffle(mode: str, control: int, values: list[int], b: int) -> list[int]:
    """`shfl.sync.<mode>.b32 d, a, b, c, 0xffffffff` over a full warp, as the PTX ISA specifies it."""
    cval, segmask = control & 0x1F, (control >> 8) & 0x1F
    out = []
    for lane in range(32):
        max_lane = (lane & segmask) | (cval & ~segmask)
        min_lane = lane & segmask
        bval = b & 0x1F
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~segmask)
            ok = j <= max_lane
        out.append(values[j if ok else lane])
    return out


def kernel_shuffle(mode: str, width: int, values: list[int], b: int) -> list[int]:
    """`kernel.shuffle` as the dialect defines it: lanes exchange within sub-groups of `width` consecutive lanes."""
    out = []
    for lane in range(32):
        base, own = lane - lane % width, lane % width
        source = {"up": own - b, "down": own + b, "idx": b, "xor": own ^ b}[mode]
        out.append(values[base + source] if 0 <= source < width else values[lane])
    return out


@pytest.mark.parametrize("width", [2, 4, 8, 16, 32])
@pytest.mark.parametrize("mode", ["up", "down", "idx", "xor"])
def test_shuffle_control_words_give_the_ops_meaning(mode: str, width: int) -> None:
    """The emitted `shfl.sync`, run through PTX's definition, exchanges lanes as `kernel.shuffle` says it does."""
    (asm,) = [line for line in shuffle_asm(mode, width) if line.startswith("asm")]
    match = re.search(r"shfl\.sync\.(\w+)\.b32 %0, %1, %2, (\w+), 0xffffffff;", asm)
    assert match is not None, asm
    ptx_mode, control = match.group(1), int(match.group(2), 0)
    values = [100 + lane for lane in range(32)]
    for b in range(width):
        assert ptx_shuffle(ptx_mode, control, values, b) == kernel_shuffle(mode, width, values, b), (mode, width, b)


def test_ballot_prints_a_vote() -> None:
    lines = kernel_lines(kernel_module(BALLOT, "nvidia"))
    assert lines[1:4] == [
        "const bool p = 1 == 1;",
        "int m;",
        'asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }" '
        ': "=r"(m) : "r"((uint)p));',
    ]


@pytest.mark.parametrize(
    ("op", "c"),
    [
        ("math.cttz", "x == 0 ? 32 : (int)(31 - clz((uint)x & -(uint)x))"),  # negated unsigned: -INT_MIN overflows
        ("math.ctlz", "(int)clz(x)"),
        ("math.ctpop", "(int)popcount(x)"),
    ],
)
def test_bit_counts_print_through_clz_and_popcount(op: str, c: str) -> None:
    lines = kernel_lines(
        kernel_module(f"%x = kernel.load %xs[%gid] : !kernel.buffer<global, i32> -> i32\n    %r = {op} %x : i32")
    )
    assert lines[2] == f"const int r = {c};"


# ---------------------------------------------------------------------------
# Running them on PoCL
# ---------------------------------------------------------------------------

I32 = "!kernel.buffer<global, i32>"
I64 = "!kernel.buffer<global, i64>"
F32 = "!kernel.buffer<global, f32>"

RUN_IR = f"""
builtin.module {{
  // Vectors: i32 in fours, reversed; f32 in eights, rotated by one.
  kernel.func @vectors_k(%xs: {I32}, %ys: {I32}, %n: index, %fs: {F32}, %gs: {F32}, %m: index) {{
    %gid = kernel.global_id 0
    %gsize = kernel.global_size 0
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %nv = arith.divui %n, %c4 : index
    scf.for %i = %gid to %nv step %gsize {{
      %base = arith.muli %i, %c4 : index
      %a, %b, %c, %d = kernel.vector_load %xs[%base] width 4 align 16 : {I32}
      kernel.vector_store %d, %c, %b, %a into %ys[%base] align 16 : {I32}
    }}
    %mv = arith.divui %m, %c8 : index
    scf.for %i = %gid to %mv step %gsize {{
      %base = arith.muli %i, %c8 : index
      %f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7 = kernel.vector_load %fs[%base] width 8 align 32 : {F32}
      kernel.vector_store %f1, %f2, %f3, %f4, %f5, %f6, %f7, %f0 into %gs[%base] align 32 : {F32}
    }}
    kernel.return
  }}
  func.func @vectors(%xs: {I32}, %n: index, %fs: {F32}, %m: index) -> ({I32}, index, {F32}, index)
      attributes {{soac.source_type = (tensor<?xi32>, tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>)}} {{
    %ys = kernel.alloc %n : {I32}
    %gs = kernel.alloc %m : {F32}
    %global = arith.constant 128 : index
    %local = arith.constant 64 : index
    kernel.launch @vectors_k(%xs, %ys, %n, %fs, %gs, %m : {I32}, {I32}, index, {F32}, {F32}, index) global %global local %local
    func.return %ys, %n, %gs, %m : {I32}, index, {F32}, index
  }}

  // Histograms with atomic adds: +1 into i32 bins, +2^33 into i64 bins.
  kernel.func @histogram_k(%vals: {I32}, %n: index, %h32: {I32}, %h64: {I64}) {{
    %gid = kernel.global_id 0
    %gsize = kernel.global_size 0
    %one = arith.constant 1 : i32
    %big = arith.constant 8589934592 : i64
    scf.for %i = %gid to %n step %gsize {{
      %v = kernel.load %vals[%i] : {I32} -> i32
      %bin = arith.index_cast %v : i32 to index
      %old32 = kernel.atomic add %h32[%bin], %one : {I32}, i32
      %old64 = kernel.atomic add %h64[%bin], %big : {I64}, i64
    }}
    kernel.return
  }}
  func.func @histogram(%vals: {I32}, %n: index, %h32: {I32}, %b32: index, %h64: {I64}, %b64: index)
      -> ({I32}, index, {I64}, index)
      attributes {{soac.source_type = (tensor<?xi32>, tensor<?xi32>, tensor<?xi64>) -> (tensor<?xi32>, tensor<?xi64>)}} {{
    %global = arith.constant 256 : index
    %local = arith.constant 64 : index
    kernel.launch @histogram_k(%vals, %n, %h32, %h64 : {I32}, index, {I32}, {I64}) global %global local %local
    func.return %h32, %b32, %h64, %b64 : {I32}, index, {I64}, index
  }}

  // Every read-modify-write kind over all values, into slot k of r32 (i32) and r64 (i64).
  kernel.func @kinds_k(%v32: {I32}, %v64: {I64}, %n: index, %r32: {I32}, %r64: {I64}) {{
    %gid = kernel.global_id 0
    %gsize = kernel.global_size 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %gid to %n step %gsize {{
      %x = kernel.load %v32[%i] : {I32} -> i32
      %y = kernel.load %v64[%i] : {I64} -> i64
      %a0 = kernel.atomic add %r32[%c0], %x : {I32}, i32
      %a1 = kernel.atomic sub %r32[%c1], %x : {I32}, i32
      %a2 = kernel.atomic min %r32[%c2], %x : {I32}, i32
      %a3 = kernel.atomic max %r32[%c3], %x : {I32}, i32
      %a4 = kernel.atomic umin %r32[%c4], %x : {I32}, i32
      %a5 = kernel.atomic umax %r32[%c5], %x : {I32}, i32
      %a6 = kernel.atomic and %r32[%c6], %x : {I32}, i32
      %a7 = kernel.atomic or %r32[%c7], %x : {I32}, i32
      %a8 = kernel.atomic xor %r32[%c8], %x : {I32}, i32
      %b0 = kernel.atomic add %r64[%c0], %y : {I64}, i64
      %b1 = kernel.atomic sub %r64[%c1], %y : {I64}, i64
      %b2 = kernel.atomic min %r64[%c2], %y : {I64}, i64
      %b3 = kernel.atomic max %r64[%c3], %y : {I64}, i64
      %b4 = kernel.atomic umin %r64[%c4], %y : {I64}, i64
      %b5 = kernel.atomic umax %r64[%c5], %y : {I64}, i64
      %b6 = kernel.atomic and %r64[%c6], %y : {I64}, i64
      %b7 = kernel.atomic or %r64[%c7], %y : {I64}, i64
      %b8 = kernel.atomic xor %r64[%c8], %y : {I64}, i64
    }}
    kernel.return
  }}
  func.func @kinds(%v32: {I32}, %n: index, %v64: {I64}, %n64: index, %r32: {I32}, %k32: index, %r64: {I64}, %k64: index)
      -> ({I32}, index, {I64}, index)
      attributes {{soac.source_type = (tensor<?xi32>, tensor<?xi64>, tensor<?xi32>, tensor<?xi64>)
        -> (tensor<?xi32>, tensor<?xi64>)}} {{
    %global = arith.constant 256 : index
    %local = arith.constant 64 : index
    kernel.launch @kinds_k(%v32, %v64, %n, %r32, %r64 : {I32}, {I64}, index, {I32}, {I64}) global %global local %local
    func.return %r32, %k32, %r64, %k64 : {I32}, index, {I64}, index
  }}

  // Exchanges: xchg of every work-item's number into one slot (each old value recorded); compare-and-swap
  // claims of slots i mod k (only the first claim of a slot sees -1); a compare-and-swap loop summing into one slot.
  kernel.func @exchange_k(%n: index, %k: index, %slot32: {I32}, %olds32: {I32}, %slot64: {I64}, %olds64: {I64},
                          %claims32: {I32}, %was32: {I32}, %claims64: {I64}, %was64: {I64}, %xs: {I64}, %total: {I64}) {{
    %gid = kernel.global_id 0
    %gsize = kernel.global_size 0
    %c0 = arith.constant 0 : index
    %big = arith.constant 1099511627776 : i64
    %free32 = arith.constant -1 : i32
    %free64 = arith.constant -1 : i64
    scf.for %i = %gid to %n step %gsize {{
      %i32 = arith.index_cast %i : index to i32
      %i64 = arith.index_cast %i : index to i64
      %v64 = arith.addi %i64, %big : i64
      %old32 = kernel.atomic xchg %slot32[%c0], %i32 : {I32}, i32
      kernel.store %old32, %olds32[%i] : i32, {I32}
      %old64 = kernel.atomic xchg %slot64[%c0], %v64 : {I64}, i64
      kernel.store %old64, %olds64[%i] : i64, {I64}
      %s = arith.remui %i, %k : index
      %w32 = kernel.atomic_cmpxchg %claims32[%s], %free32, %i32 : {I32}
      kernel.store %w32, %was32[%i] : i32, {I32}
      %w64 = kernel.atomic_cmpxchg %claims64[%s], %free64, %v64 : {I64}
      kernel.store %w64, %was64[%i] : i64, {I64}
      %x = kernel.load %xs[%i] : {I64} -> i64
      %start = kernel.atomic_load %total[%c0] relaxed device : {I64} -> i64
      %done = scf.while (%seen = %start) : (i64) -> i64 {{
        %sum = arith.addi %seen, %x : i64
        %got = kernel.atomic_cmpxchg %total[%c0], %seen, %sum : {I64}
        %retry = arith.cmpi ne, %got, %seen : i64
        scf.condition(%retry) %got : i64
      }} do {{
      ^bb0(%again: i64):
        scf.yield %again : i64
      }}
    }}
    kernel.return
  }}
  func.func @exchange(%xs: {I64}, %n: index, %slot32: {I32}, %s32: index, %slot64: {I64}, %s64: index,
                      %claims32: {I32}, %k: index, %claims64: {I64}, %k64: index, %total: {I64}, %t: index)
      -> ({I32}, index, {I32}, index, {I64}, index, {I64}, index, {I32}, index, {I32}, index, {I64}, index, {I64}, index,
          {I64}, index)
      attributes {{soac.source_type = (tensor<?xi64>, tensor<?xi32>, tensor<?xi64>, tensor<?xi32>, tensor<?xi64>, tensor<?xi64>)
        -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi32>, tensor<?xi32>, tensor<?xi64>,
            tensor<?xi64>, tensor<?xi64>)}} {{
    %olds32 = kernel.alloc %n : {I32}
    %olds64 = kernel.alloc %n : {I64}
    %was32 = kernel.alloc %n : {I32}
    %was64 = kernel.alloc %n : {I64}
    %global = arith.constant 256 : index
    %local = arith.constant 64 : index
    kernel.launch @exchange_k(%n, %k, %slot32, %olds32, %slot64, %olds64, %claims32, %was32, %claims64, %was64, %xs, %total
      : index, index, {I32}, {I32}, {I64}, {I64}, {I32}, {I32}, {I64}, {I64}, {I64}, {I64}) global %global local %local
    func.return %slot32, %s32, %olds32, %n, %slot64, %s64, %olds64, %n, %claims32, %k, %was32, %n, %claims64, %k64, %was64, %n,
      %total, %t : {I32}, index, {I32}, index, {I64}, index, {I64}, index, {I32}, index, {I32}, index, {I64}, index, {I64}, index,
      {I64}, index
  }}

  // Local memory, work-groups of 64: a 16-bin histogram per group (atomic adds on a local buffer zeroed with relaxed
  // stores, read back with a local vector load after a barrier), the group's unsigned minimum (local umin), and each
  // work-item's neighbour (release store, fence, barrier, acquire load).
  kernel.func @groups_k(%vals: {I32}, %hist: {I32}, %mins: {I32}, %next: {I32}) {{
    %bins = kernel.local_alloc 16 : !kernel.buffer<local, i32>
    %least = kernel.local_alloc 1 : !kernel.buffer<local, i32>
    %ring = kernel.local_alloc 64 : !kernel.buffer<local, i32>
    %lid = kernel.local_id 0
    %group = kernel.group_id 0
    %gid = kernel.global_id 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %fifteen = arith.constant 15 : i32
    %all = arith.constant -1 : i32
    %first = arith.cmpi eq, %lid, %c0 : index
    %counter = arith.cmpi ult, %lid, %c16 : index
    scf.if %counter {{
      kernel.atomic_store %zero, %bins[%lid] relaxed workgroup : i32, !kernel.buffer<local, i32>
    }}
    scf.if %first {{
      kernel.atomic_store %all, %least[%c0] relaxed workgroup : i32, !kernel.buffer<local, i32>
    }}
    kernel.barrier local
    %v = kernel.load %vals[%gid] : {I32} -> i32
    %low = arith.andi %v, %fifteen : i32
    %bin = arith.index_cast %low : i32 to index
    %counted = kernel.atomic add %bins[%bin], %one : !kernel.buffer<local, i32>, i32
    %smaller = kernel.atomic umin %least[%c0], %v : !kernel.buffer<local, i32>, i32
    kernel.atomic_store %v, %ring[%lid] release workgroup : i32, !kernel.buffer<local, i32>
    kernel.fence local scope workgroup
    kernel.barrier local
    %after = arith.addi %lid, %c1 : index
    %neighbour = arith.remui %after, %c64 : index
    %theirs = kernel.atomic_load %ring[%neighbour] acquire workgroup : !kernel.buffer<local, i32> -> i32
    kernel.store %theirs, %next[%gid] : i32, {I32}
    %quarter = arith.cmpi ult, %lid, %c4 : index
    scf.if %quarter {{
      %source = arith.muli %lid, %c4 : index
      %a, %b, %c, %d = kernel.vector_load %bins[%source] width 4 align 16 : !kernel.buffer<local, i32>
      %row = arith.muli %group, %c16 : index
      %target = arith.addi %row, %source : index
      kernel.vector_store %a, %b, %c, %d into %hist[%target] align 16 : {I32}
    }}
    scf.if %first {{
      %m = kernel.atomic_load %least[%c0] relaxed workgroup : !kernel.buffer<local, i32> -> i32
      kernel.store %m, %mins[%group] : i32, {I32}
    }}
    kernel.return
  }}
  func.func @groups(%vals: {I32}, %n: index) -> ({I32}, index, {I32}, index, {I32}, index)
      attributes {{soac.source_type = (tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>)}} {{
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %groups = arith.divui %n, %c64 : index
    %cells = arith.muli %groups, %c16 : index
    %hist = kernel.alloc %cells : {I32}
    %mins = kernel.alloc %groups : {I32}
    %next = kernel.alloc %n : {I32}
    kernel.launch @groups_k(%vals, %hist, %mins, %next : {I32}, {I32}, {I32}, {I32}) global %n local %c64
    func.return %hist, %cells, %mins, %groups, %next, %n : {I32}, index, {I32}, index, {I32}, index
  }}

  // Ordered global accesses: data written, fenced, a flag published with release and read back with acquire.
  kernel.func @ordered_k(%xs: {I64}, %n: index, %data: {I64}, %flags: {I64}, %out: {I64}) {{
    %gid = kernel.global_id 0
    %gsize = kernel.global_size 0
    %three = arith.constant 3 : i64
    scf.for %i = %gid to %n step %gsize {{
      %x = kernel.load %xs[%i] : {I64} -> i64
      kernel.store %x, %data[%i] : i64, {I64}
      kernel.fence global scope device
      %flag = arith.muli %x, %three : i64
      kernel.atomic_store %flag, %flags[%i] release device : i64, {I64}
      %seen = kernel.atomic_load %flags[%i] acquire device : {I64} -> i64
      %d = kernel.load %data[%i] : {I64} -> i64
      %both = arith.addi %seen, %d : i64
      kernel.fence local global scope workgroup
      kernel.store %both, %out[%i] : i64, {I64}
    }}
    kernel.return
  }}
  func.func @ordered(%xs: {I64}, %n: index) -> ({I64}, index, {I64}, index, {I64}, index)
      attributes {{soac.source_type = (tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>)}} {{
    %data = kernel.alloc %n : {I64}
    %flags = kernel.alloc %n : {I64}
    %out = kernel.alloc %n : {I64}
    %global = arith.constant 256 : index
    %local = arith.constant 64 : index
    kernel.launch @ordered_k(%xs, %n, %data, %flags, %out : {I64}, index, {I64}, {I64}, {I64}) global %global local %local
    func.return %data, %n, %flags, %n, %out, %n : {I64}, index, {I64}, index, {I64}, index
  }}

  // Bit counts of i32 and i64 values.
  kernel.func @bits_k(%as: {I32}, %bs: {I64}, %n: index, %t32: {I32}, %l32: {I32}, %p32: {I32},
                      %t64: {I64}, %l64: {I64}, %p64: {I64}) {{
    %gid = kernel.global_id 0
    %gsize = kernel.global_size 0
    scf.for %i = %gid to %n step %gsize {{
      %a = kernel.load %as[%i] : {I32} -> i32
      %ta = math.cttz %a : i32
      %la = math.ctlz %a : i32
      %pa = math.ctpop %a : i32
      kernel.store %ta, %t32[%i] : i32, {I32}
      kernel.store %la, %l32[%i] : i32, {I32}
      kernel.store %pa, %p32[%i] : i32, {I32}
      %b = kernel.load %bs[%i] : {I64} -> i64
      %tb = math.cttz %b : i64
      %lb = math.ctlz %b : i64
      %pb = math.ctpop %b : i64
      kernel.store %tb, %t64[%i] : i64, {I64}
      kernel.store %lb, %l64[%i] : i64, {I64}
      kernel.store %pb, %p64[%i] : i64, {I64}
    }}
    kernel.return
  }}
  func.func @bits(%as: {I32}, %n: index, %bs: {I64}, %m: index)
      -> ({I32}, index, {I32}, index, {I32}, index, {I64}, index, {I64}, index, {I64}, index)
      attributes {{soac.source_type = (tensor<?xi32>, tensor<?xi64>)
        -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>)}} {{
    %t32 = kernel.alloc %n : {I32}
    %l32 = kernel.alloc %n : {I32}
    %p32 = kernel.alloc %n : {I32}
    %t64 = kernel.alloc %n : {I64}
    %l64 = kernel.alloc %n : {I64}
    %p64 = kernel.alloc %n : {I64}
    %global = arith.constant 256 : index
    %local = arith.constant 64 : index
    kernel.launch @bits_k(%as, %bs, %n, %t32, %l32, %p32, %t64, %l64, %p64
      : {I32}, {I64}, index, {I32}, {I32}, {I32}, {I64}, {I64}, {I64})
      global %global local %local
    func.return %t32, %n, %l32, %n, %p32, %n, %t64, %n, %l64, %n, %p64, %n
      : {I32}, index, {I32}, index, {I32}, index, {I64}, index, {I64}, index, {I64}, index
  }}
}}
"""


@pytest.fixture(scope="module")
def program() -> Program:
    module = parse_kernel(RUN_IR)
    module.verify()
    return compile_module(module, "pocl")


def test_the_run_module_is_built_as_written(program: Program) -> None:
    """compile_module takes a kernel-dialect module as it is (no lowering), for the module's target (generic)."""
    assert "portable" in program.device.platform.name.lower()
    assert sorted(program.kernels) == ["bits_k", "exchange_k", "groups_k", "histogram_k", "kinds_k", "ordered_k", "vectors_k"]
    assert "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable" in program.source
    assert "asm" not in program.source
    assert "__local int bins[16] __attribute__((aligned(16)));" in program.source  # read as vectors below


def test_vector_loads_and_stores(program: Program, rng: np.random.Generator) -> None:
    for n in (0, 4, 1000, 4096 + 8):
        xs = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
        fs = rng.standard_normal(2 * n).astype(np.float32)
        ys, gs = program.call("vectors", [xs, fs])
        np.testing.assert_array_equal(ys, xs.reshape(-1, 4)[:, ::-1].ravel())
        np.testing.assert_array_equal(gs, np.roll(fs.reshape(-1, 8), -1, axis=1).ravel())


def test_histogram_with_atomic_adds(program: Program, rng: np.random.Generator) -> None:
    bins = 37
    vals = rng.integers(0, bins, 100_003).astype(np.int32)
    vals[:5000] = 3  # a hot bin: many work-items add to it at once
    h32, h64 = program.call("histogram", [vals, np.zeros(bins, np.int32), np.full(bins, 7, np.int64)])
    counts = np.bincount(vals, minlength=bins)
    np.testing.assert_array_equal(h32, counts.astype(np.int32))
    np.testing.assert_array_equal(h64, 7 + counts.astype(np.int64) * 2**33)


def _wrap(value: int, bits: int) -> int:
    value %= 2**bits
    return value - 2**bits if value >= 2 ** (bits - 1) else value


def _expected_kinds(values: list[int], bits: int) -> list[int]:
    mask = 2**bits - 1
    unsigned = [v & mask for v in values]
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    and_, or_, xor = mask, 0, 0
    for u in unsigned:
        and_, or_, xor = and_ & u, or_ | u, xor ^ u
    return [
        _wrap(sum(values), bits),
        _wrap(-sum(values), bits),
        min([high, *values]),
        max([low, *values]),
        _wrap(min([mask, *unsigned]), bits),
        _wrap(max([0, *unsigned]), bits),
        _wrap(and_, bits),
        _wrap(or_, bits),
        _wrap(xor, bits),
    ]


def _initial_kinds(dtype: type[np.signedinteger]) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.array([0, 0, info.max, info.min, -1, 0, -1, 0, 0], dtype)


def test_every_atomic_kind_on_i32_and_i64(program: Program, rng: np.random.Generator) -> None:
    n = 5000
    v32 = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    v64 = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64, endpoint=True)
    v32[:3] = [0, -1, 2**31 - 1]  # -1 is the largest unsigned value, 0 the smallest
    v64[:3] = [0, -1, 2**63 - 1]
    r32, r64 = program.call("kinds", [v32, v64, _initial_kinds(np.int32), _initial_kinds(np.int64)])
    assert r32.tolist() == _expected_kinds(v32.tolist(), 32)
    assert r64.tolist() == _expected_kinds(v64.tolist(), 64)
    # unsigned and signed extremes differ here: a small positive minimum, a negative maximum
    positive32 = rng.integers(1, 2**20, n).astype(np.int32)
    positive32[17] = 5
    negative64 = -rng.integers(1, 2**40, n, dtype=np.int64)
    negative64[18] = -1
    r32, r64 = program.call("kinds", [positive32, negative64, _initial_kinds(np.int32), _initial_kinds(np.int64)])
    assert r32[4] == positive32.min()
    assert r64[5] == -1
    assert r64[3] == -1
    assert r64[2] == negative64.min()


def test_exchange_and_compare_and_swap(program: Program, rng: np.random.Generator) -> None:
    n, k = 3000, 7
    xs = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    big = 2**40
    results = program.call(
        "exchange",
        [
            xs,
            np.array([-5], np.int32),
            np.array([-6], np.int64),
            np.full(k, -1, np.int32),
            np.full(k, -1, np.int64),
            np.array([11], np.int64),
        ],
    )
    slot32, olds32, slot64, olds64, claims32, was32, claims64, was64, total = results
    ids = np.arange(n)
    # xchg: the old values and the last value stored are the initial value and every work-item's value, each once
    assert sorted([*olds32.tolist(), int(slot32[0])]) == [-5, *range(n)]
    assert sorted([*olds64.tolist(), int(slot64[0])]) == [-6, *(big + ids).tolist()]
    # cmpxchg: one claim per slot saw it free; the others saw the winner, which the slot holds
    for claims, was, offset in ((claims32, was32, 0), (claims64, was64, big)):
        for s in range(k):
            mine = ids % k == s
            winners = ids[mine & (was == -1)]
            assert len(winners) == 1, (s, winners)
            assert claims[s] == winners[0] + offset
            assert (was[mine & (was != -1)] == claims[s]).all()
    # a compare-and-swap loop adds every value exactly once
    assert total.tolist() == [11 + int(xs.sum())]


def test_local_atomics_barriers_and_ordered_local_accesses(program: Program, rng: np.random.Generator) -> None:
    groups = 40
    vals = rng.integers(-(2**31), 2**31, 64 * groups, dtype=np.int64).astype(np.int32)
    vals[64:128] = 19  # one group whose values all fall in bin 3
    hist, mins, nxt = program.call("groups", [vals])
    per_group = vals.reshape(groups, 64)
    expected = np.stack([np.bincount(row & 15, minlength=16) for row in per_group]).astype(np.int32)
    np.testing.assert_array_equal(hist.reshape(groups, 16), expected)
    assert hist.reshape(groups, 16)[1, 3] == 64
    np.testing.assert_array_equal(mins, per_group.view(np.uint32).min(axis=1).view(np.int32))
    np.testing.assert_array_equal(nxt, np.roll(per_group, -1, axis=1).ravel())


def test_acquire_release_and_fences(program: Program, rng: np.random.Generator) -> None:
    for n in (1, 1000):
        xs = rng.integers(-(2**50), 2**50, n, dtype=np.int64)
        data, flags, out = program.call("ordered", [xs])
        np.testing.assert_array_equal(data, xs)
        np.testing.assert_array_equal(flags, 3 * xs)
        np.testing.assert_array_equal(out, 4 * xs)


def _bit_counts(value: int, bits: int) -> tuple[int, int, int]:
    u = value % 2**bits
    trailing = bits if u == 0 else (u & -u).bit_length() - 1
    return trailing, bits - u.bit_length(), bin(u).count("1")


def test_bit_counts_on_i32_and_i64(program: Program, rng: np.random.Generator) -> None:
    special32 = [0, 1, -1, 2**31 - 1, -(2**31), 2**16, 6, -8, 0x7000_0000]
    special64 = [0, 1, -1, 2**63 - 1, -(2**63), 2**32, 2**40, 6, -8]
    n = 2000
    as_ = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    bs = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64, endpoint=True)
    as_[: len(special32)] = special32
    bs[: len(special64)] = special64
    as_[100:200] <<= rng.integers(0, 31, 100).astype(np.int32)  # many trailing zeros
    bs[100:200] >>= rng.integers(0, 63, 100)  # many leading zeros (or ones)
    t32, l32, p32, t64, l64, p64 = program.call("bits", [as_, bs])
    want32 = np.array([_bit_counts(v, 32) for v in as_.tolist()]).T
    want64 = np.array([_bit_counts(v, 64) for v in bs.tolist()]).T
    for got, want, name in zip(
        (t32, l32, p32, t64, l64, p64), [*want32, *want64], ("tz32", "lz32", "pop32", "tz64", "lz64", "pop64")
    ):
        np.testing.assert_array_equal(got, want, err_msg=name)


MIN_MAX = """
    %x = kernel.load %xs[%gid] : !kernel.buffer<global, i32> -> i32
    %lo = arith.minsi %x, %one : i32
    %hi = arith.maxsi %lo, %x : i32
    %w = kernel.load %ws[%gid] : !kernel.buffer<global, i64> -> i64
    %wide = arith.minsi %w, %w : i64
    %w2 = arith.maxsi %wide, %w : i64
    %u = arith.minui %x, %one : i32
    kernel.store %hi, %xs[%gid] : i32, !kernel.buffer<global, i32>
    kernel.store %w2, %ws[%gid] : i64, !kernel.buffer<global, i64>
    kernel.store %u, %xs[%gid] : i32, !kernel.buffer<global, i32>
"""


def test_signed_min_max_of_int_are_inline_ptx_on_nvidia() -> None:
    """NVIDIA's OpenCL compiler drops the negation in `acc = min(acc, min(-x, y))` (OpenCLSpelling.ptx_min_max):
    on that target signed i32 min/max go through `min.s32`/`max.s32`; i64 and unsigned ones, which it compiles
    right, stay ternaries, as does every min/max on the other targets."""
    nvidia = opencl_source(kernel_module(MIN_MAX, "nvidia"))
    assert 'asm("min.s32 %0, %1, %2;"' in nvidia
    assert "const int lo = (int)soac_min_s32(x, 1);" in nvidia
    assert "const int hi = (int)soac_max_s32(lo, x);" in nvidia
    assert "const long w2 = wide > w ? wide : w;" in nvidia
    assert "const int u = (uint)x < (uint)1 ? x : 1;" in nvidia
    for target in ("generic", "cpu"):
        source = opencl_source(kernel_module(MIN_MAX, target))
        assert "soac_m" not in source
        assert "const int lo = x < 1 ? x : 1;" in source
    assert "asm(" not in opencl_source(kernel_module("%z = arith.addi %one, %one : i32", "nvidia"))


def test_float_atomic_add_is_a_compare_and_swap_loop() -> None:
    source = opencl_source(
        kernel_module(
            "%f = arith.constant 1.5 : f32\n    %old = kernel.atomic add %fs[%gid], %f : !kernel.buffer<global, f32>, f32"
        )
    )
    assert "inline float soac_atomic_add_f32_global(volatile __global float *p, float v) {" in source
    assert "atomic_cmpxchg((volatile __global uint *)p, old.u, next.u)" in source
    assert "const float old = soac_atomic_add_f32_global(&fs[gid], 1.5f);" in source
    assert "soac_atomic_add_f32_local" not in source
