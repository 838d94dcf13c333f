// RUN: soac-opt %s -p 'soac-to-kernel{group-size=64 max-groups=16}' | filecheck %s
// RUN: soac-opt %s -t opencl | filecheck %s --check-prefix=OPENCL

// Run-time checks. A kernel that can fail takes the call's error buffer; a failing
// check records its code and values there (the first failure of the call wins) and
// the faulty access is skipped. The message names the soac op and its location.

// CHECK:      func.func @gather(
// CHECK-NEXT:   %errors = kernel.error_buffer : !kernel.buffer<global, i64>
// CHECK:        kernel.assert %nonneg, "{{.*}}runtime-checks.mlir:{{[0-9]+}}:3: 'soac.map': negative width {0}" (%n : index)
// CHECK:        kernel.launch @gather_map_0(%is, %is_d0, %ys, %n, %xs, %xs_d0, %errors : {{.*}}, !kernel.buffer<global, i64>)
// CHECK:      kernel.func @gather_map_0({{.*}}, %errors: !kernel.buffer<global, i64>) {
// CHECK:          %i_1 = kernel.load %is[%i] : !kernel.buffer<global, index> -> index
// CHECK-NEXT:     %in_bounds = arith.cmpi ult, %i_1, %xs_d0 : index
// CHECK-NEXT:     kernel.device_assert %in_bounds in %errors code 1 "{{.*}}runtime-checks.mlir:{{[0-9]+}}:5: 'soac.index': index {0} is out of bounds for dimension 0 of size {1}" (%i_1, %xs_d0 : index, index)
// CHECK-NEXT:     %x = scf.if %in_bounds -> (f32) {
// CHECK-NEXT:       %{{.*}} = kernel.load %xs[%i_1] : !kernel.buffer<global, f32> -> f32
// CHECK-NEXT:       scf.yield %{{.*}} : f32
// CHECK-NEXT:     } else {
// CHECK-NEXT:       %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:       scf.yield %{{.*}} : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     kernel.store %x, %ys[%i] : f32, !kernel.buffer<global, f32>

// OPENCL:      __kernel void gather_map_0({{.*}}, __global long *restrict errors) {
// OPENCL:          const bool in_bounds = (ulong)i_1 < (ulong)xs_d0;
// OPENCL-NEXT:     if (!(in_bounds)) {
// OPENCL-NEXT:       if (atomic_cmpxchg((volatile __global int *)errors, 0, 1) == 0) {
// OPENCL-NEXT:         errors[1] = (long)i_1;
// OPENCL-NEXT:         errors[2] = (long)xs_d0;
// OPENCL-NEXT:       }
// OPENCL-NEXT:     }
// OPENCL-NEXT:     float x;
// OPENCL-NEXT:     if (in_bounds) {

func.func @gather(%n: index, %xs: tensor<?xf32>, %is: tensor<?xindex>) -> tensor<?xf32> {
  %ys = soac.map %n (%is : tensor<?xindex>) -> tensor<?xf32> lambda(%i: index) {
    %x = soac.index %xs[%i] : tensor<?xf32> -> f32
    soac.yield %x : f32
  }
  func.return %ys : tensor<?xf32>
}

// On the host, a check fails the run before the access (host divisions are checked by the runtime).

// CHECK:      func.func @pick(
// CHECK-NEXT:   %in_bounds = arith.cmpi ult, %i, %xs_d0 : index
// CHECK-NEXT:   kernel.assert %in_bounds, "{{.*}}runtime-checks.mlir:{{[0-9]+}}:3: 'soac.index': index {0} is out of bounds for dimension 0 of size {1}" (%i, %xs_d0 : index, index)
// CHECK-NEXT:   %x = kernel.read %xs[%i] : !kernel.buffer<global, f32> -> f32

func.func @pick(%xs: tensor<?xf32>, %i: index, %a: i32, %b: i32) -> (f32, i32) {
  %x = soac.index %xs[%i] : tensor<?xf32> -> f32
  %q = arith.divsi %a, %b : i32
  func.return %x, %q : f32, i32
}

// Indices of a segmented op over the sizes of the array it reads need no check, nor
// does a division by a constant other than 0 and -1: this kernel takes no error buffer.

// CHECK:      kernel.func @rows_segmap_0(%r: !kernel.buffer<global, i64>, %xss_d0: index, %xss_d1: index, %count: index, %xss: !kernel.buffer<global, i64>) {
// CHECK-NOT:    kernel.device_assert
// CHECK:        kernel.return

// Dividing by a variable: a zero divisor (or -1 under the smallest dividend) fails and becomes 1.

// CHECK:      kernel.func @rows_segmap_1(
// CHECK:          %nonzero = arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:     kernel.device_assert %nonzero in %errors code 2 "{{.*}}runtime-checks.mlir:{{[0-9]+}}:5: 'arith.divsi': integer division by zero"
// CHECK:          %divisor = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:     %z = arith.divsi %x, %divisor : i64

func.func @rows(%xss: tensor<?x?xi64>, %d: i64) -> (tensor<?x?xi64>, tensor<?x?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi64>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi64>
  %two = arith.constant 2 : i64
  %r = soac.segmap thread (%n, %m) -> tensor<?x?xi64> lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi64> -> i64
    %y = arith.divsi %x, %two : i64
    soac.yield %y : i64
  }
  %s = soac.segmap thread (%n, %m) -> tensor<?x?xi64> lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi64> -> i64
    %z = arith.divsi %x, %d : i64
    soac.yield %z : i64
  }
  func.return %r, %s : tensor<?x?xi64>, tensor<?x?xi64>
}
