// RUN: soac-opt %s -p 'soac-fuse,soac-to-kernel{target=nvidia scan=lookback}' | filecheck %s
// RUN: soac-opt %s -p 'soac-fuse,soac-to-kernel{target=generic scan=lookback}' | filecheck %s --check-prefix=GENERIC
// RUN: soac-opt %s -p 'soac-fuse,soac-to-kernel{target=generic scan=lookback}' | filecheck %s --check-prefix=NO-SUBGROUPS

// The single-pass look-back scan of a fused map->scan, in kernel ops: a ticket taken with an atomic add orders
// the tiles; each tile loads its elements as 4-wide vectors, scans them (with warp shuffles on NVIDIA), publishes
// its status word with a relaxed atomic store, and looks back at its predecessors' words, spinning on relaxed atomic
// loads until each is published (on NVIDIA a warp looks back 32 tiles at once: a ballot finds the nearest tile with
// an inclusive prefix, `math.cttz` its lane, and shuffles combine the lanes' values); the results are stored as
// 4-wide vectors.

// CHECK:       builtin.module attributes {kernel.target = "nvidia"} {
// CHECK-LABEL: func.func @main(
// CHECK:         kernel.launch @main_scan_init_0(
// CHECK-NEXT:    kernel.launch @main_scan_lookback_0(%xs, %xs_d0, %sums, %status, %{{.*}}, %tickets : {{.*}}) global %global_size local %{{.*}}

// CHECK-LABEL: kernel.func @main_scan_lookback_0(
// CHECK:         %[[TID:.*]] = kernel.local_id 0
// CHECK:         %[[OLD:.*]] = kernel.atomic add %tickets[%{{.*}}], %{{.*}} : !kernel.buffer<global, i32>, i32
// CHECK-NEXT:    %[[T:.*]] = arith.index_cast %[[OLD]] : i32 to index
// CHECK-NEXT:    kernel.store %[[T]], %ticket[%{{.*}}] : index, !kernel.buffer<local, index>
// CHECK:         kernel.barrier local
// CHECK-NEXT:    %tile = kernel.load %ticket[%{{.*}}] : !kernel.buffer<local, index> -> index
// CHECK:         %x, %x_1, %x_2, %x_3 = kernel.vector_load %xs[%{{.*}}] width 4 align 16 : !kernel.buffer<global, i32>
// CHECK:         kernel.shuffle up %{{.*}}, %{{.*}} width 32 : i32
// CHECK:         kernel.shuffle idx %{{.*}}, %{{.*}} width 32 : i32
// CHECK:         kernel.atomic_store %{{.*}}, %status[%tile] relaxed device : i64, !kernel.buffer<global, i64>
// CHECK:         scf.while (%{{.*}} = %position, %prefix = %zero) : (index, i32) -> (index, i32) {
// CHECK:           scf.while () : () -> i64 {
// CHECK-NEXT:        %word = kernel.atomic_load %status[%{{.*}}] relaxed device : !kernel.buffer<global, i64> -> i64
// CHECK:             %waiting = arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:        scf.condition(%waiting) %word : i64
// CHECK-NEXT:      } do {
// CHECK:           %[[MASK:.*]] = kernel.ballot %{{.*}} width 32
// CHECK-NEXT:      %[[LANE:.*]] = math.cttz %[[MASK]] : i32
// CHECK-NEXT:      arith.index_cast %[[LANE]] : i32 to index
// CHECK:           kernel.shuffle down %{{.*}}, %{{.*}} width 32 : i32
// CHECK:           kernel.shuffle idx %{{.*}}, %{{.*}} width 32 : i32
// CHECK:           scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : index, i32
// CHECK:         kernel.atomic_store %{{.*}}, %status[%tile] relaxed device : i64, !kernel.buffer<global, i64>
// CHECK:         kernel.barrier local
// CHECK:         kernel.vector_store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} into %sums[%{{.*}}] align 16 : !kernel.buffer<global, i32>
// CHECK:         kernel.return

// Without sub-groups the same algorithm scans a tile in local memory between barriers, and one work-item looks
// back a tile at a time: atomics, ordered loads and stores, vectors, but no shuffles or ballots.

// GENERIC:       builtin.module attributes {kernel.target = "generic"} {
// GENERIC-LABEL: kernel.func @main_scan_lookback_0(
// GENERIC:         %{{.*}} = kernel.atomic add %tickets[%{{.*}}], %{{.*}} : !kernel.buffer<global, i32>, i32
// GENERIC:         kernel.vector_load %xs[%base] width 4 align 16 : !kernel.buffer<global, i32>
// GENERIC:         kernel.barrier local
// GENERIC:         kernel.atomic_store %{{.*}}, %status[%tile] relaxed device : i64, !kernel.buffer<global, i64>
// GENERIC:           scf.while () : () -> i64 {
// GENERIC-NEXT:        %word = kernel.atomic_load %status[%position] relaxed device : !kernel.buffer<global, i64> -> i64
// GENERIC:             scf.condition(%waiting) %word : i64
// GENERIC:         kernel.atomic_store %{{.*}}, %status[%tile] relaxed device : i64, !kernel.buffer<global, i64>
// GENERIC:         kernel.vector_store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} into %sums[%base] align 16 : !kernel.buffer<global, i32>
// GENERIC:         kernel.return

// NO-SUBGROUPS:     kernel.target = "generic"
// NO-SUBGROUPS-NOT: kernel.shuffle
// NO-SUBGROUPS-NOT: kernel.ballot
// NO-SUBGROUPS-NOT: math.cttz

func.func @main(%xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %three = arith.constant 3 : i32
    %one = arith.constant 1 : i32
    %x3 = arith.muli %x, %three : i32
    %y = arith.addi %x3, %one : i32
    soac.yield %y : i32
  }
  %zero = arith.constant 0 : i32
  %sums = soac.scan %n (%ys : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  func.return %sums : tensor<?xi32>
}
