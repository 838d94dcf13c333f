"""Structured control flow inside a lambda: `scf.for`, `scf.if` and `scf.while` rebuilt around their inlined
bodies, arrays they carry or yield kept in views of the kernel's memory."""

from __future__ import annotations

from soac.lowering.conversion.inline_lambdas import LambdaInliner
from soac.lowering.conversion.kernel_builder import (
    KValue,
    LoweringError,
    View,
    building_at,
    describe,
    tensor_element,
)
from soac.lowering.conversion.sizes import yields_of
from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region
from xdsl.rewriter import InsertPoint


class ControlFlowInliner(LambdaInliner):
    """Rebuilds the control flow of a lambda in the kernel."""

    def _rebuild_block(self, old: Block) -> Block:
        block = Block(arg_types=[a.type for a in old.args])
        for arg, old_arg in zip(block.args, old.args):
            arg.name_hint = old_arg.name_hint
        with building_at(self.b, InsertPoint.at_end(block)):
            for param, arg in zip(old.args, block.args):
                self.env[param] = arg
            terminator = None
            for op in old.ops:
                if isinstance(op, scf.YieldOp | scf.ConditionOp):
                    terminator = op
                    break
                self.emit(op)
            assert terminator is not None
            if isinstance(terminator, scf.ConditionOp):
                self.b.insert(scf.ConditionOp(self.scalar(terminator.condition), *(self.scalar(v) for v in terminator.args)))
            else:
                self.b.insert(scf.YieldOp(*(self.scalar(v) for v in terminator.operands)))
        return block

    def emit_for(self, op: scf.ForOp) -> None:
        if any(isinstance(v.type, TensorType) for v in op.iter_args):
            self._emit_for_carrying_arrays(op)
            return
        body = self._rebuild_block(op.body.block)
        new = scf.ForOp(
            self.scalar(op.lb), self.scalar(op.ub), self.scalar(op.step), [self.scalar(v) for v in op.iter_args], body
        )
        self._finish(op, new)

    def _emit_for_carrying_arrays(self, op: scf.ForOp) -> None:
        """A loop carrying arrays: each lives in the work-item's scratch memory for the whole loop.

        The initial array is copied in before the loop; what an iteration yields is checked to have the
        same sizes and copied back unless it is the carried array itself (updated in place). Scalars are
        carried by the loop as usual:

            scf.for %i = %lb to %ub step %s iter_args(%row = %init, %acc = %a) -> (tensor<?xi32>, i32)

        becomes `carry = copy of init; acc = scf.for ... iter_args(%acc = %a) { ...; copy yielded row
        into carry }` with `%row` bound to `carry` throughout.
        """
        carried = [isinstance(v.type, TensorType) for v in op.iter_args]
        carries: dict[int, View] = {}
        for k, (init, is_array) in enumerate(zip(op.iter_args, carried)):
            if is_array:
                start = self.view(init)
                carries[k] = self.kb.alloc_scratch(start.element, start.dims, op)
                self.kb.copy_view(start, carries[k])
        old = op.body.block
        scalar_params = [a for a, is_array in zip(old.args[1:], carried) if not is_array]
        block = Block(arg_types=[old.args[0].type, *(a.type for a in scalar_params)])
        for arg, param in zip(block.args, [old.args[0], *scalar_params]):
            arg.name_hint = param.name_hint
            self.env[param] = arg
        for k, view in carries.items():
            self.env[old.args[1 + k]] = view
        with building_at(self.b, InsertPoint.at_end(block)):
            yielded = self.inline(op.body, [self.env[a] for a in old.args])
            for k, view in carries.items():
                self._store_array(op, yielded[k], view)
            self.b.insert(scf.YieldOp(*(v for v, is_array in zip(yielded, carried) if not is_array)))
        loop = scf.ForOp(
            self.scalar(op.lb),
            self.scalar(op.ub),
            self.scalar(op.step),
            [self.scalar(v) for v, is_array in zip(op.iter_args, carried) if not is_array],
            block,
        )
        self.b.insert(loop)
        self._bind_results(op, loop, carries)

    def emit_if(self, op: scf.IfOp) -> None:
        if any(isinstance(r.type, TensorType) for r in op.results):
            self._emit_if_yielding_arrays(op)
            return
        true_block = self._rebuild_block(op.true_region.block)
        false_region = Region(self._rebuild_block(op.false_region.block)) if op.false_region.blocks else None
        new = scf.IfOp(self.scalar(op.cond), [r.type for r in op.results], Region(true_block), false_region)
        self._finish(op, new)

    def _emit_if_yielding_arrays(self, op: scf.IfOp) -> None:
        """A branch yielding arrays: each goes to the work-item's scratch memory, sized before the branch.

        The sizes come from the `then` branch's array (or the `else` branch's) when they can be computed
        ahead; whichever branch runs checks that its array has them and copies it into place.
        """
        targets: dict[int, View] = {}
        for k, result in enumerate(op.results):
            if isinstance(result.type, TensorType):
                dims = self.sizes.dims(yields_of(op.true_region)[k]) or self.sizes.dims(yields_of(op.false_region)[k])
                if dims is None:
                    raise LoweringError(
                        f"{describe(op)}: the size of the array it yields depends on the branch taken; "
                        "compute it from sizes and values outside the branch"
                    )
                targets[k] = self.kb.alloc_scratch(tensor_element(result.type), dims, op)
        blocks = []
        for region in (op.true_region, op.false_region):
            block = Block()
            with building_at(self.b, InsertPoint.at_end(block)):
                yielded = self.inline(region, [])
                for k, view in targets.items():
                    self._store_array(op, yielded[k], view)
                self.b.insert(scf.YieldOp(*(v for k, v in enumerate(yielded) if k not in targets)))
            blocks.append(block)
        scalar_types = [r.type for k, r in enumerate(op.results) if k not in targets]
        new = scf.IfOp(self.scalar(op.cond), scalar_types, Region(blocks[0]), Region(blocks[1]))
        self.b.insert(new)
        self._bind_results(op, new, targets)

    def emit_while(self, op: scf.WhileOp) -> None:
        if any(isinstance(v.type, TensorType) for v in (*op.arguments, *op.results)):
            self._emit_while_carrying_arrays(op)
            return
        before = self._rebuild_block(op.before_region.block)
        after = self._rebuild_block(op.after_region.block)
        new = scf.WhileOp([self.scalar(v) for v in op.arguments], [r.type for r in op.results], Region(before), Region(after))
        self._finish(op, new)

    def _emit_while_carrying_arrays(self, op: scf.WhileOp) -> None:
        """A while loop carrying arrays, in scratch memory: `carried` holds what the `before` region sees, `forwarded`
        what `scf.condition` passes on (to the `after` region and, at the end, to the results); each is copied into
        place when it is a new array, and checked to keep the sizes of the initial one."""
        carried = [isinstance(v.type, TensorType) for v in op.arguments]
        forwarded = [isinstance(r.type, TensorType) for r in op.results]
        if carried != forwarded:
            raise LoweringError(f"{describe(op)}: an array must stay an array in the same position from each region to the next")
        carries: dict[int, View] = {}
        passes: dict[int, View] = {}
        for k, init in enumerate(op.arguments):
            if carried[k]:
                start = self.view(init)
                carries[k] = self.kb.alloc_scratch(start.element, start.dims, op)
                passes[k] = self.kb.alloc_scratch(start.element, start.dims, op)
                self.kb.copy_view(start, carries[k])

        before = self._while_region(op, op.before_region, carried, carries, passes)
        after = self._while_region(op, op.after_region, carried, passes, carries)
        scalar_inits = [self.scalar(v) for v, is_array in zip(op.arguments, carried) if not is_array]
        scalar_types = [r.type for r, is_array in zip(op.results, carried) if not is_array]
        loop = scf.WhileOp(scalar_inits, scalar_types, Region(before), Region(after))
        self.b.insert(loop)
        self._bind_results(op, loop, passes)

    def _while_region(
        self, op: scf.WhileOp, region: Region, carried: list[bool], bound: dict[int, View], targets: dict[int, View]
    ) -> Block:
        """A region of a while loop carrying arrays: its array parameters are `bound`, the arrays its terminator passes
        on go to `targets`, its scalars stay block arguments and terminator operands."""
        old = region.block
        scalars = [a for a, is_array in zip(old.args, carried) if not is_array]
        block = Block(arg_types=[a.type for a in scalars])
        for arg, param in zip(block.args, scalars):
            arg.name_hint = param.name_hint
        terminator = old.last_op
        assert isinstance(terminator, scf.ConditionOp | scf.YieldOp)
        passed = terminator.args if isinstance(terminator, scf.ConditionOp) else terminator.operands
        with building_at(self.b, InsertPoint.at_end(block)):
            args = iter(block.args)
            for k, param in enumerate(old.args):
                self.env[param] = bound[k] if carried[k] else next(args)
            for nested in old.ops:
                if nested is not terminator:
                    self.emit(nested)
            outs = [self.value(v) for v in passed]
            for k, target in targets.items():
                self._store_array(op, outs[k], target)
            kept = [self.scalar(v) for v, is_array in zip(passed, carried) if not is_array]
            if isinstance(terminator, scf.ConditionOp):
                self.b.insert(scf.ConditionOp(self.scalar(terminator.condition), *kept))
            else:
                self.b.insert(scf.YieldOp(*kept))
        return block

    def _bind_results(self, op: Operation, new: Operation, arrays: dict[int, View]) -> None:
        """`op`'s results: `arrays[k]` for its array results, `new`'s results in order for the others."""
        results = iter(new.results)
        for k, result in enumerate(op.results):
            if k in arrays:
                self.env[result] = arrays[k]
            else:
                new_result = next(results)
                new_result.name_hint = result.name_hint
                self.env[result] = new_result

    def _store_array(self, op: Operation, value: KValue, target: View) -> None:
        """Copy `value` into `target` unless it is `target` itself, after checking that it has `target`'s sizes."""
        assert isinstance(value, View)
        if value.buffer is target.buffer and value.offset is target.offset:
            return
        ok = self.check_shape(op, value, target.dims)
        same = View(value.buffer, value.offset, target.dims, value.element)
        if ok is None:
            self.kb.copy_view(same, target)
        else:
            self.kb.if_then(ok, lambda: self.kb.copy_view(same, target))

    def _finish(self, op: Operation, new: Operation) -> None:
        self.b.insert(new)
        for old_result, new_result in zip(op.results, new.results):
            new_result.name_hint = old_result.name_hint
            self.env[old_result] = new_result
