// RUN: soac-opt %s -p soac-tile --split-input-file | filecheck %s
// RUN: soac-opt %s -p 'soac-tile{block=16 reg=2 chunk=4}' --split-input-file | filecheck %s --check-prefix=SIZES
// RUN: soac-opt %S/../../../../examples/matmul.mlir -p soac-fuse,soac-flatten,soac-tile | filecheck %s --check-prefix=VERSIONS

// soac-tile turns thread-level nests whose work-items share a read into soac.tiled_redomap (seed 004's block
// tiling): the tiled op names each read by the symbols that index it (d0, d1: the index space; k: the reduction).

// seed 004's 1-D example after soac-flatten: every work-item folds all of %xs, and its own element %x is
// captured by the lambda; the redomap's input becomes the read %xs[k], the captured element the read %xs[d0].
// CHECK-LABEL: func.func @all_pairs(%n: index, %xs: tensor<?xf32>, %zero: f32) -> tensor<?xf32> {
// CHECK-NEXT:    %r = soac.tiled_redomap (%n) reduce %n tile "tile_0" block [128] reg [2] chunk 128 reads(%xs[k], %xs[d0] : tensor<?xf32>, tensor<?xf32>) neutral(%zero : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %t = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %t : f32
// CHECK-NEXT:    } lambda(%y: f32, %x: f32) {
// CHECK-NEXT:      %p = arith.addf %y, %x : f32
// CHECK-NEXT:      soac.yield %p : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xf32>
// CHECK-NEXT:  }
func.func @all_pairs(%n: index, %xs: tensor<?xf32>, %zero: f32) -> tensor<?xf32> {
  %r = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
    %x = soac.index %xs[%i] : tensor<?xf32> -> f32
    %s = soac.redomap commutative %n (%xs : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      soac.yield %t : f32
    } lambda(%y: f32) {
      %p = arith.addf %y, %x : f32
      soac.yield %p : f32
    }
    soac.yield %s : f32
  }
  func.return %r : tensor<?xf32>
}

// -----

// matrix multiplication, outer-parallel version: rows of %a by d0, rows of %bt by d1.
// CHECK-LABEL: func.func @matmul(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %bt: tensor<?x?xf32>, %zero: f32) -> tensor<?x?xf32> {
// CHECK-NEXT:    %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [128, 128] reg [8, 8] chunk 8 reads(%a[d0, k], %bt[d1, k] : tensor<?x?xf32>, tensor<?x?xf32>) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
// CHECK-NEXT:      %sum = arith.addf %s, %t : f32
// CHECK-NEXT:      soac.yield %sum : f32
// CHECK-NEXT:    } lambda(%x: f32, %y: f32) {
// CHECK-NEXT:      %p = arith.mulf %x, %y : f32
// CHECK-NEXT:      soac.yield %p : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c : tensor<?x?xf32>
// CHECK-NEXT:  }
func.func @matmul(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %bt: tensor<?x?xf32>, %zero: f32) -> tensor<?x?xf32> {
  %c = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
    %arow = soac.index %a[%i] : tensor<?x?xf32> -> tensor<?xf32>
    %bcol = soac.index %bt[%j] : tensor<?x?xf32> -> tensor<?xf32>
    %dot = soac.redomap commutative %k (%arow, %bcol : tensor<?xf32>, tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%s: f32, %t: f32) {
      %sum = arith.addf %s, %t : f32
      soac.yield %sum : f32
    } lambda(%x: f32, %y: f32) {
      %p = arith.mulf %x, %y : f32
      soac.yield %p : f32
    }
    soac.yield %dot : f32
  }
  func.return %c : tensor<?x?xf32>
}

// -----

// matrix multiplication, fully flattened version: element reads by the segred's indices, %b read along its rows.
// CHECK-LABEL: func.func @matmul_segred(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %zero: f32) -> tensor<?x?xf32> {
// CHECK-NEXT:    %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [128, 128] reg [8, 8] chunk 8 reads(%a[d0, k], %b[k, d1] : tensor<?x?xf32>, tensor<?x?xf32>) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
// CHECK-NEXT:      %sum = arith.addf %s, %t : f32
// CHECK-NEXT:      soac.yield %sum : f32
// CHECK-NEXT:    } lambda(%x: f32, %y: f32) {
// CHECK-NEXT:      %p = arith.mulf %x, %y : f32
// CHECK-NEXT:      soac.yield %p : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c : tensor<?x?xf32>
// CHECK-NEXT:  }
func.func @matmul_segred(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %zero: f32) -> tensor<?x?xf32> {
  %c = soac.segred thread (%n, %m, %k) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
    %sum = arith.addf %s, %t : f32
    soac.yield %sum : f32
  } lambda(%i: index, %j: index, %l: index) {
    %x = soac.index %a[%i, %l] : tensor<?x?xf32> -> f32
    %y = soac.index %b[%l, %j] : tensor<?x?xf32> -> f32
    %p = arith.mulf %x, %y : f32
    soac.yield %p : f32
  }
  func.return %c : tensor<?x?xf32>
}

// -----

// Left alone: no read is shared (each work-item folds a row of its own).
// CHECK-LABEL: func.func @row_sums(%n: index, %k: index, %a: tensor<?x?xf32>, %zero: f32) -> tensor<?xf32> {
// CHECK-NEXT:    %r = soac.segred thread (%n, %k) neutral(%zero : f32) -> tensor<?xf32> combine(%s: f32, %t: f32) {
// CHECK-NEXT:      %sum = arith.addf %s, %t : f32
// CHECK-NEXT:      soac.yield %sum : f32
// CHECK-NEXT:    } lambda(%i: index, %l: index) {
// CHECK-NEXT:      %x = soac.index %a[%i, %l] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      soac.yield %x : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xf32>
// CHECK-NEXT:  }
func.func @row_sums(%n: index, %k: index, %a: tensor<?x?xf32>, %zero: f32) -> tensor<?xf32> {
  %r = soac.segred thread (%n, %k) neutral(%zero : f32) -> tensor<?xf32> combine(%s: f32, %t: f32) {
    %sum = arith.addf %s, %t : f32
    soac.yield %sum : f32
  } lambda(%i: index, %l: index) {
    %x = soac.index %a[%i, %l] : tensor<?x?xf32> -> f32
    soac.yield %x : f32
  }
  func.return %r : tensor<?xf32>
}

// -----

// Left alone: a lambda that computes with an index.
// CHECK-LABEL: func.func @index_arithmetic(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %zero: f32) -> tensor<?x?xf32> {
// CHECK-NEXT:    %w = soac.segred thread (%n, %m, %k) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
// CHECK-NEXT:      %sum = arith.addf %s, %t : f32
// CHECK-NEXT:      soac.yield %sum : f32
// CHECK-NEXT:    } lambda(%i: index, %j: index, %l: index) {
// CHECK-NEXT:      %x = soac.index %a[%i, %l] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %li = arith.index_cast %l : index to i32
// CHECK-NEXT:      %lf = arith.sitofp %li : i32 to f32
// CHECK-NEXT:      %p = arith.mulf %x, %lf : f32
// CHECK-NEXT:      soac.yield %p : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %w : tensor<?x?xf32>
// CHECK-NEXT:  }
func.func @index_arithmetic(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %zero: f32) -> tensor<?x?xf32> {
  %w = soac.segred thread (%n, %m, %k) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
    %sum = arith.addf %s, %t : f32
    soac.yield %sum : f32
  } lambda(%i: index, %j: index, %l: index) {
    %x = soac.index %a[%i, %l] : tensor<?x?xf32> -> f32
    %li = arith.index_cast %l : index to i32
    %lf = arith.sitofp %li : i32 to f32
    %p = arith.mulf %x, %lf : f32
    soac.yield %p : f32
  }
  func.return %w : tensor<?x?xf32>
}

// SIZES: soac.tiled_redomap (%n) reduce %n tile "tile_0" block [16] reg [2] chunk 4
// SIZES: soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [16, 16] reg [2, 2] chunk 4
// SIZES: soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [16, 16] reg [2, 2] chunk 4

// Inside soac-flatten's versions: the outer map of matrix multiplication makes none (Futhark's heuristics:
// a map of a map of one reduction); the inner map's outer-parallel segmap over (n, m) and its fully flattened
// segred are tiled, each with a name of its own.
// VERSIONS-NOT:   soac.segmap group
// VERSIONS:       %outer_suff = soac.threshold "suff_outer_par_0" %par default 32768 device "resident"
// VERSIONS-NEXT:  %c = scf.if %outer_suff -> (tensor<?x?xf32>) {
// VERSIONS-NEXT:    %{{.*}} = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [128, 128] reg [8, 8] chunk 8 reads(%a[d0, k], %bt[d1, k] : tensor<?x?xf32>, tensor<?x?xf32>)
// VERSIONS:         %dot = soac.tiled_redomap (%n, %m) reduce %k tile "tile_1" block [128, 128] reg [8, 8] chunk 8 reads(%a[d0, k], %bt[d1, k] : tensor<?x?xf32>, tensor<?x?xf32>)
// VERSIONS-NOT:   soac.threshold
// VERSIONS-NOT:   soac.segred thread (%n, %m, %k)
