// RUN: soac-opt %s -p soac-vectorised-operators --split-input-file | filecheck %s

// A reduction of rows whose operator adds them element-wise: a map over the columns of a reduction with the
// scalar operator; the neutral row is a replicate of the map's width, so each column takes the replicated value.
// CHECK-LABEL: func.func @sum_rows
// CHECK:         %[[COLS:.*]] = soac.transpose %xss [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
// CHECK-NEXT:    %s = soac.map %m (%[[COLS]] : tensor<?x?xi32>) -> tensor<?xi32> lambda(%col: tensor<?xi32>) {
// CHECK-NEXT:      %[[R:.*]] = soac.reduce commutative %n (%col : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%x: i32, %y: i32) {
// CHECK-NEXT:        %t = arith.addi %x, %y : i32
// CHECK-NEXT:        soac.yield %t : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %[[R]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : tensor<?xi32>
func.func @sum_rows(%xss: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %zeros = soac.replicate %m, %z : i32 -> tensor<?xi32>
  %s = soac.reduce commutative %n (%xss : tensor<?x?xi32>) neutral(%zeros : tensor<?xi32>) -> tensor<?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    %c = soac.map %m (%a, %b : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
      %t = arith.addi %x, %y : i32
      soac.yield %t : i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %s : tensor<?xi32>
}

// -----

// A scan: the map gives the scanned columns, transposed back. The neutral row is an argument: each column takes
// its element. The map's lambda takes the rows in the other order: the scalar operator keeps the operator's.
// CHECK-LABEL: func.func @max_scan
// CHECK:         %[[COLS:.*]] = soac.transpose %xss [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
// CHECK-NEXT:    %[[T:.*]] = soac.map %m (%[[COLS]], %ne : tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32> lambda(%col: tensor<?xi32>, %[[E:.*]]: i32) {
// CHECK-NEXT:      %[[S:.*]] = soac.scan %n (%col : tensor<?xi32>) neutral(%[[E]] : i32) -> tensor<?xi32> combine(%x: i32, %y: i32) {
// CHECK-NEXT:        %t = arith.maxsi %x, %y : i32
// CHECK-NEXT:        soac.yield %t : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %[[S]] : tensor<?xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %s = soac.transpose %[[T]] [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
// CHECK-NEXT:    func.return %s : tensor<?x?xi32>
func.func @max_scan(%xss: tensor<?x?xi32>, %ne: tensor<?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %s = soac.scan %n (%xss : tensor<?x?xi32>) neutral(%ne : tensor<?xi32>) -> tensor<?x?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    %c = soac.map %m (%b, %a : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%y: i32, %x: i32) {
      %t = arith.maxsi %x, %y : i32
      soac.yield %t : i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %s : tensor<?x?xi32>
}

// -----

// An operator that is not element-wise (it reads another element of a row) stays as it is.
// CHECK-LABEL: func.func @not_element_wise
// CHECK-NOT:     soac.transpose
// CHECK:         soac.reduce %n (%xss : tensor<?x?xi32>) neutral(%ne : tensor<?xi32>)
func.func @not_element_wise(%xss: tensor<?x?xi32>, %ne: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %s = soac.reduce %n (%xss : tensor<?x?xi32>) neutral(%ne : tensor<?xi32>) -> tensor<?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    %c = soac.map %m (%a, %b : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
      %first = soac.index %a[%c0] : tensor<?xi32> -> i32
      %t = arith.addi %x, %first : i32
      %u = arith.addi %t, %y : i32
      soac.yield %u : i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %s : tensor<?xi32>
}
