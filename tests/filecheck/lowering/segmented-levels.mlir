// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia}' | filecheck %s
// RUN: soac-opt %s -p 'soac-to-kernel{target=generic}' | filecheck %s --check-prefix=GENERIC
// RUN: soac-opt %s -p 'soac-to-kernel{target=cpu}' | filecheck %s --check-prefix=CPU
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia segred=teams segscan=thread}' | filecheck %s --check-prefix=TEAMS
// RUN: soac-opt %s -p 'soac-to-kernel{target=nvidia segred=thread segscan=group}' | filecheck %s --check-prefix=THREAD

// The kernels of each level. At function level the whole device runs a segred or segscan: the host launches the
// strategy that suits the segment length (the others get global size 0): a work-item per segment for segments of
// at most 4 (and, on CPUs, for as many segments as groups), else the vector kernel for plain rows of 32-bit values
// (n % 4 == 0), else teams, with a second stage (`segred_parts`) for long segments split over several groups.
// A segscan is one flat look-back scan where the target has one; elsewhere a work-item per segment for segments
// under half a group, else a group per segment. Nested in a group-level segmap, the segred is the group's: no
// kernel of its own. The `segred` and `segscan` options force one strategy.

// CHECK-LABEL: func.func @device(
// CHECK:         %tiny = arith.cmpi ule, %xss_d1, %{{.*}} : index
// CHECK:         %vector = arith.andi %vector_ok, %{{.*}} : i1
// CHECK:         %global_size_{{[0-9]+}} = arith.select %tiny, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    kernel.launch @device_segred_teams_0({{.*}} global %global_size_{{[0-9]+}} local
// CHECK:         kernel.launch @device_segred_vector_0(
// CHECK:         kernel.launch @device_segred_parts_0(
// CHECK:         %global_size_{{[0-9]+}} = arith.select %tiny, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    kernel.launch @device_segred_thread_0({{.*}} global %global_size_{{[0-9]+}} local
// CHECK:         kernel.launch @device_scan_init_0(
// CHECK:         kernel.launch @device_scan_lookback_0(
// CHECK-NOT:     kernel.launch @device_segscan
// CHECK:         func.return
// CHECK-LABEL: func.func @in_group(
// CHECK-NOT:     segred
// CHECK:         kernel.launch @in_group_segmap_group_0(
// CHECK-NOT:     kernel.launch
// CHECK:         func.return

// GENERIC-LABEL: func.func @device(
// GENERIC:         kernel.launch @device_segred_teams_0(
// GENERIC:         kernel.launch @device_segred_vector_0(
// GENERIC:         kernel.launch @device_segred_parts_0(
// GENERIC:         kernel.launch @device_segred_thread_0(
// GENERIC:         %short = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// GENERIC:         %global_size_{{[0-9]+}} = arith.select %short, %{{.*}}, %{{.*}} : index
// GENERIC-NEXT:    kernel.launch @device_segscan_group_0({{.*}} global %global_size_{{[0-9]+}} local
// GENERIC:         %global_size_{{[0-9]+}} = arith.select %short, %{{.*}}, %{{.*}} : index
// GENERIC-NEXT:    kernel.launch @device_segscan_thread_0({{.*}} global %global_size_{{[0-9]+}} local
// GENERIC-NEXT:    func.return
// GENERIC-LABEL: func.func @in_group(
// GENERIC-NOT:     segred
// GENERIC:         kernel.launch @in_group_segmap_group_0(

// CPU-LABEL: func.func @device(
// CPU:         %tiny = arith.cmpi ule, %xss_d1, %{{.*}} : index
// CPU-NEXT:    %many_segments = arith.cmpi uge, %xss_d0, %{{.*}} : index
// CPU-NEXT:    %per_thread = arith.ori %tiny, %many_segments : i1
// CPU:         kernel.launch @device_segred_teams_0(
// CPU:         kernel.launch @device_segred_thread_0(
// CPU:         %per_thread_1 = arith.ori %short, %many_segments_1 : i1
// CPU:         kernel.launch @device_segscan_group_0(
// CPU:         kernel.launch @device_segscan_thread_0(
// CPU-LABEL: func.func @in_group(
// CPU-NOT:     segred
// CPU:         kernel.launch @in_group_segmap_0(

// TEAMS-LABEL: func.func @device(
// TEAMS-NOT:     @device_segred_vector
// TEAMS-NOT:     @device_segred_thread
// TEAMS:         kernel.launch @device_segred_teams_0(
// TEAMS:         kernel.launch @device_segred_parts_0(
// TEAMS-NOT:     @device_segred_thread
// TEAMS-NOT:     @device_scan_lookback
// TEAMS:         kernel.launch @device_segscan_thread_0(
// TEAMS-NEXT:    func.return

// THREAD-LABEL: func.func @device(
// THREAD-NOT:     @device_segred_teams
// THREAD:         kernel.launch @device_segred_thread_0(
// THREAD-NOT:     @device_segscan_thread
// THREAD-NOT:     @device_scan_lookback
// THREAD:         kernel.launch @device_segscan_group_0(
// THREAD-NEXT:    func.return

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
