// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=generic}' | filecheck %s --check-prefix=GENERIC

// A group-level segmented reduction of rows of int32: its vector kernel (rows read as 4-wide vectors by teams of
// work-items) combines a team's values with butterfly shuffles on NVIDIA, with no barrier; without sub-groups it
// combines them in local memory between barriers.

// CHECK:       builtin.module attributes {kernel.target = "nvidia"} {
// CHECK-LABEL: kernel.func @main_segred_vector_0(
// CHECK-NOT:     kernel.barrier
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = kernel.vector_load %xss[%{{.*}}] width 4 align 16 : !kernel.buffer<global, i32>
// CHECK-NOT:     kernel.barrier
// CHECK:         %distance = arith.shli %{{.*}}, %e : index
// CHECK-NEXT:    %[[D:.*]] = arith.index_cast %distance : index to i32
// CHECK-NEXT:    %[[B:.*]] = kernel.shuffle xor %[[V:.*]], %[[D]] width 32 : i32
// CHECK-NEXT:    arith.addi %[[V]], %[[B]] : i32
// CHECK-NOT:     kernel.barrier
// CHECK:         kernel.shuffle xor %{{.*}}, %{{.*}} width 32 : i32
// CHECK-NOT:     kernel.barrier
// CHECK:         kernel.return
// CHECK-NOT:     kernel.barrier
// CHECK-LABEL: kernel.func @main_segred_parts_0(

// GENERIC:       builtin.module attributes {kernel.target = "generic"} {
// GENERIC-LABEL: kernel.func @main_segred_vector_0(
// GENERIC-NOT:     kernel.shuffle
// GENERIC:         kernel.vector_load %xss[%{{.*}}] width 4 align 16 : !kernel.buffer<global, i32>
// GENERIC-NOT:     kernel.shuffle
// GENERIC:         kernel.store %{{.*}}, %local[%tid] : i32, !kernel.buffer<local, i32>
// GENERIC-NEXT:    kernel.barrier local
// GENERIC-NEXT:    scf.for %e = %{{.*}} to %log_vector_team step %{{.*}} {
// GENERIC-NOT:     kernel.shuffle
// GENERIC:           kernel.barrier local
// GENERIC-NEXT:    }
// GENERIC-NOT:     kernel.shuffle
// GENERIC:         kernel.return
// GENERIC-NOT:     kernel.shuffle
// GENERIC-LABEL: kernel.func @main_segred_parts_0(

func.func @main(%xss: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %sums = soac.segred group (%m, %n) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
    soac.yield %x : i32
  }
  func.return %sums : tensor<?xi32>
}
