"""How kernels read the neighbours of a `soac.stencil`: the boundary conditions as index arithmetic, and the
neighbour loads of one element, with and without boundary tests.

A neighbour at position `x` (signed: it may lie before the array) of an axis of `n > 0` elements reads

    clamp     min(max(x, 0), n - 1)
    wrap      ((x % n) + n) % n
    mirror    f = ((x % p) + p) % p with p = max(2 (n - 1), 1); f < n ? f : p - f      (-1 reads 1)
    constant  the constant where x is outside [0, n), else x

so any window works on arrays smaller than it, as the interpreter's padding does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from soac import dialect as soac
from soac.lowering.conversion.kernel_builder import IndexMath, KernelBuilder, View, tensor_element, zero_of
from xdsl.dialects import arith
from xdsl.ir import Attribute, SSAValue

if TYPE_CHECKING:
    from soac.lowering.conversion.sequential import Inliner


@dataclass
class StencilReads:
    """What a kernel needs to read an op's neighbours: the inputs' views, the constants (boundary `constant`),
    and which lambda parameters are used (unused neighbours are not read)."""

    op: soac.StencilOp
    views: list[View]
    constants: list[SSAValue]

    @property
    def offsets(self) -> list[tuple[int, ...]]:
        return self.op.offsets

    @property
    def radius(self) -> list[int]:
        return [e // 2 for e in self.op.window_shape]

    def used(self, i: int, k: int) -> bool:
        return bool(self.op.body.block.args[i * len(self.offsets) + k].uses)

    def used_inputs(self) -> list[int]:
        return [i for i in range(len(self.views)) if any(self.used(i, k) for k in range(len(self.offsets)))]

    def arguments(self, kb: KernelBuilder, load: Callable[[int, int], SSAValue]) -> list[SSAValue]:
        """The lambda's arguments: `load(i, k)` for each used neighbour `k` of input `i`, zero for the others."""
        zeros: dict[Attribute, SSAValue] = {}
        args: list[SSAValue] = []
        for i, view in enumerate(self.views):
            for k in range(len(self.offsets)):
                if self.used(i, k):
                    args.append(load(i, k))
                    continue
                if view.element not in zeros:
                    zeros[view.element] = kb.m.const(zero_of(view.element), view.element)
                args.append(zeros[view.element])
        return args


def signed_min(m: IndexMath, a: SSAValue, b: SSAValue) -> SSAValue:
    return m.insert(arith.MinSIOp(a, b))


def signed_max(m: IndexMath, a: SSAValue, b: SSAValue) -> SSAValue:
    return m.insert(arith.MaxSIOp(a, b))


def floor_mod(m: IndexMath, x: SSAValue, p: SSAValue) -> SSAValue:
    """`x mod p` in `[0, p)` for any signed `x` and `p > 0`."""
    return m.insert(arith.RemSIOp(m.add(m.insert(arith.RemSIOp(x, p)), p), p))


def boundary_position(m: IndexMath, x: SSAValue, n: SSAValue, boundary: str) -> tuple[SSAValue, SSAValue | None]:
    """Where position `x` of an axis of `n > 0` elements reads, and (boundary `constant`) whether it is inside."""
    last = m.sub(n, m.c(1))
    if boundary == "wrap":
        return floor_mod(m, x, n), None
    if boundary == "mirror":
        period = signed_max(m, m.add(last, last), m.c(1))
        folded = floor_mod(m, x, period)
        return m.select(m.cmp(folded, n, "slt"), folded, m.sub(period, folded)), None
    clamped = signed_min(m, signed_max(m, x, m.c(0)), last)
    if boundary == "constant":
        return clamped, m.both(m.cmp(x, m.c(0), "sge"), m.cmp(x, n, "slt"), "inside")
    return clamped, None


def read_bounded(
    kb: KernelBuilder, reads: StencilReads, i: int, positions: Sequence[SSAValue], dims: Sequence[SSAValue]
) -> SSAValue:
    """Input `i` at the signed `positions` (one per dimension) under the op's boundary condition."""
    m, boundary = kb.m, reads.op.boundary.data
    mapped: list[SSAValue] = []
    inside: SSAValue | None = None
    for x, n in zip(positions, dims):
        index, ok = boundary_position(m, x, n, boundary)
        mapped.append(index)
        if ok is not None:
            inside = m.both(inside, ok)
    view = reads.views[i]
    value = kb.load(view, m.row_major(mapped, dims))
    return value if inside is None else m.select(inside, value, reads.constants[i])


def interior_condition(
    m: IndexMath, coords: Sequence[SSAValue], dims: Sequence[SSAValue], radius: Sequence[int]
) -> SSAValue | None:
    """Whether the window around `coords` lies inside the array (None: a window of one element always does)."""
    ok: SSAValue | None = None
    for c, n, r in zip(coords, dims, radius):
        if r == 0:
            continue
        ok = m.both(ok, m.cmp(c, m.c(r), "sge"))
        ok = m.both(ok, m.cmp(m.add(c, m.c(r)), n, "slt"))
    if ok is not None:
        ok.name_hint = "interior"
    return ok


def element_arguments(
    kb: KernelBuilder, reads: StencilReads, coords: Sequence[SSAValue], dims: Sequence[SSAValue]
) -> list[SSAValue]:
    """The lambda's arguments at `coords`: plain loads at constant offsets from the element where the whole window
    is inside the array (the interior: no boundary tests), boundary-mapped loads elsewhere (the border)."""
    m = kb.m
    flat = m.row_major(coords, dims)
    strides = [m.product(dims[d + 1 :]) for d in range(len(dims))]

    def plain(i: int, k: int) -> SSAValue:
        offset = m.c(0)
        for o, stride in zip(reads.offsets[k], strides):
            offset = m.add(offset, m.mul(m.c(o), stride))
        return kb.load(reads.views[i], m.add(flat, offset))

    def bounded(i: int, k: int) -> SSAValue:
        return read_bounded(kb, reads, i, [m.add(c, m.c(o)) for c, o in zip(coords, reads.offsets[k])], dims)

    interior = interior_condition(m, coords, dims, reads.radius)
    if interior is None:
        return reads.arguments(kb, plain)
    loaded = [(i, k) for i in range(len(reads.views)) for k in range(len(reads.offsets)) if reads.used(i, k)]
    types = [reads.views[i].element for i, _ in loaded]
    values = kb.if_values(interior, types, lambda: [plain(i, k) for i, k in loaded], lambda: [bounded(i, k) for i, k in loaded])
    by_place = dict(zip(loaded, values))
    return reads.arguments(kb, lambda i, k: by_place[(i, k)])


def emit_sequential_stencil(inliner: Inliner, op: soac.StencilOp) -> None:
    """A stencil nested in a lambda: a loop over its elements inside the work-item, results in scratch memory."""
    kb, m = inliner.kb, inliner.kb.m
    sizes = [inliner.scalar(d) for d in op.dims]
    outs = [kb.alloc_scratch(tensor_element(r.type), list(sizes), op) for r in op.outs]
    dims = [inliner.checked_size(op, d, "dimension") for d in sizes]
    views = [inliner.view(x) for x in op.inputs]
    ok: SSAValue | None = None
    for i, view in enumerate(views):
        for d, (size, n) in enumerate(zip(view.dims, dims)):
            if size is n:
                continue
            same = m.eq(size, n, "same_size")
            kb.check(same, op, f"input #{i} has {{0}} elements in dimension {d}, but the index space has {{1}}", [size, n])
            ok = m.both(ok, same)
    reads = StencilReads(op, views, [inliner.scalar(c) for c in op.constants])
    total = m.product(dims)
    if ok is not None:
        total = m.select(ok, total, m.c(0))

    def element(p: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        coords = m.unflatten(p, dims, [None] * len(dims))
        values = inliner.inline_scalars(op.body, element_arguments(kb, reads, coords, dims))
        for value, out in zip(values, outs):
            kb.store(value, out, p)
        return []

    kb.for_loop(m.c(0), total, m.c(1), [], "p", element)
    for result, out in zip(op.outs, outs):
        inliner.env[result] = out
