// RUN: soac-opt %s --parsing-diagnostics --split-input-file | filecheck %s

// The kernel dialect's enumerations (address space, memory order and scope, atomic kind, shuffle mode) are enum
// attributes: a value outside one is reported where it is written, with the values it may take.

kernel.func @k(%ws: !kernel.buffer<global, i64>) {
  %gid = kernel.global_id 0
  %w = kernel.atomic_load %ws[%gid] acquire system : !kernel.buffer<global, i64> -> i64
  kernel.return
}

// CHECK:      {{.*}}kernel-parse-errors.mlir:8:45
// CHECK-NEXT:   %w = kernel.atomic_load %ws[%gid] acquire system : !kernel.buffer<global, i64> -> i64
// CHECK-NEXT:                                             ^^^^^^
// CHECK-NEXT:                                             Expected `workgroup`, or `device`.

// -----

kernel.func @k(%ws: !kernel.buffer<global, i64>, %w: i64) {
  %gid = kernel.global_id 0
  kernel.atomic_store %w, %ws[%gid] seq_cst device : i64, !kernel.buffer<global, i64>
  kernel.return
}

// CHECK:      {{.*}}kernel-parse-errors.mlir:21:37
// CHECK:      Expected `relaxed`, `acquire`, or `release`.

// -----

kernel.func @k() {
  kernel.fence global scope subgroup
  kernel.return
}

// CHECK:      {{.*}}kernel-parse-errors.mlir:31:29
// CHECK:      Expected `workgroup`, or `device`.

// -----

// A fence names each space once, local before global.
kernel.func @k() {
  kernel.fence global global scope device
  kernel.return
}

// CHECK:      {{.*}}kernel-parse-errors.mlir:42:23
// CHECK:      Expected 'scope'

// -----

kernel.func @k(%xs: !kernel.buffer<global, i32>, %a: i32) {
  %gid = kernel.global_id 0
  %old = kernel.atomic nand %xs[%gid], %a : !kernel.buffer<global, i32>, i32
  kernel.return
}

// CHECK:      {{.*}}kernel-parse-errors.mlir:53:24
// CHECK:      Expected `add`, `sub`, `min`, `max`, `umin`, `umax`, `and`, `or`, `xor`, or `xchg`.

// -----

kernel.func @k(%a: i32) {
  %lane = arith.constant 1 : i32
  %s = kernel.shuffle bfly %a, %lane width 32 : i32
  kernel.return
}

// CHECK:      {{.*}}kernel-parse-errors.mlir:64:23
// CHECK:      Expected `up`, `down`, `idx`, or `xor`.

// -----

kernel.func @k(%xs: !kernel.buffer<constant, i32>) {
  kernel.return
}

// CHECK:      {{.*}}kernel-parse-errors.mlir:73:36
// CHECK:      Expected `global`, `local`, or `private`.

// -----

// In the generic form, an enumeration is its attribute.
kernel.func @k(%ws: !kernel.buffer<global, i64>) {
  %gid = kernel.global_id 0
  %w = "kernel.atomic_load"(%ws, %gid) <{order = #kernel<order consume>, scope = #kernel<scope device>}> : (!kernel.buffer<global, i64>, index) -> i64
  kernel.return
}

// CHECK:      {{.*}}kernel-parse-errors.mlir:85:64
// CHECK:      Expected `relaxed`, `acquire`, or `release`.
