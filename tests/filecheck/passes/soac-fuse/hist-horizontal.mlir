// RUN: soac-opt %s -p soac-fuse | filecheck %s
// RUN: soac-opt %s -p 'soac-fuse{horizontal=false}' | filecheck %s --check-prefix=NOHORIZ

// Horizontal hist+hist fusion: two histograms of one width whose lambdas compute the same bin from the same
// arrays, into destinations of one length, become one hist with both destinations and the tupled operator.

// Both take their bins from %is; the counts and the maxima of %ws fuse into one pass over the rows.
// NOHORIZ-LABEL: func.func @same_index_array
// NOHORIZ-COUNT-2: soac.hist
// CHECK-LABEL: func.func @same_index_array
// CHECK:         %c, %mx = soac.hist %n (%is, %ws : tensor<?xindex>, tensor<?xi32>) into(%d1, %d2 : tensor<?xi32>, tensor<?xi32>) neutral(%z, %lo : i32, i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %a_1: i32, %b: i32, %b_1: i32) {
// CHECK-NEXT:      %s = arith.addi %a, %b : i32
// CHECK-NEXT:      %s_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %s, %s_1 : i32, i32
// CHECK-NEXT:    } lambda(%i: index, %w: i32) {
// CHECK-NEXT:      %one = arith.constant 1 : i32
// CHECK-NEXT:      soac.yield %i, %one, %w : index, i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c, %mx
func.func @same_index_array(%is: tensor<?xindex>, %ws: tensor<?xi32>, %m: index) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xindex>
  %z = arith.constant 0 : i32
  %lo = arith.constant -2147483648 : i32
  %d1 = soac.replicate %m, %z : i32 -> tensor<?xi32>
  %d2 = soac.replicate %m, %lo : i32 -> tensor<?xi32>
  %c = soac.hist %n (%is : tensor<?xindex>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    %one = arith.constant 1 : i32
    soac.yield %i, %one : index, i32
  }
  %mx = soac.hist %n (%ws, %is : tensor<?xi32>, tensor<?xindex>) into(%d2 : tensor<?xi32>) neutral(%lo : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.maxsi %a, %b : i32
    soac.yield %s : i32
  } lambda(%w: i32, %i: index) {
    soac.yield %i, %w : index, i32
  }
  func.return %c, %mx : tensor<?xi32>, tensor<?xi32>
}

// The bins come from one map that both use: the hists fuse first (the map's result has two users), then the
// map fuses into the fused hist.
// CHECK-LABEL: func.func @shared_bin_map
// CHECK-NOT:     soac.map
// CHECK:         %c, %t = soac.hist %n (%xs : tensor<?xi32>) into(%d1, %d2 : tensor<?xi32>, tensor<?xi32>) neutral(%z, %z : i32, i32)
// CHECK:         } lambda(%x: i32) {
// CHECK-NEXT:      %seven = arith.constant 7 : i32
// CHECK-NEXT:      %low = arith.andi %x, %seven : i32
// CHECK-NEXT:      %j = arith.index_cast %low : i32 to index
// CHECK-NEXT:      %one = arith.constant 1 : i32
// CHECK-NEXT:      soac.yield %j, %one, %x : index, i32, i32
// CHECK-NOT:     soac.hist
func.func @shared_bin_map(%xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %eight = arith.constant 8 : index
  %d1 = soac.replicate %eight, %z : i32 -> tensor<?xi32>
  %d2 = soac.replicate %eight, %z : i32 -> tensor<?xi32>
  %is = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xindex> lambda(%x: i32) {
    %seven = arith.constant 7 : i32
    %low = arith.andi %x, %seven : i32
    %j = arith.index_cast %low : i32 to index
    soac.yield %j : index
  }
  %c = soac.hist %n (%is : tensor<?xindex>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    %one = arith.constant 1 : i32
    soac.yield %i, %one : index, i32
  }
  %t = soac.hist %n (%is, %xs : tensor<?xindex>, tensor<?xi32>) into(%d2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %x: i32) {
    soac.yield %i, %x : index, i32
  }
  func.return %c, %t : tensor<?xi32>, tensor<?xi32>
}

// Each hist has its own copy of the bin computation (after map->hist fusion, two maps computing `x & 7`): the
// copies are structurally equal, over the same input, so the hists fuse and one copy is dropped.
// CHECK-LABEL: func.func @equal_bin_code
// CHECK:         soac.hist %n (%xs : tensor<?xi32>) into(%d1, %d2 : tensor<?xi32>, tensor<?xi32>)
// CHECK:         } lambda(%x: i32) {
// CHECK-COUNT-1:   arith.andi
// CHECK-NOT:       arith.andi
// CHECK:           soac.yield
// CHECK-NOT:     soac.hist
func.func @equal_bin_code(%xs: tensor<?xi32>, %d1: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %m = tensor.dim %d1, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %d2 = soac.replicate %m, %z : i32 -> tensor<?xi32>
  %is = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xindex> lambda(%x: i32) {
    %seven = arith.constant 7 : i32
    %low = arith.andi %x, %seven : i32
    %j = arith.index_cast %low : i32 to index
    soac.yield %j : index
  }
  %c = soac.hist %n (%is : tensor<?xindex>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    %one = arith.constant 1 : i32
    soac.yield %i, %one : index, i32
  }
  %ks = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xindex> lambda(%y: i32) {
    %seven = arith.constant 7 : i32
    %low = arith.andi %y, %seven : i32
    %j = arith.index_cast %low : i32 to index
    soac.yield %j : index
  }
  %t = soac.hist %n (%ks, %xs : tensor<?xindex>, tensor<?xi32>) into(%d2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.xori %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %x: i32) {
    soac.yield %i, %x : index, i32
  }
  func.return %c, %t : tensor<?xi32>, tensor<?xi32>
}

// Different bins (`x & 7` and `x & 3`): no fusion.
// CHECK-LABEL: func.func @different_bins
// CHECK-COUNT-2: soac.hist
func.func @different_bins(%xs: tensor<?xi32>, %d1: tensor<?xi32>, %d2: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %c = soac.hist %n (%xs : tensor<?xi32>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32) {
    %mask = arith.constant 7 : i32
    %low = arith.andi %x, %mask : i32
    %j = arith.index_cast %low : i32 to index
    soac.yield %j, %x : index, i32
  }
  %t = soac.hist %n (%xs : tensor<?xi32>) into(%d2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32) {
    %mask = arith.constant 3 : i32
    %low = arith.andi %x, %mask : i32
    %j = arith.index_cast %low : i32 to index
    soac.yield %j, %x : index, i32
  }
  func.return %c, %t : tensor<?xi32>, tensor<?xi32>
}

// One bin array, but destinations whose lengths are not known to be equal (two arguments; `replicate %m` and
// `replicate %k`): a row out of bounds of one could be inside the other, so no fusion.
// CHECK-LABEL: func.func @different_lengths
// CHECK-COUNT-4: soac.hist
func.func @different_lengths(%is: tensor<?xindex>, %d1: tensor<?xi32>, %d2: tensor<?xi32>, %m: index, %k: index) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xindex>
  %z = arith.constant 0 : i32
  %c = soac.hist %n (%is : tensor<?xindex>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  %t = soac.hist %n (%is : tensor<?xindex>) into(%d2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  %e1 = soac.replicate %m, %z : i32 -> tensor<?xi32>
  %e2 = soac.replicate %k, %z : i32 -> tensor<?xi32>
  %u = soac.hist %n (%is : tensor<?xindex>) into(%e1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  %v = soac.hist %n (%is : tensor<?xindex>) into(%e2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  func.return %c, %t, %u, %v : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}

// Static lengths, and `tensor.dim` of an array as the length of `replicate`: known equal, so both pairs fuse.
// CHECK-LABEL: func.func @known_lengths
// CHECK:         soac.hist %n (%is : tensor<?xindex>) into(%s1, %s2 : tensor<8xi32>, tensor<8xi32>)
// CHECK:         soac.hist %n (%is : tensor<?xindex>) into(%d1, %e : tensor<?xi32>, tensor<?xi32>)
func.func @known_lengths(%is: tensor<?xindex>, %s1: tensor<8xi32>, %s2: tensor<8xi32>, %d1: tensor<?xi32>) -> (tensor<8xi32>, tensor<8xi32>, tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xindex>
  %z = arith.constant 0 : i32
  %m = tensor.dim %d1, %c0 : tensor<?xi32>
  %e = soac.replicate %m, %z : i32 -> tensor<?xi32>
  %c = soac.hist %n (%is : tensor<?xindex>) into(%s1 : tensor<8xi32>) neutral(%z : i32) -> tensor<8xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  %t = soac.hist %n (%is : tensor<?xindex>) into(%s2 : tensor<8xi32>) neutral(%z : i32) -> tensor<8xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  %u = soac.hist %n (%is : tensor<?xindex>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  %v = soac.hist %n (%is : tensor<?xindex>) into(%e : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  func.return %c, %t, %u, %v : tensor<8xi32>, tensor<8xi32>, tensor<?xi32>, tensor<?xi32>
}

// The second hist updates the first's result: a dependency, not a horizontal pair.
// CHECK-LABEL: func.func @chained
// CHECK:         %c = soac.hist %n (%is : tensor<?xindex>) into(%d : tensor<?xi32>)
// CHECK:         %t = soac.hist %n (%is : tensor<?xindex>) into(%c : tensor<?xi32>)
func.func @chained(%is: tensor<?xindex>, %d: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xindex>
  %z = arith.constant 0 : i32
  %c = soac.hist %n (%is : tensor<?xindex>) into(%d : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  %t = soac.hist %n (%is : tensor<?xindex>) into(%c : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.maxsi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  func.return %t : tensor<?xi32>
}

// The first hist reads the destination that the second consumes (a use of %d2 before its update): the second
// cannot move up past that read, and the first cannot read %d2 after the update. No fusion.
// CHECK-LABEL: func.func @reads_other_destination
// CHECK-COUNT-2: soac.hist
func.func @reads_other_destination(%is: tensor<?xindex>, %d1: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xindex>
  %z = arith.constant 0 : i32
  %m = tensor.dim %d1, %c0 : tensor<?xi32>
  %d2 = soac.replicate %m, %z : i32 -> tensor<?xi32>
  %c = soac.hist %n (%is : tensor<?xindex>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    %first = soac.index %d2[%c0] : tensor<?xi32> -> i32
    soac.yield %i, %first : index, i32
  }
  %t = soac.hist %n (%is : tensor<?xindex>) into(%d2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  func.return %c, %t : tensor<?xi32>, tensor<?xi32>
}

// A read of the first result between the two feeds the second hist: a dependency through another op.
// CHECK-LABEL: func.func @through_a_read
// CHECK-COUNT-2: soac.hist
func.func @through_a_read(%is: tensor<?xindex>, %d1: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xindex>
  %z = arith.constant 0 : i32
  %m = tensor.dim %d1, %c0 : tensor<?xi32>
  %d2 = soac.replicate %m, %z : i32 -> tensor<?xi32>
  %c = soac.hist %n (%is : tensor<?xindex>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  %first = soac.index %c[%c0] : tensor<?xi32> -> i32
  %t = soac.hist %n (%is : tensor<?xindex>) into(%d2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %first : index, i32
  }
  func.return %c, %t : tensor<?xi32>, tensor<?xi32>
}

// An in-place update between them consumes an array the first hist reads (so it cannot move down) and makes the
// second one's destination (so it cannot move up). No fusion.
// CHECK-LABEL: func.func @update_between
// CHECK:         soac.hist
// CHECK:         soac.update
// CHECK:         soac.hist
func.func @update_between(%is: tensor<?xindex>, %ws: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %ws, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %d1 = soac.replicate %n, %z : i32 -> tensor<?xi32>
  %c = soac.hist %n (%is, %ws : tensor<?xindex>, tensor<?xi32>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %w: i32) {
    soac.yield %i, %w : index, i32
  }
  %d2 = soac.update %ws[%c0] = %z : tensor<?xi32>, i32
  %t = soac.hist %n (%is : tensor<?xindex>) into(%d2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  func.return %c, %t : tensor<?xi32>, tensor<?xi32>
}

// Different widths: no fusion.
// CHECK-LABEL: func.func @different_widths
// CHECK-COUNT-2: soac.hist
func.func @different_widths(%is: tensor<?xindex>, %d1: tensor<?xi32>, %k: index) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xindex>
  %z = arith.constant 0 : i32
  %m = tensor.dim %d1, %c0 : tensor<?xi32>
  %d2 = soac.replicate %m, %z : i32 -> tensor<?xi32>
  %c = soac.hist %n (%is : tensor<?xindex>) into(%d1 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  %t = soac.hist %k (%is : tensor<?xindex>) into(%d2 : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  func.return %c, %t : tensor<?xi32>, tensor<?xi32>
}
