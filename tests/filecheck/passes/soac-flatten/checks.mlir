// RUN: soac-opt %s -p 'soac-flatten{mode=full}' --split-input-file | filecheck %s

// Flattening keeps every flattened SOAC's run-time check that its inputs have as many rows as its width: a
// soac.assert with the SOAC's message, before the segmented ops (inside a nest: unless the nest is empty).

// The map's second input has its own length: checked; the first has the map's width (tensor.dim): no check.
// The inner reduce's width is the rows' length: no check.
// CHECK-LABEL: func.func @zipped
// CHECK:         %[[ROWS:.*]] = tensor.dim %ys, %{{.*}} : tensor<?xi32>
// CHECK-NEXT:    %[[SAME:.*]] = arith.cmpi eq, %n, %[[ROWS]] : index
// CHECK-NEXT:    soac.assert %[[SAME]], "'soac.map': width {0} does not match the outer size {1} of input #1" (%n, %[[ROWS]] : index, index)
// CHECK-NOT:     soac.assert
// CHECK:         soac.segred thread (%n, %m)
func.func @zipped(%xs: tensor<?x?xi32>, %ys: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xs, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xs, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %r = soac.map %n (%xs, %ys : tensor<?x?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%row: tensor<?xi32>, %y: i32) {
    %s = soac.reduce %m (%row : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    %t = arith.addi %s, %y : i32
    soac.yield %t : i32
  }
  func.return %r : tensor<?xi32>
}

// -----

// An inner SOAC's width: not negative, and against its rows (dimension 1 of the map's input), unless the nest is
// empty (then the SOAC never runs).
// CHECK-LABEL: func.func @inner
// CHECK:         %[[NONNEG:.*]] = arith.cmpi sge, %k, %[[C0:.*]] : index
// CHECK-NEXT:    %[[EMPTY:.*]] = arith.cmpi eq, %n, %[[C0]] : index
// CHECK-NEXT:    %[[OK0:.*]] = arith.ori %[[NONNEG]], %[[EMPTY]] : i1
// CHECK-NEXT:    soac.assert %[[OK0]], "'soac.redomap': negative width {0}" (%k : index)
// CHECK:         %[[ROWS:.*]] = tensor.dim %xs, %c1 : tensor<?x?xi32>
// CHECK-NEXT:    %[[SAME:.*]] = arith.cmpi eq, %k, %[[ROWS]] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.ori %[[SAME]], %[[EMPTY]] : i1
// CHECK-NEXT:    soac.assert %[[OK]], "'soac.redomap': width {0} does not match the outer size {1} of input #0" (%k, %[[ROWS]] : index, index)
// CHECK-NEXT:    soac.segred thread (%n, %k)
func.func @inner(%k: index, %xs: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %r = soac.map %n (%xs : tensor<?x?xi32>) -> tensor<?xi32> lambda(%row: tensor<?xi32>) {
    %s = soac.redomap %k (%row : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    } lambda(%x: i32) {
      %y = arith.muli %x, %x : i32
      soac.yield %y : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}

// -----

// Sizes known to be the width need no check: an iota of the width, an earlier kernel's result over the nest,
// a slice [0 : width].
// CHECK-LABEL: func.func @known
// CHECK-NOT:     soac.assert
// CHECK:         func.return
func.func @known(%n: index, %m: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %is = soac.iota %n : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %r = soac.map %n (%is : tensor<?xi32>) -> tensor<?xi32> lambda(%i: i32) {
    %part = soac.slice %xs[%c0 : %m] : tensor<?xi32> -> tensor<?xi32>
    %ys = soac.map %m (%part : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.addi %x, %i : i32
      soac.yield %y : i32
    }
    %s = soac.reduce %m (%ys : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}

// -----

// A map of histograms: the hist's inputs against its width.
// CHECK-LABEL: func.func @hist
// CHECK:         soac.assert %{{.*}}, "'soac.map': width {0} does not match the outer size {1} of input #0" (%n, %{{.*}} : index, index)
// CHECK:         soac.assert %{{.*}}, "'soac.hist': width {0} does not match the outer size {1} of input #0" (%m, %{{.*}} : index, index)
// CHECK:         soac.seghist thread (%n, %m)
func.func @hist(%n: index, %m: index, %bins: index, %iss: tensor<?x?xindex>) -> tensor<?x?xi32> {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = soac.map %n (%iss : tensor<?x?xindex>) -> tensor<?x?xi32> lambda(%is: tensor<?xindex>) {
    %empty = soac.replicate %bins, %z : i32 -> tensor<?xi32>
    %c = soac.hist %m (%is : tensor<?xindex>) into(%empty : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%i: index) {
      soac.yield %i, %one : index, i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}

// -----

// A map without inputs checks that its width is not negative.
// CHECK-LABEL: func.func @no_inputs
// CHECK:         %[[OK:.*]] = arith.cmpi sge, %n, %{{.*}} : index
// CHECK-NEXT:    soac.assert %[[OK]], "'soac.map': negative width {0}" (%n : index)
// CHECK:         soac.segmap thread (%n, %m)
func.func @no_inputs(%n: index, %m: index) -> tensor<?x?xindex> {
  %r = soac.map %n () -> tensor<?x?xindex> lambda() {
    %is = soac.iota %m : tensor<?xindex>
    %js = soac.map %m (%is : tensor<?xindex>) -> tensor<?xindex> lambda(%i: index) {
      soac.yield %i : index
    }
    soac.yield %js : tensor<?xindex>
  }
  func.return %r : tensor<?x?xindex>
}

// -----

// Rows whose length varies in the nest (a slice from %i) cannot be checked before the nest: a segmap over the nest
// that yields nothing checks each point's rows, before the segred.
// CHECK-LABEL: func.func @varying
// CHECK:         soac.segmap thread (%n) -> () lambda(%i: index) {
// CHECK:           %[[WINDOW:.*]] = soac.slice
// CHECK:           %[[ROWS:.*]] = tensor.dim %[[WINDOW]], %{{.*}} : tensor<?xi32>
// CHECK:           soac.assert %{{.*}}, "'soac.reduce': negative width {0}" (%m : index)
// CHECK-NEXT:      %[[SAME:.*]] = arith.cmpi eq, %m, %[[ROWS]] : index
// CHECK-NEXT:      soac.assert %[[SAME]], "'soac.reduce': width {0} does not match the outer size {1} of input #0" (%m, %[[ROWS]] : index, index)
// CHECK-NEXT:      soac.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    soac.segred thread (%n, %m)
func.func @varying(%n: index, %m: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %zero = arith.constant 0 : i32
  %is = soac.iota %n : tensor<?xindex>
  %r = soac.map %n (%is : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
    %end = arith.addi %i, %m : index
    %window = soac.slice %xs[%i : %end] : tensor<?xi32> -> tensor<?xi32>
    %s = soac.reduce %m (%window : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}

// -----

// A map of stencils becomes one stencil, after the map's check.
// CHECK-LABEL: func.func @stencils
// CHECK:         soac.assert %{{.*}}, "'soac.map': width {0} does not match the outer size {1} of input #0" (%b, %{{.*}} : index, index)
// CHECK-NEXT:    soac.stencil (%b, %n)
func.func @stencils(%b: index, %n: index, %xss: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = soac.map %b (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%xs: tensor<?xf32>) {
    %s = soac.stencil (%n) window [3] clamp (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %r: f32) {
      %t = arith.addf %l, %r : f32
      soac.yield %t : f32
    }
    soac.yield %s : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}
