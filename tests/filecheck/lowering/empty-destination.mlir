// RUN: soac-opt %s -p 'soac-to-kernel{group-size=64 max-groups=16}' | filecheck %s

// A scatter into a `tensor.empty` writes the empty array's buffer: the buffer is allocated, and nothing fills or
// copies it (no replicate kernel, no `kernel.copy`). The prefix of it that a slice takes is the same buffer.

// CHECK:      func.func @compact(
// CHECK:        %fresh = kernel.alloc %n : !kernel.buffer<global, i32>
// CHECK-NOT:    kernel.copy
// CHECK:        kernel.launch @compact_scatter_0({{.*}}%fresh
// CHECK-NOT:    kernel.copy
// CHECK:        func.return %fresh, %m : !kernel.buffer<global, i32>, index
// CHECK-NOT:  kernel.func @compact_replicate

func.func @compact(%n: index, %places: tensor<?xindex>, %xs: tensor<?xi32>, %m: index) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %fresh = tensor.empty(%n) : tensor<?xi32>
  %out = soac.scatter %n (%places, %xs : tensor<?xindex>, tensor<?xi32>) into(%fresh : tensor<?xi32>) -> tensor<?xi32>
      lambda(%i: index, %x: i32) {
    soac.yield %i, %x : index, i32
  }
  %kept = soac.slice %out[%c0 : %m] : tensor<?xi32> -> tensor<?xi32>
  func.return %kept : tensor<?xi32>
}
