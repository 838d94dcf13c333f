// RUN: soac-opt %s -p canonicalize | filecheck %s

// The soac dialect's canonicalisation patterns (passes/canonicalization_patterns.py): SOACs lose the
// results no one uses, the inputs their lambdas ignore, and the independent parts of their operators
// whose results are unused.

// FU-59 unused-reduce: a reduce over pairs of which only the first result is used. Futhark removes the
// unused half of the operator (Screma/BinOp 1); so does `canonicalize`.
// CHECK-LABEL: func.func @fu59
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    %x = soac.reduce %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%x1: i32, %x2: i32) {
// CHECK-NEXT:      %s = arith.addi %x1, %x2 : i32
// CHECK-NEXT:      soac.yield %s : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %x : i32
func.func @fu59(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> i32 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %x, %y = soac.reduce %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%zero, %one : i32, i32) -> (i32, i32) combine(%x1: i32, %y1: i32, %x2: i32, %y2: i32) {
    %s = arith.addi %x1, %x2 : i32
    %p = arith.muli %y1, %y2 : i32
    soac.yield %s, %p : i32, i32
  }
  func.return %x : i32
}

// An unused map result goes, and with it the input only that result read.
// CHECK-LABEL: func.func @map_parts
// CHECK-NEXT:    %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:      %p = arith.addi %x, %x : i32
// CHECK-NEXT:      soac.yield %p : i32
// CHECK-NEXT:    }
func.func @map_parts(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> tensor<?xi32> {
  %a, %b = soac.map %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32, %y: i32) {
    %p = arith.addi %x, %x : i32
    %q = arith.muli %x, %y : i32
    soac.yield %p, %q : i32, i32
  }
  func.return %a : tensor<?xi32>
}

// A lambda that reads none of its inputs keeps the width only.
// CHECK-LABEL: func.func @map_of_nothing
// CHECK-NEXT:    %a = soac.map %n () -> tensor<?xi32> lambda() {
// CHECK-NEXT:      soac.yield %c : i32
func.func @map_of_nothing(%n: index, %xs: tensor<?xi32>, %c: i32) -> tensor<?xi32> {
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    soac.yield %c : i32
  }
  func.return %a : tensor<?xi32>
}

// Complex multiplication: the used real part reads the imaginary parts' parameters, so both parts stay.
// CHECK-LABEL: func.func @coupled_parts
// CHECK:         %x, %y = soac.reduce %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>)
func.func @coupled_parts(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> i32 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %x, %y = soac.reduce %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%one, %zero : i32, i32) -> (i32, i32) combine(%x1: i32, %y1: i32, %x2: i32, %y2: i32) {
    %xx = arith.muli %x1, %x2 : i32
    %yy = arith.muli %y1, %y2 : i32
    %re = arith.subi %xx, %yy : i32
    %xy = arith.muli %x1, %y2 : i32
    %yx = arith.muli %y1, %x2 : i32
    %im = arith.addi %xy, %yx : i32
    soac.yield %re, %im : i32, i32
  }
  func.return %x : i32
}

// Three parts, the first two coupled (complex multiplication): only the unused third one goes.
// CHECK-LABEL: func.func @three_parts
// CHECK:         %a, %b = soac.reduce commutative %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%one, %zero : i32, i32) -> (i32, i32) combine(%a1: i32, %b1: i32, %a2: i32, %b2: i32) {
// CHECK-NEXT:      %aa = arith.muli %a1, %a2 : i32
// CHECK-NEXT:      %bb = arith.muli %b1, %b2 : i32
// CHECK-NEXT:      %s = arith.subi %aa, %bb : i32
// CHECK-NEXT:      %ab = arith.muli %a1, %b2 : i32
// CHECK-NEXT:      %ba = arith.muli %b1, %a2 : i32
// CHECK-NEXT:      %t = arith.addi %ab, %ba : i32
// CHECK-NEXT:      soac.yield %s, %t : i32, i32
func.func @three_parts(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %zs: tensor<?xi32>) -> i32 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %a, %b, %c = soac.reduce commutative %n (%xs, %ys, %zs : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) neutral(%one, %zero, %zero : i32, i32, i32) -> (i32, i32, i32) combine(%a1: i32, %b1: i32, %c1: i32, %a2: i32, %b2: i32, %c2: i32) {
    %aa = arith.muli %a1, %a2 : i32
    %bb = arith.muli %b1, %b2 : i32
    %s = arith.subi %aa, %bb : i32
    %ab = arith.muli %a1, %b2 : i32
    %ba = arith.muli %b1, %a2 : i32
    %t = arith.addi %ab, %ba : i32
    %u = arith.maxsi %c1, %c2 : i32
    soac.yield %s, %t, %u : i32, i32, i32
  }
  func.return %a : i32
}

// A redomap loses an unused reduction part, an unused map-out and the input only they read.
// CHECK-LABEL: func.func @redomap_parts
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    %s, %o1 = soac.redomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> (i32, tensor<?xi32>) combine(%a1: i32, %a2: i32) {
// CHECK-NEXT:      %c = arith.addi %a1, %a2 : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %t = arith.muli %x, %x : i32
// CHECK-NEXT:      soac.yield %t, %t : i32, i32
// CHECK-NEXT:    }
func.func @redomap_parts(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> (i32, tensor<?xi32>) {
  %zero = arith.constant 0 : i32
  %s, %m, %o1, %o2 = soac.redomap %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%zero, %zero : i32, i32) -> (i32, i32, tensor<?xi32>, tensor<?xi32>) combine(%a1: i32, %b1: i32, %a2: i32, %b2: i32) {
    %c = arith.addi %a1, %a2 : i32
    %d = arith.maxsi %b1, %b2 : i32
    soac.yield %c, %d : i32, i32
  } lambda(%x: i32, %y: i32) {
    %t = arith.muli %x, %x : i32
    %u = arith.subi %x, %y : i32
    soac.yield %t, %u, %t, %u : i32, i32, i32, i32
  }
  func.return %s, %o1 : i32, tensor<?xi32>
}

// Nothing unused: unchanged (and a SOAC whose results are all unused is dead code).
// CHECK-LABEL: func.func @all_used
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    %x, %y = soac.reduce
// CHECK-LABEL: func.func @dead
// CHECK-NEXT:    func.return
func.func @all_used(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> (i32, i32) {
  %zero = arith.constant 0 : i32
  %x, %y = soac.reduce %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%zero, %zero : i32, i32) -> (i32, i32) combine(%x1: i32, %y1: i32, %x2: i32, %y2: i32) {
    %s = arith.addi %x1, %x2 : i32
    %p = arith.muli %y1, %y2 : i32
    soac.yield %s, %p : i32, i32
  }
  func.return %x, %y : i32, i32
}
func.func @dead(%n: index, %xs: tensor<?xi32>) {
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %p = arith.addi %x, %x : i32
    soac.yield %p : i32
  }
  func.return
}

// As @three_parts, with only the second of the coupled values used: the first stays with it.
// CHECK-LABEL: func.func @three_parts_second_used
// CHECK:         %a, %b = soac.reduce %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>)
// CHECK:         func.return %b : i32
func.func @three_parts_second_used(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %zs: tensor<?xi32>) -> i32 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %a, %b, %c = soac.reduce %n (%xs, %ys, %zs : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) neutral(%one, %zero, %zero : i32, i32, i32) -> (i32, i32, i32) combine(%a1: i32, %b1: i32, %c1: i32, %a2: i32, %b2: i32, %c2: i32) {
    %aa = arith.muli %a1, %a2 : i32
    %bb = arith.muli %b1, %b2 : i32
    %s = arith.subi %aa, %bb : i32
    %ab = arith.muli %a1, %b2 : i32
    %ba = arith.muli %b1, %a2 : i32
    %t = arith.addi %ab, %ba : i32
    %u = arith.maxsi %c1, %c2 : i32
    soac.yield %s, %t, %u : i32, i32, i32
  }
  func.return %b : i32
}

// A scan loses its unused, independent part like a reduce.
// CHECK-LABEL: func.func @scan_pair
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    %b = soac.scan %n (%ys : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%b1: i32, %b2: i32) {
// CHECK-NEXT:      %d = arith.maxsi %b1, %b2 : i32
// CHECK-NEXT:      soac.yield %d : i32
func.func @scan_pair(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> tensor<?xi32> {
  %zero = arith.constant 0 : i32
  %a, %b = soac.scan %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%zero, %zero : i32, i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a1: i32, %b1: i32, %a2: i32, %b2: i32) {
    %c = arith.addi %a1, %a2 : i32
    %d = arith.maxsi %b1, %b2 : i32
    soac.yield %c, %d : i32, i32
  }
  func.return %b : tensor<?xi32>
}

// A scanomap with a post lambda and a reduction part: an unused post result takes the scanned value only it
// read, an unused reduced value its part of the reduce operator, and unused map-outs their lambda values.
// CHECK-LABEL: func.func @scanomap_parts
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    %p, %r1 = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) reduce(%zero : i32) -> (tensor<?xi32>, i32) combine(%a1: i32, %a2: i32) {
// CHECK-NEXT:      %c = arith.addi %a1, %a2 : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } reduce_combine(%e1: i32, %e2: i32) {
// CHECK-NEXT:      %g = arith.addi %e1, %e2 : i32
// CHECK-NEXT:      soac.yield %g : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %t = arith.muli %x, %x : i32
// CHECK-NEXT:      soac.yield %x, %t : i32, i32
// CHECK-NEXT:    } post(%s1: i32, %{{.*}}: i32) {
func.func @scanomap_parts(%n: index, %xs: tensor<?xi32>) -> (tensor<?xi32>, i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %p, %q, %r1, %r2, %m1, %m2 = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero, %zero : i32, i32) reduce(%zero, %one : i32, i32) -> (tensor<?xi32>, tensor<?xi32>, i32, i32, tensor<?xi32>, tensor<?xi32>) combine(%a1: i32, %b1: i32, %a2: i32, %b2: i32) {
    %c = arith.addi %a1, %a2 : i32
    %d = arith.maxsi %b1, %b2 : i32
    soac.yield %c, %d : i32, i32
  } reduce_combine(%e1: i32, %f1: i32, %e2: i32, %f2: i32) {
    %g = arith.addi %e1, %e2 : i32
    %h = arith.muli %f1, %f2 : i32
    soac.yield %g, %h : i32, i32
  } lambda(%x: i32) {
    %t = arith.muli %x, %x : i32
    soac.yield %x, %t, %t, %x, %t, %x : i32, i32, i32, i32, i32, i32
  } post(%s1: i32, %s2: i32, %x: i32) {
    %u = arith.addi %s1, %x : i32
    %v = arith.addi %s2, %x : i32
    soac.yield %u, %v : i32, i32
  }
  func.return %p, %r1 : tensor<?xi32>, i32
}

// Only the reduced value is used: no scan at all, a redomap of the reduction part (and the map-out goes).
// CHECK-LABEL: func.func @scanomap_reduce_used
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    %r = soac.redomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%e1: i32, %e2: i32) {
// CHECK-NEXT:      %g = arith.maxsi %e1, %e2 : i32
// CHECK-NEXT:      soac.yield %g : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      soac.yield %x : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : i32
func.func @scanomap_reduce_used(%n: index, %xs: tensor<?xi32>) -> i32 {
  %zero = arith.constant 0 : i32
  %s, %r, %m = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) reduce(%zero : i32) -> (tensor<?xi32>, i32, tensor<?xi32>) combine(%a1: i32, %a2: i32) {
    %c = arith.addi %a1, %a2 : i32
    soac.yield %c : i32
  } reduce_combine(%e1: i32, %e2: i32) {
    %g = arith.maxsi %e1, %e2 : i32
    soac.yield %g : i32
  } lambda(%x: i32) {
    soac.yield %x, %x, %x : i32, i32, i32
  }
  func.return %r : i32
}

// FU-49 tabulate1: reading %ys at the iota index becomes an input of the map (%ys has %n rows: a map of
// width %n made it), which lets soac-fuse fuse the two maps (tests/filecheck/passes/soac-fuse/after-canonicalize.mlir).
// %xs (an argument, of unknown length) stays indexed.
// CHECK-LABEL: func.func @fu49
// CHECK:         %zs = soac.map %n (%io, %ys : tensor<?xindex>, tensor<?xi32>) -> tensor<?xi32> lambda(%{{.*}}: index, %y: i32) {
// CHECK-NEXT:      %{{.*}} = soac.index %xs[%{{.*}}] : tensor<?xi32> -> i32
// CHECK-NEXT:      %z = arith.muli %y, %{{.*}} : i32
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

// Another width: %ys may have more rows than %m, so the read stays.
// CHECK-LABEL: func.func @iota_of_another_width
// CHECK:         %zs = soac.map %m (%io : tensor<?xindex>)
// CHECK-NEXT:      %y = soac.index %ys[%i] : tensor<?xi32> -> i32
func.func @iota_of_another_width(%n: index, %m: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    soac.yield %x : i32
  }
  %io = soac.iota %m : tensor<?xindex>
  %zs = soac.map %m (%io : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
    %y = soac.index %ys[%i] : tensor<?xi32> -> i32
    soac.yield %y : i32
  }
  func.return %zs : tensor<?xi32>
}

// Only a map-out of a scanomap without a reduction part is used: a map.
// CHECK-LABEL: func.func @scanomap_map_out_used
// CHECK-NEXT:    %m = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:      %d = arith.muli %x, %x : i32
// CHECK-NEXT:      soac.yield %d : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %m : tensor<?xi32>
func.func @scanomap_map_out_used(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %zero = arith.constant 0 : i32
  %s, %m = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a1: i32, %a2: i32) {
    %c = arith.addi %a1, %a2 : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %d = arith.muli %x, %x : i32
    soac.yield %x, %d : i32, i32
  }
  func.return %m : tensor<?xi32>
}

// A slice of a map's only result: a map of the slices of its inputs, over the slice's rows only. The width
// of %xs is its own length, so the map's size check is not lost.
// CHECK-LABEL: func.func @slice_of_map
// CHECK-NEXT:    %xs_rows = soac.slice %xs[%lo : %hi] : tensor<?xi32> -> tensor<?xi32>
// CHECK-NEXT:    %rows = arith.subi %hi, %lo : index
// CHECK-NEXT:    %s = soac.map %rows (%xs_rows : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK-NEXT:      %y = arith.muli %x, %x : i32
// CHECK-NEXT:      soac.yield %y : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : tensor<?xi32>
func.func @slice_of_map(%lo: index, %hi: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %s = soac.slice %a[%lo : %hi] : tensor<?xi32> -> tensor<?xi32>
  func.return %s : tensor<?xi32>
}

// The map's width is an argument: %xs may have other than %n rows, which the map reports; the slice stays.
// Also when the map's result has another use.
// CHECK-LABEL: func.func @slice_of_map_kept
// CHECK:         %a = soac.map %n (%xs : tensor<?xi32>)
// CHECK:         %s = soac.slice %a[%lo : %hi]
// CHECK:         %b = soac.map %m (%ys : tensor<?xi32>)
// CHECK:         %t = soac.slice %b[%lo : %hi]
func.func @slice_of_map_kept(%n: index, %lo: index, %hi: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %a = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    soac.yield %x : i32
  }
  %s = soac.slice %a[%lo : %hi] : tensor<?xi32> -> tensor<?xi32>
  %m = tensor.dim %ys, %c0 : tensor<?xi32>
  %b = soac.map %m (%ys : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    soac.yield %x : i32
  }
  %t = soac.slice %b[%lo : %hi] : tensor<?xi32> -> tensor<?xi32>
  func.return %s, %t, %b : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}

// A scanomap's forwarded values that the post lambda does not use are dropped, with the code only they needed;
// an unused map-out goes too.
// CHECK-LABEL: func.func @scanomap_unused_forwarded(%xs: tensor<?xi32>) -> tensor<?xi32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %n = tensor.dim %xs, %c0 : tensor<?xi32>
// CHECK-NEXT:    %z = arith.constant 0 : i32
// CHECK-NEXT:    %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %s = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %s : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %three = arith.constant 3 : i32
// CHECK-NEXT:      %y = arith.muli %x, %three : i32
// CHECK-NEXT:      %g = arith.muli %y, %x : i32
// CHECK-NEXT:      soac.yield %y, %g : i32, i32
// CHECK-NEXT:    } post(%s_1: i32, %x_1: i32, %g_1: i32) {
// CHECK-NEXT:      %t = arith.subi %s_1, %g_1 : i32
// CHECK-NEXT:      soac.yield %t : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi32>
// CHECK-NEXT:  }
func.func @scanomap_unused_forwarded(%xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %r, %mo = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32) {
    %three = arith.constant 3 : i32
    %y = arith.muli %x, %three : i32
    %f = arith.addi %y, %x : i32
    %g = arith.muli %y, %x : i32
    soac.yield %y, %g, %f, %g : i32, i32, i32, i32
  } post(%s: i32, %x: i32, %f: i32, %g: i32) {
    %t = arith.subi %s, %g : i32
    soac.yield %t : i32
  }
  func.return %r : tensor<?xi32>
}

// Forwarded values only an unused post result needs go with it.
// CHECK-LABEL: func.func @scanomap_forwarded_of_unused_post(%xs: tensor<?xi32>) -> tensor<?xi32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %n = tensor.dim %xs, %c0 : tensor<?xi32>
// CHECK-NEXT:    %z = arith.constant 0 : i32
// CHECK-NEXT:    %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %s = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %s : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %y = arith.muli %x, %x : i32
// CHECK-NEXT:      soac.yield %y : i32
// CHECK-NEXT:    } post(%s_1: i32, %x_1: i32) {
// CHECK-NEXT:      soac.yield %s_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi32>
// CHECK-NEXT:  }
func.func @scanomap_forwarded_of_unused_post(%xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %r, %q = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    %f = arith.addi %y, %x : i32
    soac.yield %y, %f : i32, i32
  } post(%s: i32, %x: i32, %f: i32) {
    %t = arith.subi %s, %f : i32
    soac.yield %s, %t : i32, i32
  }
  func.return %r : tensor<?xi32>
}

// A forwarded input row, or a value from outside the scanomap, is read in the post lambda directly: no forwarding.
// CHECK-LABEL: func.func @scanomap_forwarded_row(%n: index, %xs: tensor<?xi32>, %z: i32, %k: i32) -> tensor<?xi32> {
// CHECK-NEXT:    %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %s = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %s : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %y = arith.muli %x, %x : i32
// CHECK-NEXT:      soac.yield %y : i32
// CHECK-NEXT:    } post(%s_1: i32, %x_1: i32) {
// CHECK-NEXT:      %t = arith.subi %s_1, %x_1 : i32
// CHECK-NEXT:      %u = arith.addi %t, %k : i32
// CHECK-NEXT:      soac.yield %u : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi32>
// CHECK-NEXT:  }
func.func @scanomap_forwarded_row(%n: index, %xs: tensor<?xi32>, %z: i32, %k: i32) -> tensor<?xi32> {
  %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y, %x, %k : i32, i32, i32
  } post(%s: i32, %x: i32, %f: i32, %g: i32) {
    %t = arith.subi %s, %f : i32
    %u = arith.addi %t, %g : i32
    soac.yield %u : i32
  }
  func.return %r : tensor<?xi32>
}
