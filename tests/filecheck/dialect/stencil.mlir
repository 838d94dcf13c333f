// RUN: soac-opt %s | filecheck %s
// RUN: soac-opt %s --print-op-generic | soac-opt | filecheck %s

// soac.stencil in its custom syntax, for every boundary condition, ranks 1 to 3, several inputs and a tile;
// the generic form parses back to the same custom text.

func.func @stencils(%n: index, %m: index, %k: index, %xs: tensor<?xf32>, %a: tensor<?x?xf32>, %b: tensor<?x?xi32>, %v: tensor<?x?x?xf64>) -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf64>) {
  %r1 = soac.stencil (%n) window [3] wrap (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %r: f32) {
    %s = arith.addf %l, %r : f32
    soac.yield %s : f32
  }
  %zero = arith.constant 0.0 : f32
  %seven = arith.constant 7 : i32
  %r2 = soac.stencil (%n, %m) window [1, 3] constant(%zero, %seven : f32, i32) tile [4, 32] (%a, %b : tensor<?x?xf32>, tensor<?x?xi32>) -> tensor<?x?xf32> lambda(%a0: f32, %a1: f32, %a2: f32, %b0: i32, %b1: i32, %b2: i32) {
    %f = arith.sitofp %b1 : i32 to f32
    %t = arith.addf %a0, %f : f32
    soac.yield %t : f32
  }
  %r3 = soac.stencil (%n, %m) window [1, 1] mirror (%a : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%x: f32) {
    soac.yield %x : f32
  }
  %r4 = soac.stencil (%n, %m, %k) window [1, 1, 3] clamp (%v : tensor<?x?x?xf64>) -> tensor<?x?x?xf64> lambda(%p: f64, %q: f64, %w: f64) {
    soac.yield %q : f64
  }
  func.return %r1, %r2, %r3, %r4 : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf64>
}

// CHECK:      %r1 = soac.stencil (%n) window [3] wrap (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %r: f32) {
// CHECK:      %r2 = soac.stencil (%n, %m) window [1, 3] constant(%zero, %seven : f32, i32) tile [4, 32] (%a, %b : tensor<?x?xf32>, tensor<?x?xi32>) -> tensor<?x?xf32> lambda(%a0: f32, %a1: f32, %a2: f32, %b0: i32, %b1: i32, %b2: i32) {
// CHECK:      %r3 = soac.stencil (%n, %m) window [1, 1] mirror (%a : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%x: f32) {
// CHECK:      %r4 = soac.stencil (%n, %m, %k) window [1, 1, 3] clamp (%v : tensor<?x?x?xf64>) -> tensor<?x?x?xf64> lambda(%p: f64, %q: f64, %w: f64) {
