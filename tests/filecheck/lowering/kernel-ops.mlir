// RUN: soac-opt %s | filecheck %s
// RUN: SOAC_ROUNDTRIP
// RUN: soac-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: soac-opt %s -t opencl | filecheck %s --check-prefix=OPENCL

// The kernel dialect's memory and sub-group ops, printed back as written (also from the generic form), and their
// OpenCL C for the NVIDIA target (sub-group ops as inline PTX).

// CHECK:      builtin.module attributes {kernel.target = "nvidia"} {
// CHECK-NEXT:   kernel.func @ops(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>) {
// CHECK-NEXT:     %gid = kernel.global_id 0
// CHECK-NEXT:     %tile = kernel.local_alloc 64 : !kernel.buffer<local, i32>
// CHECK-NEXT:     %a, %b, %c, %d = kernel.vector_load %xs[%gid] width 4 align 16 : !kernel.buffer<global, i32>
// CHECK-NEXT:     kernel.vector_store %d, %c, %b, %a into %xs[%gid] align 16 : !kernel.buffer<global, i32>
// CHECK-NEXT:     %f0, %f1 = kernel.vector_load %fs[%gid] width 2 align 8 : !kernel.buffer<global, f32>
// CHECK-NEXT:     %t0, %t1, %t2, %t3 = kernel.vector_load %tile[%gid] width 4 align 16 : !kernel.buffer<local, i32>
// CHECK-NEXT:     kernel.vector_store %t3, %t2, %t1, %t0 into %tile[%gid] align 16 : !kernel.buffer<local, i32>
// CHECK-NEXT:     %w = kernel.atomic_load %ws[%gid] acquire device : !kernel.buffer<global, i64> -> i64
// CHECK-NEXT:     kernel.atomic_store %w, %ws[%gid] release device : i64, !kernel.buffer<global, i64>
// CHECK-NEXT:     %w0, %w1 = kernel.vector_load %ws[%gid] width 2 align 16 volatile : !kernel.buffer<global, i64>
// CHECK-NEXT:     kernel.vector_store %w1, %w0 into %ws[%gid] align 16 volatile : !kernel.buffer<global, i64>
// CHECK-NEXT:     %r = kernel.atomic_load %tile[%gid] relaxed workgroup : !kernel.buffer<local, i32> -> i32
// CHECK-NEXT:     kernel.atomic_store %r, %tile[%gid] relaxed workgroup : i32, !kernel.buffer<local, i32>
// CHECK-NEXT:     kernel.fence local global scope workgroup
// CHECK-NEXT:     kernel.fence global scope device
// CHECK-NEXT:     %add = kernel.atomic add %xs[%gid], %a : !kernel.buffer<global, i32>, i32
// CHECK-NEXT:     %umin = kernel.atomic umin %xs[%gid], %b : !kernel.buffer<global, i32>, i32
// CHECK-NEXT:     %max = kernel.atomic max %ws[%gid], %w : !kernel.buffer<global, i64>, i64
// CHECK-NEXT:     %or = kernel.atomic or %tile[%gid], %c : !kernel.buffer<local, i32>, i32
// CHECK-NEXT:     %was = kernel.atomic_cmpxchg %xs[%gid], %a, %d : !kernel.buffer<global, i32>
// CHECK-NEXT:     %was64 = kernel.atomic_cmpxchg %ws[%gid], %w, %max : !kernel.buffer<global, i64>
// CHECK-NEXT:     %lane = arith.constant 1 : i32
// CHECK-NEXT:     %up = kernel.shuffle up %a, %lane width 32 : i32
// CHECK-NEXT:     %down = kernel.shuffle down %f0, %lane width 16 : f32
// CHECK-NEXT:     %idx = kernel.shuffle idx %b, %lane width 32 : i32
// CHECK-NEXT:     %bfly = kernel.shuffle xor %c, %lane width 32 : i32
// CHECK-NEXT:     %p = arith.cmpi eq, %a, %b : i32
// CHECK-NEXT:     %mask = kernel.ballot %p width 32
// CHECK-NEXT:     %same = kernel.match_any %b width 32 : i32
// CHECK-NEXT:     kernel.return
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GENERIC:      %a, %b, %c, %d = "kernel.vector_load"(%xs, %gid) <{align = 16 : i64}> : (!kernel.buffer<global, i32>, index) -> (i32, i32, i32, i32)
// GENERIC-NEXT: "kernel.vector_store"(%d, %c, %b, %a, %xs, %gid) <{align = 16 : i64}> : (i32, i32, i32, i32, !kernel.buffer<global, i32>, index) -> ()
// GENERIC:      %w = "kernel.atomic_load"(%ws, %gid) <{order = #kernel<order acquire>, scope = #kernel<scope device>}> : (!kernel.buffer<global, i64>, index) -> i64
// GENERIC-NEXT: "kernel.atomic_store"(%w, %ws, %gid) <{order = #kernel<order release>, scope = #kernel<scope device>}> : (i64, !kernel.buffer<global, i64>, index) -> ()
// GENERIC-NEXT: %w0, %w1 = "kernel.vector_load"(%ws, %gid) <{align = 16 : i64, volatile}> : (!kernel.buffer<global, i64>, index) -> (i64, i64)
// GENERIC-NEXT: "kernel.vector_store"(%w1, %w0, %ws, %gid) <{align = 16 : i64, volatile}> : (i64, i64, !kernel.buffer<global, i64>, index) -> ()
// GENERIC:      "kernel.fence"() <{local_fence, global_fence, scope = #kernel<scope workgroup>}> : () -> ()
// GENERIC:      %umin = "kernel.atomic"(%xs, %gid, %b) <{kind = #kernel<atomic_kind umin>}> : (!kernel.buffer<global, i32>, index, i32) -> i32
// GENERIC:      %was = "kernel.atomic_cmpxchg"(%xs, %gid, %a, %d) : (!kernel.buffer<global, i32>, index, i32, i32) -> i32
// GENERIC:      %down = "kernel.shuffle"(%f0, %lane) <{mode = #kernel<shuffle_mode down>, width = 16 : i64}> : (f32, i32) -> f32
// GENERIC:      %mask = "kernel.ballot"(%p) <{width = 32 : i64}> : (i1) -> i32
// GENERIC-NEXT: %same = "kernel.match_any"(%b) <{width = 32 : i64}> : (i32) -> i32

// OPENCL:      #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
// OPENCL-NEXT: #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
// OPENCL:      __kernel void ops(__global int *xs, __global float *restrict fs, __global long *ws) {
// OPENCL:        __local int tile[64] __attribute__((aligned(16)));
// OPENCL-NEXT:   const int4 vec = *(const __global int4*)(xs + gid);
// OPENCL-NEXT:   const int a = vec.s0;
// OPENCL-NEXT:   const int b = vec.s1;
// OPENCL-NEXT:   const int c = vec.s2;
// OPENCL-NEXT:   const int d = vec.s3;
// OPENCL-NEXT:   *(__global int4*)(xs + gid) = (int4)(d, c, b, a);
// OPENCL-NEXT:   const float2 vec_1 = *(const __global float2*)(fs + gid);
// OPENCL:        const int4 vec_2 = *(const __local int4*)(tile + gid);
// OPENCL:        *(__local int4*)(tile + gid) = (int4)(t3, t2, t1, t0);
// OPENCL-NEXT:   const long w = *(volatile __global long*)&ws[gid];
// OPENCL-NEXT:   asm volatile("membar.gl;" ::: "memory");
// OPENCL-NEXT:   asm volatile("membar.gl;" ::: "memory");
// OPENCL-NEXT:   *(volatile __global long*)&ws[gid] = w;
// OPENCL-NEXT:   const long2 vec_3 = *(const volatile __global long2*)(ws + gid);
// OPENCL-NEXT:   const long w0 = vec_3.s0;
// OPENCL-NEXT:   const long w1 = vec_3.s1;
// OPENCL-NEXT:   *(volatile __global long2*)(ws + gid) = (long2)(w1, w0);
// OPENCL-NEXT:   const int r = *(volatile __local int*)&tile[gid];
// OPENCL-NEXT:   *(volatile __local int*)&tile[gid] = r;
// OPENCL-NEXT:   mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
// OPENCL-NEXT:   asm volatile("membar.gl;" ::: "memory");
// OPENCL-NEXT:   const int add = atomic_add(&xs[gid], a);
// OPENCL-NEXT:   const int umin = (int)atomic_min((volatile __global uint*)&xs[gid], (uint)b);
// OPENCL-NEXT:   const long max_ = atom_max(&ws[gid], w);
// OPENCL-NEXT:   const int or = atomic_or(&tile[gid], c);
// OPENCL-NEXT:   const int was = atomic_cmpxchg(&xs[gid], a, d);
// OPENCL-NEXT:   const long was64 = atom_cmpxchg(&ws[gid], w, max_);
// OPENCL-NEXT:   int up;
// OPENCL-NEXT:   asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(up) : "r"(a), "r"(1));
// OPENCL-NEXT:   int shuffled;
// OPENCL-NEXT:   asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x100f, 0xffffffff;" : "=r"(shuffled) : "r"(as_int(f0)), "r"(1));
// OPENCL-NEXT:   const float down = as_float(shuffled);
// OPENCL-NEXT:   int idx;
// OPENCL-NEXT:   asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(idx) : "r"(b), "r"(1));
// OPENCL-NEXT:   int bfly;
// OPENCL-NEXT:   asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(bfly) : "r"(c), "r"(1));
// OPENCL-NEXT:   const bool p = a == b;
// OPENCL-NEXT:   int mask;
// OPENCL-NEXT:   asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }" : "=r"(mask) : "r"((uint)p));
// OPENCL-NEXT:   int same;
// OPENCL-NEXT:   asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(same) : "r"(b));
// OPENCL-NEXT: }

builtin.module attributes {kernel.target = "nvidia"} {
  kernel.func @ops(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>) {
    %gid = kernel.global_id 0
    %tile = kernel.local_alloc 64 : !kernel.buffer<local, i32>
    %a, %b, %c, %d = kernel.vector_load %xs[%gid] width 4 align 16 : !kernel.buffer<global, i32>
    kernel.vector_store %d, %c, %b, %a into %xs[%gid] align 16 : !kernel.buffer<global, i32>
    %f0, %f1 = kernel.vector_load %fs[%gid] width 2 align 8 : !kernel.buffer<global, f32>
    %t0, %t1, %t2, %t3 = kernel.vector_load %tile[%gid] width 4 align 16 : !kernel.buffer<local, i32>
    kernel.vector_store %t3, %t2, %t1, %t0 into %tile[%gid] align 16 : !kernel.buffer<local, i32>
    %w = kernel.atomic_load %ws[%gid] acquire device : !kernel.buffer<global, i64> -> i64
    kernel.atomic_store %w, %ws[%gid] release device : i64, !kernel.buffer<global, i64>
    %w0, %w1 = kernel.vector_load %ws[%gid] width 2 align 16 volatile : !kernel.buffer<global, i64>
    kernel.vector_store %w1, %w0 into %ws[%gid] align 16 volatile : !kernel.buffer<global, i64>
    %r = kernel.atomic_load %tile[%gid] relaxed workgroup : !kernel.buffer<local, i32> -> i32
    kernel.atomic_store %r, %tile[%gid] relaxed workgroup : i32, !kernel.buffer<local, i32>
    kernel.fence local global scope workgroup
    kernel.fence global scope device
    %add = kernel.atomic add %xs[%gid], %a : !kernel.buffer<global, i32>, i32
    %umin = kernel.atomic umin %xs[%gid], %b : !kernel.buffer<global, i32>, i32
    %max = kernel.atomic max %ws[%gid], %w : !kernel.buffer<global, i64>, i64
    %or = kernel.atomic or %tile[%gid], %c : !kernel.buffer<local, i32>, i32
    %was = kernel.atomic_cmpxchg %xs[%gid], %a, %d : !kernel.buffer<global, i32>
    %was64 = kernel.atomic_cmpxchg %ws[%gid], %w, %max : !kernel.buffer<global, i64>
    %lane = arith.constant 1 : i32
    %up = kernel.shuffle up %a, %lane width 32 : i32
    %down = kernel.shuffle down %f0, %lane width 16 : f32
    %idx = kernel.shuffle idx %b, %lane width 32 : i32
    %bfly = kernel.shuffle xor %c, %lane width 32 : i32
    %p = arith.cmpi eq, %a, %b : i32
    %mask = kernel.ballot %p width 32
    %same = kernel.match_any %b width 32 : i32
    kernel.return
  }
}
