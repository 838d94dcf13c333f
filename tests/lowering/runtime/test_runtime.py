"""The OpenCL runtime: compiling once, device choice, clear errors, the kernel dialect's verifiers."""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest
from soac.lowering.kernel import Kernel
from soac.lowering.runtime import (
    AllocationError,
    OpenCLBuildError,
    OpenCLRuntimeError,
    SizeMismatchError,
    build_program,
    choose_device,
    compile_module,
    run_function,
)
from soac.lowering.runtime import program as runtime
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

MAP2 = """
func.func @add(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs, %ys : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
    %s = arith.addf %x, %y : f32
    soac.yield %s : f32
  }
  func.return %r : tensor<?xf32>
}
"""


def test_run_function_matches_the_interpreter_signature(parse):
    module = parse(MAP2)
    xs, ys = np.arange(5, dtype=np.float32), np.ones(5, dtype=np.float32)
    (r,) = run_function(module, "add", [np.int64(5), xs, ys])
    np.testing.assert_array_equal(r, xs + ys)
    assert r.dtype == np.float32
    (again,) = run_function(module, "add", [5, xs, ys], thresholds={})
    np.testing.assert_array_equal(again, r)


def test_size_mismatch_is_caught_before_the_launch_with_its_location(parse):
    program = compile_module(parse(MAP2, "prog.mlir"))
    message = r"^prog.mlir:3:3: 'soac.map': width 5 does not match the outer size 4 of input #1$"
    with pytest.raises(SizeMismatchError, match=message):
        program.call("add", [np.int64(5), np.zeros(5, np.float32), np.zeros(4, np.float32)])


def test_a_profiling_queue_takes_the_place_of_the_devices_queue(parse):
    """A program given another queue (a benchmark's profiling queue) runs its kernels and its transfers on it, and so
    does every other program of the device: a result read back on another queue than the kernel that writes it
    could be read before the kernel ran (issue 28's wrong sorts in bench/sort.py)."""
    first, second = compile_module(parse(MAP2)), compile_module(parse(MAP2))
    before = first.queue
    profiling = cl.CommandQueue(first.context, first.device, properties=cl.command_queue_properties.PROFILING_ENABLE)
    try:
        first.queue = profiling
        assert first.queue is profiling
        assert second.queue is profiling
        assert first.memory.queue is profiling
        xs = np.arange(100_000, dtype=np.float32)
        (r,) = second.call("add", [np.int64(xs.size), xs, xs])
        np.testing.assert_array_equal(r, 2 * xs)
        with pytest.raises(ValueError, match="another context"):
            first.queue = cl.CommandQueue(cl.Context([first.device]), first.device)
    finally:
        first.queue = before
    assert second.queue is before


def test_compiled_source_is_cached_per_device(parse):
    a = compile_module(parse(MAP2))
    b = compile_module(parse(MAP2))
    assert a.source == b.source
    assert build_program(a.source, a.device) is build_program(b.source, b.device)
    assert "__kernel void add_map_0(" in a.source


def test_build_failure_shows_the_log_and_the_saved_source():
    device = choose_device()
    with pytest.raises(OpenCLBuildError, match=r"source saved to .*soac-.*\.cl") as info:
        build_program("__kernel void broken(__global float *x) { x[0] = undefined_name; }", device)
    path = str(info.value).split("source saved to ")[1].split("\n")[0]
    assert "undefined_name" in open(path).read()


def test_allocation_failure_says_how_much_was_asked(parse):
    iota = (
        "func.func @big(%n: index) -> tensor<?xi32> {\n  %r = soac.iota %n : tensor<?xi32>\n  func.return %r : tensor<?xi32>\n}"
    )
    program = compile_module(parse(iota))
    too_big = program.device.max_mem_alloc_size // 4 + 1
    with pytest.raises(AllocationError, match=rf"allocating {too_big * 4} bytes for %r"):
        program.call("big", [np.int64(too_big)])


def test_device_choice(monkeypatch):
    device = choose_device()
    assert device.type & (cl.device_type.GPU | cl.device_type.CPU)
    monkeypatch.setenv("SOAC_OPENCL_DEVICE", "0:0")
    assert choose_device().int_ptr == cl.get_platforms()[0].get_devices()[0].int_ptr
    monkeypatch.setenv("SOAC_OPENCL_DEVICE", "no-such-device")
    with pytest.raises(OpenCLRuntimeError, match="no OpenCL device matches 'no-such-device'"):
        choose_device()


def test_device_choice_skips_a_pocl_that_cannot_compile(monkeypatch):
    """The pyopencl wheel's PoCL (LLVM 14) fails every build on CPUs newer than its LLVM; another PoCL may work."""
    from types import SimpleNamespace

    def pocl(version: str) -> SimpleNamespace:
        platform = SimpleNamespace(name="Portable Computing Language", version=version)
        return SimpleNamespace(platform=platform, type=cl.device_type.CPU, int_ptr=id(platform), name="cpu")

    old, new = pocl("PoCL 3.0-rc2, LLVM 14"), pocl("PoCL 3.1, LLVM 15")
    failures = {old.int_ptr: "error: unknown target CPU 'generic'", new.int_ptr: ""}
    monkeypatch.delenv("SOAC_OPENCL_DEVICE", raising=False)
    monkeypatch.setattr(runtime, "_build_failure", lambda device: failures[device.int_ptr])
    monkeypatch.setattr(runtime, "_all_devices", lambda: [old, new])
    assert choose_device() is new
    assert choose_device("pocl") is new
    monkeypatch.setattr(runtime, "_all_devices", lambda: [old])
    message = r"no PoCL installation here can compile .*unknown target CPU 'generic'.*pocl-opencl-icd"
    with pytest.raises(OpenCLRuntimeError, match=message):
        choose_device()


def test_unknown_function(parse):
    with pytest.raises(OpenCLRuntimeError, match=r"no function @nope .*@add"):
        runtime.run_function(parse(MAP2), "nope", [])


# ---------------------------------------------------------------------------
# The kernel dialect: round trip and verifiers
# ---------------------------------------------------------------------------

KERNEL_IR = """builtin.module {
  kernel.func @k(%xs: !kernel.buffer<global, f32>, %cs: !kernel.buffer<global, i32>, %n: index) {
    %gid = kernel.global_id 0
    %lid = kernel.local_id 0
    %tile = kernel.local_alloc 64 : !kernel.buffer<local, f32>
    %x = kernel.load %xs[%gid] : !kernel.buffer<global, f32> -> f32
    kernel.store %x, %tile[%lid] : f32, !kernel.buffer<local, f32>
    kernel.barrier local global
    %one = arith.constant 1 : i32
    %old = kernel.atomic add %cs[%gid], %one : !kernel.buffer<global, i32>, i32
    kernel.return
  }
  func.func @host(%xs: !kernel.buffer<global, f32>, %n: index) -> f32 {
    %cs = kernel.alloc %n : !kernel.buffer<global, i32>
    %c0 = arith.constant 0 : index
    kernel.launch @k(%xs, %cs, %n : !kernel.buffer<global, f32>, !kernel.buffer<global, i32>, index) global %n local %n
    %s = kernel.read %xs[%c0] : !kernel.buffer<global, f32> -> f32
    kernel.write %s, %xs[%c0] : f32, !kernel.buffer<global, f32>
    kernel.copy %n from %xs[%c0] to %xs[%c0] : !kernel.buffer<global, f32>
    %t = kernel.threshold "suff" default 32768
    %u = kernel.threshold "suff_outer_par_0" default 32768 device "resident"
    kernel.check_eq %t, %n "sizes differ"
    func.return %s : f32
  }
}"""


def _kernel_context() -> Context:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    ctx.load_dialect(Kernel)
    return ctx


def test_kernel_dialect_round_trips():
    module = Parser(_kernel_context(), KERNEL_IR).parse_module()
    module.verify()
    assert str(module) == KERNEL_IR


@pytest.mark.parametrize(
    ("before", "after", "message"),
    [
        ("kernel.barrier local global", "kernel.barrier", "needs at least one fence flag"),
        ("%gid = kernel.global_id 0", "%gid = kernel.global_id 3", "dimension must be 0, 1 or 2"),
        (
            "kernel.store %x, %tile[%lid] : f32, !kernel.buffer<local, f32>",
            "kernel.store %lid, %tile[%lid] : index, !kernel.buffer<local, f32>",
            "value has type index but the buffer holds f32",
        ),
        (
            "global %n local %n",
            "global %n local %n\n    kernel.launch @k(%xs : !kernel.buffer<global, f32>) global %n local %n",
            "gets arguments",
        ),
        ("kernel.local_alloc 64", "kernel.local_alloc 0", "size must be positive"),
        (
            "%cs = kernel.alloc %n",
            "%c = kernel.alloc %n : !kernel.buffer<local, i32>\n    %cs = kernel.alloc %n",
            "expects a global buffer",
        ),
    ],
)
def test_kernel_dialect_verifiers(before, after, message):
    assert before in KERNEL_IR
    module = Parser(_kernel_context(), KERNEL_IR.replace(before, after, 1)).parse_module()
    with pytest.raises(VerifyException, match=message):
        module.verify()


CEILDIV = """
func.func @host(%a: i64, %b: i64) -> i64 {
  %r = arith.ceildivui %a, %b : i64
  func.return %r : i64
}
func.func @device(%as: tensor<?xi64>, %bs: tensor<?xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %as, %c0 : tensor<?xi64>
  %r = soac.map %n (%as, %bs : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> lambda(%a: i64, %b: i64) {
    %q = arith.ceildivui %a, %b : i64
    soac.yield %q : i64
  }
  func.return %r : tensor<?xi64>
}
"""


def test_unsigned_ceiling_division_does_not_wrap(parse):
    """`ceildivui` on the host and on the device, for dividends near 2**64 (where `a + b - 1` would wrap)."""
    from soac.interpreter import run_function as interpret

    module = parse(CEILDIV)
    pairs = [(7, 2), (6, 3), (0, 5), (-1, 2), (-1, 1), (-2, -1), (5, -1), (-3, 4)]
    program = compile_module(module)
    for a, b in pairs:
        want = (a % 2**64 + b % 2**64 - 1) // (b % 2**64)
        want = np.int64(np.uint64(want % 2**64).astype(np.int64))
        (host,) = program.call("host", [np.int64(a), np.int64(b)])
        (expected,) = interpret(module, "host", [np.int64(a), np.int64(b)])
        assert host == expected == want, (a, b)
    as_, bs = np.array([a for a, _ in pairs], np.int64), np.array([b for _, b in pairs], np.int64)
    (device,) = program.call("device", [as_, bs])
    (expected,) = interpret(module, "device", [as_, bs])
    np.testing.assert_array_equal(device, expected)
