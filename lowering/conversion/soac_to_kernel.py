"""`soac-to-kernel`: lowers every SOAC to OpenCL-style kernels and host code that allocates and launches them.

Each host function keeps its name; every array argument and result becomes a
global buffer followed by its sizes (row-major), and the function remembers its
soac-level type in the `soac.source_type` attribute so that the runtime can bind
numpy arrays. Before:

    func.func @scale(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
      %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
        %y = arith.mulf %x, %x : f32
        soac.yield %y : f32
      }
      func.return %ys : tensor<?xf32>
    }

After (abridged):

    func.func @scale(%n: index, %xs: !kernel.buffer<global, f32>, %xs_d0: index)
        -> (!kernel.buffer<global, f32>, index) attributes {soac.source_type = ...} {
      kernel.check_eq %n, %xs_d0 "f.mlir:2:9: 'soac.map': width {0} does not match the outer size {1} of input #0"
      %ys = kernel.alloc %n : !kernel.buffer<global, f32>
      ...
      kernel.launch @scale_map_0(%xs, %ys, %n : ...) global %global local %c256
      func.return %ys, %n : !kernel.buffer<global, f32>, index
    }
    kernel.func @scale_map_0(%xs: !kernel.buffer<global, f32>, %ys: !kernel.buffer<global, f32>, %n: index) {
      %gid = kernel.global_id 0
      %gsize = kernel.global_size 0
      scf.for %i = %gid to %n step %gsize {
        %x = kernel.load %xs[%i] : !kernel.buffer<global, f32> -> f32
        %y = arith.mulf %x, %x : f32
        kernel.store %y, %ys[%i] : f32, !kernel.buffer<global, f32>
      }
      kernel.return
    }

The strategies for each SOAC live in `lowering/strategies/`, one module per
strategy; `lowering/strategies/choice.py` says which op gets which.

The sizes of the arrays a lambda yields must be known on the host before the
launch: host values, `tensor.dim` of arrays whose sizes the host knows (rows of
a host array have its inner sizes), and arithmetic on those, which the host
evaluates ahead (`conversion/sizes.py`). A size that depends on the element is an
irregular array, which soac-to-kernel refuses with a message saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from soac import dialect as soac
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
    located_message,
    shape_problem,
    width_problem,
)
from soac.lowering.conversion.sizes import Sizes
from soac.lowering.kernel import (
    ERROR_VALUES,
    AssertOp,
    CheckEqOp,
    ErrorBufferOp,
    FuncOp,
    Kernel,
    ThresholdOp,
    global_buffer,
)
from soac.lowering.opencl.target import TARGETS, DeviceTarget, get_target, set_target_of_module
from soac.messages import reshape_problem
from soac.passes.hist_rows import hists_of_rows_to_elements
from soac.passes.recompute_forwarded import recompute_all_forwarded
from soac.passes.split_scan_reduce import split_scan_reductions
from soac.passes.vectorised_operators import interchange_vectorised_operators
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, scf, tensor
from xdsl.dialects.builtin import FunctionType, IndexType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

SCAN_STRATEGIES = ("reduce-then-scan", "lookback", "chunked")
"""Device-wide scan algorithms: reduce-then-scan (any device), single-pass decoupled look-back (`lookback`: needs
forward progress of started work-groups; with warp shuffles on targets with sub-groups; see
`strategies/lookback_scan.py`), and `chunked` for CPUs (one work-item per contiguous chunk, also used for reduce and
redomap; see `strategies/chunked_scan.py`). Each target has its default (`opencl/target.py`)."""

LAYOUTS = ("strided", "contiguous")


def lowered_types(t: Attribute) -> list[Attribute]:
    """The host-level types of a soac-level value: a buffer and one size per dimension for arrays."""
    if isinstance(t, TensorType):
        return [global_buffer(t.get_element_type()), *([IndexType()] * t.get_num_dims())]
    return [t]


WIDE_SOACS = (soac.MapOp, soac.ScatterOp, soac.HistOp, soac.ReduceOp, soac.RedomapOp, soac.ScanOp, soac.ScanomapOp)
"""The SOACs with a width, checked before their launches."""


@dataclass
class HostLowering:
    """The state of lowering one host function: the soac-to-host value map and the kernels made so far."""

    func_name: str
    builder: Builder
    kernels: list[FuncOp]
    group_size: int
    max_groups: int
    scan_strategy: str
    pool: ConstantPool
    contiguous: bool = False
    """Grid-stride kernels give each work-item a contiguous range of elements (CPU devices; see `strategies/maps.py`)."""
    target: DeviceTarget = TARGETS["generic"]
    """What the kernels may use (sub-group operations)."""
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
    segred: str = "auto"
    """The segred strategy (`SEGRED_STRATEGIES` in strategies/choice.py): `auto` chooses at run time."""
    segscan: str = "auto"
    """The segscan strategy (`SEGSCAN_STRATEGIES`)."""

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
        from soac.lowering.kernel import AllocOp

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


def _strategies() -> dict[type[Operation], Callable[[HostLowering, Operation], None]]:
    from soac.lowering.strategies.choice import strategies  # lazily: the strategies import this module

    return strategies()


class FunctionLowering:
    """Lowers the body of one host `func.func` op by op."""

    def __init__(self, lowering: HostLowering):
        self.lw = lowering
        self.strategies = _strategies()

    def lower_block(self, block: Block) -> list[SSAValue] | None:
        """Lower the ops of `block`; returns the expanded operands of its terminator."""
        for op in block.ops:
            if isinstance(op, func.ReturnOp | scf.YieldOp | scf.ConditionOp):
                return self.expand(op.operands)
            self.lower_op(op)
        return None

    def expand(self, values: Sequence[SSAValue]) -> list[SSAValue]:
        flat: list[SSAValue] = []
        for value in values:
            found = self.lw.lookup(value)
            flat.extend([found.buffer, *found.dims] if isinstance(found, HostArray) else [found])
        return flat

    def bind(self, values: Sequence[SSAValue], flat: Sequence[SSAValue]) -> None:
        """Bind soac-level `values` to the expanded host values `flat`."""
        position = 0
        for value in values:
            if isinstance(value.type, TensorType):
                rank = value.type.get_num_dims()
                buffer = flat[position]
                if value.name_hint and buffer.name_hint is None:
                    buffer.name_hint = value.name_hint
                dims = list(flat[position + 1 : position + 1 + rank])
                self.lw.env[value] = HostArray(buffer, dims, value.type.get_element_type())
                self.lw.nonneg.update(dims)
                position += 1 + rank
            else:
                self.lw.env[value] = flat[position]
                position += 1

    def lower_op(self, op: Operation) -> None:
        if op in self.lw.lowered_with:
            return
        if (strategy := self.strategies.get(type(op))) is not None:
            self.check_sizes(op)
            strategy(self.lw, op)
            return
        if isinstance(op, soac.ThresholdOp):
            self.lower_threshold(op)
        elif isinstance(op, soac.AssertOp):
            values = [self.lw.scalar(v) for v in op.values]
            self.lw.builder.insert(AssertOp(self.lw.scalar(op.ok), located_message(op, op.message.data), values))
        elif isinstance(op, tensor.DimOp):
            self.lower_dim(op)
        elif isinstance(op, scf.IfOp):
            self.lower_if(op)
        elif isinstance(op, scf.ForOp):
            self.lower_for(op)
        elif isinstance(op, scf.WhileOp):
            self.lower_while(op)
        elif isinstance(op, func.CallOp):
            self.lower_call(op)
        elif op.regions or any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
            raise LoweringError(f"{describe(op)} is not supported by soac-to-kernel")
        else:
            mapper = {o: self.lw.scalar(o) for o in op.operands}
            new = op.clone(value_mapper=mapper)
            self.lw.builder.insert(new)
            for old, result in zip(op.results, new.results):
                self.lw.env[old] = result

    def check_sizes(self, op: Operation) -> None:
        """The interpreter's checks of widths and sizes, before a SOAC's launches (`negative width -1`)."""
        lw = self.lw
        if isinstance(op, soac.IotaOp | soac.ReplicateOp):
            lw.check_size(op, lw.scalar(op.width), "size")
        elif isinstance(op, soac.SegmapOp | soac.SegredOp | soac.SegscanOp | soac.SeghistOp):
            for d in op.dims:
                lw.check_size(op, lw.scalar(d), "dimension")
        elif isinstance(op, WIDE_SOACS):
            lw.check_size(op, lw.scalar(op.width), "width")

    def lower_threshold(self, op: soac.ThresholdOp) -> None:
        m = self.lw.m
        value = m.insert(ThresholdOp(op.threshold_name, op.default_value, op.device_default), f"t_{op.threshold_name}")
        self.lw.env[op.result] = m.insert(arith.CmpiOp(self.lw.scalar(op.par), value, "uge"), op.result.name_hint)

    def lower_dim(self, op: tensor.DimOp) -> None:
        index = IndexMath.constant_of(op.index)
        if index is None:
            raise LoweringError(f"{describe(op)}: the dimension must be a constant")
        self.lw.env[op.result] = self.lw.array(op.source).dims[index]

    def _region_block(
        self, region: Region, arg_types: Sequence[Attribute], bind_to: Sequence[SSAValue], is_condition: bool = False
    ) -> Block:
        """Lower `region` into a new block; its terminator becomes an scf.yield (an scf.condition if `is_condition`)."""
        block = Block(arg_types=arg_types)
        saved = self.lw.builder.insertion_point
        self.lw.builder.insertion_point = InsertPoint.at_end(block)
        try:
            self.bind(bind_to, list(block.args))
            for arg, old in zip(block.args, _expanded_names(bind_to)):
                arg.name_hint = old
            values = self.lower_block(region.block) or []
            self.lw.builder.insert(scf.ConditionOp(values[0], *values[1:]) if is_condition else scf.YieldOp(*values))
        finally:
            self.lw.builder.insertion_point = saved
        return block

    def lower_if(self, op: scf.IfOp) -> None:
        result_types = [t for r in op.results for t in lowered_types(r.type)]
        true_block = self._region_block(op.true_region, [], [])
        false_region = Region(self._region_block(op.false_region, [], [])) if op.false_region.blocks else None
        new = scf.IfOp(self.lw.scalar(op.cond), result_types, Region(true_block), false_region)
        self.lw.builder.insert(new)
        _name(new.results, op.results)
        self.bind(op.results, list(new.results))

    def lower_for(self, op: scf.ForOp) -> None:
        iv, *carried = op.body.block.args
        inits = self.expand(op.iter_args)
        body = self._region_block(op.body, [IndexType(), *(v.type for v in inits)], [iv, *carried])
        new = scf.ForOp(self.lw.scalar(op.lb), self.lw.scalar(op.ub), self.lw.scalar(op.step), inits, body)
        self.lw.builder.insert(new)
        _name(new.results, op.results)
        self.bind(op.results, list(new.results))

    def lower_while(self, op: scf.WhileOp) -> None:
        inits = self.expand(op.arguments)
        before_args = op.before_region.block.args
        before = self._region_block(op.before_region, [v.type for v in inits], before_args, is_condition=True)
        after_args = op.after_region.block.args
        after_types = [t for a in after_args for t in lowered_types(a.type)]
        after = self._region_block(op.after_region, after_types, after_args)
        result_types = [t for r in op.results for t in lowered_types(r.type)]
        new = scf.WhileOp(inits, result_types, Region(before), Region(after))
        self.lw.builder.insert(new)
        _name(new.results, op.results)
        self.bind(op.results, list(new.results))

    def lower_call(self, op: func.CallOp) -> None:
        result_types = [t for r in op.results for t in lowered_types(r.type)]
        new = func.CallOp(op.callee, self.expand(op.arguments), result_types)
        self.lw.builder.insert(new)
        _name(new.results, op.results)
        self.bind(op.results, list(new.results))


def _expanded_names(values: Sequence[SSAValue]) -> list[str | None]:
    names: list[str | None] = []
    for value in values:
        names.append(value.name_hint)
        if isinstance(value.type, TensorType):
            names.extend(f"{value.name_hint}_d{k}" if value.name_hint else None for k in range(value.type.get_num_dims()))
    return names


def _name(new: Sequence[SSAValue], old: Sequence[SSAValue]) -> None:
    for value, name in zip(new, _expanded_names(old)):
        value.name_hint = name


def lower_function(
    op: func.FuncOp,
    group_size: int,
    max_groups: int,
    scan_strategy: str,
    codes: ErrorCodes | None = None,
    contiguous: bool = False,
    target: DeviceTarget = TARGETS["generic"],
    segred: str = "auto",
    segscan: str = "auto",
) -> tuple[func.FuncOp, list[FuncOp]]:
    """The host function and the kernels that `op` lowers to; `codes` numbers the checks of a whole module."""
    source_type = op.function_type
    arg_types = [t for a in op.args for t in lowered_types(a.type)]
    result_types = [t for t in source_type.outputs.data for t in lowered_types(t)]
    block = Block(arg_types=arg_types)
    kernels: list[FuncOp] = []
    lowering = HostLowering(
        op.sym_name.data,
        Builder(InsertPoint.at_end(block)),
        kernels,
        group_size,
        max_groups,
        scan_strategy,
        ConstantPool(block),
        contiguous,
        target,
        codes=codes or ErrorCodes(),
        segred=segred,
        segscan=segscan,
    )
    body = FunctionLowering(lowering)
    body.bind(list(op.args), list(block.args))
    for arg, name in zip(block.args, _expanded_names(list(op.args))):
        arg.name_hint = name
    returned = body.lower_block(op.body.block)
    lowering.builder.insert(func.ReturnOp(*(returned or [])))
    for kernel in kernels:
        _erase_dead_constants(kernel.body.block)
    _erase_dead_constants(block)
    new = func.FuncOp(op.sym_name.data, FunctionType.from_lists(arg_types, result_types), Region(block), op.sym_visibility)
    new.attributes["soac.source_type"] = source_type
    if op.location is not None:
        new.location = op.location
    return new, kernels


def _erase_dead_constants(block: Block) -> None:
    for op in list(block.ops):
        if isinstance(op, arith.ConstantOp) and not op.result.uses:
            op.detach()
            op.erase()


@dataclass(frozen=True)
class SoacToKernelPass(ModulePass):
    """Lowers soac programs to the kernel dialect (host functions plus `kernel.func`s).

    Options: `target` (`generic`, `nvidia` or `cpu`: what the kernels may use, see
    `opencl/target.py`), `group-size` (work-group size, a power of two), `max-groups`
    (the most work-groups of a grid-stride launch), `scan` (the device-wide scan
    algorithm; empty: the target's), `layout` (`strided` or `contiguous` ranges per
    work-item in grid-stride kernels; empty: the target's), `scan-reduce` (`fused`: a
    scanomap with a reduction part runs as one look-back kernel where the `lookback`
    strategy takes it, `split`: as a scanomap and a redomap; empty: `$SOAC_SCAN_REDUCE`,
    else `fused`), `segred` and `segscan` (how the segments of a function-level segred or
    segscan are split: `auto`, the default, lets the host choose from the segment length when
    it runs; the others force one way, for timing: segred `thread` (a work-item per segment),
    `teams` (teams sized by the segment length, long segments over several groups and a second
    stage); segscan `thread`, `group` (a work-group per segment), `lookback`). The lowered module
    names its target in its `kernel.target` attribute.
    """

    name = "soac-to-kernel"

    target: str = "generic"
    group_size: int = 256
    max_groups: int = 1024
    scan: str = ""
    layout: str = ""
    scan_reduce: str = ""
    segred: str = "auto"
    segscan: str = "auto"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from soac.signless import check_signless

        check_signless(op)  # soac's integers are signless (ui8 from a front end: soac-signless first)
        target = get_target(self.target)
        scan = self.scan or target.scan
        layout = self.layout or ("contiguous" if target.contiguous else "strided")
        if self.group_size <= 0 or self.group_size & (self.group_size - 1):
            raise ValueError(f"soac-to-kernel: group-size must be a power of two, got {self.group_size}")
        if scan not in SCAN_STRATEGIES:
            raise ValueError(f"soac-to-kernel: scan must be one of {', '.join(SCAN_STRATEGIES)}, got '{scan}'")
        if layout not in LAYOUTS:
            raise ValueError(f"soac-to-kernel: layout must be one of {', '.join(LAYOUTS)}, got '{layout}'")
        from soac.lowering.strategies.choice import SEGRED_STRATEGIES, SEGSCAN_STRATEGIES

        for option, value, allowed in (("segred", self.segred, SEGRED_STRATEGIES), ("segscan", self.segscan, SEGSCAN_STRATEGIES)):
            if value not in allowed:
                raise ValueError(f"soac-to-kernel: {option} must be one of {', '.join(allowed)}, got '{value}'")
        if ctx.get_optional_dialect("kernel") is None:
            ctx.load_dialect(Kernel)
        from soac.lowering.strategies.choice import fuses_scan_reduce, scan_reduce_mode  # lazily, as `_strategies`

        recompute_all_forwarded(op)  # the kernels apply post lambdas to the scanned values and input rows only
        # A scanomap with a reduction part: one look-back kernel where the strategy allows, else a scanomap and a redomap.
        fused = scan_reduce_mode(self.scan_reduce) == "fused"
        split_scan_reductions(op, keep=lambda s: fused and fuses_scan_reduce(s, scan))
        interchange_vectorised_operators(op)  # operators on rows: one per column, also in lambdas
        hists_of_rows_to_elements(op, check=True)  # hists of rows: hists of their elements (an error for those it cannot rewrite)
        codes = ErrorCodes()
        contiguous = layout == "contiguous"
        for function in list(op.body.block.ops):
            if not isinstance(function, func.FuncOp) or function.is_declaration:
                continue
            new, kernels = lower_function(
                function, self.group_size, self.max_groups, scan, codes, contiguous, target, self.segred, self.segscan
            )
            op.body.block.insert_ops_before([new, *kernels], function)
            function.detach()
            function.erase()
        set_target_of_module(op, target)
