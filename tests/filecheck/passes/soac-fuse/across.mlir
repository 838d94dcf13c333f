// RUN: soac-opt %s -p soac-fuse --split-input-file | filecheck %s

// Fusion across transpose, reverse and reshape (Futhark's fuse-across-transpose and fuse-across-reshape): an array
// op of an element-wise map nest becomes the nest over the array op of its inputs, so the SOAC that reads the
// array op's result fuses with the nest and reads the producer's element at the transformed index.

// FU-41 (fuse-across-transpose1): map-nest |> transpose |> map-nest is one 2-deep nest (Screma 2).
func.func @across_transpose(%a: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %m = tensor.dim %a, %c1 : tensor<?x?xi32>
  %b = soac.map %n (%a : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%r: tensor<?xi32>) {
    %row = soac.map %m (%r : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %one = arith.constant 1 : i32
      %y = arith.addi %x, %one : i32
      soac.yield %y : i32
    }
    soac.yield %row : tensor<?xi32>
  }
  %t = soac.transpose %b [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
  %c = soac.map %m (%t : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%z: tensor<?xi32>) {
    %row2 = soac.map %n (%z : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %three = arith.constant 3 : i32
      %y = arith.muli %x, %three : i32
      soac.yield %y : i32
    }
    soac.yield %row2 : tensor<?xi32>
  }
  func.return %c : tensor<?x?xi32>
}

// CHECK-LABEL: func.func @across_transpose
// CHECK:         %t_in = soac.transpose %a [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
// CHECK-NEXT:    %c = soac.map %m (%t_in : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%0: tensor<?xi32>) {
// CHECK-NEXT:      %row2 = soac.map %n (%0 : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:        %one = arith.constant 1 : i32
// CHECK-NEXT:        %y = arith.addi %x, %one : i32
// CHECK-NEXT:        %three = arith.constant 3 : i32
// CHECK-NEXT:        %y_1 = arith.muli %y, %three : i32
// CHECK-NEXT:        soac.yield %y_1 : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %row2 : tensor<?xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c : tensor<?x?xi32>

// -----

// FU-37 (fuse-across-reshape-transpose), with a reverse: map |> unflatten |> transpose |> reverse |> map-nest is
// one top-level map (/Screma 1).
func.func @across_reshape_transpose_reverse(%n: index) -> tensor<?x?xi32> {
  %nn = arith.muli %n, %n : index
  %is = soac.iota %nn : tensor<?xi32>
  %a = soac.map %nn (%is : tensor<?xi32>) -> tensor<?xi32> lambda(%i: i32) {
    %one = arith.constant 1 : i32
    %y = arith.addi %i, %one : i32
    soac.yield %y : i32
  }
  %b = soac.reshape %a (%n, %n) : tensor<?xi32> -> tensor<?x?xi32>
  %c = soac.transpose %b [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
  %r = soac.reverse %c [0] : tensor<?x?xi32>
  %d = soac.map %n (%r : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%row: tensor<?xi32>) {
    %e = soac.map %n (%row : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %two = arith.constant 2 : i32
      %y = arith.muli %x, %two : i32
      soac.yield %y : i32
    }
    soac.yield %e : tensor<?xi32>
  }
  func.return %d : tensor<?x?xi32>
}

// CHECK-LABEL: func.func @across_reshape_transpose_reverse
// CHECK:         %b_in = soac.reshape %is (%n, %n) : tensor<?xi32> -> tensor<?x?xi32>
// CHECK-NEXT:    %c_in = soac.transpose %b_in [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
// CHECK-NEXT:    %r_in = soac.reverse %c_in [0] : tensor<?x?xi32>
// CHECK-NEXT:    %d = soac.map %n (%r_in : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%0: tensor<?xi32>) {
// CHECK-NEXT:      %e = soac.map %n (%0 : tensor<?xi32>) -> tensor<?xi32> lambda(%i: i32) {
// CHECK-NEXT:        %one = arith.constant 1 : i32
// CHECK-NEXT:        %y = arith.addi %i, %one : i32
// CHECK-NEXT:        %two = arith.constant 2 : i32
// CHECK-NEXT:        %y_1 = arith.muli %y, %two : i32
// CHECK-NEXT:        soac.yield %y_1 : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %e : tensor<?xi32>
// CHECK-NEXT:    }
// CHECK-NOT:     soac.map

// -----

// Across flatten: map (map f) |> flatten |> map g is one map over the flattened input; a reduce consumer fuses too.
func.func @across_flatten(%a: tensor<?x?xf32>, %nm: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %b = soac.map %n (%a : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%r: tensor<?xf32>) {
    %m = tensor.dim %r, %c0 : tensor<?xf32>
    %row = soac.map %m (%r : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.mulf %x, %x : f32
      soac.yield %y : f32
    }
    soac.yield %row : tensor<?xf32>
  }
  %f = soac.reshape %b (%nm) : tensor<?x?xf32> -> tensor<?xf32>
  %z = arith.constant 0.0 : f32
  %s = soac.reduce %nm (%f : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%p: f32, %q: f32) {
    %t = arith.addf %p, %q : f32
    soac.yield %t : f32
  }
  func.return %s : f32
}

// CHECK-LABEL: func.func @across_flatten
// CHECK:         %f_in = soac.reshape %a (%nm) : tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NEXT:    %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %s = soac.redomap %nm (%f_in : tensor<?xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:     soac.map

// -----

// Not across: the nest's result has another use (the nest would run twice), or its element depends on an outer
// level of the nest (not element-wise), or nothing fuses with the array op's result.
func.func @not_across(%a: tensor<?x?xi32>, %v: tensor<?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %m = tensor.dim %a, %c1 : tensor<?x?xi32>
  %b = soac.map %n (%a : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%r: tensor<?xi32>) {
    %row = soac.map %m (%r : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.addi %x, %x : i32
      soac.yield %y : i32
    }
    soac.yield %row : tensor<?xi32>
  }
  %t = soac.reverse %b [0] : tensor<?x?xi32>
  %outer = soac.map %n (%a, %v : tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32> lambda(%r: tensor<?xi32>, %k: i32) {
    %row = soac.map %m (%r : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.addi %x, %k : i32
      soac.yield %y : i32
    }
    soac.yield %row : tensor<?xi32>
  }
  %u = soac.reverse %outer [0] : tensor<?x?xi32>
  %kept = soac.map %n (%a : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%r: tensor<?xi32>) {
    %row = soac.map %m (%r : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.muli %x, %x : i32
      soac.yield %y : i32
    }
    soac.yield %row : tensor<?xi32>
  }
  %w = soac.transpose %kept [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>
  func.return %b, %t, %u, %w : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>
}

// CHECK-LABEL: func.func @not_across
// CHECK:         %t = soac.reverse %b [0] : tensor<?x?xi32>
// CHECK:         %u = soac.reverse %outer [0] : tensor<?x?xi32>
// CHECK:         %w = soac.transpose %kept [1, 0] : tensor<?x?xi32> -> tensor<?x?xi32>

// -----

// FU-39's shape: the nest maps over %b, free in its outer lambda, so the flatten cannot move onto the nest's
// inputs; it moves after the element-wise consumer, which then fuses with the nest: one 2-deep nest, then the
// flatten.
// CHECK-LABEL: func.func @across_flatten_free(
// CHECK:         %nm = arith.muli %n, %m
// CHECK-NEXT:    %{{.*}} = soac.map %n (%a : tensor<?xf32>)
// CHECK:           soac.map %m (%b : tensor<?xf32>)
// CHECK:             arith.mulf
// CHECK:             math.sqrt
// CHECK:         soac.reshape
// CHECK-NOT:     soac.map
func.func @across_flatten_free(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = tensor.dim %b, %c0 : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %prod = soac.map %n (%a : tensor<?xf32>) -> tensor<?x?xf32> lambda(%x: f32) {
    %x1 = arith.addf %x, %one : f32
    %row = soac.map %m (%b : tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32) {
      %p = arith.mulf %x1, %y : f32
      %q = arith.mulf %p, %p : f32
      soac.yield %q : f32
    }
    soac.yield %row : tensor<?xf32>
  }
  %nm = arith.muli %n, %m : index
  %flat = soac.reshape %prod (%nm) : tensor<?x?xf32> -> tensor<?xf32>
  %roots = soac.map %nm (%flat : tensor<?xf32>) -> tensor<?xf32> lambda(%e: f32) {
    %s = math.sqrt %e : f32
    soac.yield %s : f32
  }
  func.return %roots : tensor<?xf32>
}
