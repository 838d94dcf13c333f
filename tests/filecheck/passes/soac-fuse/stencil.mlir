// RUN: soac-opt %s -p soac-fuse --split-input-file | filecheck %s

// map -> stencil: a cheap producer is recomputed for each neighbour the stencil uses (here the left and right
// ones, not the centre), and the stencil reads the map's input.
func.func @cheap_producer(%xs: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %sq = arith.mulf %x, %x : f32
    soac.yield %sq : f32
  }
  %zs = soac.stencil (%n) window [3] clamp (%ys : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %r: f32) {
    %s = arith.addf %l, %r : f32
    soac.yield %s : f32
  }
  func.return %zs : tensor<?xf32>
}

// CHECK-LABEL: func.func @cheap_producer
// CHECK-NOT:     soac.map
// CHECK:         %zs = soac.stencil (%n) window [3] clamp (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%[[L:.*]]: f32, %{{.*}}: f32, %[[R:.*]]: f32) {
// CHECK-NEXT:      %[[LSQ:.*]] = arith.mulf %[[L]], %[[L]] : f32
// CHECK-NEXT:      %[[RSQ:.*]] = arith.mulf %[[R]], %[[R]] : f32
// CHECK-NEXT:      %s = arith.addf %[[LSQ]], %[[RSQ]] : f32
// CHECK-NEXT:      soac.yield %s : f32

// -----

// 2-D: the producer is a map nest over rows, then elements; a consumer nest fuses after the stencil, its other
// input (%bias) read at the centre of the window.
func.func @nests(%img: tensor<?x?xf32>, %bias: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %img, %c0 : tensor<?x?xf32>
  %m = tensor.dim %img, %c1 : tensor<?x?xf32>
  %two = arith.constant 2.0 : f32
  %scaled = soac.map %n (%img : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%row: tensor<?xf32>) {
    %r = soac.map %m (%row : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.mulf %x, %two : f32
      soac.yield %y : f32
    }
    soac.yield %r : tensor<?xf32>
  }
  %blur = soac.stencil (%n, %m) window [1, 3] wrap (%scaled : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%w: f32, %c: f32, %e: f32) {
    %s = arith.addf %w, %e : f32
    soac.yield %s : f32
  }
  %out = soac.map %n (%blur, %bias : tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%brow: tensor<?xf32>, %crow: tensor<?xf32>) {
    %r = soac.map %m (%brow, %crow : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%b: f32, %k: f32) {
      %z = arith.subf %b, %k : f32
      soac.yield %z : f32
    }
    soac.yield %r : tensor<?xf32>
  }
  func.return %out : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @nests
// CHECK-NOT:     soac.map
// CHECK:         %out = soac.stencil (%n, %m) window [1, 3] wrap (%bias, %img : tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%{{.*}}: f32, %k: f32, %{{.*}}: f32, %x: f32, %{{.*}}: f32, %[[E:.*]]: f32) {
// CHECK-NEXT:      %y = arith.mulf %x, %two : f32
// CHECK-NEXT:      %[[YE:.*]] = arith.mulf %[[E]], %two : f32
// CHECK-NEXT:      %s = arith.addf %y, %[[YE]] : f32
// CHECK-NEXT:      %z = arith.subf %s, %k : f32
// CHECK-NEXT:      soac.yield %z : f32
// CHECK-NOT:     soac.map

// -----

// Hindrances: under boundary constant a neighbour outside is the constant, not f of one, so the map stays; an
// expensive producer (a loop) stays; a producer whose result is also returned stays.
func.func @hindrances(%xs: tensor<?xf32>, %k: index) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %sq = arith.mulf %x, %x : f32
    soac.yield %sq : f32
  }
  %a = soac.stencil (%n) window [3] constant(%zero : f32) (%ys : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %r: f32) {
    %s = arith.addf %l, %r : f32
    soac.yield %s : f32
  }
  %ws = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %p = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %x) -> (f32) {
      %q = arith.mulf %acc, %x : f32
      scf.yield %q : f32
    }
    soac.yield %p : f32
  }
  %b = soac.stencil (%n) window [3] clamp (%ws : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %r: f32) {
    %s = arith.addf %l, %r : f32
    soac.yield %s : f32
  }
  %vs = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %neg = arith.negf %x : f32
    soac.yield %neg : f32
  }
  %c = soac.stencil (%n) window [3] mirror (%vs : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %r: f32) {
    %s = arith.addf %l, %r : f32
    soac.yield %s : f32
  }
  func.return %a, %b, %c, %vs : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @hindrances
// CHECK:         %ys, %ws, %vs = soac.map
// CHECK:         %a = soac.stencil (%n) window [3] constant(%zero : f32) (%ys : tensor<?xf32>)
// CHECK:         %b = soac.stencil (%n) window [3] clamp (%ws : tensor<?xf32>)
// CHECK:         %{{.*}} = soac.stencil (%n) window [3] mirror (%vs : tensor<?xf32>)

// -----

// stencil -> map under boundary constant: the map's other input joins the stencil, read at the centre only (never
// off the edge), with one of the stencil's constants of its element type; an input of a type no constant has keeps
// the map apart.
func.func @consumer_under_constant(%xs: tensor<?xf32>, %ys: tensor<?xf32>, %is: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %a = soac.stencil (%n) window [3] constant(%zero : f32) (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %r: f32) {
    %s = arith.addf %l, %r : f32
    soac.yield %s : f32
  }
  %d = soac.map %n (%a, %ys : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%v: f32, %y: f32) {
    %t = arith.mulf %v, %y : f32
    soac.yield %t : f32
  }
  %b = soac.stencil (%n) window [3] constant(%zero : f32) (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%l: f32, %c: f32, %r: f32) {
    %s = arith.subf %l, %r : f32
    soac.yield %s : f32
  }
  %e = soac.map %n (%b, %is : tensor<?xf32>, tensor<?xi32>) -> tensor<?xi32> lambda(%v: f32, %i: i32) {
    %f = arith.fptosi %v : f32 to i32
    %t = arith.addi %f, %i : i32
    soac.yield %t : i32
  }
  func.return %d, %e : tensor<?xf32>, tensor<?xi32>
}

// CHECK-LABEL: func.func @consumer_under_constant
// CHECK:         %d = soac.stencil (%n) window [3] constant(%zero, %zero : f32, f32) (%xs, %ys : tensor<?xf32>, tensor<?xf32>)
// CHECK:         %b = soac.stencil (%n) window [3] constant(%zero : f32) (%xs : tensor<?xf32>)
// CHECK:         %e = soac.map %n (%b, %is : tensor<?xf32>, tensor<?xi32>)
