"""Threshold defaults computed from the device (`device "resident"`, `device "group"`): the rule on fake device
info, and the runtime applying it where a call sets no value."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pyopencl as cl
import pytest
from soac.context import make_context
from soac.dialect import OnDevice
from soac.interpreter import run_function
from soac.lowering.opencl.device_defaults import DeviceInfo, device_info, threshold_defaults
from soac.lowering.runtime import compile_module
from soac.parsing import parse_module

H200 = DeviceInfo(compute_units=132, resident_per_unit=2048, simd_width=32)


def test_resident_work_items_and_a_group_s_worth() -> None:
    assert threshold_defaults(H200) == {OnDevice.RESIDENT: 132 * 2048, OnDevice.GROUP: 32}
    assert threshold_defaults(DeviceInfo(4, 1, 32)) == {OnDevice.RESIDENT: 4, OnDevice.GROUP: 32}


def fake_device(kind: int, units: int, extensions: str = "", **vendor: int) -> SimpleNamespace:
    return SimpleNamespace(type=kind, max_compute_units=units, extensions=extensions, **vendor)


@pytest.mark.parametrize(
    ("device", "expected"),
    [
        (fake_device(cl.device_type.CPU, 16), DeviceInfo(16, 1, 32)),  # a work-item per core, as Futhark on CPUs
        (
            fake_device(
                cl.device_type.GPU,
                132,
                "cl_khr_fp64 cl_nv_device_attribute_query",
                compute_capability_major_nv=9,
                compute_capability_minor_nv=0,
                warp_size_nv=32,
            ),
            H200,
        ),
        (
            fake_device(
                cl.device_type.GPU,
                84,
                "cl_nv_device_attribute_query",
                compute_capability_major_nv=8,
                compute_capability_minor_nv=6,
                warp_size_nv=32,
            ),
            DeviceInfo(84, 1536, 32),  # GA102: 1536 threads per SM
        ),
        (
            fake_device(cl.device_type.GPU, 304, "cl_amd_device_attribute_query", wavefront_width_amd=64),
            DeviceInfo(304, 2048, 64),
        ),
        (fake_device(cl.device_type.GPU, 20), DeviceInfo(20, 2048, 32)),
    ],
    ids=["cpu", "h200", "ga102", "amd", "other-gpu"],
)
def test_device_info_from_what_the_device_says(device: SimpleNamespace, expected: DeviceInfo) -> None:
    assert device_info(device) == expected


CHOICE = """
func.func @main(%n: index) -> (i32, i32, i32) {
  %outer = soac.threshold "outer" %n default 1000000 device "resident"
  %group = soac.threshold "group" %n default 1000000 device "group"
  %fixed = soac.threshold "fixed" %n default 1000000
  %a = arith.extui %outer : i1 to i32
  %b = arith.extui %group : i1 to i32
  %c = arith.extui %fixed : i1 to i32
  func.return %a, %b, %c : i32, i32, i32
}
"""


def test_the_runtime_takes_the_device_s_figure_unless_told() -> None:
    module = parse_module(make_context(), CHOICE, "choice.mlir")
    program = compile_module(module)
    figures = threshold_defaults(device_info(program.device))
    assert program.device_defaults == figures
    resident, group = figures[OnDevice.RESIDENT], figures[OnDevice.GROUP]

    def flags(n: int, thresholds: dict[str, int] | None = None) -> list[int]:
        return [int(np.asarray(r)) for r in program.call("main", [n], thresholds)]

    assert flags(resident) == [1, int(resident >= group), 0]
    assert flags(resident - 1)[0] == 0
    assert flags(group)[1:] == [1, 0]
    assert flags(group - 1)[1] == 0
    # A call's (or tuning file's) values win; the interpreter, which knows no device, keeps the defaults.
    assert flags(resident, {"outer": resident + 1, "group": 0, "fixed": 0}) == [0, 1, 1]
    assert [int(np.asarray(r)) for r in run_function(module, "main", [resident])] == [0, 0, 0]
