// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia scan-reduce=split}' | filecheck %s --check-prefix=SPLIT
// RUN: soac-opt %s -p 'soac-split-scan-reduce,soac-to-kernel{target=nvidia}' | filecheck %s --check-prefix=SPLIT
// RUN: soac-opt %s -p 'soac-to-kernel{target=cpu}' | filecheck %s --check-prefix=CPU

// A scanomap with a reduction part (what soac-fuse makes of bench/programs/scan_reduce.mlir) under the look-back
// strategy: one look-back kernel scans and reduces. Each tile folds its items' reduced values, combines them over
// the work-group after its look-back (warp shuffles on NVIDIA, lane 0 of each warp writing to local memory before
// the barrier that follows the look-back), and work-item 0 writes the
// tile's partial, fences global memory at device scope and takes a ticket of its block's counter; the tile that
// takes a block's last ticket combines the block's partials (read with relaxed atomic loads after a fence), writes
// the block's partial and takes a ticket of the counter of all blocks (the last slot of `reduce_tickets`); the last
// block writes the results. The host reads them, or takes the neutral elements when there are no elements.

// CHECK-LABEL: func.func @main(
// CHECK:         %reduce_tickets = kernel.alloc %{{.*}} : !kernel.buffer<global, i32>
// CHECK:         kernel.launch @main_scan_init_0(%status, %{{.*}}, %tickets, %tiles, %reduce_tickets, %{{.*}}, %blocks :
// CHECK-NEXT:    kernel.launch @main_scan_lookback_0(%xs, %xs_d0, %sums, %status, %{{.*}}, %tickets, %partials, %{{.*}}, %partials_1, %block_partials, %blocks, %block_partials_1, %reduce_tickets, %{{.*}}, %reduced, %reduced_1 :
// CHECK-NEXT:    %no_elements = arith.cmpi eq, %xs_d0, %{{.*}} : index
// CHECK-NEXT:    %[[SUM:.*]] = kernel.read %reduced[%{{.*}}] : !kernel.buffer<global, i32> -> i32
// CHECK-NEXT:    %[[MAX:.*]] = kernel.read %reduced_1[%{{.*}}] : !kernel.buffer<global, i32> -> i32
// CHECK-NEXT:    %total = arith.select %no_elements, %zero, %[[SUM]] : i32
// CHECK-NEXT:    %top = arith.select %no_elements, %lowest, %[[MAX]] : i32
// CHECK-NOT:     kernel.launch
// CHECK:         func.return %sums, %xs_d0, %total, %top : !kernel.buffer<global, i32>, index, i32, i32

// CHECK-LABEL: kernel.func @main_scan_lookback_0(
// CHECK:         kernel.atomic_store %{{.*}}, %status[%tile] relaxed device : i64, !kernel.buffer<global, i64>
// CHECK:         kernel.shuffle down %{{.*}}, %{{.*}} width 32 : i32
// CHECK:         kernel.store %{{.*}}, %tile_reduced{{.*}}[%{{.*}}] : i32, !kernel.buffer<local, i32>
// CHECK:         kernel.barrier local
// CHECK:         kernel.store %{{.*}}, %partials[%tile] : i32, !kernel.buffer<global, i32>
// CHECK-NEXT:    kernel.store %{{.*}}, %partials_1[%tile] : i32, !kernel.buffer<global, i32>
// CHECK:         kernel.fence global scope device
// CHECK:         %taken = kernel.atomic add %reduce_tickets[%block], %{{.*}} : !kernel.buffer<global, i32>, i32
// CHECK:         kernel.store %{{.*}}, %last_of_block[%{{.*}}] : i32, !kernel.buffer<local, i32>
// CHECK:         kernel.vector_store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} into %sums[%{{.*}}] align 16 : !kernel.buffer<global, i32>
// CHECK:         kernel.barrier local
// CHECK-NEXT:    %{{.*}} = kernel.load %last_of_block[%{{.*}}] : !kernel.buffer<local, i32> -> i32
// CHECK:         kernel.fence global scope device
// CHECK-NEXT:    %{{.*}} = kernel.atomic_load %partials[%{{.*}}] relaxed device : !kernel.buffer<global, i32> -> i32
// CHECK:         kernel.barrier local
// CHECK:         kernel.store %{{.*}}, %block_partials[%{{.*}}] : i32, !kernel.buffer<global, i32>
// CHECK:         kernel.fence global scope device
// CHECK:         %taken_1 = kernel.atomic add %reduce_tickets[%blocks_1], %{{.*}} : !kernel.buffer<global, i32>, i32
// CHECK:         kernel.barrier local
// CHECK:         %{{.*}} = kernel.atomic_load %block_partials[%{{.*}}] relaxed device : !kernel.buffer<global, i32> -> i32
// CHECK:         kernel.barrier local
// CHECK:         kernel.store %{{.*}}, %reduced[%{{.*}}] : i32, !kernel.buffer<global, i32>
// CHECK:         kernel.return

// scan-reduce=split (or soac-split-scan-reduce first) gives the two kernels of before: the look-back scan, and the
// redomap's two-stage reduction.
// SPLIT-LABEL: func.func @main(
// SPLIT:         kernel.launch @main_scan_init_0(%status, %{{.*}}, %tickets, %tiles :
// SPLIT-NEXT:    kernel.launch @main_scan_lookback_0(%xs, %xs_d0, %sums, %status, %{{.*}}, %tickets :
// SPLIT:         kernel.launch @main_reduce_0(
// SPLIT:         kernel.launch @main_reduce_partials_0(
// SPLIT:         %total = kernel.read %zero_result[%{{.*}}] : !kernel.buffer<global, i32> -> i32
// SPLIT-NEXT:    %top = kernel.read %lowest_result[%{{.*}}] : !kernel.buffer<global, i32> -> i32

// The chunked strategy of CPUs splits.
// CPU-LABEL: func.func @main(
// CPU:         kernel.launch @main_chunk_scan_0(
// CPU:         kernel.launch @main_chunk_reduce_1(
// CPU:         %total = kernel.read %zero_result[%{{.*}}] : !kernel.buffer<global, i32> -> i32

func.func @main(%xs: tensor<?xi32>) -> (tensor<?xi32>, i32, i32) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %lowest = arith.constant -2147483648 : i32
  %sums, %total, %top = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) reduce commutative(%zero, %lowest : i32, i32) -> (tensor<?xi32>, i32, i32) combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } reduce_combine(%a_1: i32, %a_2: i32, %b_1: i32, %b_2: i32) {
    %s_1 = arith.addi %a_1, %b_1 : i32
    %m = arith.maxsi %a_2, %b_2 : i32
    soac.yield %s_1, %m : i32, i32
  } lambda(%x: i32) {
    %three = arith.constant 3 : i32
    %one = arith.constant 1 : i32
    %x3 = arith.muli %x, %three : i32
    %y = arith.addi %x3, %one : i32
    soac.yield %y, %y, %y : i32, i32, i32
  }
  func.return %sums, %total, %top : tensor<?xi32>, i32, i32
}
