"""Building blocks of the soac-to-kernel lowering: arrays on host and device, index math, kernel builders.

A host array is a global buffer plus its sizes (`HostArray`); inside a kernel an
array is a `View`: a buffer, an element offset and the sizes, row-major. Rows
of a view are views at an offset, so nested SOACs read rows without copying.

`KernelBuilder` builds one `kernel.func`: it turns host values that the kernel
needs into kernel arguments (once each), remembers which host value every
kernel-side size mirrors (so per-work-item scratch space can be sized on the
host before the launch), and emits the launch.

Run-time checks: `KernelBuilder.check` emits a `kernel.device_assert` (a compare
and a branch) with a module-unique code from `ErrorCodes`, passing the call's
error buffer to the kernel the first time; `load_if`/`store_if` skip an access
whose check failed, so a failing kernel stays memory-safe and the runtime
reports the first failure after the call. Messages are the interpreter's:
`file:line:col: 'soac.index': index {0} is out of bounds for dimension 0 of size {1}`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from soac.lowering.conversion.errors import LoweringError as LoweringError
from soac.lowering.conversion.sizes import Sizes
from soac.lowering.kernel import (
    UNROLL,
    AllocOp,
    BufferType,
    DeviceAssertOp,
    FuncOp,
    GlobalIdOp,
    LaunchOp,
    LoadOp,
    ReturnOp,
    StoreOp,
    error_buffer_type,
    global_buffer,
)
from soac.messages import DIVISION_PROBLEM as DIVISION_PROBLEM
from soac.messages import SLICE_PROBLEM as SLICE_PROBLEM
from soac.messages import describe, error_message
from soac.messages import index_problem as index_problem
from soac.messages import located_message as located_message
from soac.messages import shape_problem as shape_problem
from soac.messages import where as where
from soac.messages import width_problem as width_problem
from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, TensorType, UnitAttr, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint


@dataclass
class ErrorCodes:
    """The codes of a module's `kernel.device_assert`s: 1, 2, ... in the order they are made."""

    last: int = 0

    def next(self) -> int:
        self.last += 1
        return self.last


@dataclass
class HostArray:
    """An array on the host side: a global buffer and its sizes (outermost first), row-major."""

    buffer: SSAValue
    dims: list[SSAValue]
    element: Attribute

    @property
    def rank(self) -> int:
        return len(self.dims)


@dataclass
class View:
    """An array inside a kernel: `buffer[offset + row-major(indices)]` with sizes `dims`."""

    buffer: SSAValue
    offset: SSAValue
    dims: list[SSAValue]
    element: Attribute
    owned: bool = False
    """True for per-work-item scratch, which ops that consume their array may overwrite."""


KValue = SSAValue | View
HValue = SSAValue | HostArray


def tensor_element(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, TensorType) else t


@dataclass
class ConstantPool:
    """Index constants of one function, created once each at the start of its entry block."""

    block: Block
    cache: dict[int, SSAValue] = field(default_factory=dict)
    last: Operation | None = None

    def get(self, value: int) -> SSAValue:
        if (found := self.cache.get(value)) is not None:
            return found
        op = arith.ConstantOp(IntegerAttr(value, IndexType()))
        if self.last is None:
            self.block.insert_op_before(op, self.block.first_op) if self.block.first_op else self.block.add_op(op)
        else:
            self.block.insert_op_after(op, self.last)
        self.last = op
        self.cache[value] = op.result
        return op.result


class IndexMath:
    """Index arithmetic on a builder, folding constants so that generated code stays readable."""

    def __init__(self, builder: Builder, pool: ConstantPool | None = None):
        self.builder = builder
        self.pool = pool

    def insert(self, op: Operation, name: str | None = None) -> SSAValue:
        self.builder.insert(op)
        result = op.results[0]
        if name:
            result.name_hint = name
        return result

    @staticmethod
    def constant_of(value: SSAValue) -> int | None:
        if isinstance(op := value.owner, arith.ConstantOp) and isinstance(attr := op.value, IntegerAttr):
            return attr.value.data
        return None

    def c(self, value: int, name: str | None = None) -> SSAValue:
        if self.pool is not None and name is None:
            return self.pool.get(value)
        return self.insert(arith.ConstantOp(IntegerAttr(value, IndexType())), name)

    def const(self, value: int | float, type_: Attribute) -> SSAValue:
        return self.insert(
            arith.ConstantOp.from_int_and_width(value, type_)
            if isinstance(value, int)
            else arith.ConstantOp(arith.FloatAttr(value, type_))
        )  # pyright: ignore

    def add(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = self.constant_of(a), self.constant_of(b)
        if ca is not None and cb is not None:
            return self.c(ca + cb, name)
        if ca == 0:
            return b
        if cb == 0:
            return a
        return self.insert(arith.AddiOp(a, b), name)

    def sub(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = self.constant_of(a), self.constant_of(b)
        if ca is not None and cb is not None:
            return self.c(ca - cb, name)
        if cb == 0:
            return a
        return self.insert(arith.SubiOp(a, b), name)

    def mul(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = self.constant_of(a), self.constant_of(b)
        if ca is not None and cb is not None:
            return self.c(ca * cb, name)
        if ca == 0 or cb == 0:
            return self.c(0)
        if ca == 1:
            return b
        if cb == 1:
            return a
        return self.insert(arith.MuliOp(a, b), name)

    def div(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = self.constant_of(a), self.constant_of(b)
        if ca is not None and cb is not None:
            return self.c(ca // cb, name)
        if cb == 1:
            return a
        return self.insert(arith.DivUIOp(a, b), name)

    def rem(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        return self.insert(arith.RemUIOp(a, b), name)

    def ceildiv(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        if self.constant_of(b) == 1:
            return a
        return self.div(self.sub(self.add(a, b), self.c(1)), b, name)

    def min(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = self.constant_of(a), self.constant_of(b)
        if ca is not None and cb is not None:
            return self.c(min(ca, cb), name)
        return self.insert(arith.MinUIOp(a, b), name)

    def max(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = self.constant_of(a), self.constant_of(b)
        if ca is not None and cb is not None:
            return self.c(max(ca, cb), name)
        return self.insert(arith.MaxUIOp(a, b), name)

    def lt(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        return self.insert(arith.CmpiOp(a, b, "ult"), name)

    def eq(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        return self.insert(arith.CmpiOp(a, b, "eq"), name)

    def cmp(self, a: SSAValue, b: SSAValue, predicate: str, name: str | None = None) -> SSAValue:
        return self.insert(arith.CmpiOp(a, b, predicate), name)

    def both(self, a: SSAValue | None, b: SSAValue, name: str | None = None) -> SSAValue:
        """`a && b` (`b` when `a` is None)."""
        return b if a is None else self.insert(arith.AndIOp(a, b), name)

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        return self.insert(arith.SelectOp(cond, a, b), name)

    def product(self, values: Sequence[SSAValue], name: str | None = None) -> SSAValue:
        result = self.c(1)
        for value in values:
            result = self.mul(result, value)
        if name and result.name_hint is None and self.constant_of(result) is None:
            result.name_hint = name
        return result

    def row_major(self, indices: Sequence[SSAValue], dims: Sequence[SSAValue]) -> SSAValue:
        """The flat offset of `indices` into an array of sizes `dims` (`indices` may be a prefix)."""
        flat = self.c(0)
        for k, index in enumerate(indices):
            flat = self.add(flat, self.mul(index, self.product(dims[k + 1 :])))
        return flat

    def advance(self, indices: Sequence[SSAValue], step: Sequence[SSAValue], dims: Sequence[SSAValue]) -> list[SSAValue]:
        """The indices of the flat position of `indices` plus that of `step` in an index space of sizes `dims`, where
        both are in range below the outer dimension: added digit by digit from the innermost, each carrying at most
        one (a compare and two selects per dimension instead of a division and a remainder)."""
        advanced: list[SSAValue] = []
        carry: SSAValue | None = None
        for k in reversed(range(len(dims))):
            total = self.add(indices[k], step[k])
            if carry is not None:
                total = self.add(total, carry)
            if k == 0:
                advanced.append(total)
                break
            over = self.cmp(total, dims[k], "uge")
            advanced.append(self.select(over, self.sub(total, dims[k]), total, indices[k].name_hint))
            carry = self.select(over, self.c(1), self.c(0))
        return advanced[::-1]

    def unflatten(self, flat: SSAValue, dims: Sequence[SSAValue], names: Sequence[str | None]) -> list[SSAValue]:
        """The indices of the flat position `flat` in an index space of sizes `dims`."""
        indices: list[SSAValue] = []
        rest = flat
        for k in range(len(dims)):
            inner = self.product(dims[k + 1 :])
            indices.append(self.div(rest, inner, names[k]) if k < len(dims) - 1 else rest)
            if k < len(dims) - 1:
                rest = self.rem(rest, inner)
        if names and names[-1] and indices[-1].name_hint is None and self.constant_of(indices[-1]) is None:
            indices[-1].name_hint = names[-1]
        return indices


@contextmanager
def building_at(builder: Builder, point: InsertPoint) -> Iterator[None]:
    """Temporarily move `builder` to `point`."""
    saved = builder.insertion_point
    builder.insertion_point = point
    try:
        yield
    finally:
        builder.insertion_point = saved


@dataclass
class ScratchRequest:
    """Per-work-item global memory for an array created inside a kernel."""

    element: Attribute
    host_dims: list[SSAValue]
    offset_arg: SSAValue


@dataclass
class KernelBuilder:
    """Builds one `kernel.func` and the host code that launches it.

    `host` is the builder of the host function, positioned before the launch;
    `capture` maps a soac-level value defined outside the kernel to its host value.
    """

    name: str
    host: Builder
    capture: Callable[[SSAValue], HValue]
    host_pool: ConstantPool | None = None
    block: Block = field(default_factory=Block)
    params: list[tuple[SSAValue, Callable[[], SSAValue] | SSAValue]] = field(default_factory=list)
    kernel_of_host: dict[SSAValue, SSAValue] = field(default_factory=dict)
    host_of_kernel: dict[SSAValue, SSAValue] = field(default_factory=dict)
    views_of_host: dict[int, View] = field(default_factory=dict)
    scratch: list[ScratchRequest] = field(default_factory=list)
    scratch_buffers: dict[Attribute, tuple[SSAValue, list[ScratchRequest]]] = field(default_factory=dict)
    scratch_stride: dict[Attribute, SSAValue] = field(default_factory=dict)
    thread_id: SSAValue | None = None
    codes: ErrorCodes = field(default_factory=ErrorCodes)
    host_errors: Callable[[], SSAValue] | None = None
    """Gives the host function's `kernel.error_buffer` (made on first use)."""
    errors: SSAValue | None = None
    host_nonneg: set[SSAValue] = field(default_factory=set)
    """Host values known not to be negative (array sizes, checked widths), shared with the host lowering."""
    host_checked: set[Operation] = field(default_factory=set)
    """Reads whose indices the host checked before the launch (`HostLowering.host_checked`): no check here."""
    warp: int = 0
    """Lanes of the target's sub-groups (`DeviceTarget.subgroup_width`; 0 where it has none): the width of the
    kernel's shuffles and ballots."""
    row_unroll: int = 0
    """`#pragma unroll N` on the loops of the work-item's nested maps and reductions (`row-unroll`; 0: none)."""
    index_bits: int = 64
    """The width of `index` in the kernel (`kernel.func`'s `index_bitwidth`): 32 only where the host launches it
    with every index below 2^31."""

    def __post_init__(self) -> None:
        self.b = Builder(InsertPoint.at_end(self.block))
        self.m = IndexMath(self.b, ConstantPool(self.block))
        self.hm = IndexMath(self.host, self.host_pool)

    # -- arguments ---------------------------------------------------------

    def _new_arg(self, type_: Attribute, source: Callable[[], SSAValue] | SSAValue, name: str | None) -> SSAValue:
        arg = self.block.insert_arg(type_, len(self.block.args))
        arg.name_hint = name
        self.params.append((arg, source))
        return arg

    def scalar(self, host_value: SSAValue, name: str | None = None) -> SSAValue:
        """The kernel-side copy of a host scalar (constants are rematerialised, not passed)."""
        if (existing := self.kernel_of_host.get(host_value)) is not None:
            return existing
        if (value := IndexMath.constant_of(host_value)) is not None and isinstance(host_value.type, IndexType):
            kernel_value = self.m.c(value)
        elif isinstance(owner := host_value.owner, arith.ConstantOp):
            with building_at(self.b, InsertPoint.at_start(self.block)):
                kernel_value = self.m.insert(owner.clone(), host_value.name_hint)
        else:
            kernel_value = self._new_arg(host_value.type, host_value, name or host_value.name_hint)
        self.kernel_of_host[host_value] = kernel_value
        self.host_of_kernel[kernel_value] = host_value
        return kernel_value

    def array(self, array: HostArray, name: str | None = None) -> View:
        """The kernel-side view of a whole host array."""
        if (existing := self.views_of_host.get(id(array))) is not None:
            return existing
        buffer = self.kernel_of_host.get(array.buffer)
        if buffer is None:
            buffer = self._new_arg(array.buffer.type, array.buffer, name or array.buffer.name_hint)
            self.kernel_of_host[array.buffer] = buffer
        base = name or array.buffer.name_hint or "a"
        dims = [self.scalar(d, d.name_hint or f"{base}_d{k}") for k, d in enumerate(array.dims)]
        view = View(buffer, self.m.c(0), dims, array.element)
        self.views_of_host[id(array)] = view
        return view

    def captured(self, value: SSAValue) -> KValue:
        """A value from outside the kernel that the inlined code uses."""
        host_value = self.capture(value)
        if isinstance(host_value, HostArray):
            return self.array(host_value, value.name_hint)
        return self.scalar(host_value, value.name_hint)

    def host_value_of(self, kernel_value: SSAValue, op: Operation) -> SSAValue:
        """The host value a kernel-side index mirrors (to size memory before the launch)."""
        if (host_value := self.host_of_kernel.get(kernel_value)) is not None:
            return host_value
        if (host_value := self.hoisted(kernel_value)) is not None:
            return host_value
        raise LoweringError(
            f"{describe(op)}: the size of an array built inside a kernel must be known before the launch, "
            "but it depends on the element a work-item handles (an irregular array); compute it from sizes "
            "and values outside the enclosing SOAC"
        )

    def hoisted(self, kernel_value: SSAValue) -> SSAValue | None:
        """`kernel_value` computed on the host before the launch, if it is arithmetic on values the host knows."""
        return Sizes(self.hm, self.host_of_kernel.get, cache=self.host_of_kernel).scalar(kernel_value)

    def known_nonneg(self, kernel_value: SSAValue) -> bool:
        """Whether a kernel-side index is known not to be negative (so needs no check for it)."""
        if (constant := IndexMath.constant_of(kernel_value)) is not None:
            return constant >= 0
        return self.host_of_kernel.get(kernel_value) in self.host_nonneg

    def same_host_size(self, kernel_value: SSAValue, like: SSAValue) -> SSAValue:
        """Let `kernel_value` (at most `like`) size scratch space as `like` does; gives `kernel_value`."""
        if (host_value := self.host_of_kernel.get(like)) is not None:
            self.host_of_kernel[kernel_value] = host_value
        elif (constant := IndexMath.constant_of(like)) is not None:
            self.host_of_kernel[kernel_value] = self.hm.c(constant)
        return kernel_value

    # -- memory --------------------------------------------------------------

    def alloc_scratch(self, element: Attribute, dims: Sequence[SSAValue], op: Operation) -> View:
        """Per-work-item global memory for an array of sizes `dims` built inside the kernel."""
        host_dims = [self._host_size(self.host_value_of(d, op)) for d in dims]
        if element not in self.scratch_buffers:
            buffer = self._new_arg(global_buffer(element), lambda e=element: self._scratch_buffer(e), f"scratch_{element}")
            stride = self._new_arg(IndexType(), lambda e=element: self._scratch_stride(e), f"scratch_{element}_stride")
            self.scratch_buffers[element] = (buffer, [])
            self.scratch_stride[element] = stride
        buffer, requests = self.scratch_buffers[element]
        request = ScratchRequest(element, host_dims, SSAValue.get(self.block.args[0]))
        requests.append(request)
        index = len(requests) - 1
        request.offset_arg = self._new_arg(
            IndexType(), lambda e=element, i=index: self._scratch_offset(e, i), f"scratch_{element}_{index}"
        )
        if self.thread_id is None:  # a strategy that does not name its work-items: scratch goes by global id
            with building_at(self.b, InsertPoint.at_start(self.block)):
                self.thread_id = self.global_id()
        with building_at(self.b, InsertPoint.at_end(self.block)):
            base = self.m.mul(self.thread_id, self.scratch_stride[element])
        offset = self.m.add(base, request.offset_arg)
        return View(buffer, offset, list(dims), element, owned=True)

    def _host_size(self, host_value: SSAValue) -> SSAValue:
        """`max(host_value, 0)`: a size inside the kernel may be negative (the kernel reports it, here it takes no space)."""
        constant = IndexMath.constant_of(host_value)
        if host_value in self.host_nonneg or (constant is not None and constant >= 0):
            return host_value
        clamped = self.hm.insert(arith.MaxSIOp(host_value, self.hm.c(0)))
        self.host_nonneg.add(clamped)
        return clamped

    def _scratch_sizes(self, element: Attribute) -> list[SSAValue]:
        return [self.hm.product(r.host_dims) for r in self.scratch_buffers[element][1]]

    def _scratch_offset(self, element: Attribute, index: int) -> SSAValue:
        offset = self.hm.c(0)
        for size in self._scratch_sizes(element)[:index]:
            offset = self.hm.add(offset, size)
        return offset

    def _scratch_stride(self, element: Attribute) -> SSAValue:
        stride = self.hm.c(0)
        for size in self._scratch_sizes(element):
            stride = self.hm.add(stride, size)
        return stride

    def _scratch_buffer(self, element: Attribute) -> SSAValue:
        assert self.launch_size is not None
        total = self.hm.mul(self._scratch_stride(element), self.launch_size)
        return self.hm.insert(AllocOp(total, element), f"scratch_{element}")

    launch_size: SSAValue | None = None

    # -- kernel-side helpers -------------------------------------------------

    def global_id(self, name: str = "gid") -> SSAValue:
        return self.m.insert(GlobalIdOp(0), name)

    def load(self, view: View, flat: SSAValue, name: str | None = None) -> SSAValue:
        return self.m.insert(LoadOp(view.buffer, self.m.add(view.offset, flat)), name)

    def store(self, value: SSAValue, view: View, flat: SSAValue) -> None:
        self.b.insert(StoreOp(value, view.buffer, self.m.add(view.offset, flat)))

    def row(self, view: View, index: SSAValue) -> KValue:
        """Row `index` of `view`: a scalar load for a one-dimensional view."""
        if len(view.dims) == 1:
            return self.load(view, index)
        inner = view.dims[1:]
        return View(view.buffer, self.m.add(view.offset, self.m.mul(index, self.m.product(inner))), inner, view.element)

    def write_row(self, value: KValue, view: View, index: SSAValue) -> None:
        """`view[index] = value`, copying a row element by element when `value` is a view."""
        if isinstance(value, View):
            target = self.row(view, index)
            assert isinstance(target, View)
            self.copy_view(value, target)
            return
        self.store(value, view, index)

    def copy_view(self, source: View, dest: View) -> None:
        """An element loop copying `source` into `dest` (same sizes)."""
        count = self.m.product(source.dims)
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "k"
        with building_at(self.b, InsertPoint.at_end(body)):
            value = self.load(source, body.args[0])
            self.store(value, dest, body.args[0])
            self.b.insert(scf.YieldOp())
        self.b.insert(scf.ForOp(self.m.c(0), count, self.m.c(1), [], body))

    def for_loop(
        self,
        lower: SSAValue,
        upper: SSAValue,
        step: SSAValue,
        inits: Sequence[SSAValue],
        name: str,
        body: Callable[[SSAValue, list[SSAValue]], list[SSAValue]],
        unroll: bool | int = False,
    ) -> list[SSAValue]:
        """An `scf.for` whose body `body(iv, carried) -> next carried` is built in place (marked `kernel.unroll` if
        `unroll`: fully, or by the factor an int above 1 gives)."""
        block = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        block.args[0].name_hint = name
        for arg, init in zip(block.args[1:], inits):
            arg.name_hint = (init.name_hint or "acc") + "_it"
        with building_at(self.b, InsertPoint.at_end(block)):
            carried = body(block.args[0], list(block.args[1:]))
            self.b.insert(scf.YieldOp(*carried))
        loop = scf.ForOp(lower, upper, step, list(inits), block)
        if unroll is True:
            loop.attributes[UNROLL] = UnitAttr()
        elif unroll > 1:
            loop.attributes[UNROLL] = IntegerAttr(unroll, i64)
        self.b.insert(loop)
        for result, init in zip(loop.results, inits):
            result.name_hint = init.name_hint
        return list(loop.results)

    # -- run-time checks -------------------------------------------------------

    def error_buffer(self) -> SSAValue:
        """The kernel argument holding the call's error buffer."""
        if self.errors is None:
            assert self.host_errors is not None, "this kernel builder has no error buffer"
            self.errors = self._new_arg(error_buffer_type(), self.host_errors, "errors")
        return self.errors

    def check(self, ok: SSAValue, op: Operation, problem: str, values: Sequence[SSAValue] = ()) -> None:
        """Record failure `problem` at `op` (with `values` for its `{k}`) unless `ok`; the kernel goes on."""
        self.record_unless(ok, error_message(op, problem), values)

    def record_unless(self, ok: SSAValue, message: str, values: Sequence[SSAValue] = ()) -> None:
        """Record the failure `message` (a template taking `values`) unless `ok`."""
        self.b.insert(DeviceAssertOp(ok, self.error_buffer(), self.codes.next(), message, values))

    def load_if(self, ok: SSAValue | None, view: View, flat: SSAValue, name: str | None = None) -> SSAValue:
        """`view[flat]` if `ok` (or unconditionally when `ok` is None), else zero: no access when a check failed."""
        if ok is None:
            return self.load(view, flat, name)
        element = buffer_element(view.buffer)
        (value,) = self.if_values(
            ok, [element], lambda: [self.load(view, flat)], lambda: [self.m.const(zero_of(element), element)]
        )
        if name:
            value.name_hint = name
        return value

    def if_values(
        self, cond: SSAValue, types: Sequence[Attribute], then: Callable[[], list[SSAValue]], other: Callable[[], list[SSAValue]]
    ) -> list[SSAValue]:
        """An `scf.if` with results, both branches built in place."""
        blocks: list[Block] = []
        for branch in (then, other):
            block = Block()
            with building_at(self.b, InsertPoint.at_end(block)):
                self.b.insert(scf.YieldOp(*branch()))
            blocks.append(block)
        op = scf.IfOp(cond, list(types), Region(blocks[0]), Region(blocks[1]))
        self.b.insert(op)
        return list(op.results)

    def when(self, ok: SSAValue | None, body: Callable[[], None]) -> None:
        """`body` guarded by `ok` (unguarded when `ok` is None)."""
        if ok is None:
            body()
        else:
            self.if_then(ok, body)

    def if_then(self, cond: SSAValue, body: Callable[[], None]) -> None:
        block = Block()
        with building_at(self.b, InsertPoint.at_end(block)):
            body()
            self.b.insert(scf.YieldOp())
        self.b.insert(scf.IfOp(cond, [], Region(block)))

    # -- finishing -----------------------------------------------------------

    def finish(self, global_size: SSAValue, local_size: SSAValue) -> FuncOp:
        """Close the kernel body and emit its allocation of scratch space and its launch on the host."""
        self.b.insert(ReturnOp())
        func = FuncOp(self.name, [a.type for a, _ in self.params], Region(self.block), 32 if self.index_bits == 32 else None)
        self.launch_size = global_size
        args = [source() if callable(source) else source for _, source in self.params]
        self.host.insert(LaunchOp(self.name, args, global_size, local_size))
        return func


def zero_of(element: Attribute) -> int | float:
    return 0 if isinstance(element, IntegerType | IndexType) else 0.0


def buffer_element(value: SSAValue) -> Attribute:
    assert isinstance(value.type, BufferType)
    return value.type.element_type
