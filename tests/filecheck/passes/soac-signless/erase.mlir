// RUN: soac-opt %s -p soac-signless | filecheck %s

// soac-signless makes every integer type signless (soac's IR is, as MLIR's arith is): a front end that
// traced unsigned values as ui8 keeps its unsigned ops (maxui), its constants lose the bitcast that gave
// them the unsigned type, and tensors, lambdas and the function's type become i8.

// CHECK-LABEL: func.func @clamp_low(%xs: tensor<?xi8>, %n: index) -> tensor<?xi8> {
// CHECK-NEXT:    %c = arith.constant -56 : i8
// CHECK-NEXT:    %r = soac.map %n (%xs : tensor<?xi8>) -> tensor<?xi8> lambda(%x: i8) {
// CHECK-NEXT:      %m = arith.maxui %x, %c : i8
// CHECK-NEXT:      soac.yield %m : i8
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi8>
func.func @clamp_low(%xs: tensor<?xui8>, %n: index) -> tensor<?xui8> {
  %c = arith.constant -56 : i8
  %u = arith.bitcast %c : i8 to ui8
  %r = soac.map %n (%xs : tensor<?xui8>) -> tensor<?xui8> lambda(%x: ui8) {
    %m = arith.maxui %x, %u : ui8
    soac.yield %m : ui8
  }
  func.return %r : tensor<?xui8>
}

// A bitcast that changes more than the signedness stays.
// CHECK-LABEL: func.func @bits(%x: i32) -> f32 {
// CHECK-NEXT:    %f = arith.bitcast %x : i32 to f32
func.func @bits(%x: ui32) -> f32 {
  %f = arith.bitcast %x : ui32 to f32
  func.return %f : f32
}
