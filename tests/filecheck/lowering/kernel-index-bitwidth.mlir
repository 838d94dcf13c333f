// RUN: soac-opt %s | filecheck %s
// RUN: soac-opt %s -t opencl | filecheck %s --check-prefix=OPENCL

// A kernel with `index_bitwidth 32`: its `index` values, scalar arguments, work-item ids and index constants are
// 32-bit in OpenCL C (on GPUs 64-bit integer arithmetic takes two instructions); its buffers keep their element types.
// The host launches such a kernel only where every index fits (see strategies/partition.py's versions).

// CHECK:      kernel.func @narrow(%xs: !kernel.buffer<global, i64>, %n: index) index_bitwidth 32 {
// CHECK:      kernel.func @wide(%xs: !kernel.buffer<global, i64>, %n: index) {

// OPENCL:      __kernel void narrow(__global long *restrict xs, const int n) {
// OPENCL-NEXT:   const int gid = (int)get_global_id(0);
// OPENCL-NEXT:   const int at = gid * 4096;
// OPENCL-NEXT:   const bool inside = (uint)at < (uint)n;
// OPENCL:          const int eighth = (int)((uint)gid >> (uint)3);
// OPENCL-NEXT:     const long wide = (long)eighth;
// OPENCL-NEXT:     xs[at] = wide;
// OPENCL:      __kernel void wide(__global long *restrict xs, const long n) {
// OPENCL-NEXT:   const long gid = (long)get_global_id(0);
// OPENCL-NEXT:   const long at = gid * 4096L;
// OPENCL-NEXT:   const bool inside = (ulong)at < (ulong)n;
// OPENCL:          const long eighth = (long)((ulong)gid >> (ulong)3L);

builtin.module attributes {kernel.target = "nvidia"} {
  kernel.func @narrow(%xs: !kernel.buffer<global, i64>, %n: index) index_bitwidth 32 {
    %gid = kernel.global_id 0
    %tile = arith.constant 4096 : index
    %three = arith.constant 3 : index
    %at = arith.muli %gid, %tile : index
    %inside = arith.cmpi ult, %at, %n : index
    scf.if %inside {
      %eighth = arith.shrui %gid, %three : index
      %wide = arith.index_cast %eighth : index to i64
      kernel.store %wide, %xs[%at] : i64, !kernel.buffer<global, i64>
    }
    kernel.return
  }
  kernel.func @wide(%xs: !kernel.buffer<global, i64>, %n: index) {
    %gid = kernel.global_id 0
    %tile = arith.constant 4096 : index
    %three = arith.constant 3 : index
    %at = arith.muli %gid, %tile : index
    %inside = arith.cmpi ult, %at, %n : index
    scf.if %inside {
      %eighth = arith.shrui %gid, %three : index
      %wide = arith.index_cast %eighth : index to i64
      kernel.store %wide, %xs[%at] : i64, !kernel.buffer<global, i64>
    }
    kernel.return
  }
}
