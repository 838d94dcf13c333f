"""The OpenCL device families soac targets: what their kernels may use, and the defaults picked for them.

A target is a property of the device, not of a lowering strategy: soac-to-kernel
reads `subgroup_width` to decide whether a strategy may use `kernel.shuffle` and
`kernel.ballot`, the emitter reads it to decide whether it can print them, and
the runtime picks the target of the device it runs on (`target_for_device`).

| target | sub-groups | default scan | grid-stride layout | tiled ops (`soac.tiled_redomap`) | group-level segmaps |
|---|---|---|---|---|---|
| `generic` | none | reduce-then-scan | strided | local-memory tiles | group per element |
| `nvidia` | 32 lanes (`shfl.sync`, `vote.sync`, inline PTX) | look-back | strided | local-memory tiles | group per element |
| `cpu` | none | chunked | contiguous | a result per work-item (caches share the reads) | work-item per element |
| `emulated-warps` | 32 lanes, through local memory and barriers | look-back | strided | local-memory tiles | group per element |

NVIDIA's OpenCL has no sub-group extension and no float atomics, hence the inline PTX. `emulated-warps` is for
tests: it runs the kernels lowered as for NVIDIA (warp shuffles and ballots) on PoCL, where every work-group must
be one warp of 32 work-items (e.g. soac-to-kernel's `scan-group=32 scan-items=8`).
A lowered module names its target in the attribute `kernel.target` on the module.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp, StringAttr

TARGET_ATTRIBUTE = "kernel.target"


@dataclass(frozen=True)
class DeviceTarget:
    name: str
    subgroup_width: int
    """Lanes of a sub-group whose shuffles and ballots kernels may use; 0 when they may use none."""
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

    ptx_min_max: bool = False
    """Signed integer min and max of up to 32 bits print as inline PTX `min.s32`/`max.s32`, out of the C
    compiler's sight. NVIDIA's OpenCL compiler drops the negation in `min(-x, y)` or `max(-x, y)` on `int`
    when the result feeds a min/max reduction in a loop (`acc = min(acc, min(-x, y))` computes
    `min(acc, min(x, y))`, whether the C writes `-x`, `0 - x`, `x * -1` or `y - x - y`, ternaries, `min()` or
    `select()`; `long` and unsigned compares are right, and so is `-cl-opt-disable`)."""

    ptx_float_atomics: bool = False
    """f32 `kernel.atomic add` prints as inline PTX `atom.global.add.f32` / `atom.shared.add.f32` (one hardware
    atomic) rather than OpenCL C's compare-and-swap loop on the bits, which retries under contention."""

    ptx_fences: bool = False
    """A device-scope fence on global memory prints as PTX `membar.gl`: NVIDIA's `mem_fence` orders accesses for
    the work-group only, so a lock released by another work-group could be seen before the stores it guarded."""

    emulated_subgroups: bool = False
    """Shuffles and ballots print as exchanges through a local array with a barrier on each side, for devices with
    no sub-groups (PoCL in the tests). Right only where a work-group is one sub-group and all its work-items reach
    every shuffle and ballot together (a barrier's rule), as the NVIDIA look-back scan's code does with 32-work-item
    groups."""

    @property
    def has_subgroups(self) -> bool:
        return self.subgroup_width > 0


TARGETS = {
    "generic": DeviceTarget("generic", subgroup_width=0, scan="reduce-then-scan", contiguous=False),
    "nvidia": DeviceTarget(
        "nvidia",
        subgroup_width=32,
        scan="lookback",
        contiguous=False,
        ptx_min_max=True,
        ptx_float_atomics=True,
        ptx_fences=True,
    ),
    "cpu": DeviceTarget("cpu", subgroup_width=0, scan="chunked", contiguous=True, local_tiles=False, group_segmaps=False),
    "emulated-warps": DeviceTarget(
        "emulated-warps", subgroup_width=32, scan="lookback", contiguous=False, emulated_subgroups=True
    ),
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
