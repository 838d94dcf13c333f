// RUN: soac-opt %s -p soac-coalesce --split-input-file | filecheck %s

// Batched products after soac-flatten: the thread-level version reads the columns of %b through its transpose,
// a whole row apart between neighbouring work-items (%k). It reads %b itself instead (%k last: coalesced), with
// the column's length still checked; the device-level version keeps the transposed copy (its work-items vary %l,
// the transpose's last index), which moves into its branch.
// CHECK-LABEL: func.func @batched
// CHECK:         scf.if %big
// CHECK-NEXT:      soac.segmap thread (%q, %n, %m)
// CHECK:             %row = soac.index %a[%i, %j]
// CHECK:             soac.assert %{{.*}}, "'soac.redomap': width {0} does not match the outer size {1} of input #1"
// CHECK:             %[[LS:.*]] = soac.iota %p : tensor<?xindex>
// CHECK:             soac.redomap %p (%row, %[[LS]] : tensor<?xf32>, tensor<?xindex>)
// CHECK:             } lambda(%x: f32, %[[L:.*]]: index) {
// CHECK-NEXT:          %{{.*}} = soac.index %b[%i, %[[L]], %k]
// CHECK:         } else {
// CHECK-NEXT:      %bt = soac.transpose %b [0, 2, 1]
// CHECK:           soac.segred thread (%q, %n, %m, %p)
// CHECK:             soac.index %bt[%i2, %k2, %l2]
func.func @batched(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %big: i1) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %q = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %p = tensor.dim %a, %c2 : tensor<?x?x?xf32>
  %m = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant 0.0 : f32
  %bt = soac.transpose %b [0, 2, 1] : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %r = scf.if %big -> (tensor<?x?x?xf32>) {
    %s = soac.segmap thread (%q, %n, %m) -> tensor<?x?x?xf32> lambda(%i: index, %j: index, %k: index) {
      %row = soac.index %a[%i, %j] : tensor<?x?x?xf32> -> tensor<?xf32>
      %col = soac.index %bt[%i, %k] : tensor<?x?x?xf32> -> tensor<?xf32>
      %d = soac.redomap %p (%row, %col : tensor<?xf32>, tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%u: f32, %v: f32) {
        %w = arith.addf %u, %v : f32
        soac.yield %w : f32
      } lambda(%x: f32, %y: f32) {
        %xy = arith.mulf %x, %y : f32
        soac.yield %xy : f32
      }
      soac.yield %d : f32
    }
    scf.yield %s : tensor<?x?x?xf32>
  } else {
    %s2 = soac.segred thread (%q, %n, %m, %p) neutral(%zero : f32) -> tensor<?x?x?xf32> combine(%u2: f32, %v2: f32) {
      %w2 = arith.addf %u2, %v2 : f32
      soac.yield %w2 : f32
    } lambda(%i2: index, %j2: index, %k2: index, %l2: index) {
      %x2 = soac.index %a[%i2, %j2, %l2] : tensor<?x?x?xf32> -> f32
      %y2 = soac.index %bt[%i2, %k2, %l2] : tensor<?x?x?xf32> -> f32
      %xy2 = arith.mulf %x2, %y2 : f32
      soac.yield %xy2 : f32
    }
    scf.yield %s2 : tensor<?x?x?xf32>
  }
  func.return %r : tensor<?x?x?xf32>
}

// -----

// An element read of a transpose whose source's last index is the segmap's last (%j) reads the source; one whose
// source's last index is another (%i: there the transposed copy is the coalesced one) stays.
// CHECK-LABEL: func.func @elements
// CHECK:         %t = soac.transpose %m [1, 0]
// CHECK:         soac.segmap thread (%rows, %cols)
// CHECK-NEXT:      %x = soac.index %t[%i, %j]
// CHECK-NEXT:      %y = soac.index %m[%i, %j]
func.func @elements(%m: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cols = tensor.dim %m, %c0 : tensor<?x?xf32>
  %rows = tensor.dim %m, %c1 : tensor<?x?xf32>
  %t = soac.transpose %m [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %r = soac.segmap thread (%rows, %cols) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
    %x = soac.index %t[%i, %j] : tensor<?x?xf32> -> f32
    %y = soac.index %t[%j, %i] : tensor<?x?xf32> -> f32
    %s = arith.addf %x, %y : f32
    soac.yield %s : f32
  }
  func.return %r : tensor<?x?xf32>
}
