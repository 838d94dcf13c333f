"""soac.hist programs shared by the interpreter and OpenCL tests."""

from __future__ import annotations


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
