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

// A reduce over an iota whose size depends on the element: the iota is never stored (no scratch memory, so its
// size need not be known before the launch). The reduce loops over the checked size and reads its index, cast
// to the iota's element type, as Futhark's fusion into a loop does.

// CHECK:      func.func @sums(
// CHECK-NOT:    scratch
// CHECK:        kernel.launch @sums_map_0(%a, %a_d0, %r, %errors :
// CHECK:      kernel.func @sums_map_0(
// CHECK:        %k = arith.index_cast %x : i64 to index
// CHECK-NEXT:   %nonneg = arith.cmpi sge, %k, %[[ZERO:.*]] : index
// CHECK-NEXT:   kernel.device_assert %nonneg in %errors code {{[0-9]+}} "{{.*}}kernel-sizes.mlir:{{[0-9]+}}:5: 'soac.iota': negative size {0}" (%k : index)
// CHECK-NEXT:   %[[SIZE:.*]] = arith.select %nonneg, %k, %[[ZERO]] : index
// CHECK-NEXT:   %[[SUM:.*]] = scf.for %[[J:.*]] = %[[ZERO]] to %[[SIZE]] step %{{.*}} iter_args(%zero_it = %zero) -> (i32) {
// CHECK-NEXT:     %q = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:     %t = arith.addi %zero_it, %q : i32
// CHECK-NEXT:     scf.yield %t : i32
// CHECK-NEXT:   }
// CHECK-NEXT:   kernel.store %[[SUM]], %r[%i] : i32, !kernel.buffer<global, i32>

func.func @sums(%a: tensor<?xi64>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi64>
  %zero = arith.constant 0 : i32
  %r = soac.map %n (%a : tensor<?xi64>) -> tensor<?xi32> lambda(%x: i64) {
    %k = arith.index_cast %x : i64 to index
    %is = soac.iota %k : tensor<?xi32>
    %s = soac.reduce commutative %k (%is : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%p: i32, %q: i32) {
      %t = arith.addi %p, %q : i32
      soac.yield %t : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}

// A map over such an iota, read by a reduce beside it: the map's lambda runs inside the reduce's loop, on the
// index; the widths need no further check (both are the iota's checked size).

// CHECK:      kernel.func @squares_map_0(
// CHECK-NOT:    same_width
// CHECK:        scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%zero_it = %zero) -> (i64) {
// CHECK-NEXT:     %j = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:     %jj = arith.muli %j, %j : i64
// CHECK-NEXT:     %t = arith.addi %zero_it, %jj : i64
// CHECK-NEXT:     scf.yield %t : i64
// CHECK-NEXT:   }

func.func @squares(%a: tensor<?xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi64>
  %zero = arith.constant 0 : i64
  %r = soac.map %n (%a : tensor<?xi64>) -> tensor<?xi64> lambda(%x: i64) {
    %k = arith.index_cast %x : i64 to index
    %is = soac.iota %k : tensor<?xi64>
    %sq = soac.map %k (%is : tensor<?xi64>) -> tensor<?xi64> lambda(%j: i64) {
      %jj = arith.muli %j, %j : i64
      soac.yield %jj : i64
    }
    %s = soac.reduce %k (%sq : tensor<?xi64>) neutral(%zero : i64) -> i64 combine(%p: i64, %q: i64) {
      %t = arith.addi %p, %q : i64
      soac.yield %t : i64
    }
    soac.yield %s : i64
  }
  func.return %r : tensor<?xi64>
}

// A redomap over a replicate: each row is the replicated value.

// CHECK:      kernel.func @halves_map_0(
// CHECK-NOT:    scratch
// CHECK:        'soac.replicate': negative size {0}
// CHECK:        scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%zero_it = %zero) -> (f32) {
// CHECK-NEXT:     %hh = arith.mulf %half, %half : f32
// CHECK-NEXT:     %t = arith.addf %zero_it, %hh : f32

func.func @halves(%a: tensor<?xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi64>
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %r = soac.map %n (%a : tensor<?xi64>) -> tensor<?xf32> lambda(%x: i64) {
    %k = arith.index_cast %x : i64 to index
    %hs = soac.replicate %k, %half : f32 -> tensor<?xf32>
    %s = soac.redomap %k (%hs : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%p: f32, %q: f32) {
      %t = arith.addf %p, %q : f32
      soac.yield %t : f32
    } lambda(%h: f32) {
      %hh = arith.mulf %h, %h : f32
      soac.yield %hh : f32
    }
    soac.yield %s : f32
  }
  func.return %r : tensor<?xf32>
}
