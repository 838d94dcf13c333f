// RUN: soac-opt %s | filecheck %s
// RUN: soac-opt %s -t opencl | filecheck %s --check-prefix=OPENCL

// A work-item's private array, filled and read in loops marked `kernel.unroll`: OpenCL C unrolls them
// (`#pragma unroll`), so the array's indices are constants and it stays in registers.

// CHECK:      %regs = kernel.private_alloc 4 : !kernel.buffer<private, i32>
// CHECK:      scf.for %e = %c0 to %c4 step %c1 {
// CHECK:      } {kernel.unroll}

// OPENCL:      __kernel void keep(__global int *xs) {
// OPENCL:        int regs[4];
// OPENCL-NEXT:   #pragma unroll
// OPENCL-NEXT:   for (long e = 0L; e < 4L; e++) {
// OPENCL:          regs[e] = v;
// OPENCL:        #pragma unroll
// OPENCL-NEXT:   for (long e_1 = 0L; e_1 < 4L; e_1++) {
// OPENCL:          const int r = regs[e_1];

builtin.module attributes {kernel.target = "nvidia"} {
  kernel.func @keep(%xs: !kernel.buffer<global, i32>) {
    %gid = kernel.global_id 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %regs = kernel.private_alloc 4 : !kernel.buffer<private, i32>
    scf.for %e = %c0 to %c4 step %c1 {
      %at = arith.addi %gid, %e : index
      %v = kernel.load %xs[%at] : !kernel.buffer<global, i32> -> i32
      kernel.store %v, %regs[%e] : i32, !kernel.buffer<private, i32>
    } {kernel.unroll}
    scf.for %e = %c0 to %c4 step %c1 {
      %r = kernel.load %regs[%e] : !kernel.buffer<private, i32> -> i32
      %twice = arith.addi %r, %r : i32
      %at = arith.addi %gid, %e : index
      kernel.store %twice, %xs[%at] : i32, !kernel.buffer<global, i32>
    } {kernel.unroll}
    kernel.return
  }
}
