// RUN: soac-opt %s -p 'soac-flatten{mode=full}' --split-input-file | filecheck %s
// RUN: soac-opt %s -p soac-flatten --split-input-file | filecheck %s --check-prefix=INCREMENTAL
// RUN: soac-opt %s -p 'soac-flatten{mode=moderate}' --split-input-file | filecheck %s --check-prefix=MODERATE

// A partition in every row of a map: partitions of the flat array by (row, bucket). The rows are known at run time
// only, so `scf.if` chooses: up to 42 rows of 6 classes (5 buckets and the rows outside them) fit one partition of
// 256 buckets, by class `s * 6 + b'`; more take a partition by bucket that moves the row id `s` along, then one by
// each 8-bit digit of `s` (a host loop; each given its counts, known from m and n without reading the rows), and
// count the classes with a histogram.
func.func @rows(%xss: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %k = arith.constant 7 : i32
  %cs, %ys = soac.map %m (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) lambda(%xs: tensor<?xi32>) {
    %counts, %zs = soac.partition %n buckets 5 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
      %d = arith.remsi %x, %k : i32
      %b = arith.index_cast %d : i32 to index
      soac.yield %b, %x : index, i32
    }
    soac.yield %counts, %zs : tensor<?xi32>, tensor<?xi32>
  }
  func.return %cs, %ys : tensor<?x?xi32>, tensor<?x?xi32>
}

// CHECK-LABEL: func.func @rows
// CHECK-NOT:     soac.map
// CHECK:         %flat_rows = arith.muli %m, %n : index
// CHECK-NEXT:    %flat_xss = soac.reshape %xss (%flat_rows) : tensor<?x?xi32> -> tensor<?xi32>
// CHECK-NEXT:    %pos = soac.iota %flat_rows : tensor<?xindex>
// CHECK-NEXT:    %c1_1 = arith.constant 1 : index
// CHECK-NEXT:    %row_width = arith.maxui %n, %c1_1 : index
// CHECK-NEXT:    %c42 = arith.constant 42 : index
// CHECK-NEXT:    %fits_flat = arith.cmpi ule, %m, %c42 : index
// CHECK:         %cs, %ys = scf.if %fits_flat -> (tensor<?x?xi32>, tensor<?x?xi32>) {
// CHECK-NEXT:      %class_counts, %[[FLAT:.*]] = soac.partition %flat_rows buckets 256 (%pos, %flat_xss : tensor<?xindex>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%p: index, %x: i32) {
// CHECK-NEXT:        %s = arith.divui %p, %row_width : index
// CHECK-NEXT:        %d = arith.remsi %x, %k : i32
// CHECK-NEXT:        %b = arith.index_cast %d : i32 to index
// CHECK:             %bucket = arith.select %{{.*}}, %b, %{{.*}} : index
// CHECK-NEXT:        %[[SIX:.*]] = arith.constant 6 : index
// CHECK-NEXT:        %[[BASE:.*]] = arith.muli %s, %[[SIX]] : index
// CHECK-NEXT:        %class = arith.addi %[[BASE]], %bucket : index
// CHECK-NEXT:        soac.yield %class, %x : index, i32
// CHECK-NEXT:      }
// CHECK-NEXT:      %counts = soac.segmap thread (%m, %c5) -> tensor<?x?xi32> lambda(%[[I:.*]]: index, %[[J:.*]]: index) {
// CHECK-NEXT:        %[[SIX2:.*]] = arith.constant 6 : index
// CHECK-NEXT:        %[[ROW:.*]] = arith.muli %[[I]], %[[SIX2]] : index
// CHECK-NEXT:        %[[AT:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK-NEXT:        %count = soac.index %class_counts[%[[AT]]] : tensor<?xi32> -> i32
// CHECK:           %zs = soac.reshape %[[FLAT]] (%m, %n) : tensor<?xi32> -> tensor<?x?xi32>
// CHECK-NEXT:      scf.yield %counts, %zs : tensor<?x?xi32>, tensor<?x?xi32>
// CHECK-NEXT:    } else {
// CHECK:           %{{.*}}, %[[BY_BUCKET:.*]], %seg = soac.partition %flat_rows buckets 5 (%pos, %flat_xss : tensor<?xindex>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xindex>)
// CHECK:             soac.yield %b_1, %x_1, %s_1 : index, i32, index
// CHECK:           %[[LAST:.*]], %{{.*}} = scf.for %shift = %c0{{.*}} to %digit_bits_7 step %c8 iter_args(%[[Z:.*]] = %[[BY_BUCKET]], %[[T:.*]] = %seg)
// CHECK-NEXT:        %digit_counts = soac.segmap thread (%c256) -> tensor<?xi32> lambda(%v: index) {
// CHECK:               %blocks = arith.shrui %m, %shift : index
// CHECK:               %ids = arith.addi
// CHECK:               soac.yield %{{.*}} : i32
// CHECK-NEXT:        }
// CHECK-NEXT:        %{{.*}}, %[[Z1:.*]], %seg_1 = soac.partition %flat_rows buckets 256 counts(%digit_counts : tensor<?xi32>) (%[[Z]], %[[T]] : tensor<?xi32>, tensor<?xindex>)
// CHECK-SAME:            lambda(%{{.*}}: i32, %[[U:.*]]: index) {
// CHECK-NEXT:          %[[SHIFTED:.*]] = arith.shrui %[[U]], %shift : index
// CHECK:               %digit = arith.andi %[[SHIFTED]], %{{.*}} : index
// CHECK:             scf.yield %[[Z1]], %seg_1 : tensor<?xi32>, tensor<?xindex>
// CHECK:           %classes = arith.muli %m, %c6 : index
// CHECK:           %zeros = soac.replicate %classes, %zero : i32 -> tensor<?xi32>
// CHECK-NEXT:      %class_counts_1 = soac.hist %flat_rows (%pos, %flat_xss : tensor<?xindex>, tensor<?xi32>) into(%zeros : tensor<?xi32>)
// CHECK:             soac.yield %class_1, %one : index, i32
// CHECK:           %counts_1 = soac.segmap thread (%m, %c5)
// CHECK:           %zs_1 = soac.reshape %[[LAST]] (%m, %n) : tensor<?xi32> -> tensor<?x?xi32>

// Incremental flattening keeps a partition per thread (a counting sort of each row) for many rows, as the outer-
// parallel version of the map; moderate flattening only that.
// INCREMENTAL-LABEL: func.func @rows
// INCREMENTAL:         %outer_suff = soac.threshold "suff_outer_par_0" %m default 32768 device "resident"
// INCREMENTAL-NEXT:    %cs, %ys = scf.if %outer_suff -> (tensor<?x?xi32>, tensor<?x?xi32>) {
// INCREMENTAL-NEXT:      soac.segmap thread (%m)
// INCREMENTAL-NEXT:        %xs = soac.index %xss[%i] : tensor<?x?xi32> -> tensor<?xi32>
// INCREMENTAL-NEXT:        soac.partition %n buckets 5 (%xs : tensor<?xi32>)
// INCREMENTAL:         } else {
// INCREMENTAL:           %fits_flat = arith.cmpi ule, %m, %c42 : index
// INCREMENTAL:           scf.if %fits_flat

// MODERATE-LABEL: func.func @rows
// MODERATE:         soac.segmap thread (%m)
// MODERATE:           soac.partition %n buckets 5 (%xs : tensor<?xi32>)

// -----

// Four rows (a constant): one partition of 4 * 6 = 24 buckets, nothing to choose at run time.
func.func @four_rows(%xss: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %c1 = arith.constant 1 : index
  %m = arith.constant 4 : index
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %k = arith.constant 7 : i32
  %cs, %ys = soac.map %m (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) lambda(%xs: tensor<?xi32>) {
    %counts, %zs = soac.partition %n buckets 5 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
      %d = arith.remsi %x, %k : i32
      %b = arith.index_cast %d : i32 to index
      soac.yield %b, %x : index, i32
    }
    soac.yield %counts, %zs : tensor<?xi32>, tensor<?xi32>
  }
  func.return %cs, %ys : tensor<?x?xi32>, tensor<?x?xi32>
}

// CHECK-LABEL: func.func @four_rows
// CHECK-NOT:     scf.if
// CHECK:         soac.partition %flat_rows buckets 24 (%pos, %flat_xss : tensor<?xindex>, tensor<?xi32>)
// CHECK-NOT:     soac.partition
// CHECK:         func.return

// -----

// 300 rows of 2 classes (a filter's one bucket and the rest): a partition by bucket, then one by each of the two
// 8-bit digits of the row id (shifts 0 and 8), unrolled.
func.func @many_rows(%xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c1 = arith.constant 1 : index
  %m = arith.constant 300 : index
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %ys = soac.map %m (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>) {
    %counts, %zs = soac.partition %n buckets 1 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
      %neg = arith.cmpi slt, %x, %zero : i32
      %b = arith.extui %neg : i1 to i32
      soac.yield %b, %x : i32, i32
    }
    soac.yield %zs : tensor<?xi32>
  }
  func.return %ys : tensor<?x?xi32>
}

// CHECK-LABEL: func.func @many_rows
// CHECK-NOT:     scf.
// CHECK:         soac.partition %flat_rows buckets 1 (%pos, %flat_xss : tensor<?xindex>, tensor<?xi32>)
// CHECK:         soac.partition %flat_rows buckets 256
// CHECK:           arith.shrui %{{.*}}, %c0{{.*}} : index
// CHECK:         soac.partition %flat_rows buckets 256
// CHECK:           arith.shrui %{{.*}}, %c8 : index
// CHECK-NOT:     soac.hist
// CHECK-NOT:     soac.partition
// CHECK:         func.return

// -----

// A bucket function that reads a value of its row (the pivot) reads it at the row id `s`.
func.func @pivots(%xss: tensor<?x?xi32>, %pivots: tensor<?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %ys = soac.map %m (%xss, %pivots : tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>, %pivot: i32) {
    %counts, %zs = soac.partition %n buckets 2 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
      %above = arith.cmpi sgt, %x, %pivot : i32
      %b = arith.extui %above : i1 to i32
      soac.yield %b, %x : i32, i32
    }
    soac.yield %zs : tensor<?xi32>
  }
  func.return %ys : tensor<?x?xi32>
}

// CHECK-LABEL: func.func @pivots
// CHECK:         soac.partition %flat_rows buckets 256 (%pos, %flat_xss : tensor<?xindex>, tensor<?xi32>)
// CHECK-NEXT:      %s = arith.divui %p, %row_width : index
// CHECK-NEXT:      %pivot = soac.index %pivots[%s] : tensor<?xi32> -> i32
// CHECK-NEXT:      %above = arith.cmpi sgt, %x, %pivot : i32
