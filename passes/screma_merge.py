"""Building fused SOACs: the lambda compositions behind every fusion rule.

Each builder returns the fused op (not yet inserted) and a map from every
result of the old ops that is still needed to the result of the fused op that
replaces it. Legality is the caller's business (`fuse_vertical`,
`fuse_horizontal`); these functions only compose regions.
"""

from __future__ import annotations

from collections.abc import Sequence

from soac.dialect import HistOp, PartitionOp, ScatterOp, YieldOp
from soac.passes.screma import (
    Combining,
    InputList,
    Screma,
    apply_pre,
    build_screma,
    forwarded_types,
    move_lambda,
    new_block,
    param_hints,
    reduce_operator,
    scan_operator,
)
from soac.types import row_type
from xdsl.ir import Block, Operation, Region, SSAValue

Fused = tuple[Operation, dict[SSAValue, SSAValue]]


def _build(parts: Sequence[Screma], inputs: Sequence[SSAValue], pre: Block, post: Block | None) -> Operation:
    """The op fusing `parts`: their scan parts and their reduction parts tupled (in order), around `pre` and `post`."""
    scan = scan_operator(parts)
    red = reduce_operator(parts)
    scan_part = Combining([v for p in parts for v in p.scan_neutral], scan) if scan is not None else None
    red_part = Combining([v for p in parts for v in p.red_neutral], red) if red is not None else None
    commutative = all(p.commutative for p in parts if p.red_combine is not None)
    return build_screma(parts[0].width, inputs, pre, scan_part, post, red_part, commutative)


def _collect_inputs(parts: Sequence[tuple[Sequence[SSAValue], Block | None]], skip: set[SSAValue]) -> InputList:
    """De-duplicated inputs of several ops, given as `(inputs, lambda)`, leaving out `skip`."""
    inputs = InputList()
    for values, pre in parts:
        hints = param_hints(pre, len(values))
        for value, hint in zip(values, hints):
            if value not in skip:
                inputs.add(value, hint)
    return inputs


def merge_scremas(a: Screma, b: Screma, consumed: set[SSAValue], export: set[SSAValue]) -> Fused | None:
    """Fuse `b` after `a`: `b` may take map-outs of `a` (`consumed`) as inputs.

    With nothing consumed this is horizontal fusion (F2); otherwise it is
    vertical fusion of a producer's per-element values into the consumer (F1,
    map->reduce = redomap, map->scan = scanomap, and a redomap/scanomap whose
    map-outs feed another SOAC). `export` names the map-outs of `a` that are
    still used elsewhere and stay results (map-out arrays). Scan parts and
    reduction parts are tupled separately, so scan+reduce gives a scanomap
    with a reduction part (Futhark's Screma with scans and reductions):

        %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(...) { ... }
        %t = soac.reduce %n (%xs : tensor<?xi32>) neutral(%one : i32) -> i32 combine(...) { ... }
    becomes
        %s, %t = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) reduce(%one : i32)
            -> (tensor<?xi32>, i32) combine(...) { ... } reduce_combine(...) { ... }
            lambda(%x: i32) { soac.yield %x, %x : i32, i32 }

    Map->reduce:

        %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) { ... yield %y }
        %s = soac.reduce %n (%ys : tensor<?xf32>) neutral(%z : f32) -> f32 combine(...) { ... }
    becomes
        %s = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(...) { ... }
            lambda(%x: f32) { ... yield %y }
    """
    inputs = _collect_inputs([(a.inputs, a.pre), (b.inputs, b.pre)], consumed)
    pre = new_block(inputs.rows(), inputs.hints)
    a_vals = apply_pre(a, pre, [pre.args[inputs.index(v)] for v in a.inputs])
    mapout_value = dict(zip(a.mapouts, a_vals.mapouts))
    b_rows = [mapout_value[v] if v in consumed else pre.args[inputs.index(v)] for v in b.inputs]
    b_vals = apply_pre(b, pre, b_rows)
    kept = [r for r in a.mapouts if r in export]
    extra = _post_reads_of(b, consumed)
    pre.add_op(
        YieldOp(
            *a_vals.scan, *b_vals.scan, *a_vals.red, *b_vals.red, *(mapout_value[r] for r in kept), *b_vals.mapouts,
            *a_vals.forwarded, *b_vals.forwarded, *(mapout_value[v] for v in extra),
        )
    )  # fmt: skip
    post = _merged_post(a, b, inputs, extra) if a.post is not None or b.post is not None else None
    op = _build([a, b], inputs.values, pre, post)
    old = [*a.scanned, *b.scanned, *a.reduced, *b.reduced, *kept, *b.mapouts]
    return op, dict(zip(old, op.results, strict=True))


def _post_reads_of(b: Screma, consumed: set[SSAValue]) -> list[SSAValue]:
    """The consumed inputs whose rows `b`'s post lambda reads: fusion forwards them from the pre-lambda."""
    if b.post is None:
        return []
    rows = b.post.args[len(b.scan_neutral) : len(b.scan_neutral) + len(b.inputs)]
    return list(dict.fromkeys(value for row, value in zip(rows, b.inputs) if value in consumed and row.uses))


def _merged_post(a: Screma, b: Screma, inputs: InputList, extra: Sequence[SSAValue]) -> Block:
    """`post(scanned_a.., scanned_b.., rows.., fwd_a.., fwd_b.., extra..) = (post_a(scanned_a, rows_a, fwd_a)..,
    post_b(scanned_b, rows_b, fwd_b)..)`, where `extra` are `b`'s inputs made by `a`, whose rows are forwarded."""
    scanned_types = [v.type for v in (*a.scan_neutral, *b.scan_neutral)]
    forwarded = [forwarded_types(a), forwarded_types(b), [row_type(v.type) for v in extra]]
    types = [*scanned_types, *inputs.rows(), *(t for ts in forwarded for t in ts)]
    post = new_block(types, [None] * len(scanned_types) + inputs.hints)  # pyright: ignore[reportArgumentType]
    rows = post.args[len(scanned_types) : len(scanned_types) + len(inputs.values)]
    fwd_params = list(post.args[len(scanned_types) + len(inputs.values) :])
    part_fwd = [fwd_params[: len(forwarded[0])], fwd_params[len(forwarded[0]) : len(forwarded[0]) + len(forwarded[1])]]
    extra_rows = dict(zip(extra, fwd_params[len(forwarded[0]) + len(forwarded[1]) :]))
    yielded: list[SSAValue] = []
    offset = 0
    for part, fwd in zip((a, b), part_fwd):
        scanned = list(post.args[offset : offset + len(part.scan_neutral)])
        offset += len(part.scan_neutral)
        if part.post is None:
            yielded += scanned
            continue
        # Rows of inputs that fusion removed and does not forward are unused; any value stands in for them.
        part_rows = [rows[inputs.index(v)] if v in inputs.values else extra_rows.get(v, post.args[0]) for v in part.inputs]
        yielded += move_lambda(part.post, post, [*scanned, *part_rows, *fwd])
    post.add_op(YieldOp(*yielded))
    return post


def fuse_into_post(p: Screma, c: Screma, export: set[SSAValue], export_mapouts: set[SSAValue]) -> Fused:
    """scan->map fusion: the consumer map becomes (part of) the producer's post lambda.

        %ss = soac.scan %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(...) { ... }
        %ys = soac.map %n (%ss : tensor<?xf32>) -> tensor<?xf32> lambda(%s: f32) { ... yield %y }
    becomes
        %ys = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(...) { ... }
            lambda(%x: f32) { soac.yield %x : f32 } post(%s: f32, %x: f32) { ... yield %y }

    The consumer may also read map-outs of `p`: the pre-lambda forwards their values to the post lambda
    (`map f -> scan -> map2 g` is one scanomap):

        %ss, %fs = soac.scanomap %n (%xs : ...) ... lambda(%x: f32) { ... soac.yield %v, %f : f32, f32 }
        %ys = soac.map %n (%ss, %fs : ...) -> tensor<?xf32> lambda(%s: f32, %f: f32) { ... yield %y }
    becomes
        %ys = soac.scanomap %n (%xs : ...) ... lambda(%x: f32) { ... soac.yield %v, %f : f32, f32 }
            post(%s: f32, %x: f32, %f: f32) { ... yield %y }

    `export` names the scanned (or post) arrays of `p` still used elsewhere, `export_mapouts` its map-outs.
    A reduction part of `p` stays as it is.
    """
    mapouts = set(p.mapouts)
    via_mapout = list(dict.fromkeys(v for v in c.inputs if v in mapouts))
    inputs = _collect_inputs([(p.inputs, p.pre), (c.inputs, c.pre)], {*p.scanned, *via_mapout})
    pre = new_block(inputs.rows(), inputs.hints)
    p_vals = apply_pre(p, pre, [pre.args[inputs.index(v)] for v in p.inputs])
    mapout_value = dict(zip(p.mapouts, p_vals.mapouts))
    kept_mapouts = [r for r in p.mapouts if r in export_mapouts]
    pre.add_op(
        YieldOp(
            *p_vals.scan, *p_vals.red, *(mapout_value[r] for r in kept_mapouts), *p_vals.forwarded,
            *(mapout_value[v] for v in via_mapout),
        )
    )  # fmt: skip
    k = len(p.scan_neutral)
    forwarded = [*forwarded_types(p), *(row_type(v.type) for v in via_mapout)]
    types = [v.type for v in p.scan_neutral] + inputs.rows() + forwarded
    post = new_block(types, [None] * k + inputs.hints)  # pyright: ignore[reportArgumentType]
    scanned, rows = list(post.args[:k]), post.args[k : k + len(inputs.values)]
    fwd_params = post.args[k + len(inputs.values) :]
    p_post = scanned
    if p.post is not None:
        p_rows = [rows[inputs.index(v)] for v in p.inputs]
        p_post = move_lambda(p.post, post, [*scanned, *p_rows, *fwd_params[: p.forwarded]])
    value_of: dict[SSAValue, SSAValue] = dict(zip(p.scanned, p_post))
    value_of.update(zip(via_mapout, fwd_params[p.forwarded :]))
    assert c.pre is not None
    c_vals = move_lambda(c.pre, post, [value_of[v] if v in value_of else rows[inputs.index(v)] for v in c.inputs])
    kept = [r for r in p.scanned if r in export]
    post.add_op(YieldOp(*(value_of[r] for r in kept), *c_vals))
    op = _build([p], inputs.values, pre, post)
    old = [*kept, *c.mapouts, *p.reduced, *kept_mapouts]
    return op, dict(zip(old, op.results, strict=True))


def _map_into_lambda(p: Screma, consumer_inputs: Sequence[SSAValue], lambda_block: Block) -> tuple[list[SSAValue], Block]:
    """The inputs and lambda of a consumer (scatter, hist) with the map `p` that computes some of its inputs moved
    in front of its own lambda: the fused lambda takes the map's inputs and the consumer's other inputs."""
    inputs = _collect_inputs([(p.inputs, p.pre), (consumer_inputs, lambda_block)], set(p.mapouts))
    body = new_block(inputs.rows(), inputs.hints)
    p_vals = apply_pre(p, body, [body.args[inputs.index(v)] for v in p.inputs])
    value_of = dict(zip(p.mapouts, p_vals.mapouts))
    args = [value_of[v] if v in value_of else body.args[inputs.index(v)] for v in consumer_inputs]
    body.add_op(YieldOp(*move_lambda(lambda_block, body, args)))
    return list(inputs.values), body


def fuse_into_scatter(p: Screma, scatter: ScatterOp) -> Fused:
    """map->scatter fusion: the map computes the indices or values of the scatter.

        %is = soac.map %n (%xs : tensor<?xi64>) -> tensor<?xindex> lambda(%x: i64) { ... yield %i }
        %r = soac.scatter %n (%is, %vs : ...) into(%d : tensor<?xf32>) -> tensor<?xf32> lambda(%i: index, %v: f32) {...}
    becomes
        %r = soac.scatter %n (%xs, %vs : ...) into(%d : tensor<?xf32>) -> tensor<?xf32> lambda(%x: i64, %v: f32) {...}
    """
    inputs, body = _map_into_lambda(p, scatter.inputs, scatter.body.block)
    op = ScatterOp(scatter.width, inputs, scatter.dests, Region(body))
    return op, dict(zip(scatter.outs, op.outs, strict=True))


def fuse_into_hist(p: Screma, hist: HistOp) -> Fused:
    """map->hist fusion: the map computes the rows the histogram reads (its bins or values), as Futhark's `Hist`
    takes a lambda.

        %ws = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xi32> lambda(%x: f32) { ... yield %w }
        %h = soac.hist %n (%is, %ws : ...) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
            combine(...) {...} lambda(%i: index, %w: i32) {...}
    becomes
        %h = soac.hist %n (%is, %xs : ...) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
            combine(...) {...} lambda(%i: index, %x: f32) { ... the map's body, then the hist's ... }
    """
    inputs, body = _map_into_lambda(p, hist.inputs, hist.body.block)
    op = HistOp(hist.width, inputs, hist.dests, hist.neutral, hist.combine.clone(), Region(body))
    return op, dict(zip(hist.outs, op.outs, strict=True))


def fuse_into_partition(p: Screma, partition: PartitionOp) -> Fused:
    """map->partition fusion: the map computes the rows the partition reads (its keys or the values it moves), as
    hist takes its map; the moved values are what the lambda yields, so nothing else changes.

        %ds = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) { ... yield %d }
        %c, %ys = soac.partition %n buckets 256 (%ds, %xs : ...) -> (...) lambda(%d: i32, %x: i32) {...}
    becomes
        %c, %ys = soac.partition %n buckets 256 (%xs : ...) -> (...) lambda(%x: i32) { ... the map's body, then ... }
    """
    inputs, body = _map_into_lambda(p, partition.inputs, partition.body.block)
    op = PartitionOp(partition.width, inputs, partition.bucket_count, list(partition.outs.types), Region(body), partition.known)
    return op, dict(zip(partition.results, op.results, strict=True))


def merge_scatters(a: ScatterOp, b: ScatterOp) -> Fused:
    """Horizontal scatter+scatter fusion: one scatter writing both sets of destinations.

    The lambda yields `a`'s indices, `b`'s indices, `a`'s values, `b`'s values.
    """
    blocks = (a.body.block, b.body.block)
    inputs = _collect_inputs([(a.inputs, blocks[0]), (b.inputs, blocks[1])], set())
    body = new_block(inputs.rows(), inputs.hints)
    a_vals = move_lambda(blocks[0], body, [body.args[inputs.index(v)] for v in a.inputs])
    b_vals = move_lambda(blocks[1], body, [body.args[inputs.index(v)] for v in b.inputs])
    ka, kb = len(a.dests), len(b.dests)
    body.add_op(YieldOp(*a_vals[:ka], *b_vals[:kb], *a_vals[ka:], *b_vals[kb:]))
    op = ScatterOp(a.width, inputs.values, [*a.dests, *b.dests], Region(body))
    return op, dict(zip([*a.outs, *b.outs], op.outs, strict=True))
