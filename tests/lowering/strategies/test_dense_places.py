"""A compaction's look-back kernel gathers a full tile's kept elements in local memory and writes them out together
(`dense_places.py`, `lookback_bodies._StagedPlaces`): which scatters qualify, and the staged kernels against the
interpreter on PoCL (emulated warps and the local-memory look-back), with `scan-stage=false` as the control."""

from __future__ import annotations

import numpy as np
import pytest
from soac import dialect as soac
from soac.context import make_context
from soac.interpreter import run_function as interpret
from soac.lowering.runtime import compile_module
from soac.lowering.strategies.dense_places import dense_destination
from soac.parsing import parse_module

# A stable filter of the positive elements; the count of kept elements goes to a second destination at the last row.
# LAMBDA_FLAG / POST_FLAG are the predicates the lambda counts and the post places by; PLACE the kept element's place.
COMPACTION = """
func.func @f(%xs: tensor<?xDTYPE>, %m: index) -> (tensor<?xDTYPE>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xs, %c0 : tensor<?xDTYPE>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %minus = arith.constant -1 : i32
  %n32 = arith.index_cast %n : index to i32
  %final = arith.subi %n32, %one : i32
  %is = soac.iota %n : tensor<?xi32>
  %fresh = tensor.empty(%m) : tensor<?xDTYPE>
  %count = soac.replicate %c1, %zero : i32 -> tensor<?xi32>
  %at, %last, %total = soac.scanomap %n (%xs, %is : tensor<?xDTYPE>, tensor<?xi32>) neutral(%zero : i32)
      -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %s = arith.addi %b, %a : i32
    soac.yield %s : i32
  } lambda(%x: DTYPE, %i: i32) {
    %keep = LAMBDA_FLAG
    %f = arith.extui %keep : i1 to i32
    soac.yield %f : i32
  } post(%r: i32, %y: DTYPE, %j: i32) {
    %keep_1 = POST_FLAG
    %before = arith.subi %r, %one : i32
    %place = arith.select %keep_1, PLACE, %minus : i32
    %is_last = arith.cmpi eq, %j, %final : i32
    %slot = arith.select %is_last, %zero, %minus : i32
    soac.yield %place, %slot, %r : i32, i32, i32
  }
  %out, %counted = soac.scatter %n (%at, %last, %total, %xs : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xDTYPE>)
      into(%fresh, %count : tensor<?xDTYPE>, tensor<?xi32>) -> (tensor<?xDTYPE>, tensor<?xi32>)
      lambda(%q: i32, %l: i32, %t: i32, %v: DTYPE) {
    %qi = arith.index_cast %q : i32 to index
    %li = arith.index_cast %l : i32 to index
    soac.yield %qi, %li, %v, %t : index, index, DTYPE, i32
  }
  func.return %out, %counted : tensor<?xDTYPE>, tensor<?xi32>
}
"""
POSITIVE = {"i32": "arith.cmpi sgt, X, %c_zero : i32", "f32": "arith.cmpf ogt, X, %c_zero : f32"}
ZEROS = {"i32": "arith.constant 0 : i32", "f32": "arith.constant 0.0 : f32"}


def compaction(dtype: str = "i32", lambda_flag: str | None = None, post_flag: str | None = None, place: str = "%before") -> str:
    flag = POSITIVE[dtype]
    text = COMPACTION.replace("LAMBDA_FLAG", (lambda_flag or flag).replace("X", "%x"))
    text = text.replace("POST_FLAG", (post_flag or flag).replace("X", "%y")).replace("PLACE", place)
    text = text.replace("%n32 =", f"%c_zero = {ZEROS[dtype]}\n  %n32 =")
    return text.replace("DTYPE", dtype)


def scan_and_scatter(text: str) -> tuple[soac.ScanomapOp, soac.ScatterOp]:
    module = parse_module(make_context(), text, "dense.mlir")
    scan = next(op for op in module.walk() if isinstance(op, soac.ScanomapOp))
    scatter = next(op for op in module.walk() if isinstance(op, soac.ScatterOp))
    return scan, scatter


def test_a_compaction_has_dense_places_in_its_first_destination() -> None:
    assert dense_destination(*scan_and_scatter(compaction())) == 0
    assert dense_destination(*scan_and_scatter(compaction("f32"))) == 0


@pytest.mark.parametrize(
    ("what", "text"),
    [
        ("another predicate in the post", compaction(post_flag="arith.cmpi sge, X, %c_zero : i32")),
        ("the predicate on another input", compaction(post_flag="arith.cmpi sgt, %j, %zero : i32")),
        ("the count itself, not the count before", compaction(place="%r")),
        ("a product, not a count", compaction().replace("arith.addi %b, %a", "arith.muli %b, %a")),
    ],
)
def test_other_places_are_not_dense(what: str, text: str) -> None:
    assert dense_destination(*scan_and_scatter(text)) is None, what


WARPS = {"target": "emulated-warps", "group_size": 32, "scan_group": 32, "scan_items": 4}  # tiles of 128
LOCAL = {"scan": "lookback", "group_size": 64}  # the look-back scan without warps: tiles of 64 x 16


@pytest.mark.parametrize("lowering", [WARPS, LOCAL], ids=["emulated-warps", "local"])
@pytest.mark.parametrize("dtype", ["i32", "f32"])
def test_staged_compaction_matches_the_interpreter(lowering: dict[str, object], dtype: str) -> None:
    text = compaction(dtype)
    staged = compile_module(parse_module(make_context(), text, "dense.mlir"), "pocl", **lowering)
    assert "__local int staged[" in staged.source or "__local float staged[" in staged.source
    plain = compile_module(parse_module(make_context(), text, "dense.mlir"), "pocl", scan_stage=False, **lowering)
    assert "staged" not in plain.source
    rng = np.random.default_rng(40)
    for n, m in [(0, 0), (1, 1), (127, 127), (128, 128), (129, 129), (1024, 1024), (1025, 1025), (5003, 5003), (5003, 900)]:
        xs = rng.integers(-100, 100, n).astype(np.int32) if dtype == "i32" else rng.standard_normal(n).astype(np.float32)
        args = [xs, np.int64(m)]
        module = parse_module(make_context(), text, "dense.mlir")
        want_out, want_count = interpret(module, "f", args)
        kept = int(np.asarray(want_count)[0]) if n else 0
        shown = min(kept, m)  # places at m and beyond are dropped; the rest of the destination is never written
        for program in (staged, plain):
            out, counted = program.call("f", args)
            np.testing.assert_array_equal(np.asarray(out)[:shown], np.asarray(want_out)[:shown], err_msg=f"n = {n}, m = {m}")
            if n:
                assert int(np.asarray(counted)[0]) == kept
