// RUN: soac-opt %s -p soac-fuse | filecheck %s

// map->hist fusion: the map that computes a histogram's bins or values moves into its lambda (Futhark's Hist
// takes a lambda), unless the map's results are used elsewhere or the map reads the bins the histogram updates.

// CHECK-LABEL: func.func @bins_and_weights
// CHECK-NOT:     soac.map
// CHECK:         %h = soac.hist %n (%xs : tensor<?xf32>) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK:         } lambda(%x: f32) {
// CHECK-NEXT:      %i = arith.fptosi %x : f32 to i32
// CHECK-NEXT:      %j = arith.index_cast %i : i32 to index
// CHECK-NEXT:      %w = arith.muli %i, %i : i32
// CHECK-NEXT:      soac.yield %j, %w : index, i32
func.func @bins_and_weights(%xs: tensor<?xf32>, %bins: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %is, %ws = soac.map %n (%xs : tensor<?xf32>) -> (tensor<?xindex>, tensor<?xi32>) lambda(%x: f32) {
    %i = arith.fptosi %x : f32 to i32
    %j = arith.index_cast %i : i32 to index
    %w = arith.muli %i, %i : i32
    soac.yield %j, %w : index, i32
  }
  %z = arith.constant 0 : i32
  %h = soac.hist %n (%is, %ws : tensor<?xindex>, tensor<?xi32>) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%k: index, %v: i32) {
    soac.yield %k, %v : index, i32
  }
  func.return %h : tensor<?xi32>
}

// The bins are returned too: no fusion (a hist has no map-out arrays to keep them in).
// CHECK-LABEL: func.func @bins_used_elsewhere
// CHECK:         %is = soac.map
// CHECK:         %h = soac.hist %n (%is : tensor<?xindex>)
func.func @bins_used_elsewhere(%xs: tensor<?xf32>, %bins: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xindex>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %is = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xindex> lambda(%x: f32) {
    %i = arith.fptosi %x : f32 to i32
    %j = arith.index_cast %i : i32 to index
    soac.yield %j : index
  }
  %z = arith.constant 0 : i32
  %h = soac.hist %n (%is : tensor<?xindex>) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%k: index) {
    %one = arith.constant 1 : i32
    soac.yield %k, %one : index, i32
  }
  func.return %h, %is : tensor<?xi32>, tensor<?xindex>
}

// The map reads the bins that the histogram consumes: moving the read into the hist would read updated bins.
// CHECK-LABEL: func.func @map_reads_the_bins
// CHECK:         %ws = soac.map
// CHECK:         %h = soac.hist %n (%is, %ws : tensor<?xindex>, tensor<?xi32>)
func.func @map_reads_the_bins(%is: tensor<?xindex>, %bins: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xindex>
  %ws = soac.map %n (%is : tensor<?xindex>) -> tensor<?xi32> lambda(%i: index) {
    %zero = arith.constant 0 : index
    %b = soac.index %bins[%zero] : tensor<?xi32> -> i32
    soac.yield %b : i32
  }
  %z = arith.constant 0 : i32
  %h = soac.hist %n (%is, %ws : tensor<?xindex>, tensor<?xi32>) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%k: index, %v: i32) {
    soac.yield %k, %v : index, i32
  }
  func.return %h : tensor<?xi32>
}

// A histogram's bins are consumed: a map reading them afterwards must not move before it (and does not fuse).
// CHECK-LABEL: func.func @read_after_hist
// CHECK:         %h = soac.hist
// CHECK:         %after = soac.map
func.func @read_after_hist(%is: tensor<?xindex>, %bins: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xindex>
  %z = arith.constant 0 : i32
  %h = soac.hist %n (%is : tensor<?xindex>) into(%bins : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%k: index) {
    %one = arith.constant 1 : i32
    soac.yield %k, %one : index, i32
  }
  %after = soac.map %n (%h : tensor<?xi32>) -> tensor<?xi32> lambda(%c: i32) {
    %d = arith.addi %c, %c : i32
    soac.yield %d : i32
  }
  func.return %h, %after : tensor<?xi32>, tensor<?xi32>
}
