"""Running soac programs on OpenCL devices (a GPU, or the CPU through PoCL) with pyopencl.

    from soac.lowering.runtime import compile_module, run_function

    results = run_function(module, "main", [xs, np.float32(0)])          # like soac.interpreter
    program = compile_module(module)                                       # compile once ...
    results = program.call("main", [xs, np.float32(0)], {"suff_outer_par_0": 1})  # ... call often

`compile_module` lowers the module with soac-to-kernel (unless it already is
lowered), prints its kernels as one OpenCL C source and builds it once per
device (cached by source hash and device). `call` runs a host function as its
plan, built once on the function's first call (`soac.lowering.runtime.host_plan`):
arrays live in device buffers, scalars on the host (integers as Python ints),
and the `kernel.*` host ops allocate, copy, launch and read back.

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

import dataclasses
import hashlib
import math
import os
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyopencl as cl
from soac.lowering import kernel as kd
from soac.lowering.conversion.options import ENVIRONMENT, LoweringOptions, lowering_options, one_warp_problem
from soac.lowering.kernel.target import TARGETS, DeviceTarget, get_target
from soac.lowering.opencl.device_defaults import device_info, threshold_defaults
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.runtime import host_plan
from soac.lowering.runtime.device_arrays import DeviceNDArray, storage_dtype
from soac.lowering.runtime.device_arrays import device_put as put_on_device
from soac.lowering.runtime.device_memory import BufferPool as BufferPool
from soac.lowering.runtime.device_memory import DeviceArray as DeviceArray
from soac.lowering.runtime.device_memory import DeviceMemory, device_memory
from soac.lowering.runtime.errors import AllocationError as AllocationError
from soac.lowering.runtime.errors import OpenCLBuildError as OpenCLBuildError
from soac.lowering.runtime.errors import OpenCLRuntimeError as OpenCLRuntimeError
from soac.lowering.runtime.errors import ProgramError as ProgramError
from soac.lowering.runtime.errors import SizeMismatchError as SizeMismatchError
from soac.lowering.runtime.host_scalars import dtype_of as dtype_of
from soac.lowering.runtime.host_scalars import eval_scalar as eval_scalar
from soac.lowering.runtime.host_scalars import to_numpy, to_python
from soac.messages import format_message
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, IndexType, ModuleOp, TensorType
from xdsl.ir import Attribute, Operation

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
        if not (pocl := [d for d in devices if _is_pocl(d)]):
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
        or (wanted == "pocl" and _is_pocl(device))
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


_CONTEXTS_LOCK = threading.Lock()
"""Two threads meeting a device first (soac.lang.dask's workers) must not make two contexts of it: a buffer of one
is an invalid argument to the other's kernels."""


def _context(device: cl.Device) -> tuple[cl.Context, cl.CommandQueue]:
    key = device.int_ptr
    if (found := _CONTEXTS.get(key)) is not None:
        return found
    with _CONTEXTS_LOCK:
        if key not in _CONTEXTS:
            context = cl.Context([device])
            _CONTEXTS[key] = (context, cl.CommandQueue(context, device))
        return _CONTEXTS[key]


def memory_of(device: cl.Device) -> DeviceMemory:
    """The memory (context, queue, buffer pool, transfers) that every program and device array of `device` shares."""
    return device_memory(device, *_context(device))


def device_put(array: object, device: str | cl.Device | None = None) -> DeviceNDArray:
    """A copy of `array` (a numpy array, or what `np.asarray` takes, of rank 1 or more) on `device` (see
    `choose_device`); a device array already there is returned as it is."""
    chosen = device if isinstance(device, cl.Device) else choose_device(device)
    memory = memory_of(chosen)
    if isinstance(array, DeviceNDArray):
        if array.memory is memory:
            return array
        array = array.get()
    host = np.asarray(array)
    if host.ndim == 0:
        raise OpenCLRuntimeError("device_put of a scalar: scalars stay on the host; pass the scalar itself")
    if host.dtype.kind not in "biuf":
        raise OpenCLRuntimeError(f"device_put of a {host.dtype} array: soac has arrays of bool, integers and floats only")
    return put_on_device(host, memory)


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


def _storage(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return storage_dtype(dtype)


Unbinder = tuple[int | None, Any]


@dataclass(frozen=True)
class _ArrayResult:
    data: DeviceArray
    shape: tuple[int, ...]
    dtype: np.dtype[Any]


class Program:
    """A lowered module built for one device; `call` runs its functions on numpy arrays or device arrays."""

    def __init__(self, module: ModuleOp, device: cl.Device):
        self.module = module
        self.device = device
        self.context, _ = _context(device)
        self.memory = memory_of(device)
        """The device's memory, shared with its other programs and device arrays (`soac.lowering.runtime.device_memory`)."""
        self.source = opencl_source(module)
        self.max_alloc_size: int = device.max_mem_alloc_size
        self.pool = self.memory.pool
        """Reused buffers of dead arrays (see `BufferPool`): a loop whose body makes a new array each iteration (a
        Jacobi solver's stencil, a radix sort's pass) takes the buffer of the array two iterations back instead of a new one."""
        self.kernels: dict[str, cl.Kernel] = {}
        self.built: cl.Program | None = None
        self.built_kernels: dict[str, cl.Kernel] = {}
        """The kernels as built; `kernels` may hold a benchmark's recording stand-ins in their place."""
        self.scalar_types: dict[str, list[np.dtype[Any] | None]] = {}
        """Each kernel's parameters: the numpy type of a scalar, None for a buffer."""
        if any(isinstance(op, kd.FuncOp) for op in module.body.block.ops):
            self.built = build_program(self.source, device)
            self.kernels = {k.function_name: k for k in self.built.all_kernels()}
            self.built_kernels = dict(self.kernels)
            self.scalar_types = _scalar_types(module)
            for name, kernel in self.kernels.items():
                kernel.set_scalar_arg_dtypes(self.scalar_types[name])
        self.functions = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, func.FuncOp)}
        self.thresholds: Mapping[str, int] = {}
        self.device_defaults = threshold_defaults(device_info(device))
        """The thresholds' defaults on this device (`device_defaults`); the call's thresholds win."""
        self.error_table: dict[int, kd.DeviceAssertOp] = {
            op.error_code: op for op in module.walk() if isinstance(op, kd.DeviceAssertOp)
        }
        """The device checks by code: what a call's error buffer refers to."""
        self.errors: DeviceArray | None = None
        """The error buffer of every call: all zeros between calls (it is cleared only after a failure)."""
        self.errors_unread = False
        self.error_reads: list[tuple[cl.Event, np.ndarray]] = []
        """The reads of the error buffer that calls enqueued behind their kernels, and where they land, oldest first:
        one, the last call's, except after calls with `device_scalars`, which do not wait for earlier ones."""
        self.read_enqueued = False
        """Whether the current (or last) call enqueued its read of the error buffer."""
        self.checking = threading.Lock()
        """Held while the error reads are checked: another thread's `check_errors` may check this program's too."""
        self.poison = os.environ.get("SOAC_POISON", "") not in ("", "0")
        """Whether new buffers are filled with 0xA5 bytes ($SOAC_POISON, read when the program is made: reading the
        environment costs a call about 2 µs; see `allocator`)."""
        self.plans: dict[str, host_plan.FunctionPlan] = {}
        """Each host function's plan, built on its first call (see `host_plan`)."""
        self.scalar_plans: dict[str, host_plan.FunctionPlan] = {}
        """The plans that leave returned scalars on the device (`call(..., device_scalars=True)`)."""
        self.binders: dict[tuple[str, int], Callable[[object], list[Any]]] = {}
        self.function_binders: dict[str, tuple[Callable[[object], list[Any]], ...]] = {}
        """Each function's binders, one an argument (`binders_of`)."""
        self.signatures: dict[str, FunctionType] = {}
        """Each called function's source type (`signature`)."""
        self.unbinders: dict[int, tuple[Sequence[Attribute], list[Unbinder]]] = {}
        self.scalar_dtypes: dict[int, tuple[Attribute, np.dtype[Any]]] = {}
        self._arguments: set[int] = set()
        """The buffers of the call's arguments: a result that is one is the caller's, never lent (`_unbind`)."""
        if any(isinstance(op, kd.ErrorBufferOp) for op in module.walk()):
            self.errors = self.memory.upload(_NO_ERROR, copy=True)  # kernels write it: never zero-copy

    # -- calls ------------------------------------------------------------------

    def call(
        self,
        name: str,
        args: Sequence[object],
        thresholds: Mapping[str, int] | None = None,
        device_results: bool | None = False,
        device_scalars: bool = False,
    ) -> tuple[Any, ...]:
        """Run `@name` on `args` (numpy arrays or `DeviceNDArray`s of this device, and scalars). Its arrays come back
        as numpy arrays, or stay on the device as `DeviceNDArray`s if `device_results` (None: if any argument is a
        device array); device arrays in and out move nothing between the host and the device.

        `device_scalars` (with device results): a scalar result that the device computed (a reduce's, read back by
        `kernel.read` as the function's last step) stays there too, as a 0-d `DeviceNDArray`, so that the call waits
        for nothing and calls one after another queue their kernels back to back; read them together at the end
        (`DeviceMemory.download`). Other scalar results (sizes the host computes) come back as usual."""
        if (source_type := self.signatures.get(name)) is None:
            source_type = self.signatures[name] = self.signature(name)
        inputs = source_type.inputs.data
        if len(args) != len(inputs):
            raise OpenCLRuntimeError(f"@{name} takes {len(inputs)} arguments, got {len(args)}")
        if device_results is None:
            device_results = any(type(arg) is DeviceNDArray for arg in args)
        queued = device_scalars and bool(device_results)
        # A failure of an earlier call whose results stayed on the device comes first; with `device_scalars` (calls
        # queued back to back) only the failures already read back: the others when something waits for the device.
        self.memory.check_errors(wait=not queued)
        self.thresholds = dict(thresholds) if thresholds else {}
        flat: list[Any] = []
        for bind, arg in zip(self.binders_of(name, inputs), args):
            flat.extend(bind(arg))
        # The arguments' buffers, never lent out as results (`_unbind`, for results read back only).
        self._arguments = set() if device_results else {id(value) for value in flat if type(value) is DeviceArray}
        plan = self.function_plan(name, scalars_on_device=queued)
        if self.errors is not None and self.errors_unread and not self.read_enqueued:
            # An interrupted call may have left a failure that no read of the buffer will see. (A call that enqueued
            # its read needs no clear: its read sees its failure, which drops the later reads and clears the buffer.)
            # A fill, not a copy from `_NO_ERROR`: pyopencl's event of a copy from host memory waits for it when dropped.
            cl.enqueue_fill_buffer(self.queue, self.errors.buffer, np.int64(0), 0, _NO_ERROR.nbytes)
        self.errors_unread = True
        self.read_enqueued = False
        try:
            results = plan(flat)
        except Exception:
            self.raise_device_error()  # a kernel failing first is the cause
            raise
        self.read_errors_later()
        if not device_results:
            try:
                outputs = tuple(self._unbind(source_type.outputs.data, results))
            except Exception:
                self.raise_device_error()  # a kernel failing first is the cause
                raise
            self.raise_device_error()
            self.queue.finish()
            self.memory.settle()  # done already: forgets the writes' events
            return outputs
        outputs = tuple(self._keep(source_type.outputs.data, results))
        if self.errors is not None:  # read when something waits for the device: the next call, a read-back
            self.memory.unchecked.add(self)
        self.memory.settle()  # the caller may change its numpy arguments once the call returns
        if any(type(value) is DeviceArray and value.host is not None for value in flat):
            self.queue.finish()  # zero-copy inputs: the kernels read the caller's memory
        return outputs

    def signature(self, name: str) -> FunctionType:
        """The type of `@name` as the caller sees it (its source type: before lowering)."""
        function = self.functions.get(name)
        if function is None:
            known = ", ".join(f"@{f}" for f in self.functions) or "none"
            raise OpenCLRuntimeError(f"no function @{name} in the module (functions: {known})")
        source_type = function.attributes.get("soac.source_type", function.function_type)
        assert isinstance(source_type, FunctionType)
        return source_type

    @property
    def queue(self) -> cl.CommandQueue:
        """The device's one in-order queue, which its kernels and its transfers share (`DeviceMemory.queue`)."""
        return self.memory.queue

    @queue.setter
    def queue(self, queue: cl.CommandQueue) -> None:
        """Puts `queue` (e.g. one with profiling enabled) in the place of the device's queue, for every program and
        transfer of the device: a kernel and the read-back of its result must never be on two queues."""
        self.memory.use_queue(queue)

    def function_plan(self, name: str, scalars_on_device: bool = False) -> host_plan.FunctionPlan:
        """The plan of `@name`, built on the first call of the function (a `func.call` is a call too); with
        `scalars_on_device`, the variant that leaves its returned reads on the device (`host_plan.returned_reads`)."""
        plans = self.scalar_plans if scalars_on_device else self.plans
        if (plan := plans.get(name)) is None:
            if (function := self.functions.get(name)) is None:
                raise OpenCLRuntimeError(f"no function @{name} in the module")
            plan = plans[name] = host_plan.compile_function(self, function, scalars_on_device)
        return plan

    def read_errors_later(self) -> None:
        """Enqueue the read of the error buffer behind the call's kernels, without waiting for it: by the time a
        caller waits for the device (a read-back, the next call's check), the read is done and costs no round trip."""
        if self.errors is not None:
            recorded = np.empty(kd.ERROR_SLOTS, np.int64)
            self.error_reads.append((cl.enqueue_copy(self.queue, recorded, self.errors.buffer, is_blocking=False), recorded))
            self.read_enqueued = True

    def raise_device_error(self, wait: bool = True) -> None:
        """Raise the first failure that the calls' kernels recorded, if any: each read of the error buffer in order
        (waits for them; a call that enqueued none reads the buffer now). `wait=False` checks only the reads already
        done, and the program stays unchecked while others are not."""
        if self.errors is None:
            self.memory.unchecked.discard(self)
            return
        if not self.checking.acquire(blocking=wait):
            return  # another thread is checking them
        try:
            self.check_reads(wait)
        finally:
            self.checking.release()

    def check_reads(self, wait: bool) -> None:
        """`raise_device_error`'s work, under `checking`."""
        assert self.errors is not None
        while self.error_reads:
            event, recorded = self.error_reads[0]
            if not wait and event.command_execution_status != cl.command_execution_status.COMPLETE:
                return
            del self.error_reads[0]
            self.memory.counts.error_checks += 1
            event.wait()
            self.raise_recorded(recorded)
        self.memory.unchecked.discard(self)
        if wait and not self.read_enqueued:  # the call stopped before it enqueued its read
            self.memory.counts.error_checks += 1
            recorded = np.empty(kd.ERROR_SLOTS, np.int64)
            cl.enqueue_copy(self.queue, recorded, self.errors.buffer, is_blocking=True)
            self.read_enqueued = True
            self.raise_recorded(recorded)
        if not self.error_reads:
            self.errors_unread = False

    def raise_recorded(self, recorded: np.ndarray) -> None:
        """Raise the failure in a read of the error buffer, if any; the buffer is cleared, and the reads of later
        calls are dropped (their work came after the failure)."""
        code = int(recorded[:1].view(np.int32)[0])
        if code == 0:
            return
        self.error_reads.clear()
        self.memory.unchecked.discard(self)
        self.errors_unread = False
        cl.enqueue_fill_buffer(self.queue, self.errors.buffer, np.int64(0), 0, _NO_ERROR.nbytes)  # no wait (see `call`)
        check = self.error_table.get(code)
        if check is None:
            raise OpenCLRuntimeError(f"a kernel failed with the unknown error code {code}")
        values = [int(v) for v in recorded[1 : 1 + len(check.values)]]
        raise ProgramError(format_message(check.message.data, values)) from None

    # -- arguments and results ----------------------------------------------------

    def binders_of(self, name: str, inputs: Sequence[Attribute]) -> tuple[Callable[[object], list[Any]], ...]:
        """The binder of each argument of `@name` (see `_binder`): a buffer and its sizes, or a scalar, as the host
        function takes it; made on the first call."""
        if (binders := self.function_binders.get(name)) is None:
            binders = tuple(self._binder_of(name, k, t) for k, t in enumerate(inputs))
            self.function_binders[name] = binders
        return binders

    def _binder_of(self, name: str, k: int, t: Attribute) -> Callable[[object], list[Any]]:
        if (binder := self.binders.get((name, k))) is None:
            binder = self.binders[(name, k)] = self._binder(name, k, t)
        return binder

    def _binder(self, name: str, k: int, t: Attribute) -> Callable[[object], list[Any]]:
        try:
            from soac.interpreter.core import convert_argument
        except ImportError:

            def convert_argument(function: str, index: int, t: Attribute, arg: object) -> np.ndarray:
                return np.asarray(arg, dtype=dtype_of(t))

        if not isinstance(t, TensorType):
            enter = to_python(t)

            def bind_scalar(arg: object) -> list[Any]:
                value = convert_argument(name, k, t, arg)
                return [enter(value[()] if isinstance(value, np.ndarray) else value)]

            return bind_scalar
        dtype = dtype_of(t)
        storage = _storage(dtype)
        rank = t.get_num_dims()
        static = [(i, d) for i, d in enumerate(t.get_shape()) if d >= 0]
        as_given = storage == dtype  # a C-contiguous array of the element type goes as it is, unchecked and not copied

        memory = self.memory

        def bind_array(arg: object) -> list[Any]:
            if type(arg) is DeviceNDArray:
                if arg.memory is not memory:
                    where = f"argument #{k} of @{name}: a device array on {arg.device.name}"
                    raise OpenCLRuntimeError(f"{where}, but the program runs on {self.device.name}")
                given = arg.dtype
                same_bits = given.kind == "u" and dtype.kind == "i" and given.itemsize == dtype.itemsize
                if (
                    (given is not dtype and given != dtype and not same_bits)
                    or len(arg.shape) != rank
                    or (static and any(arg.shape[i] != d for i, d in static))
                ):
                    got = f"a {arg.dtype} device array of shape {arg.shape}"
                    raise ProgramError(f"argument #{k} of @{name}: expected {t}, got {got}")
                return [arg.data, *arg.shape]
            if (
                as_given
                and type(arg) is np.ndarray
                and arg.dtype == dtype
                and arg.ndim == rank
                and arg.flags.c_contiguous
                and all(arg.shape[i] == d for i, d in static)
            ):
                array, shape = arg, arg.shape
            else:
                value = convert_argument(name, k, t, arg)
                array, shape = np.ascontiguousarray(value).astype(storage, copy=False), value.shape
            return [self.upload(array), *shape]

        return bind_array

    def upload(self, array: np.ndarray) -> DeviceArray:
        """`array` (C-contiguous, of a storage type) on the device for one call: its own memory on a CPU device, else a
        pooled buffer written from it (see `DeviceMemory.upload`)."""
        if array.nbytes > self.max_alloc_size:
            self._check_size(array.nbytes, "an input array")
        return self.memory.upload(array)

    def _unbind(self, types: Sequence[Attribute], flat: list[Any]) -> list[Any]:
        """The results of a host function (buffers and sizes, scalars) as numpy arrays and scalars of `types`; the
        arrays' read-backs are enqueued together."""
        results = self._results(types, flat)
        arrays = [k for k, result in enumerate(results) if type(result) is _ArrayResult]
        if arrays:
            wanted = [(results[k].data, results[k].shape, results[k].dtype) for k in arrays]
            read = self.memory.download(wanted, lend={id(data) for data, _, _ in wanted} - self._arguments)
            for k, host in zip(arrays, read):
                results[k] = host
        return results

    def _keep(self, types: Sequence[Attribute], flat: list[Any]) -> list[Any]:
        """The results of a host function with its arrays left on the device, as `DeviceNDArray`s. A result whose
        buffer is a zero-copy input's (a function returning its argument) is copied: its memory is the caller's."""
        results = self._results(types, flat)
        for k, result in enumerate(results):
            if type(result) is _ArrayResult:
                data = result.data if result.data.host is None else self._device_copy(result.data)
                results[k] = DeviceNDArray(data, result.shape, result.dtype, self.memory)
            elif type(result) is host_plan.ScalarOnDevice:
                results[k] = self._scalar_array(result, types[k])
        return results

    def _scalar_array(self, scalar: host_plan.ScalarOnDevice, t: Attribute) -> DeviceNDArray:
        """A scalar left on the device as a 0-d `DeviceNDArray`: its buffer itself when it is the only element of a
        buffer of the program's, else a copy of the element (on the queue: nothing waits)."""
        array = scalar.array
        if array.size != 1 or scalar.index != 0 or array.host is not None:
            element = self.memory.empty(array.dtype, 1)
            itemsize = array.dtype.itemsize
            cl.enqueue_copy(self.queue, element.buffer, array.buffer, byte_count=itemsize, src_offset=scalar.index * itemsize)
            array = element
        cached = self.scalar_dtypes.get(id(t))
        if cached is None or cached[0] is not t:  # the element type: `dtype_of` costs more than the rest of this
            cached = self.scalar_dtypes[id(t)] = (t, dtype_of(t))
        return DeviceNDArray(array, (), cached[1], self.memory)

    def _results(self, types: Sequence[Attribute], flat: list[Any]) -> list[Any]:
        """The results as numpy scalars and `_ArrayResult`s."""
        cached = self.unbinders.get(id(types))
        if cached is None or cached[0] is not types:
            cached = self.unbinders[id(types)] = (types, [self._unbinder(t) for t in types])
        results: list[Any] = []
        position = 0
        for rank, leave in cached[1]:
            if rank is None:
                value = flat[position]
                results.append(value if type(value) is host_plan.ScalarOnDevice else leave(value))
                position += 1
            else:
                shape = tuple(int(d) for d in flat[position + 1 : position + 1 + rank])
                results.append(_ArrayResult(flat[position], shape, leave))
                position += 1 + rank
        return results

    def _unbinder(self, t: Attribute) -> Unbinder:
        """(None, the conversion of a scalar result) or (the rank, the element type of an array result)."""
        if not isinstance(t, TensorType):
            return None, to_numpy(t)
        return t.get_num_dims(), dtype_of(t.get_element_type())

    def _device_copy(self, array: DeviceArray) -> DeviceArray:
        """A pooled copy of `array` on the device."""
        copy = self.memory.empty(array.dtype, array.size)
        if array.size:
            cl.enqueue_copy(self.queue, copy.buffer, array.buffer, byte_count=array.size * array.dtype.itemsize)
        return copy

    # -- device operations (the plans' steps call these) -----------------------------

    def _check_size(self, nbytes: int, what: str) -> None:
        limit = self.max_alloc_size
        if nbytes > limit:
            raise AllocationError(
                f"allocating {nbytes} bytes for {what} failed: {self.device.name} allows at most {limit} bytes per buffer"
            )

    def alloc(self, op: kd.AllocOp, size: int) -> DeviceArray:
        return self.allocator(op)(size)

    def allocator(self, op: kd.AllocOp) -> Callable[[int], DeviceArray]:
        """Buffers for `op` of a given size, from the pool where it has one; with SOAC_POISON=1 (the tests set it) filled
        with 0xA5 bytes, so that a kernel that reads what nothing wrote gives the same wrong answer on every run and
        device, not what the memory held."""
        element = op.result.type.element_type  # pyright: ignore[reportAttributeAccessIssue]
        dtype = _storage(dtype_of(element))
        itemsize = dtype.itemsize
        name = op.result.name_hint or "buffer"

        def what(size: int) -> str:  # printing the type costs more than allocating: only on failure
            return f"%{name} ({size} elements of {element})"

        memory = self.memory
        take = memory.pool.take

        def allocate(size: int) -> DeviceArray:
            size = int(size)
            nbytes = max(size * itemsize, itemsize)
            buffer = take(nbytes) if nbytes <= memory.max_alloc_size else None
            if buffer is None:
                buffer = memory.buffer(nbytes, lambda: what(size))
            if self.poison:
                cl.enqueue_fill_buffer(self.queue, buffer, np.uint8(0xA5), 0, nbytes)
            return memory.pooled(buffer, nbytes, dtype, size)

        return allocate

    def launcher(self, op: kd.LaunchOp) -> Callable[[list[Any], int, int], None]:
        """Launches of `op`'s kernel, given its arguments (buffers as `DeviceArray`s) and the sizes; the kernel is
        looked up at each launch, so that a benchmark may put a recording one in its place."""
        name = op.kernel_name
        buffers = tuple(isinstance(a.type, kd.BufferType) for a in op.args)
        original = self.built_kernels.get(name)
        site = _LaunchSite(self.built, name, self.scalar_types.get(name, [])) if original is not None else None

        def launch(values: list[Any], global_size: int, local_size: int) -> None:
            if not global_size:
                return
            try:
                kernel = self.kernels[name]
                if kernel is original and site is not None:
                    site.launch(self.memory.queue, values, global_size, local_size)
                else:  # a benchmark's recording stand-in
                    args = [v.buffer if is_buffer else v for v, is_buffer in zip(values, buffers)]
                    kernel(self.queue, (global_size,), (local_size,), *args)
            except cl.Error as error:
                raise OpenCLRuntimeError(
                    f"launching {name} (global {int(global_size)}, local {int(local_size)}) failed: {error}"
                ) from None

        return launch

    def reader(self, op: kd.ReadOp) -> Callable[[DeviceArray, int], Any]:
        """Reads of one element for `op` (blocking), as the plans hold a value of its type."""
        result = dtype_of(op.result.type)
        enter = to_python(op.result.type)
        counts = self.memory.counts

        def read(array: DeviceArray, index: int) -> Any:
            counts.element_reads += 1
            host = np.empty(1, dtype=array.dtype)
            cl.enqueue_copy(self.queue, host, array.buffer, src_offset=int(index) * array.dtype.itemsize, is_blocking=True)
            return enter(host.astype(result)[0])

        return read

    def write(self, array: DeviceArray, index: int, value: Any) -> None:
        """Write `value` to element `index` of `array`, on the queue, waiting for nothing: a fill of the one element
        with the value as its pattern (OpenCL copies the pattern when the fill is enqueued). A copy from host memory
        would sync: pyopencl's event of such a copy waits for it when dropped, and holds the GIL while it does."""
        self.memory.counts.element_writes += 1
        itemsize = array.dtype.itemsize
        pattern = np.asarray([value]).astype(array.dtype)
        cl.enqueue_fill_buffer(self.queue, array.buffer, pattern, index * itemsize, itemsize)

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

    def error_buffer(self) -> DeviceArray:
        assert self.errors is not None
        return self.errors


def _scalar_types(module: ModuleOp) -> dict[str, list[np.dtype[Any] | None]]:
    """The numpy types of each kernel's scalar parameters (None for buffers). Declared to pyopencl, it packs a scalar
    argument with `struct` instead of working out what it is (on PoCL 0.5 µs for a launch's arguments, against about
    3.5 µs for each scalar)."""

    def scalar(t: Attribute, index_bits: int) -> np.dtype[Any] | None:
        if isinstance(t, kd.BufferType):
            return None
        return np.dtype(np.int32) if index_bits == 32 and isinstance(t, IndexType) else _storage(dtype_of(t))

    return {
        op.kernel_name: [scalar(t, op.index_bits) for t in op.function_type.inputs.data]
        for op in module.body.block.ops
        if isinstance(op, kd.FuncOp)
    }


class _LaunchSite:
    """The kernel object of one `kernel.launch`: its own, so that its arguments stay set between launches, and a
    launch sets only those that changed (a loop's launch passes the same sizes and most of the same buffers each
    iteration; setting an argument costs a call into the driver). A buffer is remembered by its handle, not held: a
    freed array's memory is not kept alive by the kernel that last read it."""

    def __init__(self, program: cl.Program | None, name: str, types: list[np.dtype[Any] | None]):
        self.program, self.name, self.types = program, name, types
        self.kernel: cl.Kernel | None = None
        self.current: list[Any] = []

    def launch(self, queue: cl.CommandQueue, values: list[Any], global_size: int, local_size: int) -> None:
        """Launch with `values` (a `DeviceArray` for a buffer parameter, else the scalar)."""
        if self.kernel is None:
            self.kernel = cl.Kernel(self.program, self.name)
            self.current = [_UNSET] * len(values)
        kernel, current, types = self.kernel, self.current, self.types
        for index, (value, old, scalar) in enumerate(zip(values, current, types)):
            if scalar is None:
                buffer = value.buffer
                if buffer.int_ptr != old:
                    kernel.set_arg(index, buffer)
                    current[index] = buffer.int_ptr
            elif old is _UNSET or value != old or (not value and scalar.kind == "f" and _signbit(value) != _signbit(old)):
                kernel.set_arg(index, scalar.type(value))  # -0.0 == 0.0, yet 1 / -0.0 is not 1 / 0.0
                current[index] = value
        cl.enqueue_nd_range_kernel(queue, kernel, (global_size,), (local_size,))


_UNSET = object()


def _signbit(value: Any) -> bool:
    return math.copysign(1.0, value) < 0


_NO_ERROR = np.zeros(kd.ERROR_SLOTS, np.int64)


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
    segred: str = "auto",
    segscan: str = "auto",
    **options: Any,
) -> ModuleOp:
    """A lowered copy of `module` (the module itself if it is lowered already or has neither soac ops nor arrays),
    through `soac.passes.lowering_pipeline`; see `LoweringOptions` for the options (`options` takes any of its fields;
    `scan` and `contiguous` default to the target's). The environment variables of `ENVIRONMENT` set the options not
    given here (the runtime's entry reads them; `SOAC_TARGET` and `SOAC_SCAN` where `compile_module` picks a device's)."""
    if "kernel.target" in module.attributes or not any(_needs_lowering(op) for op in module.walk()):
        return module
    from soac.lowering.conversion.pipeline import apply_lowering_pipeline

    layout = "auto" if contiguous is None else ("contiguous" if contiguous else "strided")
    explicit = dict(target=target, group_size=group_size, max_groups=max_groups, scan=scan or "auto", layout=layout)
    chosen = lowering_options(_knob_environment(), **{**explicit, "segred": segred, "segscan": segscan, **options})
    lowered = module.clone()
    apply_lowering_pipeline(Context(), lowered, chosen)
    return lowered


def _knob_environment() -> dict[str, str]:
    """The environment variables that set strategy options (the target and scan are the device's: `compile_module`)."""
    return {k: v for k, v in os.environ.items() if k in ENVIRONMENT and k not in ("SOAC_TARGET", "SOAC_SCAN")}


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
    segred: str = "auto",
    segscan: str = "auto",
    **options: Any,
) -> Program:
    """Lower `module` and build its kernels for a device (see `choose_device`). `target` overrides `target_for`, `scan`
    `scan_strategy_for`, `contiguous` (grid-stride kernels over contiguous ranges per work-item) the target's layout;
    `segred`, `segscan` and `options` (any field of `LoweringOptions`) force strategies (soac-to-kernel's options)."""
    chosen = device if isinstance(device, cl.Device) else choose_device(device)
    lowering = options_for(chosen, group_size, max_groups, scan, contiguous, target, segred=segred, segscan=segscan, **options)
    return Program(lower_module(module, **dataclasses.asdict(lowering)), chosen)


def options_for(
    device: cl.Device,
    group_size: int | None = None,
    max_groups: int | None = None,
    scan: str | None = None,
    contiguous: bool | None = None,
    target: str | None = None,
    **options: Any,
) -> LoweringOptions:
    """The lowering options `compile_module` uses for `device`: those given, else the environment variables', else the
    device's (its target, its scan algorithm, and on CPUs groups of 64, 4 per compute unit). A target whose groups
    must be one warp (`emulated-warps`) gets groups of one warp, its look-back scans too; ValueError for others. On
    PoCL, tiled kernels run their last chunk outside a branch (`LoweringOptions.tile_tail_branch`)."""
    is_cpu = bool(device.type & cl.device_type.CPU)
    device_target = get_target(target) if target else target_for(device)
    warp = device_target.subgroup_width if device_target.one_warp_groups else 0
    environment = _knob_environment()
    explicit = dict(
        target=device_target.name,
        group_size=group_size or warp or (64 if is_cpu else 256),
        max_groups=max_groups or (4 * device.max_compute_units if is_cpu else 1024),
        scan=scan or scan_strategy_for(device, device_target),
        layout="auto" if contiguous is None else ("contiguous" if contiguous else "strided"),
    )
    if warp and "scan_group" not in options and "SOAC_SCAN_GROUP" not in environment:
        explicit["scan_group"] = warp
    if _is_pocl(device) and "tile_tail_branch" not in options and "SOAC_TILE_TAIL_BRANCH" not in environment:
        explicit["tile_tail_branch"] = False  # PoCL miscompiles a store after a branch with barriers (its docstring)
    chosen = lowering_options(environment, **{**explicit, **options})
    if (problem := one_warp_problem(device_target, chosen.group_size, chosen.scan_group)) is not None:
        raise ValueError(problem)
    return chosen


def _is_pocl(device: cl.Device) -> bool:
    return "portable computing language" in device.platform.name.lower()


_COMPILED: dict[tuple[int, tuple[tuple[str, int], ...], tuple[tuple[str, Any], ...]], tuple[ModuleOp, Program]] = {}
"""Programs by module, tile sizes and lowering options (thresholds are read at run time; tile sizes and options shape
the kernels)."""


def run_function(
    module: ModuleOp,
    name: str,
    args: Sequence[object],
    thresholds: Mapping[str, int] | None = None,
    lowering: Mapping[str, Any] | None = None,
) -> tuple[Any, ...]:
    """Run `@name` of `module` on the OpenCL device, with the interpreter's signature and results; `lowering` sets
    soac-to-kernel's options (`LoweringOptions` fields, as a tuning file's do)."""
    from soac.passes.tile_sizes import tile_values, with_tile_sizes

    key = (id(module), tile_values(module, thresholds), tuple(sorted((lowering or {}).items())))
    cached = _COMPILED.get(key)
    if cached is None or cached[0] is not module:
        cached = (module, compile_module(with_tile_sizes(module, thresholds), **(lowering or {})))
        _COMPILED[key] = cached
    return cached[1].call(name, args, thresholds)
