// RUN: soac-opt %s -p 'soac-flatten{mode=moderate}' --split-input-file | filecheck %s

// Moderate flattening: maps of maps are flattened, the inner redomap runs sequentially in each thread (matmul).
// CHECK-LABEL: func.func @matmul(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %bt: tensor<?x?xf32>, %z: f32) -> tensor<?x?xf32> {
// CHECK:         %c = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
// CHECK-NEXT:      %arow = soac.index %a[%i] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NEXT:      %bcol = soac.index %bt[%j] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NEXT:      %dot = soac.redomap %k (%arow, %bcol : tensor<?xf32>, tensor<?xf32>) neutral(%z : f32) -> f32 combine(%s: f32, %t: f32) {
// CHECK-NEXT:        %sum = arith.addf %s, %t : f32
// CHECK-NEXT:        soac.yield %sum : f32
// CHECK-NEXT:      } lambda(%x: f32, %y: f32) {
// CHECK-NEXT:        %p = arith.mulf %x, %y : f32
// CHECK-NEXT:        soac.yield %p : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %dot : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c : tensor<?x?xf32>
// CHECK-NEXT:  }
func.func @matmul(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %bt: tensor<?x?xf32>, %z: f32) -> tensor<?x?xf32> {
  %c = soac.map %n (%a : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%arow: tensor<?xf32>) {
    %crow = soac.map %m (%bt : tensor<?x?xf32>) -> tensor<?xf32> lambda(%bcol: tensor<?xf32>) {
      %dot = soac.redomap %k (%arow, %bcol : tensor<?xf32>, tensor<?xf32>) neutral(%z : f32) -> f32 combine(%s: f32, %t: f32) {
        %sum = arith.addf %s, %t : f32
        soac.yield %sum : f32
      } lambda(%x: f32, %y: f32) {
        %p = arith.mulf %x, %y : f32
        soac.yield %p : f32
      }
      soac.yield %dot : f32
    }
    soac.yield %crow : tensor<?xf32>
  }
  func.return %c : tensor<?x?xf32>
}
