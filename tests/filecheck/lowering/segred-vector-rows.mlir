// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=generic}' | filecheck %s --check-prefix=GENERIC

// Matvec as a function-level segred (what soac-flatten makes of `map (\row -> sum (row * v)) a`): its lambda reads
// `a[i, j]` and `v[j]`, so it gets the vector kernel, which loads 4 elements of each with one 16-byte load, applies
// the lambda to the 4 lanes and folds them. Its read of `v` has no check in any of the op's kernels: the host checks
// v's length once. A lambda that computes with its index `j` gets no vector kernel. A read at the row's index,
// `b[i]`, is one load per row (of the team's rows in flight), outside the vector loads.

// CHECK:       func.func @main(
// CHECK:         %fits = arith.cmpi ule, %a_d1, %v_d0 : index
// CHECK-NEXT:    %reads_in_bounds = arith.ori %fits, %nothing_read : i1
// CHECK-NEXT:    kernel.assert %reads_in_bounds, "{{.*}}segred-vector-rows.mlir:69:5: 'soac.index': index {0} is out of bounds for dimension 0 of size {1}" (%v_d0, %v_d0 : index, index)
// CHECK-NOT:     kernel.error_buffer
// CHECK:         kernel.launch @main_segred_teams_0(
// CHECK:         kernel.launch @main_segred_vector_0(
// CHECK:         kernel.launch @main_segred_teams_1(
// CHECK-NOT:     kernel.launch @main_segred_vector_
// CHECK:         kernel.launch @main_segred_teams_2(
// CHECK:         kernel.launch @main_segred_vector_1(
// CHECK-LABEL: kernel.func @main_segred_teams_0(
// CHECK-NOT:     kernel.device_assert
// CHECK-LABEL: kernel.func @main_segred_vector_0(
// CHECK-NOT:     kernel.device_assert
// CHECK:         %[[A0:.*]], %[[A1:.*]], %[[A2:.*]], %[[A3:.*]] = kernel.vector_load %a[%{{.*}}] width 4 align 16 : !kernel.buffer<global, f32>
// CHECK-NEXT:    %[[V0:.*]], %[[V1:.*]], %[[V2:.*]], %[[V3:.*]] = kernel.vector_load %v[%{{.*}}] width 4 align 16 : !kernel.buffer<global, f32>
// CHECK-NEXT:    %[[P0:.*]] = arith.mulf %[[A0]], %[[V0]] : f32
// CHECK-NEXT:    %[[P1:.*]] = arith.mulf %[[A1]], %[[V1]] : f32
// CHECK-NEXT:    %[[S1:.*]] = arith.addf %[[P0]], %[[P1]] : f32
// CHECK-NEXT:    %[[P2:.*]] = arith.mulf %[[A2]], %[[V2]] : f32
// CHECK-NEXT:    %[[S2:.*]] = arith.addf %[[S1]], %[[P2]] : f32
// CHECK-NEXT:    %[[P3:.*]] = arith.mulf %[[A3]], %[[V3]] : f32
// CHECK-NEXT:    arith.addf %[[S2]], %[[P3]] : f32
// CHECK-NOT:     kernel.device_assert
// CHECK:         kernel.shuffle xor
// CHECK-NOT:     kernel.device_assert
// CHECK:         kernel.return
// CHECK-LABEL: kernel.func @main_segred_vector_1(
// CHECK-SAME:    %b: !kernel.buffer<global, f32>
// CHECK-NOT:     kernel.device_assert
// CHECK:         %[[B:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK-NEXT:      kernel.load %b[%{{.*}}] : !kernel.buffer<global, f32> -> f32
// CHECK:         scf.if
// CHECK:           %[[A0:.*]], %[[A1:.*]], %{{.*}}, %{{.*}} = kernel.vector_load %a[%{{.*}}] width 4 align 16
// CHECK-NEXT:      arith.mulf %[[A0]], %[[B]] : f32
// CHECK-NEXT:      arith.mulf %[[A1]], %[[B]] : f32

// GENERIC-LABEL: kernel.func @main_segred_vector_0(
// GENERIC-NOT:     kernel.shuffle
// GENERIC:         kernel.vector_load %a[%{{.*}}] width 4 align 16 : !kernel.buffer<global, f32>
// GENERIC-NEXT:    kernel.vector_load %v[%{{.*}}] width 4 align 16 : !kernel.buffer<global, f32>
// GENERIC-NOT:     kernel.shuffle
// GENERIC:         kernel.barrier local
// GENERIC-NOT:     kernel.shuffle
// GENERIC:         kernel.return
// GENERIC-LABEL: kernel.func @main_segred_vector_1(

func.func @main(%a: tensor<?x?xf32>, %v: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %dots = soac.segred thread (%m, %n) neutral(%zero : f32) -> tensor<?xf32> combine(%x: f32, %y: f32) {
    %s = arith.addf %x, %y : f32
    soac.yield %s : f32
  } lambda(%i: index, %j: index) {
    %e = soac.index %a[%i, %j] : tensor<?x?xf32> -> f32
    %w = soac.index %v[%j] : tensor<?xf32> -> f32
    %p = arith.mulf %e, %w : f32
    soac.yield %p : f32
  }
  %weighted = soac.segred thread (%m, %n) neutral(%zero : f32) -> tensor<?xf32> combine(%x: f32, %y: f32) {
    %s = arith.addf %x, %y : f32
    soac.yield %s : f32
  } lambda(%i: index, %j: index) {
    %e = soac.index %a[%i, %j] : tensor<?x?xf32> -> f32
    %j32 = arith.index_cast %j : index to i32
    %jf = arith.sitofp %j32 : i32 to f32
    %p = arith.mulf %e, %jf : f32
    soac.yield %p : f32
  }
  %scaled = soac.segred thread (%m, %n) neutral(%zero : f32) -> tensor<?xf32> combine(%x: f32, %y: f32) {
    %s = arith.maximumf %x, %y : f32
    soac.yield %s : f32
  } lambda(%i: index, %j: index) {
    %e = soac.index %a[%i, %j] : tensor<?x?xf32> -> f32
    %bi = soac.index %b[%i] : tensor<?xf32> -> f32
    %p = arith.mulf %e, %bi : f32
    soac.yield %p : f32
  }
  func.return %dots, %weighted, %scaled : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
