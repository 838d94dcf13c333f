"""soac.hist programs shared by the interpreter and OpenCL tests."""

from __future__ import annotations

import numpy as np


def hist_program(element: str, op: str, index: str = "index") -> str:
    cast = "" if index == "index" else f"%j = arith.index_cast %i : {index} to index\n    "
    bin_ = "%i" if index == "index" else "%j"
    return f"""
func.func @main(%is: tensor<?x{index}>, %ws: tensor<?x{element}>, %bins: tensor<?x{element}>, %ne: {element})
    -> tensor<?x{element}> {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?x{index}>
  %h = soac.hist %n (%is, %ws : tensor<?x{index}>, tensor<?x{element}>) into(%bins : tensor<?x{element}>)
      neutral(%ne : {element}) -> tensor<?x{element}> combine(%a: {element}, %b: {element}) {{
    %s = {op} %a, %b : {element}
    soac.yield %s : {element}
  }} lambda(%i: {index}, %w: {element}) {{
    {cast}soac.yield {bin_}, %w : index, {element}
  }}
  func.return %h : tensor<?x{element}>
}}
"""


# An operator that is no single op: the sum of absolute values, |a| + |b|; commutative and associative on the
# non-negative values it builds, so every order of combining a bin's rows gives one result.
ABS_SUM = """
func.func @main(%is: tensor<?xi32>, %ws: tensor<?xi32>, %bins: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %h = soac.hist %n (%is, %ws : tensor<?xi32>, tensor<?xi32>) into(%bins : tensor<?xi32>) neutral(%z : i32)
      -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %x = math.absi %a : i32
    %y = math.absi %b : i32
    %s = arith.addi %x, %y : i32
    soac.yield %s : i32
  } lambda(%i: i32, %w: i32) {
    %j = arith.index_cast %i : i32 to index
    soac.yield %j, %w : index, i32
  }
  func.return %h : tensor<?xi32>
}
"""


# (max, argmax) over two destinations: the largest weight of each bin and the first row that has it.
ARGMAX = """
func.func @main(%is: tensor<?xi32>, %ws: tensor<?xf32>, %best: tensor<?xf32>, %arg: tensor<?xi32>)
    -> (tensor<?xf32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %lowest = arith.constant 0xFF800000 : f32
  %none = arith.constant -1 : i32
  %iota = soac.iota %n : tensor<?xi32>
  %h, %a = soac.hist %n (%is, %ws, %iota : tensor<?xi32>, tensor<?xf32>, tensor<?xi32>)
      into(%best, %arg : tensor<?xf32>, tensor<?xi32>) neutral(%lowest, %none : f32, i32)
      -> (tensor<?xf32>, tensor<?xi32>) combine(%x: f32, %i: i32, %y: f32, %j: i32) {
    %gt = arith.cmpf ogt, %y, %x : f32
    %eq = arith.cmpf oeq, %y, %x : f32
    %first = arith.cmpi ult, %j, %i : i32
    %tie = arith.andi %eq, %first : i1
    %take = arith.ori %gt, %tie : i1
    %v = arith.select %take, %y, %x : f32
    %k = arith.select %take, %j, %i : i32
    soac.yield %v, %k : f32, i32
  } lambda(%b: i32, %w: f32, %row: i32) {
    %bin = arith.index_cast %b : i32 to index
    soac.yield %bin, %w, %row : index, f32, i32
  }
  func.return %h, %a : tensor<?xf32>, tensor<?xi32>
}
"""


ROWS = """
func.func @main(%iss: tensor<?x?xi32>, %bins: index) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %iss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %iss, %c1 : tensor<?x?xi32>
  %counts, %spread = soac.map %n (%iss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) lambda(%is: tensor<?xi32>) {
    %z = arith.constant 0 : i32
    %empty = soac.replicate %bins, %z : i32 -> tensor<?xi32>
    %empty2 = soac.replicate %bins, %z : i32 -> tensor<?xi32>
    %c = soac.hist %m (%is : tensor<?xi32>) into(%empty : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%i: i32) {
      %j = arith.index_cast %i : i32 to index
      %one = arith.constant 1 : i32
      soac.yield %j, %one : index, i32
    }
    %d = soac.hist %m (%is : tensor<?xi32>) into(%empty2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) {
      %x = math.absi %a : i32
      %y = math.absi %b : i32
      %s = arith.addi %x, %y : i32
      soac.yield %s : i32
    } lambda(%i: i32) {
      %j = arith.index_cast %i : i32 to index
      soac.yield %j, %i : index, i32
    }
    soac.yield %c, %d : tensor<?xi32>, tensor<?xi32>
  }
  func.return %counts, %spread : tensor<?x?xi32>, tensor<?x?xi32>
}
"""


# (max, argmax, count) on (f32, i32, i32): 96 bits, too wide for one compare-and-swap, so each bin takes a lock.
MAX_ARGMAX_COUNT = """
func.func @main(%is: tensor<?xi32>, %ws: tensor<?xf32>, %best: tensor<?xf32>, %arg: tensor<?xi32>, %count: tensor<?xi32>)
    -> (tensor<?xf32>, tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %lowest = arith.constant 0xFF800000 : f32
  %none = arith.constant -1 : i32
  %zero = arith.constant 0 : i32
  %iota = soac.iota %n : tensor<?xi32>
  %h, %a, %c = soac.hist %n (%is, %ws, %iota : tensor<?xi32>, tensor<?xf32>, tensor<?xi32>)
      into(%best, %arg, %count : tensor<?xf32>, tensor<?xi32>, tensor<?xi32>) neutral(%lowest, %none, %zero : f32, i32, i32)
      -> (tensor<?xf32>, tensor<?xi32>, tensor<?xi32>)
      combine(%x: f32, %i: i32, %m: i32, %y: f32, %j: i32, %k: i32) {
    %gt = arith.cmpf ogt, %y, %x : f32
    %eq = arith.cmpf oeq, %y, %x : f32
    %first = arith.cmpi ult, %j, %i : i32
    %tie = arith.andi %eq, %first : i1
    %take = arith.ori %gt, %tie : i1
    %v = arith.select %take, %y, %x : f32
    %r = arith.select %take, %j, %i : i32
    %s = arith.addi %m, %k : i32
    soac.yield %v, %r, %s : f32, i32, i32
  } lambda(%b: i32, %w: f32, %row: i32) {
    %bin = arith.index_cast %b : i32 to index
    %one = arith.constant 1 : i32
    soac.yield %bin, %w, %row, %one : index, f32, i32, i32
  }
  func.return %h, %a, %c : tensor<?xf32>, tensor<?xi32>, tensor<?xi32>
}
"""


# (min, max) on (i16, i16): 32 bits packed into one 64-bit compare-and-swap.
MIN_MAX_I16 = """
func.func @main(%is: tensor<?xi32>, %ws: tensor<?xi16>, %lo: tensor<?xi16>, %hi: tensor<?xi16>)
    -> (tensor<?xi16>, tensor<?xi16>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %top = arith.constant 32767 : i16
  %bottom = arith.constant -32768 : i16
  %l, %h = soac.hist %n (%is, %ws : tensor<?xi32>, tensor<?xi16>) into(%lo, %hi : tensor<?xi16>, tensor<?xi16>)
      neutral(%top, %bottom : i16, i16) -> (tensor<?xi16>, tensor<?xi16>)
      combine(%a: i16, %b: i16, %c: i16, %d: i16) {
    %x = arith.minsi %a, %c : i16
    %y = arith.maxsi %b, %d : i16
    soac.yield %x, %y : i16, i16
  } lambda(%b: i32, %w: i16) {
    %bin = arith.index_cast %b : i32 to index
    soac.yield %bin, %w, %w : index, i16, i16
  }
  func.return %l, %h : tensor<?xi16>, tensor<?xi16>
}
"""


# An i16 sum beside an i64 one: neither 32/64-bit elements throughout (no locks) nor 64 bits in all (no packing).
UNLOWERABLE = """
func.func @main(%is: tensor<?xi32>, %ws: tensor<?xi16>, %a: tensor<?xi16>, %b: tensor<?xi64>) -> (tensor<?xi16>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i16
  %zz = arith.constant 0 : i64
  %x, %y = soac.hist %n (%is, %ws : tensor<?xi32>, tensor<?xi16>) into(%a, %b : tensor<?xi16>, tensor<?xi64>)
      neutral(%z, %zz : i16, i64) -> (tensor<?xi16>, tensor<?xi64>) combine(%p: i16, %q: i64, %r: i16, %s: i64) {
    %u = arith.addi %p, %r : i16
    %v = arith.addi %q, %s : i64
    soac.yield %u, %v : i16, i64
  } lambda(%i: i32, %w: i16) {
    %j = arith.index_cast %i : i32 to index
    %one = arith.constant 1 : i64
    soac.yield %j, %w, %one : index, i16, i64
  }
  func.return %x, %y : tensor<?xi16>, tensor<?xi64>
}
"""


def seghist_program(combine: str, element: str = "i32") -> str:
    """`soac.seghist` over (segments, rows): row `j` of segment `i` adds `ws[i, j]` to bin `iss[i, j]` of `dests[i]`;
    `combine` is the operator's body over `%a`, `%b`, yielding `%s`."""
    return f"""
func.func @main(%iss: tensor<?x?xi32>, %ws: tensor<?x?x{element}>, %dests: tensor<?x?x{element}>, %ne: {element})
    -> tensor<?x?x{element}> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %iss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %iss, %c1 : tensor<?x?xi32>
  %h = soac.seghist thread (%n, %m) into(%dests : tensor<?x?x{element}>) neutral(%ne : {element}) -> tensor<?x?x{element}>
      combine(%a: {element}, %b: {element}) {{
    {combine}
    soac.yield %s : {element}
  }} lambda(%i: index, %j: index) {{
    %bin = soac.index %iss[%i, %j] : tensor<?x?xi32> -> i32
    %w = soac.index %ws[%i, %j] : tensor<?x?x{element}> -> {element}
    soac.yield %bin, %w : i32, {element}
  }}
  func.return %h : tensor<?x?x{element}>
}}
"""


ADD = "%s = arith.addi %a, %b : i32"
ABS_ADD = """%x = math.absi %a : i32
    %y = math.absi %b : i32
    %s = arith.addi %x, %y : i32"""

# Two segment dimensions and two destinations (the count and the sum of each bin): a 3-D index space.
SEGHIST_3D = """
func.func @main(%iss: tensor<?x?x?xi32>, %counts: tensor<?x?x?xi32>, %sums: tensor<?x?x?xi64>)
    -> (tensor<?x?x?xi32>, tensor<?x?x?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tensor.dim %iss, %c0 : tensor<?x?x?xi32>
  %q = tensor.dim %iss, %c1 : tensor<?x?x?xi32>
  %r = tensor.dim %iss, %c2 : tensor<?x?x?xi32>
  %z = arith.constant 0 : i32
  %z64 = arith.constant 0 : i64
  %c, %s = soac.seghist thread (%p, %q, %r) into(%counts, %sums : tensor<?x?x?xi32>, tensor<?x?x?xi64>)
      neutral(%z, %z64 : i32, i64) -> (tensor<?x?x?xi32>, tensor<?x?x?xi64>)
      combine(%a: i32, %x: i64, %b: i32, %y: i64) {
    %n = arith.addi %a, %b : i32
    %t = arith.addi %x, %y : i64
    soac.yield %n, %t : i32, i64
  } lambda(%i: index, %j: index, %k: index) {
    %v = soac.index %iss[%i, %j, %k] : tensor<?x?x?xi32> -> i32
    %three = arith.constant 3 : i32
    %bin = arith.remsi %v, %three : i32
    %one = arith.constant 1 : i32
    %w = arith.extsi %v : i32 to i64
    soac.yield %bin, %one, %w : i32, i32, i64
  }
  func.return %c, %s : tensor<?x?x?xi32>, tensor<?x?x?xi64>
}
"""


def seghist_reference(combine, dests: list, bins, values: list) -> list:
    """Row by row: `dest[seg..., bin] = combine(dest[seg..., bin], value)` for bins inside the rows."""
    outs = [d.copy() for d in dests]
    width = outs[0].shape[-1]
    for point in np.ndindex(bins.shape):
        b = int(bins[point])
        if 0 <= b < width:
            at = (*point[:-1], b)
            for out, new in zip(outs, combine([o[at] for o in outs], [v[point] for v in values])):
                out[at] = new
    return outs


# map (hist ...) programs for soac-flatten: every row of `%iss` gives a histogram of `%bins` bins.

# Into a row of an input array (which the flattened program must not consume: it is copied).
MAP_HIST_INTO_ROWS = """
func.func @main(%iss: tensor<?x?xi32>, %inits: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %iss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %iss, %c1 : tensor<?x?xi32>
  %r = soac.map %n (%iss, %inits : tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<?x?xi32>
      lambda(%is: tensor<?xi32>, %init: tensor<?xi32>) {
    %z = arith.constant -2147483648 : i32
    %c = soac.hist %m (%is : tensor<?xi32>) into(%init : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32>
        combine(%a: i32, %b: i32) {
      %s = arith.maxsi %a, %b : i32
      soac.yield %s : i32
    } lambda(%i: i32) {
      %j = arith.index_cast %i : i32 to index
      %w = arith.muli %i, %i : i32
      soac.yield %j, %w : index, i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %r, %inits : tensor<?x?xi32>, tensor<?x?xi32>
}
"""

# A map before the hist in each row, the bins computed from two arrays, an operator without an atomic (|a| + |b|),
# and the hist's result used again in the row (a map over the bins after it).
MAP_HIST_PIPELINE = """
func.func @main(%iss: tensor<?x?xi32>, %wss: tensor<?x?xi32>, %bins: index) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %iss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %iss, %c1 : tensor<?x?xi32>
  %r = soac.map %n (%iss, %wss : tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<?x?xi32>
      lambda(%is: tensor<?xi32>, %ws: tensor<?xi32>) {
    %z = arith.constant 0 : i32
    %empty = soac.replicate %bins, %z : i32 -> tensor<?xi32>
    %vs = soac.map %m (%ws : tensor<?xi32>) -> tensor<?xi32> lambda(%w: i32) {
      %two = arith.constant 2 : i32
      %v = arith.subi %w, %two : i32
      soac.yield %v : i32
    }
    %h = soac.hist %m (%is, %vs : tensor<?xi32>, tensor<?xi32>) into(%empty : tensor<?xi32>) neutral(%z : i32)
        -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %x = math.absi %a : i32
      %y = math.absi %b : i32
      %s = arith.addi %x, %y : i32
      soac.yield %s : i32
    } lambda(%i: i32, %v: i32) {
      %k = arith.addi %i, %v : i32
      %j = arith.index_cast %k : i32 to index
      soac.yield %j, %v : index, i32
    }
    %out = soac.map %bins (%h : tensor<?xi32>) -> tensor<?xi32> lambda(%c: i32) {
      %one = arith.constant 1 : i32
      %d = arith.addi %c, %one : i32
      soac.yield %d : i32
    }
    soac.yield %out : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
"""

# A 3-D nest: a map over matrices whose rows each get a histogram (two destinations: counts and sums).
MAP_MAP_HIST = """
func.func @main(%x3: tensor<?x?x?xi32>, %bins: index) -> (tensor<?x?x?xi32>, tensor<?x?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tensor.dim %x3, %c0 : tensor<?x?x?xi32>
  %q = tensor.dim %x3, %c1 : tensor<?x?x?xi32>
  %r = tensor.dim %x3, %c2 : tensor<?x?x?xi32>
  %counts, %sums = soac.map %p (%x3 : tensor<?x?x?xi32>) -> (tensor<?x?x?xi32>, tensor<?x?x?xi32>)
      lambda(%mat: tensor<?x?xi32>) {
    %cs, %ss = soac.map %q (%mat : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) lambda(%row: tensor<?xi32>) {
      %z = arith.constant 0 : i32
      %e1 = soac.replicate %bins, %z : i32 -> tensor<?xi32>
      %e2 = soac.replicate %bins, %z : i32 -> tensor<?xi32>
      %c, %s = soac.hist %r (%row : tensor<?xi32>) into(%e1, %e2 : tensor<?xi32>, tensor<?xi32>) neutral(%z, %z : i32, i32)
          -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %x: i32, %b: i32, %y: i32) {
        %n = arith.addi %a, %b : i32
        %t = arith.addi %x, %y : i32
        soac.yield %n, %t : i32, i32
      } lambda(%v: i32) {
        %three = arith.constant 3 : i32
        %k = arith.remsi %v, %three : i32
        %j = arith.index_cast %k : i32 to index
        %one = arith.constant 1 : i32
        soac.yield %j, %one, %v : index, i32, i32
      }
      soac.yield %c, %s : tensor<?xi32>, tensor<?xi32>
    }
    soac.yield %cs, %ss : tensor<?x?xi32>, tensor<?x?xi32>
  }
  func.return %counts, %sums : tensor<?x?x?xi32>, tensor<?x?x?xi32>
}
"""

MAP_HIST_PROGRAMS = {
    "rows": ROWS,
    "into_rows": MAP_HIST_INTO_ROWS,
    "pipeline": MAP_HIST_PIPELINE,
    "map_map": MAP_MAP_HIST,
}


def map_hist_args(name: str, shape: tuple[int, ...], seed: int = 0) -> list[object]:
    """Random arguments of a `MAP_HIST_PROGRAMS` program: `shape` is (n, m), or (p, q, r) for "map_map"; values
    in [-3, 12) so that some bins are out of bounds (below 0, or past the 9 or 10 bins)."""
    rng = np.random.default_rng(seed)
    data = rng.integers(-3, 12, shape).astype(np.int32)
    if name == "rows":
        return [data, 9]
    if name == "into_rows":
        return [data, rng.integers(-5, 5, (shape[0], 10)).astype(np.int32)]
    if name == "pipeline":
        return [data, rng.integers(-3, 6, shape).astype(np.int32), 9]
    return [data, 4]


# Histograms whose bins are rows (Futhark's reduce_by_index with array elements): `rows_program(element, op)` combines
# the rows of each bin element-wise with `op`, from i32 bins that may fall outside (dropped); `computed=True` makes
# the lambda compute its bin (c - 1) and row (each element squared) rather than pass the inputs through.
def rows_program(element: str, op: str, computed: bool = False) -> str:
    if computed:
        body = f"""%one = arith.constant 1 : i32
    %b = arith.subi %c, %one : i32
    %bin = arith.index_cast %b : i32 to index
    %q = soac.map %d (%p : tensor<?x{element}>) -> tensor<?x{element}> lambda(%x: {element}) {{
      %y = {"arith.mulf" if element.startswith("f") else "arith.muli"} %x, %x : {element}
      soac.yield %y : {element}
    }}
    soac.yield %bin, %q : index, tensor<?x{element}>"""
    else:
        body = f"""%bin = arith.index_cast %c : i32 to index
    soac.yield %bin, %p : index, tensor<?x{element}>"""
    return f"""
func.func @main(%cs: tensor<?xi32>, %ps: tensor<?x?x{element}>, %dest: tensor<?x?x{element}>, %ne: {element})
    -> tensor<?x?x{element}> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %cs, %c0 : tensor<?xi32>
  %d = tensor.dim %dest, %c1 : tensor<?x?x{element}>
  %nes = soac.replicate %d, %ne : {element} -> tensor<?x{element}>
  %h = soac.hist %n (%cs, %ps : tensor<?xi32>, tensor<?x?x{element}>) into(%dest : tensor<?x?x{element}>)
      neutral(%nes : tensor<?x{element}>) -> tensor<?x?x{element}>
      combine(%a: tensor<?x{element}>, %b2: tensor<?x{element}>) {{
    %s = soac.map %d (%a, %b2 : tensor<?x{element}>, tensor<?x{element}>) -> tensor<?x{element}>
        lambda(%x: {element}, %y: {element}) {{
      %t = {op} %x, %y : {element}
      soac.yield %t : {element}
    }}
    soac.yield %s : tensor<?x{element}>
  }} lambda(%c: i32, %p: tensor<?x{element}>) {{
    {body}
  }}
  func.return %h : tensor<?x?x{element}>
}}
"""


# A histogram of rows per row of a map (batches of points, each with its own bins), combined by element-wise max.
ROWS_PER_BATCH = """
func.func @main(%css: tensor<?x?xi32>, %pss: tensor<?x?x?xf32>, %dests: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %css, %c0 : tensor<?x?xi32>
  %n = tensor.dim %css, %c1 : tensor<?x?xi32>
  %d = tensor.dim %dests, %c2 : tensor<?x?x?xf32>
  %z = arith.constant 0xFF800000 : f32
  %lowest = soac.replicate %d, %z : f32 -> tensor<?xf32>
  %r = soac.map %b (%css, %pss, %dests : tensor<?x?xi32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
      lambda(%cs: tensor<?xi32>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>) {
    %h = soac.hist %n (%cs, %ps : tensor<?xi32>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%lowest : tensor<?xf32>)
        -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %bb: tensor<?xf32>) {
      %s = soac.map %d (%a, %bb : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
        %t = arith.maximumf %x, %y : f32
        soac.yield %t : f32
      }
      soac.yield %s : tensor<?xf32>
    } lambda(%c: i32, %p: tensor<?xf32>) {
      %ci = arith.index_cast %c : i32 to index
      soac.yield %ci, %p : index, tensor<?xf32>
    }
    soac.yield %h : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?x?xf32>
}
"""


# Rows combined by element-wise max, written as a map over the positions that reads both rows: the same operator,
# but not a map over the two rows, so soac-hist-rows cannot make it a hist of elements (the interpreter runs it).
ROWS_BY_POSITION = """
func.func @main(%cs: tensor<?xi32>, %ps: tensor<?x?xi32>, %dest: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %cs, %c0 : tensor<?xi32>
  %d = tensor.dim %dest, %c1 : tensor<?x?xi32>
  %z = arith.constant -2147483648 : i32
  %nes = soac.replicate %d, %z : i32 -> tensor<?xi32>
  %positions = soac.iota %d : tensor<?xindex>
  %h = soac.hist %n (%cs, %ps : tensor<?xi32>, tensor<?x?xi32>) into(%dest : tensor<?x?xi32>) neutral(%nes : tensor<?xi32>)
      -> tensor<?x?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    %s = soac.map %d (%positions : tensor<?xindex>) -> tensor<?xi32> lambda(%j: index) {
      %x = soac.index %a[%j] : tensor<?xi32> -> i32
      %y = soac.index %b[%j] : tensor<?xi32> -> i32
      %t = arith.maxsi %x, %y : i32
      soac.yield %t : i32
    }
    soac.yield %s : tensor<?xi32>
  } lambda(%c: i32, %p: tensor<?xi32>) {
    %bin = arith.index_cast %c : i32 to index
    soac.yield %bin, %p : index, tensor<?xi32>
  }
  func.return %h : tensor<?x?xi32>
}
"""


def rows_reference(ufunc: np.ufunc, dest: np.ndarray, cs: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """`dest[c] = ufunc(dest[c], row)` for every row whose bin `c` is inside `dest` (numpy's unbuffered ufunc.at)."""
    out = dest.copy()
    inside = (cs >= 0) & (cs < len(dest))
    ufunc.at(out, cs[inside], rows[inside])
    return out


# Sums and maxima of rows by bin in one hist of two destinations (one map over the four rows as the operator; its
# parameters in another order than the operator's). The maxima's rows are not known to be as long as the sums'.
ROWS_TWO_DESTINATIONS = """
func.func @main(%cs: tensor<?xi32>, %ps: tensor<?x?xf32>, %sums: tensor<?x?xf32>, %maxs: tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %cs, %c0 : tensor<?xi32>
  %d = tensor.dim %sums, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %lo = arith.constant 0xFF800000 : f32
  %zeros = soac.replicate %d, %z : f32 -> tensor<?xf32>
  %lows = soac.replicate %d, %lo : f32 -> tensor<?xf32>
  %s, %m = soac.hist %n (%cs, %ps : tensor<?xi32>, tensor<?x?xf32>) into(%sums, %maxs : tensor<?x?xf32>, tensor<?x?xf32>)
      neutral(%zeros, %lows : tensor<?xf32>, tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
      combine(%a1: tensor<?xf32>, %a2: tensor<?xf32>, %b1: tensor<?xf32>, %b2: tensor<?xf32>) {
    %r1, %r2 = soac.map %d (%a1, %b2, %b1, %a2 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
        -> (tensor<?xf32>, tensor<?xf32>) lambda(%x1: f32, %y2: f32, %y1: f32, %x2: f32) {
      %t = arith.addf %x1, %y1 : f32
      %u = arith.maximumf %x2, %y2 : f32
      soac.yield %t, %u : f32, f32
    }
    soac.yield %r1, %r2 : tensor<?xf32>, tensor<?xf32>
  } lambda(%c: i32, %p: tensor<?xf32>) {
    %ci = arith.index_cast %c : i32 to index
    soac.yield %ci, %p, %p : index, tensor<?xf32>, tensor<?xf32>
  }
  func.return %s, %m : tensor<?x?xf32>, tensor<?x?xf32>
}
"""
