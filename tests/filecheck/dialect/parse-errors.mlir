// RUN: soac-opt %s --parsing-diagnostics --split-input-file | filecheck %s

// Errors found while parsing the custom syntax of the soac dialect, each reported at its place.

// scan is not marked commutative (only reduce and redomap are)
func.func @scan_commutative(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scan commutative %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK:      {{.*}}parse-errors.mlir:7:18
// CHECK:      'soac.scan' cannot be marked commutative

// -----

// scanomap is not marked commutative either
func.func @scanomap_commutative(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap commutative %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK:      {{.*}}parse-errors.mlir:21:22
// CHECK:      'soac.scanomap' cannot be marked commutative

// -----

// the level of a segmented op is thread or group
func.func @bad_level(%n: index, %z: f32) -> tensor<?xf32> {
  %r = soac.segmap warp (%n) -> tensor<?xf32> lambda(%i: index) {
    soac.yield %z : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}parse-errors.mlir:37:20
// CHECK:      expected level 'thread' or 'group', got 'warp'

// -----

// the neutral elements are introduced by `neutral`
func.func @missing_neutral(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.reduce %n (%xs : tensor<?xf32>) (%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : f32
}

// CHECK:      {{.*}}parse-errors.mlir:50:45
// CHECK:      Expected 'neutral'

// -----

// redomap needs its map lambda
func.func @missing_lambda(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : f32
}

// CHECK:      {{.*}}parse-errors.mlir:68:3
// CHECK:      Expected 'lambda'

// -----

// the width is an index
func.func @width_type(%n: i32, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}parse-errors.mlir:78:17
// CHECK:      operand is used with type index, but has been previously used or defined with type i32

// -----

// operand types are checked against the values' types
func.func @operand_type(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xf32> lambda(%x: i32) {
    %f = arith.sitofp %x : i32 to f32
    soac.yield %f : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}parse-errors.mlir:91:21
// CHECK:      operand is used with type tensor<?xi32>, but has been previously used or defined with type tensor<?xf32>

// -----

// an unknown soac op is named
func.func @unknown_op(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.mapp %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}parse-errors.mlir:105:8
// CHECK:      unknown operation 'soac.mapp': dialect 'soac' has no such operation (did you mean 'soac.map'?)

// -----

// a value used but never defined is reported at its use
func.func @undefined_value(%n: index) -> tensor<?xf32> {
  %r = soac.map %n (%ys : tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32) {
    soac.yield %y : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}parse-errors.mlir:118:21
// CHECK:      use of undefined value %ys

// -----

// a lambda left open at the end of the input
func.func @unclosed(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.yield %x : f32

// CHECK:      {{.*}}parse-errors.mlir:132:24
// CHECK:      unexpected end of file, expected '}' to close the region opened at {{.*}}parse-errors.mlir:131:75

// -----

// A type that an op's assembly format refuses (an integer op on floats) is reported at the op's name, in a lambda too
func.func @integer_op_on_floats(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.addi %x, %x : f32
    soac.yield %y : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}parse-errors.mlir:[[# @LINE - 6]]:10
// CHECK:      'arith.addi' does not accept type f32

// -----

// A threshold's device default names one of the kinds the runtime computes
func.func @threshold_device(%par: index) -> i1 {
  %t = soac.threshold "t" %par default 8 device "warp"
  func.return %t : i1
}

// CHECK:      {{.*}}parse-errors.mlir:[[# @LINE - 4]]:49
// CHECK:      expected a device default ("resident", "group"), got 'warp'
