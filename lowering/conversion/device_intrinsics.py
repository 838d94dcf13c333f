"""Builders for the device operations of the fast reduction and scan kernels: status words, vector accesses,
warp shuffles and ballots, tickets.

Each builds kernel-dialect ops (`kernel.atomic_load`, `kernel.vector_load`,
`kernel.shuffle`, ...) at a `KernelBuilder`'s insertion point. Status words of a
look-back scan are i64s packing a flag (high 32 bits) and a value's bits (low
32 bits), so that one relaxed 64-bit store publishes both; values of other scalar
types than i32 go through 32-bit integers for status words and shuffles.
"""

from __future__ import annotations

from collections.abc import Sequence

from soac.lowering.conversion.kernel_builder import KernelBuilder, View, building_at
from soac.lowering.kernel import (
    AtomicLoadOp,
    AtomicOp,
    AtomicStoreOp,
    BallotOp,
    MatchAnyOp,
    ShuffleOp,
    VectorLoadOp,
    VectorStoreOp,
)
from soac.lowering.kernel.memory import element_bytes
from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import IntegerType, i32, i64
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

# -- 32-bit round trips ---------------------------------------------------------


def bit_width(t: Attribute) -> int | None:
    if str(t) == "i1":
        return 1
    size = element_bytes(t)
    return None if size is None else 8 * size


def fits_32(t: Attribute) -> bool:
    width = bit_width(t)
    return width is not None and width <= 32 and str(t) != "f16"


def fits_shuffle(t: Attribute) -> bool:
    """Whether `shuffle` can move a scalar of type `t`: f32, or an integer of at most 32 bits."""
    return str(t) == "f32" or (isinstance(t, IntegerType) and t.width.data <= 32)


def to_bits32(kb: KernelBuilder, value: SSAValue) -> SSAValue:
    """The bits of a scalar of at most 32 bits as an i32."""
    t = str(value.type)
    if t == "i32":
        return value
    if t == "f32":
        return kb.m.insert(arith.BitcastOp(value, i32))
    return kb.m.insert(arith.ExtUIOp(value, i32))


def from_bits32(kb: KernelBuilder, bits: SSAValue, t: Attribute) -> SSAValue:
    if str(t) == "i32":
        return bits
    if str(t) == "f32":
        return kb.m.insert(arith.BitcastOp(bits, t))
    return kb.m.insert(arith.TruncIOp(bits, t))


# -- status words -----------------------------------------------------------------


def pack_status(kb: KernelBuilder, flag: int, value: SSAValue) -> SSAValue:
    """`flag << 32 | bits(value)` as an i64 status word."""
    low = kb.m.insert(arith.ExtUIOp(to_bits32(kb, value), i64))
    if flag == 0:
        return low
    high = kb.m.const(flag << 32, i64)
    return kb.m.insert(arith.OrIOp(low, high))


def unpack_value(kb: KernelBuilder, word: SSAValue, t: Attribute) -> SSAValue:
    return from_bits32(kb, kb.m.insert(arith.TruncIOp(word, i32)), t)


def status_flag(kb: KernelBuilder, word: SSAValue) -> SSAValue:
    return kb.m.insert(arith.TruncIOp(kb.m.insert(arith.ShRUIOp(word, kb.m.const(32, i64))), i32))


def store_status(kb: KernelBuilder, word: SSAValue, buffer: View, index: SSAValue) -> None:
    """Publish a status word: flag and value in one relaxed 64-bit store, so no fence is needed."""
    kb.b.insert(AtomicStoreOp(word, buffer.buffer, index, "relaxed", "device"))


def store_status_pairs(kb: KernelBuilder, words: Sequence[SSAValue], packed: View, index: SSAValue) -> None:
    """Publish a tile's status words (an even number), kept side by side at `packed[len(words) * index]`, two at a time
    in volatile 16-byte stores."""
    base = kb.m.mul(index, kb.m.c(len(words)))
    for j in range(0, len(words), 2):
        kb.b.insert(VectorStoreOp(words[j : j + 2], packed.buffer, kb.m.add(base, kb.m.c(j)), volatile=True))


def spin_status(kb: KernelBuilder, buffers: Sequence[View], index: SSAValue, packed: int = 0) -> list[SSAValue]:
    """Wait until the status words `buffers[*][index]` are published with one and the same flag; gives the words.
    With `packed` words per tile, `buffers` is one array holding each tile's words side by side
    (`store_status_pairs`).

    An `scf.while` whose condition region reads every word (relaxed atomic loads; volatile 16-byte loads of two
    packed words) and goes on while the first flag is 0 (nothing published) or another word's flag differs from it.
    """
    before = Block()
    with building_at(kb.b, InsertPoint.at_end(before)):
        if packed:
            (array,) = buffers
            base = kb.m.mul(index, kb.m.c(packed))
            pairs = [VectorLoadOp(array.buffer, kb.m.add(base, kb.m.c(j)), 2, volatile=True) for j in range(0, packed, 2)]
            words = [w for pair in pairs for w in kb.b.insert(pair).results]
        else:
            words = [kb.m.insert(AtomicLoadOp(b.buffer, index, "relaxed", "device"), "word") for b in buffers]
        flags = [kb.m.insert(arith.ShRUIOp(w, kb.m.const(32, i64))) for w in words]
        waiting = kb.m.insert(arith.CmpiOp(flags[0], kb.m.const(0, i64), "eq"))
        for flag in flags[1:]:
            waiting = kb.m.insert(arith.OrIOp(waiting, kb.m.insert(arith.CmpiOp(flag, flags[0], "ne"))))
        waiting.name_hint = "waiting"
        kb.b.insert(scf.ConditionOp(waiting, *words))
    after = Block([scf.YieldOp()], arg_types=[i64] * len(words))
    loop = kb.b.insert(scf.WhileOp([], [i64] * len(words), Region(before), Region(after)))
    return list(loop.results)


def atomic_ticket(kb: KernelBuilder, counter: View) -> SSAValue:
    """The old value of `counter[0]`, incremented atomically, as an index."""
    ticket = kb.m.insert(AtomicOp("add", counter.buffer, kb.m.c(0), kb.m.const(1, i32)))
    return kb.m.insert(arith.IndexCastOp(ticket, kb.m.c(0).type))


# -- vector memory access ------------------------------------------------------


def vector_load(kb: KernelBuilder, view: View, index: SSAValue, width: int) -> list[SSAValue]:
    """`width` consecutive elements from `view[index]` (aligned to the vector's size) in one vector load."""
    op = kb.b.insert(VectorLoadOp(view.buffer, kb.m.add(view.offset, index), width))
    return list(op.elements)


def vector_store(kb: KernelBuilder, values: Sequence[SSAValue], view: View, index: SSAValue) -> None:
    kb.b.insert(VectorStoreOp(values, view.buffer, kb.m.add(view.offset, index)))


# -- warp operations -----------------------------------------------------------


def _as_i32(kb: KernelBuilder, value: SSAValue) -> SSAValue:
    if isinstance(value.type, IntegerType) and value.type.width.data == 32:
        return value
    return kb.m.insert(arith.IndexCastOp(value, i32))


def _warp(kb: KernelBuilder) -> int:
    if not kb.warp:
        raise ValueError(f"kernel {kb.name} uses warp shuffles or ballots, but its target has no sub-groups")
    return kb.warp


def log_warp(kb: KernelBuilder) -> int:
    """log2 of the lanes of the kernel's warps."""
    return _warp(kb).bit_length() - 1


def shuffle(kb: KernelBuilder, mode: str, value: SSAValue, lane: SSAValue) -> SSAValue:
    """`kernel.shuffle` (`up`, `down`, `idx`, `xor`) of a scalar of at most 32 bits across the warp."""
    bits = kb.m.insert(ShuffleOp(mode, to_bits32(kb, value), _as_i32(kb, lane), _warp(kb)))
    return from_bits32(kb, bits, value.type)


def ballot(kb: KernelBuilder, predicate: SSAValue) -> SSAValue:
    """The warp's ballot of an i1: bit `l` is set when lane `l`'s predicate holds."""
    return kb.m.insert(BallotOp(predicate, _warp(kb)))


def match_any(kb: KernelBuilder, value: SSAValue) -> SSAValue:
    """The warp's lanes whose i32 `value` equals this lane's, as an i32 mask."""
    return kb.m.insert(MatchAnyOp(_as_i32(kb, value), _warp(kb)))


def lowest_set_bit(kb: KernelBuilder, bits: SSAValue) -> SSAValue:
    """The index of the lowest set bit of an i32 (32 when none), as an index."""
    trailing = kb.m.insert(math.CountTrailingZerosOp(bits))
    return kb.m.insert(arith.IndexCastOp(trailing, kb.m.c(0).type))
