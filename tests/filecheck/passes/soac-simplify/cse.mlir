// RUN: soac-opt %s -p soac-simplify --split-input-file | filecheck %s

// Two iotas of one size are one; the map and the redomap then share their input (horizontal fusion sees it).
// CHECK-LABEL: func.func @two_iotas
// CHECK:         %i = soac.iota %n : tensor<?xindex>
// CHECK-NOT:     soac.iota
// CHECK:         soac.map %n (%i : tensor<?xindex>)
// CHECK:         soac.redomap %n (%i : tensor<?xindex>)
func.func @two_iotas(%xs: tensor<?xi64>) -> (tensor<?xi64>, i64) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi64>
  %i = soac.iota %n : tensor<?xindex>
  %a = soac.map %n (%i : tensor<?xindex>) -> tensor<?xi64> lambda(%p: index) {
    %x = arith.index_cast %p : index to i64
    %x2 = arith.muli %x, %x : i64
    soac.yield %x2 : i64
  }
  %j = soac.iota %n : tensor<?xindex>
  %z = arith.constant 0 : i64
  %b = soac.redomap %n (%j : tensor<?xindex>) neutral(%z : i64) -> i64 combine(%u: i64, %v: i64) {
    %s = arith.addi %u, %v : i64
    soac.yield %s : i64
  } lambda(%q: index) {
    %y = arith.index_cast %q : index to i64
    soac.yield %y : i64
  }
  func.return %a, %b : tensor<?xi64>, i64
}

// -----

// Equal SOACs inside a lambda are one, and equal code in two lambdas of one width is not merged across them.
// CHECK-LABEL: func.func @equal_soacs_in_a_lambda
// CHECK:         soac.map %n (%xss : tensor<?x?xi32>)
// CHECK-COUNT-1:   soac.reduce
// CHECK-NOT:       soac.reduce
func.func @equal_soacs_in_a_lambda(%xss: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?xi32> lambda(%row: tensor<?xi32>) {
    %s1 = soac.reduce %m (%row : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
      %t = arith.addi %a, %b : i32
      soac.yield %t : i32
    }
    %s2 = soac.reduce %m (%row : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%c: i32, %d: i32) {
      %t2 = arith.addi %c, %d : i32
      soac.yield %t2 : i32
    }
    %u = arith.muli %s1, %s2 : i32
    soac.yield %u : i32
  }
  func.return %r : tensor<?xi32>
}

// -----

// Two equal arrays of which one is updated in place stay two: merging them would update the other too.
// CHECK-LABEL: func.func @consumed_arrays_stay_apart
// CHECK:         %a = soac.replicate %n, %z
// CHECK:         %b = soac.replicate %n, %z
// CHECK:         soac.update %b[%c0] = %one
func.func @consumed_arrays_stay_apart(%n: index) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %a = soac.replicate %n, %z : i32 -> tensor<?xi32>
  %b = soac.replicate %n, %z : i32 -> tensor<?xi32>
  %u = soac.update %b[%c0] = %one : tensor<?xi32>, i32
  func.return %a, %u : tensor<?xi32>, tensor<?xi32>
}
