// RUN: soac-opt %s -p soac-fuse | filecheck %s
// RUN: soac-opt %s -p soac-fuse,soac-to-kernel > /dev/null

// Fusion into a scanomap's post lambda of values its pre-lambda computes: the pre-lambda forwards them (its
// last yields; the post lambda's parameters after the input rows) instead of storing them as map-outs.

// map f -> scan -> map2 g (scan result, f's result): one scanomap; the lambda forwards f's value to the post lambda.
// CHECK-LABEL: func.func @map_scan_map2(%n: index, %xs: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
// CHECK-NEXT:    %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %y = arith.muli %x, %x : i32
// CHECK-NEXT:      soac.yield %y, %y : i32, i32
// CHECK-NEXT:    } post(%s: i32, %x_1: i32, %y_1: i32) {
// CHECK-NEXT:      %d = arith.subi %s, %y_1 : i32
// CHECK-NEXT:      soac.yield %d : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi32>
// CHECK-NEXT:  }
func.func @map_scan_map2(%n: index, %xs: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %ss = soac.scan %n (%ys : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  %r = soac.map %n (%ss, %ys : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%s: i32, %y: i32) {
    %d = arith.subi %s, %y : i32
    soac.yield %d : i32
  }
  func.return %r : tensor<?xi32>
}

// A map reading a scanomap's scanned array and its map-out: the map-out is forwarded, and stays a result where
// something else uses it.
// CHECK-LABEL: func.func @scanomap_mapout_to_post(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %r, %m = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %y = arith.muli %x, %x : i32
// CHECK-NEXT:      %w = arith.addi %y, %x : i32
// CHECK-NEXT:      soac.yield %y, %w, %w : i32, i32, i32
// CHECK-NEXT:    } post(%a_1: i32, %x_1: i32, %b_1: i32) {
// CHECK-NEXT:      %c_1 = arith.subi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %c_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r, %m : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:  }
func.func @scanomap_mapout_to_post(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, tensor<?xi32>) {
  %s, %m = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    %w = arith.addi %y, %x : i32
    soac.yield %y, %w : i32, i32
  }
  %r = soac.map %n (%s, %m : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%a: i32, %b: i32) {
    %c = arith.subi %a, %b : i32
    soac.yield %c : i32
  }
  func.return %r, %m : tensor<?xi32>, tensor<?xi32>
}

// A scanomap that already forwards a value, then a map of its post results and map-out: both forwarded.
// CHECK-LABEL: func.func @forwarding_chain(%n: index, %xs: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
// CHECK-NEXT:    %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %y = arith.muli %x, %x : i32
// CHECK-NEXT:      %w = arith.addi %y, %x : i32
// CHECK-NEXT:      soac.yield %y, %y, %w : i32, i32, i32
// CHECK-NEXT:    } post(%t: i32, %x_1: i32, %f: i32, %b_1: i32) {
// CHECK-NEXT:      %u = arith.xori %t, %f : i32
// CHECK-NEXT:      %c_1 = arith.subi %u, %b_1 : i32
// CHECK-NEXT:      soac.yield %c_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi32>
// CHECK-NEXT:  }
func.func @forwarding_chain(%n: index, %xs: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
  %s, %m = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    %w = arith.addi %y, %x : i32
    soac.yield %y, %w, %y : i32, i32, i32
  } post(%t: i32, %x: i32, %f: i32) {
    %u = arith.xori %t, %f : i32
    soac.yield %u : i32
  }
  %r = soac.map %n (%s, %m : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%a: i32, %b: i32) {
    %c = arith.subi %a, %b : i32
    soac.yield %c : i32
  }
  func.return %r : tensor<?xi32>
}

// map -> scanomap whose post lambda reads the row of the map's result: the row is forwarded.
// CHECK-LABEL: func.func @map_into_post_row(%n: index, %xs: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
// CHECK-NEXT:    %s = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %y = arith.muli %x, %x : i32
// CHECK-NEXT:      %two = arith.constant 2 : i32
// CHECK-NEXT:      %v = arith.muli %y, %two : i32
// CHECK-NEXT:      soac.yield %v, %y : i32, i32
// CHECK-NEXT:    } post(%t: i32, %x_1: i32, %y_1: i32) {
// CHECK-NEXT:      %u = arith.subi %t, %y_1 : i32
// CHECK-NEXT:      soac.yield %u : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : tensor<?xi32>
// CHECK-NEXT:  }
func.func @map_into_post_row(%n: index, %xs: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %s = soac.scanomap %n (%ys : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%y: i32) {
    %two = arith.constant 2 : i32
    %v = arith.muli %y, %two : i32
    soac.yield %v : i32
  } post(%t: i32, %y: i32) {
    %u = arith.subi %t, %y : i32
    soac.yield %u : i32
  }
  func.return %s : tensor<?xi32>
}

// Horizontal fusion of two scanomaps over one input that forward values: the post lambdas side by side, the
// forwarded values of the first, then of the second.
// CHECK-LABEL: func.func @horizontal_forwarding(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %s, %q = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z, %z : i32, i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %a_1: i32, %b: i32, %b_1: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      %c_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %c, %c_1 : i32, i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %y = arith.muli %x, %x : i32
// CHECK-NEXT:      %three = arith.constant 3 : i32
// CHECK-NEXT:      %y_1 = arith.muli %x, %three : i32
// CHECK-NEXT:      %w = arith.addi %y_1, %x : i32
// CHECK-NEXT:      soac.yield %y, %y_1, %y, %w : i32, i32, i32, i32
// CHECK-NEXT:    } post(%t: i32, %t_1: i32, %x_1: i32, %f: i32, %g: i32) {
// CHECK-NEXT:      %u = arith.subi %t, %f : i32
// CHECK-NEXT:      %u_1 = arith.xori %t_1, %g : i32
// CHECK-NEXT:      soac.yield %u, %u_1 : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %q : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:  }
func.func @horizontal_forwarding(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, tensor<?xi32>) {
  %s = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y, %y : i32, i32
  } post(%t: i32, %x: i32, %f: i32) {
    %u = arith.subi %t, %f : i32
    soac.yield %u : i32
  }
  %q = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.maxsi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %three = arith.constant 3 : i32
    %y = arith.muli %x, %three : i32
    %w = arith.addi %y, %x : i32
    soac.yield %y, %w : i32, i32
  } post(%t: i32, %x: i32, %g: i32) {
    %u = arith.xori %t, %g : i32
    soac.yield %u : i32
  }
  func.return %s, %q : tensor<?xi32>, tensor<?xi32>
}

