// RUN: soac-opt %s -p soac-simplify --split-input-file | filecheck %s

// The width of an operator's element-wise map is its neutral row's length, from outside: the map no longer
// reads the size of its argument (what soac.lang traces for `lambda a, b: a + b` over rows).
// CHECK-LABEL: func.func @operator_over_rows
// CHECK:         %m = tensor.dim %xss, %c1 : tensor<?x?xi64>
// CHECK:         soac.reduce %n (%xss : tensor<?x?xi64>) neutral(%zeros : tensor<?xi64>)
// CHECK-NEXT:      soac.map %m (%a, %b : tensor<?xi64>, tensor<?xi64>)
func.func @operator_over_rows(%xss: tensor<?x?xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi64>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi64>
  %z = arith.constant 0 : i64
  %zeros = soac.replicate %m, %z : i64 -> tensor<?xi64>
  %s = soac.reduce %n (%xss : tensor<?x?xi64>) neutral(%zeros : tensor<?xi64>) -> tensor<?xi64> combine(%a: tensor<?xi64>, %b: tensor<?xi64>) {
    %k = arith.constant 0 : index
    %w = tensor.dim %a, %k : tensor<?xi64>
    %c = soac.map %w (%a, %b : tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64> lambda(%x: i64, %y: i64) {
      %t = arith.addi %x, %y : i64
      soac.yield %t : i64
    }
    soac.yield %c : tensor<?xi64>
  }
  func.return %s : tensor<?xi64>
}

// -----

// The inner width of a map nest's result is the inner map's width: the consumer no longer uses %y for its size.
// CHECK-LABEL: func.func @nest_result
// CHECK:         %y = soac.map %n (%xss : tensor<?x?xf32>)
// CHECK-NOT:     tensor.dim %y
// CHECK:         soac.map %n (%y : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%s: tensor<?xf32>) {
// CHECK-NEXT:      soac.map %m{{.*}} (%s : tensor<?xf32>)
func.func @nest_result(%xss: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %y = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%r: tensor<?xf32>) {
    %row = soac.map %m (%r : tensor<?xf32>) -> tensor<?xf32> lambda(%v: f32) {
      %u = arith.mulf %v, %v : f32
      soac.yield %u : f32
    }
    soac.yield %row : tensor<?xf32>
  }
  %k = tensor.dim %y, %c1 : tensor<?x?xf32>
  %z = soac.map %n (%y : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%s: tensor<?xf32>) {
    %row2 = soac.map %k (%s : tensor<?xf32>) -> tensor<?xf32> lambda(%v2: f32) {
      %t = arith.addf %v2, %v2 : f32
      soac.yield %t : f32
    }
    soac.yield %row2 : tensor<?xf32>
  }
  func.return %z : tensor<?x?xf32>
}

// -----

// Both branches yield arrays of %xs's size, and the loop keeps its array's size: both sizes are %n.
// CHECK-LABEL: func.func @branches_and_loops
// CHECK:         %[[N:.*]] = tensor.dim %xs, %{{.*}} : tensor<?xf32>
// CHECK-NOT:     tensor.dim
// CHECK:         func.return %[[N]], %[[N]] : index, index
func.func @branches_and_loops(%xs: tensor<?xf32>, %p: i1, %steps: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %b = scf.if %p -> (tensor<?xf32>) {
    %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %t = arith.addf %x, %x : f32
      soac.yield %t : f32
    }
    scf.yield %ys : tensor<?xf32>
  } else {
    scf.yield %xs : tensor<?xf32>
  }
  %l = scf.for %i = %c0 to %steps step %c1 iter_args(%v = %xs) -> (tensor<?xf32>) {
    %w = tensor.dim %v, %c0 : tensor<?xf32>
    %next = soac.map %w (%v : tensor<?xf32>) -> tensor<?xf32> lambda(%x2: f32) {
      soac.yield %x2 : f32
    }
    scf.yield %next : tensor<?xf32>
  }
  %bn = tensor.dim %b, %c0 : tensor<?xf32>
  %ln = tensor.dim %l, %c0 : tensor<?xf32>
  func.return %bn, %ln : index, index
}

// -----

// A loop whose array grows keeps its tensor.dim.
// CHECK-LABEL: func.func @growing_loop
// CHECK:         %ln = tensor.dim %l, %c0 : tensor<?xf32>
func.func @growing_loop(%xs: tensor<?xf32>, %steps: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %i = %c0 to %steps step %c1 iter_args(%v = %xs) -> (tensor<?xf32>) {
    %w = tensor.dim %v, %c0 : tensor<?xf32>
    %w1 = arith.addi %w, %c1 : index
    %z = arith.constant 0.0 : f32
    %next = soac.replicate %w1, %z : f32 -> tensor<?xf32>
    scf.yield %next : tensor<?xf32>
  }
  %ln = tensor.dim %l, %c0 : tensor<?xf32>
  func.return %ln : index
}

// -----

// An updated array is consumed: its size is not asked of it afterwards, so the size of the update stays.
// CHECK-LABEL: func.func @size_after_an_update
// CHECK:         %u = soac.update %xs[%c0] = %z
// CHECK-NEXT:    %k = tensor.dim %u, %c0 : tensor<?xi32>
func.func @size_after_an_update(%xs: tensor<?xi32>) -> (tensor<?xi32>, index) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  %u = soac.update %xs[%c0] = %z : tensor<?xi32>, i32
  %k = tensor.dim %u, %c0 : tensor<?xi32>
  func.return %u, %k : tensor<?xi32>, index
}

// -----

// A rotation keeps its array's sizes (`soac.rotate`'s result_dims): the row length of a rotated row is the row
// length of the matrix, from outside the map.
// CHECK-LABEL: func.func @rotated_rows
// CHECK:         [[W:%\w+]] = tensor.dim %xss, %c1 : tensor<?x?xf32>
// CHECK:         soac.map %n (%xss : tensor<?x?xf32>)
// CHECK-NEXT:      %r = soac.rotate %row by %k : tensor<?xf32>
// CHECK-NEXT:      soac.map [[W]] (%r : tensor<?xf32>)
func.func @rotated_rows(%xss: tensor<?x?xf32>, %k: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %ys = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
    %r = soac.rotate %row by %k : tensor<?xf32>
    %w = tensor.dim %r, %c0 : tensor<?xf32>
    %d = soac.map %w (%r : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.addf %x, %x : f32
      soac.yield %y : f32
    }
    soac.yield %d : tensor<?xf32>
  }
  func.return %ys : tensor<?x?xf32>
}

// -----

// Segmented ops say their sizes too (their index space, then the rows yielded): a loop whose body is a flattened
// map (a segmap over %n x %m) keeps its array's sizes, so both sizes after the loop are the input's.
// CHECK-LABEL: func.func @segmap_in_a_loop
// CHECK:         %[[N:.*]] = tensor.dim %xss, %c0 : tensor<?x?xf32>
// CHECK:         %[[M:.*]] = tensor.dim %xss, %c1 : tensor<?x?xf32>
// CHECK-NOT:     tensor.dim
// CHECK:         func.return %[[N]], %[[M]] : index, index
func.func @segmap_in_a_loop(%xss: tensor<?x?xf32>, %steps: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xf32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xf32>
  %l = scf.for %t = %c0 to %steps step %c1 iter_args(%v = %xss) -> (tensor<?x?xf32>) {
    %next = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
      %x = soac.index %v[%i, %j] : tensor<?x?xf32> -> f32
      %y = arith.addf %x, %x : f32
      soac.yield %y : f32
    }
    scf.yield %next : tensor<?x?xf32>
  }
  %ln = tensor.dim %l, %c0 : tensor<?x?xf32>
  %lm = tensor.dim %l, %c1 : tensor<?x?xf32>
  func.return %ln, %lm : index, index
}
