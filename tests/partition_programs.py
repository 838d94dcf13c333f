"""Programs around `soac.partition` shared by the interpreter and OpenCL tests, and their numpy reference."""

from __future__ import annotations

import numpy as np

BY_REMAINDER = """
func.func @main(%xs: tensor<?xi32>, %vs: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %m = arith.constant 7 : i32
  %counts, %ys, %ws = soac.partition %n buckets 5 (%xs, %vs : tensor<?xi32>, tensor<?xf32>)
      -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) lambda(%x: i32, %v: f32) {
    %d = arith.remsi %x, %m : i32
    %b = arith.index_cast %d : i32 to index
    soac.yield %b, %x, %v : index, i32, f32
  }
  func.return %counts, %ys, %ws : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
}
"""
"""Buckets `x rem 7` (signed) of 5: remainders 5 and 6 and the negative ones are outside and come last."""

PER_ROW = """
func.func @main(%xss: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %k = arith.constant 7 : i32
  %cs, %ys = soac.map %m (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) lambda(%xs: tensor<?xi32>) {
    %counts, %zs = soac.partition %n buckets 5 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
      %d = arith.remsi %x, %k : i32
      %b = arith.index_cast %d : i32 to index
      soac.yield %b, %x : index, i32
    }
    soac.yield %counts, %zs : tensor<?xi32>, tensor<?xi32>
  }
  func.return %cs, %ys : tensor<?x?xi32>, tensor<?x?xi32>
}
"""
"""A partition in every row of a map (lowered as it is, a segmap of partitions, each by one work-item; soac-flatten
makes it partitions of the flat array: `passes/flatten_partition.py`)."""


def partition_reference(buckets: np.ndarray, k: int, *values: np.ndarray) -> list[np.ndarray]:
    """numpy's stable argsort by bucket (outside [0, k) last) and the counts: what soac.partition gives."""
    key = np.where((buckets >= 0) & (buckets < k), buckets, k)
    order = np.argsort(key, kind="stable")
    counts = np.array([np.count_nonzero(key == b) for b in range(k)], np.int32)
    return [counts, *(v[order] for v in values)]


def remainder_reference(xs: np.ndarray, vs: np.ndarray) -> list[np.ndarray]:
    return partition_reference(np.fmod(xs, 7), 5, xs, vs)


def keys_of(kind: str, n: int, seed: int = 0) -> np.ndarray:
    """i32 keys: random, all equal, already sorted, reversed, few distinct values."""
    rng = np.random.default_rng(seed + n)
    if kind == "random":
        return rng.integers(-1000, 1000, n).astype(np.int32)
    if kind == "equal":
        return np.full(n, 3, np.int32)
    if kind == "sorted":
        return np.sort(rng.integers(0, 1000, n)).astype(np.int32)
    if kind == "reversed":
        return np.sort(rng.integers(0, 1000, n))[::-1].astype(np.int32).copy()
    if kind == "few":
        return rng.choice(np.array([0, 1, 4, 13, -2], np.int32), n)
    raise ValueError(kind)


WITH_COUNTS = """
func.func @main(%xs: tensor<?xi32>, %vs: tensor<?xf32>, %known: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %m = arith.constant 7 : i32
  %counts, %ys, %ws = soac.partition %n buckets 5 counts(%known : tensor<?xi32>) (%xs, %vs : tensor<?xi32>, tensor<?xf32>)
      -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) lambda(%x: i32, %v: f32) {
    %d = arith.remsi %x, %m : i32
    %b = arith.index_cast %d : i32 to index
    soac.yield %b, %x, %v : index, i32, f32
  }
  func.return %counts, %ys, %ws : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
}
"""
"""BY_REMAINDER given its bucket counts ahead (the one-pass, look-back lowering on devices with forward progress)."""


def per_row_pivot(rows: int | None = None) -> str:
    """A partition in every row of a map (of `rows` rows, a constant width, or as many as the array has) moving two
    values, with buckets from the row's own pivot: 0 below it, 1 at it, 2 for keys whose remainder by 3 is 1, and 7
    (outside the 3 buckets) else."""
    width = "tensor.dim %xss, %c0 : tensor<?x?xi32>" if rows is None else f"arith.constant {rows} : index"
    return f"""
func.func @main(%xss: tensor<?x?xi32>, %vss: tensor<?x?xf32>, %pivots: tensor<?xi32>)
    -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = {width}
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %cs, %ys, %ws = soac.map %m (%xss, %vss, %pivots : tensor<?x?xi32>, tensor<?x?xf32>, tensor<?xi32>)
      -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xf32>) lambda(%xs: tensor<?xi32>, %vs: tensor<?xf32>, %pivot: i32) {{
    %counts, %zs, %us = soac.partition %n buckets 3 (%xs, %vs : tensor<?xi32>, tensor<?xf32>)
        -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) lambda(%x: i32, %v: f32) {{
      %three = arith.constant 3 : i64
      %one = arith.constant 1 : i64
      %x64 = arith.extsi %x : i32 to i64
      %r = arith.remsi %x64, %three : i64
      %is_one = arith.cmpi eq, %r, %one : i64
      %two = arith.constant 2 : i64
      %seven = arith.constant 7 : i64
      %other = arith.select %is_one, %two, %seven : i64
      %below = arith.cmpi slt, %x, %pivot : i32
      %at = arith.cmpi eq, %x, %pivot : i32
      %zero = arith.constant 0 : i64
      %b1 = arith.select %at, %one, %other : i64
      %b = arith.select %below, %zero, %b1 : i64
      soac.yield %b, %x, %v : i64, i32, f32
    }}
    soac.yield %counts, %zs, %us : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
  }}
  func.return %cs, %ys, %ws : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xf32>
}}
"""


def pivot_reference(xs: np.ndarray, vs: np.ndarray, pivot: int) -> list[np.ndarray]:
    """What one row of `per_row_pivot` gives: counts, keys, values."""
    other = np.where(np.fmod(xs.astype(np.int64), 3) == 1, 2, 7)
    buckets = np.where(xs < pivot, 0, np.where(xs == pivot, 1, other))
    return partition_reference(buckets, 3, xs, vs)


NESTED_ROWS = """
func.func @main(%xsss: tensor<?x?x?xi32>) -> (tensor<?x?x?xi32>, tensor<?x?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor.dim %xsss, %c0 : tensor<?x?x?xi32>
  %m = tensor.dim %xsss, %c1 : tensor<?x?x?xi32>
  %n = tensor.dim %xsss, %c2 : tensor<?x?x?xi32>
  %cs, %ys = soac.map %a (%xsss : tensor<?x?x?xi32>) -> (tensor<?x?x?xi32>, tensor<?x?x?xi32>) lambda(%xss: tensor<?x?xi32>) {
    %c, %y = soac.map %m (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) lambda(%xs: tensor<?xi32>) {
      %counts, %zs = soac.partition %n buckets 2 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
        %one = arith.constant 1 : i32
        %odd = arith.andi %x, %one : i32
        %b = arith.index_cast %odd : i32 to index
        soac.yield %b, %x : index, i32
      }
      soac.yield %counts, %zs : tensor<?xi32>, tensor<?xi32>
    }
    soac.yield %c, %y : tensor<?x?xi32>, tensor<?x?xi32>
  }
  func.return %cs, %ys : tensor<?x?x?xi32>, tensor<?x?x?xi32>
}
"""
"""A partition (even keys first) in every row of a map of maps: the segments are the points of a 2-deep nest."""


ROWS_OF_ROWS = """
func.func @main(%xsss: tensor<?x?x?xf32>) -> (tensor<?x?xi32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %xsss, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %xsss, %c1 : tensor<?x?x?xf32>
  %zero = arith.constant 0.0 : f32
  %cs, %ys = soac.map %b (%xsss : tensor<?x?x?xf32>) -> (tensor<?x?xi32>, tensor<?x?xf32>) lambda(%xss: tensor<?x?xf32>) {
    %counts, %seconds = soac.partition %n buckets 1 (%xss : tensor<?x?xf32>) -> (tensor<?xi32>, tensor<?xf32>)
        lambda(%row: tensor<?xf32>) {
      %second = soac.index %row[%c1] : tensor<?xf32> -> f32
      %negative = arith.cmpf olt, %second, %zero : f32
      %bucket = arith.extui %negative : i1 to i8
      soac.yield %bucket, %second : i8, f32
    }
    soac.yield %counts, %seconds : tensor<?xi32>, tensor<?xf32>
  }
  func.return %cs, %ys : tensor<?x?xi32>, tensor<?x?xf32>
}
"""
"""A partition of rows (each a row of a 2-D array, its bucket an i8 from the row's second element) in every row of a
map: the flat partition's inputs are `[b * n, w]`."""


BIT_SORT_ROWS = """
func.func @main(%xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %ys = soac.map %m (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>) {
    %sorted = scf.for %bit = %c0 to %c2 step %c1 iter_args(%cur = %xs) -> (tensor<?xi32>) {
      %bit32 = arith.index_cast %bit : index to i32
      %counts, %next = soac.partition %n buckets 2 (%cur : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
        %one = arith.constant 1 : i32
        %shifted = arith.shrui %x, %bit32 : i32
        %b = arith.andi %shifted, %one : i32
        soac.yield %b, %x : i32, i32
      }
      scf.yield %next : tensor<?xi32>
    }
    soac.yield %sorted : tensor<?xi32>
  }
  func.return %ys : tensor<?x?xi32>
}
"""
"""Each row sorted by its two low bits (keys 0..3) in a loop of two partitions, one per bit: the loop is interchanged
with the map, each partition in it flattened."""


NESTED_PIVOTS = """
func.func @main(%xsss: tensor<?x?x?xi32>, %pss: tensor<?x?xi32>) -> tensor<?x?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor.dim %xsss, %c0 : tensor<?x?x?xi32>
  %m = tensor.dim %xsss, %c1 : tensor<?x?x?xi32>
  %n = tensor.dim %xsss, %c2 : tensor<?x?x?xi32>
  %ys = soac.map %a (%xsss, %pss : tensor<?x?x?xi32>, tensor<?x?xi32>) -> tensor<?x?x?xi32>
      lambda(%xss: tensor<?x?xi32>, %ps: tensor<?xi32>) {
    %y = soac.map %m (%xss, %ps : tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>, %p: i32) {
      %twice = arith.addi %p, %p : i32
      %counts, %zs = soac.partition %n buckets 1 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
        %above = arith.cmpi sgt, %x, %twice : i32
        %b = arith.extui %above : i1 to i32
        soac.yield %b, %x : i32, i32
      }
      soac.yield %zs : tensor<?xi32>
    }
    soac.yield %y : tensor<?x?xi32>
  }
  func.return %ys : tensor<?x?x?xi32>
}
"""
"""A stable filter (keys above twice the row's pivot first) in every row of a map of maps: the bucket function reads
a value computed in the nest, which the segmented partition reads at the row's place in the nest."""
