// RUN: soac-opt %s -p canonicalize,soac-fuse | filecheck %s

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
