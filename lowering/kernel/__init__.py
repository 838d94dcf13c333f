"""The `kernel` dialect: OpenCL-style GPU kernels and the host code that launches them.

One dialect, in parts:

- `types`: `!kernel.buffer<global|local, T>`, a flat array of scalars in an address space;
- `attributes`: the enumerations (address space, memory order and scope, atomic kind, shuffle mode) as enum
  attributes, which the ops' declarative formats print bare (`acquire device`);
- `device`: `kernel.func`, `kernel.return`, work-item queries (`kernel.global_id` ...), `kernel.barrier`,
  `kernel.local_alloc`, `kernel.load`, `kernel.store`, `kernel.device_assert`;
- `memory`: `kernel.vector_load`/`vector_store`, `kernel.atomic_load`/`atomic_store` (with a memory order and
  scope), `kernel.fence`, `kernel.atomic` (read-modify-write), `kernel.atomic_cmpxchg`;
- `subgroup`: `kernel.shuffle` (up, down, idx, xor), `kernel.ballot`, `kernel.match_any`;
- `host`: `kernel.alloc`, `kernel.copy`, `kernel.read`, `kernel.write`, `kernel.launch`, `kernel.threshold`,
  `kernel.check_eq`, `kernel.assert`, `kernel.error_buffer`.

A kernel and its launch:

    kernel.func @scale(%xs: !kernel.buffer<global, f32>, %ys: !kernel.buffer<global, f32>, %n: index) {
      %gid = kernel.global_id 0
      %x = kernel.load %xs[%gid] : !kernel.buffer<global, f32> -> f32
      kernel.store %x, %ys[%gid] : f32, !kernel.buffer<global, f32>
      kernel.return
    }
    func.func @main(%xs: !kernel.buffer<global, f32>, %n: index) -> (!kernel.buffer<global, f32>, index) {
      %ys = kernel.alloc %n : !kernel.buffer<global, f32>
      kernel.launch @scale(%xs, %ys, %n : ...) global %g local %l
      func.return %ys, %n : !kernel.buffer<global, f32>, index
    }

Buffers are flat arrays of elements; multi-dimensional arrays are row-major
with their sizes carried as separate `index` values.

Run-time checks (bounds, division by zero, sizes): on the host, `kernel.assert`
fails the run at once. In a kernel, `kernel.device_assert` records the first
failure of a call in the call's error buffer (`kernel.error_buffer`, passed to
every kernel that can fail) with an atomic compare-and-swap: slot 0 holds the
failing assertion's `code` (an int32; 0 while nothing failed), slots 1... its
`values`. The code leads back to the assertion and its message, which names the
soac op and its location; the runtime reads the buffer once per call.

The ops say what a kernel does, not how a target spells it: the OpenCL emitter
(`soac.lowering.opencl.emitter`) is the only place that prints them.
"""

from soac.lowering.kernel.attributes import (
    ENUM_ATTRIBUTES,
    AddressSpace,
    AddressSpaceAttr,
    AtomicKind,
    AtomicKindAttr,
    MemoryOrder,
    MemoryOrderAttr,
    MemoryScope,
    MemoryScopeAttr,
    ShuffleMode,
    ShuffleModeAttr,
)
from soac.lowering.kernel.device import (
    UNROLL,
    BarrierOp,
    DeviceAssertOp,
    FuncOp,
    GlobalIdOp,
    GlobalSizeOp,
    GroupIdOp,
    LoadOp,
    LocalAllocOp,
    LocalIdOp,
    LocalSizeOp,
    NumGroupsOp,
    PrivateAllocOp,
    ReturnOp,
    StoreOp,
    WorkItemQuery,
)
from soac.lowering.kernel.host import (
    AllocOp,
    AssertOp,
    CheckEqOp,
    CopyOp,
    ErrorBufferOp,
    LaunchOp,
    ReadOp,
    ThresholdOp,
    WriteOp,
)
from soac.lowering.kernel.memory import (
    ATOMIC_KINDS,
    AtomicCmpxchgOp,
    AtomicLoadOp,
    AtomicOp,
    AtomicStoreOp,
    FenceOp,
    VectorLoadOp,
    VectorStoreOp,
)
from soac.lowering.kernel.subgroup import BallotOp, MatchAnyOp, ShuffleOp
from soac.lowering.kernel.types import ERROR_SLOTS, ERROR_VALUES, BufferType, error_buffer_type, global_buffer
from xdsl.ir import Dialect

DEVICE_OPS = (
    GlobalIdOp,
    LocalIdOp,
    GroupIdOp,
    GlobalSizeOp,
    LocalSizeOp,
    NumGroupsOp,
    BarrierOp,
    LocalAllocOp,
    PrivateAllocOp,
    LoadOp,
    StoreOp,
    DeviceAssertOp,
    VectorLoadOp,
    VectorStoreOp,
    AtomicLoadOp,
    AtomicStoreOp,
    FenceOp,
    AtomicOp,
    AtomicCmpxchgOp,
    ShuffleOp,
    BallotOp,
    MatchAnyOp,
)
HOST_OPS = (AllocOp, CopyOp, ReadOp, WriteOp, LaunchOp, ThresholdOp, CheckEqOp, AssertOp, ErrorBufferOp)

Kernel = Dialect("kernel", [FuncOp, ReturnOp, *DEVICE_OPS, *HOST_OPS], [BufferType, *ENUM_ATTRIBUTES])

__all__ = [
    "ATOMIC_KINDS",
    "DEVICE_OPS",
    "ERROR_SLOTS",
    "ERROR_VALUES",
    "HOST_OPS",
    "UNROLL",
    "AddressSpace",
    "AddressSpaceAttr",
    "AllocOp",
    "AssertOp",
    "AtomicCmpxchgOp",
    "AtomicKind",
    "AtomicKindAttr",
    "AtomicLoadOp",
    "AtomicOp",
    "AtomicStoreOp",
    "BallotOp",
    "BarrierOp",
    "BufferType",
    "CheckEqOp",
    "CopyOp",
    "DeviceAssertOp",
    "ErrorBufferOp",
    "FenceOp",
    "FuncOp",
    "GlobalIdOp",
    "GlobalSizeOp",
    "GroupIdOp",
    "Kernel",
    "LaunchOp",
    "LoadOp",
    "LocalAllocOp",
    "LocalIdOp",
    "LocalSizeOp",
    "MatchAnyOp",
    "MemoryOrder",
    "MemoryOrderAttr",
    "MemoryScope",
    "MemoryScopeAttr",
    "NumGroupsOp",
    "PrivateAllocOp",
    "ReadOp",
    "ReturnOp",
    "ShuffleMode",
    "ShuffleModeAttr",
    "ShuffleOp",
    "StoreOp",
    "ThresholdOp",
    "VectorLoadOp",
    "VectorStoreOp",
    "WorkItemQuery",
    "WriteOp",
    "error_buffer_type",
    "global_buffer",
]
