// RUN: soac-opt %s -p 'soac-coalesce{read-through=false}' --split-input-file | filecheck %s
// RUN: soac-opt %s -p 'soac-coalesce{read-through=false row-block=128 row-reg=2 row-chunk=32}' --split-input-file | filecheck %s --check-prefix=SIZES
// RUN: soac-opt %s -p 'soac-coalesce{read-through=false row-tiles=false}' --split-input-file | filecheck %s --check-prefix=OFF

// The outer-parallel version of a row softmax. The rows rule moves the rows it writes into a segmap over (%n, %w);
// the row-tiles rule makes each of the two walks along %x[%i] a staged tiled op over the rows (`%x[d0, k]`: the
// work-group copies tiles of 64 rows x 64 elements into local memory, coalesced), the second reading the first's
// result by d0; the kernel keeps the scalar code, reading the walks' results. No transposed copy is made.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:     soac.transpose
// CHECK-NOT:     soac.assert
// CHECK:         %m_all = soac.tiled_redomap (%n) reduce %w tile "rows_0" block [64] reg [1] chunk 64 reads(%x[d0, k] : tensor<?x?xf32>) neutral(%ninf : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %mx = arith.maximumf %a, %b : f32
// CHECK-NEXT:      soac.yield %mx : f32
// CHECK-NEXT:    } lambda(%r: f32) {
// CHECK-NEXT:      soac.yield %r : f32
// CHECK-NEXT:    } attributes {staged_rows}
// CHECK-NEXT:    %s_all = soac.tiled_redomap (%n) reduce %w tile "rows_1" block [64] reg [1] chunk 64 reads(%x[d0, k], %m_all[d0] : tensor<?x?xf32>, tensor<?xf32>) neutral(%zero : f32) -> tensor<?xf32> combine
// CHECK:         } lambda(%r_1: f32, %m: f32) {
// CHECK-NEXT:      %d = arith.subf %r_1, %m : f32
// CHECK-NEXT:      %t = math.exp %d : f32
// CHECK-NEXT:      soac.yield %t : f32
// CHECK-NEXT:    } attributes {staged_rows}
// CHECK-NEXT:    %lse, %s_of, %m_of = soac.segmap thread (%n) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) lambda(%i: index) {
// CHECK-NEXT:      %m_1 = soac.index %m_all[%i] : tensor<?xf32> -> f32
// CHECK-NEXT:      %s = soac.index %s_all[%i] : tensor<?xf32> -> f32
// CHECK-NEXT:      %ls = math.log %s : f32
// CHECK-NEXT:      %lg = arith.addf %m_1, %ls : f32
// CHECK-NEXT:      soac.yield %lg, %s, %m_1 : f32, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %y = soac.segmap thread (%n, %w) -> tensor<?x?xf32> lambda(%i_1: index, %j: index) {
// CHECK-NOT:     soac.transpose
// CHECK:         func.return %y, %lse
// The pass's sizes.
// SIZES-LABEL: func.func @softmax
// SIZES:         soac.tiled_redomap (%n) reduce %w tile "rows_0" block [128] reg [2] chunk 32 reads(%x[d0, k] : tensor<?x?xf32>)
// SIZES:         soac.tiled_redomap (%n) reduce %w tile "rows_1" block [128] reg [2] chunk 32 reads(%x[d0, k], %m_all[d0] : tensor<?x?xf32>, tensor<?xf32>)
// Without the rule, the walks read the transposed copy (`coalesce_manifest.py`).
// OFF-LABEL:   func.func @softmax
// OFF-NOT:       soac.tiled_redomap
// OFF:           %x_t = soac.transpose %x [1, 0]
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

// A walk over a row and a whole vector (matvec without soac-tile): the vector is read by k alone, its length checked
// before the tiled op as the redomap checked it (the row's is %w by construction). The kernel, left reading the
// tiled op's results alone, is dropped: its results are the tiled op's.
// CHECK-LABEL: func.func @matvec
// CHECK:         %[[LEN:.*]] = tensor.dim %v, %{{.*}} : tensor<?xf32>
// CHECK-NEXT:    %[[SAME:.*]] = arith.cmpi eq, %[[LEN]], %w : index
// CHECK-NEXT:    soac.assert %[[SAME]], "'soac.redomap': width {0} does not match the outer size {1} of input #1" (%w, %[[LEN]] : index, index)
// CHECK-NEXT:    %s_all = soac.tiled_redomap (%n) reduce %w tile "rows_0" block [64] reg [1] chunk 64 reads(%a[d0, k], %v[k] : tensor<?x?xf32>, tensor<?xf32>)
// CHECK:         } attributes {staged_rows}
// CHECK-NEXT:    func.return %s_all : tensor<?xf32>
// OFF-LABEL:   func.func @matvec
// OFF:           %a_t = soac.transpose %a [1, 0]
func.func @matvec(%a: tensor<?x?xf32>, %v: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %w = tensor.dim %a, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %y = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
    %r = soac.index %a[%i] : tensor<?x?xf32> -> tensor<?xf32>
    %s = soac.redomap %w (%r, %v : tensor<?xf32>, tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%p: f32, %q: f32) {
      %sum = arith.addf %p, %q : f32
      soac.yield %sum : f32
    } lambda(%x: f32, %u: f32) {
      %t = arith.mulf %x, %u : f32
      soac.yield %t : f32
    }
    soac.yield %s : f32
  }
  func.return %y : tensor<?xf32>
}

// -----

// A row that is not the work-item's own (`%x[%last - %i]`) is left as it is (neither rule takes it).
// CHECK-LABEL: func.func @reversed
// CHECK-NOT:     soac.tiled_redomap
// CHECK:         %r = soac.index %x[%j] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NEXT:    %s = soac.reduce %w (%r : tensor<?xf32>)
func.func @reversed(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %w = tensor.dim %x, %c1 : tensor<?x?xf32>
  %last = arith.subi %n, %c1 : index
  %zero = arith.constant 0.0 : f32
  %y = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
    %j = arith.subi %last, %i : index
    %r = soac.index %x[%j] : tensor<?x?xf32> -> tensor<?xf32>
    %s = soac.reduce %w (%r : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%p: f32, %q: f32) {
      %sum = arith.addf %p, %q : f32
      soac.yield %sum : f32
    }
    soac.yield %s : f32
  }
  func.return %y : tensor<?xf32>
}

// -----

// Rows known to be short (4 elements: neighbours' rows share cache lines) are read as they are, as the manifest rule
// leaves them.
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT:     soac.tiled_redomap
// CHECK:         %r = soac.index %x[%i] : tensor<?x4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %s = soac.reduce %w (%r : tensor<4xf32>)
func.func @short_rows(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %w = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %y = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
    %r = soac.index %x[%i] : tensor<?x4xf32> -> tensor<4xf32>
    %s = soac.reduce %w (%r : tensor<4xf32>) neutral(%zero : f32) -> f32 combine(%p: f32, %q: f32) {
      %sum = arith.addf %p, %q : f32
      soac.yield %sum : f32
    }
    soac.yield %s : f32
  }
  func.return %y : tensor<?xf32>
}
