"""A 32-bit version of a kernel beside its 64-bit one, the host choosing by size (`kernel.func`'s `index_bitwidth`).

On GPUs 64-bit integer arithmetic takes two instructions, so a kernel whose every index stays below 2^31 runs its
index arithmetic in `int`. The host cannot know the sizes before the call, so both versions are emitted and both
launched, the one that does not fit given no work-items (a launch of none is skipped):

    %narrow = arith.andi (every bound < 2^31)
    %narrow_size = arith.select %narrow, %global_size, %c0
    %wide_size = arith.select %narrow, %c0, %global_size
    kernel.launch @f_tiled_0(...) global %narrow_size local ...      // kernel.func ... index_bitwidth 32
    kernel.launch @f_tiled_1(...) global %wide_size local ...        // the 64-bit kernel

A strategy gives the bounds: host values at least as large as every index its kernel computes (array sizes padded by
what the kernel reads past the end, its global size).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from soac.lowering.conversion.host_lowering import HostLowering
from xdsl.ir import SSAValue

NARROW_LIMIT = 2**31
"""A 32-bit version runs where every bound stays below this."""

Launch = tuple[SSAValue, SSAValue]
"""A launch's global and local size."""


def index_versions(
    lw: HostLowering, choice: Literal["auto", "i32", "i64"], bounds: Sequence[SSAValue], launch: Launch
) -> list[tuple[int, Launch]]:
    """The index widths of a kernel, each with its launch: 64 bits alone (`i64`, or `auto` on a target without
    `narrow_indices`), else a 32-bit version launched where every bound is below `NARROW_LIMIT` and a 64-bit one
    launched elsewhere."""
    if choice == "i64" or (choice == "auto" and not lw.target.narrow_indices):
        return [(64, launch)]
    m = lw.m
    fits: SSAValue | None = None
    for bound in bounds:
        fits = m.both(fits, m.lt(bound, m.c(NARROW_LIMIT)))
    assert fits is not None
    fits.name_hint = "narrow"
    global_size, local_size = launch
    return [
        (32, (m.select(fits, global_size, m.c(0), "narrow_size"), local_size)),
        (64, (m.select(fits, m.c(0), global_size, "wide_size"), local_size)),
    ]
