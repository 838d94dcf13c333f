r"""`soac-hist-rows`: a histogram of rows whose operator is element-wise becomes a histogram of elements.

A `soac.hist` whose destinations are arrays of rows (`tensor<?x?xT>`, Futhark's `reduce_by_index` with array
elements) and whose operator combines two rows with a map of a scalar operator is a 1-D hist over the flattened
destinations, one value per element of the rows: element `j` of a row for bin `c` goes to bin `c*d + j`. So every
1-D hist strategy (atomics, sub-histograms, copies, passes) runs it unchanged:

    %h = soac.hist %n (%cs, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>)
        neutral(%zeros : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %b: tensor<?xf32>) {
      %s = soac.map %d (%a, %b : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
        %t = arith.addf %x, %y : f32
        soac.yield %t : f32
      }
      soac.yield %s : tensor<?xf32>
    } lambda(%c: index, %p: tensor<?xf32>) {
      soac.yield %c, %p : index, tensor<?xf32>
    }
becomes, where `%zeros = soac.replicate %d, %z`,
    %k = tensor.dim %dest, %c0 : tensor<?x?xf32>
    %nd = arith.muli %n, %d : index
    %kd = arith.muli %k, %d : index
    %len = tensor.dim %ps, %c1 : tensor<?x?xf32>
    soac.assert ...                          // the values' rows d long (or no rows); also a destination's where not known
    %dest_flat = soac.reshape %dest (%kd) : tensor<?x?xf32> -> tensor<?xf32>
    %ps_flat = soac.reshape %ps (%nd) : tensor<?x?xf32> -> tensor<?xf32>
    %elems = soac.iota %nd : tensor<?xindex>
    %divisor = arith.maxsi %d, %c1 : index    // never 0 (where d is 0 there is no element to divide)
    %h_flat = soac.hist %nd (%elems, %ps_flat : tensor<?xindex>, tensor<?xf32>) into(%dest_flat : tensor<?xf32>)
        neutral(%z : f32) -> tensor<?xf32> combine(%x: f32, %y: f32) {
      %t = arith.addf %x, %y : f32
      soac.yield %t : f32
    } lambda(%e: index, %v: f32) {
      %i = arith.divsi %e, %divisor : index         // the row
      %j = arith.remsi %e, %divisor : index         // its element
      %c = soac.index %cs[%i] : tensor<?xindex> -> index
      %inside = arith.cmpi ult, %c, %k : index
      %cd = arith.muli %c, %d : index
      %at = arith.addi %cd, %j : index
      %bin = arith.select %inside, %at, %kd : index   // a row outside the bins is dropped
      soac.yield %bin, %v : index, f32
    }
    %h = soac.reshape %h_flat (%k, %d) : tensor<?xf32> -> tensor<?x?xf32>

The bins and rows the lambda yields are read from the hist's inputs where the lambda passes an input through (as
above), else from a map that runs the lambda once per row (its bins and rows, computed once, not once per element).
Each destination's neutral row must be a `soac.replicate` of one value (the element's neutral element); several
destinations (rows of one length) take one map over all their rows as their operator. soac-to-kernel
and soac-flatten apply this rewrite (outside lambdas and in map nests); a hist of rows it cannot rewrite is an error
in soac-to-kernel (`check_hists_of_rows`), since no kernel combines rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from soac.dialect import SOAC_WITH_LAMBDAS, AssertOp, HistOp, IndexOp, IotaOp, MapOp, ReplicateOp, ReshapeOp, YieldOp
from soac.parsing import location_of
from soac.passes.flatten_analysis import region_free_values
from soac.passes.flatten_checks import array_dim, same_size
from soac.passes.simplify_sizes import has_size
from soac.passes.vectorised_operators import ancestors, scalar_operator
from xdsl.context import Context
from xdsl.dialects import arith, builtin, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern


class HistRowsError(ValueError):
    """A histogram of rows that no lowering runs, with the op's location in the message."""


def has_row_bins(op: HistOp) -> bool:
    """Whether the bins of `op` are rows (its destinations are arrays of rows)."""
    return any(isinstance(d.type, TensorType) and d.type.get_num_dims() > 1 for d in op.dests)


def element_wise_operator(op: HistOp) -> MapOp | None:
    """The map of `op`'s operator if the operator is one map of a scalar operator over the rows of its parameters,
    whose width is defined outside the operator (the rows' length, checked by the rewrite where it is not known)."""
    block = op.combine.block
    inner, terminator = block.first_op, block.last_op
    if not isinstance(inner, MapOp) or inner.next_op is not terminator or not isinstance(terminator, YieldOp):
        return None
    if list(terminator.operands) != list(inner.outs) or sorted(map(id, inner.inputs)) != sorted(map(id, block.args)):
        return None
    if op.combine.is_ancestor(inner.width.owner) or any(isinstance(t, TensorType) for t in inner.body.block.arg_types):
        return None
    if any(arg in region_free_values(inner.body) for arg in block.args):
        return None
    return inner


def rows_as_wide(op: HistOp, array: SSAValue, width: SSAValue) -> bool:
    """Whether the rows of `array` (a destination of `op`) are provably `width` long."""
    return same_size(width, array_dim(array, 1)) or has_size(op, array, 1, width)


def rows_problem(op: HistOp) -> str | None:
    """Why the hist of rows `op` cannot become a hist of elements (None where it can)."""
    if any(not isinstance(d.type, TensorType) or d.type.get_num_dims() != 2 for d in op.dests):
        return "every destination must be an array of rows of scalars (tensor<?x?xT>)"
    if element_wise_operator(op) is None:
        return (
            "its operator must be element-wise: one soac.map of a scalar operator over the two rows (as map2 (+)); "
            "the interpreter runs any operator"
        )
    if any(_replicated(ne) is None for ne in op.neutral):
        return "each neutral row must be a soac.replicate of one value (the neutral element of every column)"
    return None


@dataclass
class HistOfRowsToElements(RewritePattern):
    """hist (map2 op) (replicate d ne) dest f xs -> unflatten (hist op ne (flatten dest) (bin c*d+j) (flatten rows))."""

    in_maps: bool = True
    """Also rewrite the hists inside map lambdas (soac-flatten flattens those)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: HistOp, rewriter: PatternRewriter, /) -> None:
        if not has_row_bins(op) or rows_problem(op) is not None:
            return
        lambdas = [p for p in ancestors(op) if isinstance(p, SOAC_WITH_LAMBDAS)]
        if any(not isinstance(p, MapOp) or not self.in_maps for p in lambdas):
            return
        inner = element_wise_operator(op)
        assert inner is not None
        d = inner.width
        new_ops: list[Operation] = []

        def add(new: Operation, hint: str | None = None) -> SSAValue:
            new.location = op.location  # run-time errors point at the source op
            new_ops.append(new)
            result = new.results[0]
            if hint:
                result.name_hint = hint
            return result

        array, axis = _outermost(op.dests[0], 0)  # a size the nest does not vary, which flattening keeps outside
        k = add(tensor.DimOp(array, add(arith.ConstantOp.from_int_and_width(axis, IndexType()), f"c{axis}")), "bins")
        nd = add(arith.MuliOp(op.width, d), "elements")
        kd = add(arith.MuliOp(k, d), "bin_elements")
        bins, rows = self._sources(op, add)
        one = add(arith.ConstantOp.from_int_and_width(1, IndexType()), "c1")
        zero = add(arith.ConstantOp.from_int_and_width(0, IndexType()), "c0")
        no_rows = add(arith.CmpiOp(op.width, zero, "eq"), "no_rows")
        # the rows as long as the operator's map (which checks them where it combines two, so where there are rows)
        unknown = [(dest, f"destination #{j} has") for j, dest in enumerate(op.dests) if not rows_as_wide(op, dest, d)]
        for array, what in [*unknown, *((r, "the values have") for r in rows)]:
            length = add(tensor.DimOp(array, one), "row_length")
            ok = add(arith.OrIOp(add(arith.CmpiOp(length, d, "eq"), "same_length"), no_rows), "checked")
            check = AssertOp(
                ok, f"'soac.hist': {what} rows of {{0}} elements, but the operator combines rows of {{1}}", [length, d]
            )
            check.location = op.location
            new_ops.append(check)
        flat_dests = [add(ReshapeOp(dest, [kd]), f"{dest.name_hint or 'dest'}_flat") for dest in op.dests]
        flat_rows = [add(ReshapeOp(r, [nd]), f"{r.name_hint or 'rows'}_flat") for r in rows]
        elements = add(IotaOp(nd, TensorType(IndexType(), [DYNAMIC_INDEX])), "elements")
        neutral = [_replicated(ne) for ne in op.neutral]
        divisor = add(arith.MaxSIOp(d, one), "divisor")  # never 0: rows of no elements give no elements to divide
        body = self._element_lambda(bins, k, divisor, d, kd, [_element(r.type) for r in flat_rows])
        flat = HistOp(nd, [elements, *flat_rows], flat_dests, neutral, scalar_operator(op, inner), body)  # pyright: ignore[reportArgumentType]
        flat.location = op.location
        new_ops.append(flat)
        results = []
        for result, old in zip(flat.outs, op.outs):
            result.name_hint = f"{old.name_hint or 'hist'}_flat"
            results.append(add(ReshapeOp(result, [k, d]), old.name_hint))
        rewriter.replace(op, new_ops, results)

    @staticmethod
    def _sources(op: HistOp, add: Callable[[Operation], SSAValue]) -> tuple[SSAValue, list[SSAValue]]:
        """The arrays of the bins and of the rows of every destination, one entry per row of the inputs: an input
        that the lambda passes through (the bins maybe cast to indices), else a result of a map of the lambda over
        the inputs."""
        block = op.body.block
        terminator = block.last_op
        assert isinstance(terminator, YieldOp)
        yielded = list(terminator.operands)
        source = {arg: x for arg, x in zip(block.args, op.inputs)}
        bin_ = yielded[0]
        if isinstance(cast := bin_.owner, arith.IndexCastOp) and cast.input in source:  # cast where it is read
            source[bin_] = source[cast.input]
        computed = list(dict.fromkeys(v for v in yielded if v not in source))
        if computed:
            map_block = Block(arg_types=block.arg_types)
            mapper: dict[SSAValue, SSAValue] = dict(zip(block.args, map_block.args))
            for arg, new in zip(block.args, map_block.args):
                new.name_hint = arg.name_hint
            for lambda_op in list(block.ops)[:-1]:
                map_block.add_op(lambda_op.clone(mapper))
            map_block.add_op(YieldOp(*(mapper.get(v, v) for v in computed)))
            mapped = MapOp(op.width, list(op.inputs), [_array_of(v.type) for v in computed], Region(map_block))
            add(mapped)
            for v, result in zip(computed, mapped.results):
                result.name_hint = "bins" if v is yielded[0] else f"{v.name_hint or 'row'}s"
                source[v] = result
        return source[yielded[0]], [source[v] for v in yielded[1:]]

    @staticmethod
    def _element_lambda(
        bins: SSAValue, k: SSAValue, divisor: SSAValue, d: SSAValue, kd: SSAValue, elements: Sequence[Attribute]
    ) -> Region:
        """`(e, v...) -> (c*d + j if 0 <= c < k else k*d, v...)` for element `j = e % d` of row `i = e / d`, whose
        bin is `c = bins[i]` (`divisor` is `d`, or 1 where `d` is 0 and there are no elements)."""
        block = Block(arg_types=[IndexType(), *elements])
        e, *values = block.args
        e.name_hint = "e"
        for v in values:
            v.name_hint = "v"
        i = arith.DivSIOp(e, divisor)
        j = arith.RemSIOp(e, divisor)
        c = IndexOp(bins, [i.result])
        ops: list[Operation] = [i, j, c]
        bin_ = c.result
        if not isinstance(bin_.type, IndexType):
            cast = arith.IndexCastOp(bin_, IndexType())
            ops.append(cast)
            bin_ = cast.result
        inside = arith.CmpiOp(bin_, k, "ult")
        cd = arith.MuliOp(bin_, d)
        at = arith.AddiOp(cd, j)
        chosen = arith.SelectOp(inside, at, kd)
        ops += [inside, cd, at, chosen]
        for value, hint in zip((i, j, c, inside, at, chosen), ("i", "j", "c", "inside", "at", "bin")):
            value.results[0].name_hint = hint
        block.add_ops([*ops, YieldOp(chosen.result, *values)])
        return Region(block)


def _replicated(row: SSAValue) -> SSAValue | None:
    """The value that `row` replicates, if it is a replicate (of any width: a hist never reads its neutral rows
    whole, they only promise that the operator leaves a row unchanged)."""
    owner = row.owner
    return owner.value if isinstance(owner, ReplicateOp) else None


def _outermost(array: SSAValue, axis: int) -> tuple[SSAValue, int]:
    """The array and axis whose size is dimension `axis` of `array`, following rows of map inputs outwards."""
    while isinstance(array, BlockArgument) and isinstance(parent := array.owner.parent_op(), MapOp):
        if array.owner is not parent.body.block:
            break
        array, axis = parent.inputs[array.index], axis + 1
    return array, axis


def _element(t: Attribute) -> Attribute:
    assert isinstance(t, TensorType)
    return t.get_element_type()


def _array_of(element: Attribute) -> TensorType:
    """The type of an array of `element`s (scalars or rows)."""
    if isinstance(element, TensorType):
        return TensorType(element.get_element_type(), [DYNAMIC_INDEX, *element.get_shape()])
    return TensorType(element, [DYNAMIC_INDEX])


def hists_of_rows_to_elements(module: builtin.ModuleOp, in_maps: bool = True, check: bool = False) -> None:
    """Rewrite the hists of rows with element-wise operators outside lambdas (and in maps); with `check`, raise
    HistRowsError for a hist of rows left (the lowering has no kernel that combines rows)."""
    PatternRewriteWalker(HistOfRowsToElements(in_maps)).rewrite_module(module)
    if check:
        check_hists_of_rows(module)


def check_hists_of_rows(module: builtin.ModuleOp) -> None:
    """Raise HistRowsError for the first hist of rows in `module`: no kernel combines rows."""
    for op in module.walk():
        if not isinstance(op, HistOp) or not has_row_bins(op):
            continue
        problem = rows_problem(op) or "it is inside a lambda that is not a map's"
        where = location_of(op)
        raise HistRowsError(
            f"'soac.hist'{f' at {where}' if where else ''}: a histogram of rows runs only as a histogram of elements; {problem}"
        )


@dataclass(frozen=True)
class HistRowsPass(ModulePass):
    """Histograms of rows with element-wise operators become histograms of elements over flattened rows."""

    name = "soac-hist-rows"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        hists_of_rows_to_elements(op)
