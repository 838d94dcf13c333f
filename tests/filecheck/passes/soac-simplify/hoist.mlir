// RUN: soac-opt %s -p soac-simplify --split-input-file | filecheck %s
// RUN: soac-opt %s -p 'soac-simplify{hoist=false}' --split-input-file | filecheck %s --check-prefix=KEEP

// A transpose of an invariant array leaves the lambda, and so does the invariant reduction: computed once.
// CHECK-LABEL: func.func @invariant_transpose_and_soac
// CHECK:         %at = soac.transpose %a [1, 0]
// CHECK:         %total = soac.reduce %k (%bias : tensor<?xf32>)
// CHECK:         soac.map %n (%ws : tensor<?x?xf32>)
// CHECK-NOT:       soac.transpose
// CHECK-NOT:       soac.reduce
// KEEP-LABEL:  func.func @invariant_transpose_and_soac
// KEEP:          soac.map %n (%ws : tensor<?x?xf32>)
// KEEP-NEXT:       soac.transpose %a
func.func @invariant_transpose_and_soac(%ws: tensor<?x?xf32>, %a: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %ws, %c0 : tensor<?x?xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?xf32>
  %k = tensor.dim %bias, %c0 : tensor<?xf32>
  %r = soac.map %n (%ws : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%w: tensor<?xf32>) {
    %at = soac.transpose %a [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
    %z = arith.constant 0.0 : f32
    %total = soac.reduce %k (%bias : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%p: f32, %q: f32) {
      %s = arith.addf %p, %q : f32
      soac.yield %s : f32
    }
    %row = soac.map %m (%at : tensor<?x?xf32>) -> tensor<?xf32> lambda(%c: tensor<?xf32>) {
      %e = soac.index %c[%c0] : tensor<?xf32> -> f32
      %f = soac.index %w[%c0] : tensor<?xf32> -> f32
      %g = arith.mulf %e, %f : f32
      %h = arith.addf %g, %total : f32
      soac.yield %h : f32
    }
    soac.yield %row : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// -----

// An iota in a loop body is computed once before the loop; the read of an invariant element stays (the loop may
// run no iteration, and the read may be out of bounds).
// CHECK-LABEL: func.func @loop_invariant_iota
// CHECK:         %i = soac.iota %n : tensor<?xindex>
// CHECK-NEXT:    scf.for
// CHECK-NOT:       soac.iota
// CHECK:           soac.index %xs[%c5]
func.func @loop_invariant_iota(%xs: tensor<?xi64>, %steps: index) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi64>
  %l = scf.for %t = %c0 to %steps step %c1 iter_args(%v = %xs) -> (tensor<?xi64>) {
    %i = soac.iota %n : tensor<?xindex>
    %e = soac.index %xs[%c5] : tensor<?xi64> -> i64
    %next = soac.map %n (%i, %v : tensor<?xindex>, tensor<?xi64>) -> tensor<?xi64> lambda(%j: index, %x: i64) {
      %ji = arith.index_cast %j : index to i64
      %s = arith.addi %x, %ji : i64
      %s2 = arith.addi %s, %e : i64
      soac.yield %s2 : i64
    }
    scf.yield %next : tensor<?xi64>
  }
  func.return %l : tensor<?xi64>
}

// -----

// Integer division by a value that may be zero stays in the lambda (floor division and remainder too, which xDSL
// marks Pure); by a non-zero constant it leaves.
// CHECK-LABEL: func.func @division
// CHECK:         %safe = arith.divsi %d, %c7 : i32
// CHECK:         soac.map
// CHECK:           %unsafe = arith.divsi %d, %e : i32
// CHECK:           %floor = arith.floordivsi %d, %e : i32
// CHECK:           %rem = arith.remsi %d, %e : i32
func.func @division(%xs: tensor<?xi32>, %d: i32, %e: i32) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %r = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %safe = arith.divsi %d, %c7 : i32
    %unsafe = arith.divsi %d, %e : i32
    %floor = arith.floordivsi %d, %e : i32
    %rem = arith.remsi %d, %e : i32
    %s = arith.addi %x, %safe : i32
    %t = arith.addi %s, %unsafe : i32
    %u = arith.addi %t, %floor : i32
    %v = arith.addi %u, %rem : i32
    soac.yield %v : i32
  }
  func.return %r : tensor<?xi32>
}

// -----

// A fresh array that each element consumes (a histogram's destination) stays inside the lambda.
// CHECK-LABEL: func.func @consumed_fresh_array
// CHECK:         soac.map
// CHECK:           %zeros = soac.replicate %k, %z
// CHECK:           soac.hist
func.func @consumed_fresh_array(%xss: tensor<?x?xi32>, %k: index) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%row: tensor<?xi32>) {
    %zeros = soac.replicate %k, %z : i32 -> tensor<?xi32>
    %h = soac.hist %m (%row : tensor<?xi32>) into(%zeros : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%x: i32) {
      %bin = arith.index_cast %x : i32 to index
      %one = arith.constant 1 : i32
      soac.yield %bin, %one : index, i32
    }
    soac.yield %h : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}

// -----

// A row read at an iota's element of the array's own size is in bounds: it leaves the inner lambda (the outer
// lambda still runs on the device), where it becomes a row input of the outer map. A read at an index that may
// fall outside (row %j of %yss, whose size is not %n) stays.
// CHECK-LABEL: func.func @in_bounds_row_read
// CHECK:         soac.map %n (%is, %xss : tensor<?xindex>, tensor<?x?xf32>)
// CHECK-NEXT:      soac.map %m (%ks : tensor<?xindex>)
// CHECK-NEXT:        soac.index %row[%k]
// CHECK-NEXT:        soac.index %yss[%j, %c0]
// KEEP-LABEL:  func.func @in_bounds_row_read
// KEEP:          soac.map %m (%ks : tensor<?xindex>)
// KEEP-NEXT:       %row = soac.index %xss[%j]
func.func @in_bounds_row_read(%xss: tensor<?x?xf32>, %yss: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %is = soac.iota %n : tensor<?xindex>
  %ks = soac.iota %m : tensor<?xindex>
  %r = soac.map %n (%is : tensor<?xindex>) -> tensor<?x?xf32> lambda(%j: index) {
    %inner = soac.map %m (%ks : tensor<?xindex>) -> tensor<?xf32> lambda(%k: index) {
      %row = soac.index %xss[%j] : tensor<?x?xf32> -> tensor<?xf32>
      %e = soac.index %row[%k] : tensor<?xf32> -> f32
      %other = soac.index %yss[%j, %c0] : tensor<?x?xf32> -> f32
      %s = arith.addf %e, %other : f32
      soac.yield %s : f32
    }
    soac.yield %inner : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// -----

// The scalar read at an in-bounds loop index leaves the inner loop. In a top-level lambda it stays in the kernel:
// hoisting it out would read it on the host.
// CHECK-LABEL: func.func @in_bounds_loop_read
// CHECK:         scf.for %i = %c0 to %n step %c1
// CHECK-NEXT:      %x = soac.index %xs[%i]
// CHECK-NEXT:      scf.for %t = %c0 to %steps step %c1
// CHECK:         scf.for %i2 = %c0 to %n step %c1
// CHECK-NEXT:      soac.map %steps (%cur : tensor<?xf32>)
// CHECK-NEXT:        %y = soac.index %xs[%i2]
// KEEP-LABEL:  func.func @in_bounds_loop_read
// KEEP:          scf.for %t = %c0 to %steps step %c1
// KEEP-NEXT:       %x = soac.index %xs[%i]
func.func @in_bounds_loop_read(%xs: tensor<?xf32>, %ts: tensor<?xf32>, %steps: index) -> (f32, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %total = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %inner = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %acc) -> (f32) {
      %x = soac.index %xs[%i] : tensor<?xf32> -> f32
      %b = arith.addf %a, %x : f32
      scf.yield %b : f32
    }
    scf.yield %inner : f32
  }
  %scaled = scf.for %i2 = %c0 to %n step %c1 iter_args(%cur = %ts) -> (tensor<?xf32>) {
    %next = soac.map %steps (%cur : tensor<?xf32>) -> tensor<?xf32> lambda(%v: f32) {
      %y = soac.index %xs[%i2] : tensor<?xf32> -> f32
      %w = arith.mulf %v, %y : f32
      soac.yield %w : f32
    }
    scf.yield %next : tensor<?xf32>
  }
  func.return %total, %scaled : f32, tensor<?xf32>
}

// -----

// A redomap's operator parameters are partial results, not its inputs' elements: a read at one is not known to be
// in bounds (here a sum of indices), so it stays in the loop that may run no iteration.
// CHECK-LABEL: func.func @operator_parameter_read
// CHECK:         scf.for %t = %c0 to %k step %c1
// CHECK-NEXT:      %y = soac.index %ys[%p]
func.func @operator_parameter_read(%ys: tensor<?xf32>, %k: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %ys, %c0 : tensor<?xf32>
  %is = soac.iota %n : tensor<?xindex>
  %s = soac.redomap %n (%is : tensor<?xindex>) neutral(%c0 : index) -> index combine(%p: index, %q: index) {
    %w = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %q) -> (index) {
      %y = soac.index %ys[%p] : tensor<?xf32> -> f32
      %b = arith.fptosi %y : f32 to i64
      %c = arith.index_cast %b : i64 to index
      %d = arith.addi %acc, %c : index
      scf.yield %d : index
    }
    %r = arith.addi %p, %w : index
    soac.yield %r : index
  } lambda(%i: index) {
    soac.yield %i : index
  }
  func.return %s : index
}

// -----

// An invariant check leaves the element lambda, holding also where the map has no element; a repeated one goes.
// A check after a read that may fail stays in the lambda, so the first failure stays the first.
// CHECK-LABEL: func.func @invariant_assert
// CHECK-NEXT:    %same = arith.cmpi eq, %m, %k : index
// CHECK-NEXT:    %0 = arith.constant 0 : index
// CHECK-NEXT:    %1 = arith.cmpi eq, %n, %0 : index
// CHECK-NEXT:    %2 = arith.ori %same, %1 : i1
// CHECK-NEXT:    soac.assert %2, "'soac.map': width {0} does not match the outer size {1} of input #1" (%m, %k : index, index)
// CHECK-NEXT:    %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
// CHECK-NEXT:      %y = arith.mulf %x, %x : f32
// CHECK-NEXT:      soac.yield %y : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %s = soac.map %n (%is : tensor<?xindex>) -> tensor<?xf32> lambda(%i: index) {
// CHECK-NEXT:      %z = soac.index %xs[%i] : tensor<?xf32> -> f32
// CHECK-NEXT:      soac.assert %same
func.func @invariant_assert(%m: index, %n: index, %k: index, %xs: tensor<?xf32>, %is: tensor<?xindex>) -> (tensor<?xf32>, tensor<?xf32>) {
  %same = arith.cmpi eq, %m, %k : index
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.assert %same, "'soac.map': width {0} does not match the outer size {1} of input #1" (%m, %k : index, index)
    soac.assert %same, "'soac.map': width {0} does not match the outer size {1} of input #1" (%m, %k : index, index)
    %y = arith.mulf %x, %x : f32
    soac.yield %y : f32
  }
  %s = soac.map %n (%is : tensor<?xindex>) -> tensor<?xf32> lambda(%i: index) {
    %z = soac.index %xs[%i] : tensor<?xf32> -> f32
    soac.assert %same, "'soac.map': width {0} does not match the outer size {1} of input #1" (%m, %k : index, index)
    soac.yield %z : f32
  }
  func.return %r, %s : tensor<?xf32>, tensor<?xf32>
}
