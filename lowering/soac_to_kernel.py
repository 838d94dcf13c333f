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
      kernel.check_eq %n, %xs_d0 "'soac.map' at f.mlir:2:9: input #0 has a different number of rows than the width"
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

The strategies for each SOAC live in `parallel_ops.py` (maps, scatter,
segmented ops, array ops) and `reductions.py` (reduce, redomap, scan, scanomap).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from soac import dialect as soac
from soac.lowering.kernel_builder import (
    ConstantPool,
    HostArray,
    HValue,
    IndexMath,
    KernelBuilder,
    LoweringError,
    describe,
)
from soac.lowering.kernel_dialect import CheckEqOp, FuncOp, Kernel, ThresholdOp, global_buffer
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, scf, tensor
from xdsl.dialects.builtin import FunctionType, IndexType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

SCAN_STRATEGIES = ("reduce-then-scan",)
"""Device-wide scan algorithms; a single-pass decoupled look-back scan for NVIDIA is the planned second one."""


def lowered_types(t: Attribute) -> list[Attribute]:
    """The host-level types of a soac-level value: a buffer and one size per dimension for arrays."""
    if isinstance(t, TensorType):
        return [global_buffer(t.get_element_type()), *([IndexType()] * t.get_num_dims())]
    return [t]


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
    env: dict[SSAValue, HValue] = field(default_factory=dict)
    counter: dict[str, int] = field(default_factory=dict)

    @property
    def m(self) -> IndexMath:
        return IndexMath(self.builder, self.pool)

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
        return KernelBuilder(f"{self.func_name}_{kind}_{index}", self.builder, self.lookup, self.pool)

    def add_kernel(self, kb: KernelBuilder, global_size: SSAValue, local_size: SSAValue) -> None:
        self.kernels.append(kb.finish(global_size, local_size))

    def alloc(self, element: Attribute, dims: Sequence[SSAValue], name: str | None = None) -> HostArray:
        from soac.lowering.kernel_dialect import AllocOp

        size = self.m.product(dims)
        buffer = self.m.insert(AllocOp(size, element), name)
        return HostArray(buffer, list(dims), element)

    def check_rows(self, op: Operation, width: SSAValue, arrays: Sequence[SSAValue], what: str = "input") -> None:
        for k, value in enumerate(arrays):
            rows = self.array(value).dims[0]
            if rows is width:
                continue
            message = f"{describe(op)}: {what} #{k} has a different number of rows than the width"
            self.builder.insert(CheckEqOp(width, rows, message))

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
        if (dims := self._dims_of(value)) is None:
            raise LoweringError(
                f"{describe(op)}: cannot tell the size of the arrays its lambda yields before the launch; "
                "give them static sizes or build them from arrays outside the lambda"
            )
        return dims

    def _host_index(self, value: SSAValue) -> SSAValue | None:
        if (found := self.env.get(value)) is not None:
            return found if isinstance(found, SSAValue) else None
        if (constant := IndexMath.constant_of(value)) is not None:
            return self.m.c(constant)
        if isinstance(owner := value.owner, tensor.DimOp) and (index := IndexMath.constant_of(owner.index)) is not None:
            dims = self._dims_of(owner.source)
            return dims[index] if dims is not None else None
        return None

    def _dims_of(self, value: SSAValue) -> list[SSAValue] | None:  # noqa: C901
        """The sizes of a soac-level array as host values, if they are known before a launch."""
        if (found := self.env.get(value)) is not None:
            return found.dims if isinstance(found, HostArray) else None
        assert isinstance(value.type, TensorType)
        shape = value.type.get_shape()
        if all(s >= 0 for s in shape):
            return [self.m.c(s) for s in shape]
        owner = value.owner
        if isinstance(owner, Block):
            parent = owner.parent_op()
            inputs = list(getattr(parent, "inputs", ()))
            index = owner.args.index(value)
            if isinstance(parent, soac.MapOp | soac.RedomapOp | soac.ScanomapOp | soac.ScatterOp) and owner is parent.body.block:
                outer = self._dims_of(inputs[index]) if index < len(inputs) else None
                return outer[1:] if outer is not None else None
            return None
        if isinstance(owner, soac.IndexOp):
            outer = self._dims_of(owner.array)
            return outer[len(owner.indices) :] if outer is not None else None
        if isinstance(owner, soac.UpdateOp):
            return self._dims_of(owner.array)
        if isinstance(owner, soac.ScatterOp):
            return self._dims_of(owner.dests[list(owner.outs).index(value)])
        if isinstance(owner, soac.MapOp | soac.ScanOp | soac.ScanomapOp | soac.RedomapOp | soac.IotaOp | soac.ReplicateOp):
            width = self._host_index(owner.width)
            if width is None:
                return None
            if isinstance(owner, soac.ReplicateOp):
                inner = self._dims_of(owner.value) if isinstance(owner.value.type, TensorType) else []
                return [width, *inner] if inner is not None else None
            if all(s >= 0 for s in shape[1:]):
                return [width, *(self.m.c(s) for s in shape[1:])]
            if isinstance(owner, soac.MapOp):
                yielded = list(owner.body.block.last_op.operands)[list(owner.outs).index(value)]  # pyright: ignore[reportOptionalMemberAccess]
                inner = self._dims_of(yielded)
                return [width, *inner] if inner is not None else None
        return None

    @staticmethod
    def _lambda_input(op: Operation, index: int) -> SSAValue | None:
        inputs = getattr(op, "inputs", None)
        if inputs is None or index >= len(inputs):
            return None
        return inputs[index]


def _strategies() -> dict[type[Operation], Callable[[HostLowering, Operation], None]]:
    from soac.lowering import parallel_ops, reductions

    return {
        soac.MapOp: parallel_ops.lower_map,
        soac.ScatterOp: parallel_ops.lower_scatter,
        soac.IotaOp: parallel_ops.lower_iota,
        soac.ReplicateOp: parallel_ops.lower_replicate,
        soac.TransposeOp: parallel_ops.lower_transpose,
        soac.SegmapOp: parallel_ops.lower_segmap,
        soac.SegredOp: reductions.lower_segred,
        soac.SegscanOp: reductions.lower_segscan,
        soac.IndexOp: parallel_ops.lower_index,
        soac.SliceOp: parallel_ops.lower_slice,
        soac.UpdateOp: parallel_ops.lower_update,
        soac.ReduceOp: reductions.lower_reduce,
        soac.RedomapOp: reductions.lower_reduce,
        soac.ScanOp: reductions.lower_scan,
        soac.ScanomapOp: reductions.lower_scan,
    }  # pyright: ignore[reportReturnType]


class FunctionLowering:
    """Lowers the body of one host `func.func` op by op."""

    def __init__(self, lowering: HostLowering):
        self.lw = lowering
        self.strategies = _strategies()

    def lower_block(self, block: Block) -> list[SSAValue] | None:
        """Lower the ops of `block`; returns the expanded operands of its terminator."""
        for op in block.ops:
            if isinstance(op, func.ReturnOp | scf.YieldOp):
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
                self.lw.env[value] = HostArray(
                    buffer, list(flat[position + 1 : position + 1 + rank]), value.type.get_element_type()
                )
                position += 1 + rank
            else:
                self.lw.env[value] = flat[position]
                position += 1

    def lower_op(self, op: Operation) -> None:
        if (strategy := self.strategies.get(type(op))) is not None:
            strategy(self.lw, op)
            return
        if isinstance(op, soac.ThresholdOp):
            self.lower_threshold(op)
        elif isinstance(op, tensor.DimOp):
            self.lower_dim(op)
        elif isinstance(op, scf.IfOp):
            self.lower_if(op)
        elif isinstance(op, scf.ForOp):
            self.lower_for(op)
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

    def lower_threshold(self, op: soac.ThresholdOp) -> None:
        m = self.lw.m
        value = m.insert(ThresholdOp(op.threshold_name, op.default_value), f"t_{op.threshold_name}")
        self.lw.env[op.result] = m.insert(arith.CmpiOp(self.lw.scalar(op.par), value, "uge"), op.result.name_hint)

    def lower_dim(self, op: tensor.DimOp) -> None:
        index = IndexMath.constant_of(op.index)
        if index is None:
            raise LoweringError(f"{describe(op)}: the dimension must be a constant")
        self.lw.env[op.result] = self.lw.array(op.source).dims[index]

    def _region_block(self, region: Region, arg_types: Sequence[Attribute], bind_to: Sequence[SSAValue]) -> Block:
        block = Block(arg_types=arg_types)
        saved = self.lw.builder.insertion_point
        self.lw.builder.insertion_point = InsertPoint.at_end(block)
        try:
            self.bind(bind_to, list(block.args))
            for arg, old in zip(block.args, _expanded_names(bind_to)):
                arg.name_hint = old
            values = self.lower_block(region.block) or []
            self.lw.builder.insert(scf.YieldOp(*values))
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


def lower_function(op: func.FuncOp, group_size: int, max_groups: int, scan_strategy: str) -> tuple[func.FuncOp, list[FuncOp]]:
    """The host function and the kernels that `op` lowers to."""
    source_type = op.function_type
    arg_types = [t for a in op.args for t in lowered_types(a.type)]
    result_types = [t for t in source_type.outputs.data for t in lowered_types(t)]
    block = Block(arg_types=arg_types)
    kernels: list[FuncOp] = []
    lowering = HostLowering(
        op.sym_name.data, Builder(InsertPoint.at_end(block)), kernels, group_size, max_groups, scan_strategy, ConstantPool(block)
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

    Options: `group-size` (work-group size, a power of two), `max-groups` (the
    most work-groups of a grid-stride launch), `scan` (the device-wide scan
    algorithm; `reduce-then-scan` works on every OpenCL device).
    """

    name = "soac-to-kernel"

    group_size: int = 256
    max_groups: int = 1024
    scan: str = "reduce-then-scan"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.group_size <= 0 or self.group_size & (self.group_size - 1):
            raise ValueError(f"soac-to-kernel: group-size must be a power of two, got {self.group_size}")
        if self.scan not in SCAN_STRATEGIES:
            raise ValueError(f"soac-to-kernel: scan must be one of {', '.join(SCAN_STRATEGIES)}, got '{self.scan}'")
        if ctx.get_optional_dialect("kernel") is None:
            ctx.load_dialect(Kernel)
        for function in list(op.body.block.ops):
            if not isinstance(function, func.FuncOp) or function.is_declaration:
                continue
            new, kernels = lower_function(function, self.group_size, self.max_groups, self.scan)
            op.body.block.insert_ops_before([new, *kernels], function)
            function.detach()
            function.erase()
