// RUN: soac-opt %S/../../../../examples/matmul.mlir -p 'soac-fuse,soac-flatten,soac-tile{untranspose=true}' | filecheck %s
// RUN: soac-opt %s -p 'soac-tile{untranspose=true}' | filecheck %s --check-prefix=KEPT

// `soac-tile{untranspose=true}`: a tiled op reads `b[k, d1]` where it read `bt[d1, k]` of `bt = transpose b`, so
// that its kernel copies chunks of b's rows and no transpose kernel runs; the transpose stays where something else
// reads it.

// CHECK-NOT:  soac.transpose
// CHECK:      soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" {{.*}} reads(%a[d0, k], %b[k, d1] : tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK:      soac.tiled_redomap (%n, %m) reduce %k tile "tile_1" {{.*}} reads(%a[d0, k], %b[k, d1] : tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK-NOT:  soac.transpose

func.func @kept(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %zero: f32) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %m = tensor.dim %b, %c1 : tensor<?x?xf32>
  %bt = soac.transpose %b [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [8, 8] reg [4, 4] chunk 4 reads(%a[d0, k], %bt[d1, k] : tensor<?x?xf32>, tensor<?x?xf32>) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
    %u = arith.addf %s, %t : f32
    soac.yield %u : f32
  } lambda(%x: f32, %y: f32) {
    %p = arith.mulf %x, %y : f32
    soac.yield %p : f32
  }
  func.return %c, %bt : tensor<?x?xf32>, tensor<?x?xf32>
}

// KEPT:      %bt = soac.transpose %b [1, 0]
// KEPT:      soac.tiled_redomap {{.*}} reads(%a[d0, k], %b[k, d1] : tensor<?x?xf32>, tensor<?x?xf32>)
// KEPT:      func.return %c, %bt
