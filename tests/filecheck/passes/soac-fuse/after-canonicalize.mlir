// RUN: soac-opt %s -p canonicalize,soac-fuse | filecheck %s

// Futhark cases that fuse as in Futhark once `canonicalize` has simplified them (see
// tests/filecheck/dialect/canonicalize.mlir for the patterns; futhark-cases.mlir runs soac-fuse alone).

// FU-49 tabulate1 (Futhark: 1 SOAC): canonicalize turns the read of %ys at the iota index into a map input,
// after which soac-fuse fuses the map that makes %ys into the one that reads it.
// CHECK-LABEL: func.func @fu49
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu49(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %io = soac.iota %n : tensor<?xindex>
  %ys = soac.map %n (%io : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
    %x = soac.index %xs[%i] : tensor<?xi32> -> i32
    soac.yield %x : i32
  }
  %zs = soac.map %n (%io : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
    %y = soac.index %ys[%i] : tensor<?xi32> -> i32
    %x = soac.index %xs[%i] : tensor<?xi32> -> i32
    %z = arith.muli %y, %x : i32
    soac.yield %z : i32
  }
  func.return %zs : tensor<?xi32>
}

// FU-45 slicemap1: map (+3) ((map (+2) xs)[0:k]), with the width of xs taken from xs as in Futhark (Futhark: 1).
// The slice moves onto the first map's input; both maps then have width %k and fuse.
// CHECK-LABEL: func.func @fu45
// CHECK:         %xs_rows = soac.slice %xs[%c0 : %k] : tensor<?xi32> -> tensor<?xi32>
// CHECK-COUNT-1: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
// CHECK-NOT: soac.{{(map|reduce|scan|redomap|scanomap|scatter)}} %
func.func @fu45(%k: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %two = arith.constant 2 : i32
  %three = arith.constant 3 : i32
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %two : i32
    soac.yield %y : i32
  }
  %s = soac.slice %a[%c0 : %k] : tensor<?xi32> -> tensor<?xi32>
  %b = soac.map %k (%s : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %three : i32
    soac.yield %y : i32
  }
  func.return %b : tensor<?xi32>
}

// FU-47 slicemap0: (map (+2) xs)[0:k] (Futhark: the slice moves into the map's input). Only the rows kept
// are computed.
// CHECK-LABEL: func.func @fu47
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %two = arith.constant 2 : i32
// CHECK-NEXT:    %xs_rows = soac.slice %xs[%c0 : %k] : tensor<?xi32> -> tensor<?xi32>
// CHECK-NEXT:    %s = soac.map %k (%xs_rows : tensor<?xi32>)
func.func @fu47(%k: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %two = arith.constant 2 : i32
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %two : i32
    soac.yield %y : i32
  }
  %s = soac.slice %a[%c0 : %k] : tensor<?xi32> -> tensor<?xi32>
  func.return %s : tensor<?xi32>
}
