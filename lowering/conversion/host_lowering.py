"""`HostLowering`: the state of lowering one host function, shared by soac-to-kernel and every strategy.

It keeps the soac-to-host value map (each soac value's host scalar or `HostArray`: a buffer and its sizes), the
kernels made so far, the pass options (`LoweringOptions`: the target and every strategy choice), and the host's
run-time checks. The strategies in `lowering/strategies/` take it as `lw`; the pass (`soac_to_kernel.py`) makes one
per host function and walks the function's ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from soac.lowering.conversion.kernel_builder import (
    SLICE_PROBLEM,
    ConstantPool,
    ErrorCodes,
    HostArray,
    HValue,
    IndexMath,
    KernelBuilder,
    LoweringError,
    describe,
    error_message,
    index_problem,
    shape_problem,
    width_problem,
)
from soac.lowering.conversion.options import LoweringOptions
from soac.lowering.conversion.sizes import Sizes
from soac.lowering.kernel import ERROR_VALUES, AllocOp, AssertOp, CheckEqOp, ErrorBufferOp, FuncOp
from soac.lowering.kernel.target import DeviceTarget
from soac.messages import reshape_problem
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, Region, SSAValue


@dataclass
class HostLowering:
    """The state of lowering one host function: the soac-to-host value map and the kernels made so far."""

    func_name: str
    builder: Builder
    kernels: list[FuncOp]
    pool: ConstantPool
    options: LoweringOptions = field(default_factory=LoweringOptions)
    """The pass options: the target and every strategy choice (`conversion/options.py`)."""
    env: dict[SSAValue, HValue] = field(default_factory=dict)
    counter: dict[str, int] = field(default_factory=dict)
    codes: ErrorCodes = field(default_factory=ErrorCodes)
    """The codes of the module's device assertions (shared by all its functions)."""
    nonneg: set[SSAValue] = field(default_factory=set)
    """Host values known not to be negative: array sizes and checked widths."""
    hoisted: dict[SSAValue, SSAValue] = field(default_factory=dict)
    """Soac-level sizes inside lambdas that the host computed ahead of a launch (to size its outputs)."""
    loops_assumed: set[tuple[Operation, int]] = field(default_factory=set)
    errors: SSAValue | None = None
    lowered_with: set[Operation] = field(default_factory=set)
    """Ops whose work another op's kernels do (a scatter done by the scan that makes its indices): skipped."""
    host_checked: set[Operation] = field(default_factory=set)
    """Reads whose indices the host checked before the launches of the kernels that make them (`segred_vector.
    check_reads`): the kernels do not check them again."""

    @property
    def target(self) -> DeviceTarget:
        """What the kernels may use (sub-group operations)."""
        return self.options.device_target

    @property
    def group_size(self) -> int:
        return self.options.group_size

    @property
    def max_groups(self) -> int:
        return self.options.max_groups

    @property
    def scan_strategy(self) -> str:
        """The device-wide scan algorithm (`SCAN_STRATEGIES` in conversion/options.py)."""
        return self.options.scan_strategy

    @property
    def contiguous(self) -> bool:
        """Grid-stride kernels give each work-item a contiguous range of elements (CPU devices; see `strategies/maps.py`)."""
        return self.options.contiguous

    @property
    def segred(self) -> str:
        """The segred strategy (`auto` chooses at run time)."""
        return self.options.segred

    @property
    def segscan(self) -> str:
        """The segscan strategy (`auto` chooses at run time)."""
        return self.options.segscan

    @property
    def m(self) -> IndexMath:
        return IndexMath(self.builder, self.pool)

    @property
    def warps(self) -> bool:
        """Kernels may use warp shuffles and ballots: the target has sub-groups of 32 lanes."""
        return self.target.subgroup_width >= 32

    def lookup(self, value: SSAValue) -> HValue:
        if (found := self.env.get(value)) is None:
            owner = value.owner
            where = describe(owner) if isinstance(owner, Operation) else "a block argument"
            raise LoweringError(f"value {value} defined by {where} is not available on the host")
        return found

    def scalar(self, value: SSAValue) -> SSAValue:
        found = self.lookup(value)
        assert isinstance(found, SSAValue)
        return found

    def array(self, value: SSAValue) -> HostArray:
        found = self.lookup(value)
        assert isinstance(found, HostArray)
        return found

    def kernel(self, kind: str) -> KernelBuilder:
        index = self.counter.get(kind, 0)
        self.counter[kind] = index + 1
        return KernelBuilder(
            f"{self.func_name}_{kind}_{index}",
            self.builder,
            self.lookup,
            self.pool,
            codes=self.codes,
            host_errors=self.error_buffer,
            host_nonneg=self.nonneg,
            host_checked=self.host_checked,
            warp=self.target.subgroup_width,
            row_unroll=self.options.row_unroll,
        )

    def error_buffer(self) -> SSAValue:
        """The call's error buffer, for kernels that can fail (made at the start of the function on first use)."""
        if self.errors is None:
            op = ErrorBufferOp()
            block = self.pool.block
            block.insert_op_before(op, block.first_op) if block.first_op else block.add_op(op)
            self.errors = op.result
            self.errors.name_hint = "errors"
        return self.errors

    # -- run-time checks on the host -------------------------------------------

    def check(self, ok: SSAValue, op: Operation, problem: str, values: Sequence[SSAValue] = ()) -> None:
        """Fail the run with `problem` at `op` (its `{k}` replaced by `values`) unless `ok`."""
        self.builder.insert(AssertOp(ok, error_message(op, problem), values))

    def check_size(self, op: Operation, size: SSAValue, what: str) -> None:
        """Check that a width or size is not negative (`negative width -3`)."""
        constant = IndexMath.constant_of(size)
        if size in self.nonneg or (constant is not None and constant >= 0):
            return
        self.check(self.m.cmp(size, self.m.c(0), "sge", "nonneg"), op, f"negative {what} {{0}}", [size])
        self.nonneg.add(size)

    def check_indices(self, op: Operation, indices: Sequence[SSAValue], dims: Sequence[SSAValue]) -> None:
        for k, (index, size) in enumerate(zip(indices, dims)):
            constant, limit = IndexMath.constant_of(index), IndexMath.constant_of(size)
            if constant is not None and limit is not None and 0 <= constant < limit:
                continue
            self.check(self.m.lt(index, size, "in_bounds"), op, index_problem(k), [index, size])

    def check_slice(self, op: Operation, start: SSAValue, end: SSAValue, size: SSAValue) -> None:
        m = self.m
        if IndexMath.constant_of(start) == 0 and end is size:
            return
        ok = m.both(m.cmp(start, end, "ule"), m.cmp(end, size, "ule"), "in_bounds")
        self.check(ok, op, SLICE_PROBLEM, [start, end, size])

    def check_reshape(self, op: Operation, count: SSAValue, sizes: Sequence[SSAValue]) -> None:
        """Check that `count` elements fill an array of `sizes`."""
        if len(sizes) == 1 and sizes[0] is count:
            return
        ok = self.m.eq(count, self.m.product(sizes), "same_count")
        if len(sizes) + 1 <= ERROR_VALUES:
            self.check(ok, op, reshape_problem(len(sizes)), [count, *sizes])
        else:
            self.check(ok, op, f"cannot reshape an array to sizes of another element count (rank {len(sizes)})")

    def check_shape(self, op: Operation, value: Sequence[SSAValue], row: Sequence[SSAValue]) -> None:
        """Check that a value of sizes `value` fits a row of sizes `row`."""
        if all(a is b for a, b in zip(value, row)):
            return
        ok: SSAValue | None = None
        for a, b in zip(value, row):
            if a is not b:
                ok = self.m.both(ok, self.m.eq(a, b), "same_shape")
        assert ok is not None
        if 2 * len(row) <= ERROR_VALUES:
            self.check(ok, op, shape_problem(len(row)), [*value, *row])
        else:
            self.check(ok, op, f"a value of another shape does not fit a row of rank {len(row)}")

    def add_kernel(self, kb: KernelBuilder, global_size: SSAValue, local_size: SSAValue) -> None:
        self.kernels.append(kb.finish(global_size, local_size))

    def alloc(self, element: Attribute, dims: Sequence[SSAValue], name: str | None = None) -> HostArray:
        size = self.m.product(dims)
        buffer = self.m.insert(AllocOp(size, element), name)
        self.nonneg.update(dims)
        return HostArray(buffer, list(dims), element)

    def check_rows(self, op: Operation, width: SSAValue, inputs: Sequence[SSAValue], skipped: Sequence[SSAValue] = ()) -> None:
        """Check that `op`'s `inputs` (not those `skipped`) have `width` rows, in the interpreter's words."""
        for k, value in enumerate(inputs):
            rows = self.array(value).dims[0] if value not in skipped else width
            if rows is not width:
                self.builder.insert(CheckEqOp(width, rows, error_message(op, width_problem(k))))

    def grid(self, work: SSAValue) -> tuple[SSAValue, SSAValue]:
        """Global and local size of a grid-stride launch over `work` items (0 when there is nothing to do)."""
        m = self.m
        groups = m.min(m.ceildiv(work, m.c(self.group_size)), m.c(self.max_groups), "num_groups")
        return m.mul(groups, m.c(self.group_size), "global_size"), m.c(self.group_size)

    def row_dims(self, op: Operation, region: Region, results: Sequence[SSAValue], first: int = 0) -> list[list[SSAValue]]:
        """The host-known row sizes of the arrays a lambda yields (for arrays of arrays)."""
        yielded = list(region.block.last_op.operands)[first:]  # pyright: ignore[reportOptionalMemberAccess]
        dims: list[list[SSAValue]] = []
        for value, result in zip(yielded, results):
            if not isinstance(value.type, TensorType):
                dims.append([])
                continue
            dims.append(self._known_dims(op, region, value))
        return dims

    def _known_dims(self, op: Operation, region: Region, value: SSAValue) -> list[SSAValue]:
        del region
        if (dims := self.sizes.dims(value)) is None:
            raise LoweringError(
                f"{describe(op)}: the size of the arrays its lambda yields depends on the element (an irregular "
                "array), so it cannot be known before the launch; compute it from sizes and values outside the lambda"
            )
        return dims

    @property
    def sizes(self) -> Sizes:
        """Sizes inside lambdas as host values, computed ahead of a launch (see `conversion/sizes.py`)."""
        return Sizes(
            self.m,
            self._scalar_here,
            self._array_here,
            cache=self.hoisted,
            proves_loops=True,
            assumed=self.loops_assumed,
            at_least_zero=self._at_least_zero,
        )

    def _at_least_zero(self, size: SSAValue) -> SSAValue:
        constant = IndexMath.constant_of(size)
        if size in self.nonneg or (constant is not None and constant >= 0):
            return size
        return self.m.insert(arith.MaxSIOp(size, self.m.c(0)), size.name_hint)

    def _scalar_here(self, value: SSAValue) -> SSAValue | None:
        found = self.env.get(value)
        return found if isinstance(found, SSAValue) else None

    def _array_here(self, value: SSAValue) -> list[SSAValue] | None:
        found = self.env.get(value)
        return found.dims if isinstance(found, HostArray) else None
