// RUN: soac-opt %s -p 'soac-flatten' --split-input-file | filecheck %s

// Futhark's heuristics (passes/flatten_heuristics.py), one rule per case.

// A map of one reduction: worth sequentialising (score 2: a reduce directly in the body), not worth an
// intra-group version (score 1: one inner SOAC), so the outer-parallel version and the flat segred only.
// CHECK-LABEL: func.func @map_of_reduce
// CHECK:         %outer_suff = soac.threshold "suff_outer_par_0" %n default 32768 device "resident"
// CHECK-NEXT:    %r = scf.if %outer_suff -> (tensor<?xf32>) {
// CHECK-NEXT:      soac.segmap thread (%n)
// CHECK:         } else {
// CHECK-NOT:       soac.threshold
// CHECK-NOT:       soac.segmap group
// CHECK:           soac.segred thread (%n, %m)
// CHECK:         func.return %r
func.func @map_of_reduce(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?xf32> {
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
    %s = soac.reduce %m (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
    soac.yield %s : f32
  }
  func.return %r : tensor<?xf32>
}

// -----

// A map of a map of one reduction (matrix multiplication's form): the outer map is worth neither version
// (scores 1 and 1) and is distributed as it is; the inner map, in the nest (n, m), gets the outer-parallel version.
// CHECK-LABEL: func.func @map_of_map_of_reduce
// CHECK-NOT:     soac.segmap thread (%n) ->
// CHECK:         %par = arith.muli %n, %m : index
// CHECK-NEXT:    %outer_suff = soac.threshold "suff_outer_par_0" %par default 32768 device "resident"
// CHECK-NEXT:    %r = scf.if %outer_suff -> (tensor<?x?xf32>) {
// CHECK-NEXT:      soac.segmap thread (%n, %m)
// CHECK:         } else {
// CHECK-NOT:       soac.threshold
// CHECK:           soac.segred thread (%n, %m, %k)
// CHECK:         func.return %r
func.func @map_of_map_of_reduce(%n: index, %m: index, %k: index, %xsss: tensor<?x?x?xf32>, %z: f32) -> tensor<?x?xf32> {
  %r = soac.map %n (%xsss : tensor<?x?x?xf32>) -> tensor<?x?xf32> lambda(%xss: tensor<?x?xf32>) {
    %rs = soac.map %m (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
      %s = soac.reduce %k (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
        %c = arith.addf %a, %b : f32
        soac.yield %c : f32
      }
      soac.yield %s : f32
    }
    soac.yield %rs : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// -----

// Two maps of scalar code: nothing to sequentialise (score 0), worth an intra-group version (score 2): the
// intra-group version and the flat one, with no outer-parallel threshold.
// CHECK-LABEL: func.func @two_maps
// CHECK-NOT:     suff_outer_par
// CHECK:         %intra_suff = soac.threshold "suff_intra_par_0" %m default 32 device "group"
// CHECK:         %r, %r_1 = scf.if %intra_ok -> (tensor<?x?xf32>, tensor<?x?xf32>) {
// CHECK-NEXT:      soac.segmap group (%n)
// CHECK:         } else {
// CHECK:           soac.segmap thread (%n, %m)
// CHECK:           soac.segmap thread (%n, %m)
// CHECK-NOT:     soac.threshold
// CHECK:         func.return %r, %r_1
func.func @two_maps(%n: index, %m: index, %xss: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %r:2 = soac.map %n (%xss : tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) lambda(%row: tensor<?xf32>) {
    %ys = soac.map %m (%row : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.negf %x : f32
      soac.yield %y : f32
    }
    %zs = soac.map %m (%ys : tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32) {
      %w = arith.mulf %y, %y : f32
      soac.yield %w : f32
    }
    soac.yield %ys, %zs : tensor<?xf32>, tensor<?xf32>
  }
  func.return %r#0, %r#1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// Inner SOACs of a constant width below 32 do not fill a work-group and count 0 (Futhark's zeroIfTooSmall):
// a reduction and a redomap over 16 columns make no intra-group version.
// CHECK-LABEL: func.func @narrow_rows
// CHECK:         soac.threshold "suff_outer_par_0" %n
// CHECK-NOT:     soac.threshold
// CHECK-NOT:     soac.segmap group
// CHECK:         soac.segred thread (%n, %c16)
// CHECK:         func.return
func.func @narrow_rows(%n: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?xf32> {
  %c16 = arith.constant 16 : index
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
    %m = soac.reduce %c16 (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.maximumf %a, %b : f32
      soac.yield %c : f32
    }
    %s = soac.redomap %c16 (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    } lambda(%x: f32) {
      %d = arith.subf %x, %m : f32
      soac.yield %d : f32
    }
    soac.yield %s : f32
  }
  func.return %r : tensor<?xf32>
}

// -----

// Wide enough to be worth an intra-group version (a reduce and a map over m: score 2), but one inner SOAC
// runs over a constant 16: the group's parallelism (the smallest width) cannot fill a group, so none is made.
// CHECK-LABEL: func.func @narrowest_decides
// CHECK:         soac.threshold "suff_outer_par_0" %n
// CHECK-NOT:     suff_intra_par
// CHECK-NOT:     soac.segmap group
// CHECK:         soac.segred thread (%n, %m)
// CHECK:         func.return
func.func @narrowest_decides(%n: index, %m: index, %xss: tensor<?x?xf32>, %ys: tensor<?xf32>, %z: f32) -> tensor<?x?xf32> {
  %c16 = arith.constant 16 : index
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
    %t = soac.reduce %c16 (%ys : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
    %mx = soac.reduce %m (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.maximumf %a, %b : f32
      soac.yield %c : f32
    }
    %out = soac.map %m (%row : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %d = arith.subf %x, %mx : f32
      %e = arith.addf %d, %t : f32
      soac.yield %e : f32
    }
    soac.yield %out : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// -----

// The same body over a constant 2^22 rows: outer parallelism that fills any device (2^21 work-items or more), so
// no intra-group version (a work-group per row) is made; the outer-parallel and flat versions stay.
// CHECK-LABEL: func.func @outer_fills_device
// CHECK:         %outer_suff = soac.threshold "suff_outer_par_0" %n default 32768 device "resident"
// CHECK-NOT:     suff_intra_par
// CHECK-NOT:     soac.segmap group
// CHECK:         soac.segred thread (%n, %m)
// CHECK:         func.return
func.func @outer_fills_device(%m: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?x?xf32> {
  %n = arith.constant 4194304 : index
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
    %mx = soac.reduce %m (%row : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.maximumf %a, %b : f32
      soac.yield %c : f32
    }
    %out = soac.map %m (%row : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %d = arith.subf %x, %mx : f32
      soac.yield %d : f32
    }
    soac.yield %out : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// -----

// Parallelism inside a sequential loop counts ten times (scores 10 and 10): all three versions.
// CHECK-LABEL: func.func @loop_of_reduce
// CHECK:         soac.threshold "suff_outer_par_0" %n
// CHECK:         soac.segmap thread (%n)
// CHECK:           scf.for
// CHECK:         soac.threshold "suff_intra_par_1" %m default 32 device "group"
// CHECK:         soac.segmap group (%n)
// CHECK:           scf.for
// CHECK:             soac.segred thread (%m)
// CHECK:         func.return
func.func @loop_of_reduce(%n: index, %m: index, %steps: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%row: tensor<?xf32>) {
    %acc = scf.for %t = %c0 to %steps step %c1 iter_args(%v = %z) -> (f32) {
      %s = soac.reduce %m (%row : tensor<?xf32>) neutral(%v : f32) -> f32 combine(%a: f32, %b: f32) {
        %c = arith.addf %a, %b : f32
        soac.yield %c : f32
      }
      scf.yield %s : f32
    }
    soac.yield %acc : f32
  }
  func.return %r : tensor<?xf32>
}
