// RUN: soac-opt %s -p 'soac-fuse,soac-flatten' --split-input-file | filecheck %s

// Translations of futhark-cases.md flattening cases whose structure depends on fusion or on versions.

// FL-19 (uniform_scan.fut): map (\xs -> let a = xs[0] in scan (+) 0 (map (+ a) xs)): fusion makes the inner
// pair a scanomap, flattening one segscan; Futhark: SegScan 1 If 0. We also emit the outer-parallel and
// intra-group versions (Futhark's heuristics skip them for a single inner scan), so: one segscan in the
// flattened version, one thread-level segscan in the intra-group version, no other segmented scan.
// CHECK-LABEL: func.func @fl19
// CHECK:         soac.threshold "suff_outer_par_0"
// CHECK:         soac.segmap thread (%n)
// CHECK:           soac.scanomap
// CHECK:         soac.threshold "suff_intra_par_1"
// CHECK:         soac.segmap group (%n)
// CHECK:           soac.segscan thread (%m)
// CHECK:         soac.segscan thread (%n, %m)
// CHECK-NOT:     soac.segscan
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

// FL-25 (segreduce0.fut): map (\xs -> map i32.sum xs) xss; Futhark (only_intra): SegMap/SegRed 1 SegMap 1
// SegRed 1. Our intra-group version is the same: a group-level segmap whose body is one thread-level segred
// over the inner map nest (m, k). The fully flattened version is a segred over (n, m, k).
// CHECK-LABEL: func.func @fl25
// CHECK:         soac.segmap group (%n) -> tensor<?x?xi32> lambda(%i{{.*}}: index) {
// CHECK:           soac.segred thread (%m, %k)
// CHECK:         soac.segred thread (%n, %m, %k)
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
