"""Device arrays in soac.lang: data that stays on the OpenCL device between jitted calls (as `jax.Array` does).

    xs = sl.device_put(np.arange(10**6, dtype=np.float32))   # one upload
    ys = f(xs)                    # a device array in: the results stay on the device (a DeviceArray)
    zs = g(ys)                    # chained calls move nothing between the host and the device
    zs.get()                      # one read-back (np.asarray(zs) too)

A `DeviceArray` has `shape`, `dtype`, `ndim`, `size`, `get()`, `__array__` and `block_until_ready()`. Its buffer comes
from the device's pool and goes back to it when the array is collected (`del xs`, or its last reference going). Device
arrays are immutable: `device_put` copies, and jitted functions never write into their arguments.
`sl.jit(..., device_results=True)` keeps results on the device for numpy arguments too. A call that leaves its
results on the device does not wait for its kernels: a run-time failure (an index out of bounds) is raised by the next
call on the device, or by `get()` / `block_until_ready()` of an array.
"""

from __future__ import annotations

from typing import Any

from soac.lowering.runtime import choose_device, memory_of
from soac.lowering.runtime import device_put as put
from soac.lowering.runtime.device_arrays import DeviceNDArray as DeviceArray
from soac.lowering.runtime.device_memory import TransferCounts


def device_put(x: Any, device: str | None = None) -> DeviceArray:
    """A copy of the array `x` on `device` (as `sl.jit`'s `device`; default the first GPU, else PoCL); a device array
    already there is returned as it is."""
    return put(x, device)


def transfer_counts(device: str | None = None) -> TransferCounts:
    """What has moved between the host and `device` so far (arrays and bytes each way, zero-copy inputs);
    `.reset()` starts again."""
    return memory_of(choose_device(device)).counts


__all__ = ["DeviceArray", "TransferCounts", "device_put", "transfer_counts"]
