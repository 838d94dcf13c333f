// RUN: soac-opt %s -p soac-fuse | filecheck %s

// Map-out arrays (thesis §6.3): a fused producer's result that is still used
// elsewhere becomes an extra result of the fused op instead of being recomputed.

// The producer's result is also a function result: it stays, as a map-out of the redomap.
// CHECK-LABEL: func.func @mapout_redomap(%n: index, %xs: tensor<?xf32>, %z: f32) -> (f32, tensor<?xf32>) {
// CHECK-NEXT:    %s, %ys = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (f32, tensor<?xf32>) combine(%a: f32, %b: f32) {
// CHECK-NEXT:    %c = arith.addf %a, %b : f32
// CHECK-NEXT:    soac.yield %c : f32
// CHECK-NEXT:    } lambda(%x: f32) {
// CHECK-NEXT:    %y = arith.mulf %x, %x : f32
// CHECK-NEXT:    soac.yield %y, %y : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %ys : f32, tensor<?xf32>
// CHECK-NEXT:    }
func.func @mapout_redomap(%n: index, %xs: tensor<?xf32>, %z: f32) -> (f32, tensor<?xf32>) {
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
    soac.yield %y : f32
  }
  %s = soac.reduce %n (%ys : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s, %ys : f32, tensor<?xf32>
}

// The producer's result is indexed after the consumer (a use outside SOAC inputs): map-out of a scanomap.
// CHECK-LABEL: func.func @mapout_indexed(%n: index, %xs: tensor<?xi32>, %z: i32, %i: index) -> (tensor<?xi32>, i32) {
// CHECK-NEXT:    %s, %ys = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.muli %x, %x : i32
// CHECK-NEXT:    soac.yield %y, %y : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %e = soac.index %ys[%i] : tensor<?xi32> -> i32
// CHECK-NEXT:    func.return %s, %e : tensor<?xi32>, i32
// CHECK-NEXT:    }
func.func @mapout_indexed(%n: index, %xs: tensor<?xi32>, %z: i32, %i: index) -> (tensor<?xi32>, i32) {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %s = soac.scan %n (%ys : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  %e = soac.index %ys[%i] : tensor<?xi32> -> i32
  func.return %s, %e : tensor<?xi32>, i32
}

// The producer's result is read before the consumer: the consumer moves up to the producer instead.
// CHECK-LABEL: func.func @mapout_hoist(%n: index, %xs: tensor<?xi32>, %i: index) -> (tensor<?xi32>, i32) {
// CHECK-NEXT:    %ys, %zs = soac.map %n (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.muli %x, %x : i32
// CHECK-NEXT:    %w = arith.addi %y, %y : i32
// CHECK-NEXT:    soac.yield %y, %w : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %e = soac.index %ys[%i] : tensor<?xi32> -> i32
// CHECK-NEXT:    func.return %zs, %e : tensor<?xi32>, i32
// CHECK-NEXT:    }
func.func @mapout_hoist(%n: index, %xs: tensor<?xi32>, %i: index) -> (tensor<?xi32>, i32) {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %e = soac.index %ys[%i] : tensor<?xi32> -> i32
  %zs = soac.map %n (%ys : tensor<?xi32>) -> tensor<?xi32> lambda(%y: i32) {
    %w = arith.addi %y, %y : i32
    soac.yield %w : i32
  }
  func.return %zs, %e : tensor<?xi32>, i32
}

// Two consumers of one producer (several consumers on one control path): the producer is fused
// into one, its result is a map-out for the other, which then fuses too; nothing is computed twice.
// CHECK-LABEL: func.func @two_consumers(%n: index, %xs: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
// CHECK-NEXT:    %z, %y = soac.map %n (%xs : tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) lambda(%a: f64) {
// CHECK-NEXT:    %b = arith.mulf %a, %a : f64
// CHECK-NEXT:    %b_1 = arith.subf %b, %b : f64
// CHECK-NEXT:    %b_2 = arith.addf %b, %b : f64
// CHECK-NEXT:    soac.yield %b_1, %b_2 : f64, f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y, %z : tensor<?xf64>, tensor<?xf64>
// CHECK-NEXT:    }
func.func @two_consumers(%n: index, %xs: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %x = soac.map %n (%xs : tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64) {
    %b = arith.mulf %a, %a : f64
    soac.yield %b : f64
  }
  %y = soac.map %n (%x : tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64) {
    %b = arith.addf %a, %a : f64
    soac.yield %b : f64
  }
  %z = soac.map %n (%x : tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64) {
    %b = arith.subf %a, %a : f64
    soac.yield %b : f64
  }
  func.return %y, %z : tensor<?xf64>, tensor<?xf64>
}

// A redomap's map-out feeds another reduce: both reductions share one redomap (tupled operator).
// CHECK-LABEL: func.func @redomap_mapout_reduce(%n: index, %xs: tensor<?xi32>, %z: i32, %one: i32) -> (i32, i32) {
// CHECK-NEXT:    %s, %p = soac.redomap %n (%xs : tensor<?xi32>) neutral(%z, %one : i32, i32) -> (i32, i32) combine(%a: i32, %a_1: i32, %b: i32, %b_1: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    %c_1 = arith.muli %a_1, %b_1 : i32
// CHECK-NEXT:    soac.yield %c, %c_1 : i32, i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.muli %x, %x : i32
// CHECK-NEXT:    soac.yield %x, %y : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %p : i32, i32
// CHECK-NEXT:    }
func.func @redomap_mapout_reduce(%n: index, %xs: tensor<?xi32>, %z: i32, %one: i32) -> (i32, i32) {
  %s, %m = soac.redomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (i32, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %x, %y : i32, i32
  }
  %p = soac.reduce %n (%m : tensor<?xi32>) neutral(%one : i32) -> i32 combine(%a: i32, %b: i32) {
    %c = arith.muli %a, %b : i32
    soac.yield %c : i32
  }
  func.return %s, %p : i32, i32
}

// A scanomap's map-out feeds a map: the map becomes more map-outs of the scanomap.
// CHECK-LABEL: func.func @scanomap_mapout_map(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %s, %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.muli %x, %x : i32
// CHECK-NEXT:    %b_1 = arith.addi %y, %y : i32
// CHECK-NEXT:    soac.yield %x, %b_1 : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %r : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @scanomap_mapout_map(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, tensor<?xi32>) {
  %s, %m = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %x, %y : i32, i32
  }
  %r = soac.map %n (%m : tensor<?xi32>) -> tensor<?xi32> lambda(%a: i32) {
    %b = arith.addi %a, %a : i32
    soac.yield %b : i32
  }
  func.return %s, %r : tensor<?xi32>, tensor<?xi32>
}

// Multiple outputs consumed by several consumers in different orders.
// CHECK-LABEL: func.func @multi_outputs(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
// CHECK-NEXT:    %a, %c = soac.map %n (%xs, %ys : tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) lambda(%x: f32, %y: f32) {
// CHECK-NEXT:    %s = arith.addf %x, %y : f32
// CHECK-NEXT:    %d = arith.subf %x, %y : f32
// CHECK-NEXT:    %m = arith.mulf %d, %s : f32
// CHECK-NEXT:    %t = arith.addf %m, %d : f32
// CHECK-NEXT:    soac.yield %s, %t : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c, %a : tensor<?xf32>, tensor<?xf32>
// CHECK-NEXT:    }
func.func @multi_outputs(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %a, %b = soac.map %n (%xs, %ys : tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) lambda(%x: f32, %y: f32) {
    %s = arith.addf %x, %y : f32
    %d = arith.subf %x, %y : f32
    soac.yield %s, %d : f32, f32
  }
  %c = soac.map %n (%b, %a, %b : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%p: f32, %q: f32, %r: f32) {
    %m = arith.mulf %p, %q : f32
    %t = arith.addf %m, %r : f32
    soac.yield %t : f32
  }
  func.return %c, %a : tensor<?xf32>, tensor<?xf32>
}

// An in-place update of the producer's input between producer and consumer does not stop fusion
// when the consumer can move up to the producer, before the update.
// CHECK-LABEL: func.func @update_between_hoist(%n: index, %xs: tensor<?xi32>, %i: index, %v: i32) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %zs = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.addi %x, %x : i32
// CHECK-NEXT:    %z = arith.muli %y, %y : i32
// CHECK-NEXT:    soac.yield %z : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %xs2 = soac.update %xs[%i] = %v : tensor<?xi32>, i32
// CHECK-NEXT:    func.return %xs2, %zs : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @update_between_hoist(%n: index, %xs: tensor<?xi32>, %i: index, %v: i32) -> (tensor<?xi32>, tensor<?xi32>) {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %x : i32
    soac.yield %y : i32
  }
  %xs2 = soac.update %xs[%i] = %v : tensor<?xi32>, i32
  %zs = soac.map %n (%ys : tensor<?xi32>) -> tensor<?xi32> lambda(%y: i32) {
    %z = arith.muli %y, %y : i32
    soac.yield %z : i32
  }
  func.return %xs2, %zs : tensor<?xi32>, tensor<?xi32>
}
