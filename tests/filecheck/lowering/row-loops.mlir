// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' -t opencl | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia row-unroll=8}' -t opencl | filecheck %s --check-prefix=UNROLL

// The first kernel of soac-coalesce's rows rule: work-item %i walks a transposed copy's column through a map over an
// iota of the row's length. The element of that iota lies below the length (the reduce reads no further), so the
// read of %x_t (whose rows are that long) needs no check: the loop is a plain load and add. With `row-unroll=8` the
// loop carries `#pragma unroll 8`, right before the `for` (after its accumulator's declaration).
// CHECK-LABEL: __kernel void rows_segmap_0(
// CHECK-NOT:     errors
// CHECK:         for (long i = 0L; i < w; i++) {
// CHECK-NEXT:      const long [[A:.*]] = i * x_t_d1;
// CHECK-NEXT:      const long [[B:.*]] = [[A]] + p;
// CHECK-NEXT:      const float [[E:.*]] = x_t[[[B]]];
// CHECK-NOT:     pragma
// CHECK:       }
// UNROLL-LABEL: __kernel void rows_segmap_0(
// UNROLL:         float [[ACC:.*]] = 0.0f;
// UNROLL-NEXT:    #pragma unroll 8
// UNROLL-NEXT:    for (long i = 0L; i < w; i++) {
func.func @rows(%x_t: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = tensor.dim %x_t, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x_t, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %s = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
    %ls = soac.iota %w : tensor<?xindex>
    %row = soac.map %w (%ls : tensor<?xindex>) -> tensor<?xf32> lambda(%l: index) {
      %e = soac.index %x_t[%l, %i] : tensor<?x?xf32> -> f32
      soac.yield %e : f32
    }
    %t = soac.reduce %w (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %u = arith.addf %a, %b : f32
      soac.yield %u : f32
    }
    soac.yield %t : f32
  }
  func.return %s : tensor<?xf32>
}
