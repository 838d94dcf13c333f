// RUN: soac-opt %s -p soac-fuse | filecheck %s

// map->partition fusion: the map that computes a partition's keys moves into its lambda (as hist takes its map), so
// the digits are never stored; a map whose result is also used elsewhere stays.

// CHECK-LABEL: func.func @digit_map
// CHECK-NOT:     soac.map
// CHECK:         %counts, %ys = soac.partition %n buckets 256 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
// CHECK-NEXT:      %d = arith.andi %x, %m : i32
// CHECK-NEXT:      %b = arith.index_cast %d : i32 to index
// CHECK-NEXT:      soac.yield %b, %x : index, i32
// CHECK-NEXT:    }
func.func @digit_map(%xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %m = arith.constant 255 : i32
  %ds = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %d = arith.andi %x, %m : i32
    soac.yield %d : i32
  }
  %counts, %ys = soac.partition %n buckets 256 (%ds, %xs : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%d: i32, %x: i32) {
    %b = arith.index_cast %d : i32 to index
    soac.yield %b, %x : index, i32
  }
  func.return %counts, %ys : tensor<?xi32>, tensor<?xi32>
}

// The moved values come from a map too: it fuses, and the partition moves what the map computed.
// CHECK-LABEL: func.func @moved_values
// CHECK-NOT:     soac.map
// CHECK:         soac.partition %n buckets 2 (%xs : tensor<?xf32>)
// CHECK:           %sq = arith.mulf %x, %x : f32
// CHECK:           soac.yield %b, %sq : index, f32
func.func @moved_values(%xs: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %sqs = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %sq = arith.mulf %x, %x : f32
    soac.yield %sq : f32
  }
  %counts, %ys = soac.partition %n buckets 2 (%sqs : tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) lambda(%s: f32) {
    %one = arith.constant 1.0 : f32
    %big = arith.cmpf ogt, %s, %one : f32
    %b = arith.index_cast %big : i1 to index
    soac.yield %b, %s : index, f32
  }
  func.return %counts, %ys : tensor<?xi32>, tensor<?xf32>
}

// A map whose result is also returned is not fused.
// CHECK-LABEL: func.func @used_elsewhere
// CHECK:         %ds = soac.map
// CHECK:         soac.partition %n buckets 4 (%ds : tensor<?xi32>)
func.func @used_elsewhere(%xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %m = arith.constant 3 : i32
  %ds = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %d = arith.andi %x, %m : i32
    soac.yield %d : i32
  }
  %counts, %ys = soac.partition %n buckets 4 (%ds : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%d: i32) {
    %b = arith.index_cast %d : i32 to index
    soac.yield %b, %d : index, i32
  }
  func.return %ds, %ys : tensor<?xi32>, tensor<?xi32>
}

// Fusion keeps the known counts.
// CHECK-LABEL: func.func @keeps_known_counts
// CHECK-NOT:     soac.map
// CHECK:         soac.partition %n buckets 4 counts(%known : tensor<?xi32>) (%xs : tensor<?xi32>)
func.func @keeps_known_counts(%xs: tensor<?xi32>, %known: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %m = arith.constant 3 : i32
  %ds = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %d = arith.andi %x, %m : i32
    soac.yield %d : i32
  }
  %counts, %ys = soac.partition %n buckets 4 counts(%known : tensor<?xi32>) (%ds, %xs : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%d: i32, %x: i32) {
    %b = arith.index_cast %d : i32 to index
    soac.yield %b, %x : index, i32
  }
  func.return %ys : tensor<?xi32>
}
