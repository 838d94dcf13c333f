// RUN: soac-opt %s -p soac-fuse | filecheck %s
// RUN: soac-opt %s -p 'soac-fuse{vertical=false}' | filecheck %s --check-prefix=NOVERT
// RUN: soac-opt %s -p 'soac-fuse{horizontal=false}' | filecheck %s --check-prefix=NOHORIZ
// RUN: soac-opt %s -p 'soac-fuse{vertical=false horizontal=false}' | filecheck %s --check-prefix=NONE

// FU-07 shape: both kinds together give one SOAC; each option alone leaves some.
// CHECK-LABEL: func.func @both
// CHECK-COUNT-1: soac.redomap
// CHECK-NOT: soac.map
// NOVERT-LABEL: func.func @both
// NOVERT: soac.map {{.*}} -> (tensor<?xf64>, tensor<?xf64>)
// NOVERT: soac.reduce
// NOHORIZ-LABEL: func.func @both
// NOHORIZ: soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64>
// NOHORIZ: soac.redomap
// NOHORIZ-NOT: soac.map
// NONE-LABEL: func.func @both
// NONE-COUNT-2: soac.map
// NONE: soac.reduce
func.func @both(%n: index, %arr: tensor<?xf64>, %z: f64) -> (f64, tensor<?xf64>) {
  %a = soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.addf %x, %x : f64
    soac.yield %y : f64
  }
  %b = soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.mulf %x, %x : f64
    soac.yield %y : f64
  }
  %s = soac.reduce %n (%a : tensor<?xf64>) neutral(%z : f64) -> f64 combine(%p: f64, %q: f64) {
    %c = arith.addf %p, %q : f64
    soac.yield %c : f64
  }
  func.return %s, %b : f64, tensor<?xf64>
}
