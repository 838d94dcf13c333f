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
