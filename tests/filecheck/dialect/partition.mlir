// RUN: SOAC_ROUNDTRIP
// RUN: SOAC_GENERIC_ROUNDTRIP

// soac.partition in its custom syntax: printed generic and parsed back it gives the same text; the bucket count is
// a property.

func.func @by_digit(%n: index, %ks: tensor<?xi32>, %vs: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
  %mask = arith.constant 255 : i32
  %counts, %ys, %ws = soac.partition %n buckets 256 (%ks, %vs : tensor<?xi32>, tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) lambda(%k: i32, %v: f32) {
    %d = arith.andi %k, %mask : i32
    %b = arith.index_cast %d : i32 to index
    soac.yield %b, %k, %v : index, i32, f32
  }
  func.return %counts, %ys, %ws : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @by_digit(%n: index, %ks: tensor<?xi32>, %vs: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
// CHECK-NEXT:    %mask = arith.constant 255 : i32
// CHECK-NEXT:    %counts, %ys, %ws = soac.partition %n buckets 256 (%ks, %vs : tensor<?xi32>, tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) lambda(%k: i32, %v: f32) {
// CHECK-NEXT:      %d = arith.andi %k, %mask : i32
// CHECK-NEXT:      %b = arith.index_cast %d : i32 to index
// CHECK-NEXT:      soac.yield %b, %k, %v : index, i32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %counts, %ys, %ws : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "by_digit"
// CHECK-GENERIC:         %counts, %ys, %ws = "soac.partition"(%n, %ks, %vs) <{buckets = 256 : i64}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%k: i32, %v: f32):

// -----

// A filter's shape: one bucket (kept rows), the rest last; the moved value need not be an input.
func.func @keep_positive(%n: index, %xs: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) {
  %counts, %ys = soac.partition %n buckets 1 (%xs : tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) lambda(%x: f32) {
    %z = arith.constant 0.0 : f32
    %keep = arith.cmpf ogt, %x, %z : f32
    %drop = arith.extui %keep : i1 to i32
    %b = arith.xori %drop, %drop : i32
    %y = arith.mulf %x, %x : f32
    soac.yield %b, %y : i32, f32
  }
  func.return %counts, %ys : tensor<?xi32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @keep_positive
// CHECK:         %counts, %ys = soac.partition %n buckets 1 (%xs : tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) lambda(%x: f32) {
// CHECK:           soac.yield %b, %y : i32, f32
