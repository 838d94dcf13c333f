// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia stencil=tiled}' | filecheck %s --check-prefix=TILED
// RUN: soac-opt %s -p 'soac-to-kernel{target=cpu}' | filecheck %s --check-prefix=CPU

// The streamed kernel of a 2-D stencil (GPU targets): a block of 16 x 128 elements per work-group, a column of 16
// per work-item; where the block and its halo of 1 lie inside the array, plain loads of the neighbours, each once:
// the 18 elements above, in and below the column and 2 beside each of its 16 rows (the corners and the centre are
// unused, so not read); elsewhere loads at clamped positions. No local memory, no barrier.

// CHECK:       kernel.launch @main_stencil_0({{.*}}) global %global_size local %{{.*}}
// CHECK:       kernel.func @main_stencil_0(
// CHECK-NOT:     kernel.local_alloc
// CHECK:         %interior = arith.andi
// CHECK:         scf.if %interior -> (f32, f32
// CHECK-NOT:       arith.maxsi
// CHECK-COUNT-50:  kernel.load %a[
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } else {
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK-NOT:     kernel.barrier
// CHECK:         kernel.return

// The tiled kernel (`stencil=tiled`): the block of 16 x 128 elements and its halo of 1 copied into a
// local tile of 18 x 130 once, with plain loads when the block and halo are inside the array and with the boundary
// condition (clamped positions) elsewhere; a barrier; then each of the 4 x 128 work-items reads the neighbours of
// its 4 rows from the tile, each tile element once: 6 above, in and below its column and 2 beside each row (the corners and the centre are unused, so not read) and stores the in-space results.

func.func @main(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?xf32>
  %b = soac.stencil (%n, %m) window [3, 3] clamp (%a : tensor<?x?xf32>) -> tensor<?x?xf32>
      lambda(%nw: f32, %no: f32, %ne: f32, %we: f32, %ce: f32, %ea: f32, %sw: f32, %so: f32, %se: f32) {
    %x = arith.addf %no, %so : f32
    %y = arith.addf %we, %ea : f32
    %z = arith.addf %x, %y : f32
    soac.yield %z : f32
  }
  func.return %b : tensor<?x?xf32>
}

// TILED:       kernel.launch @main_stencil_0({{.*}}) global %global_size local %{{.*}}
// TILED:       kernel.func @main_stencil_0(
// TILED:         %a_tile = kernel.local_alloc 2340 : !kernel.buffer<local, f32>
// TILED:         %interior = arith.andi
// TILED:         scf.if %interior {
// TILED-NOT:       arith.maxsi
// TILED:           kernel.store %{{.*}}, %a_tile[%{{.*}}]
// TILED:         } else {
// TILED:           arith.maxsi
// TILED:           arith.minsi
// TILED:           kernel.store %{{.*}}, %a_tile[%{{.*}}]
// TILED:         kernel.barrier local
// TILED-COUNT-14: kernel.load %a_tile
// TILED-NOT:     kernel.load %a_tile
// TILED:         kernel.return

// The direct kernel (CPUs): a loop over the elements, each with an interior branch of plain loads at constant
// offsets and a border branch that clamps each neighbour's position.

// CPU:         kernel.func @main_stencil_0(
// CPU-NOT:       kernel.local_alloc
// CPU:           scf.for %p =
// CPU:             %interior = arith.andi
// CPU:             scf.if %interior -> (f32, f32, f32, f32) {
// CPU-NOT:           arith.maxsi
// CPU:             } else {
// CPU:               arith.maxsi
