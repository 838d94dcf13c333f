// RUN: soac-opt %s -p soac-to-kernel -t opencl | filecheck %s

// soac.seghist: with an atomic operator, a grid-stride loop over every point of the index space, each applying its
// value to bin (segment, bin) with one global atomic when the bin is inside the row (compared unsigned).

// CHECK-LABEL: __kernel void counts_seghist_atomic_0(
// CHECK:         for (long p = gid; p < points; p += gsize) {
// CHECK:           const bool in_bounds_2 = (ulong)v_4 < (ulong)d_d1;
// CHECK-NEXT:      if (in_bounds_2) {
// CHECK-NEXT:        const long v_5 = i * d_d1;
// CHECK-NEXT:        const long bin = v_5 + v_4;
// CHECK-NEXT:        const int v_6 = atomic_add(&h[bin], 1);
func.func @counts(%n: index, %m: index, %iss: tensor<?x?xi32>, %d: tensor<?x8xi32>) -> tensor<?x8xi32> {
  %z = arith.constant 0 : i32
  %h = soac.seghist thread (%n, %m) into(%d : tensor<?x8xi32>) neutral(%z : i32) -> tensor<?x8xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %iss[%i, %j] : tensor<?x?xi32> -> i32
    %one = arith.constant 1 : i32
    soac.yield %x, %one : i32, i32
  }
  func.return %h : tensor<?x8xi32>
}

// Without an atomic, a work-item per segment folds its rows into its own bins with loads and stores.
// CHECK-LABEL: __kernel void spread_seghist_segment_0(
// CHECK:         for (long s = gid; s < n; s += gsize) {
// CHECK-NEXT:      const long first_bin = s * d_d1;
// CHECK-NEXT:      for (long j = 0L; j < m; j++) {
// CHECK:             if (in_bounds_2) {
// CHECK-NEXT:          const long bin = first_bin + v_4;
// CHECK-NEXT:          const int a = h[bin];
// CHECK:               h[bin] = s_1;
// CHECK-NOT:     atomic_add
func.func @spread(%n: index, %m: index, %iss: tensor<?x?xi32>, %d: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %z = arith.constant 0 : i32
  %h = soac.seghist thread (%n, %m) into(%d : tensor<?x?xi32>) neutral(%z : i32) -> tensor<?x?xi32> combine(%a: i32, %b: i32) {
    %x = math.absi %a : i32
    %y = math.absi %b : i32
    %s = arith.addi %x, %y : i32
    soac.yield %s : i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %iss[%i, %j] : tensor<?x?xi32> -> i32
    soac.yield %x, %x : i32, i32
  }
  func.return %h : tensor<?x?xi32>
}
