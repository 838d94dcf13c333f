// RUN: soac-opt %s -p 'soac-to-kernel{group-size=64 max-groups=16}' | filecheck %s

// A map: a size check, one output buffer, a grid-stride kernel with the lambda inlined.

// CHECK:      func.func @scale(%n: index, %xs: !kernel.buffer<global, f32>, %xs_d0: index, %k: f32) -> (!kernel.buffer<global, f32>, index) attributes {soac.source_type = (index, tensor<?xf32>, f32) -> tensor<?xf32>} {
// CHECK:        kernel.check_eq %n, %xs_d0 "{{.*}}soac-to-kernel.mlir:{{[0-9]+}}:3: 'soac.map': width {0} does not match the outer size {1} of input #0"
// CHECK-NEXT:   %ys = kernel.alloc %n : !kernel.buffer<global, f32>
// CHECK:        %num_groups = arith.minui
// CHECK-NEXT:   %global_size = arith.muli %num_groups, %{{.*}} : index
// CHECK-NEXT:   kernel.launch @scale_map_0(%xs, %xs_d0, %ys, %n, %k : !kernel.buffer<global, f32>, index, !kernel.buffer<global, f32>, index, f32) global %global_size local %{{.*}}
// CHECK-NEXT:   func.return %ys, %n : !kernel.buffer<global, f32>, index
// CHECK-NEXT: }
// CHECK-NEXT: kernel.func @scale_map_0(%xs: !kernel.buffer<global, f32>, %xs_d0: index, %ys: !kernel.buffer<global, f32>, %n: index, %k: f32) {
// CHECK-NEXT:   %gid = kernel.global_id 0
// CHECK-NEXT:   %gsize = kernel.global_size 0
// CHECK-NEXT:   scf.for %i = %gid to %n step %gsize {
// CHECK-NEXT:     %x = kernel.load %xs[%i] : !kernel.buffer<global, f32> -> f32
// CHECK-NEXT:     %y = arith.mulf %x, %k : f32
// CHECK-NEXT:     kernel.store %y, %ys[%i] : f32, !kernel.buffer<global, f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   kernel.return
// CHECK-NEXT: }

func.func @scale(%n: index, %xs: tensor<?xf32>, %k: f32) -> tensor<?xf32> {
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %k : f32
    soac.yield %y : f32
  }
  func.return %ys : tensor<?xf32>
}

// A commutative reduce: two stages (per-group partials, then one group), the host reads the result.

// CHECK:      func.func @total(%n: index, %xs: !kernel.buffer<global, i32>, %xs_d0: index) -> i32
// CHECK:        %z_partials = kernel.alloc %num_groups : !kernel.buffer<global, i32>
// CHECK:        kernel.launch @total_reduce_0(
// CHECK:        %z_result = kernel.alloc %{{.*}} : !kernel.buffer<global, i32>
// CHECK-NEXT:   kernel.launch @total_reduce_partials_0(%num_groups, %z_partials, %z_result : index, !kernel.buffer<global, i32>, !kernel.buffer<global, i32>)
// CHECK-NEXT:   %s = kernel.read %z_result[%{{.*}}] : !kernel.buffer<global, i32> -> i32
// CHECK-NEXT:   func.return %s : i32
// CHECK:      kernel.func @total_reduce_0(
// CHECK:        %local = kernel.local_alloc 64 : !kernel.buffer<local, i32>
// CHECK:        scf.for %{{.*}} = %gid to %{{.*}} step %gsize iter_args(%z_it = %z
// CHECK:          arith.addi %z_it, %{{.*}} : i32
// CHECK:        kernel.store %{{.*}}, %local[%tid] : i32, !kernel.buffer<local, i32>
// CHECK-NEXT:   kernel.barrier local
// CHECK:        scf.for %e =
// CHECK:          kernel.barrier local
// CHECK:      kernel.func @total_reduce_partials_0(

func.func @total(%n: index, %xs: tensor<?xi32>) -> i32 {
  %z = arith.constant 0 : i32
  %s = soac.reduce commutative %n (%xs : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  func.return %s : i32
}

// A scan: reduce-then-scan in three kernels.

// CHECK:      func.func @prefix(
// CHECK:        kernel.launch @prefix_scan_reduce_0(
// CHECK:        kernel.launch @prefix_scan_carries_0(
// CHECK:        kernel.launch @prefix_scan_final_0(

func.func @prefix(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %z = arith.constant 0 : i32
  %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  func.return %s : tensor<?xi32>
}
