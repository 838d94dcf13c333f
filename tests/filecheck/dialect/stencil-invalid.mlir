// RUN: soac-opt %s --verify-diagnostics --split-input-file | filecheck %s

// The verifier of soac.stencil: each error names the op and the mismatch, at the op's line.

func.func @even_window(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [2] clamp (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32, %b: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}stencil-invalid.mlir:6:3
// CHECK:      error: 'soac.stencil' window extents must be odd and positive, got [2]

// -----

func.func @window_rank(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [3, 3] clamp (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' window [3, 3] has 2 extents for 1 dimensions

// -----

func.func @rank_four(%n: index, %xs: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %r = soac.stencil (%n, %n, %n, %n) window [1, 1, 1, 1] clamp (%xs : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?x?x?x?xf32>
}

// CHECK: error: 'soac.stencil' needs an index space of 1 to 3 dimensions, got 4

// -----

// A huge window is reported by its size, without listing (or building) its billion neighbours.
func.func @huge_window(%n: index, %xs: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = soac.stencil (%n, %n, %n) window [1001, 1001, 1001] clamp (%xs : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?x?x?xf32>
}

// CHECK: error: 'soac.stencil' lambda takes 1 parameter but 1003003001 are expected (1003003001 neighbours of each of 1 input)

// -----

func.func @input_rank(%n: index, %xs: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [1] clamp (%xs : tensor<?x?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' input #0 has type tensor<?x?xf32>, expected a 1-D array of scalars

// -----

func.func @arity(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xi32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [3] clamp (%xs, %ys : tensor<?xf32>, tensor<?xi32>) -> tensor<?xf32> lambda(%a: f32, %b: f32, %c: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' lambda takes 3 parameters but 6 are expected (3 neighbours of each input: (f32, f32, f32, i32, i32, i32))

// -----

func.func @param_type(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [1] clamp (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: i32) {
    %f = arith.sitofp %a : i32 to f32
    soac.yield %f : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' lambda parameter #0 has type i32, expected f32 from 1 neighbours of each input

// -----

func.func @missing_constant(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [1] constant() (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' boundary constant needs one value per input (1), got 0

// -----

func.func @constant_type(%n: index, %xs: tensor<?xf32>, %z: i32) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [1] constant(%z : i32) (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' constant #0 has type i32, expected f32 from input #0

// -----

func.func @result_type(%n: index, %xs: tensor<?xf32>) -> tensor<?xi32> {
  %r = soac.stencil (%n) window [1] clamp (%xs : tensor<?xf32>) -> tensor<?xi32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xi32>
}

// CHECK: error: 'soac.stencil' has result types (tensor<?xi32>), expected (tensor<?xf32>) from its lambdas

// -----

func.func @tile_rank(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [1] clamp tile [8, 8] (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' tile [8, 8] must give a positive size for each of 1 dimensions

// -----

func.func @no_inputs(%n: index) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [1] clamp () -> tensor<?xf32> lambda() {
    %z = arith.constant 0.0 : f32
    soac.yield %z : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' needs at least one input

// -----

func.func @tile_too_large(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [1] clamp tile [2048] (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' tile [2048] needs more than the 1024 work-items of a work-group

// -----

func.func @tile_too_large_2d(%n: index, %m: index, %xs: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = soac.stencil (%n, %m) window [1, 1] clamp tile [64, 1024] (%xs : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?x?xf32>
}

// CHECK: error: 'soac.stencil' tile [64, 1024] needs more than the 1024 work-items of a work-group, each computing at most 32 elements along the first dimension

// -----

func.func @yields_an_array(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [1] wrap (%xs : tensor<?xf32>) -> tensor<?x?xf32> lambda(%a: f32) {
    %t = soac.replicate %n, %a : f32 -> tensor<?xf32>
    soac.yield %t : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// CHECK: error: 'soac.stencil' lambda must yield scalars, got (tensor<?xf32>)

// -----

func.func @constant_elsewhere(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %r = "soac.stencil"(%n, %xs, %z) <{window = array<i64: 1>, boundary = #soac<boundary wrap>, operandSegmentSizes = array<i32: 1, 1, 1>}> ({
  ^bb0(%a: f32):
    soac.yield %a : f32
  }) : (index, tensor<?xf32>, f32) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' boundary wrap takes no constants

// -----

// The boundary is a #soac<boundary ...> (an unknown one is a parse error: stencil-parse-errors.mlir), not a string.

func.func @string_boundary(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = "soac.stencil"(%n, %xs) <{window = array<i64: 1>, boundary = "clamp", operandSegmentSizes = array<i32: 1, 1, 0>}> ({
  ^bb0(%a: f32):
    soac.yield %a : f32
  }) : (index, tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// CHECK: error: "clamp" should be of base attribute soac.boundary
