// RUN: soac-opt %s -p 'soac-fuse,soac-flatten' --split-input-file | filecheck %s

// Translations of futhark-cases.md flattening cases whose structure depends on fusion or on versions.

// FL-19 (uniform_scan.fut): map (\xs -> let a = xs[0] in scan (+) 0 (map (+ a) xs)): fusion makes the inner
// pair a scanomap, flattening one segscan; Futhark: SegScan 1 If 0. As in Futhark, one inner scan makes neither an
// outer-parallel version (worthSequentialising: score 1) nor an intra-group one (worthIntrablock: score 1).
// CHECK-LABEL: func.func @fl19
// CHECK-NOT:     soac.threshold
// CHECK:         soac.segscan thread (%n, %m)
// CHECK-NOT:     soac.segscan
// CHECK-NOT:     scf.if
// CHECK:         func.return
func.func @fl19(%n: index, %m: index, %xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>) {
    %a = soac.index %xs[%c0] : tensor<?xi32> -> i32
    %ys = soac.map %m (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.addi %x, %a : i32
      soac.yield %y : i32
    }
    %zs = soac.scan %m (%ys : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
      %s = arith.addi %p, %q : i32
      soac.yield %s : i32
    }
    soac.yield %zs : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}

// -----

// FL-25 (segreduce0.fut): map (\xs -> map i32.sum xs) xss; Futhark with only_intra: SegMap/SegRed 1 SegMap 1
// SegRed 1. Without the attribute Futhark's heuristics make no intra-group version (worthIntrablock: score 1)
// and no versions of the outer map (worthSequentialising: score 1); the inner map, a map of one reduction, gets
// the outer-parallel version over (n, m) and the segred over (n, m, k). So do we.
// CHECK-LABEL: func.func @fl25
// CHECK-NOT:     soac.segmap group
// CHECK:         soac.threshold "suff_outer_par_0" %par
// CHECK:         soac.segmap thread (%n, %m)
// CHECK:           soac.reduce %k
// CHECK:         soac.segred thread (%n, %m, %k)
// CHECK-NOT:     soac.threshold
// CHECK:         func.return
func.func @fl25(%n: index, %m: index, %k: index, %xsss: tensor<?x?x?xi32>) -> tensor<?x?xi32> {
  %zero = arith.constant 0 : i32
  %r = soac.map %n (%xsss : tensor<?x?x?xi32>) -> tensor<?x?xi32> lambda(%xss: tensor<?x?xi32>) {
    %sums = soac.map %m (%xss : tensor<?x?xi32>) -> tensor<?xi32> lambda(%xs: tensor<?xi32>) {
      %s = soac.reduce %k (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
        %c = arith.addi %a, %b : i32
        soac.yield %c : i32
      }
      soac.yield %s : i32
    }
    soac.yield %sums : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
