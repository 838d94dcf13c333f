// RUN: soac-opt %s --verify-diagnostics --split-input-file | filecheck %s

// The verifier of soac.partition: each error names the op and the mismatch, at the op's line.

func.func @no_buckets(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c, %ys = soac.partition %n buckets 0 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
    soac.yield %x, %x : i32, i32
  }
  func.return %ys : tensor<?xi32>
}

// CHECK:      {{.*}}partition-invalid.mlir:6:3
// CHECK:      error: 'soac.partition' needs between 1 and 65536 buckets, got 0

// -----

func.func @float_bucket(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %c, %ys = soac.partition %n buckets 4 (%xs : tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) lambda(%x: f32) {
    soac.yield %x, %x : f32, f32
  }
  func.return %ys : tensor<?xf32>
}

// CHECK: error: 'soac.partition' lambda yields (f32, f32), expected an integer bucket first, then the values to move

// -----

func.func @nothing_moved(%n: index, %is: tensor<?xindex>) -> tensor<?xi32> {
  %c = soac.partition %n buckets 4 (%is : tensor<?xindex>) -> (tensor<?xi32>) lambda(%i: index) {
    soac.yield %i : index
  }
  func.return %c : tensor<?xi32>
}

// CHECK: error: 'soac.partition' lambda yields only a bucket: it must yield at least one value to move

// -----

func.func @arity(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c, %ys = soac.partition %n buckets 4 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32, %y: i32) {
    soac.yield %x, %x : i32, i32
  }
  func.return %ys : tensor<?xi32>
}

// CHECK: error: 'soac.partition' lambda takes 2 parameters but 1 is expected (the input rows: (i32))

// -----

func.func @result_types(%n: index, %xs: tensor<?xi32>) -> tensor<?xf32> {
  %c, %ys = soac.partition %n buckets 4 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xf32>) lambda(%x: i32) {
    soac.yield %x, %x : i32, i32
  }
  func.return %ys : tensor<?xf32>
}

// CHECK: error: 'soac.partition' has result types (tensor<?xf32>), expected (tensor<?xi32>) from its lambdas

// -----

func.func @counts_type(%n: index, %xs: tensor<?xi32>) -> tensor<?xindex> {
  %c, %ys = soac.partition %n buckets 4 (%xs : tensor<?xi32>) -> (tensor<?xindex>, tensor<?xi32>) lambda(%x: i32) {
    soac.yield %x, %x : i32, i32
  }
  func.return %c : tensor<?xindex>
}

// CHECK: error: 'soac.partition' gives its bucket counts as tensor<?xi32>, not tensor<?xindex>

// -----

func.func @rows(%n: index, %xss: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c, %ys = soac.partition %n buckets 2 (%xss : tensor<?x4xf32>) -> (tensor<?xi32>, tensor<?x4xf32>) lambda(%row: tensor<4xf32>) {
    %b = arith.constant 0 : index
    soac.yield %b, %row : index, tensor<4xf32>
  }
  func.return %ys : tensor<?x4xf32>
}

// CHECK: error: 'soac.partition' moves scalars, but its lambda yields (tensor<4xf32>): partition the row indices (an iota) and gather the rows
