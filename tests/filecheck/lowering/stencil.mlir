// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=cpu}' | filecheck %s --check-prefix=CPU

// The tiled kernel of a 2-D stencil (GPU targets): the block of 8 x 128 elements and its halo of 1 copied into a
// local tile of 10 x 130 once, with plain loads when the block and halo are inside the array and with the boundary
// condition (clamped positions) elsewhere; a barrier; then each of the 2 x 128 work-items reads the neighbours of
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

// CHECK:       kernel.launch @main_stencil_0({{.*}}) global %global_size local %{{.*}}
// CHECK:       kernel.func @main_stencil_0(
// CHECK:         %a_tile = kernel.local_alloc 1300 : !kernel.buffer<local, f32>
// CHECK:         %interior = arith.andi
// CHECK:         scf.if %interior {
// CHECK-NOT:       arith.maxsi
// CHECK:           kernel.store %{{.*}}, %a_tile[%{{.*}}]
// CHECK:         } else {
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           kernel.store %{{.*}}, %a_tile[%{{.*}}]
// CHECK:         kernel.barrier local
// CHECK-COUNT-14: kernel.load %a_tile
// CHECK-NOT:     kernel.load %a_tile
// CHECK:         kernel.return

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
