// RUN: soac-opt %s -p soac-tile --split-input-file | filecheck %s

// A redomap outside any lambda whose lambda folds over whole arrays (nbody's potential energy, the chunk program of
// bench/dask_scaling.py: bodies i of a chunk against all bodies j) becomes a segmap of its lambda, tiled, and a
// reduce of the segmap's results with the same operator (tile_reduced_nests.py).

// CHECK-LABEL: func.func @potential(
// CHECK:         %inner = soac.tiled_redomap (%n) reduce %nb tile "tile_0" block [128] reg [2] chunk 128 reads(%bx[k], %bm[k], %x[d0] : {{.*}}) neutral(%z : f32) -> tensor<?xf32>
// CHECK:         %terms = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
// CHECK-DAG:       %inner_1 = soac.index %inner[%i] : tensor<?xf32> -> f32
// CHECK-DAG:       %mi = soac.index %m[%i] : tensor<?xf32> -> f32
// CHECK:           %r = arith.mulf %mi, %inner_1 : f32
// CHECK-NEXT:      soac.yield %r : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %e = soac.reduce %n (%terms : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %s = arith.subf %a, %b : f32
// CHECK-NOT:     soac.redomap
// CHECK:         func.return %e : f32
func.func @potential(%x: tensor<?xf32>, %m: tensor<?xf32>, %bx: tensor<?xf32>, %bm: tensor<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %nb = tensor.dim %bx, %c0 : tensor<?xf32>
  %z = arith.constant 0.0 : f32
  // Not commutative (nor associative: only the order of the operands is checked here).
  %e = soac.redomap %n (%x, %m : tensor<?xf32>, tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %s = arith.subf %a, %b : f32
    soac.yield %s : f32
  } lambda(%xi: f32, %mi: f32) {
    %inner = soac.redomap commutative %nb (%bx, %bm : tensor<?xf32>, tensor<?xf32>) neutral(%z : f32) -> f32 combine(%c: f32, %d: f32) {
      %t = arith.addf %c, %d : f32
      soac.yield %t : f32
    } lambda(%xj: f32, %mj: f32) {
      %dx = arith.subf %xi, %xj : f32
      %p = arith.mulf %mj, %dx : f32
      soac.yield %p : f32
    }
    %r = arith.mulf %mi, %inner : f32
    soac.yield %r : f32
  }
  func.return %e : f32
}

// -----

// Each work-item folds over its own row (no read shared by the work-items): nothing to tile, so no split (and
// no uses left behind by the segmap that was tried).
// CHECK-LABEL: func.func @row_sums_summed(
// CHECK-NOT:     soac.segmap
// CHECK-NOT:     soac.tiled_redomap
// CHECK:         soac.redomap commutative %n (%xss : tensor<?x?xf32>)
// CHECK-NOT:     soac.segmap
func.func @row_sums_summed(%xss: tensor<?x?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %e = soac.redomap commutative %n (%xss : tensor<?x?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %s = arith.addf %a, %b : f32
    soac.yield %s : f32
  } lambda(%row: tensor<?xf32>) {
    %inner = soac.redomap commutative %m (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%c: f32, %d: f32) {
      %t = arith.addf %c, %d : f32
      soac.yield %t : f32
    } lambda(%v: f32) {
      %w = arith.mulf %v, %v : f32
      soac.yield %w : f32
    }
    soac.yield %inner : f32
  }
  func.return %e : f32
}
