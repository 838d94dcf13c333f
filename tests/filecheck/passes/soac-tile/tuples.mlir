// RUN: soac-opt %s -p soac-tile --split-input-file | filecheck %s
// RUN: soac-opt %S/../../../../examples/nbody.mlir -p soac-standard | filecheck %s --check-prefix=STANDARD
// RUN: soac-opt %S/../../../../examples/nbody.mlir -p 'soac-standard{tile=false}' | filecheck %s --check-prefix=UNTILED

// soac-tile generalised (issue 27): tuple accumulators, scalar code before the redomap (recomputed in the tiled
// op's lambda from reads) and after it (kept in the segmap, which reads the tiled op's results).

// soac-standard on examples/nbody.mlir: both versions soac-flatten makes are tiled; the outer-parallel one keeps
// its velocity update as a segmap that reads the accelerations; tile=false is DEFAULT_PIPELINE, without tiling.
// STANDARD:      %outer_suff = soac.threshold "suff_outer_par_0" %n
// STANDARD:      %ax, %ay, %az = soac.tiled_redomap (%n) reduce %n tile "tile_0" block [128] reg [2] chunk 128 reads(%xs[k], %ys[k], %zs[k], %ms[k], %xs[d0], %ys[d0], %zs[d0] :
// STANDARD:      soac.segmap thread (%n)
// STANDARD-NEXT:   %ax_1 = soac.index %ax[%i] : tensor<?xf32> -> f32
// STANDARD:      } else {
// STANDARD:      %ax_2, %ay_2, %az_2 = soac.tiled_redomap (%n) reduce %n tile "tile_1" block [128] reg [2] chunk 128 reads(%xs[k], %xs[d0], %ys[k], %ys[d0], %zs[k], %zs[d0], %ms[k] :
// STANDARD:      soac.segmap thread (%n)
// STANDARD-NOT:  soac.segred
// UNTILED-NOT:   soac.tiled_redomap
// UNTILED:       soac.segred thread (%n, %n)
// UNTILED-NOT:   soac.tiled_redomap

// One nbody step's accelerations, outer-parallel version: the body's own coordinates are element reads by d0, the
// four arrays of all bodies reads by k, the accumulator a 3-tuple, and the segmap scales it by %dt afterwards.
// CHECK-LABEL: func.func @nbody(
// CHECK:         %sx, %sy, %sz = soac.tiled_redomap (%n) reduce %n tile "tile_0" block [128] reg [2] chunk 128 reads(%xs[k], %ys[k], %zs[k], %ms[k], %xs[d0], %ys[d0], %zs[d0] : {{.*}}) neutral(%zero, %zero, %zero : f32, f32, f32) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) combine(
// CHECK:         } lambda(%xj: f32, %yj: f32, %zj: f32, %mj: f32, %xi: f32, %yi: f32, %zi: f32) {
// CHECK-NEXT:      %dx = arith.subf %xj, %xi : f32
// CHECK:           %r = math.sqrt %r2 : f32
// CHECK:           soac.yield %fx, %fy, %fz : f32, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %ax, %ay, %az = soac.segmap thread (%n) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) lambda(%i: index) {
// CHECK-NEXT:      %sx_1 = soac.index %sx[%i] : tensor<?xf32> -> f32
// CHECK-NEXT:      %sy_1 = soac.index %sy[%i] : tensor<?xf32> -> f32
// CHECK-NEXT:      %sz_1 = soac.index %sz[%i] : tensor<?xf32> -> f32
// CHECK-NEXT:      %vx = arith.mulf %sx_1, %dt : f32
// CHECK-NEXT:      %vy = arith.mulf %sy_1, %dt : f32
// CHECK-NEXT:      %vz = arith.mulf %sz_1, %dt : f32
// CHECK-NEXT:      soac.yield %vx, %vy, %vz : f32, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %ax, %ay, %az
func.func @nbody(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>, %zs: tensor<?xf32>, %ms: tensor<?xf32>, %dt: f32) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 0.01 : f32
  %ax, %ay, %az = soac.segmap thread (%n) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) lambda(%i: index) {
    %xi = soac.index %xs[%i] : tensor<?xf32> -> f32
    %yi = soac.index %ys[%i] : tensor<?xf32> -> f32
    %zi = soac.index %zs[%i] : tensor<?xf32> -> f32
    %sx, %sy, %sz = soac.redomap %n (%xs, %ys, %zs, %ms : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) neutral(%zero, %zero, %zero : f32, f32, f32) -> (f32, f32, f32) combine(%a0: f32, %a1: f32, %a2: f32, %b0: f32, %b1: f32, %b2: f32) {
      %c0 = arith.addf %a0, %b0 : f32
      %c1 = arith.addf %a1, %b1 : f32
      %c2 = arith.addf %a2, %b2 : f32
      soac.yield %c0, %c1, %c2 : f32, f32, f32
    } lambda(%xj: f32, %yj: f32, %zj: f32, %mj: f32) {
      %dx = arith.subf %xj, %xi : f32
      %dy = arith.subf %yj, %yi : f32
      %dz = arith.subf %zj, %zi : f32
      %dx2 = arith.mulf %dx, %dx : f32
      %dy2 = arith.mulf %dy, %dy : f32
      %dz2 = arith.mulf %dz, %dz : f32
      %d2 = arith.addf %dx2, %dy2 : f32
      %d3 = arith.addf %d2, %dz2 : f32
      %r2 = arith.addf %d3, %eps : f32
      %r = math.sqrt %r2 : f32
      %r3 = arith.mulf %r2, %r : f32
      %s = arith.divf %mj, %r3 : f32
      %fx = arith.mulf %dx, %s : f32
      %fy = arith.mulf %dy, %s : f32
      %fz = arith.mulf %dz, %s : f32
      soac.yield %fx, %fy, %fz : f32, f32, f32
    }
    %vx = arith.mulf %sx, %dt : f32
    %vy = arith.mulf %sy, %dt : f32
    %vz = arith.mulf %sz, %dt : f32
    soac.yield %vx, %vy, %vz : f32, f32, f32
  }
  func.return %ax, %ay, %az : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// The fully flattened version of the same step (soac-flatten's segred over (i, j)): every element read is by the
// indices, the tuple is the segred's.
// CHECK-LABEL: func.func @nbody_segred(
// CHECK-NEXT:    %zero = arith.constant
// CHECK-NEXT:    %sum, %top = soac.tiled_redomap (%n) reduce %n tile "tile_0" block [128] reg [2] chunk 128 reads(%xs[k], %xs[d0], %ms[k] : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) neutral(%zero, %zero : f32, f32) -> (tensor<?xf32>, tensor<?xf32>) combine(%a0: f32, %a1: f32, %b0: f32, %b1: f32) {
// CHECK:         } lambda(%xj: f32, %xi: f32, %mj: f32) {
// CHECK-NEXT:      %d = arith.subf %xj, %xi : f32
// CHECK-NEXT:      %f = arith.mulf %d, %mj : f32
// CHECK-NEXT:      soac.yield %f, %d : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %sum, %top
func.func @nbody_segred(%n: index, %xs: tensor<?xf32>, %ms: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum, %top = soac.segred thread (%n, %n) neutral(%zero, %zero : f32, f32) -> (tensor<?xf32>, tensor<?xf32>) combine(%a0: f32, %a1: f32, %b0: f32, %b1: f32) {
    %c0 = arith.addf %a0, %b0 : f32
    %c1 = arith.maximumf %a1, %b1 : f32
    soac.yield %c0, %c1 : f32, f32
  } lambda(%i: index, %j: index) {
    %xj = soac.index %xs[%j] : tensor<?xf32> -> f32
    %xi = soac.index %xs[%i] : tensor<?xf32> -> f32
    %mj = soac.index %ms[%j] : tensor<?xf32> -> f32
    %d = arith.subf %xj, %xi : f32
    %f = arith.mulf %d, %mj : f32
    soac.yield %f, %d : f32, f32
  }
  func.return %sum, %top : tensor<?xf32>, tensor<?xf32>
}

// -----

// Scalar code before the redomap that its lambda uses is recomputed from the reads in the tiled op's lambda; the
// segmap yields the redomap's results as they are, so no segmap is left.
// CHECK-LABEL: func.func @before(
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    %r = soac.tiled_redomap (%n) reduce %k tile "tile_0" block [128] reg [2] chunk 128 reads(%a[d0, k], %ws[k], %bias[d0] : tensor<?x?xi32>, tensor<?xi32>, tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
// CHECK:         } lambda(%x: i32, %w: i32, %b: i32) {
// CHECK-NEXT:      %three = arith.constant 3 : i32
// CHECK-NEXT:      %b3 = arith.muli %b, %three : i32
// CHECK-NEXT:      %xw = arith.muli %x, %w : i32
// CHECK-NEXT:      %y = arith.addi %xw, %b3 : i32
// CHECK-NEXT:      soac.yield %y : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r
func.func @before(%n: index, %k: index, %a: tensor<?x?xi32>, %ws: tensor<?xi32>, %bias: tensor<?xi32>) -> tensor<?xi32> {
  %zero = arith.constant 0 : i32
  %r = soac.segmap thread (%n) -> tensor<?xi32> lambda(%i: index) {
    %row = soac.index %a[%i] : tensor<?x?xi32> -> tensor<?xi32>
    %b = soac.index %bias[%i] : tensor<?xi32> -> i32
    %three = arith.constant 3 : i32
    %b3 = arith.muli %b, %three : i32
    %s = soac.redomap %k (%row, %ws : tensor<?xi32>, tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%p: i32, %q: i32) {
      %t = arith.maxsi %p, %q : i32
      soac.yield %t : i32
    } lambda(%x: i32, %w: i32) {
      %xw = arith.muli %x, %w : i32
      %y = arith.addi %xw, %b3 : i32
      soac.yield %y : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}

// -----

// An index used as a value has no read to stand for it: the nest stays as it is.
// CHECK-LABEL: func.func @index_as_value(
// CHECK-NOT:     soac.tiled_redomap
// CHECK:         soac.segmap thread (%n)
// CHECK:         soac.redomap %n
func.func @index_as_value(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %zero = arith.constant 0 : i32
  %r = soac.segmap thread (%n) -> tensor<?xi32> lambda(%i: index) {
    %ii = arith.index_cast %i : index to i32
    %s = soac.redomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%p: i32, %q: i32) {
      %t = arith.addi %p, %q : i32
      soac.yield %t : i32
    } lambda(%x: i32) {
      %y = arith.muli %x, %ii : i32
      soac.yield %y : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}

// -----

// matvec's fully flattened version: each work-item would read its own row of %a (a[d0, k]) to share %x, which the
// caches hold anyway; the segred's own lowering reads the rows coalesced, so it is not tiled. The outer-parallel
// segmap of the same nest is (its rows are read a row apart either way).
// CHECK-LABEL: func.func @matvec_segred(
// CHECK-NOT:     soac.tiled_redomap
// CHECK:         soac.segred thread (%n, %k)
func.func @matvec_segred(%n: index, %k: index, %a: tensor<?x?xf32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %r = soac.segred thread (%n, %k) neutral(%zero : f32) -> tensor<?xf32> combine(%s: f32, %t: f32) {
    %u = arith.addf %s, %t : f32
    soac.yield %u : f32
  } lambda(%i: index, %j: index) {
    %aij = soac.index %a[%i, %j] : tensor<?x?xf32> -> f32
    %xj = soac.index %x[%j] : tensor<?xf32> -> f32
    %p = arith.mulf %aij, %xj : f32
    soac.yield %p : f32
  }
  func.return %r : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @matvec_segmap(
// CHECK-NEXT:    %zero = arith.constant
// CHECK-NEXT:    %r = soac.tiled_redomap (%n) reduce %k tile "tile_0" block [128] reg [2] chunk 128 reads(%a[d0, k], %x[k] :
func.func @matvec_segmap(%n: index, %k: index, %a: tensor<?x?xf32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %r = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
    %row = soac.index %a[%i] : tensor<?x?xf32> -> tensor<?xf32>
    %s = soac.redomap %k (%row, %x : tensor<?xf32>, tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%p: f32, %q: f32) {
      %t = arith.addf %p, %q : f32
      soac.yield %t : f32
    } lambda(%y: f32, %z: f32) {
      %m = arith.mulf %y, %z : f32
      soac.yield %m : f32
    }
    soac.yield %s : f32
  }
  func.return %r : tensor<?xf32>
}
