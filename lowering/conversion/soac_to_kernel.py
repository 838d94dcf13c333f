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
from dataclasses import dataclass, fields

from soac import dialect as soac
from soac.lowering.conversion.host_lowering import HostLowering
from soac.lowering.conversion.kernel_builder import (
    ConstantPool,
    ErrorCodes,
    HostArray,
    IndexMath,
    LoweringError,
    describe,
    located_message,
)
from soac.lowering.conversion.options import SCAN_STRATEGIES as SCAN_STRATEGIES
from soac.lowering.conversion.options import LoweringOptions, one_warp_problem
from soac.lowering.kernel import AssertOp, FuncOp, Kernel, ThresholdOp, global_buffer
from soac.lowering.kernel.target import set_target_of_module
from soac.lowering.strategies.choice import fuses_scan_reduce, strategies
from soac.passes.hist_rows import check_hists_of_rows, hists_of_rows_to_elements
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


def lowered_types(t: Attribute) -> list[Attribute]:
    """The host-level types of a soac-level value: a buffer and one size per dimension for arrays."""
    if isinstance(t, TensorType):
        return [global_buffer(t.get_element_type()), *([IndexType()] * t.get_num_dims())]
    return [t]


WIDE_SOACS = (
    soac.MapOp,
    soac.ScatterOp,
    soac.HistOp,
    soac.PartitionOp,
    soac.ReduceOp,
    soac.RedomapOp,
    soac.ScanOp,
    soac.ScanomapOp,
)
"""The SOACs with a width, checked before their launches."""


class FunctionLowering:
    """Lowers the body of one host `func.func` op by op."""

    def __init__(self, lowering: HostLowering):
        self.lw = lowering
        self.strategies: dict[type[Operation], Callable[[HostLowering, Operation], None]] = strategies()

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
    op: func.FuncOp, options: LoweringOptions, codes: ErrorCodes | None = None
) -> tuple[func.FuncOp, list[FuncOp]]:
    """The host function and the kernels that `op` lowers to; `codes` numbers the checks of a whole module."""
    source_type = op.function_type
    arg_types = [t for a in op.args for t in lowered_types(a.type)]
    result_types = [t for t in source_type.outputs.data for t in lowered_types(t)]
    block = Block(arg_types=arg_types)
    kernels: list[FuncOp] = []
    lowering = HostLowering(
        op.sym_name.data, Builder(InsertPoint.at_end(block)), kernels, ConstantPool(block), options, codes=codes or ErrorCodes()
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


def split_unfused_scan_reduce(op: ModuleOp, options: LoweringOptions) -> None:
    """Split the scanomaps with a reduction part, except those the look-back kernel fuses (`fuses_scan_reduce`)."""
    fused = options.scan_reduce == "fused"
    split_scan_reductions(op, keep=lambda s: fused and fuses_scan_reduce(s, options.scan_strategy))


def prepare_for_lowering(op: ModuleOp, options: LoweringOptions) -> None:
    """The lowering pipeline's steps before soac-to-kernel: forwarded values recomputed in post lambdas (the kernels
    apply post lambdas to the scanned values and input rows only), scanomaps with a reduction part split unless the
    look-back kernel fuses them, operators on rows turned into one operator per column, also in lambdas, and
    histograms of rows into histograms of their elements."""
    recompute_all_forwarded(op)
    split_unfused_scan_reduce(op, options)
    interchange_vectorised_operators(op)
    hists_of_rows_to_elements(op)


def _erase_dead_constants(block: Block) -> None:
    for op in list(block.ops):
        if isinstance(op, arith.ConstantOp) and not op.result.uses:
            op.detach()
            op.erase()


@dataclass(frozen=True)
class SoacToKernelPass(LoweringOptions, ModulePass):
    """Lowers soac programs to the kernel dialect (host functions plus `kernel.func`s).

    Its options are the fields of `LoweringOptions` (`conversion/options.py`; docs/lowering.md lists them with
    examples): the target, the work-group size and grid, and every strategy choice, e.g.
    `soac-to-kernel{target=nvidia hist=global scan-items=8}`. The lowered module names its target in its
    `kernel.target` attribute.

    With `prepare` (the default) it first runs the steps that the lowering pipeline (`conversion/pipeline.py`)
    spells out before it, so that it also runs alone (`prepare_for_lowering`).
    """

    name = "soac-to-kernel"

    prepare: bool = True
    """Run the lowering pipeline's earlier steps first (`soac-recompute-forwarded`, `soac-split-unfused-scan-reduce`,
    `soac-vectorised-operators`, `soac-hist-rows`); the pipeline passes false."""

    @property
    def options(self) -> LoweringOptions:
        """The options as the lowering context carries them."""
        return LoweringOptions(**{f.name: getattr(self, f.name) for f in fields(LoweringOptions)})

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from soac.signless import check_signless

        check_signless(op)  # soac's integers are signless (ui8 from a front end: soac-signless first)
        options = self.options
        if (problem := one_warp_problem(options.device_target, options.group_size, options.scan_group)) is not None:
            raise ValueError(f"soac-to-kernel: {problem}")
        if ctx.get_optional_dialect("kernel") is None:
            ctx.load_dialect(Kernel)
        if self.prepare:
            prepare_for_lowering(op, options)
        check_hists_of_rows(op)  # no kernel combines rows: an error for a hist of rows the rewrite left
        codes = ErrorCodes()
        for function in list(op.body.block.ops):
            if not isinstance(function, func.FuncOp) or function.is_declaration:
                continue
            new, kernels = lower_function(function, options, codes)
            op.body.block.insert_ops_before([new, *kernels], function)
            function.detach()
            function.erase()
        set_target_of_module(op, options.device_target)
