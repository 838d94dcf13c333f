// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' -t opencl | filecheck %s --check-prefix=OPENCL
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia tile-index=i64}' | filecheck %s --check-prefix=WIDE
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia tile-index=i64 tile-warps=4x8}' | filecheck %s --check-prefix=WARPS
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia tile-index=i64 tile-buffers=2}' | filecheck %s --check-prefix=BUFFERS
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia tile-index=i64 tile-unroll=on}' -t opencl | filecheck %s --check-prefix=UNROLL
// RUN: soac-opt %s -p 'soac-to-kernel{target=generic tile-index=i64}' -t opencl | filecheck %s --check-prefix=TAIL
// RUN: soac-opt %s -p 'soac-to-kernel{target=generic tile-index=i64 tile-tail-branch=false}' -t opencl | filecheck %s --check-prefix=NOBRANCH

// The tiled kernel's variants (bench/tiling.py --gemm times them). On the nvidia target (`tile-index=auto`) the
// tiled kernel and the tiled transpose each get a 32-bit version (`index_bitwidth 32`: `int` indices in OpenCL C),
// launched where every index fits below 2^31, and a 64-bit one launched otherwise; `tile-index=i64` keeps the
// 64-bit kernels alone. `tile-warps=4x8` places the 8 x 8 work-items of a group warp by warp, each warp 4 x 8 of
// them. `tile-buffers=2` alternates two tiles per read: the chunk ahead is loaded, the chunk before folded from
// one tile, the loaded one stored into the other, then a single barrier. `tile-unroll` unrolls the fold of a full
// chunk (`#pragma unroll` right before its loop, after the accumulators it carries), not of the last one.
// The last, partial chunk runs in a branch taken where it is not empty; with `tile-tail-branch=false` (the
// runtime's choice on PoCL, which miscompiles a guarded store after a branch with barriers) every group runs it.

// TAIL:          const long tail = a_d1 - full;
// TAIL-NEXT:     const bool [[NONEMPTY:v_[0-9]+]] = (ulong)tail > (ulong)0L;
// TAIL:          if ([[NONEMPTY]]) {
// TAIL-NEXT:       barrier(CLK_LOCAL_MEM_FENCE);

// NOBRANCH:      const long tail = a_d1 - full;
// NOBRANCH-NEXT: barrier(CLK_LOCAL_MEM_FENCE);
// NOBRANCH:      barrier(CLK_LOCAL_MEM_FENCE);
// NOBRANCH:      for (long kk_{{[0-9]+}} = 0L; kk_{{[0-9]+}} < tail; kk_{{[0-9]+}}++) {

// UNROLL:      __kernel void main_tiled_0(
// UNROLL:          float zero_it_15 = zero_15;
// UNROLL-NEXT:     #pragma unroll
// UNROLL-NEXT:     for (long kk_{{[0-9]+}} = 0L; kk_{{[0-9]+}} < 4L; kk_{{[0-9]+}}++) {
// UNROLL-NOT:    #pragma unroll
// UNROLL:        for (long kk_{{[0-9]+}} = 0L; kk_{{[0-9]+}} < tail; kk_{{[0-9]+}}++) {

func.func @main(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %m = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %bt = soac.transpose %b [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [32, 32] reg [4, 4] chunk 4 reads(%a[d0, k], %bt[d1, k] : tensor<?x?xf32>, tensor<?x?xf32>) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
    %u = arith.addf %s, %t : f32
    soac.yield %u : f32
  } lambda(%x: f32, %y: f32) {
    %p = arith.mulf %x, %y : f32
    soac.yield %p : f32
  }
  func.return %c : tensor<?x?xf32>
}

// CHECK:      %narrow = arith.andi
// CHECK-NEXT: %narrow_size = arith.select %narrow, %global_size, %{{.*}} : index
// CHECK-NEXT: %wide_size = arith.select %narrow, %{{.*}}, %global_size : index
// CHECK-NEXT: kernel.launch @main_transpose_tiled_0({{.*}}) global %narrow_size
// CHECK-NEXT: kernel.launch @main_transpose_tiled_1({{.*}}) global %wide_size
// CHECK:      %narrow_1 = arith.andi
// CHECK-NEXT: %narrow_size_1 = arith.select %narrow_1, %global_size_1, %{{.*}} : index
// CHECK-NEXT: %wide_size_1 = arith.select %narrow_1, %{{.*}}, %global_size_1 : index
// CHECK-NEXT: kernel.launch @main_tiled_0({{.*}}) global %narrow_size_1
// CHECK-NEXT: kernel.launch @main_tiled_1({{.*}}) global %wide_size_1
// CHECK:      kernel.func @main_transpose_tiled_0({{.*}}) index_bitwidth 32 {
// CHECK:      kernel.func @main_transpose_tiled_1({{.*}}) {
// CHECK:      kernel.func @main_tiled_0({{.*}}) index_bitwidth 32 {
// CHECK:      kernel.func @main_tiled_1({{.*}}) {

// OPENCL:     __kernel void main_transpose_tiled_0(__global float *restrict b, const int b_d0, const int b_d1,
// OPENCL:     __kernel void main_transpose_tiled_1(__global float *restrict b, const long b_d0, const long b_d1,
// OPENCL:     __kernel void main_tiled_0(const int a_d0, const int b_d1, const int a_d1,
// OPENCL:       const int tid = (int)get_local_id(0);
// OPENCL:       for (int c0 = 0; c0 < full; c0 += 4) {
// OPENCL:         for (int kk_{{[0-9]+}} = 0; kk_{{[0-9]+}} < 4; kk_{{[0-9]+}}++) {
// OPENCL:           const int v_{{[0-9]+}} = kk_{{[0-9]+}} * 36;
// OPENCL:     __kernel void main_tiled_1(const long a_d0, const long b_d1, const long a_d1,

// WIDE-NOT:   index_bitwidth
// WIDE-NOT:   %narrow
// WIDE:       kernel.launch @main_transpose_tiled_0({{.*}}) global %global_size
// WIDE:       kernel.launch @main_tiled_0({{.*}}) global %global_size_1
// WIDE-NOT:   kernel.launch
// WIDE-NOT:   index_bitwidth

// WARPS:      kernel.func @main_tiled_0(
// WARPS:        %tid = kernel.local_id 0
// WARPS-NEXT:   %warp = arith.divui %tid, %{{.*}} : index
// WARPS-NEXT:   %lane = arith.remui %tid, %{{.*}} : index
// WARPS:        %lr = arith.divui %lane, %{{.*}} : index
// WARPS-NEXT:   %lc = arith.remui %lane, %{{.*}} : index
// WARPS:        %t0 = arith.addi %{{.*}}, %lr : index
// WARPS:        %t1 = arith.addi %{{.*}}, %lc : index

// BUFFERS:      kernel.func @main_tiled_0(
// BUFFERS:        %a_tile = kernel.local_alloc 288 : !kernel.buffer<local, f32>
// BUFFERS-NEXT:   %bt_tile = kernel.local_alloc 288 : !kernel.buffer<local, f32>
// BUFFERS-NOT:    kernel.barrier
// BUFFERS:        kernel.store %ahead, %a_tile
// BUFFERS:        kernel.barrier local
// BUFFERS-NEXT:   {{.*}}, %front = scf.for %c0 = {{.*}} -> ({{.*}}, f32, index) {
// BUFFERS-NOT:      kernel.barrier
// BUFFERS:          scf.for %kk
// BUFFERS-NOT:      kernel.barrier
// BUFFERS:          %back = arith.subi %{{.*}}, %{{.*}} : index
// BUFFERS-NOT:      kernel.barrier
// BUFFERS:          kernel.store %ahead_{{[0-9]+}}, %bt_tile
// BUFFERS:          kernel.barrier local
// BUFFERS-NEXT:     scf.yield {{.*}}, %back : {{.*}}
// BUFFERS-NOT:    kernel.barrier
// BUFFERS:        %tail = arith.subi
