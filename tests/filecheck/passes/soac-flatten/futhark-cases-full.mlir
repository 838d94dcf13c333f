// RUN: soac-opt %s -p 'soac-flatten{mode=full}' --split-input-file | filecheck %s

// Translations of the flattening cases of futhark-cases.md (FL-xx), fully flattened; structure checks.

// FL-01 (redomap0.fut): map (\a_r -> reduce (+) 0 (map (+1) a_r)) a, after fusion a map of a redomap
// -> one segred over (n, m). Futhark: SegRed 1. Same.
// CHECK-LABEL: func.func @fl01
// CHECK-COUNT-1: soac.segred thread (%n, %m)
// CHECK-NOT:     soac.seg
// CHECK:         func.return
func.func @fl01(%n: index, %m: index, %a: tensor<?x?xi32>) -> tensor<?xi32> {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = soac.map %n (%a : tensor<?x?xi32>) -> tensor<?xi32> lambda(%row: tensor<?xi32>) {
    %s = soac.redomap %m (%row : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%x: i32, %y: i32) {
      %c = arith.addi %x, %y : i32
      soac.yield %c : i32
    } lambda(%e: i32) {
      %f = arith.addi %e, %one : i32
      soac.yield %f : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}

// -----

// FL-03 (distribution6.fut): map (\i -> let x = 10 * i in map (* x) a) (iota n) -> one segmap over (n, m),
// the scalar code recomputed in it, and no versions (a perfect map nest). Futhark: SegMap 1. Same.
// CHECK-LABEL: func.func @fl03
// CHECK-NOT:     soac.threshold
// CHECK-COUNT-1: soac.segmap thread (%n, %m)
// CHECK-NOT:     soac.seg
// CHECK:         func.return
func.func @fl03(%n: index, %m: index, %a: tensor<?xi64>) -> tensor<?x?xi64> {
  %is = soac.iota %n : tensor<?xi64>
  %r = soac.map %n (%is : tensor<?xi64>) -> tensor<?x?xi64> lambda(%i: i64) {
    %ten = arith.constant 10 : i64
    %x = arith.muli %ten, %i : i64
    %ys = soac.map %m (%a : tensor<?xi64>) -> tensor<?xi64> lambda(%e: i64) {
      %y = arith.muli %e, %x : i64
      soac.yield %y : i64
    }
    soac.yield %ys : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}

// -----

// FL-09 (loop7.fut): map (\x -> loop acc = x for i < n-1 do acc + sum (take (i+1) xs)) xs: after interchange
// the loop is outside and the reduction a segred inside it. Futhark: Loop/SegRed 1. Same count; Futhark's
// reduction is not segmented (it sees that the slice is invariant to the map, under #[unsafe]); ours is
// segmented over (n, i+1): hoisting a slice, which can fail, out of the map is not safe without #[unsafe].
// CHECK-LABEL: func.func @fl09
// CHECK:         scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %xs) -> (tensor<?xi32>) {
// CHECK-NEXT:      %len = arith.addi %i, %c1 : index
// CHECK-NEXT:      soac.segred thread (%n, %len)
// CHECK-NOT:       soac.segred
// CHECK:           soac.segmap thread (%n)
// CHECK-NOT:       soac.segred
// CHECK:           scf.yield
func.func @fl09(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %steps = arith.subi %n, %c1 : index
  %r = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %out = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %x) -> (i32) {
      %len = arith.addi %i, %c1 : index
      %part = soac.slice %xs[%c0 : %len] : tensor<?xi32> -> tensor<?xi32>
      %s = soac.reduce %len (%part : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
        %c = arith.addi %a, %b : i32
        soac.yield %c : i32
      }
      %next = arith.addi %acc, %s : i32
      scf.yield %next : i32
    }
    soac.yield %out : i32
  }
  func.return %r : tensor<?xi32>
}

// -----

// FL-13 (map-replicate.fut): map (\x -> replicate m x) xs -> a replicate (and a transpose), no kernel.
// Futhark: SegMap 0 Replicate 1. Same.
// CHECK-LABEL: func.func @fl13
// CHECK-NOT:     soac.seg
// CHECK:         soac.replicate %m, %xs
// CHECK-NEXT:    soac.transpose
// CHECK-NOT:     soac.seg
// CHECK:         func.return
func.func @fl13(%n: index, %m: index, %xs: tensor<?xi32>) -> tensor<?x?xi32> {
  %r = soac.map %n (%xs : tensor<?xi32>) -> tensor<?x?xi32> lambda(%x: i32) {
    %row = soac.replicate %m, %x : i32 -> tensor<?xi32>
    soac.yield %row : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}

// -----

// FL-17 (simple-scan.fut): map (\xs -> scan (+) 0 xs) xss -> one segscan. Futhark: SegScan 1. Same in
// mode=full (incremental mode adds the outer and intra-group versions, which Futhark's heuristics skip here).
// CHECK-LABEL: func.func @fl17
// CHECK-COUNT-1: soac.segscan thread (%n, %m)
// CHECK-NOT:     soac.seg
// CHECK:         func.return
func.func @fl17(%n: index, %m: index, %xss: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %zero = arith.constant 0 : i64
  %r = soac.map %n (%xss : tensor<?x?xi64>) -> tensor<?x?xi64> lambda(%xs: tensor<?xi64>) {
    %s = soac.scan %m (%xs : tensor<?xi64>) neutral(%zero : i64) -> tensor<?xi64> combine(%a: i64, %b: i64) {
      %c = arith.addi %a, %b : i64
      soac.yield %c : i64
    }
    soac.yield %s : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}

// -----

// FL-23 (complex-screma.fut): map (\row -> (reduce (+) 0 row, scan (+) 0 row)) -> SegScan 1 SegRed 1. Same.
// CHECK-LABEL: func.func @fl23
// CHECK-COUNT-1: soac.segscan thread (%n, %m)
// CHECK-COUNT-1: soac.segred thread (%n, %m)
// CHECK-NOT:     soac.seg
// CHECK:         func.return
func.func @fl23(%n: index, %m: index, %a: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %s, %p = soac.map %n (%a : tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) lambda(%row: tensor<?xf32>) {
    %scanned = soac.scan %m (%row : tensor<?xf32>) neutral(%zero : f32) -> tensor<?xf32> combine(%x: f32, %y: f32) {
      %c = arith.addf %x, %y : f32
      soac.yield %c : f32
    }
    %sum = soac.reduce %m (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%x: f32, %y: f32) {
      %c = arith.addf %x, %y : f32
      soac.yield %c : f32
    }
    soac.yield %sum, %scanned : f32, tensor<?xf32>
  }
  func.return %s, %p : tensor<?xf32>, tensor<?x?xf32>
}

// -----

// FL-27 (scan7.fut): map (scan vecadd (replicate k 0)) xss: a segmented scan whose operator is a loop over
// rows. Futhark: /SegScan 1 /SegScan/SegBinOp/Loop 1. Same.
// CHECK-LABEL: func.func @fl27
// CHECK:         soac.replicate %k
// CHECK:         soac.segscan thread (%n, %m) neutral(%{{.*}} : tensor<?xi32>) -> tensor<?x?x?xi32> combine(
// CHECK-NEXT:      scf.for
// CHECK-NOT:     soac.seg
// CHECK:         func.return
func.func @fl27(%n: index, %m: index, %k: index, %xss: tensor<?x?x?xi32>) -> tensor<?x?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = soac.map %n (%xss : tensor<?x?x?xi32>) -> tensor<?x?x?xi32> lambda(%xs: tensor<?x?xi32>) {
    %zero = arith.constant 0 : i32
    %zeros = soac.replicate %k, %zero : i32 -> tensor<?xi32>
    %s = soac.scan %m (%xs : tensor<?x?xi32>) neutral(%zeros : tensor<?xi32>) -> tensor<?x?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
      %sum = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %a) -> (tensor<?xi32>) {
        %u = soac.index %acc[%i] : tensor<?xi32> -> i32
        %v = soac.index %b[%i] : tensor<?xi32> -> i32
        %w = arith.addi %u, %v : i32
        %acc2 = soac.update %acc[%i] = %w : tensor<?xi32>, i32
        scf.yield %acc2 : tensor<?xi32>
      }
      soac.yield %sum : tensor<?xi32>
    }
    soac.yield %s : tensor<?x?xi32>
  }
  func.return %r : tensor<?x?x?xi32>
}

// -----

// FL-11 (icfp16-example.fut, seed 004 steps (a)-(h)): four kernels of parallelism m^2, m^3, m^3, m^2 as the
// slides' Result; the loop is interchanged outside. Futhark: Loop/SegMap 1 SegMap 2 SegRed 1; ours has one more
// SegMap (the irregular scan/reduce over iota p gets its own kernel, rss, as in the slides).
// CHECK-LABEL: func.func @main
// CHECK:         soac.segmap thread (%m, %m)
// CHECK:           soac.iota
// CHECK:         soac.segmap thread (%m, %m, %m)
// CHECK:         scf.for
// CHECK:           soac.segred thread (%m, %m, %m)
// CHECK:           soac.segmap thread (%m, %m)
// CHECK:           scf.yield
// CHECK-NOT:     soac.seg
// CHECK:         func.return
func.func @main(%pss: tensor<?x?xi32>, %n: index) -> (tensor<?x?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %pss, %c0 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %asss, %bss = soac.map %m (%pss : tensor<?x?xi32>) -> (tensor<?x?x?xi32>, tensor<?x?xi32>) lambda(%ps: tensor<?xi32>) {
    %ass = soac.map %m (%ps : tensor<?xi32>) -> tensor<?x?xi32> lambda(%p: i32) {
      %pi = arith.index_cast %p : i32 to index
      %is = soac.iota %pi : tensor<?xi32>
      %cs = soac.scan %pi (%is : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
        %s = arith.addi %a, %b : i32
        soac.yield %s : i32
      }
      %r = soac.reduce %pi (%cs : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
        %s = arith.addi %a, %b : i32
        soac.yield %s : i32
      }
      %as = soac.map %m (%ps : tensor<?xi32>) -> tensor<?xi32> lambda(%q: i32) {
        %t = arith.addi %q, %r : i32
        soac.yield %t : i32
      }
      soac.yield %as : tensor<?xi32>
    }
    %bs = scf.for %i = %c0 to %n step %c1 iter_args(%ws = %ps) -> (tensor<?xi32>) {
      %ws2 = soac.map %m (%ass, %ws : tensor<?x?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%as: tensor<?xi32>, %w: i32) {
        %d = soac.reduce %m (%as : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
          %s = arith.addi %a, %b : i32
          soac.yield %s : i32
        }
        %e = arith.addi %d, %w : i32
        %two = arith.constant 2 : i32
        %f = arith.muli %two, %e : i32
        soac.yield %f : i32
      }
      scf.yield %ws2 : tensor<?xi32>
    }
    soac.yield %ass, %bs : tensor<?x?xi32>, tensor<?xi32>
  }
  func.return %asss, %bss : tensor<?x?x?xi32>, tensor<?x?xi32>
}
