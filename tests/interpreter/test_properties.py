"""Property tests: reductions and scans, both the ufunc fast path and the general tree/Hillis-Steele path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# `{op}` is the combining op; in the "general" variant the operator has an extra
# no-op step, so it is not recognised as a single ufunc and runs as a lambda.
OPS = {
    "i32": {
        "arith.addi": np.add,
        "arith.muli": np.multiply,
        "arith.maxsi": np.maximum,
        "arith.minsi": np.minimum,
        "arith.xori": np.bitwise_xor,
        "arith.maxui": None,
    },
    "i64": {"arith.addi": np.add, "arith.ori": np.bitwise_or, "arith.minui": None},
    "f64": {"arith.addf": np.add, "arith.maxnumf": np.fmax, "arith.minimumf": np.minimum},
    "i1": {"arith.andi": np.logical_and, "arith.ori": np.logical_or, "arith.xori": np.logical_xor},
}
NAN, INF = "0x7FF8000000000000", "0x7FF0000000000000"
NEUTRAL = {  # (type, op) -> (IR literal, value)
    ("i32", "arith.addi"): ("0", 0),
    ("i32", "arith.muli"): ("1", 1),
    ("i32", "arith.maxsi"): ("-2147483648", -(2**31)),
    ("i32", "arith.minsi"): ("2147483647", 2**31 - 1),
    ("i32", "arith.xori"): ("0", 0),
    ("i32", "arith.maxui"): ("0", 0),
    ("i64", "arith.addi"): ("0", 0),
    ("i64", "arith.ori"): ("0", 0),
    ("i64", "arith.minui"): ("-1", -1),
    ("f64", "arith.addf"): ("0.0", 0.0),
    ("f64", "arith.maxnumf"): (NAN, np.nan),
    ("f64", "arith.minimumf"): (INF, np.inf),
    ("i1", "arith.andi"): ("1", True),
    ("i1", "arith.ori"): ("0", False),
    ("i1", "arith.xori"): ("0", False),
}
DTYPE = {"i32": np.int32, "i64": np.int64, "f64": np.float64, "i1": np.bool_}
CASES = [(t, op) for t, ops in OPS.items() for op in ops]


def program(t: str, op: str, general: bool) -> str:
    extra = f"    %d = arith.select %true, %c, %a : {t}\n" if general else ""
    out = "%d" if general else "%c"
    combine = f"""combine(%a: {t}, %b: {t}) {{
    %true = arith.constant true
    %c = {op} %a, %b : {t}
{extra}    soac.yield {out} : {t}
  }}"""
    if not general:
        combine = combine.replace("    %true = arith.constant true\n", "")
    return f"""
func.func @main(%n: index, %xs: tensor<?x{t}>) -> ({t}, tensor<?x{t}>, {t}, tensor<?x{t}>, tensor<?x{t}>) {{
  %ne = arith.constant {NEUTRAL[(t, op)][0]} : {t}
  %r = soac.reduce %n (%xs : tensor<?x{t}>) neutral(%ne : {t}) -> {t} {combine}
  %s = soac.scan %n (%xs : tensor<?x{t}>) neutral(%ne : {t}) -> tensor<?x{t}> {combine}
  %rm, %mo = soac.redomap %n (%xs : tensor<?x{t}>) neutral(%ne : {t}) -> ({t}, tensor<?x{t}>) {combine} lambda(%x: {t}) {{
    soac.yield %x, %x : {t}, {t}
  }}
  %so, %so2 = soac.scanomap %n (%xs : tensor<?x{t}>) neutral(%ne : {t}) -> (tensor<?x{t}>, tensor<?x{t}>)
      {combine} lambda(%x: {t}) {{
    soac.yield %x, %x : {t}, {t}
  }}
  func.return %r, %s, %rm, %so, %so2 : {t}, tensor<?x{t}>, {t}, tensor<?x{t}>, tensor<?x{t}>
}}
"""


def reference(t: str, op: str, xs: np.ndarray) -> tuple[object, np.ndarray]:
    """The reduction and the inclusive scan, by numpy."""
    if len(xs) == 0:
        return DTYPE[t](NEUTRAL[(t, op)][1]), xs
    fn = OPS[t][op]
    if fn is None:  # unsigned max/min: on the bits as unsigned
        u = xs.view(np.uint32 if t == "i32" else np.uint64)
        acc = (np.maximum if op == "arith.maxui" else np.minimum).accumulate(u).view(xs.dtype)
    else:
        acc = fn.accumulate(xs, dtype=xs.dtype)
    return acc[-1], acc


def elements(t: str) -> st.SearchStrategy:
    if t == "f64":
        return st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: float(np.float64(round(v))))
    if t == "i1":
        return st.booleans()
    return st.integers(-(2**31), 2**31 - 1) if t == "i32" else st.integers(-(2**63), 2**63 - 1)


@pytest.mark.parametrize("general", [False, True], ids=["ufunc", "lambda"])
@pytest.mark.parametrize(("t", "op"), CASES)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_reduce_and_scan_match_numpy(run, t, op, general, data):
    xs = data.draw(hnp.arrays(DTYPE[t], st.integers(0, 40), elements=elements(t)))
    r, s, rm, so, so2 = run(program(t, op, general), len(xs), xs)
    want_r, want_s = reference(t, op, xs)
    np.testing.assert_array_equal(r, want_r)
    np.testing.assert_array_equal(rm, want_r)
    np.testing.assert_array_equal(s, want_s)
    np.testing.assert_array_equal(so, want_s)
    np.testing.assert_array_equal(so2, xs)
    assert s.dtype == xs.dtype
    assert type(r) is DTYPE[t]


SEGRED = """
func.func @main(%n: index, %m: index, %a: tensor<?x?xi64>) -> (tensor<?xi64>, tensor<?x?xi64>) {
  %z = arith.constant 0 : i64
  %r = soac.segred thread (%n, %m) neutral(%z : i64) -> tensor<?xi64> combine(%x: i64, %y: i64) {
    %c = arith.subi %z, %x : i64
    %d = arith.subi %y, %c : i64
    soac.yield %d : i64
  } lambda(%i: index, %j: index) {
    %e = soac.index %a[%i, %j] : tensor<?x?xi64> -> i64
    soac.yield %e : i64
  }
  %s = soac.segscan thread (%n, %m) neutral(%z : i64) -> tensor<?x?xi64> combine(%x: i64, %y: i64) {
    %c = arith.subi %z, %x : i64
    %d = arith.subi %y, %c : i64
    soac.yield %d : i64
  } lambda(%i: index, %j: index) {
    %e = soac.index %a[%i, %j] : tensor<?x?xi64> -> i64
    soac.yield %e : i64
  }
  func.return %r, %s : tensor<?xi64>, tensor<?x?xi64>
}
"""


@settings(max_examples=30, deadline=None)
@given(
    a=hnp.arrays(np.int64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=9), elements=st.integers(-1000, 1000))
)
def test_segred_segscan_general_operator(run, a):
    r, s = run(SEGRED, a.shape[0], a.shape[1], a)
    np.testing.assert_array_equal(r, a.sum(axis=1))
    np.testing.assert_array_equal(s, np.cumsum(a, axis=1))


CONCAT_LIKE = """
func.func @main(%n: index, %xs: tensor<?xi64>, %ys: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %one = arith.constant 1 : i64
  %zero = arith.constant 0 : i64
  %a, %b = soac.scan %n (%xs, %ys : tensor<?xi64>, tensor<?xi64>) neutral(%zero, %zero : i64, i64)
      -> (tensor<?xi64>, tensor<?xi64>)
      combine(%x1: i64, %f1: i64, %x2: i64, %f2: i64) {
    %nz = arith.cmpi ne, %f2, %zero : i64
    %s = arith.addi %x1, %x2 : i64
    %x = arith.select %nz, %x2, %s : i64
    %f = arith.ori %f1, %f2 : i64
    soac.yield %x, %f : i64, i64
  }
  func.return %a, %b : tensor<?xi64>, tensor<?xi64>
}
"""


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_segmented_scan_operator_against_a_loop(run, data):
    n = data.draw(st.integers(0, 70))
    xs = np.array(data.draw(st.lists(st.integers(-50, 50), min_size=n, max_size=n)), np.int64)
    flags = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), np.int64)
    a, b = run(CONCAT_LIKE, n, xs, flags)
    acc, f, want_a, want_b = 0, 0, [], []
    for x, g in zip(xs, flags):
        acc = x if g else acc + x
        f = f | g
        want_a.append(acc)
        want_b.append(f)
    assert list(a) == want_a
    assert list(b) == want_b
