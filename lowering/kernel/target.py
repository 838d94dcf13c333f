"""The device families soac targets, as what their kernels may use and the defaults picked for them.

A target is a property of the device, not of a lowering strategy, and not of the language the kernels print in:
soac-to-kernel reads `subgroup_width` to decide whether a strategy may use `kernel.shuffle` and `kernel.ballot`
(and how wide a warp is), an emitter reads it to decide whether it can print them, and the runtime picks the
target of the device it runs on. How a target's kernels are spelt (OpenCL C, inline PTX) is the emitter's
business: `soac.lowering.opencl.target` maps each target onto its OpenCL spelling.

| target | sub-groups | default scan | grid-stride layout | tiled ops (`soac.tiled_redomap`) | group-level segmaps |
|---|---|---|---|---|---|
| `generic` | none | reduce-then-scan | strided | local-memory tiles | group per element |
| `nvidia` | 32 lanes | look-back | strided | local-memory tiles | group per element |
| `cpu` | none | chunked | contiguous | a result per work-item (caches share the reads) | work-item per element |
| `emulated-warps` | 32 lanes (emulated: work-groups of one warp) | look-back | strided | local-memory tiles | group per element |

`emulated-warps` is for tests: it runs the kernels lowered as for NVIDIA (warp shuffles and ballots) on devices
without sub-groups (PoCL), where every work-group must be one warp of 32 work-items (`one_warp_groups`: the runtime
launches it with soac-to-kernel's `group-size=32 scan-group=32` and refuses other sizes).
A lowered module names its target in the attribute `kernel.target` on the module.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp, StringAttr

TARGET_ATTRIBUTE = "kernel.target"
TEAM_WIDTH = 32
"""Lanes of the teams of work-items that stand in for warps on targets without sub-groups (a warp of most GPUs)."""


@dataclass(frozen=True)
class DeviceTarget:
    """What the kernels of a device family may use, and the lowering's defaults for it."""

    name: str
    subgroup_width: int
    """Lanes of a sub-group (a warp) whose shuffles and ballots kernels may use; 0 when they may use none."""
    scan: str
    """The device-wide scan algorithm soac-to-kernel uses unless told otherwise (see `SCAN_STRATEGIES`)."""
    contiguous: bool
    """Grid-stride kernels give each work-item a contiguous range of elements (CPUs) rather than a strided one."""
    local_tiles: bool = True
    """Work-groups share the reads of a tiled op through local memory (GPUs); on CPUs, where local memory is
    ordinary memory and barriers are costly, each work-item computes its results alone and the caches share."""
    group_segmaps: bool = True
    """A group-level segmap runs each element on a work-group that shares out its inner segops (GPUs); on CPUs
    a work-item runs each element alone. The inner parallelism has no cores to go to there, and PoCL (3.0 and
    3.1, default work-group method `loopvec`) computed wrong results for some of these kernels, with many
    barriers in loops, that NVIDIA's OpenCL and PoCL's `loops` method ran right."""
    one_warp_groups: bool = False
    """Every work-group of a kernel that shuffles must be one sub-group (`emulated-warps`: its shuffles and ballots go
    through one warp's local array between barriers, so a second warp in the group would overwrite the first's
    lanes, and a shuffle that only some warps of a group reach would break the barriers' rule). The runtime launches
    such a target's kernels in groups of `subgroup_width` (`soac.lowering.runtime.options_for`)."""

    narrow_indices: bool = False
    """Kernels that the host launches by size get a 32-bit version for sizes below 2^31 (on GPUs 64-bit integer
    arithmetic takes two instructions; `kernel.func`'s `index_bitwidth`)."""

    @property
    def has_subgroups(self) -> bool:
        return self.subgroup_width > 0

    @property
    def team_width(self) -> int:
        """The most lanes of a team that combines values as a warp does: the sub-group width, else `TEAM_WIDTH`
        (such teams combine through local memory)."""
        return self.subgroup_width or TEAM_WIDTH


TARGETS = {
    "generic": DeviceTarget("generic", subgroup_width=0, scan="reduce-then-scan", contiguous=False),
    "nvidia": DeviceTarget("nvidia", subgroup_width=32, scan="lookback", contiguous=False, narrow_indices=True),
    "cpu": DeviceTarget("cpu", subgroup_width=0, scan="chunked", contiguous=True, local_tiles=False, group_segmaps=False),
    "emulated-warps": DeviceTarget("emulated-warps", subgroup_width=32, scan="lookback", contiguous=False, one_warp_groups=True),
}


def get_target(name: str) -> DeviceTarget:
    if (target := TARGETS.get(name)) is None:
        raise ValueError(f"unknown target '{name}': expected one of {', '.join(TARGETS)}")
    return target


def target_of_module(module: ModuleOp) -> DeviceTarget:
    """The target a lowered module was lowered for (`generic` when it does not say)."""
    attr = module.attributes.get(TARGET_ATTRIBUTE)
    return get_target(attr.data) if isinstance(attr, StringAttr) else TARGETS["generic"]


def set_target_of_module(module: ModuleOp, target: DeviceTarget) -> None:
    module.attributes[TARGET_ATTRIBUTE] = StringAttr(target.name)
