"""The OpenCL runtime: runs lowered soac programs on a device with pyopencl (see `program.py`).

    from soac.lowering.runtime import compile_module, run_function

    program = compile_module(module)                 # lower, print OpenCL C, build once per device
    results = program.call("main", [xs, np.float32(0)])

The modules: `program.py` (device choice, building, `Program` and its calls), `host_plan.py` (a host function as
closures over slots, built on its first call), `host_scalars.py` (host integers with the interpreter's fixed-width
results), `device_memory.py` (a device's context, queue, buffer pool and transfers), `device_arrays.py`
(`DeviceNDArray`, the user's `sl.DeviceArray`) and `errors.py` (run-time errors, also the interpreter's).
"""

from soac.lowering.runtime.device_arrays import DeviceNDArray
from soac.lowering.runtime.device_memory import BufferPool, DeviceArray, DeviceMemory
from soac.lowering.runtime.errors import (
    AllocationError,
    OpenCLBuildError,
    OpenCLRuntimeError,
    ProgramError,
    SizeMismatchError,
)
from soac.lowering.runtime.host_scalars import dtype_of, eval_scalar
from soac.lowering.runtime.program import (
    Program,
    build_program,
    choose_device,
    compile_module,
    device_put,
    lower_module,
    memory_of,
    options_for,
    run_function,
    scan_strategy_for,
    target_for,
)

__all__ = [
    "AllocationError",
    "BufferPool",
    "DeviceArray",
    "DeviceMemory",
    "DeviceNDArray",
    "OpenCLBuildError",
    "OpenCLRuntimeError",
    "Program",
    "ProgramError",
    "SizeMismatchError",
    "build_program",
    "choose_device",
    "compile_module",
    "device_put",
    "dtype_of",
    "eval_scalar",
    "lower_module",
    "memory_of",
    "options_for",
    "run_function",
    "scan_strategy_for",
    "target_for",
]
