"""The enumerations of the kernel dialect, as xDSL enum attributes that declarative formats print bare.

    %w = kernel.atomic_load %status[%t] acquire device : !kernel.buffer<global, i64> -> i64
                                        ^order  ^scope
    %old = kernel.atomic add %counter[%i], %one : ...      (kind)
    %y = kernel.shuffle down %x, %d width 32 : f32         (mode)
    !kernel.buffer<local, f32>                             (address space)

Standalone (in a generic op's properties) they print as `#kernel<order acquire>`, `#kernel<scope device>`,
`#kernel<atomic_kind add>`, `#kernel<shuffle_mode down>`, `#kernel<space local>`. A value outside the enumeration
is a parse error at its place; what a particular op allows of it (loads are not `release`) its verifier checks.
"""

from __future__ import annotations

from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum


class AddressSpace(StrEnum):
    """Where a buffer lives: device memory every work-item sees, one work-group's local memory, or one work-item's
    private memory (registers where its indices are known when the kernel is compiled)."""

    GLOBAL = "global"
    LOCAL = "local"
    PRIVATE = "private"


class MemoryOrder(StrEnum):
    """C11/OpenCL 2 memory orders: `relaxed` orders nothing around the access, `acquire` (loads) keeps later accesses
    after it, `release` (stores) keeps earlier ones before it."""

    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"


class MemoryScope(StrEnum):
    """The work-items a memory order is promised to."""

    WORKGROUP = "workgroup"
    DEVICE = "device"


class AtomicKind(StrEnum):
    """What `kernel.atomic` does to the element: `min`/`max` compare as signed integers, `umin`/`umax` as unsigned;
    `xchg` stores the value."""

    ADD = "add"
    SUB = "sub"
    MIN = "min"
    MAX = "max"
    UMIN = "umin"
    UMAX = "umax"
    AND = "and"
    OR = "or"
    XOR = "xor"
    XCHG = "xchg"


class ShuffleMode(StrEnum):
    """Which lane `kernel.shuffle` reads: `delta` below (`up`), above (`down`), the lane given (`idx`), or the lane
    whose number differs in the bits of the mask given (`xor`)."""

    UP = "up"
    DOWN = "down"
    IDX = "idx"
    XOR = "xor"


@irdl_attr_definition
class AddressSpaceAttr(EnumAttribute[AddressSpace], SpacedOpaqueSyntaxAttribute):
    name = "kernel.space"


@irdl_attr_definition
class MemoryOrderAttr(EnumAttribute[MemoryOrder], SpacedOpaqueSyntaxAttribute):
    name = "kernel.order"


@irdl_attr_definition
class MemoryScopeAttr(EnumAttribute[MemoryScope], SpacedOpaqueSyntaxAttribute):
    name = "kernel.scope"


@irdl_attr_definition
class AtomicKindAttr(EnumAttribute[AtomicKind], SpacedOpaqueSyntaxAttribute):
    name = "kernel.atomic_kind"


@irdl_attr_definition
class ShuffleModeAttr(EnumAttribute[ShuffleMode], SpacedOpaqueSyntaxAttribute):
    name = "kernel.shuffle_mode"


ENUM_ATTRIBUTES = (AddressSpaceAttr, MemoryOrderAttr, MemoryScopeAttr, AtomicKindAttr, ShuffleModeAttr)
