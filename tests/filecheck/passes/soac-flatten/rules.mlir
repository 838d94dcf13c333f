// RUN: soac-opt %s -p 'soac-flatten{mode=full}' --split-input-file | filecheck %s

// map of a scalar body: one segmap over the map's width.
// CHECK-LABEL: func.func @map_scalar(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
// CHECK:         %ys = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
// CHECK-NEXT:      %x = soac.index %xs[%i] : tensor<?xf32> -> f32
// CHECK-NEXT:      %y = arith.mulf %x, %x : f32
// CHECK-NEXT:      soac.yield %y : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %ys : tensor<?xf32>
// CHECK-NEXT:  }
func.func @map_scalar(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %ys : tensor<?xf32>
}

// -----

// map of map: one segmap over a two-dimensional index space; the outer body's scalar code is recomputed inside.
// CHECK-LABEL: func.func @map_map(%n: index, %m: index, %xss: tensor<?x?xf32>, %cs: tensor<?xf32>) -> tensor<?x?xf32> {
// CHECK:         %yss = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
// CHECK-NEXT:      %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %c = soac.index %cs[%i] : tensor<?xf32> -> f32
// CHECK-NEXT:      %d = arith.addf %c, %c : f32
// CHECK-NEXT:      %y = arith.mulf %x, %d : f32
// CHECK-NEXT:      soac.yield %y : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %yss : tensor<?x?xf32>
// CHECK-NEXT:  }
func.func @map_map(%n: index, %m: index, %xss: tensor<?x?xf32>, %cs: tensor<?xf32>) -> tensor<?x?xf32> {
  %yss = soac.map %n (%xss, %cs : tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32> lambda(%xs: tensor<?xf32>, %c: f32) {
    %d = arith.addf %c, %c : f32
    %ys = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.mulf %x, %d : f32
      soac.yield %y : f32
    }
    soac.yield %ys : tensor<?xf32>
  }
  func.return %yss : tensor<?x?xf32>
}

// -----

// map(redomap) -> segred over (n, m); the redomap's map-out array becomes a map-out of the segred.
// CHECK-LABEL: func.func @map_redomap(%n: index, %m: index, %xss: tensor<?x?xi32>, %z: i32) -> (tensor<?xi32>, tensor<?x?xi32>) {
// CHECK:         %s, %sq = soac.segred thread (%n, %m) neutral(%z : i32) -> (tensor<?xi32>, tensor<?x?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } lambda(%i: index, %j: index) {
// CHECK-NEXT:      %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
// CHECK-NEXT:      %x2 = arith.muli %x, %x : i32
// CHECK-NEXT:      soac.yield %x2, %x2 : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %sq : tensor<?xi32>, tensor<?x?xi32>
// CHECK-NEXT:  }
func.func @map_redomap(%n: index, %m: index, %xss: tensor<?x?xi32>, %z: i32) -> (tensor<?xi32>, tensor<?x?xi32>) {
  %s, %sq = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?xi32>, tensor<?x?xi32>) lambda(%xs: tensor<?xi32>) {
    %r, %q = soac.redomap %m (%xs : tensor<?xi32>) neutral(%z : i32) -> (i32, tensor<?xi32>) combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    } lambda(%x: i32) {
      %x2 = arith.muli %x, %x : i32
      soac.yield %x2, %x2 : i32, i32
    }
    soac.yield %r, %q : i32, tensor<?xi32>
  }
  func.return %s, %sq : tensor<?xi32>, tensor<?x?xi32>
}

// -----

// map(scanomap with a post lambda) -> segscan, then a segmap applying the post lambda.
// CHECK-LABEL: func.func @map_scanomap_post(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?x?xf32> {
// CHECK:         %0 = soac.segscan thread (%n, %m) neutral(%z : f32) -> tensor<?x?xf32> combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.maximumf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    } lambda(%i: index, %j: index) {
// CHECK-NEXT:      %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %ax = math.absf %x : f32
// CHECK-NEXT:      soac.yield %ax : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i_1: index, %j_1: index) {
// CHECK-NEXT:      %x_1 = soac.index %xss[%i_1, %j_1] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %mx = soac.index %0[%i_1, %j_1] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %q = arith.divf %x_1, %mx : f32
// CHECK-NEXT:      soac.yield %q : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?x?xf32>
// CHECK-NEXT:  }
func.func @map_scanomap_post(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?x?xf32> {
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%xs: tensor<?xf32>) {
    %p = soac.scanomap %m (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
      %c = arith.maximumf %a, %b : f32
      soac.yield %c : f32
    } lambda(%x: f32) {
      %ax = math.absf %x : f32
      soac.yield %ax : f32
    } post(%mx: f32, %x: f32) {
      %q = arith.divf %x, %mx : f32
      soac.yield %q : f32
    }
    soac.yield %p : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// -----

// Distribution (loop fission): the reduction gets a segred, the map that uses its result a segmap.
// CHECK-LABEL: func.func @distribute(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?x?xf32> {
// CHECK:         %s = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    } lambda(%i: index, %j: index) {
// CHECK-NEXT:      %0 = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      soac.yield %0 : f32
// CHECK-NEXT:    }
// CHECK:         %r = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i_1: index, %j_1: index) {
// CHECK-NEXT:      %x = soac.index %xss[%i_1, %j_1] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %s_1 = soac.index %s[%i_1] : tensor<?xf32> -> f32
// CHECK-NEXT:      %y = arith.subf %x, %s_1 : f32
// CHECK-NEXT:      soac.yield %y : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?x?xf32>
// CHECK-NEXT:  }
func.func @distribute(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?x?xf32> {
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%xs: tensor<?xf32>) {
    %s = soac.reduce %m (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
    %ys = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.subf %x, %s : f32
      soac.yield %y : f32
    }
    soac.yield %ys : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// -----

// Map-loop interchange: the loop runs outside, carrying the whole array; its body's map becomes a segmap.
// CHECK-LABEL: func.func @interchange(%n: index, %m: index, %steps: index, %xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK:         %r = scf.for %t = %c0 to %steps step %c1 iter_args(%acc = %xss) -> (tensor<?x?xi32>) {
// CHECK:           %y = soac.segmap thread (%n, %m) -> tensor<?x?xi32> lambda(%i: index, %j: index) {
// CHECK-NEXT:        %x = soac.index %acc[%i, %j] : tensor<?x?xi32> -> i32
// CHECK-NEXT:        %y_1 = arith.addi %x, %x : i32
// CHECK-NEXT:        soac.yield %y_1 : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %y : tensor<?x?xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?x?xi32>
// CHECK-NEXT:  }
func.func @interchange(%n: index, %m: index, %steps: index, %xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>) {
    %out = scf.for %t = %c0 to %steps step %c1 iter_args(%acc = %xs) -> (tensor<?xi32>) {
      %next = soac.map %m (%acc : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
        %y = arith.addi %x, %x : i32
        soac.yield %y : i32
      }
      scf.yield %next : tensor<?xi32>
    }
    soac.yield %out : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}

// -----

// Rearrange pushing: map (\x -> transpose x) xs => rearrange (0, 2, 1) xs.
// CHECK-LABEL: func.func @push_transpose(%n: index, %xsss: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
// CHECK:         %r = soac.transpose %xsss [0, 2, 1] : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
// CHECK-NEXT:    func.return %r : tensor<?x?x?xf32>
// CHECK-NEXT:  }
func.func @push_transpose(%n: index, %xsss: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = soac.map %n (%xsss : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%xss: tensor<?x?xf32>) {
    %t = soac.transpose %xss [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
    soac.yield %t : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?x?xf32>
}

// -----

// map (\x -> replicate m x) xs => transpose (replicate m xs): no kernel (FL-13).
// CHECK-LABEL: func.func @map_replicate(%n: index, %m: index, %xs: tensor<?xi32>) -> tensor<?x?xi32> {
// CHECK:         %0 = soac.replicate %m, %xs : tensor<?xi32> -> tensor<?x?xi32>
// CHECK-NEXT:    %r = soac.transpose %0 [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
// CHECK-NEXT:    func.return %r : tensor<?x?xi32>
// CHECK-NEXT:  }
func.func @map_replicate(%n: index, %m: index, %xs: tensor<?xi32>) -> tensor<?x?xi32> {
  %r = soac.map %n (%xs : tensor<?xi32>) -> tensor<?x?xi32> lambda(%x: i32) {
    %row = soac.replicate %m, %x : i32 -> tensor<?xi32>
    soac.yield %row : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}

// -----

// Irregular inner parallelism (the width %p varies within the map) is sequentialised (seed 004 (g), (h)).
// CHECK-LABEL: func.func @irregular(%n: index, %ps: tensor<?xindex>, %z: i64) -> tensor<?xi64> {
// CHECK:         %r = soac.segmap thread (%n) -> tensor<?xi64> lambda(%i: index) {
// CHECK-NEXT:      %p = soac.index %ps[%i] : tensor<?xindex> -> index
// CHECK-NEXT:      %is = soac.iota %p : tensor<?xi64>
// CHECK-NEXT:      %s = soac.reduce %p (%is : tensor<?xi64>) neutral(%z : i64) -> i64 combine(%a: i64, %b: i64) {
// CHECK-NEXT:        %c = arith.addi %a, %b : i64
// CHECK-NEXT:        soac.yield %c : i64
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %s : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi64>
// CHECK-NEXT:  }
func.func @irregular(%n: index, %ps: tensor<?xindex>, %z: i64) -> tensor<?xi64> {
  %r = soac.map %n (%ps : tensor<?xindex>) -> tensor<?xi64> lambda(%p: index) {
    %is = soac.iota %p : tensor<?xi64>
    %s = soac.reduce %p (%is : tensor<?xi64>) neutral(%z : i64) -> i64 combine(%a: i64, %b: i64) {
      %c = arith.addi %a, %b : i64
      soac.yield %c : i64
    }
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}

// -----

// Invariant code is hoisted before the nest; a map returning its input row is a copy, not an alias.
// CHECK-LABEL: func.func @hoist_and_copy(%n: index, %m: index, %xss: tensor<?x?xi64>) -> (tensor<?x?xi64>, tensor<?x?xi64>) {
// CHECK:         %c2 = arith.constant 2 : index
// CHECK-NEXT:    %w = arith.muli %m, %c2 : index
// CHECK-NEXT:    %is = soac.iota %w : tensor<?xi64>
// CHECK-NEXT:    %r = soac.segmap thread (%n) -> tensor<?x?xi64> lambda(%i: index) {
// CHECK-NEXT:      soac.yield %is : tensor<?xi64>
// CHECK-NEXT:    }
// CHECK-NEXT:    %same = soac.segmap thread (%n) -> tensor<?x?xi64> lambda(%i_1: index) {
// CHECK-NEXT:      %xs = soac.index %xss[%i_1] : tensor<?x?xi64> -> tensor<?xi64>
// CHECK-NEXT:      soac.yield %xs : tensor<?xi64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r, %same : tensor<?x?xi64>, tensor<?x?xi64>
// CHECK-NEXT:  }
func.func @hoist_and_copy(%n: index, %m: index, %xss: tensor<?x?xi64>) -> (tensor<?x?xi64>, tensor<?x?xi64>) {
  %r, %same = soac.map %n (%xss : tensor<?x?xi64>) -> (tensor<?x?xi64>, tensor<?x?xi64>) lambda(%xs: tensor<?xi64>) {
    %c2 = arith.constant 2 : index
    %w = arith.muli %m, %c2 : index
    %is = soac.iota %w : tensor<?xi64>
    soac.yield %is, %xs : tensor<?xi64>, tensor<?xi64>
  }
  func.return %r, %same : tensor<?x?xi64>, tensor<?x?xi64>
}
