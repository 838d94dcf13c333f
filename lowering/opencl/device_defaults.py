"""Threshold defaults computed from the device that runs a program, instead of fixed constants.

`soac-flatten` marks the thresholds that compare parallelism with what the device
can run (`soac.threshold ... default 32768 device "resident"`); the OpenCL
runtime gives those the device's figure, unless a tuning file or the call sets
them (`soac.dialect.OnDevice`):

| device default | what the parallelism is compared with | value |
|---|---|---|
| `resident` (`suff_outer_par_K`) | the work-items the device runs at once | compute units x work-items resident per unit |
| `group` (`suff_intra_par_K`) | a work-group's worth: the lanes a unit issues together | the SIMD width (warp, wavefront) |

Work-items resident per unit: on NVIDIA the threads per SM of the compute capability (2048 on the A100,
H100 and H200: 132 SMs x 2048 = 270336 on an H200), on other GPUs 2048, on CPUs 1 (a work-item per core, as
Futhark's `MAX_COMPUTE_UNITS` default for CPU devices). The SIMD width is NVIDIA's warp (32), AMD's wavefront
(64), else 32 (Futhark's `intraMinInnerPar`, one warp).

    >>> threshold_defaults(DeviceInfo(compute_units=132, resident_per_unit=2048, simd_width=32))
    {<OnDevice.RESIDENT: 'resident'>: 270336, <OnDevice.GROUP: 'group'>: 32}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from soac.dialect import OnDevice

GPU_RESIDENT_PER_UNIT = 2048
"""Work-items resident per compute unit on GPUs that do not say (NVIDIA's figure for most of its SMs)."""
DEFAULT_SIMD_WIDTH = 32

NVIDIA_THREADS_PER_SM = {(7, 5): 1024, (8, 6): 1536, (8, 9): 1536, (12, 0): 1536, (12, 1): 1536}
"""Compute capabilities whose SMs hold fewer than 2048 threads (Turing, GA10x, Ada, consumer Blackwell)."""


@dataclass(frozen=True)
class DeviceInfo:
    """What the threshold defaults need of a device."""

    compute_units: int
    resident_per_unit: int
    """Work-items one compute unit holds at once."""
    simd_width: int
    """Work-items a compute unit issues together (a warp, a wavefront)."""

    @property
    def resident(self) -> int:
        return self.compute_units * self.resident_per_unit


def threshold_defaults(info: DeviceInfo) -> dict[OnDevice, int]:
    """The value of each kind of device default on the device `info` describes."""
    return {OnDevice.RESIDENT: max(1, info.resident), OnDevice.GROUP: max(1, info.simd_width)}


def device_info(device: Any) -> DeviceInfo:
    """What a `pyopencl.Device` tells of itself (vendor extensions where it has them)."""
    import pyopencl as cl

    units = int(device.max_compute_units)
    if device.type & cl.device_type.CPU:
        return DeviceInfo(units, 1, DEFAULT_SIMD_WIDTH)
    extensions = device.extensions.split()
    if "cl_nv_device_attribute_query" in extensions:
        capability = (int(device.compute_capability_major_nv), int(device.compute_capability_minor_nv))
        per_sm = NVIDIA_THREADS_PER_SM.get(capability, GPU_RESIDENT_PER_UNIT)
        return DeviceInfo(units, per_sm, int(device.warp_size_nv))
    if "cl_amd_device_attribute_query" in extensions:
        return DeviceInfo(units, GPU_RESIDENT_PER_UNIT, int(device.wavefront_width_amd))
    return DeviceInfo(units, GPU_RESIDENT_PER_UNIT, DEFAULT_SIMD_WIDTH)
