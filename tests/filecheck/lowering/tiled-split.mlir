// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s

// A 1-D tiled_redomap with a 2-tuple accumulator (sum and maximum): its reduction is split into slices of whole
// chunks, so that the launch has enough work-items (nbody's bodies are far fewer than a GPU's threads). The host
// chooses the slices from the sizes; work-group `group` folds slice `group / body_groups` of the block
// `group % body_groups` into the partial results, and a second kernel combines each result's slices in order.

func.func @main(%xs: tensor<?xf32>, %ms: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %sum, %top = soac.tiled_redomap (%n) reduce %n tile "tile_0" block [8] reg [2] chunk 4 reads(%xs[k], %xs[d0], %ms[k] : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) neutral(%zero, %zero : f32, f32) -> (tensor<?xf32>, tensor<?xf32>) combine(%a0: f32, %a1: f32, %b0: f32, %b1: f32) {
    %c = arith.addf %a0, %b0 : f32
    %d = arith.maximumf %a1, %b1 : f32
    soac.yield %c, %d : f32, f32
  } lambda(%xj: f32, %xi: f32, %mj: f32) {
    %e = arith.subf %xj, %xi : f32
    %f = arith.mulf %e, %mj : f32
    soac.yield %f, %e : f32, f32
  }
  func.return %sum, %top : tensor<?xf32>, tensor<?xf32>
}

// CHECK:       %wanted_slices = arith.divui
// CHECK:       %slice_length = arith.maxui
// CHECK:       %slices = arith.maxui
// CHECK:       %num_groups = arith.maxui
// CHECK:       %partial = kernel.alloc
// CHECK:       %partial_1 = kernel.alloc
// CHECK:       kernel.launch @main_tiled_0({{.*}}%body_groups, %slice_length, %partial, %slices, %partial_1 :
// CHECK:       kernel.launch @main_tiled_slices_0(%partial, %slices, %xs_d0, %partial_1, %sum, %top :
// CHECK:     kernel.func @main_tiled_0(
// CHECK:       %group = kernel.group_id 0
// CHECK:       %slice = arith.divui %group, %body_groups : index
// CHECK-NEXT:  %lo = arith.muli %slice, %slice_length : index
// CHECK-NEXT:  %{{.*}} = arith.addi %lo, %slice_length : index
// CHECK-NEXT:  %hi = arith.minui %{{.*}}, %xs_d0 : index
// CHECK:       %full = arith.addi %lo,
// CHECK:       scf.for %c0 = %lo to %full step
// CHECK:       %tail = arith.subi %hi, %full : index
// CHECK:       kernel.store %{{.*}}, %partial[%{{.*}}] : f32, !kernel.buffer<global, f32>
// CHECK-NEXT:  kernel.store %{{.*}}, %partial_1[%{{.*}}] : f32, !kernel.buffer<global, f32>
// CHECK:     kernel.func @main_tiled_slices_0(
// CHECK:       scf.for %p = %gid to %xs_d0 step %gsize {
// CHECK-NEXT:    %zero_1, %zero_2 = scf.for %slice = %{{.*}} to %slices step %{{.*}} iter_args(%zero_it = %zero, %zero_it_1 = %zero) -> (f32, f32) {
// CHECK:           %b0 = kernel.load %partial[%{{.*}}]
// CHECK-NEXT:      %b1 = kernel.load %partial_1[%{{.*}}]
// CHECK-NEXT:      %c = arith.addf %zero_it, %b0 : f32
// CHECK-NEXT:      %d = arith.maximumf %zero_it_1, %b1 : f32
// CHECK:         kernel.store %zero_1, %sum[%p]
// CHECK-NEXT:    kernel.store %zero_2, %top[%p]
