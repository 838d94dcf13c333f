// RUN: soac-opt %s --verify-diagnostics --split-input-file | filecheck %s

// One chunk per verifier rule of the soac dialect. Each error names the op and the mismatch,
// and is reported at the failing op's line in this file.

// map: lambda arity
func.func @map_arity(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
    soac.yield %x : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK:      {{.*}}invalid.mlir:8:3
// CHECK-NEXT:   %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
// CHECK-NEXT:   ^^
// CHECK-NEXT:   error: 'soac.map' lambda takes 2 parameters but 1 is expected (the input rows: (f32))

// -----

// map: lambda parameter type
func.func @map_param_type(%n: index, %xs: tensor<?xf32>) -> tensor<?xi32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xi32> lambda(%x: i32) {
    soac.yield %x : i32
  }
  func.return %r : tensor<?xi32>
}

// CHECK: error: 'soac.map' lambda parameter #0 has type i32, expected f32 from the input rows

// -----

// map: row parameter of a 2-D input
func.func @map_row_type(%n: index, %xss: tensor<?x4xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xss : tensor<?x4xf32>) -> tensor<?xf32> lambda(%row: tensor<5xf32>) {
    %z = arith.constant 0.0 : f32
    soac.yield %z : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.map' lambda parameter #0 has type tensor<5xf32>, expected tensor<4xf32> from the input rows

// -----

// map: result types against what the lambda yields
func.func @map_result_type(%n: index, %xs: tensor<?xf32>) -> tensor<?xi32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xi32> lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %r : tensor<?xi32>
}

// CHECK: error: 'soac.map' has result types (tensor<?xi32>), expected (tensor<?xf32>) from its lambdas

// -----

// map: number of results against what the lambda yields
func.func @map_result_count(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.yield %x, %x : f32, f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.map' has result types (tensor<?xf32>), expected (tensor<?xf32>, tensor<?xf32>) from its lambdas

// -----

// map: an input that is no array
func.func @map_input_not_array(%n: index, %x0: tensor<f32>) -> tensor<?xf32> {
  %r = soac.map %n (%x0 : tensor<f32>) -> tensor<?xf32> lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.map' input #0 has type tensor<f32>, which is not an array

// -----

// map: a lambda without soac.yield
func.func @map_no_yield(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    "test.termop"(%x) : (f32) -> ()
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.map' terminates with operation test.termop instead of soac.yield

// -----

// soac.yield outside a SOAC
func.func @yield_outside(%x: f32) -> f32 {
  soac.yield %x : f32
}

// CHECK: error: 'soac.yield' expects parent op to be a SOAC with lambdas, not 'func.func'

// -----

// reduce: no neutral element
func.func @reduce_no_neutral(%n: index, %xs: tensor<?xf32>) {
  soac.reduce %n (%xs : tensor<?xf32>) neutral() -> () combine() {
    soac.yield
  }
  func.return
}

// CHECK: error: 'soac.reduce' needs at least one neutral element

// -----

// reduce: combine operator arity
func.func @reduce_combine_arity(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.reduce %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32) {
    soac.yield %a : f32
  }
  func.return %s : f32
}

// CHECK: error: 'soac.reduce' combine operator takes 1 parameter but 2 are expected (the neutral elements (twice): (f32, f32))

// -----

// reduce: combine operator parameter types
func.func @reduce_combine_param_type(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.reduce %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f64) {
    soac.yield %a : f32
  }
  func.return %s : f32
}

// CHECK: error: 'soac.reduce' combine operator parameter #1 has type f64, expected f32 from the neutral elements (twice)

// -----

// reduce: combine operator yield types
func.func @reduce_combine_yield(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.reduce %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %p = arith.cmpf olt, %a, %b : f32
    soac.yield %p : i1
  }
  func.return %s : f32
}

// CHECK: error: 'soac.reduce' combine operator yields (i1), expected (f32) from the neutral elements

// -----

// reduce: neutral elements against the input rows
func.func @reduce_neutral_vs_input(%n: index, %xs: tensor<?xi32>, %z: f32) -> f32 {
  %s = soac.reduce %n (%xs : tensor<?xi32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : f32
}

// CHECK: error: 'soac.reduce' input elements (i32) do not match the neutral elements (f32)

// -----

// reduce: as many inputs as neutral elements
func.func @reduce_input_count(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.reduce %n (%xs, %ys : tensor<?xf32>, tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : f32
}

// CHECK: error: 'soac.reduce' input elements (f32, f32) do not match the neutral elements (f32)

// -----

// reduce: result types
func.func @reduce_result(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.reduce %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.reduce' has result types (tensor<?xf32>), expected (f32) from its lambdas

// -----

// scan: results are arrays of the neutral element types
func.func @scan_result(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.scan %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : f32
}

// CHECK: error: 'soac.scan' has result types (f32), expected (tensor<?xf32>) from its lambdas

// -----

// scan: neutral elements against the input rows
func.func @scan_neutral_vs_input(%n: index, %xs: tensor<?x?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scan %n (%xs : tensor<?x?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scan' input elements (tensor<?xf32>) do not match the neutral elements (f32)

// -----

// redomap: lambda parameter types
func.func @redomap_param(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f64) {
    %y = arith.truncf %x : f64 to f32
    soac.yield %y : f32
  }
  func.return %s : f32
}

// CHECK: error: 'soac.redomap' lambda parameter #0 has type f64, expected f32 from the input rows

// -----

// redomap: the lambda must yield the reduced values first
func.func @redomap_prefix(%n: index, %xs: tensor<?xf32>, %z: f32) -> (f32, tensor<?xi1>) {
  %s, %m = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (f32, tensor<?xi1>) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    %p = arith.cmpf ogt, %x, %z : f32
    soac.yield %p, %x : i1, f32
  }
  func.return %s, %m : f32, tensor<?xi1>
}

// CHECK: error: 'soac.redomap' lambda yields (i1, f32) but must start with the neutral element types (f32)

// -----

// redomap: the lambda yields fewer values than there are neutral elements
func.func @redomap_too_few(%n: index, %xs: tensor<?xf32>, %z: f32) -> (f32, f32) {
  %s, %t = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z, %z : f32, f32) -> (f32, f32) combine(%a: f32, %a2: f32, %b: f32, %b2: f32) {
    soac.yield %a, %b : f32, f32
  } lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %s, %t : f32, f32
}

// CHECK: error: 'soac.redomap' lambda yields (f32) but must start with the neutral element types (f32, f32)

// -----

// redomap: map-out results are arrays
func.func @redomap_map_out_result(%n: index, %xs: tensor<?xf32>, %z: f32) -> (f32, f32) {
  %s, %m = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (f32, f32) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x, %x : f32, f32
  }
  func.return %s, %m : f32, f32
}

// CHECK: error: 'soac.redomap' has result types (f32, f32), expected (f32, tensor<?xf32>) from its lambdas

// -----

// redomap: the combine operator is checked too
func.func @redomap_combine(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32, %c: f32) {
    soac.yield %a : f32
  } lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %s : f32
}

// CHECK: error: 'soac.redomap' combine operator takes 3 parameters but 2 are expected (the neutral elements (twice): (f32, f32))

// -----

// scanomap: lambda arity
func.func @scanomap_arity(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda() {
    soac.yield %z : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' lambda takes 0 parameters but 1 is expected (the input rows: (f32))

// -----

// scanomap: the lambda must yield the scanned values first
func.func @scanomap_prefix(%n: index, %is: tensor<?xi32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap %n (%is : tensor<?xi32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i: i32) {
    soac.yield %i : i32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' lambda yields (i32) but must start with the neutral element types (f32)

// -----

// scanomap: post lambda arity (scanned values, then input rows)
func.func @scanomap_post_arity(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x : f32
  } post(%s0: f32) {
    soac.yield %s0 : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' post lambda takes 1 parameter but 2 are expected (the scanned values and input rows: (f32, f32))

// -----

// scanomap: post lambda parameter types
func.func @scanomap_post_type(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x : f32
  } post(%s0: f32, %x: i32) {
    soac.yield %s0 : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' post lambda parameter #1 has type i32, expected f32 from the scanned values and input rows

// -----

// scanomap: results follow the post lambda
func.func @scanomap_post_result(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x : f32
  } post(%s0: f32, %x: f32) {
    %p = arith.cmpf olt, %s0, %x : f32
    soac.yield %p : i1
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' has result types (tensor<?xf32>), expected (tensor<?xi1>) from its lambdas

// -----

// scanomap: without post, results are the scanned arrays and the map-outs
func.func @scanomap_result(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x, %x : f32, f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' has result types (tensor<?xf32>), expected (tensor<?xf32>, tensor<?xf32>) from its lambdas

// -----

// scatter: an index and a value per destination
func.func @scatter_yield_count(%n: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %d: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%d : tensor<?xf32>) -> tensor<?xf32> lambda(%i: index, %v: f32) {
    soac.yield %v : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.scatter' lambda yields 1 value, expected 2: an index and a value for each of its 1 destinations

// -----

// scatter: indices are integers
func.func @scatter_index_type(%n: index, %vs: tensor<?xf32>, %d: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.scatter %n (%vs : tensor<?xf32>) into(%d : tensor<?xf32>) -> tensor<?xf32> lambda(%v: f32) {
    soac.yield %v, %v : f32, f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.scatter' lambda must yield integer indices first, got (f32)

// -----

// scatter: a boolean is no index
func.func @scatter_bool_index(%n: index, %bs: tensor<?xi1>, %vs: tensor<?xf32>, %d: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.scatter %n (%bs, %vs : tensor<?xi1>, tensor<?xf32>) into(%d : tensor<?xf32>) -> tensor<?xf32> lambda(%b: i1, %v: f32) {
    soac.yield %b, %v : i1, f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.scatter' lambda must yield integer indices first, got (i1)

// -----

// scatter: values have the destination's element type
func.func @scatter_value_type(%n: index, %is: tensor<?xindex>, %d: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.scatter %n (%is : tensor<?xindex>) into(%d : tensor<?xf32>) -> tensor<?xf32> lambda(%i: index) {
    soac.yield %i, %i : index, index
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.scatter' lambda yields values (index) but the destinations hold (f32)

// -----

// scatter: lambda parameters are the input rows
func.func @scatter_param(%n: index, %is: tensor<?xindex>, %d: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.scatter %n (%is : tensor<?xindex>) into(%d : tensor<?xf32>) -> tensor<?xf32> lambda(%i: i64) {
    %v = arith.constant 1.0 : f32
    soac.yield %i, %v : i64, f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.scatter' lambda parameter #0 has type i64, expected index from the input rows

// -----

// scatter: results have the destinations' types
func.func @scatter_result(%n: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %d: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%d : tensor<?xf32>) -> tensor<?x?xf32> lambda(%i: index, %v: f32) {
    soac.yield %i, %v : index, f32
  }
  func.return %r : tensor<?x?xf32>
}

// CHECK: error: 'soac.scatter' has result types (tensor<?x?xf32>), expected (tensor<?xf32>) from its destinations

// -----

// scatter: a destination is no array
func.func @scatter_dest_not_array(%n: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %d: tensor<f32>) -> tensor<f32> {
  %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%d : tensor<f32>) -> tensor<f32> lambda(%i: index, %v: f32) {
    soac.yield %i, %v : index, f32
  }
  func.return %r : tensor<f32>
}

// CHECK: error: 'soac.scatter' destination #0 has type tensor<f32>, which is not an array

// -----

// scatter: consumes its destinations, which may not be used afterwards
func.func @scatter_dest_used_after(%n: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %d: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%d : tensor<?xf32>) -> tensor<?xf32> lambda(%i: index, %v: f32) {
    soac.yield %i, %v : index, f32
  }
  func.return %r, %d : tensor<?xf32>, tensor<?xf32>
}

// CHECK: error: 'soac.scatter' consumes %d, but 'func.return' uses it afterwards

// -----

// segmap: at least one dimension
func.func @segmap_no_dims(%x: f32) -> tensor<f32> {
  %r = soac.segmap thread () -> tensor<f32> lambda() {
    soac.yield %x : f32
  }
  func.return %r : tensor<f32>
}

// CHECK: error: 'soac.segmap' needs at least one dimension

// -----

// segmap: the lambda takes one index per dimension
func.func @segmap_param_type(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.segmap thread (%n) -> tensor<?xf32> lambda(%i: i32) {
    %z = arith.constant 0.0 : f32
    soac.yield %z : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.segmap' lambda parameter #0 has type i32, expected index from the index space

// -----

// segmap: lambda arity
func.func @segmap_arity(%n: index, %m: index, %xss: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = soac.segmap group (%n, %m) -> tensor<?x?xf32> lambda(%i: index) {
    %x = soac.index %xss[%i, %i] : tensor<?x?xf32> -> f32
    soac.yield %x : f32
  }
  func.return %r : tensor<?x?xf32>
}

// CHECK: error: 'soac.segmap' lambda takes 1 parameter but 2 are expected (the index space: (index, index))

// -----

// segmap: results have the rank of the index space
func.func @segmap_result_rank(%n: index, %m: index, %xss: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = soac.segmap thread (%n, %m) -> tensor<?xf32> lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
    soac.yield %x : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.segmap' has result types (tensor<?xf32>), expected (tensor<?x?xf32>) from its lambdas

// -----

// segred: at least one dimension
func.func @segred_no_dims(%z: f32) -> tensor<f32> {
  %r = soac.segred group () neutral(%z : f32) -> tensor<f32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda() {
    soac.yield %z : f32
  }
  func.return %r : tensor<f32>
}

// CHECK: error: 'soac.segred' needs at least one dimension

// -----

// segred: index parameters
func.func @segred_param(%n: index, %m: index, %z: f32) -> tensor<?xf32> {
  %r = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i: index, %j: f32) {
    soac.yield %j : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.segred' lambda parameter #1 has type f32, expected index from the index space

// -----

// segred: the lambda yields the reduced values first
func.func @segred_prefix(%n: index, %m: index, %z: f32) -> tensor<?xf32> {
  %r = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i: index, %j: index) {
    soac.yield %i : index
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.segred' lambda yields (index) but must start with the neutral element types (f32)

// -----

// segred: reduces the innermost dimension
func.func @segred_result(%n: index, %m: index, %z: f32) -> tensor<?x?xf32> {
  %r = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?x?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i: index, %j: index) {
    soac.yield %z : f32
  }
  func.return %r : tensor<?x?xf32>
}

// CHECK: error: 'soac.segred' has result types (tensor<?x?xf32>), expected (tensor<?xf32>) from its lambdas

// -----

// segred: the combine operator
func.func @segred_combine(%n: index, %m: index, %z: f32) -> tensor<?xf32> {
  %r = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %p = arith.cmpf olt, %a, %b : f32
    soac.yield %p : i1
  } lambda(%i: index, %j: index) {
    soac.yield %z : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.segred' combine operator yields (i1), expected (f32) from the neutral elements

// -----

// segscan: keeps the innermost dimension, and map-outs have the full shape
func.func @segscan_result(%n: index, %m: index, %z: f32) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %r, %mo = soac.segscan group (%n, %m) neutral(%z : f32) -> (tensor<?x?xf32>, tensor<?xf32>) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i: index, %j: index) {
    soac.yield %z, %z : f32, f32
  }
  func.return %r, %mo : tensor<?x?xf32>, tensor<?xf32>
}

// CHECK: error: 'soac.segscan' has result types (tensor<?x?xf32>, tensor<?xf32>), expected (tensor<?x?xf32>, tensor<?x?xf32>) from its lambdas

// -----

// segscan: at least one dimension
func.func @segscan_no_dims(%z: f32) -> tensor<f32> {
  %r = soac.segscan thread () neutral(%z : f32) -> tensor<f32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda() {
    soac.yield %z : f32
  }
  func.return %r : tensor<f32>
}

// CHECK: error: 'soac.segscan' needs at least one dimension

// -----

// iota: a one-dimensional array of integers
func.func @iota_float(%n: index) -> tensor<?xf32> {
  %r = soac.iota %n : tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.iota' must give a one-dimensional array of integers, not tensor<?xf32>

// -----

// iota: booleans are not integers here
func.func @iota_bool(%n: index) -> tensor<?xi1> {
  %r = soac.iota %n : tensor<?xi1>
  func.return %r : tensor<?xi1>
}

// CHECK: error: 'soac.iota' must give a one-dimensional array of integers, not tensor<?xi1>

// -----

// iota: one dimension
func.func @iota_rank(%n: index) -> tensor<?x?xi32> {
  %r = soac.iota %n : tensor<?x?xi32>
  func.return %r : tensor<?x?xi32>
}

// CHECK: error: 'soac.iota' must give a one-dimensional array of integers, not tensor<?x?xi32>

// -----

// replicate: an array of the value's type
func.func @replicate_type(%n: index, %z: f32) -> tensor<?xf64> {
  %r = soac.replicate %n, %z : f32 -> tensor<?xf64>
  func.return %r : tensor<?xf64>
}

// CHECK: error: 'soac.replicate' has result types (tensor<?xf64>), expected (tensor<?xf32>) from its operands

// -----

// replicate: replicating an array adds a dimension
func.func @replicate_rank(%n: index, %row: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.replicate %n, %row : tensor<?xf32> -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.replicate' has result types (tensor<?xf32>), expected (tensor<?x?xf32>) from its operands

// -----

// transpose: a permutation of the dimensions
func.func @transpose_perm(%m: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %t = soac.transpose %m [0, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  func.return %t : tensor<?x?xf32>
}

// CHECK: error: 'soac.transpose' permutation [0, 0] is not a permutation of 2 dimensions

// -----

// transpose: as many dimensions as the array has
func.func @transpose_perm_rank(%m: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %t = soac.transpose %m [1, 0, 2] : tensor<?x?xf32> -> tensor<?x?xf32>
  func.return %t : tensor<?x?xf32>
}

// CHECK: error: 'soac.transpose' permutation [1, 0, 2] is not a permutation of 2 dimensions

// -----

// transpose: the result shape follows the permutation
func.func @transpose_shape(%m: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %t = soac.transpose %m [1, 0] : tensor<3x4xf32> -> tensor<3x4xf32>
  func.return %t : tensor<3x4xf32>
}

// CHECK: error: 'soac.transpose' has result types (tensor<3x4xf32>), expected (tensor<4x3xf32>) from its operands

// -----

// index: too many indices
func.func @index_count(%xs: tensor<?xf32>, %i: index) -> f32 {
  %x = soac.index %xs[%i, %i] : tensor<?xf32> -> f32
  func.return %x : f32
}

// CHECK: error: 'soac.index' has 2 indices for an array of type tensor<?xf32>

// -----

// index: at least one index
func.func @index_none(%xs: tensor<?xf32>) -> f32 {
  %x = soac.index %xs[] : tensor<?xf32> -> f32
  func.return %x : f32
}

// CHECK: error: 'soac.index' has 0 indices for an array of type tensor<?xf32>

// -----

// index: the result is the element or row indexed
func.func @index_result(%m: tensor<?x?xf32>, %i: index) -> f32 {
  %x = soac.index %m[%i] : tensor<?x?xf32> -> f32
  func.return %x : f32
}

// CHECK: error: 'soac.index' has result types (f32), expected (tensor<?xf32>) from its operands

// -----

// slice: the result has the array's type
func.func @slice_result(%xs: tensor<?xf32>, %i: index, %j: index) -> tensor<?xi32> {
  %s = soac.slice %xs[%i : %j] : tensor<?xf32> -> tensor<?xi32>
  func.return %s : tensor<?xi32>
}

// CHECK: error: 'soac.slice' has result types (tensor<?xi32>), expected (tensor<?xf32>) from its operands

// -----

// slice: of an array
func.func @slice_scalar_tensor(%x: tensor<f32>, %i: index, %j: index) -> tensor<?xf32> {
  %s = soac.slice %x[%i : %j] : tensor<f32> -> tensor<?xf32>
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.slice' needs an array with at least one dimension, not tensor<f32>

// -----

// update: index count
func.func @update_count(%xs: tensor<?xf32>, %i: index, %v: f32) -> tensor<?xf32> {
  %r = soac.update %xs[%i, %i] = %v : tensor<?xf32>, f32
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.update' has 2 indices for an array of type tensor<?xf32>

// -----

// update: at least one index
func.func @update_none(%xs: tensor<?xf32>, %v: f32) -> tensor<?xf32> {
  %r = soac.update %xs[] = %v : tensor<?xf32>, f32
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.update' has 0 indices for an array of type tensor<?xf32>

// -----

// update: the value has the type of an element (or row)
func.func @update_value(%m: tensor<?x?xf32>, %i: index, %v: f32) -> tensor<?x?xf32> {
  %r = soac.update %m[%i] = %v : tensor<?x?xf32>, f32
  func.return %r : tensor<?x?xf32>
}

// CHECK: error: 'soac.update' writes a value of type f32 where the array holds tensor<?xf32>

// -----

// update: consumes its array, which may not be used afterwards
func.func @update_used_after(%xs: tensor<?xf32>, %i: index, %v: f32) -> (tensor<?xf32>, f32) {
  %r = soac.update %xs[%i] = %v : tensor<?xf32>, f32
  %x = soac.index %xs[%i] : tensor<?xf32> -> f32
  func.return %r, %x : tensor<?xf32>, f32
}

// CHECK: error: 'soac.update' consumes %xs, but 'soac.index' uses it afterwards

// -----

// update: a use nested in a later op counts too
func.func @update_used_after_nested(%n: index, %xs: tensor<?xf32>, %i: index, %v: f32) -> (tensor<?xf32>, tensor<?xf32>) {
  %r = soac.update %xs[%i] = %v : tensor<?xf32>, f32
  %ys = soac.map %n (%r : tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32) {
    %x = soac.index %xs[%i] : tensor<?xf32> -> f32
    soac.yield %x : f32
  }
  func.return %r, %ys : tensor<?xf32>, tensor<?xf32>
}

// CHECK: error: 'soac.update' consumes %xs, but 'soac.index' uses it afterwards

// -----

// update: a loop's result may be the array it starts from (no iteration), so it may not be used after the update
func.func @update_loop_init_then_result(%n: index, %k: index, %xs: tensor<?xf32>, %i: index, %v: f32) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %xs) -> (tensor<?xf32>) {
    %ys = soac.map %n (%acc : tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32) {
      soac.yield %y : f32
    }
    scf.yield %ys : tensor<?xf32>
  }
  %r = soac.update %xs[%i] = %v : tensor<?xf32>, f32
  func.return %l, %r : tensor<?xf32>, tensor<?xf32>
}

// CHECK: error: 'soac.update' consumes %xs, but 'func.return' uses %l afterwards, which may be the same array (a loop's or branch's results alias the arrays it starts from or yields)

// -----

// update: and the other way round, the array a loop starts from may be its result
func.func @update_loop_result_then_init(%n: index, %k: index, %xs: tensor<?xf32>, %i: index, %v: f32) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %xs) -> (tensor<?xf32>) {
    %ys = soac.map %n (%acc : tensor<?xf32>) -> tensor<?xf32> lambda(%y: f32) {
      soac.yield %y : f32
    }
    scf.yield %ys : tensor<?xf32>
  }
  %r = soac.update %l[%i] = %v : tensor<?xf32>, f32
  func.return %xs, %r : tensor<?xf32>, tensor<?xf32>
}

// CHECK: error: 'soac.update' consumes %l, but 'func.return' uses %xs afterwards, which may be the same array

// -----

// scatter: a branch's result may be an array it yields from outside
func.func @scatter_into_branch_source(%n: index, %c: i1, %is: tensor<?xindex>, %vs: tensor<?xf32>, %d: tensor<?xf32>, %e: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %b = scf.if %c -> (tensor<?xf32>) {
    scf.yield %d : tensor<?xf32>
  } else {
    scf.yield %e : tensor<?xf32>
  }
  %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%e : tensor<?xf32>) -> tensor<?xf32> lambda(%i: index, %v: f32) {
    soac.yield %i, %v : index, f32
  }
  func.return %b, %r : tensor<?xf32>, tensor<?xf32>
}

// CHECK: error: 'soac.scatter' consumes %e, but 'func.return' uses %b afterwards, which may be the same array

// -----

// update: a lambda may not consume an array from outside itself
func.func @update_in_lambda(%n: index, %xs: tensor<?xf32>, %dest: tensor<?xf32>, %i: index) -> tensor<?x?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?x?xf32> lambda(%x: f32) {
    %u = soac.update %dest[%i] = %x : tensor<?xf32>, f32
    soac.yield %u : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// CHECK:      {{.*}}invalid.mlir:883:5
// CHECK-NEXT:     %u = soac.update %dest[%i] = %x : tensor<?xf32>, f32
// CHECK-NEXT:     ^^
// CHECK-NEXT:     error: 'soac.update' consumes %dest from outside the enclosing 'soac.map' lambda

// -----

// scatter: a lambda may not consume an array from outside itself
func.func @scatter_in_lambda(%n: index, %is: tensor<?xindex>, %dest: tensor<?xf32>, %v: f32) -> tensor<?x?xf32> {
  %r = soac.map %n (%is : tensor<?xindex>) -> tensor<?x?xf32> lambda(%i: index) {
    %s = soac.scatter %n (%is : tensor<?xindex>) into(%dest : tensor<?xf32>) -> tensor<?xf32> lambda(%j: index) {
      soac.yield %j, %v : index, f32
    }
    soac.yield %s : tensor<?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// CHECK: error: 'soac.scatter' consumes %dest from outside the enclosing 'soac.map' lambda

// -----

// a lambda that ends without soac.yield
func.func @map_ends_without_yield(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.map' lambda must end with soac.yield, but it ends with arith.mulf

// -----

// an empty lambda
func.func @map_empty_lambda(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.map' contains empty block instead of at least terminating with soac.yield

// -----

// lambdas have a single block
func.func @scanomap_post_blocks(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x : f32
  } post(%s0: f32, %x: f32) {
    "test.termop"() [^bb1] : () -> ()
  ^bb1:
    soac.yield %s0 : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' does not contain single-block regions

// -----

// the combine operator ends with soac.yield too
func.func @reduce_combine_no_yield(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.reduce %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
  }
  func.return %s : f32
}

// CHECK: error: 'soac.reduce' combine operator must end with soac.yield, but it ends with arith.addf

// -----

// scanomap: the generic form keeps an empty post region when there is no post lambda
"builtin.module"() ({
  "func.func"() <{sym_name = "scanomap", function_type = (index, tensor<?xf32>, f32) -> tensor<?xf32>}> ({
  ^bb0(%n: index, %xs: tensor<?xf32>, %z: f32):
    %s = "soac.scanomap"(%n, %z, %xs) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%a: f32, %b: f32):
      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "soac.yield"(%c) : (f32) -> ()
    }, {
    ^bb0(%x: f32):
      "soac.yield"(%x) : (f32) -> ()
    }) : (index, f32, tensor<?xf32>) -> tensor<?xf32>
    "func.return"(%s) : (tensor<?xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// CHECK: error: Expected 3 or 4 regions, but got 2

// -----

// scanomap with a reduction part: the reduce operator takes the reduce neutral elements twice
func.func @scanomap_reduce_arity(%n: index, %xs: tensor<?xf32>, %z: f32, %one: i32) -> (tensor<?xf32>, i32) {
  %s, %r = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) reduce(%one : i32) -> (tensor<?xf32>, i32) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } reduce_combine(%a: f32, %b: f32) {
    soac.yield %a : f32
  } lambda(%x: f32) {
    %i = arith.fptosi %x : f32 to i32
    soac.yield %x, %i : f32, i32
  }
  func.return %s, %r : tensor<?xf32>, i32
}

// CHECK: error: 'soac.scanomap' reduce_combine operator parameter #0 has type f32, expected i32 from the reduce neutral elements (twice)

// -----

// scanomap with a reduction part: what the reduce operator yields
func.func @scanomap_reduce_yield(%n: index, %xs: tensor<?xf32>, %z: f32, %one: i32) -> (tensor<?xf32>, i32) {
  %s, %r = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) reduce(%one : i32) -> (tensor<?xf32>, i32) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } reduce_combine(%a: i32, %b: i32) {
    soac.yield %a, %b : i32, i32
  } lambda(%x: f32) {
    %i = arith.fptosi %x : f32 to i32
    soac.yield %x, %i : f32, i32
  }
  func.return %s, %r : tensor<?xf32>, i32
}

// CHECK: error: 'soac.scanomap' reduce_combine operator yields (i32, i32), expected (i32) from the reduce neutral elements

// -----

// scanomap with a reduction part: the lambda yields the scanned values, then the reduced values
func.func @scanomap_reduce_lambda(%n: index, %xs: tensor<?xf32>, %z: f32, %one: i32) -> (tensor<?xf32>, i32) {
  %s, %r = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) reduce(%one : i32) -> (tensor<?xf32>, i32) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } reduce_combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %s, %r : tensor<?xf32>, i32
}

// CHECK: error: 'soac.scanomap' lambda yields (f32) but must start with the scan then reduce neutral element types (f32, i32)

// -----

// scanomap with a reduction part: the reduced results are scalars, after the scanned arrays
func.func @scanomap_reduce_results(%n: index, %xs: tensor<?xf32>, %z: f32, %one: i32) -> (tensor<?xf32>, tensor<?xi32>) {
  %s, %r = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) reduce(%one : i32) -> (tensor<?xf32>, tensor<?xi32>) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } reduce_combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: f32) {
    %i = arith.fptosi %x : f32 to i32
    soac.yield %x, %i : f32, i32
  }
  func.return %s, %r : tensor<?xf32>, tensor<?xi32>
}

// CHECK: error: 'soac.scanomap' has result types (tensor<?xf32>, tensor<?xi32>), expected (tensor<?xf32>, i32) from its lambdas

// -----

// scanomap with a reduction part: the post lambda sees the scanned values, the input rows and the forwarded values,
// which come after the reduced values (here none)
func.func @scanomap_reduce_post(%n: index, %xs: tensor<?xf32>, %z: f32, %one: i32) -> (tensor<?xf32>, i32) {
  %s, %r = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) reduce(%one : i32) -> (tensor<?xf32>, i32) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } reduce_combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: f32) {
    %i = arith.fptosi %x : f32 to i32
    soac.yield %x, %i : f32, i32
  } post(%t: f32, %u: i32, %x: f32) {
    soac.yield %t : f32
  }
  func.return %s, %r : tensor<?xf32>, i32
}

// CHECK: error: 'soac.scanomap' post lambda takes 3 parameters: the scanned values and input rows (f32, f32), then 1 forwarded value; but the lambda yields 0 values after its scanned and reduced ones

// -----

// scanomap with a reduction part: at least one reduce neutral element
func.func @scanomap_reduce_empty(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) reduce() -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } reduce_combine() {
    soac.yield
  } lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' needs at least one reduce neutral element

// -----

// scanomap: reduce neutral elements (generic form) but no reduce operator region
"builtin.module"() ({
  "func.func"() <{sym_name = "scanomap", function_type = (index, tensor<?xf32>, f32) -> tensor<?xf32>}> ({
  ^bb0(%n: index, %xs: tensor<?xf32>, %z: f32):
    %s = "soac.scanomap"(%n, %z, %xs, %z) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
    ^bb0(%a: f32, %b: f32):
      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "soac.yield"(%c) : (f32) -> ()
    }, {
    ^bb0(%x: f32):
      "soac.yield"(%x) : (f32) -> ()
    }, {
    }) : (index, f32, tensor<?xf32>, f32) -> tensor<?xf32>
    "func.return"(%s) : (tensor<?xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// CHECK: error: 'soac.scanomap' has a reduction part but no reduce_combine operator


// -----

// tiled_redomap: every read gives one element
func.func @tiled_read_rank(%n: index, %k: index, %a: tensor<?x?xf32>, %z: f32) -> tensor<?xf32> {
  %c = soac.tiled_redomap (%n) reduce %k tile "tile_0" block [64] reg [4] chunk 16 reads(%a[k] : tensor<?x?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%s: f32, %t: f32) {
    %u = arith.addf %s, %t : f32
    soac.yield %u : f32
  } lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %c : tensor<?xf32>
}

// CHECK: error: 'soac.tiled_redomap' read #0 indexes an array of rank 2 with 1 indices: every read must give one element

// -----

// hist: an index, then a value per destination
func.func @hist_yield_count(%n: index, %is: tensor<?xindex>, %d: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
  %r = soac.hist %n (%is : tensor<?xindex>) into(%d : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i : index
  }
  func.return %r : tensor<?xi32>
}

// CHECK: error: 'soac.hist' lambda yields (index), expected an integer index and a value for each of its 1 destination (i32)

// -----

// hist: neutral elements of the destinations' type
func.func @hist_neutral(%n: index, %is: tensor<?xindex>, %d: tensor<?xi32>, %z: f32) -> tensor<?xi32> {
  %r = soac.hist %n (%is : tensor<?xindex>) into(%d : tensor<?xi32>) neutral(%z : f32) -> tensor<?xi32> combine(%a: f32, %b: f32) {
    %s = arith.addf %a, %b : f32
    soac.yield %s : f32
  } lambda(%i: index) {
    %one = arith.constant 1 : i32
    soac.yield %i, %one : index, i32
  }
  func.return %r : tensor<?xi32>
}

// CHECK: error: 'soac.hist' neutral elements (f32) do not match the destinations' (i32)

// -----

// hist: a destination of rows takes rows, not scalars
func.func @hist_2d(%n: index, %is: tensor<?xindex>, %d: tensor<?x?xi32>, %z: i32) -> tensor<?x?xi32> {
  %r = soac.hist %n (%is : tensor<?xindex>) into(%d : tensor<?x?xi32>) neutral(%z : i32) -> tensor<?x?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    %one = arith.constant 1 : i32
    soac.yield %i, %one : index, i32
  }
  func.return %r : tensor<?x?xi32>
}

// CHECK: error: 'soac.hist' neutral elements (i32) do not match the destinations' (tensor<?xi32>)

// -----

// hist: a destination of rows takes values that are rows
func.func @hist_rows_values(%n: index, %is: tensor<?xindex>, %d: tensor<?x?xi32>, %z: tensor<?xi32>) -> tensor<?x?xi32> {
  %r = soac.hist %n (%is : tensor<?xindex>) into(%d : tensor<?x?xi32>) neutral(%z : tensor<?xi32>) -> tensor<?x?xi32> combine(%a: tensor<?xi32>, %b: tensor<?xi32>) {
    soac.yield %a : tensor<?xi32>
  } lambda(%i: index) {
    %one = arith.constant 1 : i32
    soac.yield %i, %one : index, i32
  }
  func.return %r : tensor<?x?xi32>
}

// CHECK: error: 'soac.hist' lambda yields values (i32) but the destinations hold (tensor<?xi32>)

// -----

// hist: destinations are arrays
func.func @hist_rank_0(%n: index, %is: tensor<?xindex>, %d: tensor<i32>, %z: i32) -> tensor<i32> {
  %r = soac.hist %n (%is : tensor<?xindex>) into(%d : tensor<i32>) neutral(%z : i32) -> tensor<i32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    %one = arith.constant 1 : i32
    soac.yield %i, %one : index, i32
  }
  func.return %r : tensor<i32>
}

// CHECK: error: 'soac.hist' destinations must be arrays (of scalars or of rows), got tensor<i32>

// -----

// hist: the operator takes two elements per destination
func.func @hist_combine_arity(%n: index, %is: tensor<?xindex>, %d: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
  %r = soac.hist %n (%is : tensor<?xindex>) into(%d : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32) {
    soac.yield %a : i32
  } lambda(%i: index) {
    %one = arith.constant 1 : i32
    soac.yield %i, %one : index, i32
  }
  func.return %r : tensor<?xi32>
}

// CHECK: error: 'soac.hist' combine operator takes 1 parameter but 2 are expected (the neutral elements (twice): (i32, i32))

// -----

// hist: values of the destinations' type
func.func @hist_value_type(%n: index, %is: tensor<?xindex>, %d: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
  %r = soac.hist %n (%is : tensor<?xindex>) into(%d : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    %one = arith.constant 1.0 : f32
    soac.yield %i, %one : index, f32
  }
  func.return %r : tensor<?xi32>
}

// CHECK: error: 'soac.hist' lambda yields values (f32) but the destinations hold (i32)

// -----

// seghist: destinations with a row of bins per segment
func.func @seghist_rank(%n: index, %m: index, %d: tensor<?xi32>, %z: i32) -> tensor<?xi32> {
  %r = soac.seghist thread (%n, %m) into(%d : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %j: index) {
    soac.yield %j, %z : index, i32
  }
  func.return %r : tensor<?xi32>
}

// CHECK: error: 'soac.seghist' destinations must be 2-D tensors of scalars (a row of bins for each of the 1-D segments), got tensor<?xi32>

// -----

// seghist: a bin, then a value per destination
func.func @seghist_yield_count(%n: index, %m: index, %d: tensor<?x?xi32>, %z: i32) -> tensor<?x?xi32> {
  %r = soac.seghist thread (%n, %m) into(%d : tensor<?x?xi32>) neutral(%z : i32) -> tensor<?x?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %j: index) {
    soac.yield %j : index
  }
  func.return %r : tensor<?x?xi32>
}

// CHECK: error: 'soac.seghist' lambda yields (index), expected an integer bin and a value for each of its 1 destination (i32)

// -----

// seghist: the lambda takes the indices of the index space
func.func @seghist_params(%n: index, %m: index, %d: tensor<?x?xi32>, %z: i32) -> tensor<?x?xi32> {
  %r = soac.seghist thread (%n, %m) into(%d : tensor<?x?xi32>) neutral(%z : i32) -> tensor<?x?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index) {
    soac.yield %i, %z : index, i32
  }
  func.return %r : tensor<?x?xi32>
}

// CHECK: error: 'soac.seghist' lambda takes 1 parameter but 2 are expected (the index space: (index, index))

// -----

// seghist: neutral elements of the destinations' type
func.func @seghist_neutral(%n: index, %m: index, %d: tensor<?x?xi32>, %z: f32) -> tensor<?x?xi32> {
  %r = soac.seghist thread (%n, %m) into(%d : tensor<?x?xi32>) neutral(%z : f32) -> tensor<?x?xi32> combine(%a: f32, %b: f32) {
    %s = arith.addf %a, %b : f32
    soac.yield %s : f32
  } lambda(%i: index, %j: index) {
    %one = arith.constant 1 : i32
    soac.yield %j, %one : index, i32
  }
  func.return %r : tensor<?x?xi32>
}

// CHECK: error: 'soac.seghist' neutral elements (f32) do not match the destinations' (i32)

// -----

// seghist: destinations of one shape
func.func @seghist_shapes(%n: index, %m: index, %d: tensor<?x4xi32>, %e: tensor<?x5xi32>, %z: i32) -> (tensor<?x4xi32>, tensor<?x5xi32>) {
  %r, %t = soac.seghist thread (%n, %m) into(%d, %e : tensor<?x4xi32>, tensor<?x5xi32>) neutral(%z, %z : i32, i32) -> (tensor<?x4xi32>, tensor<?x5xi32>) combine(%a: i32, %b: i32, %c: i32, %e2: i32) {
    %s = arith.addi %a, %c : i32
    %u = arith.addi %b, %e2 : i32
    soac.yield %s, %u : i32, i32
  } lambda(%i: index, %j: index) {
    soac.yield %j, %z, %z : index, i32, i32
  }
  func.return %r, %t : tensor<?x4xi32>, tensor<?x5xi32>
}

// CHECK: error: 'soac.seghist' destinations must have one shape, got (tensor<?x4xi32>, tensor<?x5xi32>)

// -----

// seghist: destinations are consumed
func.func @seghist_consumed(%n: index, %m: index, %d: tensor<?x?xi32>, %z: i32) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %r = soac.seghist thread (%n, %m) into(%d : tensor<?x?xi32>) neutral(%z : i32) -> tensor<?x?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %j: index) {
    soac.yield %j, %z : index, i32
  }
  func.return %r, %d : tensor<?x?xi32>, tensor<?x?xi32>
}

// CHECK: error: 'soac.seghist' consumes %d, but 'func.return' uses it afterwards

// -----

// stencil: the lambda takes each input's neighbours (tests/filecheck/dialect/stencil-invalid.mlir has the others)
func.func @stencil_arity(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.stencil (%n) window [3] mirror (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%a: f32) {
    soac.yield %a : f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.stencil' lambda takes 1 parameter but 3 are expected (3 neighbours of each input: (f32, f32, f32))

// -----

// assert: the message takes the values it has
func.func @assert_message(%n: index, %ok: i1) {
  soac.assert %ok, "width {0} is not {1}" (%n : index)
  func.return
}

// CHECK: error: 'soac.assert' message 'width {0} is not {1}': field '{1}' names value #1, but there is 1 value

// -----

// assert: every value formats (no '{0:c}', which fails for -3; no float formats)
func.func @assert_format(%x: i32, %ok: i1) {
  soac.assert %ok, "bad {0:c}" (%x : i32)
  func.return
}

// CHECK:      {{.*}}invalid.mlir:[[# @LINE - 4]]:3
// CHECK:      error: 'soac.assert' message 'bad {0:c}': field '{0:c}' is not an integer format such as {0:d}, {0:x}, {0:>8} or {0:08b} (widths below 1000)

// -----

// assert: fields name values by number
func.func @assert_field(%x: i32, %ok: i1) {
  soac.assert %ok, "bad {0.real} {}" (%x : i32)
  func.return
}

// CHECK: error: 'soac.assert' message 'bad {0.real} {}': field '{0.real}' names no value (fields are {0}, {1}, ... for the values in order)

// -----

// assert: it reports integers
func.func @assert_value(%x: f32, %ok: i1) {
  soac.assert %ok, "bad value {0}" (%x : f32)
  func.return
}

// CHECK: error: 'soac.assert' reports integer or index values, not f32

// -----

// scatter: a while loop's result may be an array its condition passes on from outside
func.func @scatter_into_while_condition_source(%n: index, %k: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %d: tensor<?xf32>, %e: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %w:2 = scf.while (%t = %c0, %acc = %d) : (index, tensor<?xf32>) -> (index, tensor<?xf32>) {
    %go = arith.cmpi ult, %t, %k : index
    scf.condition(%go) %t, %e : index, tensor<?xf32>
  } do {
  ^bb0(%t2: index, %acc2: tensor<?xf32>):
    %c1 = arith.constant 1 : index
    %next = arith.addi %t2, %c1 : index
    scf.yield %next, %acc2 : index, tensor<?xf32>
  }
  %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%e : tensor<?xf32>) -> tensor<?xf32> lambda(%i: index, %v: f32) {
    soac.yield %i, %v : index, f32
  }
  func.return %w#1, %r : tensor<?xf32>, tensor<?xf32>
}

// CHECK: error: 'soac.scatter' consumes %e, but 'func.return' uses %w afterwards, which may be the same array

// -----

// reshape: one size per dimension of the result
func.func @reshape_rank(%xs: tensor<?xf32>, %n: index) -> tensor<?x?xf32> {
  %r = soac.reshape %xs (%n) : tensor<?xf32> -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// CHECK: error: 'soac.reshape' gives 1 sizes for a result of rank 2 (tensor<?x?xf32>)

// -----

// reshape: the element type stays
func.func @reshape_element(%xs: tensor<?xf32>, %n: index, %m: index) -> tensor<?x?xi32> {
  %r = soac.reshape %xs (%n, %m) : tensor<?xf32> -> tensor<?x?xi32>
  func.return %r : tensor<?x?xi32>
}

// CHECK: error: 'soac.reshape' cannot change the element type f32 into i32

// -----

// reshape: static shapes of another element count
func.func @reshape_count(%m: tensor<2x3xf32>, %a: index, %b: index) -> tensor<4x2xf32> {
  %r = soac.reshape %m (%a, %b) : tensor<2x3xf32> -> tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}

// CHECK: error: 'soac.reshape' cannot reshape tensor<2x3xf32> into tensor<4x2xf32>: the element counts differ

// -----

// rotate: an array with rows
func.func @rotate_scalar_array(%m: tensor<f32>, %k: index) -> tensor<f32> {
  %r = soac.rotate %m by %k : tensor<f32>
  func.return %r : tensor<f32>
}

// CHECK: error: 'soac.rotate' needs an array with at least one dimension, not tensor<f32>

// -----

// reverse: distinct dimensions of the array
func.func @reverse_dims(%m: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = soac.reverse %m [0, 2] : tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// CHECK: error: 'soac.reverse' dimensions [0, 2] are not distinct dimensions of an array of rank 2

// -----

func.func @reverse_twice(%m: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = soac.reverse %m [1, 1] : tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// CHECK: error: 'soac.reverse' dimensions [1, 1] are not distinct dimensions of an array of rank 2

// -----

// reverse: the generic form must give the array's type
func.func @reverse_type(%m: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = "soac.reverse"(%m) <{dimensions = array<i64: 0>}> : (tensor<?x?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// CHECK: error: 'soac.reverse' has result types (tensor<?xf32>), expected (tensor<?x?xf32>) from its operands

// -----

// scanomap: a forwarded value's type must be what the lambda yields in its place (the last yields)
func.func @scanomap_forward_type(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    %i = arith.fptosi %x : f32 to i32
    soac.yield %x, %i : f32, i32
  } post(%t: f32, %x: f32, %f: f32) {
    soac.yield %t : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' post lambda parameter #2 has type f32, expected i32 from the scanned values, input rows and forwarded values

// -----

// scanomap: the post lambda takes more forwarded values than the lambda yields after the scanned ones
func.func @scanomap_forward_count(%n: index, %xs: tensor<?xf32>, %z: f32) -> tensor<?xf32> {
  %s = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x, %x : f32, f32
  } post(%t: f32, %x: f32, %f: f32, %g: f32) {
    soac.yield %t : f32
  }
  func.return %s : tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' post lambda takes 4 parameters: the scanned values and input rows (f32, f32), then 2 forwarded values; but the lambda yields 1 value after its scanned ones

// -----

// scanomap: the forwarded values are no results (here the lambda's second yield is forwarded, so there is no map-out)
func.func @scanomap_forward_results(%n: index, %xs: tensor<?xf32>, %z: f32) -> (tensor<?xf32>, tensor<?xf32>) {
  %s, %m = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (tensor<?xf32>, tensor<?xf32>) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x, %x : f32, f32
  } post(%t: f32, %x: f32, %f: f32) {
    soac.yield %t : f32
  }
  func.return %s, %m : tensor<?xf32>, tensor<?xf32>
}

// CHECK: error: 'soac.scanomap' has result types (tensor<?xf32>, tensor<?xf32>), expected (tensor<?xf32>) from its lambdas

// -----

// segred: only a segmap gives each point a work-group (the generic form can still say `group`)
func.func @segred_group_level(%n: index, %z: f32) -> f32 {
  %r = "soac.segred"(%n, %z) <{level = #soac<level group>, operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }, {
  ^bb1(%i: index):
    soac.yield %z : f32
  }) : (index, f32) -> f32
  func.return %r : f32
}

// CHECK: error: 'soac.segred' must be at level 'thread' (its segments are split by the lowering), got 'group': only a segmap gives each point a work-group

// -----

// threshold: a device default that is none of the kinds (generic form, then custom syntax)
func.func @threshold_device_generic(%par: index) -> i1 {
  %t = "soac.threshold"(%par) <{threshold = "t", default = 8 : i64, on_device = "warp"}> : (index) -> i1
  func.return %t : i1
}

// CHECK: error: 'soac.threshold': device default 'warp' is none of resident, group

// -----

// partition: bucket count
func.func @no_buckets(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c, %ys = soac.partition %n buckets 0 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
    soac.yield %x, %x : i32, i32
  }
  func.return %ys : tensor<?xi32>
}

// CHECK:      {{.*}}invalid.mlir:{{[0-9]+}}:3
// CHECK:      error: 'soac.partition' needs between 1 and 65536 buckets, got 0

// -----

func.func @float_bucket(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %c, %ys = soac.partition %n buckets 4 (%xs : tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) lambda(%x: f32) {
    soac.yield %x, %x : f32, f32
  }
  func.return %ys : tensor<?xf32>
}

// CHECK: error: 'soac.partition' lambda yields (f32, f32), expected an integer bucket first, then the values to move

// -----

func.func @nothing_moved(%n: index, %is: tensor<?xindex>) -> tensor<?xi32> {
  %c = soac.partition %n buckets 4 (%is : tensor<?xindex>) -> (tensor<?xi32>) lambda(%i: index) {
    soac.yield %i : index
  }
  func.return %c : tensor<?xi32>
}

// CHECK: error: 'soac.partition' lambda yields only a bucket: it must yield at least one value to move

// -----

func.func @arity(%n: index, %xs: tensor<?xi32>) -> tensor<?xi32> {
  %c, %ys = soac.partition %n buckets 4 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32, %y: i32) {
    soac.yield %x, %x : i32, i32
  }
  func.return %ys : tensor<?xi32>
}

// CHECK: error: 'soac.partition' lambda takes 2 parameters but 1 is expected (the input rows: (i32))

// -----

func.func @result_types(%n: index, %xs: tensor<?xi32>) -> tensor<?xf32> {
  %c, %ys = soac.partition %n buckets 4 (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xf32>) lambda(%x: i32) {
    soac.yield %x, %x : i32, i32
  }
  func.return %ys : tensor<?xf32>
}

// CHECK: error: 'soac.partition' has result types (tensor<?xf32>), expected (tensor<?xi32>) from its lambdas

// -----

func.func @counts_type(%n: index, %xs: tensor<?xi32>) -> tensor<?xindex> {
  %c, %ys = soac.partition %n buckets 4 (%xs : tensor<?xi32>) -> (tensor<?xindex>, tensor<?xi32>) lambda(%x: i32) {
    soac.yield %x, %x : i32, i32
  }
  func.return %c : tensor<?xindex>
}

// CHECK: error: 'soac.partition' gives its bucket counts as tensor<?xi32>, not tensor<?xindex>

// -----

func.func @rows(%n: index, %xss: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c, %ys = soac.partition %n buckets 2 (%xss : tensor<?x4xf32>) -> (tensor<?xi32>, tensor<?x4xf32>) lambda(%row: tensor<4xf32>) {
    %b = arith.constant 0 : index
    soac.yield %b, %row : index, tensor<4xf32>
  }
  func.return %ys : tensor<?x4xf32>
}

// CHECK: error: 'soac.partition' moves scalars, but its lambda yields (tensor<4xf32>): partition the row indices (an iota) and gather the rows

// -----

func.func @known_type(%n: index, %xs: tensor<?xi32>, %known: tensor<?xi64>) -> tensor<?xi32> {
  %c, %ys = soac.partition %n buckets 4 counts(%known : tensor<?xi64>) (%xs : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
    %b = arith.index_cast %x : i32 to index
    soac.yield %b, %x : index, i32
  }
  func.return %ys : tensor<?xi32>
}

// CHECK: error: 'soac.partition' takes known bucket counts as tensor<?xi32>, not tensor<?xi64>

// -----

// index: {staged} (a row the work-group copies into local memory) reads a row
func.func @index_staged_element(%xs: tensor<?xf32>, %i: index) -> f32 {
  %x = soac.index %xs[%i] {staged} : tensor<?xf32> -> f32
  func.return %x : f32
}

// CHECK: error: 'soac.index' {staged} must read a row, not an element of tensor<?xf32>
