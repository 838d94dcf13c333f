// RUN: soac-opt %s -p 'soac-coalesce{read-through=false rows=false row-tiles=false}' --split-input-file | filecheck %s
// RUN: soac-opt %s -p 'soac-coalesce{rows=false row-tiles=false}' --split-input-file | filecheck %s
// RUN: soac-opt %s -p 'soac-coalesce{manifest=false}' --split-input-file | filecheck %s --check-prefix=OFF

// The outer-parallel version of a row softmax: work-item %i walks along row %i (a reduce and a redomap read it).
// A transposed copy is made before the kernel, and each reader gets a map over the row's indices reading
// %x_t[%l, %i]: neighbouring work-items read neighbouring elements. Both rules together (the second RUN) give the
// same IR: the read-through rules leave the copy's reads (the work-item's index last) alone.
// CHECK-LABEL: func.func @rows
// CHECK:         scf.if %big
// CHECK-NEXT:      %x_t = soac.transpose %x [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:      soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
// CHECK:             %len = tensor.dim %x, %{{.*}} : tensor<?x?xf32>
// CHECK-NEXT:        %[[LS:.*]] = soac.iota %len : tensor<?xindex>
// CHECK-NEXT:        %row = soac.map %len (%[[LS]] : tensor<?xindex>) -> tensor<?xf32> lambda(%l: index) {
// CHECK-NEXT:          %[[E:.*]] = soac.index %x_t[%l, %i] : tensor<?x?xf32> -> f32
// CHECK-NEXT:          soac.yield %[[E]] : f32
// CHECK:             soac.reduce %w (%row : tensor<?xf32>)
// CHECK:             %row_1 = soac.map %{{.*}} lambda(%l_1: index) {
// CHECK-NEXT:          soac.index %x_t[%l_1, %i] : tensor<?x?xf32> -> f32
// CHECK:             soac.redomap %w (%row_1 : tensor<?xf32>)
// CHECK:             soac.index %x_t[%c3, %i] : tensor<?x?xf32> -> f32
// The intra-group version reads the row with the whole work-group: coalesced already, no copy.
// CHECK:         } else {
// CHECK-NOT:       soac.transpose
// CHECK:           soac.segmap group (%n)
// CHECK-NEXT:        soac.index %x[%g] : tensor<?x?xf32> -> tensor<?xf32>
// OFF-LABEL:   func.func @rows
// OFF-NOT:       soac.transpose
func.func @rows(%x: tensor<?x?xf32>, %big: i1) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %w = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %r = scf.if %big -> (tensor<?xf32>) {
    %y = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: index) {
      %row = soac.index %x[%i] : tensor<?x?xf32> -> tensor<?xf32>
      %m = soac.reduce %w (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
        %mx = arith.maximumf %a, %b : f32
        soac.yield %mx : f32
      }
      %s = soac.redomap %w (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
        %sum = arith.addf %a, %b : f32
        soac.yield %sum : f32
      } lambda(%v: f32) {
        %d = arith.subf %v, %m : f32
        %e = math.exp %d : f32
        soac.yield %e : f32
      }
      %third = soac.index %row[%c3] : tensor<?xf32> -> f32
      %t = arith.addf %s, %third : f32
      soac.yield %t : f32
    }
    scf.yield %y : tensor<?xf32>
  } else {
    %y = soac.segmap group (%n) -> tensor<?xf32> lambda(%g: index) {
      %row = soac.index %x[%g] : tensor<?x?xf32> -> tensor<?xf32>
      %s = soac.segred thread (%w) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
        %sum = arith.addf %a, %b : f32
        soac.yield %sum : f32
      } lambda(%j: index) {
        %v = soac.index %row[%j] : tensor<?xf32> -> f32
        soac.yield %v : f32
      }
      soac.yield %s : f32
    }
    scf.yield %y : tensor<?xf32>
  }
  func.return %r : tensor<?xf32>
}

// -----

// Element reads in a sequential loop of the work-item: %a[%k, %j] (%k the segmap's last index, %j the loop's)
// reads the copy at [%j, %k]. %b[%j, %k] has the work-item's index last (coalesced already) and %a[%k, %c0] reads
// one element per work-item (no loop walks it): neither gets a copy. %a's copy is made once for both kernels.
// CHECK-LABEL: func.func @loop
// CHECK:         %a_t = soac.transpose %a [1, 0]
// CHECK-NOT:     soac.transpose
// CHECK:         soac.segmap thread (%q, %n)
// CHECK:           scf.for %j =
// CHECK-NEXT:        soac.index %a_t[%j, %k] : tensor<?x?xi32> -> i32
// CHECK-NEXT:        soac.index %b[%j, %k] : tensor<?x?xi32> -> i32
// CHECK:           soac.index %a[%k, %c0] : tensor<?x?xi32> -> i32
// CHECK:         soac.segmap thread (%n)
// CHECK:           scf.for %j2 =
// CHECK-NEXT:        soac.index %a_t[%j2, %k2] : tensor<?x?xi32> -> i32
// OFF-LABEL:   func.func @loop
// OFF-NOT:       soac.transpose
func.func @loop(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>, %q: index) -> (tensor<?x?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %w = tensor.dim %a, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %y = soac.segmap thread (%q, %n) -> tensor<?x?xi32> lambda(%p: index, %k: index) {
    %s = scf.for %j = %c0 to %w step %c1 iter_args(%acc = %zero) -> (i32) {
      %u = soac.index %a[%k, %j] : tensor<?x?xi32> -> i32
      %v = soac.index %b[%j, %k] : tensor<?x?xi32> -> i32
      %uv = arith.muli %u, %v : i32
      %next = arith.addi %acc, %uv : i32
      scf.yield %next : i32
    }
    %first = soac.index %a[%k, %c0] : tensor<?x?xi32> -> i32
    %t = arith.addi %s, %first : i32
    soac.yield %t : i32
  }
  %z = soac.segmap thread (%n) -> tensor<?xi32> lambda(%k2: index) {
    %s = scf.for %j2 = %c0 to %w step %c1 iter_args(%acc = %zero) -> (i32) {
      %u = soac.index %a[%k2, %j2] : tensor<?x?xi32> -> i32
      %next = arith.addi %acc, %u : i32
      scf.yield %next : i32
    }
    soac.yield %s : i32
  }
  func.return %y, %z : tensor<?x?xi32>, tensor<?xi32>
}

// -----

// Not worth a copy: a small array (sizes in its type), and rows of 4 elements (neighbours share cache lines).
// CHECK-LABEL: func.func @small
// CHECK-NOT:     soac.transpose
// CHECK:         func.return
// OFF-LABEL:   func.func @small
func.func @small(%x: tensor<64x64xf64>, %y: tensor<?x4xf64>) -> (tensor<64xf64>, tensor<?xf64>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %n = tensor.dim %y, %c0 : tensor<?x4xf64>
  %zero = arith.constant 0.0 : f64
  %r = soac.segmap thread (%c64) -> tensor<64xf64> lambda(%i: index) {
    %row = soac.index %x[%i] : tensor<64x64xf64> -> tensor<64xf64>
    %s = soac.reduce %c64 (%row : tensor<64xf64>) neutral(%zero : f64) -> f64 combine(%a: f64, %b: f64) {
      %sum = arith.addf %a, %b : f64
      soac.yield %sum : f64
    }
    soac.yield %s : f64
  }
  %t = soac.segmap thread (%n) -> tensor<?xf64> lambda(%i: index) {
    %row = soac.index %y[%i] : tensor<?x4xf64> -> tensor<4xf64>
    %s = soac.reduce %c4 (%row : tensor<4xf64>) neutral(%zero : f64) -> f64 combine(%a: f64, %b: f64) {
      %sum = arith.addf %a, %b : f64
      soac.yield %sum : f64
    }
    soac.yield %s : f64
  }
  func.return %r, %t : tensor<64xf64>, tensor<?xf64>
}

// -----

// Lambda indices: the element of an iota that a nested redomap takes walks the same sequence in every work-item
// (%a gets a copy); an index from the work-item's own row of %perm does not (%b keeps its reads; %perm's row, which
// the work-item walks, gets a copy of its own).
// CHECK-LABEL: func.func @lambdas
// CHECK-DAG:     %a_t = soac.transpose %a [1, 0]
// CHECK-DAG:     %perm_t = soac.transpose %perm [1, 0]
// CHECK-NOT:     %b_t
// CHECK:         soac.index %a_t[%l, %k] : tensor<?x?xi32> -> i32
// CHECK:         soac.index %perm_t[%{{.*}}, %k] : tensor<?x?xindex> -> index
// CHECK:         soac.index %b[%k, %p] : tensor<?x?xi32> -> i32
// OFF-LABEL:   func.func @lambdas
// OFF-NOT:       soac.transpose
func.func @lambdas(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>, %perm: tensor<?x?xindex>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %w = tensor.dim %a, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %y = soac.segmap thread (%n) -> tensor<?xi32> lambda(%k: index) {
    %ls = soac.iota %w : tensor<?xindex>
    %s = soac.redomap %w (%ls : tensor<?xindex>) neutral(%zero : i32) -> i32 combine(%x: i32, %z: i32) {
      %sum = arith.addi %x, %z : i32
      soac.yield %sum : i32
    } lambda(%l: index) {
      %u = soac.index %a[%k, %l] : tensor<?x?xi32> -> i32
      soac.yield %u : i32
    }
    %idx = soac.index %perm[%k] : tensor<?x?xindex> -> tensor<?xindex>
    %t = soac.redomap %w (%idx : tensor<?xindex>) neutral(%s : i32) -> i32 combine(%x: i32, %z: i32) {
      %sum = arith.addi %x, %z : i32
      soac.yield %sum : i32
    } lambda(%p: index) {
      %v = soac.index %b[%k, %p] : tensor<?x?xi32> -> i32
      soac.yield %v : i32
    }
    soac.yield %t : i32
  }
  func.return %y : tensor<?xi32>
}

// -----

// A row that a loop of the work-item reads again at each step: the map that reads the copy goes inside the loop,
// before its reader (computed where it is read, never stored).
// CHECK-LABEL: func.func @in_loop
// CHECK:         %x_t = soac.transpose %x [1, 0]
// CHECK:         scf.for
// CHECK:           %row = soac.map %{{.*}} lambda(%l: index) {
// CHECK-NEXT:        soac.index %x_t[%l, %i] : tensor<?x?xf64> -> f64
// CHECK:           soac.reduce %w (%row : tensor<?xf64>)
func.func @in_loop(%x: tensor<?x?xf64>, %steps: index) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf64>
  %w = tensor.dim %x, %c1 : tensor<?x?xf64>
  %zero = arith.constant 0.0 : f64
  %y = soac.segmap thread (%n) -> tensor<?xf64> lambda(%i: index) {
    %row = soac.index %x[%i] : tensor<?x?xf64> -> tensor<?xf64>
    %r = scf.for %k = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (f64) {
      %s = soac.reduce %w (%row : tensor<?xf64>) neutral(%acc : f64) -> f64 combine(%a: f64, %b: f64) {
        %sum = arith.addf %a, %b : f64
        soac.yield %sum : f64
      }
      scf.yield %s : f64
    }
    soac.yield %r : f64
  }
  func.return %y : tensor<?xf64>
}

// -----

// A kernel in a host loop: the copy of %a, which the loop does not change, is made once before the loop; the copy of
// %v, which it carries, at every step.
// CHECK-LABEL: func.func @host_loop
// CHECK:         %a_t = soac.transpose %a [1, 0]
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      %v_t = soac.transpose %v [1, 0]
// CHECK-NEXT:      soac.segmap thread (%n)
// CHECK:             soac.index %a_t[%l, %i] : tensor<?x?xf32> -> f32
// CHECK:             soac.index %v_t[%l_1, %i] : tensor<?x?xf32> -> f32
func.func @host_loop(%a: tensor<?x?xf32>, %v0: tensor<?x?xf32>, %steps: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %w = tensor.dim %a, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %steps step %c1 iter_args(%v = %v0) -> (tensor<?x?xf32>) {
    %y = soac.segmap thread (%n) -> tensor<?x?xf32> lambda(%i: index) {
      %row = soac.index %a[%i] : tensor<?x?xf32> -> tensor<?xf32>
      %s = soac.reduce %w (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%x: f32, %z: f32) {
        %sum = arith.addf %x, %z : f32
        soac.yield %sum : f32
      }
      %vrow = soac.index %v[%i] : tensor<?x?xf32> -> tensor<?xf32>
      %out = soac.map %w (%vrow : tensor<?xf32>) -> tensor<?xf32> lambda(%e: f32) {
        %t = arith.addf %e, %s : f32
        soac.yield %t : f32
      }
      soac.yield %out : tensor<?xf32>
    }
    scf.yield %y : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?xf32>
}
