// RUN: soac-opt %s -p soac-fuse | filecheck %s

// A map computing the bins and rows of a hist of rows fuses into its lambda, as into a 1-D hist.
// CHECK-LABEL: func.func @map_into_rows
// CHECK-NOT:     soac.map %n
// CHECK:         %r = soac.hist %n (%cs, %ps : tensor<?xi32>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%zeros : tensor<?xf32>)
// CHECK:         } lambda(%c: i32, %p: tensor<?xf32>) {
// CHECK-NEXT:      %one = arith.constant 1 : i32
// CHECK-NEXT:      %cm = arith.subi %c, %one : i32
// CHECK:           soac.yield %{{.*}}, %q : index, tensor<?xf32>
func.func @map_into_rows(%cs: tensor<?xi32>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %cs, %c0 : tensor<?xi32>
  %d = tensor.dim %dest, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %zeros = soac.replicate %d, %z : f32 -> tensor<?xf32>
  %bins, %rows = soac.map %n (%cs, %ps : tensor<?xi32>, tensor<?x?xf32>) -> (tensor<?xindex>, tensor<?x?xf32>) lambda(%c: i32, %p: tensor<?xf32>) {
    %one = arith.constant 1 : i32
    %cm = arith.subi %c, %one : i32
    %b = arith.index_cast %cm : i32 to index
    %two = arith.constant 2.0 : f32
    %q = soac.map %d (%p : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.mulf %x, %two : f32
      soac.yield %y : f32
    }
    soac.yield %b, %q : index, tensor<?xf32>
  }
  %r = soac.hist %n (%bins, %rows : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%zeros : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %b: tensor<?xf32>) {
    %s = soac.map %d (%a, %b : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
      %t = arith.addf %x, %y : f32
      soac.yield %t : f32
    }
    soac.yield %s : tensor<?xf32>
  } lambda(%c: index, %p: tensor<?xf32>) {
    soac.yield %c, %p : index, tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// A hist of rows and a 1-D hist of the same bins (k-means' sums and counts) stay apart: soac-hist-rows lowers one
// element-wise operator over rows, alone.
// CHECK-LABEL: func.func @sums_and_counts
// CHECK:         %sums = soac.hist %n (%cs, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>)
// CHECK:         %counts = soac.hist %n (%cs : tensor<?xindex>) into(%zero_counts : tensor<?xi32>)
func.func @sums_and_counts(%cs: tensor<?xindex>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %cs, %c0 : tensor<?xindex>
  %k = tensor.dim %dest, %c0 : tensor<?x?xf32>
  %d = tensor.dim %dest, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %zeros = soac.replicate %d, %z : f32 -> tensor<?xf32>
  %sums = soac.hist %n (%cs, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%zeros : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %b: tensor<?xf32>) {
    %s = soac.map %d (%a, %b : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
      %t = arith.addf %x, %y : f32
      soac.yield %t : f32
    }
    soac.yield %s : tensor<?xf32>
  } lambda(%c: index, %p: tensor<?xf32>) {
    soac.yield %c, %p : index, tensor<?xf32>
  }
  %zi = arith.constant 0 : i32
  %zero_counts = soac.replicate %k, %zi : i32 -> tensor<?xi32>
  %counts = soac.hist %n (%cs : tensor<?xindex>) into(%zero_counts : tensor<?xi32>) neutral(%zi : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%c: index) {
    %one = arith.constant 1 : i32
    soac.yield %c, %one : index, i32
  }
  func.return %sums, %counts : tensor<?x?xf32>, tensor<?xi32>
}
