"""Running soac programs on OpenCL devices (a GPU, or the CPU through PoCL) with pyopencl.

    from soac.lowering.runtime import compile_module, run_function

    results = run_function(module, "main", [xs, np.float32(0)])          # like soac.interpreter
    program = compile_module(module)                                       # compile once ...
    results = program.call("main", [xs, np.float32(0)], {"suff_outer_par_0": 1})  # ... call often

`compile_module` lowers the module with soac-to-kernel (unless it already is
lowered), prints its kernels as one OpenCL C source and builds it once per
device (cached by source hash and device). `call` runs the host functions with a
small evaluator: arrays live in device buffers, scalars on the host, and the
`kernel.*` host ops allocate, copy, launch and read back.

Run-time errors are the interpreter's: a failing check raises `ProgramError`
(both an `OpenCLRuntimeError` and the interpreter's `SoacRuntimeError`) with
the message `file:line:col: 'soac.index': index 7 is out of bounds for
dimension 0 of size 5`. Host checks (`kernel.assert`, `kernel.check_eq`) fail
at once; kernels record their first failure in the call's error buffer, which
is read once when a call ends (and before any other error of the call is
reported, since a device failure comes first) and cleared only after a failure.

The device is the first GPU, else the PoCL CPU device, else the first device;
`device=` or the environment variable SOAC_OPENCL_DEVICE overrides the choice
with a `platform:device` index pair (`0:1`), `gpu`, `cpu`, or a piece of the
platform or device name (`pocl`, `nvidia`).
"""

from __future__ import annotations

import hashlib
import operator
import os
import tempfile
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyopencl as cl
from soac.interpreter.errors import SoacRuntimeError
from soac.lowering import kernel as kd
from soac.lowering.conversion.kernel_builder import DIVISION_PROBLEM, DIVISIONS, error_message
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.opencl.target import TARGETS, DeviceTarget, get_target
from soac.types import numpy_dtype
from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import FloatAttr, FunctionType, IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue


class OpenCLRuntimeError(Exception):
    """A failure while running a program on an OpenCL device."""


class OpenCLBuildError(OpenCLRuntimeError):
    """The generated OpenCL C did not compile; the message holds the build log and where the source was saved."""


class AllocationError(OpenCLRuntimeError):
    """A device buffer could not be allocated; the message says how much was asked."""


class ProgramError(OpenCLRuntimeError, SoacRuntimeError):
    """The program failed a run-time check, as in the interpreter: `file:line:col: 'op.name': problem`."""


class SizeMismatchError(ProgramError):
    """Array sizes that a SOAC needs to agree do not (caught before any launch that uses them)."""


def dtype_of(t: Attribute) -> np.dtype[Any]:
    if (dtype := numpy_dtype(t)) is None:
        raise OpenCLRuntimeError(f"no numpy type for {t}")
    return dtype


# ---------------------------------------------------------------------------
# Devices and the program cache
# ---------------------------------------------------------------------------


def _all_devices() -> list[cl.Device]:
    try:
        platforms = cl.get_platforms()
    except cl.Error as error:
        raise OpenCLRuntimeError(
            f"no OpenCL platform found ({error}); install pocl-binary-distribution for a CPU device"
        ) from None
    return [d for p in platforms for d in p.get_devices()]


def choose_device(spec: str | None = None) -> cl.Device:
    """The device to run on: `spec`, else $SOAC_OPENCL_DEVICE, else the first GPU, else PoCL, else the first device."""
    spec = spec or os.environ.get("SOAC_OPENCL_DEVICE") or None
    devices = _all_devices()
    if not devices:
        raise OpenCLRuntimeError("no OpenCL device found")
    if spec is None:
        if gpus := [d for d in devices if d.type & cl.device_type.GPU]:
            return gpus[0]
        if not (pocl := [d for d in devices if "portable computing language" in d.platform.name.lower()]):
            return devices[0]
        if (device := _first_usable(pocl)) is None:
            raise OpenCLRuntimeError(
                "no PoCL installation here can compile OpenCL C for this CPU "
                f"({pocl[0].platform.version}: {_build_failure(pocl[0])}); "
                "on Debian or Ubuntu, `apt-get install pocl-opencl-icd` adds a PoCL built on a newer LLVM"
            )
        return device
    if ":" in spec and all(part.isdigit() for part in spec.split(":")):
        p, d = (int(part) for part in spec.split(":"))
        try:
            return cl.get_platforms()[p].get_devices()[d]
        except IndexError:
            raise OpenCLRuntimeError(f"SOAC_OPENCL_DEVICE={spec}: no device {d} on platform {p}") from None
    wanted = spec.lower()
    kinds = {"gpu": cl.device_type.GPU, "cpu": cl.device_type.CPU}
    matches = [
        device
        for device in devices
        if (wanted in kinds and device.type & kinds[wanted])
        or wanted in device.name.lower()
        or wanted in device.platform.name.lower()
        or (wanted == "pocl" and "portable" in device.platform.name.lower())
    ]
    if matches:  # a PoCL that cannot compile for this CPU is the last choice
        return _first_usable(matches) or matches[0]
    names = ", ".join(f"{d.platform.name}: {d.name}" for d in devices)
    raise OpenCLRuntimeError(f"no OpenCL device matches '{spec}' (devices: {names})")


_BUILD_FAILURES: dict[int, str] = {}


def _build_failure(device: cl.Device) -> str:
    """Why `device` cannot build a trivial kernel ("" if it can): a PoCL whose LLVM predates the CPU fails them all."""
    key = device.int_ptr
    if key not in _BUILD_FAILURES:
        try:
            cl.Program(_context(device)[0], "__kernel void probe(__global int *a) { a[0] = 1; }").build()
            _BUILD_FAILURES[key] = ""
        except cl.Error as error:
            lines = [line for line in str(error).splitlines() if "error:" in line]
            _BUILD_FAILURES[key] = lines[0].strip() if lines else str(error).splitlines()[0]
    return _BUILD_FAILURES[key]


def _first_usable(devices: Sequence[cl.Device]) -> cl.Device | None:
    """The first of `devices` that is not a CPU device which fails to compile a trivial kernel."""
    return next((d for d in devices if not (d.type & cl.device_type.CPU) or not _build_failure(d)), None)


_CONTEXTS: dict[int, tuple[cl.Context, cl.CommandQueue]] = {}
_PROGRAMS: dict[tuple[str, int], cl.Program] = {}


def _context(device: cl.Device) -> tuple[cl.Context, cl.CommandQueue]:
    key = device.int_ptr
    if key not in _CONTEXTS:
        context = cl.Context([device])
        _CONTEXTS[key] = (context, cl.CommandQueue(context, device))
    return _CONTEXTS[key]


def build_program(source: str, device: cl.Device) -> cl.Program:
    """Build `source` for `device`, once per (source hash, device)."""
    digest = hashlib.sha256(source.encode()).hexdigest()
    key = (digest, device.int_ptr)
    if (program := _PROGRAMS.get(key)) is not None:
        return program
    context, _ = _context(device)
    try:
        program = cl.Program(context, source).build()
    except cl.Error as error:
        path = os.path.join(tempfile.gettempdir(), f"soac-{digest[:16]}.cl")
        with open(path, "w") as f:
            f.write(source)
        raise OpenCLBuildError(
            f"building the generated OpenCL C failed on {device.name}; source saved to {path}\n{error}"
        ) from None
    _PROGRAMS[key] = program
    return program


# ---------------------------------------------------------------------------
# Host-side evaluation
# ---------------------------------------------------------------------------


@dataclass
class DeviceArray:
    """A device buffer of `size` elements of `dtype`."""

    buffer: cl.Buffer
    dtype: np.dtype[Any]
    size: int


class BufferPool:
    """Buffers of dead `DeviceArray`s, kept for reuse by later allocations of the same size.

    On a CPU a fresh buffer is fresh host memory: the kernel that first writes it takes a page fault per
    4 KiB page (about 25 ms for 64 MiB on PoCL, five times the scan that writes it); on a GPU the driver
    allocates device memory on first use, again in every iteration of a host loop that makes arrays. Like the caching
    allocators of CuPy and torch, `Program.alloc` takes a buffer of the same byte size from here when
    there is one, and a finaliser gives it back when its array dies. The queue is in order, so a kernel
    that still uses the old array runs before any use of the new one. At most `limit` bytes are kept.
    """

    def __init__(self, limit: int):
        self.limit = limit
        self.kept = 0
        self.free: dict[int, list[cl.Buffer]] = {}

    def take(self, nbytes: int) -> cl.Buffer | None:
        if buffers := self.free.get(nbytes):
            self.kept -= nbytes
            return buffers.pop()
        return None

    def give(self, nbytes: int, buffer: cl.Buffer) -> None:
        if self.kept + nbytes <= self.limit:
            self.free.setdefault(nbytes, []).append(buffer)
            self.kept += nbytes


def _storage(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(np.uint8) if dtype == np.bool_ else dtype


def _unsigned(x: Any) -> Any:
    return x.astype(np.dtype(f"u{x.dtype.itemsize}")) if x.dtype.kind == "i" else x


def _wrap(op: Operation, value: Any) -> Any:
    return np.asarray(value).astype(dtype_of(op.results[0].type))[()]


def _ceildiv_unsigned(a: Any, b: Any) -> Any:
    """`ceil(a / b)` of unsigned numbers as `a / b + (a % b != 0)`: `(a + b - 1) / b` would wrap for large `a`."""
    return a // b + (a % b != 0).astype(a.dtype)


_BINARY: dict[type[Operation], Callable[[Any, Any], Any]] = {
    arith.AddiOp: operator.add,
    arith.SubiOp: operator.sub,
    arith.MuliOp: operator.mul,
    arith.AddfOp: operator.add,
    arith.SubfOp: operator.sub,
    arith.MulfOp: operator.mul,
    arith.DivfOp: operator.truediv,
    arith.AndIOp: operator.and_,
    arith.OrIOp: operator.or_,
    arith.XOrIOp: operator.xor,
    arith.ShLIOp: operator.lshift,
    arith.ShRSIOp: operator.rshift,
    arith.DivSIOp: lambda a, b: np.sign(a) * np.sign(b) * (abs(a) // abs(b)),
    arith.RemSIOp: np.fmod,
    arith.DivUIOp: lambda a, b: _unsigned(a) // _unsigned(b),
    arith.RemUIOp: lambda a, b: _unsigned(a) % _unsigned(b),
    arith.ShRUIOp: lambda a, b: _unsigned(a) >> _unsigned(b),
    arith.MinUIOp: lambda a, b: min(_unsigned(a), _unsigned(b)),
    arith.MaxUIOp: lambda a, b: max(_unsigned(a), _unsigned(b)),
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
    arith.MaximumfOp: np.maximum,
    arith.MinimumfOp: np.minimum,
    arith.MaxnumfOp: np.fmax,
    arith.MinnumfOp: np.fmin,
    arith.FloorDivSIOp: operator.floordiv,
    arith.CeilDivSIOp: lambda a, b: -((-a) // b),
    arith.CeilDivUIOp: lambda a, b: _ceildiv_unsigned(_unsigned(a), _unsigned(b)),
    mathd.PowFOp: np.power,
    mathd.Atan2Op: np.arctan2,
    mathd.CopySignOp: np.copysign,
}
_UNARY: dict[type[Operation], Callable[[Any], Any]] = {
    arith.NegfOp: operator.neg,
    mathd.ExpOp: np.exp,
    mathd.LogOp: np.log,
    mathd.SqrtOp: np.sqrt,
    mathd.SinOp: np.sin,
    mathd.CosOp: np.cos,
    mathd.TanhOp: np.tanh,
    mathd.AbsFOp: np.abs,
    mathd.AbsIOp: np.abs,
    mathd.FloorOp: np.floor,
    mathd.CeilOp: np.ceil,
    mathd.Log2Op: np.log2,
    mathd.Log10Op: np.log10,
    mathd.Exp2Op: np.exp2,
    mathd.TruncOp: np.trunc,
    mathd.RsqrtOp: lambda x: 1 / np.sqrt(x),
}
_CMPI = {
    "eq": operator.eq,
    "ne": operator.ne,
    "slt": operator.lt,
    "sle": operator.le,
    "sgt": operator.gt,
    "sge": operator.ge,
    "ult": operator.lt,
    "ule": operator.le,
    "ugt": operator.gt,
    "uge": operator.ge,
}


def _cmpf(predicate: str, a: Any, b: Any) -> bool:
    unordered = bool(np.isnan(a) or np.isnan(b))
    base = predicate[1:] if predicate[0] in "ou" else predicate
    if predicate == "ord":
        return not unordered
    if predicate == "uno":
        return unordered
    if predicate in ("true", "false"):
        return predicate == "true"
    result = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": a != b}[base]
    return bool(result) if predicate[0] == "o" else unordered or bool(result)


def eval_scalar(op: Operation, args: list[Any]) -> Any:
    """Evaluate a scalar arith/math op on the host."""
    kind = type(op)
    if isinstance(op, arith.ConstantOp):
        value = op.value
        assert isinstance(value, IntegerAttr | FloatAttr)
        return _wrap(op, value.value.data)
    if kind in _BINARY:
        return _wrap(op, _BINARY[kind](*args))
    if kind in _UNARY:
        return _wrap(op, _UNARY[kind](*args))
    if isinstance(op, arith.CmpiOp):
        predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        a, b = args
        if predicate.startswith("u"):
            a, b = _unsigned(np.asarray(a)), _unsigned(np.asarray(b))
        return np.bool_(_CMPI[predicate](a, b))
    if isinstance(op, arith.CmpfOp):
        return np.bool_(_cmpf(arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data], *args))
    if isinstance(op, arith.SelectOp):
        return args[1] if args[0] else args[2]
    if isinstance(op, mathd.FmaOp):
        return _wrap(op, args[0] * args[1] + args[2])
    if isinstance(op, arith.ExtUIOp | arith.UIToFPOp):
        return _wrap(op, _unsigned(np.asarray(args[0])))
    if len(op.operands) == 1 and len(op.results) == 1 and op.name.startswith("arith."):
        return _wrap(op, args[0])  # casts
    raise OpenCLRuntimeError(f"the host cannot evaluate '{op.name}'")


def scalar_evaluator(op: Operation) -> Callable[[list[Any]], Any] | None:
    """`eval_scalar` for `op` with what depends only on the op worked out once (a host function's index arithmetic
    runs on every call); None where there is nothing to gain."""
    kind = type(op)
    if isinstance(op, arith.ConstantOp):
        value = eval_scalar(op, [])
        return lambda args: value
    function = _BINARY.get(kind) or _UNARY.get(kind)
    if function is None:
        return None
    dtype = dtype_of(op.results[0].type)
    if not isinstance(op, DIVISIONS):
        return lambda args: np.asarray(function(*args)).astype(dtype)[()]
    message = error_message(op, DIVISION_PROBLEM).format()

    def divide(args: list[Any]) -> Any:
        if not args[1]:
            raise ProgramError(message)
        return np.asarray(function(*args)).astype(dtype)[()]

    return divide


class Program:
    """A lowered module built for one device; `call` runs its functions on numpy inputs."""

    def __init__(self, module: ModuleOp, device: cl.Device):
        self.module = module
        self.device = device
        self.context, self.queue = _context(device)
        self.source = opencl_source(module)
        limit = device.global_mem_size // 8
        self.pool = BufferPool(min(limit, 2**31) if device.type & cl.device_type.CPU else limit)
        """Reused buffers of dead arrays (see `BufferPool`): a loop whose body makes a new array each iteration (a
        Jacobi solver's stencil, a radix sort's pass) takes the buffer of the array two iterations back instead of a new one."""
        self.kernels: dict[str, cl.Kernel] = {}
        if any(isinstance(op, kd.FuncOp) for op in module.body.block.ops):
            program = build_program(self.source, device)
            self.kernels = {k.function_name: k for k in program.all_kernels()}
        self.functions = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, func.FuncOp)}
        self.thresholds: dict[str, int] = {}
        self.error_table: dict[int, kd.DeviceAssertOp] = {
            op.error_code: op for op in module.walk() if isinstance(op, kd.DeviceAssertOp)
        }
        """The device checks by code: what a call's error buffer refers to."""
        self.errors: DeviceArray | None = None
        """The error buffer of every call: all zeros between calls (it is cleared only after a failure)."""
        self.errors_unread = False
        self.scalar_ops: dict[Operation, Callable[[list[Any]], Any] | None] = {}
        """Host arith/math ops evaluated before, with their evaluators made once (see `scalar_evaluator`)."""
        if any(isinstance(op, kd.ErrorBufferOp) for op in module.walk()):
            self.errors = self.upload(_NO_ERROR)

    # -- calls ------------------------------------------------------------------

    def call(self, name: str, args: Sequence[object], thresholds: Mapping[str, int] | None = None) -> tuple[Any, ...]:
        function = self.functions.get(name)
        if function is None:
            known = ", ".join(f"@{f}" for f in self.functions) or "none"
            raise OpenCLRuntimeError(f"no function @{name} in the module (functions: {known})")
        source_type = function.attributes.get("soac.source_type", function.function_type)
        assert isinstance(source_type, FunctionType)
        inputs = source_type.inputs.data
        if len(args) != len(inputs):
            raise OpenCLRuntimeError(f"@{name} takes {len(inputs)} arguments, got {len(args)}")
        self.thresholds = dict(thresholds or {})
        flat: list[Any] = []
        for k, (t, arg) in enumerate(zip(inputs, args)):
            flat.extend(self._bind(name, k, t, arg))
        if self.errors is not None and self.errors_unread:  # an interrupted call may have left a failure
            cl.enqueue_copy(self.queue, self.errors.buffer, _NO_ERROR, is_blocking=False)
        self.errors_unread = True
        try:
            with np.errstate(all="ignore"):
                results = self.run_block(function.body.block, flat)
        except Exception:
            self.raise_device_error()  # a kernel failing first is the cause
            raise
        self.raise_device_error()
        self.queue.finish()
        return tuple(self._unbind(source_type.outputs.data, results))

    def raise_device_error(self) -> None:
        """Raise the first failure that the call's kernels recorded, if any (waits for them)."""
        if self.errors is None:
            return
        recorded = np.empty(kd.ERROR_SLOTS, np.int64)
        cl.enqueue_copy(self.queue, recorded, self.errors.buffer, is_blocking=True)
        self.errors_unread = False
        code = int(recorded[:1].view(np.int32)[0])
        if code == 0:
            return
        cl.enqueue_copy(self.queue, self.errors.buffer, _NO_ERROR, is_blocking=False)
        check = self.error_table.get(code)
        if check is None:
            raise OpenCLRuntimeError(f"a kernel failed with the unknown error code {code}")
        values = [int(v) for v in recorded[1 : 1 + len(check.values)]]
        raise ProgramError(check.message.data.format(*values)) from None

    def _bind(self, name: str, k: int, t: Attribute, arg: object) -> list[Any]:
        try:
            from soac.interpreter.core import convert_argument

            value = convert_argument(name, k, t, arg)
        except ImportError:
            value = np.asarray(arg, dtype=dtype_of(t.get_element_type() if isinstance(t, TensorType) else t))
        if not isinstance(t, TensorType):
            return [value[()] if isinstance(value, np.ndarray) else value]
        array = np.ascontiguousarray(value).astype(_storage(value.dtype), copy=False)
        buffer = self.upload(array)
        return [buffer, *(np.int64(d) for d in value.shape)]

    def upload(self, array: np.ndarray) -> DeviceArray:
        self._check_size(array.nbytes, "an input array")
        flags = cl.mem_flags.READ_WRITE
        if array.size:
            buffer = cl.Buffer(self.context, flags | cl.mem_flags.COPY_HOST_PTR, hostbuf=array)
        else:
            buffer = cl.Buffer(self.context, flags, max(array.itemsize, 1))
        return DeviceArray(buffer, array.dtype, array.size)

    def _unbind(self, types: Sequence[Attribute], flat: list[Any]) -> list[Any]:
        results: list[Any] = []
        position = 0
        for t in types:
            if not isinstance(t, TensorType):
                results.append(flat[position])
                position += 1
                continue
            rank = t.get_num_dims()
            array: DeviceArray = flat[position]
            shape = tuple(int(d) for d in flat[position + 1 : position + 1 + rank])
            position += 1 + rank
            dtype = dtype_of(t.get_element_type())
            host = np.empty(int(np.prod(shape, dtype=np.int64)), dtype=_storage(dtype))
            if host.size:
                cl.enqueue_copy(self.queue, host, array.buffer, is_blocking=True)
            results.append(host.astype(dtype, copy=False).reshape(shape))
        return results

    # -- the host evaluator -----------------------------------------------------

    def run_block(self, block: Block, args: Sequence[Any], env: dict[SSAValue, Any] | None = None) -> list[Any]:
        """Run `block`; `env` holds the values of enclosing blocks (a new one per function call)."""
        env = {} if env is None else env
        env.update(zip(block.args, args, strict=True))
        for op in block.ops:
            if isinstance(op, func.ReturnOp | scf.YieldOp):
                return [env[v] for v in op.operands]
            results = self.run_op(op, [env[v] for v in op.operands], env)
            env.update(zip(op.results, results))
        return []

    def run_op(self, op: Operation, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:  # noqa: C901
        if (evaluate := self.scalar_ops.get(op)) is not None:
            return [evaluate(args)]
        if isinstance(op, kd.AllocOp):
            return [self.alloc(op, int(args[0]))]
        if isinstance(op, kd.LaunchOp):
            self.launch(op, args)
            return []
        if isinstance(op, kd.ReadOp):
            return [self.read(args[0], int(args[1]), op)]
        if isinstance(op, kd.WriteOp):
            self.write(args[1], int(args[2]), args[0])
            return []
        if isinstance(op, kd.CopyOp):
            self.copy(*args)
            return []
        if isinstance(op, kd.ThresholdOp):
            return [np.int64(self.thresholds.get(op.threshold_name, op.default_value))]
        if isinstance(op, kd.CheckEqOp):
            if int(args[0]) != int(args[1]):
                raise SizeMismatchError(f"{op.message.data} ({int(args[0])} != {int(args[1])})")
            return []
        if isinstance(op, kd.AssertOp):
            if not args[0]:
                raise ProgramError(op.message.data.format(*(int(v) for v in args[1:])))
            return []
        if isinstance(op, kd.ErrorBufferOp):
            assert self.errors is not None
            return [self.errors]
        if isinstance(op, scf.IfOp):
            region = op.true_region if args[0] else op.false_region
            return self.run_block(region.block, [], env) if region.blocks else []
        if isinstance(op, scf.ForOp):
            lb, ub, step, *carried = args
            for i in range(int(lb), int(ub), int(step)):
                carried = self.run_block(op.body.block, [np.int64(i), *carried], env)
            return carried
        if isinstance(op, scf.WhileOp):
            return self.run_while(op, args, env)
        if isinstance(op, func.CallOp):
            callee = self.functions[op.callee.root_reference.data]
            return self.run_block(callee.body.block, args)
        if isinstance(op, DIVISIONS) and not args[1]:
            raise ProgramError(error_message(op, DIVISION_PROBLEM).format())
        result = eval_scalar(op, args)
        self.scalar_ops[op] = scalar_evaluator(op)
        return [result]

    def run_while(self, op: scf.WhileOp, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
        state = args
        while True:
            env.update(zip(op.before_region.block.args, state))
            forwarded: list[Any] = []
            for inner in op.before_region.block.ops:
                if isinstance(inner, scf.ConditionOp):
                    forwarded = [env[v] for v in inner.args]
                    if not env[inner.condition]:
                        return forwarded
                    break
                env.update(zip(inner.results, self.run_op(inner, [env[v] for v in inner.operands], env)))
            state = self.run_block(op.after_region.block, forwarded, env)

    # -- device operations --------------------------------------------------------

    def _check_size(self, nbytes: int, what: str) -> None:
        limit = self.device.max_mem_alloc_size
        if nbytes > limit:
            raise AllocationError(
                f"allocating {nbytes} bytes for {what} failed: {self.device.name} allows at most {limit} bytes per buffer"
            )

    def alloc(self, op: kd.AllocOp, size: int) -> DeviceArray:
        """A buffer for `op`; with SOAC_POISON=1 (the tests set it) filled with 0xA5 bytes, so that a kernel that
        reads what nothing wrote gives the same wrong answer on every run and device, not what the memory held."""
        element = op.result.type.element_type  # pyright: ignore[reportAttributeAccessIssue]
        dtype = _storage(dtype_of(element))
        nbytes = size * dtype.itemsize

        def what() -> str:  # printing the type costs more than allocating: only on failure
            return f"%{op.result.name_hint or 'buffer'} ({size} elements of {element})"

        if nbytes > self.device.max_mem_alloc_size:
            self._check_size(nbytes, what())
        nbytes = max(nbytes, dtype.itemsize)
        buffer = self.pool.take(nbytes) if self.pool is not None else None
        if buffer is None:
            try:
                buffer = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, nbytes)
            except cl.Error as error:
                raise AllocationError(f"allocating {nbytes} bytes for {what()} failed: {error}") from None
        array = DeviceArray(buffer, dtype, size)
        if os.environ.get("SOAC_POISON", "") not in ("", "0"):
            cl.enqueue_fill_buffer(self.queue, buffer, np.uint8(0xA5), 0, nbytes)
        if self.pool is not None:
            weakref.finalize(array, self.pool.give, nbytes, buffer)
        return array

    def launch(self, op: kd.LaunchOp, args: list[Any]) -> None:
        *kernel_args, global_size, local_size = args
        if int(global_size) == 0:
            return
        kernel = self.kernels[op.kernel_name]
        values = [a.buffer if isinstance(a, DeviceArray) else _scalar_arg(a) for a in kernel_args]
        try:
            kernel(self.queue, (int(global_size),), (int(local_size),), *values)
        except cl.Error as error:
            raise OpenCLRuntimeError(
                f"launching {op.kernel_name} (global {int(global_size)}, local {int(local_size)}) failed: {error}"
            ) from None

    def read(self, array: DeviceArray, index: int, op: kd.ReadOp) -> Any:
        host = np.empty(1, dtype=array.dtype)
        cl.enqueue_copy(self.queue, host, array.buffer, src_offset=index * array.dtype.itemsize, is_blocking=True)
        return host.astype(dtype_of(op.result.type))[0]

    def write(self, array: DeviceArray, index: int, value: Any) -> None:
        host = np.asarray([value]).astype(array.dtype)
        cl.enqueue_copy(self.queue, array.buffer, host, dst_offset=index * array.dtype.itemsize, is_blocking=True)

    def copy(self, count: Any, source: DeviceArray, source_offset: Any, dest: DeviceArray, dest_offset: Any) -> None:
        size = source.dtype.itemsize
        if int(count) == 0:
            return
        cl.enqueue_copy(
            self.queue,
            dest.buffer,
            source.buffer,
            byte_count=int(count) * size,
            src_offset=int(source_offset) * size,
            dst_offset=int(dest_offset) * size,
        )


_NO_ERROR = np.zeros(kd.ERROR_SLOTS, np.int64)


def _scalar_arg(value: Any) -> Any:
    array = np.asarray(value)
    return array.astype(np.uint8)[()] if array.dtype == np.bool_ else array[()]


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def lower_module(
    module: ModuleOp,
    group_size: int = 256,
    max_groups: int = 1024,
    scan: str = "",
    contiguous: bool | None = None,
    target: str = "generic",
) -> ModuleOp:
    """A lowered copy of `module` (the module itself if it is lowered already or has neither soac ops nor arrays); see
    `SoacToKernelPass` for the options (`scan` and `contiguous` default to the target's)."""
    if "kernel.target" in module.attributes or not any(_needs_lowering(op) for op in module.walk()):
        return module
    from soac.lowering.conversion.soac_to_kernel import SoacToKernelPass

    lowered = module.clone()
    layout = "" if contiguous is None else ("contiguous" if contiguous else "strided")
    SoacToKernelPass(target=target, group_size=group_size, max_groups=max_groups, scan=scan, layout=layout).apply(
        Context(), lowered
    )
    return lowered


def _needs_lowering(op: Operation) -> bool:
    """A soac op, or an op with arrays (a function taking or returning one, `tensor.dim`): the host holds buffers."""
    if op.dialect_name() == "soac":
        return True
    types = list(op.function_type.inputs) + list(op.function_type.outputs) if isinstance(op, func.FuncOp) else []
    return any(isinstance(t, TensorType) for t in [*types, *op.operand_types, *op.result_types])


def target_for(device: cl.Device) -> DeviceTarget:
    """The target of `device` ($SOAC_TARGET overrides): `nvidia` on NVIDIA's platform, `cpu` on CPUs, else `generic`."""
    if chosen := os.environ.get("SOAC_TARGET"):
        return get_target(chosen)
    if "nvidia" in device.platform.name.lower():
        return TARGETS["nvidia"]
    return TARGETS["cpu"] if device.type & cl.device_type.CPU else TARGETS["generic"]


def scan_strategy_for(device: cl.Device, target: DeviceTarget | None = None) -> str:
    """The device-wide scan for `device` ($SOAC_SCAN overrides): its target's (single-pass look-back on NVIDIA,
    `chunked` on CPUs, which also takes reductions, reduce-then-scan elsewhere)."""
    return os.environ.get("SOAC_SCAN") or (target or target_for(device)).scan


def compile_module(
    module: ModuleOp,
    device: str | cl.Device | None = None,
    group_size: int | None = None,
    max_groups: int | None = None,
    scan: str | None = None,
    contiguous: bool | None = None,
    target: str | None = None,
) -> Program:
    """Lower `module` and build its kernels for a device (see `choose_device`). `target` overrides `target_for`, `scan`
    `scan_strategy_for`, `contiguous` (grid-stride kernels over contiguous ranges per work-item) the target's layout."""
    chosen = device if isinstance(device, cl.Device) else choose_device(device)
    is_cpu = bool(chosen.type & cl.device_type.CPU)
    group = group_size or (64 if is_cpu else 256)
    groups = max_groups or (4 * chosen.max_compute_units if is_cpu else 1024)
    device_target = get_target(target) if target else target_for(chosen)
    scan = scan or scan_strategy_for(chosen, device_target)
    lowered = lower_module(module, group, groups, scan, contiguous, device_target.name)
    return Program(lowered, chosen)


_COMPILED: dict[tuple[int, tuple[tuple[str, int], ...]], tuple[ModuleOp, Program]] = {}
"""Programs by module and tile sizes (thresholds are read at run time; tile sizes shape the kernels)."""


def run_function(
    module: ModuleOp, name: str, args: Sequence[object], thresholds: Mapping[str, int] | None = None
) -> tuple[Any, ...]:
    """Run `@name` of `module` on the OpenCL device, with the interpreter's signature and results."""
    from soac.passes.tile_sizes import tile_values, with_tile_sizes

    key = (id(module), tile_values(module, thresholds))
    cached = _COMPILED.get(key)
    if cached is None or cached[0] is not module:
        cached = (module, compile_module(with_tile_sizes(module, thresholds)))
        _COMPILED[key] = cached
    return cached[1].call(name, args, thresholds)
