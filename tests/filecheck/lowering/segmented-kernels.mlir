// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=generic}' | filecheck %s --check-prefix=GENERIC
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia seg-one-vector-rows=false}' | filecheck %s --check-prefix=TWO-LOOPS
// RUN: soac-opt %s -p 'soac-to-kernel{target=cpu}' | filecheck %s --check-prefix=CPU

// The kernels of the segmented strategies, inside (segmented-levels.mlir has the launches that choose among them):
// - segred_teams.py: a team of work-items per segment (or part of one); on a target with warps the team combines
//   by butterfly shuffles up to a warp, then across warps in local memory; elsewhere by a tree in local memory;
// - segred_vector.py: warp-sized teams reading rows of 32-bit values as 4-element vectors, with a loop for short
//   rows (several per team), one for long ones, and on 32-lane targets one for rows of at most a vector per member
//   (`seg-one-vector-rows`);
// - segmented.py: a work-item per segment (segred_thread, segscan_thread), a group per segment (segscan_group);
// - intragroup.py: a group-level segmap, each group taking outer elements in turn and sharing out its segops.

// CHECK-LABEL: kernel.func @device_segred_teams_0(
// CHECK:         %local = kernel.local_alloc 256 : !kernel.buffer<local, f32>
// CHECK:         scf.for %first = %{{.*}} to %units step %{{.*}} {
// CHECK:           %log_warp = arith.constant 5 : index
// CHECK-NEXT:      %log_in_warp = arith.minui %log_team, %log_warp : index
// CHECK-NEXT:      %{{.*}} = scf.for %e = %{{.*}} to %log_in_warp step %{{.*}} iter_args(
// CHECK:             kernel.shuffle xor %{{.*}}, %{{.*}} width 32 : i32
// CHECK:           %wider_than_warp = arith.cmpi ugt, %log_team, %log_warp : index
// CHECK-NEXT:      %{{.*}} = scf.if %wider_than_warp -> (f32) {
// CHECK-NEXT:        kernel.store %{{.*}}, %local[%tid] : f32, !kernel.buffer<local, f32>
// CHECK-NEXT:        kernel.barrier local
// CHECK-NEXT:        scf.for %e_1 = %log_in_warp to %log_team step %{{.*}} {
// CHECK:           %leader = arith.andi %active, %{{.*}} : i1
// CHECK:           kernel.store %{{.*}}, %sums_parts[%unit] : f32, !kernel.buffer<global, f32>
// CHECK:           kernel.store %{{.*}}, %sums[%segment] : f32, !kernel.buffer<global, f32>
// CHECK:         kernel.return

// CHECK-LABEL: kernel.func @device_segred_vector_0(
// CHECK:         %short_rows = arith.cmpi ule, %quads, %{{.*}} : index
// CHECK-NEXT:    %one_vector_rows = arith.cmpi ule, %quads, %{{.*}} : index
// CHECK-NEXT:    scf.if %one_vector_rows {
// CHECK:           kernel.vector_load %xss[%{{.*}}] width 4 align 16 : !kernel.buffer<global, f32>
// CHECK:           scf.for %e = %{{.*}} to %log_vector_team step
// CHECK:             kernel.shuffle xor %{{.*}}, %{{.*}} width 32 : i32
// CHECK:         %two_vector_rows = arith.andi %short_rows, %{{.*}} : i1
// CHECK-NEXT:    scf.if %two_vector_rows {
// CHECK:           kernel.vector_load %xss[%{{.*}}] width 4 align 16 : !kernel.buffer<global, f32>
// CHECK:         %[[LONG:.*]] = arith.xori %short_rows, %{{.*}} : i1
// CHECK-NEXT:    scf.if %[[LONG]] {
// CHECK:           kernel.vector_load %xss[%{{.*}}] width 4 align 16 : !kernel.buffer<global, f32>
// CHECK:         kernel.return

// CHECK-LABEL: kernel.func @device_segred_parts_0(
// CHECK:         scf.for %s = %group to %xss_d0 step %num_groups {
// CHECK:           kernel.load %sums_parts[
// CHECK:         kernel.return

// CHECK-LABEL: kernel.func @device_segred_thread_0(
// CHECK-NOT:     kernel.barrier
// CHECK:         scf.for %s = %gid to %xss_d0 step %gsize {
// CHECK-NOT:     kernel.barrier
// CHECK:         kernel.return

// CHECK-LABEL: kernel.func @in_group_segmap_group_0(
// CHECK-NEXT:    %partial = kernel.local_alloc 256 : !kernel.buffer<local, f32>
// CHECK:         scf.for %s = %group to %xss_d0 step %num_groups {
// CHECK-NEXT:      kernel.barrier local global
// CHECK-NEXT:      %{{.*}} = scf.for %j = %tid to %n step %{{.*}} iter_args(
// CHECK:           kernel.store %{{.*}}, %partial[%tid] : f32, !kernel.buffer<local, f32>
// CHECK-NEXT:      kernel.barrier local
// CHECK:           %active = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK:           kernel.barrier local global
// CHECK:           kernel.store %{{.*}}, %sums[%s] : f32, !kernel.buffer<global, f32>
// CHECK:         kernel.return

// CHECK-LABEL: kernel.func @scan_in_group_segmap_group_0(
// CHECK:         scf.for %s = %group to %xss_d0 step %num_groups {
// CHECK:           %lo = arith.minui %{{.*}}, %xss_d1 : index
// CHECK:           %hi = arith.minui %{{.*}}, %xss_d1 : index
// CHECK:           %{{.*}} = scf.for %j = %lo to %hi step
// CHECK:           kernel.store %{{.*}}, %partial[%tid] : f32, !kernel.buffer<local, f32>
// CHECK:           scf.for %e = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %stride = arith.shli %{{.*}}, %e : index
// CHECK-NEXT:        %has_partner = arith.cmpi uge, %tid, %stride : index
// CHECK:           %{{.*}} = scf.for %j_1 = %lo to %hi step %{{.*}} iter_args(
// CHECK:             kernel.store %{{.*}}, %group_f32[%{{.*}}] : f32, !kernel.buffer<global, f32>
// CHECK:           kernel.barrier local global
// CHECK:           scf.for %e_1 = %tid to %xss_d1 step
// CHECK:             kernel.store %{{.*}}, %rows[%{{.*}}] : f32, !kernel.buffer<global, f32>
// CHECK:         kernel.return

// Without warps: no shuffles; teams combine by a tree in local memory, the vector kernel has two loops, and a
// segscan that the target has no look-back scan for gets a group or a work-item per segment.

// GENERIC-LABEL: kernel.func @device_segred_teams_0(
// GENERIC-NOT:     kernel.shuffle
// GENERIC:         kernel.barrier local
// GENERIC-NOT:     kernel.shuffle
// GENERIC:         kernel.return
// GENERIC-LABEL: kernel.func @device_segred_vector_0(
// GENERIC-NOT:     kernel.shuffle
// GENERIC-NOT:     one_vector_rows
// GENERIC:         %short_rows = arith.cmpi ule, %quads, %{{.*}} : index
// GENERIC-NEXT:    scf.if %short_rows {
// GENERIC:           kernel.vector_load %xss[%{{.*}}] width 4 align 16 : !kernel.buffer<global, f32>
// GENERIC:           kernel.barrier local
// GENERIC-NOT:     kernel.shuffle
// GENERIC:         kernel.return
// GENERIC-LABEL: kernel.func @device_segscan_group_0(
// GENERIC:         scf.for %s = %group to %xss_d0 step %num_groups {
// GENERIC:           kernel.barrier local
// GENERIC:         kernel.return
// GENERIC-LABEL: kernel.func @device_segscan_thread_0(
// GENERIC-NOT:     kernel.barrier
// GENERIC:         scf.for %s = %gid to %xss_d0 step %gsize {
// GENERIC-NOT:     kernel.barrier
// GENERIC:         kernel.return

// TWO-LOOPS-LABEL: kernel.func @device_segred_vector_0(
// TWO-LOOPS-NOT:     one_vector_rows
// TWO-LOOPS:         %short_rows = arith.cmpi ule, %quads, %{{.*}} : index
// TWO-LOOPS-NEXT:    scf.if %short_rows {
// TWO-LOOPS:           kernel.shuffle xor
// TWO-LOOPS-NOT:     one_vector_rows
// TWO-LOOPS:         kernel.return

// On CPUs a group-level segmap runs a work-item per element, its segops sequential: no barriers, no local memory.

// CPU-LABEL: kernel.func @in_group_segmap_0(
// CPU-NOT:     kernel.barrier
// CPU-NOT:     kernel.local_alloc
// CPU:         kernel.return
// CPU-LABEL: kernel.func @scan_in_group_segmap_0(
// CPU-NOT:     kernel.barrier
// CPU-NOT:     kernel.local_alloc
// CPU:         kernel.return

func.func @device(%xss: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %sums = soac.segred thread (%m, %n) neutral(%zero : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %s = arith.addf %a, %b : f32
    soac.yield %s : f32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
    soac.yield %x : f32
  }
  %scans = soac.segscan thread (%m, %n) neutral(%zero : f32) -> tensor<?x?xf32> combine(%a: f32, %b: f32) {
    %s = arith.addf %a, %b : f32
    soac.yield %s : f32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
    soac.yield %x : f32
  }
  func.return %sums, %scans : tensor<?xf32>, tensor<?x?xf32>
}

func.func @in_group(%xss: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %sums = soac.segmap group (%m) -> tensor<?xf32> lambda(%i: index) {
    %s = soac.segred thread (%n) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      soac.yield %t : f32
    } lambda(%j: index) {
      %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
      soac.yield %x : f32
    }
    soac.yield %s : f32
  }
  func.return %sums : tensor<?xf32>
}

func.func @scan_in_group(%xss: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %rows = soac.segmap group (%m) -> tensor<?x?xf32> lambda(%i: index) {
    %s = soac.segscan thread (%n) neutral(%zero : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      soac.yield %t : f32
    } lambda(%j: index) {
      %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
      soac.yield %x : f32
    }
    soac.yield %s : tensor<?xf32>
  }
  func.return %rows : tensor<?x?xf32>
}
