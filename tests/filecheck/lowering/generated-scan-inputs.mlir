// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s --check-prefix=LOOKBACK
// RUN: soac-opt %s -p 'soac-to-kernel{target=cpu}' | filecheck %s --check-prefix=CHUNKED
// RUN: soac-opt %s -p 'soac-to-kernel{target=generic}' | filecheck %s --check-prefix=RTS

// sl.filter's compaction (lang/compaction.py, after soac-fuse): one scanned value, and an iota of the rows that only
// the scan reads. No kernel stores the iota (strategies/generated_inputs.py): it is an empty placeholder, the scan's
// kernels take row i as (i32)i, and the post lambda compares it with n - 1. The look-back and chunked scans scatter
// in their last kernel; reduce-then-scan keeps the scatter apart.

// LOOKBACK-LABEL: func.func @main(
// LOOKBACK:         %generated = kernel.alloc %{{.*}} : !kernel.buffer<global, i32>
// LOOKBACK-NOT:     kernel.launch @main_iota
// LOOKBACK:         kernel.launch @main_scan_lookback_0(%xs, %xs_d0, %fresh, %count, %status, %{{.*}}, %tickets, %final :
// LOOKBACK-NOT:     kernel.launch
// LOOKBACK:       kernel.func @main_scan_lookback_0(
// LOOKBACK:         %staged = kernel.local_alloc 8192 : !kernel.buffer<local, i32>
// LOOKBACK:         %x{{.*}} = kernel.vector_load %xs[%[[BASE:.*]]] width 4 align 16
// LOOKBACK-NEXT:    %{{.*}} = arith.index_cast %[[BASE]] : index to i32
// LOOKBACK:         scf.if %full {
// LOOKBACK:           %{{.*}} = kernel.load %xs[%[[AT:.*]]] : !kernel.buffer<global, i32> -> i32
// LOOKBACK-NEXT:      %[[ROW:.*]] = arith.index_cast %[[AT]] : index to i32
// LOOKBACK:           %{{.*}} = arith.cmpi eq, %[[ROW]], %final : i32
// LOOKBACK:           kernel.store %{{.*}}, %staged[%{{.*}}] : i32, !kernel.buffer<local, i32>
// LOOKBACK:         kernel.barrier local
// LOOKBACK-NEXT:    scf.for %e = %tid to %{{.*}} step %{{.*}} {
// LOOKBACK-NEXT:      %[[PLACE:place.*]] = arith.addi
// LOOKBACK:           kernel.store %{{.*}}, %fresh[%[[PLACE]]] : i32, !kernel.buffer<global, i32>
// LOOKBACK-NOT:     kernel.func @main_iota

// CHUNKED-LABEL: func.func @main(
// CHUNKED-NOT:     kernel.launch @main_iota
// CHUNKED:         kernel.launch @main_chunk_reduce_0(%xs_d0, %chunk_size, %xs, %zero_chunk_aggs, %chunks :
// CHUNKED-NEXT:    kernel.launch @main_chunk_scan_0(%zero_chunk_aggs, %chunks, %xs_d0, %chunk_size, %fresh, %count, %xs, %final :
// CHUNKED-NOT:     kernel.launch
// CHUNKED:       kernel.func @main_chunk_scan_0(
// CHUNKED:           %{{.*}} = arith.addi %{{.*}}, %f : i32
// CHUNKED-NEXT:      %{{.*}} = kernel.load %xs[%i] : !kernel.buffer<global, i32> -> i32
// CHUNKED-NEXT:      %[[ROW:.*]] = arith.index_cast %i : index to i32
// CHUNKED:           %{{.*}} = arith.cmpi eq, %[[ROW]], %final : i32

// RTS-LABEL: func.func @main(
// RTS-NOT:     kernel.launch @main_iota
// RTS:         kernel.launch @main_scan_reduce_0(%xs, %xs_d0,
// RTS:         kernel.launch @main_scan_final_0(%xs, %xs_d0, %at, %last, %total,
// RTS:         kernel.launch @main_scatter_0(%at, %xs_d0, %last, %total, %xs, %fresh, %count :
// RTS-NOT:     kernel.launch
// RTS:       kernel.func @main_scan_final_0(
// RTS:           %{{.*}} = arith.addi %{{.*}}, %f : i32
// RTS-NEXT:      %{{.*}} = kernel.load %xs[%i] : !kernel.buffer<global, i32> -> i32
// RTS-NEXT:      %[[ROW:.*]] = arith.index_cast %i : index to i32
// RTS:           %{{.*}} = arith.cmpi eq, %[[ROW]], %final : i32

func.func @main(%xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %minus = arith.constant -1 : i32
  %n32 = arith.index_cast %n : index to i32
  %final = arith.subi %n32, %one : i32
  %is = soac.iota %n : tensor<?xi32>
  %fresh = tensor.empty(%n) : tensor<?xi32>
  %count = soac.replicate %c1, %zero : i32 -> tensor<?xi32>
  %at, %last, %total = soac.scanomap %n (%xs, %is : tensor<?xi32>, tensor<?xi32>) neutral(%zero : i32) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32, %i: i32) {
    %keep = arith.cmpi sgt, %x, %zero : i32
    %f = arith.extui %keep : i1 to i32
    soac.yield %f : i32
  } post(%kept: i32, %x: i32, %i: i32) {
    %keep = arith.cmpi sgt, %x, %zero : i32
    %before = arith.subi %kept, %one : i32
    %place = arith.select %keep, %before, %minus : i32
    %is_last = arith.cmpi eq, %i, %final : i32
    %slot = arith.select %is_last, %zero, %minus : i32
    soac.yield %place, %slot, %kept : i32, i32, i32
  }
  %out, %counted = soac.scatter %n (%at, %last, %total, %xs : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) into(%fresh, %count : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%q: i32, %l: i32, %t: i32, %x: i32) {
    %qi = arith.index_cast %q : i32 to index
    %li = arith.index_cast %l : i32 to index
    soac.yield %qi, %li, %x, %t : index, index, i32, i32
  }
  func.return %out, %counted : tensor<?xi32>, tensor<?xi32>
}
