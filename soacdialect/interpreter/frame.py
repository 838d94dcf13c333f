"""Frames: the lanes a block runs on, and the values it sees."""

from __future__ import annotations

import numpy as np
from soac.interpreter.values import Val
from xdsl.ir import SSAValue


class Frame:
    """Runs code on the lanes of a batch shape; looks values up in itself, then in its parent.

    A child frame (a SOAC lambda) extends its parent's batch shape, so parent
    values stay valid as they are. A frame without parent is a function body.
    """

    __slots__ = ("batch", "env", "parent")

    def __init__(self, batch: tuple[int, ...], parent: Frame | None = None):
        self.batch = batch
        self.parent = parent
        self.env: dict[SSAValue, Val] = {}

    @property
    def rank(self) -> int:
        return len(self.batch)

    def lookup(self, value: SSAValue) -> Val:
        found = self.env.get(value)
        if found is not None:
            return found
        if self.parent is None:
            raise KeyError(f"the interpreter has no value for {value}")
        found = self.translate(self.parent.lookup(value))
        self.env[value] = found
        return found

    def translate(self, val: Val) -> Val:
        """Turn a value of the parent frame into one of this frame."""
        return val

    def child(self, extra: tuple[int, ...]) -> Frame:
        return Frame(self.batch + extra, self)


class MaskedFrame(Frame):
    """The lanes of its parent selected by a boolean `mask` over the parent's first `p` batch dimensions.

    Its batch shape is `(k,) + parent.batch[p:]` with `k` selected lanes; parent
    values are gathered on lookup (once, then cached).
    """

    __slots__ = ("coords", "mask")

    def __init__(self, parent: Frame, mask: np.ndarray):
        self.mask = mask
        self.coords = np.nonzero(mask)
        super().__init__((len(self.coords[0]), *parent.batch[mask.ndim :]), parent)

    def translate(self, val: Val) -> Val:
        arr, rank = val
        p = self.mask.ndim
        if rank == 0:
            return val
        if rank >= p:
            return arr[self.mask], 1 + rank - p
        return arr[self.coords[:rank]], 1
