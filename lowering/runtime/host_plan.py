"""Host functions compiled once into plans, which every call of the function replays.

A plan holds a function's body as steps: Python closures over a frame, a list with a slot for every value of
the function (block arguments and op results, nested blocks included). Everything that depends only on the op
(which handler, which slots, types, kernel names, error messages) is worked out when the plan is built, on the
function's first call, so a later call dispatches no op and reads no attribute of one. Integers and indices are
Python ints in the frame (`i1` a bool), floats numpy scalars (see `host_scalars`); constants sit in the frame's
template.

    %n2 = arith.muli %n, %c2 : index        ->  def step(frame): frame[5] = muli(frame[1], frame[3])
    kernel.launch @k(%xs, %n2 : ...) global %g local %l
                                            ->  def step(frame): launch([frame[0], frame[5]], frame[6], frame[7])

The device operations (allocating, launching, reading, writing, copying) are the `Device`'s, which a
`soac.lowering.runtime.Program` is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any, Protocol

from soac.dialect import OnDevice
from soac.lowering import kernel as kd
from soac.lowering.conversion.sizes import DIVISIONS
from soac.lowering.runtime.errors import ProgramError, SizeMismatchError
from soac.lowering.runtime.host_scalars import eval_scalar, scalar_function, to_python
from soac.messages import format_message
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Block, Operation, SSAValue

Frame = list[Any]
Step = Callable[[Frame], None]


class Device(Protocol):
    """What the plans need of the program that runs them."""

    thresholds: Mapping[str, int]
    device_defaults: Mapping[OnDevice, int]
    """The values of thresholds whose default the device gives (`soac.lowering.opencl.device_defaults`)."""

    def allocator(self, op: kd.AllocOp) -> Callable[[int], Any]: ...

    def launcher(self, op: kd.LaunchOp) -> Callable[[list[Any], int, int], None]: ...

    def reader(self, op: kd.ReadOp) -> Callable[[Any, int], Any]: ...

    def write(self, array: Any, index: int, value: Any) -> None: ...

    def copy(self, count: Any, source: Any, source_offset: Any, dest: Any, dest_offset: Any) -> None: ...

    def error_buffer(self) -> Any: ...

    def function_plan(self, name: str) -> FunctionPlan: ...


@dataclass(frozen=True)
class BlockPlan:
    """A block's steps; `results` are the slots its terminator passes on (`condition`: `scf.condition`'s flag).

    `static_slots` are the results of the block's static steps: scalar ops and thresholds whose operands are the
    function's integer arguments, constants and other static results, so that they are one function of the call's
    key (its scalar arguments and thresholds). The first run of the block for a key runs every step in order and
    keeps their values; a later run for that key sets them at once and runs only the other steps (the sizes, group
    counts and version choices of a call repeat from call to call, and from iteration to iteration of a loop)."""

    arguments: tuple[int, ...]
    steps: tuple[Step, ...]
    results: tuple[int, ...]
    condition: int | None = None
    dynamic_steps: tuple[Step, ...] = ()
    static_slots: tuple[int, ...] = ()
    known: dict[Any, list[Any]] = field(default_factory=dict)

    def run(self, frame: Frame, values: Sequence[Any]) -> list[Any]:
        for slot, value in zip(self.arguments, values, strict=True):
            frame[slot] = value
        if not self.static_slots:
            for step in self.steps:
                step(frame)
        elif (known := self.known.get(frame[KEY_SLOT])) is not None:
            for slot, value in zip(self.static_slots, known):
                frame[slot] = value
            for step in self.dynamic_steps:
                step(frame)
        else:
            for step in self.steps:
                step(frame)
            if len(self.known) >= MAX_KNOWN_KEYS:
                self.known.clear()
            self.known[frame[KEY_SLOT]] = [frame[slot] for slot in self.static_slots]
        return [frame[slot] for slot in self.results]


KEY_SLOT = 0
"""The frame's slot for the call's key (its scalar arguments and thresholds), which `BlockPlan.known` is keyed by."""
MAX_KNOWN_KEYS = 64


@dataclass(frozen=True)
class FunctionPlan:
    """A host function: its body's plan and the frame a call starts from (constants in place)."""

    name: str
    template: list[Any]
    body: BlockPlan
    device: Device
    scalar_arguments: tuple[int, ...]
    """The positions of the function's integer arguments, which with the thresholds make a call's key (a float is
    left out: -0.0 == 0.0 as a key, yet 1 / -0.0 is not 1 / 0.0)."""

    def __call__(self, args: Sequence[Any]) -> list[Any]:
        frame = self.template.copy()
        frame[KEY_SLOT] = (tuple([args[k] for k in self.scalar_arguments]), tuple(self.device.thresholds.items()))
        return self.body.run(frame, args)


@dataclass(frozen=True)
class ScalarOnDevice:
    """A scalar result left where the device wrote it: element `index` of `array` (a plan built with
    `scalars_on_device` returns this in place of the blocking read of a `kernel.read` that only feeds the return)."""

    array: Any
    index: int


def returned_reads(function: func.FuncOp) -> frozenset[Operation]:
    """The `kernel.read`s in `function`'s body whose result is used by its `func.return` only (a reduce's result)
    and has the buffer's element type: what a plan with `scalars_on_device` leaves on the device.

        %acc_result = kernel.alloc %c1 : !kernel.buffer<global, f32>
        kernel.launch @reduce_partials(..., %acc_result) ...
        %8 = kernel.read %acc_result[%c0] : !kernel.buffer<global, f32> -> f32     <- returned read
        func.return %8 : f32
    """
    ret = function.body.block.last_op
    return frozenset(
        op
        for op in function.body.block.ops
        if isinstance(op, kd.ReadOp)
        and op.result.uses
        and all(use.operation is ret for use in op.result.uses)
        and op.buffer.type.element_type == op.result.type  # pyright: ignore[reportAttributeAccessIssue]
    )


def compile_function(device: Device, function: func.FuncOp, scalars_on_device: bool = False) -> FunctionPlan:
    """The plan of `function`, whose device operations are `device`'s; with `scalars_on_device`, its returned reads
    (`returned_reads`) give `ScalarOnDevice`s, and nothing in the plan waits for the device's results."""
    builder = PlanBuilder(device, returned_reads(function) if scalars_on_device else frozenset())
    arguments = function.body.block.args
    scalars = tuple(k for k, arg in enumerate(arguments) if isinstance(arg.type, IntegerType | IndexType))
    builder.static.update(arguments[k] for k in scalars)
    body = builder.block(function.body.block)
    return FunctionPlan(function.sym_name.data, builder.template, body, device, scalars)


class PlanBuilder:
    """Turns one function's ops into steps; `STEPS` picks the maker of an op's step by its class."""

    def __init__(self, device: Device, kept_reads: Set[Operation] = frozenset()):
        self.device = device
        self.kept_reads = kept_reads
        """The reads whose value stays on the device (`ScalarOnDevice`): see `compile_function`."""
        self.slots: dict[SSAValue, int] = {}
        self.template: list[Any] = [None]  # KEY_SLOT
        self.static: set[SSAValue] = set()
        """Values that are one function of a call's key: see `BlockPlan`."""

    def slot(self, value: SSAValue) -> int:
        if (slot := self.slots.get(value)) is None:
            slot = self.slots[value] = len(self.template)
            self.template.append(None)
        return slot

    def slots_of(self, values: Sequence[SSAValue]) -> tuple[int, ...]:
        return tuple(self.slot(v) for v in values)

    def block(self, block: Block, skip: Set[Operation] = frozenset()) -> BlockPlan:
        """The plan of `block`, without the ops in `skip` (hoisted out of a loop)."""
        arguments = self.slots_of(block.args)
        steps: list[Step] = []
        dynamic: list[Step] = []
        static_slots: list[int] = []

        def plan(results: tuple[int, ...], condition: int | None = None) -> BlockPlan:
            if not static_slots:
                return BlockPlan(arguments, tuple(steps), results, condition)
            return BlockPlan(arguments, tuple(steps), results, condition, tuple(dynamic), tuple(static_slots))

        for op in block.ops:
            if op in skip:
                continue
            if isinstance(op, func.ReturnOp | scf.YieldOp):
                return plan(self.slots_of(op.operands))
            if isinstance(op, scf.ConditionOp):
                return plan(self.slots_of(op.args), self.slot(op.condition))
            maker = self.STEPS.get(type(op), PlanBuilder.scalar)
            step = maker(self, op)
            if self.is_static(op, step):
                self.static.add(op.results[0])
                if step is not None:
                    steps.append(step)
                    static_slots.append(self.slot(op.results[0]))
            elif step is not None:
                steps.append(step)
                dynamic.append(step)
        return plan(())

    def is_static(self, op: Operation, step: Step | None) -> bool:
        """Whether `op`'s one result is a function of the call's key (see `BlockPlan`)."""
        if isinstance(op, arith.ConstantOp):
            return step is None  # in the frame's template
        if len(op.results) != 1 or (type(op) in self.STEPS and not isinstance(op, kd.ThresholdOp)):
            return False
        return all(operand in self.static for operand in op.operands)

    # -- scalar ops ---------------------------------------------------------------

    def scalar(self, op: Operation) -> Step | None:
        function = scalar_function(op)
        operands = self.slots_of(op.operands)
        if len(op.results) != 1:
            return lambda frame: function(*[frame[s] for s in operands])  # raises: not a scalar op
        out = self.slot(op.results[0])
        if len(operands) == 1:
            (a,) = operands

            def unary(frame: Frame) -> None:
                frame[out] = function(frame[a])

            return unary
        if len(operands) == 2:
            a, b = operands

            def binary(frame: Frame) -> None:
                frame[out] = function(frame[a], frame[b])

            return binary

        def step(frame: Frame) -> None:
            frame[out] = function(*[frame[s] for s in operands])

        return step

    def constant(self, op: arith.ConstantOp) -> Step | None:
        try:
            value = to_python(op.result.type)(eval_scalar(op, []))
        except Exception:  # the host cannot hold it: fail where the op runs, as any op the host cannot evaluate
            return self.scalar(op)
        self.template[self.slot(op.result)] = value
        return None

    # -- host checks and parameters -------------------------------------------------

    def threshold(self, op: kd.ThresholdOp) -> Step:
        out, name, device = self.slot(op.result), op.threshold_name, self.device
        kind = op.device_default
        default = op.default_value if kind is None else device.device_defaults.get(kind, op.default_value)

        def step(frame: Frame) -> None:
            frame[out] = int(device.thresholds.get(name, default))

        return step

    def check_eq(self, op: kd.CheckEqOp) -> Step:
        a, b, message = self.slot(op.lhs), self.slot(op.rhs), op.message.data

        def step(frame: Frame) -> None:
            if frame[a] != frame[b]:
                raise SizeMismatchError(format_message(message, [frame[a], frame[b]]))

        return step

    def assertion(self, op: kd.AssertOp) -> Step:
        condition, values, message = self.slot(op.cond), self.slots_of(op.values), op.message.data

        def step(frame: Frame) -> None:
            if not frame[condition]:
                raise ProgramError(format_message(message, [frame[s] for s in values]))

        return step

    # -- device operations ----------------------------------------------------------

    def alloc(self, op: kd.AllocOp) -> Step:
        allocate, out, size = self.device.allocator(op), self.slot(op.result), self.slot(op.size)

        def step(frame: Frame) -> None:
            frame[out] = allocate(frame[size])

        return step

    def launch(self, op: kd.LaunchOp) -> Step:
        launch, args = self.device.launcher(op), self.slots_of(op.args)
        global_size, local_size = self.slot(op.global_size), self.slot(op.local_size)

        def step(frame: Frame) -> None:
            launch([frame[s] for s in args], frame[global_size], frame[local_size])

        return step

    def read(self, op: kd.ReadOp) -> Step:
        if op in self.kept_reads:
            out, buffer, index = self.slot(op.result), self.slot(op.buffer), self.slot(op.index)

            def keep(frame: Frame) -> None:
                frame[out] = ScalarOnDevice(frame[buffer], int(frame[index]))

            return keep
        read, out, buffer, index = self.device.reader(op), self.slot(op.result), self.slot(op.buffer), self.slot(op.index)

        def step(frame: Frame) -> None:
            frame[out] = read(frame[buffer], frame[index])

        return step

    def write(self, op: kd.WriteOp) -> Step:
        device, value, buffer, index = self.device, self.slot(op.value), self.slot(op.buffer), self.slot(op.index)

        def step(frame: Frame) -> None:
            device.write(frame[buffer], int(frame[index]), frame[value])

        return step

    def copy(self, op: kd.CopyOp) -> Step:
        device, operands = self.device, self.slots_of(op.operands)

        def step(frame: Frame) -> None:  # looked up at each copy: a benchmark may record copies with its own
            device.copy(*[frame[s] for s in operands])

        return step

    def error_buffer(self, op: kd.ErrorBufferOp) -> Step:
        out, device = self.slot(op.result), self.device

        def step(frame: Frame) -> None:
            frame[out] = device.error_buffer()

        return step

    # -- control flow -----------------------------------------------------------------

    def if_(self, op: scf.IfOp) -> Step:
        condition, outs = self.slot(op.cond), self.slots_of(op.results)
        then = self.block(op.true_region.block) if op.true_region.blocks else None
        other = self.block(op.false_region.block) if op.false_region.blocks else None

        def step(frame: Frame) -> None:
            taken = then if frame[condition] else other
            if taken is not None:
                for slot, value in zip(outs, taken.run(frame, ())):
                    frame[slot] = value

        return step

    def invariant_scalars(self, loop: Operation, block: Block) -> list[Operation]:
        """The ops of `block`, the body of `loop`, that compute the same scalar in every iteration and cannot fail:
        `arith` and `math` ops whose operands come from outside the loop or from such ops (integer divisions only by
        a non-zero constant). A loop over kernels recomputes its launch sizes from them otherwise."""
        inside = {v for o in loop.walk() if o is not loop for v in o.results}
        inside |= {a for region in loop.regions for b in region.blocks for a in b.args}
        hoisted: list[Operation] = []
        invariant: set[SSAValue] = set()
        for op in block.ops:
            if isinstance(op, arith.ConstantOp):  # in the frame's template already
                invariant.add(op.result)
                continue
            if (
                op.dialect_name() not in ("arith", "math")
                or type(op) in self.STEPS
                or len(op.results) != 1
                or (isinstance(op, DIVISIONS) and not _nonzero_constant(op.operands[1]))
                or any(v in inside and v not in invariant for v in op.operands)
            ):
                continue
            hoisted.append(op)
            invariant.add(op.results[0])
        return hoisted

    def for_(self, op: scf.ForOp) -> Step:
        lower, upper, stride = self.slot(op.lb), self.slot(op.ub), self.slot(op.step)
        inits, outs = self.slots_of(op.iter_args), self.slots_of(op.results)
        hoisted = self.invariant_scalars(op, op.body.block)
        once = tuple(step for o in hoisted if (step := self.scalar(o)) is not None)
        body = self.block(op.body.block, frozenset(hoisted))

        def step(frame: Frame) -> None:
            carried = [frame[s] for s in inits]
            iterations = range(int(frame[lower]), int(frame[upper]), int(frame[stride]))
            if iterations:  # the invariant scalars, once before the first iteration
                for invariant in once:
                    invariant(frame)
            for i in iterations:
                carried = body.run(frame, [i, *carried])
            for slot, value in zip(outs, carried):
                frame[slot] = value

        return step

    def while_(self, op: scf.WhileOp) -> Step:
        inits, outs = self.slots_of(op.arguments), self.slots_of(op.results)
        before, after = self.block(op.before_region.block), self.block(op.after_region.block)
        condition = before.condition
        assert condition is not None, "scf.while's first region ends in scf.condition"

        def step(frame: Frame) -> None:
            state = [frame[s] for s in inits]
            while True:
                forwarded = before.run(frame, state)
                if not frame[condition]:
                    break
                state = after.run(frame, forwarded)
            for slot, value in zip(outs, forwarded):
                frame[slot] = value

        return step

    def call(self, op: func.CallOp) -> Step:
        name, device = op.callee.root_reference.data, self.device
        args, outs = self.slots_of(op.arguments), self.slots_of(op.results)
        callee: list[FunctionPlan] = []  # found on the first run: the callee may be this function

        def step(frame: Frame) -> None:
            if not callee:
                callee.append(device.function_plan(name))
            for slot, value in zip(outs, callee[0]([frame[s] for s in args])):
                frame[slot] = value

        return step

    STEPS: dict[type[Operation], Callable[[PlanBuilder, Any], Step | None]] = {
        arith.ConstantOp: constant,
        kd.ThresholdOp: threshold,
        kd.CheckEqOp: check_eq,
        kd.AssertOp: assertion,
        kd.AllocOp: alloc,
        kd.LaunchOp: launch,
        kd.ReadOp: read,
        kd.WriteOp: write,
        kd.CopyOp: copy,
        kd.ErrorBufferOp: error_buffer,
        scf.IfOp: if_,
        scf.ForOp: for_,
        scf.WhileOp: while_,
        func.CallOp: call,
    }


def _nonzero_constant(value: SSAValue) -> bool:
    owner = value.owner
    return isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr) and owner.value.value.data != 0
