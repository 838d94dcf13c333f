// RUN: soac-opt %s --parsing-diagnostics --split-input-file | filecheck %s

// An unknown boundary condition is reported where it is written.

func.func @boundary(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [3] reflect (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32, %b: f32, %c: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}stencil-parse-errors.mlir:6:37
// CHECK:      expected a boundary (clamp, mirror, wrap, constant), got 'reflect'

// -----

// A window extent that does not fit in 64 bits is reported where it is written.

func.func @huge_extent(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [99999999999999999999] clamp (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}stencil-parse-errors.mlir:20:34
// CHECK:      99999999999999999999 does not fit in 64 bits

// -----

// In the generic form the boundary is an enum attribute: an unknown one is reported where it is written.

func.func @generic_boundary(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = "soac.stencil"(%n, %xs) <{window = array<i64: 1>, boundary = #soac<boundary reflect>, operandSegmentSizes = array<i32: 1, 1, 0>}> ({
  ^bb0(%a: f32):
    soac.yield %a : f32
  }) : (index, tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}stencil-parse-errors.mlir:34:84
// CHECK:      Expected `clamp`, `mirror`, `wrap`, or `constant`.
