// RUN: soac-opt %s -p soac-flatten --split-input-file | filecheck %s

// A map of stencils over the rows of a 3-D array becomes one 3-D stencil, its window 1 along the map's dimension.
func.func @map_of_stencils(%imgs: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %imgs, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %imgs, %c1 : tensor<?x?x?xf32>
  %m = tensor.dim %imgs, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant 0.0 : f32
  %r = soac.map %b (%imgs : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%img: tensor<?x?xf32>) {
    %s = soac.stencil (%n, %m) window [3, 1] constant(%zero : f32) (%img : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%up: f32, %c: f32, %down: f32) {
      %d = arith.subf %down, %up : f32
      soac.yield %d : f32
    }
    soac.yield %s : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?x?xf32>
}

// CHECK-LABEL: func.func @map_of_stencils
// CHECK-NOT:     soac.map
// CHECK:         %{{.*}} = soac.stencil (%b, %n, %m) window [1, 3, 1] constant(%zero : f32) (%imgs : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%up: f32, %c: f32, %down: f32) {
// CHECK-NEXT:      %d = arith.subf %down, %up : f32

// -----

// Not when the stencil's sizes depend on the row (or it would have rank 4, or reads its rows whole).
func.func @row_sizes(%rows: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %rows, %c0 : tensor<?x?xf32>
  %r = soac.map %b (%rows : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
    %k = arith.constant 0 : index
    %len = tensor.dim %row, %k : tensor<?xf32>
    %s = soac.stencil (%len) window [3] wrap (%row : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %rr: f32) {
      soac.yield %l : f32
    }
    soac.yield %s : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @row_sizes
// CHECK:         soac.stencil (%len) window [3] wrap (%row : tensor<?xf32>)
