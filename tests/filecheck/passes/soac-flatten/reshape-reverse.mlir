// RUN: soac-opt %s -p 'soac-flatten{mode=full}' --split-input-file | filecheck %s

// A reverse or a reshape of whole rows in a map nest is pushed out as one op over the whole array (as a transpose
// is): `map (reverse) xss` reverses dimension 1 of xss; `map (reshape (a, b)) xss` reshapes xss to (n, a, b), after
// the checks of each row's reshape (its sizes not negative, its element count), unless the nest is empty.

func.func @map_of_reverses(%xss: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?x?xf32>
  %r = soac.map %n (%xss : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%m: tensor<?x?xf32>) {
    %t = soac.reverse %m [0, 1] : tensor<?x?xf32>
    soac.yield %t : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?x?xf32>
}

// CHECK-LABEL: func.func @map_of_reverses
// CHECK-NOT:     soac.map
// CHECK:         %r = soac.reverse %xss [1, 2] : tensor<?x?x?xf32>
// CHECK-NEXT:    func.return %r : tensor<?x?x?xf32>

// -----

func.func @map_of_reshapes(%xss: tensor<?x?xi32>, %a: index, %b: index) -> tensor<?x?x?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?x?xi32> lambda(%row: tensor<?xi32>) {
    %u = soac.reshape %row (%a, %b) : tensor<?xi32> -> tensor<?x?xi32>
    soac.yield %u : tensor<?x?xi32>
  }
  func.return %r : tensor<?x?x?xi32>
}

// CHECK-LABEL: func.func @map_of_reshapes
// CHECK-NOT:     soac.map
// CHECK:         %no_rows = arith.cmpi eq, %n, %{{.*}} : index
// CHECK:         soac.assert %{{.*}}, "'soac.reshape': negative size {0}" (%a : index)
// CHECK:         %size = arith.maxsi %a, %{{.*}} : index
// CHECK:         soac.assert %{{.*}}, "'soac.reshape': negative size {0}" (%b : index)
// CHECK:         %size_1 = arith.maxsi %b, %{{.*}} : index
// CHECK:         %rows = tensor.dim %xss, %{{.*}} : tensor<?x?xi32>
// CHECK-NEXT:    %new_count = arith.muli %a, %b : index
// CHECK-NEXT:    %same_count = arith.cmpi eq, %rows, %new_count : index
// CHECK-NEXT:    %checked_2 = arith.ori %same_count, %no_rows : i1
// CHECK-NEXT:    soac.assert %checked_2, "'soac.reshape': cannot reshape an array of {0} elements to sizes ({1}, {2})" (%rows, %a, %b : index, index, index)
// CHECK-NEXT:    %r = soac.reshape %xss (%n, %size, %size_1) : tensor<?x?xi32> -> tensor<?x?x?xi32>
// CHECK-NEXT:    func.return %r : tensor<?x?x?xi32>

// -----

// Sizes that vary in the nest: the reshape stays in a segmap, where each row checks its own.
func.func @varying_sizes(%xss: tensor<?x?xi32>, %as: tensor<?xindex>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %r = soac.map %n (%xss, %as : tensor<?x?xi32>, tensor<?xindex>) -> tensor<?xi32> lambda(%row: tensor<?xi32>, %a: index) {
    %c1 = arith.constant 1 : index
    %u = soac.reshape %row (%a, %c1) : tensor<?xi32> -> tensor<?x?xi32>
    %x = soac.index %u[%c0, %c0] : tensor<?x?xi32> -> i32
    soac.yield %x : i32
  }
  func.return %r : tensor<?xi32>
}

// CHECK-LABEL: func.func @varying_sizes
// CHECK:         %r = soac.segmap thread (%n) -> tensor<?xi32> lambda(%i: index) {
// CHECK:           %u = soac.reshape %row (%a, %c1) : tensor<?xi32> -> tensor<?x?xi32>
