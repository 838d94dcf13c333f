// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia tile-index=i64}' | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia tile-index=i64}' -t opencl | filecheck %s --check-prefix=OPENCL

// (`tile-index=i64`: the 64-bit kernel alone; tiled-variants.mlir shows the 32-bit version the nvidia target adds.)

// The tiled kernel of a tiled_redomap: seed 004's block tiling as kernel ops. A work-group per 8x8 block of the
// result (group_id -> base0, base1: the strip-mined outer segmap), each of its 4 work-items a 4x4 register block
// (first0, first1); the reduction in chunks of 4 (the strip-mined redomap, interchanged outside the work-items):
// each chunk of a's and bt's rows is loaded one chunk ahead (4-wide vector loads where k is a multiple of 4),
// stored by the whole group into local tiles between barriers, and folded from there with vector loads of the
// tiles (4 rows of a, 4 columns of b per step) and fused multiply-adds; the last, partial chunk after the loop.

func.func @main(%a: tensor<?x?xf32>, %bt: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %m = tensor.dim %bt, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [8, 8] reg [4, 4] chunk 4 reads(%a[d0, k], %bt[d1, k] : tensor<?x?xf32>, tensor<?x?xf32>) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
    %u = arith.addf %s, %t : f32
    soac.yield %u : f32
  } lambda(%x: f32, %y: f32) {
    %p = arith.mulf %x, %y : f32
    soac.yield %p : f32
  }
  func.return %c : tensor<?x?xf32>
}

// CHECK:       kernel.launch @main_tiled_0({{.*}}) global %global_size local %{{.*}}
// CHECK:       kernel.func @main_tiled_0(
// CHECK:         %a_tile = kernel.local_alloc 32 : !kernel.buffer<local, f32>
// CHECK-NEXT:    %bt_tile = kernel.local_alloc 32 : !kernel.buffer<local, f32>
// CHECK-NEXT:    %group = kernel.group_id 0
// CHECK:         %tid = kernel.local_id 0
// CHECK:         %base0 = arith.muli %g0, %{{.*}} : index
// CHECK-NEXT:    %base1 = arith.muli %g1, %{{.*}} : index
// CHECK-NEXT:    %first0 = arith.muli %t0, %{{.*}} : index
// CHECK-NEXT:    %first1 = arith.muli %t1, %{{.*}} : index
// CHECK:         %ahead, %ahead_1, %ahead_2, %ahead_3 = scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK-NEXT:      %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = kernel.vector_load %a[%{{.*}}] width 4 align 16 : !kernel.buffer<global, f32>
// CHECK:         scf.for %c0 = %{{.*}} to %full step %{{.*}} iter_args(
// CHECK-NEXT:      kernel.barrier local
// CHECK:           kernel.store %ahead_it, %a_tile[%{{.*}}] : f32, !kernel.buffer<local, f32>
// CHECK:           kernel.store %{{.*}}, %bt_tile[%{{.*}}] : f32, !kernel.buffer<local, f32>
// CHECK:           kernel.barrier local
// CHECK:           kernel.vector_load %a[%{{.*}}] width 4 align 16 : !kernel.buffer<global, f32>
// CHECK:           scf.for %kk{{(_[0-9]+)?}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK:             %x, %x_1, %x_2, %x_3 = kernel.vector_load %a_tile[%{{.*}}] width 4 align 16 : !kernel.buffer<local, f32>
// CHECK:             %y, %y_1, %y_2, %y_3 = kernel.vector_load %bt_tile[%{{.*}}] width 4 align 16 : !kernel.buffer<local, f32>
// CHECK:             %u = math.fma %x, %y, %{{.*}} : f32
// CHECK-NEXT:        %u_1 = math.fma %x, %y_1, %{{.*}} : f32
// CHECK:             %u_15 = math.fma %x_3, %y_3, %{{.*}} : f32
// CHECK:         %tail = arith.subi %{{.*}}, %full : index
// CHECK:         scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK:           scf.for %kk{{.*}} = %{{.*}} to %tail step
// CHECK:         kernel.store %{{.*}}, %c[%{{.*}}] : f32, !kernel.buffer<global, f32>

// OPENCL:      __kernel void main_tiled_0(
// OPENCL:        __local float a_tile[32]
// OPENCL:        barrier(CLK_LOCAL_MEM_FENCE);
// OPENCL:        *(const __local float4*)(a_tile +
// OPENCL:        fma(x, y,
