// RUN: soac-opt %s -p soac-fuse | filecheck %s

// Fusion hindrances (thesis Figure 3 and Futhark, futhark-notes §1.5): every program here is left as it was.

// Case 1: an in-place update between producer and consumer consumes the producer's input, and the
// consumer reads the updated array, so neither op can move to the other (FU-27). (Without that read,
// the consumer would move up to the producer, before the update, and fuse: see mapout.mlir.)
// CHECK-LABEL: func.func @update_between(%n: index, %xs: tensor<?xi32>, %i: index, %v: i32) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.addi %x, %x : i32
// CHECK-NEXT:    soac.yield %y : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %xs2 = soac.update %xs[%i] = %v : tensor<?xi32>, i32
// CHECK-NEXT:    %e = soac.index %xs2[%i] : tensor<?xi32> -> i32
// CHECK-NEXT:    %zs = soac.map %n (%ys : tensor<?xi32>) -> tensor<?xi32> lambda(%y_1: i32) {
// CHECK-NEXT:    %z = arith.muli %y_1, %e : i32
// CHECK-NEXT:    soac.yield %z : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %xs2, %zs : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @update_between(%n: index, %xs: tensor<?xi32>, %i: index, %v: i32) -> (tensor<?xi32>, tensor<?xi32>) {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %x : i32
    soac.yield %y : i32
  }
  %xs2 = soac.update %xs[%i] = %v : tensor<?xi32>, i32
  %e = soac.index %xs2[%i] : tensor<?xi32> -> i32
  %zs = soac.map %n (%ys : tensor<?xi32>) -> tensor<?xi32> lambda(%y: i32) {
    %z = arith.muli %y, %e : i32
    soac.yield %z : i32
  }
  func.return %xs2, %zs : tensor<?xi32>, tensor<?xi32>
}

// Case 1 with a scatter consuming the producer's input in between.
// CHECK-LABEL: func.func @scatter_between(%n: index, %xs: tensor<?xi32>, %is: tensor<?xindex>) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.addi %x, %x : i32
// CHECK-NEXT:    soac.yield %y : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %xs2 = soac.scatter %n (%is, %is : tensor<?xindex>, tensor<?xindex>) into(%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %j: index) {
// CHECK-NEXT:    %v = arith.index_cast %j : index to i32
// CHECK-NEXT:    soac.yield %i, %v : index, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %zs = soac.map %n (%ys : tensor<?xi32>) -> tensor<?xi32> lambda(%y_1: i32) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %e = soac.index %xs2[%c0] : tensor<?xi32> -> i32
// CHECK-NEXT:    %z = arith.muli %y_1, %e : i32
// CHECK-NEXT:    soac.yield %z : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %xs2, %zs : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @scatter_between(%n: index, %xs: tensor<?xi32>, %is: tensor<?xindex>) -> (tensor<?xi32>, tensor<?xi32>) {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %x : i32
    soac.yield %y : i32
  }
  %xs2 = soac.scatter %n (%is, %is : tensor<?xindex>, tensor<?xindex>) into(%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %j: index) {
    %v = arith.index_cast %j : index to i32
    soac.yield %i, %v : index, i32
  }
  %zs = soac.map %n (%ys : tensor<?xi32>) -> tensor<?xi32> lambda(%y: i32) {
    %c0 = arith.constant 0 : index
    %e = soac.index %xs2[%c0] : tensor<?xi32> -> i32
    %z = arith.muli %y, %e : i32
    soac.yield %z : i32
  }
  func.return %xs2, %zs : tensor<?xi32>, tensor<?xi32>
}

// A map reading the destination of the scatter it feeds (Futhark refuses this too).
// CHECK-LABEL: func.func @map_reads_scatter_dest(%n: index, %is: tensor<?xindex>, %dest: tensor<?xi32>) -> tensor<?xi32> {
// CHECK-NEXT:    %vs = soac.map %n (%dest : tensor<?xi32>) -> tensor<?xi32> lambda(%d: i32) {
// CHECK-NEXT:    %v = arith.addi %d, %d : i32
// CHECK-NEXT:    soac.yield %v : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xi32>) into(%dest : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %v_1: i32) {
// CHECK-NEXT:    soac.yield %i, %v_1 : index, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi32>
// CHECK-NEXT:    }
func.func @map_reads_scatter_dest(%n: index, %is: tensor<?xindex>, %dest: tensor<?xi32>) -> tensor<?xi32> {
  %vs = soac.map %n (%dest : tensor<?xi32>) -> tensor<?xi32> lambda(%d: i32) {
    %v = arith.addi %d, %d : i32
    soac.yield %v : i32
  }
  %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xi32>) into(%dest : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %v: i32) {
    soac.yield %i, %v : index, i32
  }
  func.return %r : tensor<?xi32>
}

// A map whose result also has another use cannot fuse into a scatter (a scatter has no map-outs).
// CHECK-LABEL: func.func @scatter_no_mapout(%n: index, %is: tensor<?xindex>, %vs: tensor<?xi32>, %dest: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %ws = soac.map %n (%vs : tensor<?xi32>) -> tensor<?xi32> lambda(%v: i32) {
// CHECK-NEXT:    %w = arith.addi %v, %v : i32
// CHECK-NEXT:    soac.yield %w : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = soac.scatter %n (%is, %ws : tensor<?xindex>, tensor<?xi32>) into(%dest : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %w_1: i32) {
// CHECK-NEXT:    soac.yield %i, %w_1 : index, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r, %ws : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @scatter_no_mapout(%n: index, %is: tensor<?xindex>, %vs: tensor<?xi32>, %dest: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %ws = soac.map %n (%vs : tensor<?xi32>) -> tensor<?xi32> lambda(%v: i32) {
    %w = arith.addi %v, %v : i32
    soac.yield %w : i32
  }
  %r = soac.scatter %n (%is, %ws : tensor<?xindex>, tensor<?xi32>) into(%dest : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %w: i32) {
    soac.yield %i, %w : index, i32
  }
  func.return %r, %ws : tensor<?xi32>, tensor<?xi32>
}

// Case 3: a producer outside a loop is not moved into the loop body (it would run every iteration).
// CHECK-LABEL: func.func @no_fusion_into_loop(%n: index, %xs: tensor<?xf32>, %k: index) -> tensor<?xf32> {
// CHECK-NEXT:    %x = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
// CHECK-NEXT:    %b = arith.mulf %a, %a : f32
// CHECK-NEXT:    soac.yield %b : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %xs) -> (tensor<?xf32>) {
// CHECK-NEXT:    %next = soac.map %n (%acc, %x : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%a_1: f32, %b_1: f32) {
// CHECK-NEXT:    %s = arith.addf %a_1, %b_1 : f32
// CHECK-NEXT:    soac.yield %s : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %next : tensor<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xf32>
// CHECK-NEXT:    }
func.func @no_fusion_into_loop(%n: index, %xs: tensor<?xf32>, %k: index) -> tensor<?xf32> {
  %x = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    %b = arith.mulf %a, %a : f32
    soac.yield %b : f32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %xs) -> (tensor<?xf32>) {
    %next = soac.map %n (%acc, %x : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      soac.yield %s : f32
    }
    scf.yield %next : tensor<?xf32>
  }
  func.return %r : tensor<?xf32>
}

// Case 3: nor into a lambda: the inner map reads the outer map's whole result.
// CHECK-LABEL: func.func @no_fusion_into_lambda(%n: index, %m: index, %xs: tensor<?xf32>, %yss: tensor<?x?xf32>) -> tensor<?x?xf32> {
// CHECK-NEXT:    %x = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
// CHECK-NEXT:    %b = arith.mulf %a, %a : f32
// CHECK-NEXT:    soac.yield %b : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = soac.map %n (%yss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%ys: tensor<?xf32>) {
// CHECK-NEXT:    %zs = soac.map %m (%ys, %x : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%a_1: f32, %b_1: f32) {
// CHECK-NEXT:    %s = arith.addf %a_1, %b_1 : f32
// CHECK-NEXT:    soac.yield %s : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    soac.yield %zs : tensor<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?x?xf32>
// CHECK-NEXT:    }
func.func @no_fusion_into_lambda(%n: index, %m: index, %xs: tensor<?xf32>, %yss: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %x = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    %b = arith.mulf %a, %a : f32
    soac.yield %b : f32
  }
  %r = soac.map %n (%yss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%ys: tensor<?xf32>) {
    %zs = soac.map %m (%ys, %x : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      soac.yield %s : f32
    }
    soac.yield %zs : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// Case 5: the consumer uses the producer's result as a free variable of its lambda (indexing).
// CHECK-LABEL: func.func @free_variable_use(%n: index, %xs: tensor<?xi32>, %is: tensor<?xindex>) -> tensor<?xi32> {
// CHECK-NEXT:    %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.addi %x, %x : i32
// CHECK-NEXT:    soac.yield %y : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %zs = soac.map %n (%is : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
// CHECK-NEXT:    %z = soac.index %ys[%i] : tensor<?xi32> -> i32
// CHECK-NEXT:    soac.yield %z : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %zs : tensor<?xi32>
// CHECK-NEXT:    }
func.func @free_variable_use(%n: index, %xs: tensor<?xi32>, %is: tensor<?xindex>) -> tensor<?xi32> {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %x : i32
    soac.yield %y : i32
  }
  %zs = soac.map %n (%is : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
    %z = soac.index %ys[%i] : tensor<?xi32> -> i32
    soac.yield %z : i32
  }
  func.return %zs : tensor<?xi32>
}

// A consumer that needs a whole scan result: scan of a scan, reduce of a scan. Neither fuses into
// the scan of %xs; the two consumers of %s fuse horizontally (a scanomap with a reduction part).
// CHECK-LABEL: func.func @scan_scan(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32) {
// CHECK-NEXT:    %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %t, %r = soac.scanomap %n (%s : tensor<?xi32>) neutral(%z : i32) reduce(%z : i32) -> (tensor<?xi32>, i32) combine(%a_1: i32, %b_1: i32) {
// CHECK-NEXT:    %c_1 = arith.addi %a_1, %b_1 : i32
// CHECK-NEXT:    soac.yield %c_1 : i32
// CHECK-NEXT:    } reduce_combine(%a_2: i32, %b_2: i32) {
// CHECK-NEXT:    %c_2 = arith.muli %a_2, %b_2 : i32
// CHECK-NEXT:    soac.yield %c_2 : i32
// CHECK-NEXT:    } lambda(%0: i32) {
// CHECK-NEXT:    soac.yield %0, %0 : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %t, %r : tensor<?xi32>, i32
// CHECK-NEXT:    }
func.func @scan_scan(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32) {
  %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  %t = soac.scan %n (%s : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  %r = soac.reduce %n (%s : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
    %c = arith.muli %a, %b : i32
    soac.yield %c : i32
  }
  func.return %t, %r : tensor<?xi32>, i32
}

// A reduce result used as a scalar by a later map is not an array input: nothing to fuse.
// CHECK-LABEL: func.func @reduce_scalar(%n: index, %xs: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
// CHECK-NEXT:    %s = soac.reduce %n (%xs : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.subi %x, %s : i32
// CHECK-NEXT:    soac.yield %y : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %ys : tensor<?xi32>
// CHECK-NEXT:    }
func.func @reduce_scalar(%n: index, %xs: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
  %s = soac.reduce %n (%xs : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.subi %x, %s : i32
    soac.yield %y : i32
  }
  func.return %ys : tensor<?xi32>
}

// A producer used in a branch and by a consumer on the same path (Figure 3, case 4) is not
// duplicated: the consumer absorbs it and hands the array to the branch as a map-out.
// CHECK-LABEL: func.func @branch_and_consumer(%n: index, %xs: tensor<?xf32>, %c: i1) -> (tensor<?xf32>, tensor<?xf32>) {
// CHECK-NEXT:    %x, %z = soac.map %n (%xs : tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) lambda(%a: f32) {
// CHECK-NEXT:    %b = arith.mulf %a, %a : f32
// CHECK-NEXT:    %b_1 = arith.divf %b, %b : f32
// CHECK-NEXT:    soac.yield %b, %b_1 : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %y = scf.if %c -> (tensor<?xf32>) {
// CHECK-NEXT:    %y1 = soac.map %n (%x : tensor<?xf32>) -> tensor<?xf32> lambda(%a_1: f32) {
// CHECK-NEXT:    %b_2 = arith.addf %a_1, %a_1 : f32
// CHECK-NEXT:    soac.yield %b_2 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %y1 : tensor<?xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:    %y2 = soac.map %n (%x : tensor<?xf32>) -> tensor<?xf32> lambda(%a_2: f32) {
// CHECK-NEXT:    %b_3 = arith.subf %a_2, %a_2 : f32
// CHECK-NEXT:    soac.yield %b_3 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %y2 : tensor<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y, %z : tensor<?xf32>, tensor<?xf32>
// CHECK-NEXT:    }
func.func @branch_and_consumer(%n: index, %xs: tensor<?xf32>, %c: i1) -> (tensor<?xf32>, tensor<?xf32>) {
  %x = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    %b = arith.mulf %a, %a : f32
    soac.yield %b : f32
  }
  %y = scf.if %c -> (tensor<?xf32>) {
    %y1 = soac.map %n (%x : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
      %b = arith.addf %a, %a : f32
      soac.yield %b : f32
    }
    scf.yield %y1 : tensor<?xf32>
  } else {
    %y2 = soac.map %n (%x : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
      %b = arith.subf %a, %a : f32
      soac.yield %b : f32
    }
    scf.yield %y2 : tensor<?xf32>
  }
  %z = soac.map %n (%x : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    %b = arith.divf %a, %a : f32
    soac.yield %b : f32
  }
  func.return %y, %z : tensor<?xf32>, tensor<?xf32>
}
