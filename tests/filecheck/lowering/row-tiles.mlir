// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia tile-index=i32}' -t opencl | filecheck %s

// A staged tiled op (`soac-coalesce`'s row-tiles rule): each work-group of 64 work-items owns 64 rows of %x. Per chunk
// of 32 elements, work-item t loads 4 consecutive elements of row t / 8 (8 work-items a 128-byte line: coalesced) one
// chunk ahead, stores them into a local tile of 32 x 65 (one element of padding a tile row: the stores fall in 32
// distinct banks), and after a barrier folds its own row from the tile: the fold's loop has no bounds check, only
// the group's loads, where a missing row or the tail of a row reads zero and is not stored.
// CHECK:       __kernel void row_max_tiled_0(
// CHECK:         __local float x_tile[2080];
// CHECK:         const int [[E:.*]] = tid * 4;
// CHECK-NEXT:    const int [[KK:.*]] = (int)((uint)[[E]] % (uint)32);
// CHECK-NEXT:    const int [[Q:.*]] = (int)((uint)[[E]] / (uint)32);
// CHECK:         const float4 vec = *(const __global float4*)(x + {{.*}});
// CHECK:         for (int c0 = lo; c0 < full; c0 += 32) {
// CHECK-NEXT:      barrier(CLK_LOCAL_MEM_FENCE);
// CHECK:           x_tile[{{.*}}] = ahead_32;
// CHECK:           barrier(CLK_LOCAL_MEM_FENCE);
// CHECK:           for (int [[K:.*]] = 0; [[K]] < 32; [[K]]++) {
// CHECK-NEXT:        const int [[ROW:.*]] = [[K]] * 65;
// CHECK-NEXT:        const int [[AT:.*]] = [[ROW]] + tid;
// CHECK-NEXT:        const float [[R:.*]] = x_tile[[[AT]]];
// CHECK-NEXT:        const {{.*}} = c0 + [[K]];
// CHECK-NEXT:        const float [[M:.*]] = isnan({{.*}}) || isnan([[R]]) ? {{.*}} : fmax({{.*}}, [[R]]);
// CHECK-NEXT:        {{.*}} = [[M]];
// CHECK-NEXT:      }
func.func @row_max(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %w = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ninf = arith.constant 0xff800000 : f32
  %m = soac.tiled_redomap (%n) reduce %w tile "rows_0" block [64] reg [1] chunk 32 reads(%x[d0, k] : tensor<?x?xf32>) neutral(%ninf : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %mx = arith.maximumf %a, %b : f32
    soac.yield %mx : f32
  } lambda(%r: f32) {
    soac.yield %r : f32
  } attributes {staged_rows}
  func.return %m : tensor<?xf32>
}
