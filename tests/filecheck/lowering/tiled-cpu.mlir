// RUN: soac-opt %s -p 'soac-to-kernel{target=cpu}' | filecheck %s

// On the cpu target a tiled op runs one result per work-item, reading straight from global memory in order of k:
// no local tiles, no barriers (the caches share the reads; PoCL's barriers cost more than the tiles save).

func.func @main(%a: tensor<?x?xf32>, %bt: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %m = tensor.dim %bt, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [64, 64] reg [4, 4] chunk 16 reads(%a[d0, k], %bt[d1, k] : tensor<?x?xf32>, tensor<?x?xf32>) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
    %u = arith.addf %s, %t : f32
    soac.yield %u : f32
  } lambda(%x: f32, %y: f32) {
    %p = arith.mulf %x, %y : f32
    soac.yield %p : f32
  }
  func.return %c : tensor<?x?xf32>
}

// CHECK:      kernel.assert %{{.*}}, "{{.*}}tiled-cpu.mlir:13:3: 'soac.tiled_redomap': read #1 has {0} elements in dimension 1, but the reduction has width {1}"
// CHECK:      kernel.launch @main_tiled_0(
// CHECK:      kernel.func @main_tiled_0(
// CHECK-NOT:  kernel.local_alloc
// CHECK-NOT:  kernel.barrier
// CHECK:      scf.for %p = %lo to %hi step
// CHECK:        %i0 = arith.divui %p,
// CHECK:        %i1 = arith.remui %p,
// CHECK:        scf.for %k = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%zero_it = %zero) -> (f32) {
// CHECK:          %x = kernel.load %a[%{{.*}}] : !kernel.buffer<global, f32> -> f32
// CHECK:          %y = kernel.load %bt[%{{.*}}] : !kernel.buffer<global, f32> -> f32
// CHECK:          %p{{.*}} = arith.mulf %x, %y : f32
// CHECK:          %u = arith.addf %zero_it, %p{{.*}} : f32
// CHECK:        kernel.store %{{.*}}, %c[%p] : f32, !kernel.buffer<global, f32>
