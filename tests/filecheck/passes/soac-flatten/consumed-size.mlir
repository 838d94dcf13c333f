// RUN: soac-opt %s -p 'soac-flatten{prepare=false}' | filecheck %s

// The size of an updated array's copy is not read through the array the update consumes: the flattened map's check
// reads the size of the update's result (after the update, %xs may not be read).

// CHECK:      %up = soac.update %xs[%c0] = %nine : tensor<?xi32>, i32
// CHECK-NOT:  tensor.dim %xs
// CHECK:      tensor.dim %up
// CHECK-NOT:  tensor.dim %xs
// CHECK:      func.return

func.func @main(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %nine = arith.constant 9 : i32
  %up = soac.update %xs[%c0] = %nine : tensor<?xi32>, i32
  %ne = arith.constant 0 : i32
  %s = soac.scan %n (%up : tensor<?xi32>) neutral(%ne : i32) -> (tensor<?xi32>) combine(%a: i32, %b: i32) {
    %r = arith.addi %a, %b : i32
    soac.yield %r : i32
  }
  %m = soac.map %n (%up, %s : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>) lambda(%p: i32, %q: i32) {
    %v = arith.addi %p, %q : i32
    soac.yield %v : i32
  }
  func.return %m : tensor<?xi32>
}
