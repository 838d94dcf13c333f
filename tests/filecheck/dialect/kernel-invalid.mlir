// RUN: soac-opt %s --verify-diagnostics --split-input-file | filecheck %s

// The verifiers of the kernel dialect's ops: one failure mode each, reported at the op with its problem.
// (Values outside an enumeration, such as an unknown scope or atomic kind, are parse errors:
// kernel-parse-errors.mlir.)

// A vector access is 2, 4, 8 or 16 elements wide.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %f0, %f1, %f2 = kernel.vector_load %fs[%gid] width 3 align 12 : !kernel.buffer<global, f32>
  kernel.return
}

// CHECK:      {{.*}}kernel-invalid.mlir:10:3
// CHECK:      error: 'kernel.vector_load' width must be one of 2, 4, 8, 16, got 3

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  kernel.vector_store %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a into %xs[%gid] align 128 : !kernel.buffer<global, i32>
  kernel.return
}

// CHECK: error: 'kernel.vector_store' width must be one of 2, 4, 8, 16, got 32

// -----
// Its alignment is the vector's size.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %v:4 = kernel.vector_load %xs[%gid] width 4 align 4 : !kernel.buffer<global, i32>
  kernel.return
}

// CHECK: error: 'kernel.vector_load' of 4 x i32 needs an alignment of 16 bytes (the vector's size), got 4

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  kernel.vector_store %f, %f into %fs[%gid] align 16 : !kernel.buffer<global, f32>
  kernel.return
}

// CHECK: error: 'kernel.vector_store' of 2 x f32 needs an alignment of 8 bytes (the vector's size), got 16

// -----
// Buffers store i1 as bytes, which vectors cannot load.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %flags = kernel.local_alloc 64 : !kernel.buffer<local, i1>
  %p0, %p1 = kernel.vector_load %flags[%gid] width 2 align 2 : !kernel.buffer<local, i1>
  kernel.return
}

// CHECK: error: 'kernel.vector_load' cannot access vectors of i1

// -----
// Volatile vectors are of 32- or 64-bit words (each read or written whole).
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %bytes = kernel.local_alloc 64 : !kernel.buffer<local, i8>
  %b:4 = kernel.vector_load %bytes[%gid] width 4 align 4 volatile : !kernel.buffer<local, i8>
  kernel.return
}

// CHECK: error: 'kernel.vector_load' volatile accesses vectors of 32- or 64-bit words, not of i8

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %shorts = kernel.local_alloc 64 : !kernel.buffer<local, i16>
  %h = arith.constant 1 : i16
  kernel.vector_store %h, %h into %shorts[%gid] align 4 volatile : !kernel.buffer<local, i16>
  kernel.return
}

// CHECK: error: 'kernel.vector_store' volatile accesses vectors of 32- or 64-bit words, not of i16

// -----
// Elements have the buffer's type.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %e:4 = "kernel.vector_load"(%xs, %gid) <{align = 16 : i64}> : (!kernel.buffer<global, i32>, index) -> (i32, i32, f32, i32)
  kernel.return
}

// CHECK: error: 'kernel.vector_load' result has type f32 but the buffer holds i32

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  "kernel.vector_store"(%a, %a, %f, %a, %xs, %gid) <{align = 16 : i64}> : (i32, i32, f32, i32, !kernel.buffer<global, i32>, index) -> ()
  kernel.return
}

// CHECK: error: 'kernel.vector_store' value has type f32 but the buffer holds i32

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %r = kernel.atomic_load %xs[%gid] relaxed device : !kernel.buffer<global, i32> -> i64
  kernel.return
}

// CHECK: error: 'kernel.atomic_load' result has type i64 but the buffer holds i32

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  kernel.atomic_store %a, %ws[%gid] release device : i32, !kernel.buffer<global, i64>
  kernel.return
}

// CHECK: error: 'kernel.atomic_store' value has type i32 but the buffer holds i64

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %old = kernel.atomic add %xs[%gid], %w : !kernel.buffer<global, i32>, i64
  kernel.return
}

// CHECK: error: 'kernel.atomic' value has type i64 but the buffer holds i32

// -----
// Loads acquire, stores release.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %r = kernel.atomic_load %ws[%gid] release device : !kernel.buffer<global, i64> -> i64
  kernel.return
}

// CHECK: error: 'kernel.atomic_load' order must be one of relaxed, acquire, got 'release'

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  kernel.atomic_store %w, %ws[%gid] acquire device : i64, !kernel.buffer<global, i64>
  kernel.return
}

// CHECK: error: 'kernel.atomic_store' order must be one of relaxed, release, got 'acquire'

// -----
// Only its work-group sees a local buffer.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %tile = kernel.local_alloc 64 : !kernel.buffer<local, i32>
  %r = kernel.atomic_load %tile[%gid] relaxed device : !kernel.buffer<local, i32> -> i32
  kernel.return
}

// CHECK: error: 'kernel.atomic_load' on a local buffer needs scope workgroup (only its work-group sees it), got 'device'

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %tile = kernel.local_alloc 64 : !kernel.buffer<local, i32>
  kernel.atomic_store %a, %tile[%gid] relaxed device : i32, !kernel.buffer<local, i32>
  kernel.return
}

// CHECK: error: 'kernel.atomic_store' on a local buffer needs scope workgroup (only its work-group sees it), got 'device'

// -----
// Atomic accesses are of 32- or 64-bit elements.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %bytes = kernel.local_alloc 64 : !kernel.buffer<local, i8>
  %r = kernel.atomic_load %bytes[%gid] relaxed workgroup : !kernel.buffer<local, i8> -> i8
  kernel.return
}

// CHECK: error: 'kernel.atomic_load' accesses 32- or 64-bit elements atomically, not i8

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %shorts = kernel.local_alloc 64 : !kernel.buffer<local, i16>
  %h = arith.constant 1 : i16
  kernel.atomic_store %h, %shorts[%gid] release workgroup : i16, !kernel.buffer<local, i16>
  kernel.return
}

// CHECK: error: 'kernel.atomic_store' accesses 32- or 64-bit elements atomically, not i16

// -----
// A fence names what it orders.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  kernel.fence scope device
  kernel.return
}

// CHECK: error: 'kernel.fence' fences one or both of local, global; got neither

// -----
// Of the float atomics, only `add` on f32.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %old = kernel.atomic max %fs[%gid], %f : !kernel.buffer<global, f32>, f32
  kernel.return
}

// CHECK: error: 'kernel.atomic' works on i32 or i64 elements, not f32

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %shorts = kernel.local_alloc 64 : !kernel.buffer<local, i16>
  %h = arith.constant 1 : i16
  %old = kernel.atomic add %shorts[%gid], %h : !kernel.buffer<local, i16>, i16
  kernel.return
}

// CHECK: error: 'kernel.atomic' works on i32 or i64 elements, not i16

// -----
// Compare-and-swap on floats swaps their bits.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %was = "kernel.atomic_cmpxchg"(%fs, %gid, %f, %f) : (!kernel.buffer<global, f32>, index, f32, f32) -> f32
  kernel.return
}

// CHECK: error: 'kernel.atomic_cmpxchg' expected value has type f32 but a buffer of f32 swaps i32 bits

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %shorts = kernel.local_alloc 64 : !kernel.buffer<local, i16>
  %h = arith.constant 1 : i16
  %was = "kernel.atomic_cmpxchg"(%shorts, %gid, %h, %h) : (!kernel.buffer<local, i16>, index, i16, i16) -> i16
  kernel.return
}

// CHECK: error: 'kernel.atomic_cmpxchg' works on i32, i64, f32 or f64 elements, not i16

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %was = "kernel.atomic_cmpxchg"(%xs, %gid, %w, %a) : (!kernel.buffer<global, i32>, index, i64, i32) -> i32
  kernel.return
}

// CHECK: error: 'kernel.atomic_cmpxchg' expected value has type i64 but the buffer holds i32

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %was = "kernel.atomic_cmpxchg"(%xs, %gid, %a, %w) : (!kernel.buffer<global, i32>, index, i32, i64) -> i32
  kernel.return
}

// CHECK: error: 'kernel.atomic_cmpxchg' new value has type i64 but the buffer holds i32

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %was = "kernel.atomic_cmpxchg"(%xs, %gid, %a, %a) : (!kernel.buffer<global, i32>, index, i32, i32) -> i64
  kernel.return
}

// CHECK: error: 'kernel.atomic_cmpxchg' result has type i64 but the buffer holds i32

// -----
// Shuffles move 32-bit values between lanes of power-of-two sub-groups.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %lane = arith.constant 1 : i32
  %s = kernel.shuffle up %w, %lane width 32 : i64
  kernel.return
}

// CHECK: error: 'kernel.shuffle' moves 32-bit values (i32 or f32), not i64

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %lane = arith.constant 1 : i32
  %h = arith.trunci %a : i32 to i16
  %s = kernel.shuffle up %h, %lane width 32 : i16
  kernel.return
}

// CHECK: error: 'kernel.shuffle' moves 32-bit values (i32 or f32), not i16

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %lane = arith.constant 1 : i32
  %s = kernel.shuffle idx %a, %lane width 48 : i32
  kernel.return
}

// CHECK: error: 'kernel.shuffle' width must be a power of two from 2 to 64, got 48

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %lane = arith.constant 1 : i32
  %s = kernel.shuffle idx %a, %lane width 1 : i32
  kernel.return
}

// CHECK: error: 'kernel.shuffle' width must be a power of two from 2 to 64, got 1

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %lane = arith.constant 1 : i32
  %s = kernel.shuffle idx %a, %lane width 128 : i32
  kernel.return
}

// CHECK: error: 'kernel.shuffle' width must be a power of two from 2 to 64, got 128

// -----
// The lane is an i32, and the result has the value's type.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %s = "kernel.shuffle"(%a, %w) <{mode = #kernel<shuffle_mode up>, width = 32 : i64}> : (i32, i64) -> i32
  kernel.return
}

// CHECK:      error: operand 'lane' at position 1 does not verify
// CHECK-NEXT: Expected attribute i32 but got i64

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %lane = arith.constant 1 : i32
  %s = "kernel.shuffle"(%a, %lane) <{mode = #kernel<shuffle_mode up>, width = 32 : i64}> : (i32, i32) -> f32
  kernel.return
}

// CHECK:      error: result 'result' at position 0 does not verify
// CHECK-NEXT: attribute i32 expected from variable 'T', but got f32

// -----
// A ballot's mask is an i32.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %p = arith.cmpi eq, %a, %a : i32
  %m = kernel.ballot %p width 64
  kernel.return
}

// CHECK: error: 'kernel.ballot' gives an i32 mask, so its width is at most 32, got 64

// -----
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  %p = arith.cmpi eq, %a, %a : i32
  %m = kernel.ballot %p width 24
  kernel.return
}

// CHECK: error: 'kernel.ballot' width must be a power of two from 2 to 64, got 24

// -----
// A private array is in private memory.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %r = "kernel.private_alloc"() <{size = 4 : i64}> : () -> !kernel.buffer<local, i32>
  kernel.return
}

// CHECK: error: 'kernel.private_alloc' expects a private buffer, got !kernel.buffer<local, i32>

// -----
// A match's mask is an i32, of an i32 value.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %m = kernel.match_any %a width 64 : i32
  kernel.return
}

// CHECK: error: 'kernel.match_any' gives an i32 mask, so its width is at most 32, got 64

// -----
// A barrier fences local or global memory, or both.
kernel.func @k(%xs: !kernel.buffer<global, i32>, %fs: !kernel.buffer<global, f32>, %ws: !kernel.buffer<global, i64>, %a: i32, %w: i64, %f: f32) {
  %gid = kernel.global_id 0
  kernel.barrier
  kernel.return
}

// CHECK: error: 'kernel.barrier' needs at least one fence flag (local or global)

// -----
// Device ops belong in a kernel.func, not in host code.

func.func @host(%xs: !kernel.buffer<global, i32>, %ws: !kernel.buffer<global, i64>, %i: index, %a: i32, %p: i1) {
  %v:2 = kernel.vector_load %xs[%i] width 2 align 8 : !kernel.buffer<global, i32>
  func.return
}

// CHECK: error: 'kernel.vector_load' expects ancestor op 'kernel.func'

// -----

func.func @host(%xs: !kernel.buffer<global, i32>, %ws: !kernel.buffer<global, i64>, %i: index, %a: i32, %p: i1) {
  kernel.vector_store %a, %a into %xs[%i] align 8 : !kernel.buffer<global, i32>
  func.return
}

// CHECK: error: 'kernel.vector_store' expects ancestor op 'kernel.func'

// -----

func.func @host(%xs: !kernel.buffer<global, i32>, %ws: !kernel.buffer<global, i64>, %i: index, %a: i32, %p: i1) {
  %r = kernel.atomic_load %ws[%i] acquire device : !kernel.buffer<global, i64> -> i64
  func.return
}

// CHECK: error: 'kernel.atomic_load' expects ancestor op 'kernel.func'

// -----

func.func @host(%xs: !kernel.buffer<global, i32>, %ws: !kernel.buffer<global, i64>, %i: index, %a: i32, %p: i1) {
  kernel.atomic_store %a, %xs[%i] release device : i32, !kernel.buffer<global, i32>
  func.return
}

// CHECK: error: 'kernel.atomic_store' expects ancestor op 'kernel.func'

// -----

func.func @host(%xs: !kernel.buffer<global, i32>, %ws: !kernel.buffer<global, i64>, %i: index, %a: i32, %p: i1) {
  kernel.fence global scope device
  func.return
}

// CHECK: error: 'kernel.fence' expects ancestor op 'kernel.func'

// -----

func.func @host(%xs: !kernel.buffer<global, i32>, %ws: !kernel.buffer<global, i64>, %i: index, %a: i32, %p: i1) {
  %old = kernel.atomic add %xs[%i], %a : !kernel.buffer<global, i32>, i32
  func.return
}

// CHECK: error: 'kernel.atomic' expects ancestor op 'kernel.func'

// -----

func.func @host(%xs: !kernel.buffer<global, i32>, %ws: !kernel.buffer<global, i64>, %i: index, %a: i32, %p: i1) {
  %old = kernel.atomic_cmpxchg %xs[%i], %a, %a : !kernel.buffer<global, i32>
  func.return
}

// CHECK: error: 'kernel.atomic_cmpxchg' expects ancestor op 'kernel.func'

// -----

func.func @host(%xs: !kernel.buffer<global, i32>, %ws: !kernel.buffer<global, i64>, %i: index, %a: i32, %p: i1) {
  %s = kernel.shuffle down %a, %a width 32 : i32
  func.return
}

// CHECK: error: 'kernel.shuffle' expects ancestor op 'kernel.func'

// -----

func.func @host(%xs: !kernel.buffer<global, i32>, %ws: !kernel.buffer<global, i64>, %i: index, %a: i32, %p: i1) {
  %m = kernel.ballot %p width 32
  func.return
}

// CHECK: error: 'kernel.ballot' expects ancestor op 'kernel.func'

// -----
// Work-items are queried along dimension 0, 1 or 2.

kernel.func @k() {
  %gid = kernel.global_id 3
  kernel.return
}

// CHECK: error: 'kernel.global_id' dimension must be 0, 1 or 2, got 3

// -----
// Local memory has a positive size known when the kernel is built, in the local space.

kernel.func @k() {
  %tile = kernel.local_alloc 0 : !kernel.buffer<local, f32>
  kernel.return
}

// CHECK: error: 'kernel.local_alloc' size must be positive, got 0

// -----

kernel.func @k() {
  %tile = kernel.local_alloc 64 : !kernel.buffer<global, f32>
  kernel.return
}

// CHECK: error: 'kernel.local_alloc' expects a local buffer, got !kernel.buffer<global, f32>

// -----
// A kernel's index is 32 or 64 bits wide.
kernel.func @k(%n: index) index_bitwidth 16 {
  kernel.return
}

// CHECK:      error: 'kernel.func' @k: index_bitwidth must be 32 or 64, got 16
