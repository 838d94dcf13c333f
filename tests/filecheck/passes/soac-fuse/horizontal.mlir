// RUN: soac-opt %s -p soac-fuse | filecheck %s
// RUN: soac-opt %s -p 'soac-fuse{horizontal=false}' | filecheck %s --check-prefix=NOHORIZ

// Horizontal fusion (F2, thesis §6.4): same width, a shared input, no dependency.

// NOHORIZ-LABEL: func.func @map_map
// NOHORIZ-COUNT-2: soac.map
// CHECK-LABEL: func.func @map_map(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
// CHECK-NEXT:    %a, %b = soac.map %n (%xs, %ys : tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) lambda(%x: f32, %y: f32) {
// CHECK-NEXT:    %r = arith.mulf %x, %x : f32
// CHECK-NEXT:    %r_1 = arith.addf %x, %y : f32
// CHECK-NEXT:    soac.yield %r, %r_1 : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %a, %b : tensor<?xf32>, tensor<?xf32>
// CHECK-NEXT:    }
func.func @map_map(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %a = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %r = arith.mulf %x, %x : f32
    soac.yield %r : f32
  }
  %b = soac.map %n (%ys, %xs : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32, %x: f32) {
    %r = arith.addf %x, %y : f32
    soac.yield %r : f32
  }
  func.return %a, %b : tensor<?xf32>, tensor<?xf32>
}

// map+redomap.
// CHECK-LABEL: func.func @map_redomap(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32) {
// CHECK-NEXT:    %s, %a = soac.redomap commutative %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (i32, tensor<?xi32>) combine(%p: i32, %q: i32) {
// CHECK-NEXT:    %c = arith.addi %p, %q : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %r = arith.muli %x, %x : i32
// CHECK-NEXT:    %r_1 = arith.addi %x, %x : i32
// CHECK-NEXT:    soac.yield %r_1, %r : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %a, %s : tensor<?xi32>, i32
// CHECK-NEXT:    }
func.func @map_redomap(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32) {
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %r = arith.muli %x, %x : i32
    soac.yield %r : i32
  }
  %s = soac.redomap commutative %n (%xs : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%p: i32, %q: i32) {
    %c = arith.addi %p, %q : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %r = arith.addi %x, %x : i32
    soac.yield %r : i32
  }
  func.return %a, %s : tensor<?xi32>, i32
}

// redomap+redomap (and reduce+reduce): one redomap with a tupled operator; commutative only if both are.
// CHECK-LABEL: func.func @reduce_reduce(%n: index, %xs: tensor<?xi32>, %z: i32, %one: i32) -> (i32, i32) {
// CHECK-NEXT:    %s, %t = soac.redomap %n (%xs : tensor<?xi32>) neutral(%z, %one : i32, i32) -> (i32, i32) combine(%p: i32, %p_1: i32, %q: i32, %q_1: i32) {
// CHECK-NEXT:    %c = arith.addi %p, %q : i32
// CHECK-NEXT:    %c_1 = arith.muli %p_1, %q_1 : i32
// CHECK-NEXT:    soac.yield %c, %c_1 : i32, i32
// CHECK-NEXT:    } lambda(%0: i32) {
// CHECK-NEXT:    soac.yield %0, %0 : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %t : i32, i32
// CHECK-NEXT:    }
func.func @reduce_reduce(%n: index, %xs: tensor<?xi32>, %z: i32, %one: i32) -> (i32, i32) {
  %s = soac.reduce commutative %n (%xs : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%p: i32, %q: i32) {
    %c = arith.addi %p, %q : i32
    soac.yield %c : i32
  }
  %t = soac.reduce %n (%xs : tensor<?xi32>) neutral(%one : i32) -> i32 combine(%p: i32, %q: i32) {
    %c = arith.muli %p, %q : i32
    soac.yield %c : i32
  }
  func.return %s, %t : i32, i32
}

// scanomap+scanomap, both with map-outs and one with a post lambda.
// CHECK-LABEL: func.func @scanomap_scanomap(%n: index, %xs: tensor<?xi32>, %z: i32, %one: i32) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %s, %t, %m, %k = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z, %one : i32, i32) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) combine(%p: i32, %p_1: i32, %q: i32, %q_1: i32) {
// CHECK-NEXT:    %c = arith.addi %p, %q : i32
// CHECK-NEXT:    %c_1 = arith.muli %p_1, %q_1 : i32
// CHECK-NEXT:    soac.yield %c, %c_1 : i32, i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %r = arith.muli %x, %x : i32
// CHECK-NEXT:    %r_1 = arith.addi %x, %x : i32
// CHECK-NEXT:    soac.yield %r, %r_1, %x, %r_1 : i32, i32, i32, i32
// CHECK-NEXT:    } post(%0: i32, %u: i32, %x_1: i32) {
// CHECK-NEXT:    %v = arith.subi %u, %x_1 : i32
// CHECK-NEXT:    soac.yield %0, %v : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %m, %t, %k : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @scanomap_scanomap(%n: index, %xs: tensor<?xi32>, %z: i32, %one: i32) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %s, %m = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%p: i32, %q: i32) {
    %c = arith.addi %p, %q : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %r = arith.muli %x, %x : i32
    soac.yield %r, %x : i32, i32
  }
  %t, %k = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%one : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%p: i32, %q: i32) {
    %c = arith.muli %p, %q : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %r = arith.addi %x, %x : i32
    soac.yield %r, %r : i32, i32
  } post(%u: i32, %x: i32) {
    %v = arith.subi %u, %x : i32
    soac.yield %v : i32
  }
  func.return %s, %m, %t, %k : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}

// scatter+scatter into different destinations with the same indices.
// CHECK-LABEL: func.func @scatter_scatter(%n: index, %is: tensor<?xindex>, %vs: tensor<?xi32>, %ws: tensor<?xi32>, %d1: tensor<?xi32>, %d2: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %r1, %r2 = soac.scatter %n (%is, %vs, %ws : tensor<?xindex>, tensor<?xi32>, tensor<?xi32>) into(%d1, %d2 : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%i: index, %v: i32, %w: i32) {
// CHECK-NEXT:    soac.yield %i, %i, %v, %w : index, index, i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r1, %r2 : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @scatter_scatter(%n: index, %is: tensor<?xindex>, %vs: tensor<?xi32>, %ws: tensor<?xi32>, %d1: tensor<?xi32>, %d2: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %r1 = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xi32>) into(%d1 : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %v: i32) {
    soac.yield %i, %v : index, i32
  }
  %r2 = soac.scatter %n (%is, %ws : tensor<?xindex>, tensor<?xi32>) into(%d2 : tensor<?xi32>) -> tensor<?xi32> lambda(%i: index, %w: i32) {
    soac.yield %i, %w : index, i32
  }
  func.return %r1, %r2 : tensor<?xi32>, tensor<?xi32>
}

// No shared input: no horizontal fusion (FU-29).
// CHECK-LABEL: func.func @no_shared_input(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:    %r = arith.muli %x, %x : i32
// CHECK-NEXT:    soac.yield %r : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %b = soac.map %n (%ys : tensor<?xi32>) -> tensor<?xi32> lambda(%x_1: i32) {
// CHECK-NEXT:    %r_1 = arith.addi %x_1, %x_1 : i32
// CHECK-NEXT:    soac.yield %r_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %a, %b : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @no_shared_input(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %r = arith.muli %x, %x : i32
    soac.yield %r : i32
  }
  %b = soac.map %n (%ys : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %r = arith.addi %x, %x : i32
    soac.yield %r : i32
  }
  func.return %a, %b : tensor<?xi32>, tensor<?xi32>
}

// Different width values: no fusion even with a shared input.
// CHECK-LABEL: func.func @different_width(%n: index, %m: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:    %r = arith.muli %x, %x : i32
// CHECK-NEXT:    soac.yield %r : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %b = soac.map %m (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x_1: i32) {
// CHECK-NEXT:    %r_1 = arith.addi %x_1, %x_1 : i32
// CHECK-NEXT:    soac.yield %r_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %a, %b : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @different_width(%n: index, %m: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %r = arith.muli %x, %x : i32
    soac.yield %r : i32
  }
  %b = soac.map %m (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %r = arith.addi %x, %x : i32
    soac.yield %r : i32
  }
  func.return %a, %b : tensor<?xi32>, tensor<?xi32>
}

// Dependent through another op (an index of the first feeds the second): not horizontal.
// CHECK-LABEL: func.func @dependent(%n: index, %xs: tensor<?xi32>, %i: index) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:    %r = arith.muli %x, %x : i32
// CHECK-NEXT:    soac.yield %r : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %e = soac.index %a[%i] : tensor<?xi32> -> i32
// CHECK-NEXT:    %b = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x_1: i32) {
// CHECK-NEXT:    %r_1 = arith.addi %x_1, %e : i32
// CHECK-NEXT:    soac.yield %r_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %a, %b : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @dependent(%n: index, %xs: tensor<?xi32>, %i: index) -> (tensor<?xi32>, tensor<?xi32>) {
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %r = arith.muli %x, %x : i32
    soac.yield %r : i32
  }
  %e = soac.index %a[%i] : tensor<?xi32> -> i32
  %b = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %r = arith.addi %x, %e : i32
    soac.yield %r : i32
  }
  func.return %a, %b : tensor<?xi32>, tensor<?xi32>
}

// scan+reduce over one array (FU-23): one scanomap with a reduction part, Futhark's Screma with a
// scan and a reduction. The reduction is not commutative (the reduce was not).
// NOHORIZ-LABEL: func.func @scan_reduce
// NOHORIZ: soac.scan %n
// NOHORIZ: soac.reduce %n
// CHECK-LABEL: func.func @scan_reduce(%n: index, %xs: tensor<?xi32>, %z: i32, %one: i32) -> (tensor<?xi32>, i32) {
// CHECK-NEXT:    %s, %t = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) reduce(%one : i32) -> (tensor<?xi32>, i32) combine(%p: i32, %q: i32) {
// CHECK-NEXT:    %c = arith.addi %p, %q : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } reduce_combine(%p_1: i32, %q_1: i32) {
// CHECK-NEXT:    %c_1 = arith.muli %p_1, %q_1 : i32
// CHECK-NEXT:    soac.yield %c_1 : i32
// CHECK-NEXT:    } lambda(%0: i32) {
// CHECK-NEXT:    soac.yield %0, %0 : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %t : tensor<?xi32>, i32
// CHECK-NEXT:    }
func.func @scan_reduce(%n: index, %xs: tensor<?xi32>, %z: i32, %one: i32) -> (tensor<?xi32>, i32) {
  %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
    %c = arith.addi %p, %q : i32
    soac.yield %c : i32
  }
  %t = soac.reduce %n (%xs : tensor<?xi32>) neutral(%one : i32) -> i32 combine(%p: i32, %q: i32) {
    %c = arith.muli %p, %q : i32
    soac.yield %c : i32
  }
  func.return %s, %t : tensor<?xi32>, i32
}

// scanomap (post lambda, map-out) + redomap (map-out), commutative reduction.
// CHECK-LABEL: func.func @scanomap_redomap(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, tensor<?xi32>, i32, tensor<?xi32>) {
// CHECK-NEXT:    %p, %r, %m, %k = soac.scanomap %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%z : i32) reduce commutative(%z : i32) -> (tensor<?xi32>, i32, tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } reduce_combine(%a_1: i32, %b_1: i32) {
// CHECK-NEXT:      %c_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %c_1 : i32
// CHECK-NEXT:    } lambda(%x: i32, %y: i32) {
// CHECK-NEXT:      %q = arith.muli %x, %x : i32
// CHECK-NEXT:      %e = arith.addi %x, %y : i32
// CHECK-NEXT:      soac.yield %x, %e, %q, %y : i32, i32, i32, i32
// CHECK-NEXT:    } post(%s: i32, %x_1: i32, %y_1: i32) {
// CHECK-NEXT:      %d = arith.subi %s, %x_1 : i32
// CHECK-NEXT:      soac.yield %d : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %p, %m, %r, %k : tensor<?xi32>, tensor<?xi32>, i32, tensor<?xi32>
// CHECK-NEXT:  }
func.func @scanomap_redomap(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, tensor<?xi32>, i32, tensor<?xi32>) {
  %p, %m = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %q = arith.muli %x, %x : i32
    soac.yield %x, %q : i32, i32
  } post(%s: i32, %x: i32) {
    %d = arith.subi %s, %x : i32
    soac.yield %d : i32
  }
  %r, %k = soac.redomap commutative %n (%ys, %xs : tensor<?xi32>, tensor<?xi32>) neutral(%z : i32) -> (i32, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %c = arith.maxsi %a, %b : i32
    soac.yield %c : i32
  } lambda(%y: i32, %x: i32) {
    %e = arith.addi %x, %y : i32
    soac.yield %e, %y : i32, i32
  }
  func.return %p, %m, %r, %k : tensor<?xi32>, tensor<?xi32>, i32, tensor<?xi32>
}

// A scanomap with a reduction part takes in another reduce and another scan: the parts are tupled.
// CHECK-LABEL: func.func @scanred_reduce_scan(%n: index, %xs: tensor<?xi32>, %z: i32, %one: i32) -> (tensor<?xi32>, i32, i32, tensor<?xi32>) {
// CHECK-NEXT:    %s, %v, %t, %u = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z, %z : i32, i32) reduce(%z, %one : i32, i32) -> (tensor<?xi32>, tensor<?xi32>, i32, i32) combine(%a: i32, %a_1: i32, %b: i32, %b_1: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      %c_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %c, %c_1 : i32, i32
// CHECK-NEXT:    } reduce_combine(%a_2: i32, %a_3: i32, %b_2: i32, %b_3: i32) {
// CHECK-NEXT:      %c_2 = arith.addi %a_2, %b_2 : i32
// CHECK-NEXT:      %c_3 = arith.muli %a_3, %b_3 : i32
// CHECK-NEXT:      soac.yield %c_2, %c_3 : i32, i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      soac.yield %x, %x, %x, %x : i32, i32, i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %t, %u, %v : tensor<?xi32>, i32, i32, tensor<?xi32>
// CHECK-NEXT:  }
func.func @scanred_reduce_scan(%n: index, %xs: tensor<?xi32>, %z: i32, %one: i32) -> (tensor<?xi32>, i32, i32, tensor<?xi32>) {
  %s, %t = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) reduce commutative(%z : i32) -> (tensor<?xi32>, i32) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } reduce_combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    soac.yield %x, %x : i32, i32
  }
  %u = soac.reduce %n (%xs : tensor<?xi32>) neutral(%one : i32) -> i32 combine(%a: i32, %b: i32) {
    %c = arith.muli %a, %b : i32
    soac.yield %c : i32
  }
  %v = soac.scan %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.maxsi %a, %b : i32
    soac.yield %c : i32
  }
  func.return %s, %t, %u, %v : tensor<?xi32>, i32, i32, tensor<?xi32>
}

// Vertical: a map feeding both a scan and a reduce becomes the lambda of one scanomap with a reduction part.
// CHECK-LABEL: func.func @map_scan_reduce(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32) {
// CHECK-NEXT:    %s, %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) reduce commutative(%z : i32) -> (tensor<?xi32>, i32) combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } reduce_combine(%a_1: i32, %b_1: i32) {
// CHECK-NEXT:      %c_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %c_1 : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %y = arith.muli %x, %x : i32
// CHECK-NEXT:      soac.yield %y, %y : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %r : tensor<?xi32>, i32
// CHECK-NEXT:  }
func.func @map_scan_reduce(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32) {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %s = soac.scan %n (%ys : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  %r = soac.reduce commutative %n (%ys : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a: i32, %b: i32) {
    %c = arith.maxsi %a, %b : i32
    soac.yield %c : i32
  }
  func.return %s, %r : tensor<?xi32>, i32
}

// A scanomap with a reduction part fuses into a map of its scanned array (post lambda); the reduction stays.
// CHECK-LABEL: func.func @scanred_map(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32) {
// CHECK-NEXT:    %m, %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) reduce(%z : i32) -> (tensor<?xi32>, i32) combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } reduce_combine(%a_1: i32, %b_1: i32) {
// CHECK-NEXT:      %c_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %c_1 : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      soac.yield %x, %x : i32, i32
// CHECK-NEXT:    } post(%e: i32, %x_1: i32) {
// CHECK-NEXT:      %f = arith.addi %e, %e : i32
// CHECK-NEXT:      soac.yield %f : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %m, %r : tensor<?xi32>, i32
// CHECK-NEXT:  }
func.func @scanred_map(%n: index, %xs: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32) {
  %s, %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) reduce(%z : i32) -> (tensor<?xi32>, i32) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } reduce_combine(%a: i32, %b: i32) {
    %c = arith.maxsi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    soac.yield %x, %x : i32, i32
  }
  %m = soac.map %n (%s : tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32) {
    %f = arith.addi %e, %e : i32
    soac.yield %f : i32
  }
  func.return %m, %r : tensor<?xi32>, i32
}
