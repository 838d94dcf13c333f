// RUN: soac-opt %s -p 'soac-flatten{prepare=false}' | filecheck %s

// A map that yields one value twice gives two arrays after flattening, not one array for both results: one of them
// is consumed (the update) while the other is returned, so they must not alias.

// CHECK:      %m12 = soac.segmap thread (%n) -> tensor<?xi32> lambda(%i: index) {
// CHECK-NEXT:   soac.yield %c10 : i32
// CHECK:      %m13 = soac.segmap thread (%n) -> tensor<?xi32> lambda(%i_1: index) {
// CHECK-NEXT:   %{{.*}} = soac.index %m12[%i_1] : tensor<?xi32> -> i32
// CHECK:      %up22 = soac.update %m12[%i20] = %c10 : tensor<?xi32>, i32
// CHECK-NEXT: func.return %m13, %up22 : tensor<?xi32>, tensor<?xi32>

func.func @main(%n: index) -> (tensor<?xi32>, tensor<?xi32>) {
  %c10 = arith.constant 0 : i32
  %m12, %m13 = soac.map %n () -> (tensor<?xi32>, tensor<?xi32>) lambda() {
    soac.yield %c10, %c10 : i32, i32
  }
  %i20 = arith.constant 0 : index
  %up22 = soac.update %m12[%i20] = %c10 : tensor<?xi32>, i32
  func.return %m13, %up22 : tensor<?xi32>, tensor<?xi32>
}
