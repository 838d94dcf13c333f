// RUN: soac-opt %s -p 'soac-coalesce{read-through=false row-tiles=false}' --split-input-file | filecheck %s
// RUN: soac-opt %s -p 'soac-coalesce{read-through=false rows=false row-tiles=false}' --split-input-file | filecheck %s --check-prefix=OFF

// The outer-parallel version of a row softmax: work-item %i writes row %i of %y (a row apart from its neighbours'),
// from the redomap's map-out %e. The row moves into a segmap over (%n, %w) that recomputes exp(x - m) / s at
// [%i, %j] (reading %x[%i, %j]: coalesced) from the scalars the first kernel now yields; the first kernel no
// longer makes %e, and its two walks along %x[%i] read the transposed copy.
// CHECK-LABEL: func.func @softmax
// CHECK:         %x_t = soac.transpose %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:    %lse, %s_of, %m_of = soac.segmap thread (%n) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) lambda(%i: index) {
// CHECK:           soac.index %x_t[%{{.*}}, %i] : tensor<?x?xf32> -> f32
// CHECK:           %m = soac.reduce %w
// CHECK:           soac.index %x_t[%{{.*}}, %i] : tensor<?x?xf32> -> f32
// CHECK:           %s = soac.redomap %w ({{.*}}) neutral(%zero : f32) -> f32 combine
// CHECK:             soac.yield %t : f32
// CHECK:           soac.yield %lg, %s, %m : f32, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %y = soac.segmap thread (%n, %w) -> tensor<?x?xf32> lambda(%i_1: index, %j: index) {
// CHECK-NEXT:      %s_1 = soac.index %s_of[%i_1] : tensor<?xf32> -> f32
// CHECK-NEXT:      %m_1 = soac.index %m_of[%i_1] : tensor<?xf32> -> f32
// CHECK-NEXT:      %[[X:.*]] = soac.index %x[%i_1, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %d_1 = arith.subf %[[X]], %m_1 : f32
// CHECK-NEXT:      %t_1 = math.exp %d_1 : f32
// CHECK-NEXT:      %q = arith.divf %t_1, %s_1 : f32
// CHECK-NEXT:      soac.yield %q : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y, %lse : tensor<?x?xf32>, tensor<?xf32>
// Without the rule, the kernel still writes its rows (its reads get the copy).
// OFF-LABEL:   func.func @softmax
// OFF:           soac.segmap thread (%n) -> (tensor<?x?xf32>, tensor<?xf32>)
// OFF-NOT:       soac.segmap thread (%n, %w)
// OFF:           func.return %y, %lse
func.func @softmax(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %w = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ninf = arith.constant 0xff800000 : f32
  %zero = arith.constant 0.0 : f32
  %y, %lse = soac.segmap thread (%n) -> (tensor<?x?xf32>, tensor<?xf32>) lambda(%i: index) {
    %r = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
    %m = soac.reduce %w (%r : tensor<?xf32>) neutral(%ninf : f32) -> f32 combine(%a: f32, %b: f32) {
      %mx = arith.maximumf %a, %b : f32
      soac.yield %mx : f32
    }
    %s, %e = soac.redomap %w (%r : tensor<?xf32>) neutral(%zero : f32) -> (f32, tensor<?xf32>) combine(%a: f32, %b: f32) {
      %sum = arith.addf %a, %b : f32
      soac.yield %sum : f32
    } lambda(%v: f32) {
      %d = arith.subf %v, %m : f32
      %t = math.exp %d : f32
      soac.yield %t, %t : f32, f32
    }
    %row = soac.map %w (%e : tensor<?xf32>) -> tensor<?xf32> lambda(%u: f32) {
      %q = arith.divf %u, %s : f32
      soac.yield %q : f32
    }
    %ls = math.log %s : f32
    %lg = arith.addf %m, %ls : f32
    soac.yield %row, %lg : tensor<?xf32>, f32
  }
  func.return %y, %lse : tensor<?x?xf32>, tensor<?xf32>
}

// -----

// Rows of an array made before the kernel (%gamma) and an iota of the row's length: element %j of each. %gamma's
// length is not known to be %w, so the first kernel keeps the map's check; the iota's element is %j itself (cast
// to i32); the work-item's index %i is read directly.
// CHECK-LABEL: func.func @affine
// CHECK:         %[[SUMS:.*]] = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
// CHECK:           soac.reduce %w
// CHECK:           %[[LEN:.*]] = tensor.dim %gamma, %{{.*}} : tensor<?xf32>
// CHECK-NEXT:      %[[SAME:.*]] = arith.cmpi eq, %[[LEN]], %w : index
// CHECK-NEXT:      soac.assert %[[SAME]], "'soac.map': width {0} does not match the outer size {1} of input #1" (%w, %[[LEN]] : index, index)
// CHECK-NEXT:      soac.yield %s : f32
// CHECK:         soac.segmap thread (%n, %w) -> tensor<?x?xf32> lambda(%i_1: index, %j: index) {
// CHECK-NEXT:      %s_1 = soac.index %[[SUMS]][%i_1] : tensor<?xf32> -> f32
// CHECK-NEXT:      %{{.*}} = soac.index %x[%i_1, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %gamma_1 = soac.index %gamma[%j] : tensor<?xf32> -> f32
// CHECK-NEXT:      %[[K:.*]] = arith.index_cast %j : index to i32
// CHECK-NEXT:      %[[KF:.*]] = arith.sitofp %[[K]] : i32 to f32
// CHECK:           arith.index_cast %i_1 : index to i64
func.func @affine(%x: tensor<?x?xf32>, %gamma: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %w = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %y = soac.segmap thread (%n) -> tensor<?x?xf32> lambda(%i: index) {
    %r = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
    %s = soac.reduce %w (%r : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %sum = arith.addf %a, %b : f32
      soac.yield %sum : f32
    }
    %ks = soac.iota %w : tensor<?xi32>
    %row = soac.map %w (%r, %gamma, %ks : tensor<?xf32>, tensor<?xf32>, tensor<?xi32>) -> tensor<?xf32> lambda(%v: f32, %g: f32, %k: i32) {
      %kf = arith.sitofp %k : i32 to f32
      %p = arith.mulf %v, %g : f32
      %q = arith.addf %p, %kf : f32
      %ii = arith.index_cast %i : index to i64
      %if = arith.sitofp %ii : i64 to f32
      %o = arith.subf %q, %s : f32
      %o2 = arith.addf %o, %if : f32
      soac.yield %o2 : f32
    }
    soac.yield %row : tensor<?xf32>
  }
  func.return %y : tensor<?x?xf32>
}

// -----

// A row fused into a redomap as its map-out and yielded as it is (`r + g`), beside a map's row (`r * s`): both in the
// one second kernel, which reads %x[%i, %j] once; the redomap keeps its sum alone, and the first kernel checks %g's
// length with the redomap's message.
// CHECK-LABEL: func.func @map_out
// CHECK:         %s_of = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
// CHECK:           soac.assert %{{.*}}, "'soac.redomap': width {0} does not match the outer size {1} of input #1"
// CHECK:           %s = soac.redomap %w ({{.*}} : tensor<?xf32>) neutral(%zero : f32) -> f32 combine
// CHECK:           soac.yield %s : f32
// CHECK:         %scaled, %shifted = soac.segmap thread (%n, %w) -> (tensor<?x?xf32>, tensor<?x?xf32>) lambda(%i_1: index, %j: index) {
// CHECK-NEXT:      %s_1 = soac.index %s_of[%i_1] : tensor<?xf32> -> f32
// CHECK-NEXT:      %[[X:.*]] = soac.index %x[%i_1, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %s_1 : f32
// CHECK-NEXT:      %[[G:.*]] = soac.index %g[%j] : tensor<?xf32> -> f32
// CHECK-NEXT:      %[[Q:.*]] = arith.addf %[[X]], %[[G]] : f32
// CHECK-NEXT:      soac.yield %[[P]], %[[Q]] : f32, f32
func.func @map_out(%x: tensor<?x?xf32>, %g: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %w = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %scaled, %shifted = soac.segmap thread (%n) -> (tensor<?x?xf32>, tensor<?x?xf32>) lambda(%i: index) {
    %r = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
    %s, %plus = soac.redomap %w (%r, %g : tensor<?xf32>, tensor<?xf32>) neutral(%zero : f32) -> (f32, tensor<?xf32>) combine(%a: f32, %b: f32) {
      %sum = arith.addf %a, %b : f32
      soac.yield %sum : f32
    } lambda(%v: f32, %h: f32) {
      %q = arith.addf %v, %h : f32
      soac.yield %v, %q : f32, f32
    }
    %row = soac.map %w (%r : tensor<?xf32>) -> tensor<?xf32> lambda(%u: f32) {
      %p = arith.mulf %u, %s : f32
      soac.yield %p : f32
    }
    soac.yield %row, %plus : tensor<?xf32>, tensor<?xf32>
  }
  func.return %scaled, %shifted : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// Already coalesced, or not recomputable: a work-group's rows (the whole group writes each row), rows of a length
// known to be short (4 < MIN_ROW: neighbours' rows share cache lines), a two-dimensional thread-level segmap (its
// work-items write neighbouring elements), and a row read from a scan (no element of it can be computed alone).
// CHECK-LABEL: func.func @left_alone
// CHECK:         soac.segmap group (%n) -> tensor<?x?xf32>
// CHECK:         soac.segmap thread (%n) -> tensor<?x4xf32>
// CHECK:         soac.segmap thread (%n, %w) -> tensor<?x?xf32>
// CHECK:         soac.segmap thread (%n) -> tensor<?x?xf32>
// CHECK:           soac.scan %w
// CHECK:           soac.map %w
// CHECK-NOT:     soac.segmap
// CHECK:         func.return
func.func @left_alone(%x: tensor<?x?xf32>, %short: tensor<?x4xf32>) -> (tensor<?x?xf32>, tensor<?x4xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %w = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %g = soac.segmap group (%n) -> tensor<?x?xf32> lambda(%i: index) {
    %r = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
    %row = soac.segmap thread (%w) -> tensor<?xf32> lambda(%j: index) {
      %v = soac.index %r[%j] : tensor<?xf32> -> f32
      %d = arith.addf %v, %v : f32
      soac.yield %d : f32
    }
    soac.yield %row : tensor<?xf32>
  }
  %s4 = soac.segmap thread (%n) -> tensor<?x4xf32> lambda(%i: index) {
    %r = soac.index %short[%i] : tensor<?x4xf32> -> tensor<4xf32>
    %row = soac.map %c4 (%r : tensor<4xf32>) -> tensor<4xf32> lambda(%v: f32) {
      %d = arith.addf %v, %v : f32
      soac.yield %d : f32
    }
    soac.yield %row : tensor<4xf32>
  }
  %e = soac.segmap thread (%n, %w) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
    %v = soac.index %x[%i, %j] : tensor<?x?xf32> -> f32
    %d = arith.addf %v, %v : f32
    soac.yield %d : f32
  }
  %sc = soac.segmap thread (%n) -> tensor<?x?xf32> lambda(%i: index) {
    %r = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
    %c = soac.scan %w (%r : tensor<?xf32>) neutral(%zero : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
      %sum = arith.addf %a, %b : f32
      soac.yield %sum : f32
    }
    %row = soac.map %w (%c : tensor<?xf32>) -> tensor<?xf32> lambda(%v: f32) {
      %d = arith.addf %v, %v : f32
      soac.yield %d : f32
    }
    soac.yield %row : tensor<?xf32>
  }
  func.return %g, %s4, %e, %sc : tensor<?x?xf32>, tensor<?x4xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A kernel that only writes its rows: the second kernel is all that is left (the first has nothing to yield).
// CHECK-LABEL: func.func @only_rows
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %n = tensor.dim %x, %c0 : tensor<?x?xf32>
// CHECK-NEXT:    %w = tensor.dim %x, %c1 : tensor<?x?xf32>
// CHECK-NEXT:    %y = soac.segmap thread (%n, %w) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
// CHECK-NEXT:      %r = soac.index %x[%i, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %d = arith.addf %r, %r : f32
// CHECK-NEXT:      soac.yield %d : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y : tensor<?x?xf32>
func.func @only_rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %w = tensor.dim %x, %c1 : tensor<?x?xf32>
  %y = soac.segmap thread (%n) -> tensor<?x?xf32> lambda(%i: index) {
    %r = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
    %row = soac.map %w (%r : tensor<?xf32>) -> tensor<?xf32> lambda(%v: f32) {
      %d = arith.addf %v, %v : f32
      soac.yield %d : f32
    }
    soac.yield %row : tensor<?xf32>
  }
  func.return %y : tensor<?x?xf32>
}
