// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia small-tile-rows=2 small-tile-cols=2}' -t opencl | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' -t opencl | filecheck %s --check-prefix=DEFAULT
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' -t opencl | filecheck %s --check-prefix=NARROW
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s --check-prefix=HOST
// RUN: soac-opt %s -p 'soac-to-kernel{target=generic}' | filecheck %s --check-prefix=GENERIC
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia small-fma=true}' -t opencl | filecheck %s --check-prefix=FMA
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia small-tile-rows=4 small-tile-cols=1 small-batches=2}' -t opencl | filecheck %s --check-prefix=ROWS

// soac-small-intra's staged batch of products (a[q] n x k times b[q] k x m): each work-item computes a block of
// results in registers (here 2 x 2, rows and columns tile_rows and tile_cols apart), reading a row of
// a_block and a column of b_block once per step into registers; the reads with the step's index are checked once,
// before the loop (b_block's k against the width: the loop's bound), none inside it; results past the edge are not
// written. Several batches per group: as many as 256 work-items cover and 1024 elements of each staged array hold.

func.func @products(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %q = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %k = tensor.dim %a, %c2 : tensor<?x?x?xf32>
  %m = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %c = soac.segmap group (%q) -> tensor<?x?x?xf32> lambda(%p: index) {
    %a_block = soac.index %a[%p] {staged} : tensor<?x?x?xf32> -> tensor<?x?xf32>
    %b_block = soac.index %b[%p] {staged} : tensor<?x?x?xf32> -> tensor<?x?xf32>
    %r = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
      %ks = soac.iota %k : tensor<?xi64>
      %s = soac.redomap commutative %k (%ks : tensor<?xi64>) neutral(%zero : f32) -> f32 combine(%x: f32, %y: f32) {
        %t = arith.addf %x, %y : f32
        soac.yield %t : f32
      } lambda(%l: i64) {
        %lx = arith.index_cast %l : i64 to index
        %u = soac.index %a_block[%i, %lx] : tensor<?x?xf32> -> f32
        %v = soac.index %b_block[%lx, %j] : tensor<?x?xf32> -> f32
        %w = arith.mulf %u, %v : f32
        soac.yield %w : f32
      }
      soac.yield %s : f32
    }
    soac.yield %r : tensor<?x?xf32>
  }
  func.return %c : tensor<?x?x?xf32>
}

// CHECK-LABEL: __kernel void products_segmap_group_0(
// CHECK-DAG:     __local float b_block_local[1024];
// CHECK-DAG:     __local float a_block_local[1024];
// CHECK:         const long tile_rows = (long)((ulong)v_1 / (ulong)2L);
// CHECK:         const long tile_cols = (long)((ulong)v_3 / (ulong)2L);
// CHECK-NEXT:    const long items = tile_rows * tile_cols;
// CHECK:         const long per = (long)((ulong)256L / (ulong)v_4);
// CHECK:         for (long first = {{.*}}; first < a_d0; first += {{.*}}) {
// CHECK:           barrier(CLK_LOCAL_MEM_FENCE);
// CHECK:           for (long p = tid; p < {{.*}}; p += 256L) {
// CHECK:             const bool inside = (ulong)[[ROW1:.*]] < (ulong)a_d1;
// CHECK:             const bool inside_1 = (ulong)[[COL1:.*]] < (ulong)b_d2;
// CHECK:             const bool in_bounds_1 = (ulong)a_d2 <= (ulong)b_d1;
// CHECK:             const long bound = (ulong)a_d2 < (ulong)b_d1 ? a_d2 : b_d1;
// CHECK-COUNT-4:     float zero{{.*}} = 0.0f;
// CHECK-NEXT:        for (long l = 0L; l < bound; l++) {
// CHECK-NOT:           atomic_cmpxchg
// CHECK-NOT:           if
// CHECK:               const float u = a_block_local[
// CHECK-NOT:           a_block_local
// CHECK:               const float [[B0:.*]] = b_block_local[
// CHECK:               const float w = u * [[B0]];
// CHECK-NOT:           a_block_local
// CHECK:               const float [[B1:.*]] = b_block_local[
// CHECK:               const float w_1 = u * [[B1]];
// CHECK:               const float u_1 = a_block_local[
// CHECK-NOT:           _local[
// CHECK:               const float w_2 = u_1 * [[B0]];
// CHECK-NOT:           _local[
// CHECK:               const float w_3 = u_1 * [[B1]];
// CHECK-NOT:           _local[
// CHECK:             }
// CHECK-NEXT:        const long {{.*}} = {{.*}} * b_d2;
// CHECK:             c[{{.*}}] = zero;
// CHECK:             if (inside_1) {
// CHECK-NEXT:          c[{{.*}}] = zero_1;
// CHECK:             if (inside) {
// CHECK-NEXT:          c[{{.*}}] = zero_2;
// CHECK:             if ({{.*}}) {
// CHECK-NEXT:          c[{{.*}}] = zero_3;

// A 4 x 1 block (rows tile_rows apart, every column a work-item of its own), 2 batches per group (local memory for
// two rows of 1024 elements each): four rows of a_block and one column of b_block read per step.

// ROWS-LABEL: __kernel void products_segmap_group_0(
// ROWS-DAG:     __local float b_block_local[2048];
// ROWS-DAG:     __local float a_block_local[2048];
// ROWS:         const long tile_rows = (long)((ulong)v_1 / (ulong)4L);
// ROWS-NEXT:    const long items = tile_rows * b_d2;
// ROWS:         const long {{.*}} = (ulong)2L < (ulong){{.*}} ? 2L : {{.*}};
// ROWS:         for (long l = 0L; l < bound; l++) {
// ROWS-COUNT-4:   = a_block_local[
// ROWS-NOT:       _local[
// ROWS:         }

// By default 4 x 1 blocks, as many batches as the group's 256 work-items cover.

// DEFAULT-LABEL: __kernel void products_segmap_group_0(
// DEFAULT-DAG:     __local float b_block_local[1024];
// DEFAULT:         const long tile_rows = (long)((ulong)v_1 / (ulong)4L);
// DEFAULT-NEXT:    const long items = tile_rows * b_d2;
// DEFAULT:         const long per = (long)((ulong)256L / (ulong){{.*}});
// DEFAULT:         for (long l = 0L; l < bound; l++) {
// DEFAULT-COUNT-4:   = a_block_local[
// DEFAULT-NOT:       _local[
// DEFAULT:         }

// NVIDIA's kernels (`narrow_indices`) also get a version with 32-bit indices (`small-index`), which the host launches
// where every size it is given, every array it reads or writes and its loops' last steps stay below 2^31
// (`index_width.py`); the other then gets no work-items. Other targets keep the 64-bit kernel alone. A launch has a work-group per pack of batches (its size
// computed on the host as in the kernel), at most max-groups.

// NARROW-LABEL: __kernel void products_segmap_group_1(__global float *restrict c, const int a_d0,
// NARROW:         for (int l = 0; l < bound; l++) {
// NARROW-COUNT-4:   = a_block_local[

// HOST:         %[[LIMIT:.*]] = arith.constant 2147483648 : index
// HOST:         arith.cmpi ult, %a_d0, %[[LIMIT]] : index
// HOST:         %narrow = arith.andi
// HOST-NEXT:    %narrow_size = arith.select %narrow, %global_size, %{{.*}} : index
// HOST-NEXT:    %wide_size = arith.select %narrow, %{{.*}}, %global_size : index
// HOST:         kernel.launch @products_segmap_group_1({{.*}}) global %narrow_size
// HOST-NEXT:    kernel.launch @products_segmap_group_0({{.*}}) global %wide_size
// HOST:         kernel.func @products_segmap_group_1({{.*}}) index_bitwidth 32 {
// HOST:         kernel.func @products_segmap_group_0(
// HOST-NOT:       index_bitwidth

// GENERIC-NOT:   index_bitwidth
// GENERIC:       %packs = arith.divui %{{.*}}, %per_1 : index
// GENERIC-NEXT:  arith.minui %packs, %{{.*}} : index
// GENERIC:       kernel.launch @products_segmap_group_0({{.*}}) global %global_size
// GENERIC-NOT:   kernel.launch

// `small-fma`: the lambda's product and the operator's sum as one fma per result and step.

// FMA-LABEL: __kernel void products_segmap_group_0(
// FMA:         for (long l = 0L; l < bound; l++) {
// FMA-COUNT-4:   = fma(u{{.*}}, [[B:v_[0-9]+]], zero{{.*}});
// FMA-NOT:       *
// FMA:         }
