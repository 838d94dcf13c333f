// RUN: soac-opt %s -p soac-fuse | filecheck %s

// map->map (F1): the producer's lambda is composed into the consumer's.
// CHECK-LABEL: func.func @map_map(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
// CHECK-NEXT:    %zs = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
// CHECK-NEXT:    %y = arith.mulf %x, %x : f32
// CHECK-NEXT:    %z = arith.addf %y, %y : f32
// CHECK-NEXT:    soac.yield %z : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %zs : tensor<?xf32>
// CHECK-NEXT:    }
func.func @map_map(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
    soac.yield %y : f32
  }
  %zs = soac.map %n (%ys : tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32) {
    %z = arith.addf %y, %y : f32
    soac.yield %z : f32
  }
  func.return %zs : tensor<?xf32>
}

// map->reduce becomes a redomap.
// CHECK-LABEL: func.func @map_reduce(%n: index, %xs: tensor<?xi32>, %zero: i32) -> i32 {
// CHECK-NEXT:    %s = soac.redomap commutative %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.muli %x, %x : i32
// CHECK-NEXT:    soac.yield %y : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : i32
// CHECK-NEXT:    }
func.func @map_reduce(%n: index, %xs: tensor<?xi32>, %zero: i32) -> i32 {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %s = soac.reduce commutative %n (%ys : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  func.return %s : i32
}

// map->scan becomes a scanomap.
// CHECK-LABEL: func.func @map_scan(%n: index, %xs: tensor<?xi32>, %zero: i32) -> tensor<?xi32> {
// CHECK-NEXT:    %s = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.muli %x, %x : i32
// CHECK-NEXT:    soac.yield %y : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : tensor<?xi32>
// CHECK-NEXT:    }
func.func @map_scan(%n: index, %xs: tensor<?xi32>, %zero: i32) -> tensor<?xi32> {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %s = soac.scan %n (%ys : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  func.return %s : tensor<?xi32>
}

// map->redomap: the map is composed in front of the redomap's lambda, with two inputs (one shared).
// CHECK-LABEL: func.func @map_redomap(%n: index, %xs: tensor<?xi32>, %ws: tensor<?xi32>, %zero: i32) -> (i32, tensor<?xi32>) {
// CHECK-NEXT:    %s, %m = soac.redomap %n (%xs, %ws : tensor<?xi32>, tensor<?xi32>) neutral(%zero : i32) -> (i32, tensor<?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32, %w: i32) {
// CHECK-NEXT:    %y = arith.muli %x, %x : i32
// CHECK-NEXT:    %d = arith.subi %y, %x : i32
// CHECK-NEXT:    %e = arith.muli %d, %w : i32
// CHECK-NEXT:    soac.yield %d, %e : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %m : i32, tensor<?xi32>
// CHECK-NEXT:    }
func.func @map_redomap(%n: index, %xs: tensor<?xi32>, %ws: tensor<?xi32>, %zero: i32) -> (i32, tensor<?xi32>) {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %s, %m = soac.redomap %n (%ys, %xs, %ws : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) neutral(%zero : i32) -> (i32, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%y: i32, %x: i32, %w: i32) {
    %d = arith.subi %y, %x : i32
    %e = arith.muli %d, %w : i32
    soac.yield %d, %e : i32, i32
  }
  func.return %s, %m : i32, tensor<?xi32>
}

// map->scanomap.
// CHECK-LABEL: func.func @map_scanomap(%n: index, %xs: tensor<?xi32>, %zero: i32) -> tensor<?xi32> {
// CHECK-NEXT:    %s = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %y = arith.muli %x, %x : i32
// CHECK-NEXT:    %d = arith.addi %y, %y : i32
// CHECK-NEXT:    soac.yield %d : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : tensor<?xi32>
// CHECK-NEXT:    }
func.func @map_scanomap(%n: index, %xs: tensor<?xi32>, %zero: i32) -> tensor<?xi32> {
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.muli %x, %x : i32
    soac.yield %y : i32
  }
  %s = soac.scanomap %n (%ys : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%y: i32) {
    %d = arith.addi %y, %y : i32
    soac.yield %d : i32
  }
  func.return %s : tensor<?xi32>
}

// scan->map: the map becomes the post lambda of a scanomap.
// CHECK-LABEL: func.func @scan_map(%n: index, %xs: tensor<?xi32>, %ws: tensor<?xi32>, %zero: i32) -> tensor<?xi1> {
// CHECK-NEXT:    %r = soac.scanomap %n (%xs, %ws : tensor<?xi32>, tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi1> combine(%a: i32, %b: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } lambda(%0: i32, %w: i32) {
// CHECK-NEXT:    soac.yield %0 : i32
// CHECK-NEXT:    } post(%t: i32, %1: i32, %w_1: i32) {
// CHECK-NEXT:    %p = arith.cmpi sgt, %t, %w_1 : i32
// CHECK-NEXT:    soac.yield %p : i1
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi1>
// CHECK-NEXT:    }
func.func @scan_map(%n: index, %xs: tensor<?xi32>, %ws: tensor<?xi32>, %zero: i32) -> tensor<?xi1> {
  %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  %r = soac.map %n (%s, %ws : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1> lambda(%t: i32, %w: i32) {
    %p = arith.cmpi sgt, %t, %w : i32
    soac.yield %p : i1
  }
  func.return %r : tensor<?xi1>
}

// scanomap (with a post lambda) -> map: both post lambdas compose; the scanned array stays a result.
// CHECK-LABEL: func.func @scanomap_post_map(%n: index, %xs: tensor<?xi32>, %zero: i32) -> (tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %s, %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:    %c = arith.addi %a, %b : i32
// CHECK-NEXT:    soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %d = arith.muli %x, %x : i32
// CHECK-NEXT:    soac.yield %d : i32
// CHECK-NEXT:    } post(%t: i32, %x_1: i32) {
// CHECK-NEXT:    %e = arith.subi %t, %x_1 : i32
// CHECK-NEXT:    %f = arith.addi %e, %e : i32
// CHECK-NEXT:    soac.yield %e, %f : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %r : tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:    }
func.func @scanomap_post_map(%n: index, %xs: tensor<?xi32>, %zero: i32) -> (tensor<?xi32>, tensor<?xi32>) {
  %s = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32) {
    %d = arith.muli %x, %x : i32
    soac.yield %d : i32
  } post(%t: i32, %x: i32) {
    %e = arith.subi %t, %x : i32
    soac.yield %e : i32
  }
  %r = soac.map %n (%s : tensor<?xi32>) -> tensor<?xi32> lambda(%u: i32) {
    %f = arith.addi %u, %u : i32
    soac.yield %f : i32
  }
  func.return %s, %r : tensor<?xi32>, tensor<?xi32>
}

// map->scatter: the map computing indices and values disappears into the scatter.
// CHECK-LABEL: func.func @map_scatter(%n: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %dest: tensor<?xf32>) -> tensor<?xf32> {
// CHECK-NEXT:    %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%dest : tensor<?xf32>) -> tensor<?xf32> lambda(%i: index, %v: f32) {
// CHECK-NEXT:    %one = arith.constant 1 : index
// CHECK-NEXT:    %j = arith.addi %i, %one : index
// CHECK-NEXT:    %w = arith.mulf %v, %v : f32
// CHECK-NEXT:    soac.yield %j, %w : index, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xf32>
// CHECK-NEXT:    }
func.func @map_scatter(%n: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %dest: tensor<?xf32>) -> tensor<?xf32> {
  %js, %ws = soac.map %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) -> (tensor<?xindex>, tensor<?xf32>) lambda(%i: index, %v: f32) {
    %one = arith.constant 1 : index
    %j = arith.addi %i, %one : index
    %w = arith.mulf %v, %v : f32
    soac.yield %j, %w : index, f32
  }
  %r = soac.scatter %n (%js, %ws : tensor<?xindex>, tensor<?xf32>) into(%dest : tensor<?xf32>) -> tensor<?xf32> lambda(%j: index, %w: f32) {
    soac.yield %j, %w : index, f32
  }
  func.return %r : tensor<?xf32>
}

// A producer with several outputs, of which the consumer uses only one; the other is dead and dropped.
// CHECK-LABEL: func.func @partial_use(%n: index, %xs: tensor<?xi32>, %zero: i32) -> tensor<?xi32> {
// CHECK-NEXT:    %c = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%u: i32, %v: i32) {
// CHECK-NEXT:    %w = arith.addi %u, %v : i32
// CHECK-NEXT:    soac.yield %w : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:    %two = arith.constant 2 : i32
// CHECK-NEXT:    %q = arith.subi %x, %two : i32
// CHECK-NEXT:    soac.yield %q : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c : tensor<?xi32>
// CHECK-NEXT:    }
func.func @partial_use(%n: index, %xs: tensor<?xi32>, %zero: i32) -> tensor<?xi32> {
  %a, %b = soac.map %n (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
    %two = arith.constant 2 : i32
    %p = arith.addi %x, %two : i32
    %q = arith.subi %x, %two : i32
    soac.yield %p, %q : i32, i32
  }
  %c = soac.scan %n (%b : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%u: i32, %v: i32) {
    %w = arith.addi %u, %v : i32
    soac.yield %w : i32
  }
  func.return %c : tensor<?xi32>
}

// A chain map->map->map->reduce fuses into one redomap.
// CHECK-LABEL: func.func @chain(%n: index, %xs: tensor<?xf64>, %zero: f64) -> f64 {
// CHECK-NEXT:    %s = soac.redomap %n (%xs : tensor<?xf64>) neutral(%zero : f64) -> f64 combine(%u: f64, %v: f64) {
// CHECK-NEXT:    %w = arith.addf %u, %v : f64
// CHECK-NEXT:    soac.yield %w : f64
// CHECK-NEXT:    } lambda(%x: f64) {
// CHECK-NEXT:    %y = arith.mulf %x, %x : f64
// CHECK-NEXT:    %y_1 = arith.addf %y, %y : f64
// CHECK-NEXT:    %z = arith.subf %y_1, %y : f64
// CHECK-NEXT:    soac.yield %z : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : f64
// CHECK-NEXT:    }
func.func @chain(%n: index, %xs: tensor<?xf64>, %zero: f64) -> f64 {
  %a = soac.map %n (%xs : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.mulf %x, %x : f64
    soac.yield %y : f64
  }
  %b = soac.map %n (%a : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.addf %x, %x : f64
    soac.yield %y : f64
  }
  %c = soac.map %n (%b, %a : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64, %y: f64) {
    %z = arith.subf %x, %y : f64
    soac.yield %z : f64
  }
  %s = soac.reduce %n (%c : tensor<?xf64>) neutral(%zero : f64) -> f64 combine(%u: f64, %v: f64) {
    %w = arith.addf %u, %v : f64
    soac.yield %w : f64
  }
  func.return %s : f64
}

// Two widths that the consumer's input check makes one (soac.lang's `row + map f p`, widths `dim row` and `dim p`):
// the fused op takes the consumer's width and checks the producer's input against it, which keeps the check.
// CHECK-LABEL: func.func @widths_checked_by_input(%row: tensor<?xf32>, %p: tensor<?xf32>) -> tensor<?xf32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %m = tensor.dim %row, %c0 : tensor<?xf32>
// CHECK-NEXT:    %n = tensor.dim %p, %c0 : tensor<?xf32>
// CHECK-NEXT:    %zs = soac.map %m (%p, %row : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %r: f32) {
func.func @widths_checked_by_input(%row: tensor<?xf32>, %p: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %row, %c0 : tensor<?xf32>
  %n = tensor.dim %p, %c0 : tensor<?xf32>
  %ys = soac.map %n (%p : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
    soac.yield %y : f32
  }
  %zs = soac.map %m (%row, %ys : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%r: f32, %y: f32) {
    %z = arith.addf %r, %y : f32
    soac.yield %z : f32
  }
  func.return %zs : tensor<?xf32>
}

// Two widths and no input of the producer known to have its width as rows: the consumer's check of its input stays,
// as a `soac.assert` with its message and location, before the fused op.
// CHECK-LABEL: func.func @widths_asserted(%m: index, %n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
// CHECK-NEXT:    %0 = arith.cmpi eq, %m, %n : index
// CHECK-NEXT:    soac.assert %0, "'soac.map': width {0} does not match the outer size {1} of input #0" (%m, %n : index, index)
// CHECK-NEXT:    %zs = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
func.func @widths_asserted(%m: index, %n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
    soac.yield %y : f32
  }
  %zs = soac.map %m (%ys : tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32) {
    %z = arith.addf %y, %y : f32
    soac.yield %z : f32
  }
  func.return %zs : tensor<?xf32>
}
