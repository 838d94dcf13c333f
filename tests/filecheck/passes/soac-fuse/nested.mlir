// RUN: soac-opt %s -p soac-fuse | filecheck %s

// Fusion inside lambdas, loop bodies and branches, bottom-up: ops fuse with ops of their own block.

// Inside a map lambda: the inner map->reduce becomes a redomap; the outer maps fuse too.
// CHECK-LABEL: func.func @inside_lambda(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?xf32> {
// CHECK-NEXT:    %r = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%xs: tensor<?xf32>) {
// CHECK-NEXT:    %s = soac.redomap %m (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
// CHECK-NEXT:    %c = arith.addf %a, %b : f32
// CHECK-NEXT:    soac.yield %c : f32
// CHECK-NEXT:    } lambda(%x: f32) {
// CHECK-NEXT:    %y = arith.mulf %x, %x : f32
// CHECK-NEXT:    %w = arith.addf %y, %y : f32
// CHECK-NEXT:    soac.yield %w : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    soac.yield %s : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xf32>
// CHECK-NEXT:    }
func.func @inside_lambda(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> tensor<?xf32> {
  %yss = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%xs: tensor<?xf32>) {
    %ys = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.mulf %x, %x : f32
      soac.yield %y : f32
    }
    soac.yield %ys : tensor<?xf32>
  }
  %r = soac.map %n (%yss : tensor<?x?xf32>) -> tensor<?xf32> lambda(%ys: tensor<?xf32>) {
    %ws = soac.map %m (%ys : tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32) {
      %w = arith.addf %y, %y : f32
      soac.yield %w : f32
    }
    %s = soac.reduce %m (%ws : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      soac.yield %c : f32
    }
    soac.yield %s : f32
  }
  func.return %r : tensor<?xf32>
}

// Inside a reduce operator (FU-13): the map2 + reduce of the operator fuse into a redomap.
// CHECK-LABEL: func.func @inside_operator(%n: index, %m: index, %xss: tensor<?x?xi32>, %zs: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
// CHECK-NEXT:    %r = soac.reduce %n (%xss : tensor<?x?xi32>) neutral(%zs : tensor<?xi32>) -> tensor<?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
// CHECK-NEXT:    %s = soac.redomap %m (%a, %b : tensor<?xi32>, tensor<?xi32>) neutral(%z : i32) -> i32 combine(%p: i32, %q: i32) {
// CHECK-NEXT:    %c = arith.addi %p, %q : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32, %y: i32) {
// CHECK-NEXT:    %e = arith.subi %x, %y : i32
// CHECK-NEXT:    soac.yield %e : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    %le = arith.cmpi sle, %s, %zero : i32
// CHECK-NEXT:    %pick = arith.select %le, %a, %b : tensor<?xi32>
// CHECK-NEXT:    soac.yield %pick : tensor<?xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi32>
// CHECK-NEXT:    }
func.func @inside_operator(%n: index, %m: index, %xss: tensor<?x?xi32>, %zs: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
  %r = soac.reduce %n (%xss : tensor<?x?xi32>) neutral(%zs : tensor<?xi32>) -> tensor<?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    %d = soac.map %m (%a, %b : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32, %y: i32) {
      %e = arith.subi %x, %y : i32
      soac.yield %e : i32
    }
    %s = soac.reduce %m (%d : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%p: i32, %q: i32) {
      %c = arith.addi %p, %q : i32
      soac.yield %c : i32
    }
    %zero = arith.constant 0 : i32
    %le = arith.cmpi sle, %s, %zero : i32
    %pick = arith.select %le, %a, %b : tensor<?xi32>
    soac.yield %pick : tensor<?xi32>
  }
  func.return %r : tensor<?xi32>
}

// Inside a loop body: the two maps of one iteration fuse; the loop stays.
// CHECK-LABEL: func.func @inside_loop(%n: index, %xs: tensor<?xf32>, %k: index) -> tensor<?xf32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %xs) -> (tensor<?xf32>) {
// CHECK-NEXT:    %b = soac.map %n (%acc : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
// CHECK-NEXT:    %y = arith.mulf %x, %x : f32
// CHECK-NEXT:    %y_1 = arith.subf %y, %x : f32
// CHECK-NEXT:    soac.yield %y_1 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %b : tensor<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xf32>
// CHECK-NEXT:    }
func.func @inside_loop(%n: index, %xs: tensor<?xf32>, %k: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %xs) -> (tensor<?xf32>) {
    %a = soac.map %n (%acc : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.mulf %x, %x : f32
      soac.yield %y : f32
    }
    %b = soac.map %n (%a, %acc : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %w: f32) {
      %y = arith.subf %x, %w : f32
      soac.yield %y : f32
    }
    scf.yield %b : tensor<?xf32>
  }
  func.return %r : tensor<?xf32>
}

// Inside both branches of an scf.if.
// CHECK-LABEL: func.func @inside_branch(%n: index, %xs: tensor<?xi32>, %c: i1, %z: i32) -> i32 {
// CHECK-NEXT:    %r = scf.if %c -> (i32) {
// CHECK-NEXT:    %s = soac.redomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%p: i32, %q: i32) {
// CHECK-NEXT:    %t = arith.addi %p, %q : i32
// CHECK-NEXT:    soac.yield %t : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.muli %x, %x : i32
// CHECK-NEXT:    soac.yield %y : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %s : i32
// CHECK-NEXT:    } else {
// CHECK-NEXT:    %s_1 = soac.redomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%p_1: i32, %q_1: i32) {
// CHECK-NEXT:    %t_1 = arith.maxsi %p_1, %q_1 : i32
// CHECK-NEXT:    soac.yield %t_1 : i32
// CHECK-NEXT:    } lambda(%x_1: i32) {
// CHECK-NEXT:    %y_1 = arith.addi %x_1, %x_1 : i32
// CHECK-NEXT:    soac.yield %y_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %s_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : i32
// CHECK-NEXT:    }
func.func @inside_branch(%n: index, %xs: tensor<?xi32>, %c: i1, %z: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.muli %x, %x : i32
      soac.yield %y : i32
    }
    %s = soac.reduce %n (%a : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%p: i32, %q: i32) {
      %t = arith.addi %p, %q : i32
      soac.yield %t : i32
    }
    scf.yield %s : i32
  } else {
    %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.addi %x, %x : i32
      soac.yield %y : i32
    }
    %s = soac.reduce %n (%a : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%p: i32, %q: i32) {
      %t = arith.maxsi %p, %q : i32
      soac.yield %t : i32
    }
    scf.yield %s : i32
  }
  func.return %r : i32
}
