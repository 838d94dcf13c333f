"""Arrays that live on an OpenCL device between calls, as `jax.Array` and `cupy.ndarray` do.

    xs = device_put(np.arange(5, dtype=np.int32))    # one upload
    ys = program.call("main", [xs])[0]               # a device array in, device arrays out: nothing moves
    ys.get()                                         # one read-back: array([...], dtype=int32); np.asarray(ys) too

A `DeviceNDArray` holds a pooled buffer of its device (`soac.lowering.runtime.device_memory`): when the last reference to it
goes, Python frees it and its buffer goes back to the device's pool for the next array of the same byte size. A call
with device results does not wait for its kernels: a run-time failure of one (an index out of bounds) is raised by the
next call on the device, or by reading or waiting for an array. Device arrays are immutable: `device_put` copies the
numpy array (changing the numpy array afterwards changes nothing), and a program never writes into its arguments.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyopencl as cl
from soac.lowering.runtime.device_memory import DeviceArray, DeviceMemory


class DeviceNDArray:
    """An immutable array in a device's memory: `shape`, `dtype`, `get()` / `np.asarray(a)` to read it back."""

    __slots__ = ("__weakref__", "data", "dtype", "memory", "shape")

    def __init__(self, data: DeviceArray, shape: tuple[int, ...], dtype: np.dtype[Any], memory: DeviceMemory):
        self.data = data
        self.shape = shape
        self.dtype = dtype
        self.memory = memory

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return self.data.size

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def device(self) -> cl.Device:
        return self.memory.device

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def get(self) -> np.ndarray:
        """The array as a new numpy array (one read-back), or the failure of a kernel that computed it."""
        self.memory.check_errors()
        return self.memory.download([(self.data, self.shape, self.dtype)])[0]

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if copy is False:
            raise ValueError("a device array cannot become a numpy array without a copy: use np.asarray(a) or a.get()")
        host = self.get()
        return host if dtype is None else host.astype(dtype, copy=False)

    def view(self, dtype: Any) -> DeviceNDArray:
        """The same memory with elements of another type of the same size (numpy's `view`): no copy."""
        new = np.dtype(dtype)
        if new.itemsize != self.dtype.itemsize:
            raise ValueError(f"a device array of {self.dtype} cannot be viewed as {new}: the element sizes differ")
        return DeviceNDArray(self.data, self.shape, new, self.memory)

    def block_until_ready(self) -> DeviceNDArray:
        """Wait until the kernels that compute the array have run (JAX's habit; reading it back waits too); raise the
        failure of one, if any."""
        self.memory.queue.finish()
        self.memory.check_errors()
        return self

    def __repr__(self) -> str:
        return f"DeviceArray({np.array2string(self.get(), separator=', ')}, dtype={self.dtype}, device={self.device.name!r})"


def storage_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """How the device holds elements of `dtype`: a bool as a byte."""
    return np.dtype(np.uint8) if dtype == np.bool_ else dtype


def device_put(array: np.ndarray, memory: DeviceMemory) -> DeviceNDArray:
    """A copy of `array` (an array of rank 1 or more) in `memory`'s device."""
    dtype = array.dtype
    host = np.ascontiguousarray(array).astype(storage_dtype(dtype), copy=False)
    data = memory.upload(host, copy=True)
    memory.settle()  # the caller may change its array once we return
    return DeviceNDArray(data, tuple(int(d) for d in array.shape), dtype, memory)
