// RUN: soac-opt %s -p soac-small-intra --split-input-file | filecheck %s
// RUN: soac-opt %s -p 'soac-small-intra,soac-to-kernel{target=generic}' --split-input-file | filecheck %s --check-prefix=KERNEL

// soac-small-intra gives a thread-level nest over many small blocks (a batch of matrix products) a version in
// which a work-group per batch element stages its blocks in local memory ({staged} rows).

// The `.T` form after soac-flatten: rows of a and of the transposed b. The staged version reads elements of the
// blocks, b's through the transpose (b[q][l, j]), checks the widths the rows had (b's size through the transpose),
// and the transpose moves into the version that still reads it.

func.func @transposed(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %q = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %k = tensor.dim %a, %c2 : tensor<?x?x?xf32>
  %m = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %bt = soac.transpose %b [0, 2, 1] : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %c = soac.segmap thread (%q, %n, %m) -> tensor<?x?x?xf32> lambda(%p: index, %i: index, %j: index) {
    %row = soac.index %a[%p, %i] : tensor<?x?x?xf32> -> tensor<?xf32>
    %col = soac.index %bt[%p, %j] : tensor<?x?x?xf32> -> tensor<?xf32>
    %s = soac.redomap commutative %k (%row, %col : tensor<?xf32>, tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%x: f32, %y: f32) {
      %t = arith.addf %x, %y : f32
      soac.yield %t : f32
    } lambda(%u: f32, %v: f32) {
      %w = arith.mulf %u, %v : f32
      soac.yield %w : f32
    }
    soac.yield %s : f32
  }
  func.return %c : tensor<?x?x?xf32>
}

// CHECK-LABEL: func.func @transposed
// CHECK-NOT:     soac.transpose
// CHECK:         %inner_par = arith.muli %n, %m : index
// CHECK-NEXT:    %small_intra = soac.threshold "suff_small_intra_0" %inner_par default 32 device "group"
// CHECK-NEXT:    %staged_capacity = arith.constant 1024 : index
// CHECK:         %fits_local = arith.cmpi ule, %block_elements, %staged_capacity : index
// CHECK:         %fits_local_1 = arith.cmpi ule, %block_elements_1, %staged_capacity : index
// CHECK-NEXT:    %small_intra_ok = arith.andi %{{.*}}, %fits_local_1 : i1
// CHECK-NEXT:    %c = scf.if %small_intra_ok -> (tensor<?x?x?xf32>) {
// CHECK:             %rows = tensor.dim %a, %{{.*}} : tensor<?x?x?xf32>
// CHECK-NEXT:        %same_rows = arith.cmpi eq, %k, %rows : index
// CHECK-NEXT:        %checked = arith.ori %same_rows, %empty : i1
// CHECK-NEXT:        soac.assert %checked, "'soac.redomap': width {0} does not match the outer size {1} of input #0"
// CHECK:             %rows_1 = tensor.dim %b, %{{.*}} : tensor<?x?x?xf32>
// CHECK-NEXT:        %same_rows_1 = arith.cmpi eq, %k, %rows_1 : index
// CHECK:             soac.assert %checked_1, "'soac.redomap': width {0} does not match the outer size {1} of input #1"
// CHECK-NEXT:      %{{.*}} = soac.segmap group (%q) -> tensor<?x?x?xf32> lambda(%p: index) {
// CHECK-NEXT:        %a_block = soac.index %a[%p] {staged} : tensor<?x?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:        %b_block = soac.index %b[%p] {staged} : tensor<?x?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:        %[[INNER:.*]] = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
// CHECK-NEXT:          %ks = soac.iota %k : tensor<?xi64>
// CHECK-NEXT:          %s = soac.redomap commutative %k (%ks : tensor<?xi64>)
// CHECK:             } lambda(%l: i64) {
// CHECK-NEXT:          %[[L:.*]] = arith.index_cast %l : i64 to index
// CHECK-NEXT:          %{{.*}} = soac.index %a_block[%i, %[[L]]] : tensor<?x?xf32> -> f32
// CHECK-NEXT:          %{{.*}} = soac.index %b_block[%[[L]], %j] : tensor<?x?xf32> -> f32
// CHECK:           soac.yield %[[INNER]] : tensor<?x?xf32>
// CHECK:         } else {
// CHECK-NEXT:      %bt = soac.transpose %b [0, 2, 1]
// CHECK-NEXT:      %{{.*}} = soac.segmap thread (%q, %n, %m)
// CHECK:           soac.index %bt[

// KERNEL-LABEL: kernel.func @transposed_segmap_group
// KERNEL-DAG:     %a_block_local = kernel.local_alloc 1024 : !kernel.buffer<local, f32>
// KERNEL-DAG:     %b_block_local = kernel.local_alloc 1024 : !kernel.buffer<local, f32>
// KERNEL:         kernel.store %{{.*}}, %a_block_local[%{{.*}}]
// KERNEL:         kernel.store %{{.*}}, %b_block_local[%{{.*}}]
// KERNEL:         kernel.barrier local
// KERNEL:         kernel.load %a_block_local[
// KERNEL:         kernel.load %b_block_local[

// -----

// The index-written form, c[q,i,j] = Σ_k a[q,i,k]·b[q,k,j], as soac-flatten leaves it (iotas of the indices):
// the same staged nest, the reads of iotas by one index as the index, in both versions: the iotas are gone.

func.func @indexed(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %qs = soac.iota %q : tensor<?xi64>
  %ns = soac.iota %n : tensor<?xi64>
  %zero = arith.constant 0.000000e+00 : f32
  %c = soac.segmap thread (%q, %n, %n) -> tensor<?x?x?xf32> lambda(%i: index, %j: index, %k: index) {
    %jj = soac.index %ns[%k] : tensor<?xi64> -> i64
    %jx = arith.index_cast %jj : i64 to index
    %pp = soac.index %qs[%i] : tensor<?xi64> -> i64
    %px = arith.index_cast %pp : i64 to index
    %ii = soac.index %ns[%j] : tensor<?xi64> -> i64
    %ix = arith.index_cast %ii : i64 to index
    %s = soac.redomap commutative %n (%ns : tensor<?xi64>) neutral(%zero : f32) -> f32 combine(%x: f32, %y: f32) {
      %t = arith.addf %x, %y : f32
      soac.yield %t : f32
    } lambda(%l: i64) {
      %lx = arith.index_cast %l : i64 to index
      %u = soac.index %a[%px, %ix, %lx] : tensor<?x?x?xf32> -> f32
      %v = soac.index %b[%px, %lx, %jx] : tensor<?x?x?xf32> -> f32
      %w = arith.mulf %u, %v : f32
      soac.yield %w : f32
    }
    soac.yield %s : f32
  }
  func.return %c : tensor<?x?x?xf32>
}

// CHECK-LABEL: func.func @indexed
// CHECK-NOT:     soac.iota
// CHECK:         %small_intra = soac.threshold "suff_small_intra_0" %inner_par default 32 device "group"
// CHECK:         scf.if %small_intra_ok -> (tensor<?x?x?xf32>) {
// CHECK-NEXT:      soac.segmap group (%q) -> tensor<?x?x?xf32> lambda(%i: index) {
// CHECK-NEXT:        %a_block = soac.index %a[%i] {staged} : tensor<?x?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:        %b_block = soac.index %b[%i] {staged} : tensor<?x?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:        soac.segmap thread (%n, %n) -> tensor<?x?xf32> lambda(%j: index, %k: index) {
// CHECK-NOT:           soac.index %qs
// CHECK:               %[[NS:.*]] = soac.iota %n : tensor<?xi64>
// CHECK-NEXT:          soac.redomap commutative %n (%[[NS]] : tensor<?xi64>)
// CHECK:               soac.index %a_block[
// CHECK:               soac.index %b_block[
// CHECK:         } else {
// CHECK-NEXT:      soac.segmap thread (%q, %n, %n) -> tensor<?x?x?xf32> lambda(%i_1: index, %j_1: index, %k_1: index) {
// CHECK-NEXT:        %{{.*}} = arith.index_cast %k_1 : index to i64
// CHECK-NOT:         soac.index %qs
// CHECK:             %[[NS2:.*]] = soac.iota %n : tensor<?xi64>
// CHECK-NEXT:        soac.redomap commutative %n (%[[NS2]] : tensor<?xi64>)
// CHECK:           func.return

// -----

// Two dimensions (no batch of 2-D blocks), or no reduction (nothing read twice): left as they are.

func.func @not_small(%a: tensor<?x?xf32>, %xs: tensor<?x?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %r = soac.segmap thread (%n, %n) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
    %row = soac.index %a[%i] : tensor<?x?xf32> -> tensor<?xf32>
    %s = soac.redomap %m (%row : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%x: f32, %y: f32) {
      %t = arith.addf %x, %y : f32
      soac.yield %t : f32
    } lambda(%u: f32) {
      soac.yield %u : f32
    }
    soac.yield %s : f32
  }
  %d = soac.segmap thread (%n, %n, %n) -> tensor<?x?x?xf32> lambda(%i: index, %j: index, %k: index) {
    %x = soac.index %xs[%i, %j, %k] : tensor<?x?x?xf32> -> f32
    %y = arith.addf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %r, %d : tensor<?x?xf32>, tensor<?x?x?xf32>
}

// CHECK-LABEL: func.func @not_small
// CHECK-NOT:     soac.threshold
// CHECK-NOT:     soac.segmap group
