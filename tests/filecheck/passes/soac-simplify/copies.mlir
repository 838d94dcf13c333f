// RUN: soac-opt %s -p soac-simplify --split-input-file | filecheck %s

// A map that copies its input's rows is the input.
// CHECK-LABEL: func.func @copy
// CHECK-NOT:     soac.map
// CHECK:         soac.reduce %n (%xs : tensor<?xf32>)
func.func @copy(%xs: tensor<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %c = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.yield %x : f32
  }
  %z = arith.constant 0.0 : f32
  %s = soac.reduce %n (%c : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %t = arith.addf %a, %b : f32
    soac.yield %t : f32
  }
  func.return %s : f32
}

// -----

// A copy that a scatter consumes keeps the original intact: it stays.
// CHECK-LABEL: func.func @copy_before_scatter
// CHECK:         %c = soac.map %n (%xs : tensor<?xi32>)
// CHECK:         soac.scatter %k (%is, %vs : tensor<?xindex>, tensor<?xi32>) into(%c : tensor<?xi32>)
func.func @copy_before_scatter(%xs: tensor<?xi32>, %is: tensor<?xindex>, %vs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %k = tensor.dim %is, %c0 : tensor<?xindex>
  %c = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    soac.yield %x : i32
  }
  %s = soac.scatter %k (%is, %vs : tensor<?xindex>, tensor<?xi32>) into(%c : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %v: i32) {
    soac.yield %i, %v : index, i32
  }
  func.return %xs, %s : tensor<?xi32>, tensor<?xi32>
}

// -----

// A map whose width may differ from its input's rows checks it: the copy stays.
// CHECK-LABEL: func.func @copy_with_a_check
// CHECK:         soac.map %w (%xs : tensor<?xf32>)
func.func @copy_with_a_check(%xs: tensor<?xf32>, %w: index) -> tensor<?xf32> {
  %c = soac.map %w (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %c : tensor<?xf32>
}
