// RUN: soac-opt %s -p soac-hist-rows --split-input-file | filecheck %s

// Sums of points by cluster (Futhark's reduce_by_index with map2 (+)): the lambda passes the bins and the rows
// through, so the hist of elements reads the flattened points and the bins array itself; element j of a row of
// bin c goes to c*d + j, a bin outside [0, k) to k*d (dropped). The points' rows must be as long as the bins'
// (where there are points: the operator's map checks that where it combines two rows).
// CHECK-LABEL: func.func @sums
// CHECK:         %zeros = soac.replicate %d, %z : f32 -> tensor<?xf32>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %bins = tensor.dim %dest, %[[C0]] : tensor<?x?xf32>
// CHECK-NEXT:    %elements = arith.muli %n, %d : index
// CHECK-NEXT:    %bin_elements = arith.muli %bins, %d : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %no_rows = arith.cmpi eq, %n, %[[ZERO]] : index
// CHECK-NEXT:    %row_length = tensor.dim %ps, %[[ONE]] : tensor<?x?xf32>
// CHECK-NEXT:    %same_length = arith.cmpi eq, %row_length, %d : index
// CHECK-NEXT:    %checked = arith.ori %same_length, %no_rows : i1
// CHECK-NEXT:    soac.assert %checked, "'soac.hist': the values have rows of {0} elements, but the operator combines rows of {1}" (%row_length, %d : index, index)
// CHECK-NEXT:    %dest_flat = soac.reshape %dest (%bin_elements) : tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NEXT:    %ps_flat = soac.reshape %ps (%elements) : tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NEXT:    %[[E:.*]] = soac.iota %elements : tensor<?xindex>
// CHECK-NEXT:    %divisor = arith.maxsi %d, %[[ONE]] : index
// CHECK-NEXT:    %h_flat = soac.hist %elements (%[[E]], %ps_flat : tensor<?xindex>, tensor<?xf32>) into(%dest_flat : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%x: f32, %y: f32) {
// CHECK-NEXT:      %t = arith.addf %x, %y : f32
// CHECK-NEXT:      soac.yield %t : f32
// CHECK-NEXT:    } lambda(%e: index, %v: f32) {
// CHECK-NEXT:      %i = arith.divsi %e, %divisor : index
// CHECK-NEXT:      %j = arith.remsi %e, %divisor : index
// CHECK-NEXT:      %[[C:.*]] = soac.index %cs[%i] : tensor<?xindex> -> index
// CHECK-NEXT:      %inside = arith.cmpi ult, %[[C]], %bins : index
// CHECK-NEXT:      %[[CD:.*]] = arith.muli %[[C]], %d : index
// CHECK-NEXT:      %at = arith.addi %[[CD]], %j : index
// CHECK-NEXT:      %bin = arith.select %inside, %at, %bin_elements : index
// CHECK-NEXT:      soac.yield %bin, %v : index, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %h = soac.reshape %h_flat (%bins, %d) : tensor<?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:    func.return %h : tensor<?x?xf32>
func.func @sums(%cs: tensor<?xindex>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %cs, %c0 : tensor<?xindex>
  %d = tensor.dim %dest, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %zeros = soac.replicate %d, %z : f32 -> tensor<?xf32>
  %h = soac.hist %n (%cs, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%zeros : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %b: tensor<?xf32>) {
    %s = soac.map %d (%a, %b : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
      %t = arith.addf %x, %y : f32
      soac.yield %t : f32
    }
    soac.yield %s : tensor<?xf32>
  } lambda(%c: index, %p: tensor<?xf32>) {
    soac.yield %c, %p : index, tensor<?xf32>
  }
  func.return %h : tensor<?x?xf32>
}

// -----

// The lambda computes its bin (an i32) and its row: a map of the lambda computes them once per row, and the hist of
// elements reads the map's results (the i32 bin cast to an index).
// CHECK-LABEL: func.func @computed
// CHECK:         %bins_1, %qs = soac.map %n (%cs, %ps : tensor<?xi32>, tensor<?x?xi32>) -> (tensor<?xi32>, tensor<?x?xi32>) lambda(%c: i32, %p: tensor<?xi32>) {
// CHECK-NEXT:      %b = arith.subi %c, %one : i32
// CHECK-NEXT:      %q = soac.map %d (%p : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
// CHECK:           soac.yield %b, %q : i32, tensor<?xi32>
// CHECK-NEXT:    }
// CHECK:         %qs_flat = soac.reshape %qs (%elements) : tensor<?x?xi32> -> tensor<?xi32>
// CHECK:         soac.hist %elements ({{.*}}, %qs_flat : tensor<?xindex>, tensor<?xi32>) into(%dest_flat : tensor<?xi32>) neutral(%lowest : i32)
// CHECK:           %{{.*}} = arith.maxsi
// CHECK:         } lambda(%e: index, %v: i32) {
// CHECK:           %[[C:.*]] = soac.index %bins_1[%i] : tensor<?xi32> -> i32
// CHECK-NEXT:      %[[CI:.*]] = arith.index_cast %[[C]] : i32 to index
// CHECK-NEXT:      %inside = arith.cmpi ult, %[[CI]], %bins : index
func.func @computed(%cs: tensor<?xi32>, %ps: tensor<?x?xi32>, %dest: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %cs, %c0 : tensor<?xi32>
  %d = tensor.dim %dest, %c1 : tensor<?x?xi32>
  %lowest = arith.constant -2147483648 : i32
  %one = arith.constant 1 : i32
  %ne = soac.replicate %d, %lowest : i32 -> tensor<?xi32>
  %h = soac.hist %n (%cs, %ps : tensor<?xi32>, tensor<?x?xi32>) into(%dest : tensor<?x?xi32>) neutral(%ne : tensor<?xi32>) -> tensor<?x?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    %s = soac.map %d (%b, %a : tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32> lambda(%y: i32, %x: i32) {
      %t = arith.maxsi %x, %y : i32
      soac.yield %t : i32
    }
    soac.yield %s : tensor<?xi32>
  } lambda(%c: i32, %p: tensor<?xi32>) {
    %b = arith.subi %c, %one : i32
    %q = soac.map %d (%p : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.muli %x, %x : i32
      soac.yield %y : i32
    }
    soac.yield %b, %q : i32, tensor<?xi32>
  }
  func.return %h : tensor<?x?xi32>
}

// -----

// A hist in a map's lambda is rewritten in place, its number of bins read from the array the map takes rows of
// (a size the nest does not vary, so that soac-flatten makes a seghist of it).
// CHECK-LABEL: func.func @in_map
// CHECK:         soac.map %b (%css, %pss, %dests : {{.*}}) -> tensor<?x?x?xf32> lambda(%cs: tensor<?xindex>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>) {
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %bins = tensor.dim %dests, %[[C1]] : tensor<?x?x?xf32>
// CHECK:           soac.hist %elements
// CHECK:           %h = soac.reshape %h_flat (%bins, %d) : tensor<?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:      soac.yield %h : tensor<?x?xf32>
func.func @in_map(%css: tensor<?x?xindex>, %pss: tensor<?x?x?xf32>, %dests: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %css, %c0 : tensor<?x?xindex>
  %n = tensor.dim %css, %c1 : tensor<?x?xindex>
  %d = tensor.dim %dests, %c2 : tensor<?x?x?xf32>
  %z = arith.constant 0.0 : f32
  %zeros = soac.replicate %d, %z : f32 -> tensor<?xf32>
  %r = soac.map %b (%css, %pss, %dests : tensor<?x?xindex>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32> lambda(%cs: tensor<?xindex>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>) {
    %h = soac.hist %n (%cs, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%zeros : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %bb: tensor<?xf32>) {
      %s = soac.map %d (%a, %bb : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
        %t = arith.addf %x, %y : f32
        soac.yield %t : f32
      }
      soac.yield %s : tensor<?xf32>
    } lambda(%c: index, %p: tensor<?xf32>) {
      soac.yield %c, %p : index, tensor<?xf32>
    }
    soac.yield %h : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?x?xf32>
}

// -----

// An operator that is not one element-wise map (here it adds the first element of a row to every element) and a
// neutral row that is not a replicate stay hists of rows (soac-to-kernel then says why it cannot lower them).
// CHECK-LABEL: func.func @not_element_wise
// CHECK-NOT:     soac.reshape
// CHECK:         soac.hist %n (%cs, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>)
// CHECK-LABEL: func.func @neutral_row
// CHECK-NOT:     soac.reshape
// CHECK:         soac.hist %n (%cs, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%ne : tensor<?xf32>)
func.func @not_element_wise(%cs: tensor<?xindex>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %cs, %c0 : tensor<?xindex>
  %d = tensor.dim %dest, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %zeros = soac.replicate %d, %z : f32 -> tensor<?xf32>
  %h = soac.hist %n (%cs, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%zeros : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %b: tensor<?xf32>) {
    %first = soac.index %b[%c0] : tensor<?xf32> -> f32
    %s = soac.map %d (%a : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %t = arith.addf %x, %first : f32
      soac.yield %t : f32
    }
    soac.yield %s : tensor<?xf32>
  } lambda(%c: index, %p: tensor<?xf32>) {
    soac.yield %c, %p : index, tensor<?xf32>
  }
  func.return %h : tensor<?x?xf32>
}

func.func @neutral_row(%cs: tensor<?xindex>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>, %ne: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %cs, %c0 : tensor<?xindex>
  %d = tensor.dim %dest, %c1 : tensor<?x?xf32>
  %h = soac.hist %n (%cs, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%ne : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %b: tensor<?xf32>) {
    %s = soac.map %d (%a, %b : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
      %t = arith.addf %x, %y : f32
      soac.yield %t : f32
    }
    soac.yield %s : tensor<?xf32>
  } lambda(%c: index, %p: tensor<?xf32>) {
    soac.yield %c, %p : index, tensor<?xf32>
  }
  func.return %h : tensor<?x?xf32>
}
