"""How each target's kernels are spelt in OpenCL C: the inline PTX and workarounds a device family needs.

The targets themselves (what kernels may use: `soac.lowering.kernel.target`) know nothing of OpenCL; the OpenCL
emitter looks up the spelling of the target it prints for here.

| target | shuffles and ballots | signed min/max | f32 atomic add | device-scope global fence |
|---|---|---|---|---|
| `generic`, `cpu` | (none) | C | compare-and-swap loop | `mem_fence` |
| `nvidia` | PTX `shfl.sync`, `vote.sync` | PTX `min.s32`/`max.s32` | PTX `atom.add.f32` | PTX `membar.gl` |
| `emulated-warps` | through a local array and barriers | C | compare-and-swap loop | `mem_fence` |

NVIDIA's OpenCL has no sub-group extension and no float atomics, hence the inline PTX.
"""

from __future__ import annotations

from dataclasses import dataclass

from soac.lowering.kernel.target import DeviceTarget


@dataclass(frozen=True)
class OpenCLSpelling:
    """The OpenCL C quirks of one target (all off: portable OpenCL C 1.2)."""

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
    groups. Without it, a target's sub-groups print as NVIDIA's inline PTX."""


PORTABLE = OpenCLSpelling()

SPELLINGS = {
    "nvidia": OpenCLSpelling(ptx_min_max=True, ptx_float_atomics=True, ptx_fences=True),
    "emulated-warps": OpenCLSpelling(emulated_subgroups=True),
}
"""The targets whose OpenCL differs from portable OpenCL C 1.2."""


def opencl_spelling(target: DeviceTarget) -> OpenCLSpelling:
    """How `target`'s kernels are spelt in OpenCL C."""
    return SPELLINGS.get(target.name, PORTABLE)
