// RUN: soac-opt %s -p soac-to-kernel | filecheck %s

// Sizes the kernel sees without building the array first.

// A branch yielding arrays, inside a kernel: the `then` branch's segmap has the size of `xs`, the `else` branch
// yields `xs` itself (defined outside the kernel). Both resolve to `xs_d0`: the scratch row is sized by it before
// the branch, and neither branch needs a check of its array's size.

// CHECK:      func.func @pick(
// CHECK:        %[[TWO_ROWS:.*]] = arith.addi %xs_d0, %xs_d0 : index
// CHECK-NEXT:   %[[TOTAL:.*]] = arith.muli %[[TWO_ROWS]], %global_size : index
// CHECK-NEXT:   %scratch_i32 = kernel.alloc %[[TOTAL]] : !kernel.buffer<global, i32>
// CHECK:      kernel.func @pick_segmap_0(
// CHECK-NOT:    kernel.device_assert
// CHECK:        scf.if %b {
// CHECK:          scf.for %p_1 = %{{.*}} to %xs_d0 step
// CHECK:          scf.for %k = %{{.*}} to %xs_d0 step
// CHECK:        } else {
// CHECK-NEXT:     scf.for %k_1 = %{{.*}} to %xs_d0 step
// CHECK-NEXT:       kernel.load %xs[%k_1]
// CHECK-NOT:    kernel.device_assert
// CHECK:        kernel.return

func.func @pick(%bs: tensor<?xi1>, %xs: tensor<?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %bs, %c0 : tensor<?xi1>
  %m = tensor.dim %xs, %c0 : tensor<?xi32>
  %one = arith.constant 1 : i32
  %r = soac.segmap group (%n) -> tensor<?x?xi32> lambda(%i: index) {
    %b = soac.index %bs[%i] : tensor<?xi1> -> i1
    %row = scf.if %b -> (tensor<?xi32>) {
      %inc = soac.segmap thread (%m) -> tensor<?xi32> lambda(%j: index) {
        %x = soac.index %xs[%j] : tensor<?xi32> -> i32
        %y = arith.addi %x, %one : i32
        soac.yield %y : i32
      }
      scf.yield %inc : tensor<?xi32>
    } else {
      scf.yield %xs : tensor<?xi32>
    }
    soac.yield %row : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}

// A branch yielding a loop that carries `xs` (an array from outside the kernel, which keeps its size): the loop's
// array has the size of its initial value, so the branch's array is sized by `xs_d0` too.

// CHECK:      kernel.func @steps_map_0(
// CHECK-NOT:    kernel.device_assert
// CHECK:        scf.if %b {
// CHECK:          scf.for %t = %{{.*}} to %k step
// CHECK:            scf.for %i_1 = %{{.*}} to %xs_d0 step
// CHECK:        } else {
// CHECK-NEXT:     scf.for %k_4 = %{{.*}} to %xs_d0 step
// CHECK-NOT:    kernel.device_assert
// CHECK:        kernel.return

func.func @steps(%bs: tensor<?xi1>, %xs: tensor<?xi32>, %k: index) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %bs, %c0 : tensor<?xi1>
  %m = tensor.dim %xs, %c0 : tensor<?xi32>
  %one = arith.constant 1 : i32
  %r = soac.map %n (%bs : tensor<?xi1>) -> tensor<?x?xi32> lambda(%b: i1) {
    %row = scf.if %b -> (tensor<?xi32>) {
      %last = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %xs) -> (tensor<?xi32>) {
        %next = soac.map %m (%acc : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
          %y = arith.addi %x, %one : i32
          soac.yield %y : i32
        }
        scf.yield %next : tensor<?xi32>
      }
      scf.yield %last : tensor<?xi32>
    } else {
      scf.yield %xs : tensor<?xi32>
    }
    soac.yield %row : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
