// RUN: SOAC_ROUNDTRIP
// RUN: SOAC_GENERIC_ROUNDTRIP

// Every op of the soac dialect in its custom syntax: printing it generic and parsing that back
// gives the same custom text (CHECK), and the generic text is as expected (CHECK-GENERIC).

func.func @map_one(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
  %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %y = arith.mulf %x, %x : f32
    soac.yield %y : f32
  }
  func.return %ys : tensor<?xf32>
}

// CHECK-LABEL: func.func @map_one(%n: index, %xs: tensor<?xf32>) -> tensor<?xf32> {
// CHECK-NEXT:    %ys = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
// CHECK-NEXT:      %y = arith.mulf %x, %x : f32
// CHECK-NEXT:      soac.yield %y : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %ys : tensor<?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "map_one", function_type = (index, tensor<?xf32>) -> tensor<?xf32>}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>):
// CHECK-GENERIC-NEXT:    %ys = "soac.map"(%n, %xs) ({
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32):
// CHECK-GENERIC-NEXT:      %y = "arith.mulf"(%x, %x) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%y) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, tensor<?xf32>) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:    "func.return"(%ys) : (tensor<?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @map_no_inputs(%n: index, %c: i32) -> tensor<?xi32> {
  %cs = soac.map %n () -> tensor<?xi32> lambda() {
    soac.yield %c : i32
  }
  func.return %cs : tensor<?xi32>
}

// CHECK-LABEL: func.func @map_no_inputs(%n: index, %c: i32) -> tensor<?xi32> {
// CHECK-NEXT:    %cs = soac.map %n () -> tensor<?xi32> lambda() {
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %cs : tensor<?xi32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "map_no_inputs", function_type = (index, i32) -> tensor<?xi32>}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %c: i32):
// CHECK-GENERIC-NEXT:    %cs = "soac.map"(%n) ({
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (i32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index) -> tensor<?xi32>
// CHECK-GENERIC-NEXT:    "func.return"(%cs) : (tensor<?xi32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @map_no_outputs(%n: index, %xs: tensor<?xf32>) {
  soac.map %n (%xs : tensor<?xf32>) -> () lambda(%x: f32) {
    soac.yield
  }
  func.return
}

// CHECK-LABEL: func.func @map_no_outputs(%n: index, %xs: tensor<?xf32>) {
// CHECK-NEXT:    soac.map %n (%xs : tensor<?xf32>) -> () lambda(%x: f32) {
// CHECK-NEXT:      soac.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "map_no_outputs", function_type = (index, tensor<?xf32>) -> ()}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>):
// CHECK-GENERIC-NEXT:    "soac.map"(%n, %xs) ({
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32):
// CHECK-GENERIC-NEXT:      "soac.yield"() : () -> ()
// CHECK-GENERIC-NEXT:    }) : (index, tensor<?xf32>) -> ()
// CHECK-GENERIC-NEXT:    "func.return"() : () -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @map_several(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi1>, tensor<?xi32>) {
  %a, %b, %c = soac.map %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi1>, tensor<?xi32>) lambda(%x: f32, %i: i32) {
    %f = arith.sitofp %i : i32 to f32
    %s = arith.addf %x, %f : f32
    %p = arith.cmpf olt, %x, %f : f32
    soac.yield %s, %p, %i : f32, i1, i32
  } attributes {tag = "several"}
  func.return %a, %b, %c : tensor<?xf32>, tensor<?xi1>, tensor<?xi32>
}

// CHECK-LABEL: func.func @map_several(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi1>, tensor<?xi32>) {
// CHECK-NEXT:    %a, %b, %c = soac.map %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi1>, tensor<?xi32>) lambda(%x: f32, %i: i32) {
// CHECK-NEXT:      %f = arith.sitofp %i : i32 to f32
// CHECK-NEXT:      %s = arith.addf %x, %f : f32
// CHECK-NEXT:      %p = arith.cmpf olt, %x, %f : f32
// CHECK-NEXT:      soac.yield %s, %p, %i : f32, i1, i32
// CHECK-NEXT:    } attributes {tag = "several"}
// CHECK-NEXT:    func.return %a, %b, %c : tensor<?xf32>, tensor<?xi1>, tensor<?xi32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "map_several", function_type = (index, tensor<?xf32>, tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi1>, tensor<?xi32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>):
// CHECK-GENERIC-NEXT:    %a, %b, %c = "soac.map"(%n, %xs, %is) ({
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32, %i: i32):
// CHECK-GENERIC-NEXT:      %f = "arith.sitofp"(%i) : (i32) -> f32
// CHECK-GENERIC-NEXT:      %s = "arith.addf"(%x, %f) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      %p = "arith.cmpf"(%x, %f) <{predicate = 4 : i64, fastmath = #arith.fastmath<none>}> : (f32, f32) -> i1
// CHECK-GENERIC-NEXT:      "soac.yield"(%s, %p, %i) : (f32, i1, i32) -> ()
// CHECK-GENERIC-NEXT:    }) {tag = "several"} : (index, tensor<?xf32>, tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi1>, tensor<?xi32>)
// CHECK-GENERIC-NEXT:    "func.return"(%a, %b, %c) : (tensor<?xf32>, tensor<?xi1>, tensor<?xi32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @map_nested(%n: index, %m: index, %xss: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %yss = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%xs: tensor<?xf32>) {
    %ys = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
      %y = arith.negf %x : f32
      soac.yield %y : f32
    }
    soac.yield %ys : tensor<?xf32>
  }
  func.return %yss : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @map_nested(%n: index, %m: index, %xss: tensor<?x?xf32>) -> tensor<?x?xf32> {
// CHECK-NEXT:    %yss = soac.map %n (%xss : tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%xs: tensor<?xf32>) {
// CHECK-NEXT:      %ys = soac.map %m (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
// CHECK-NEXT:        %y = arith.negf %x : f32
// CHECK-NEXT:        soac.yield %y : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %ys : tensor<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %yss : tensor<?x?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "map_nested", function_type = (index, index, tensor<?x?xf32>) -> tensor<?x?xf32>}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %m: index, %xss: tensor<?x?xf32>):
// CHECK-GENERIC-NEXT:    %yss = "soac.map"(%n, %xss) ({
// CHECK-GENERIC-NEXT:    ^bb0(%xs: tensor<?xf32>):
// CHECK-GENERIC-NEXT:      %ys = "soac.map"(%m, %xs) ({
// CHECK-GENERIC-NEXT:      ^bb0(%x: f32):
// CHECK-GENERIC-NEXT:        %y = "arith.negf"(%x) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
// CHECK-GENERIC-NEXT:        "soac.yield"(%y) : (f32) -> ()
// CHECK-GENERIC-NEXT:      }) : (index, tensor<?xf32>) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:      "soac.yield"(%ys) : (tensor<?xf32>) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-GENERIC-NEXT:    "func.return"(%yss) : (tensor<?x?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @reduce(%n: index, %xs: tensor<?xi32>, %zero: i32) -> i32 {
  %s = soac.reduce %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  }
  func.return %s : i32
}

// CHECK-LABEL: func.func @reduce(%n: index, %xs: tensor<?xi32>, %zero: i32) -> i32 {
// CHECK-NEXT:    %s = soac.reduce %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : i32
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "reduce", function_type = (index, tensor<?xi32>, i32) -> i32}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xi32>, %zero: i32):
// CHECK-GENERIC-NEXT:    %s = "soac.reduce"(%n, %zero, %xs) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: i32, %b: i32):
// CHECK-GENERIC-NEXT:      %c = "arith.addi"(%a, %b) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (i32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, i32, tensor<?xi32>) -> i32
// CHECK-GENERIC-NEXT:    "func.return"(%s) : (i32) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @reduce_commutative_several(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>, %z: f32, %i0: i32) -> (f32, i32) {
  %s, %m = soac.reduce commutative %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) neutral(%z, %i0 : f32, i32) -> (f32, i32) combine(%a: f32, %ai: i32, %b: f32, %bi: i32) {
    %c = arith.addf %a, %b : f32
    %ci = arith.maxsi %ai, %bi : i32
    soac.yield %c, %ci : f32, i32
  }
  func.return %s, %m : f32, i32
}

// CHECK-LABEL: func.func @reduce_commutative_several(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>, %z: f32, %i0: i32) -> (f32, i32) {
// CHECK-NEXT:    %s, %m = soac.reduce commutative %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) neutral(%z, %i0 : f32, i32) -> (f32, i32) combine(%a: f32, %ai: i32, %b: f32, %bi: i32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      %ci = arith.maxsi %ai, %bi : i32
// CHECK-NEXT:      soac.yield %c, %ci : f32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %m : f32, i32
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "reduce_commutative_several", function_type = (index, tensor<?xf32>, tensor<?xi32>, f32, i32) -> (f32, i32)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>, %z: f32, %i0: i32):
// CHECK-GENERIC-NEXT:    %s, %m = "soac.reduce"(%n, %z, %i0, %xs, %is) <{operandSegmentSizes = array<i32: 1, 2, 2>, commutative}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
// CHECK-GENERIC-NEXT:      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      %ci = "arith.maxsi"(%ai, %bi) : (i32, i32) -> i32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c, %ci) : (f32, i32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, f32, i32, tensor<?xf32>, tensor<?xi32>) -> (f32, i32)
// CHECK-GENERIC-NEXT:    "func.return"(%s, %m) : (f32, i32) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @reduce_rows(%n: index, %xss: tensor<?x4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %s = soac.reduce %n (%xss : tensor<?x4xf32>) neutral(%z : tensor<4xf32>) -> tensor<4xf32> combine(%a: tensor<4xf32>, %b: tensor<4xf32>) {
    %c = arith.addf %a, %b : tensor<4xf32>
    soac.yield %c : tensor<4xf32>
  }
  func.return %s : tensor<4xf32>
}

// CHECK-LABEL: func.func @reduce_rows(%n: index, %xss: tensor<?x4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %s = soac.reduce %n (%xss : tensor<?x4xf32>) neutral(%z : tensor<4xf32>) -> tensor<4xf32> combine(%a: tensor<4xf32>, %b: tensor<4xf32>) {
// CHECK-NEXT:      %c = arith.addf %a, %b : tensor<4xf32>
// CHECK-NEXT:      soac.yield %c : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : tensor<4xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "reduce_rows", function_type = (index, tensor<?x4xf32>, tensor<4xf32>) -> tensor<4xf32>}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xss: tensor<?x4xf32>, %z: tensor<4xf32>):
// CHECK-GENERIC-NEXT:    %s = "soac.reduce"(%n, %z, %xss) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
// CHECK-GENERIC-NEXT:      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (tensor<4xf32>) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, tensor<4xf32>, tensor<?x4xf32>) -> tensor<4xf32>
// CHECK-GENERIC-NEXT:    "func.return"(%s) : (tensor<4xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @scan(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi64>, %z: f32, %one: i64) -> (tensor<?xf32>, tensor<?xi64>) {
  %s = soac.scan %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  }
  %t, %p = soac.scan %n (%xs, %is : tensor<?xf32>, tensor<?xi64>) neutral(%z, %one : f32, i64) -> (tensor<?xf32>, tensor<?xi64>) combine(%a: f32, %ai: i64, %b: f32, %bi: i64) {
    %c = arith.maximumf %a, %b : f32
    %ci = arith.muli %ai, %bi : i64
    soac.yield %c, %ci : f32, i64
  }
  func.return %s, %p : tensor<?xf32>, tensor<?xi64>
}

// CHECK-LABEL: func.func @scan(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi64>, %z: f32, %one: i64) -> (tensor<?xf32>, tensor<?xi64>) {
// CHECK-NEXT:    %s = soac.scan %n (%xs : tensor<?xf32>) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %t, %p = soac.scan %n (%xs, %is : tensor<?xf32>, tensor<?xi64>) neutral(%z, %one : f32, i64) -> (tensor<?xf32>, tensor<?xi64>) combine(%a_1: f32, %ai: i64, %b_1: f32, %bi: i64) {
// CHECK-NEXT:      %c_1 = arith.maximumf %a_1, %b_1 : f32
// CHECK-NEXT:      %ci = arith.muli %ai, %bi : i64
// CHECK-NEXT:      soac.yield %c_1, %ci : f32, i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %p : tensor<?xf32>, tensor<?xi64>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scan", function_type = (index, tensor<?xf32>, tensor<?xi64>, f32, i64) -> (tensor<?xf32>, tensor<?xi64>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi64>, %z: f32, %one: i64):
// CHECK-GENERIC-NEXT:    %s = "soac.scan"(%n, %z, %xs) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: f32, %b: f32):
// CHECK-GENERIC-NEXT:      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, f32, tensor<?xf32>) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:    %t, %p = "soac.scan"(%n, %z, %one, %xs, %is) <{operandSegmentSizes = array<i32: 1, 2, 2>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a_1: f32, %ai: i64, %b_1: f32, %bi: i64):
// CHECK-GENERIC-NEXT:      %c_1 = "arith.maximumf"(%a_1, %b_1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      %ci = "arith.muli"(%ai, %bi) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
// CHECK-GENERIC-NEXT:      "soac.yield"(%c_1, %ci) : (f32, i64) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, f32, i64, tensor<?xf32>, tensor<?xi64>) -> (tensor<?xf32>, tensor<?xi64>)
// CHECK-GENERIC-NEXT:    "func.return"(%s, %p) : (tensor<?xf32>, tensor<?xi64>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @redomap(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>, %z: f32) -> (f32, f32) {
  %dot = soac.redomap commutative %n (%xs, %ys : tensor<?xf32>, tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32, %y: f32) {
    %p = arith.mulf %x, %y : f32
    soac.yield %p : f32
  }
  %mx = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.maximumf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    soac.yield %x : f32
  }
  func.return %dot, %mx : f32, f32
}

// CHECK-LABEL: func.func @redomap(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>, %z: f32) -> (f32, f32) {
// CHECK-NEXT:    %dot = soac.redomap commutative %n (%xs, %ys : tensor<?xf32>, tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    } lambda(%x: f32, %y: f32) {
// CHECK-NEXT:      %p = arith.mulf %x, %y : f32
// CHECK-NEXT:      soac.yield %p : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %mx = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> f32 combine(%a_1: f32, %b_1: f32) {
// CHECK-NEXT:      %c_1 = arith.maximumf %a_1, %b_1 : f32
// CHECK-NEXT:      soac.yield %c_1 : f32
// CHECK-NEXT:    } lambda(%x_1: f32) {
// CHECK-NEXT:      soac.yield %x_1 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %dot, %mx : f32, f32
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "redomap", function_type = (index, tensor<?xf32>, tensor<?xf32>, f32) -> (f32, f32)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>, %ys: tensor<?xf32>, %z: f32):
// CHECK-GENERIC-NEXT:    %dot = "soac.redomap"(%n, %z, %xs, %ys) <{operandSegmentSizes = array<i32: 1, 1, 2>, commutative}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: f32, %b: f32):
// CHECK-GENERIC-NEXT:      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32, %y: f32):
// CHECK-GENERIC-NEXT:      %p = "arith.mulf"(%x, %y) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%p) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, f32, tensor<?xf32>, tensor<?xf32>) -> f32
// CHECK-GENERIC-NEXT:    %mx = "soac.redomap"(%n, %z, %xs) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a_1: f32, %b_1: f32):
// CHECK-GENERIC-NEXT:      %c_1 = "arith.maximumf"(%a_1, %b_1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c_1) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%x_1: f32):
// CHECK-GENERIC-NEXT:      "soac.yield"(%x_1) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, f32, tensor<?xf32>) -> f32
// CHECK-GENERIC-NEXT:    "func.return"(%dot, %mx) : (f32, f32) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @redomap_map_outs(%n: index, %xs: tensor<?xf32>, %z: f32, %i0: i32) -> (f32, i32, tensor<?xf32>, tensor<?xi1>) {
  %s, %c, %sq, %pos = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z, %i0 : f32, i32) -> (f32, i32, tensor<?xf32>, tensor<?xi1>) combine(%a: f32, %ai: i32, %b: f32, %bi: i32) {
    %r = arith.addf %a, %b : f32
    %ri = arith.addi %ai, %bi : i32
    soac.yield %r, %ri : f32, i32
  } lambda(%x: f32) {
    %q = arith.mulf %x, %x : f32
    %one = arith.constant 1 : i32
    %p = arith.cmpf ogt, %x, %z : f32
    soac.yield %q, %one, %q, %p : f32, i32, f32, i1
  }
  func.return %s, %c, %sq, %pos : f32, i32, tensor<?xf32>, tensor<?xi1>
}

// CHECK-LABEL: func.func @redomap_map_outs(%n: index, %xs: tensor<?xf32>, %z: f32, %i0: i32) -> (f32, i32, tensor<?xf32>, tensor<?xi1>) {
// CHECK-NEXT:    %s, %c, %sq, %pos = soac.redomap %n (%xs : tensor<?xf32>) neutral(%z, %i0 : f32, i32) -> (f32, i32, tensor<?xf32>, tensor<?xi1>) combine(%a: f32, %ai: i32, %b: f32, %bi: i32) {
// CHECK-NEXT:      %r = arith.addf %a, %b : f32
// CHECK-NEXT:      %ri = arith.addi %ai, %bi : i32
// CHECK-NEXT:      soac.yield %r, %ri : f32, i32
// CHECK-NEXT:    } lambda(%x: f32) {
// CHECK-NEXT:      %q = arith.mulf %x, %x : f32
// CHECK-NEXT:      %one = arith.constant 1 : i32
// CHECK-NEXT:      %p = arith.cmpf ogt, %x, %z : f32
// CHECK-NEXT:      soac.yield %q, %one, %q, %p : f32, i32, f32, i1
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %c, %sq, %pos : f32, i32, tensor<?xf32>, tensor<?xi1>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "redomap_map_outs", function_type = (index, tensor<?xf32>, f32, i32) -> (f32, i32, tensor<?xf32>, tensor<?xi1>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>, %z: f32, %i0: i32):
// CHECK-GENERIC-NEXT:    %s, %c, %sq, %pos = "soac.redomap"(%n, %z, %i0, %xs) <{operandSegmentSizes = array<i32: 1, 2, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
// CHECK-GENERIC-NEXT:      %r = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      %ri = "arith.addi"(%ai, %bi) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
// CHECK-GENERIC-NEXT:      "soac.yield"(%r, %ri) : (f32, i32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32):
// CHECK-GENERIC-NEXT:      %q = "arith.mulf"(%x, %x) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      %one = "arith.constant"() <{value = 1 : i32}> : () -> i32
// CHECK-GENERIC-NEXT:      %p = "arith.cmpf"(%x, %z) <{predicate = 2 : i64, fastmath = #arith.fastmath<none>}> : (f32, f32) -> i1
// CHECK-GENERIC-NEXT:      "soac.yield"(%q, %one, %q, %p) : (f32, i32, f32, i1) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, f32, i32, tensor<?xf32>) -> (f32, i32, tensor<?xf32>, tensor<?xi1>)
// CHECK-GENERIC-NEXT:    "func.return"(%s, %c, %sq, %pos) : (f32, i32, tensor<?xf32>, tensor<?xi1>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @scanomap(%n: index, %xs: tensor<?xf32>, %z: f32) -> (tensor<?xf32>, tensor<?xf32>) {
  %s, %sq = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (tensor<?xf32>, tensor<?xf32>) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    %q = arith.mulf %x, %x : f32
    soac.yield %x, %q : f32, f32
  }
  func.return %s, %sq : tensor<?xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @scanomap(%n: index, %xs: tensor<?xf32>, %z: f32) -> (tensor<?xf32>, tensor<?xf32>) {
// CHECK-NEXT:    %s, %sq = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (tensor<?xf32>, tensor<?xf32>) combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    } lambda(%x: f32) {
// CHECK-NEXT:      %q = arith.mulf %x, %x : f32
// CHECK-NEXT:      soac.yield %x, %q : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %sq : tensor<?xf32>, tensor<?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scanomap", function_type = (index, tensor<?xf32>, f32) -> (tensor<?xf32>, tensor<?xf32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>, %z: f32):
// CHECK-GENERIC-NEXT:    %s, %sq = "soac.scanomap"(%n, %z, %xs) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: f32, %b: f32):
// CHECK-GENERIC-NEXT:      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32):
// CHECK-GENERIC-NEXT:      %q = "arith.mulf"(%x, %x) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%x, %q) : (f32, f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    }) : (index, f32, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>)
// CHECK-GENERIC-NEXT:    "func.return"(%s, %sq) : (tensor<?xf32>, tensor<?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @scanomap_post(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>, %z: f32) -> (tensor<?xi1>, tensor<?xf32>, tensor<?xi32>) {
  %p, %d, %mo = soac.scanomap %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) neutral(%z : f32) -> (tensor<?xi1>, tensor<?xf32>, tensor<?xi32>) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32, %i: i32) {
    soac.yield %x, %i : f32, i32
  } post(%s: f32, %x: f32, %i: i32) {
    %gt = arith.cmpf ogt, %s, %x : f32
    %diff = arith.subf %s, %x : f32
    soac.yield %gt, %diff : i1, f32
  }
  func.return %p, %d, %mo : tensor<?xi1>, tensor<?xf32>, tensor<?xi32>
}

// CHECK-LABEL: func.func @scanomap_post(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>, %z: f32) -> (tensor<?xi1>, tensor<?xf32>, tensor<?xi32>) {
// CHECK-NEXT:    %p, %d, %mo = soac.scanomap %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) neutral(%z : f32) -> (tensor<?xi1>, tensor<?xf32>, tensor<?xi32>) combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    } lambda(%x: f32, %i: i32) {
// CHECK-NEXT:      soac.yield %x, %i : f32, i32
// CHECK-NEXT:    } post(%s: f32, %x_1: f32, %i_1: i32) {
// CHECK-NEXT:      %gt = arith.cmpf ogt, %s, %x_1 : f32
// CHECK-NEXT:      %diff = arith.subf %s, %x_1 : f32
// CHECK-NEXT:      soac.yield %gt, %diff : i1, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %p, %d, %mo : tensor<?xi1>, tensor<?xf32>, tensor<?xi32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scanomap_post", function_type = (index, tensor<?xf32>, tensor<?xi32>, f32) -> (tensor<?xi1>, tensor<?xf32>, tensor<?xi32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>, %z: f32):
// CHECK-GENERIC-NEXT:    %p, %d, %mo = "soac.scanomap"(%n, %z, %xs, %is) <{operandSegmentSizes = array<i32: 1, 1, 2, 0>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: f32, %b: f32):
// CHECK-GENERIC-NEXT:      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32, %i: i32):
// CHECK-GENERIC-NEXT:      "soac.yield"(%x, %i) : (f32, i32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%s: f32, %x_1: f32, %i_1: i32):
// CHECK-GENERIC-NEXT:      %gt = "arith.cmpf"(%s, %x_1) <{predicate = 2 : i64, fastmath = #arith.fastmath<none>}> : (f32, f32) -> i1
// CHECK-GENERIC-NEXT:      %diff = "arith.subf"(%s, %x_1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%gt, %diff) : (i1, f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, f32, tensor<?xf32>, tensor<?xi32>) -> (tensor<?xi1>, tensor<?xf32>, tensor<?xi32>)
// CHECK-GENERIC-NEXT:    "func.return"(%p, %d, %mo) : (tensor<?xi1>, tensor<?xf32>, tensor<?xi32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

// The lambda forwards values to the post lambda: its last yields (after the map-outs), the post lambda's last
// parameters (after the input rows). Here %mo is a map-out, %sq and %r are forwarded.
func.func @scanomap_forward(%n: index, %xs: tensor<?xf32>, %z: f32) -> (tensor<?xf32>, tensor<?xf32>) {
  %p, %mo = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (tensor<?xf32>, tensor<?xf32>) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    %sq = arith.mulf %x, %x : f32
    %r = tensor.from_elements %x, %sq : tensor<2xf32>
    soac.yield %x, %sq, %sq, %r : f32, f32, f32, tensor<2xf32>
  } post(%s: f32, %x: f32, %f: f32, %row: tensor<2xf32>) {
    %d = arith.subf %s, %f : f32
    soac.yield %d : f32
  }
  func.return %p, %mo : tensor<?xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @scanomap_forward(%n: index, %xs: tensor<?xf32>, %z: f32) -> (tensor<?xf32>, tensor<?xf32>) {
// CHECK-NEXT:    %p, %mo = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) -> (tensor<?xf32>, tensor<?xf32>) combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    } lambda(%x: f32) {
// CHECK-NEXT:      %sq = arith.mulf %x, %x : f32
// CHECK-NEXT:      %r = tensor.from_elements %x, %sq : tensor<2xf32>
// CHECK-NEXT:      soac.yield %x, %sq, %sq, %r : f32, f32, f32, tensor<2xf32>
// CHECK-NEXT:    } post(%s: f32, %x_1: f32, %f: f32, %row: tensor<2xf32>) {
// CHECK-NEXT:      %d = arith.subf %s, %f : f32
// CHECK-NEXT:      soac.yield %d : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %p, %mo : tensor<?xf32>, tensor<?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scanomap_forward", function_type = (index, tensor<?xf32>, f32) -> (tensor<?xf32>, tensor<?xf32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>, %z: f32):
// CHECK-GENERIC-NEXT:    %p, %mo = "soac.scanomap"(%n, %z, %xs) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: f32, %b: f32):
// CHECK-GENERIC-NEXT:      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32):
// CHECK-GENERIC-NEXT:      %sq = "arith.mulf"(%x, %x) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      %r = "tensor.from_elements"(%x, %sq) : (f32, f32) -> tensor<2xf32>
// CHECK-GENERIC-NEXT:      "soac.yield"(%x, %sq, %sq, %r) : (f32, f32, f32, tensor<2xf32>) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%s: f32, %x_1: f32, %f: f32, %row: tensor<2xf32>):
// CHECK-GENERIC-NEXT:      %d = "arith.subf"(%s, %f) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%d) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, f32, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>)
// CHECK-GENERIC-NEXT:    "func.return"(%p, %mo) : (tensor<?xf32>, tensor<?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @scatter_one(%n: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %dest: tensor<?xf32>) -> tensor<?xf32> {
  %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%dest : tensor<?xf32>) -> tensor<?xf32> lambda(%i: index, %v: f32) {
    soac.yield %i, %v : index, f32
  }
  func.return %r : tensor<?xf32>
}

// CHECK-LABEL: func.func @scatter_one(%n: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %dest: tensor<?xf32>) -> tensor<?xf32> {
// CHECK-NEXT:    %r = soac.scatter %n (%is, %vs : tensor<?xindex>, tensor<?xf32>) into(%dest : tensor<?xf32>) -> tensor<?xf32> lambda(%i: index, %v: f32) {
// CHECK-NEXT:      soac.yield %i, %v : index, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scatter_one", function_type = (index, tensor<?xindex>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %is: tensor<?xindex>, %vs: tensor<?xf32>, %dest: tensor<?xf32>):
// CHECK-GENERIC-NEXT:    %r = "soac.scatter"(%n, %is, %vs, %dest) <{operandSegmentSizes = array<i32: 1, 2, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%i: index, %v: f32):
// CHECK-GENERIC-NEXT:      "soac.yield"(%i, %v) : (index, f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, tensor<?xindex>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:    "func.return"(%r) : (tensor<?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @scatter_two(%n: index, %is: tensor<?xi64>, %vs: tensor<?xf32>, %d0: tensor<?xf32>, %d1: tensor<?x3xi32>, %row: tensor<3xi32>) -> (tensor<?xf32>, tensor<?x3xi32>) {
  %r0, %r1 = soac.scatter %n (%is, %vs : tensor<?xi64>, tensor<?xf32>) into(%d0, %d1 : tensor<?xf32>, tensor<?x3xi32>) -> (tensor<?xf32>, tensor<?x3xi32>) lambda(%i: i64, %v: f32) {
    %j = arith.index_cast %i : i64 to index
    soac.yield %i, %j, %v, %row : i64, index, f32, tensor<3xi32>
  }
  func.return %r0, %r1 : tensor<?xf32>, tensor<?x3xi32>
}

// CHECK-LABEL: func.func @scatter_two(%n: index, %is: tensor<?xi64>, %vs: tensor<?xf32>, %d0: tensor<?xf32>, %d1: tensor<?x3xi32>, %row: tensor<3xi32>) -> (tensor<?xf32>, tensor<?x3xi32>) {
// CHECK-NEXT:    %r0, %r1 = soac.scatter %n (%is, %vs : tensor<?xi64>, tensor<?xf32>) into(%d0, %d1 : tensor<?xf32>, tensor<?x3xi32>) -> (tensor<?xf32>, tensor<?x3xi32>) lambda(%i: i64, %v: f32) {
// CHECK-NEXT:      %j = arith.index_cast %i : i64 to index
// CHECK-NEXT:      soac.yield %i, %j, %v, %row : i64, index, f32, tensor<3xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r0, %r1 : tensor<?xf32>, tensor<?x3xi32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scatter_two", function_type = (index, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>, tensor<?x3xi32>, tensor<3xi32>) -> (tensor<?xf32>, tensor<?x3xi32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %is: tensor<?xi64>, %vs: tensor<?xf32>, %d0: tensor<?xf32>, %d1: tensor<?x3xi32>, %row: tensor<3xi32>):
// CHECK-GENERIC-NEXT:    %r0, %r1 = "soac.scatter"(%n, %is, %vs, %d0, %d1) <{operandSegmentSizes = array<i32: 1, 2, 2>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%i: i64, %v: f32):
// CHECK-GENERIC-NEXT:      %j = "arith.index_cast"(%i) : (i64) -> index
// CHECK-GENERIC-NEXT:      "soac.yield"(%i, %j, %v, %row) : (i64, index, f32, tensor<3xi32>) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>, tensor<?x3xi32>) -> (tensor<?xf32>, tensor<?x3xi32>)
// CHECK-GENERIC-NEXT:    "func.return"(%r0, %r1) : (tensor<?xf32>, tensor<?x3xi32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @segmap(%n: index, %m: index, %xss: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %t = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
    %x = soac.index %xss[%j, %i] : tensor<?x?xf32> -> f32
    soac.yield %x : f32
  }
  %g = soac.segmap group (%n) -> tensor<?xf32> lambda(%i: index) {
    %x = soac.index %xss[%i, %i] : tensor<?x?xf32> -> f32
    soac.yield %x : f32
  }
  func.return %t, %g : tensor<?x?xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @segmap(%n: index, %m: index, %xss: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
// CHECK-NEXT:    %t = soac.segmap thread (%n, %m) -> tensor<?x?xf32> lambda(%i: index, %j: index) {
// CHECK-NEXT:      %x = soac.index %xss[%j, %i] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      soac.yield %x : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %g = soac.segmap group (%n) -> tensor<?xf32> lambda(%i_1: index) {
// CHECK-NEXT:      %x_1 = soac.index %xss[%i_1, %i_1] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      soac.yield %x_1 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %t, %g : tensor<?x?xf32>, tensor<?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "segmap", function_type = (index, index, tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %m: index, %xss: tensor<?x?xf32>):
// CHECK-GENERIC-NEXT:    %t = "soac.segmap"(%n, %m) <{level = #soac<level thread>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%i: index, %j: index):
// CHECK-GENERIC-NEXT:      %x = "soac.index"(%xss, %j, %i) : (tensor<?x?xf32>, index, index) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%x) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, index) -> tensor<?x?xf32>
// CHECK-GENERIC-NEXT:    %g = "soac.segmap"(%n) <{level = #soac<level group>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%i_1: index):
// CHECK-GENERIC-NEXT:      %x_1 = "soac.index"(%xss, %i_1, %i_1) : (tensor<?x?xf32>, index, index) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%x_1) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:    "func.return"(%t, %g) : (tensor<?x?xf32>, tensor<?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @segred(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
  %t = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
    soac.yield %x : f32
  }
  // `group`, the old spelling of a segred's strategy, parses as `thread`.
  %g, %sq = soac.segred group (%n, %m) neutral(%z : f32) -> (tensor<?xf32>, tensor<?x?xf32>) combine(%a: f32, %b: f32) {
    %c = arith.maximumf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
    %q = arith.mulf %x, %x : f32
    soac.yield %x, %q : f32, f32
  }
  func.return %t, %g, %sq : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
}

// CHECK-LABEL: func.func @segred(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
// CHECK-NEXT:    %t = soac.segred thread (%n, %m) neutral(%z : f32) -> tensor<?xf32> combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    } lambda(%i: index, %j: index) {
// CHECK-NEXT:      %x = soac.index %xss[%i, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      soac.yield %x : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %g, %sq = soac.segred thread (%n, %m) neutral(%z : f32) -> (tensor<?xf32>, tensor<?x?xf32>) combine(%a_1: f32, %b_1: f32) {
// CHECK-NEXT:      %c_1 = arith.maximumf %a_1, %b_1 : f32
// CHECK-NEXT:      soac.yield %c_1 : f32
// CHECK-NEXT:    } lambda(%i_1: index, %j_1: index) {
// CHECK-NEXT:      %x_1 = soac.index %xss[%i_1, %j_1] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      %q = arith.mulf %x_1, %x_1 : f32
// CHECK-NEXT:      soac.yield %x_1, %q : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %t, %g, %sq : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "segred", function_type = (index, index, tensor<?x?xf32>, f32) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %m: index, %xss: tensor<?x?xf32>, %z: f32):
// CHECK-GENERIC-NEXT:    %t = "soac.segred"(%n, %m, %z) <{level = #soac<level thread>, operandSegmentSizes = array<i32: 2, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: f32, %b: f32):
// CHECK-GENERIC-NEXT:      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%i: index, %j: index):
// CHECK-GENERIC-NEXT:      %x = "soac.index"(%xss, %i, %j) : (tensor<?x?xf32>, index, index) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%x) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, index, f32) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:    %g, %sq = "soac.segred"(%n, %m, %z) <{level = #soac<level thread>, operandSegmentSizes = array<i32: 2, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a_1: f32, %b_1: f32):
// CHECK-GENERIC-NEXT:      %c_1 = "arith.maximumf"(%a_1, %b_1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c_1) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%i_1: index, %j_1: index):
// CHECK-GENERIC-NEXT:      %x_1 = "soac.index"(%xss, %i_1, %j_1) : (tensor<?x?xf32>, index, index) -> f32
// CHECK-GENERIC-NEXT:      %q = "arith.mulf"(%x_1, %x_1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%x_1, %q) : (f32, f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, index, f32) -> (tensor<?xf32>, tensor<?x?xf32>)
// CHECK-GENERIC-NEXT:    "func.return"(%t, %g, %sq) : (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

// A one-dimensional segred reduces its only dimension to scalars.
func.func @segred_flat(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
  %s = soac.segred thread (%n) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } lambda(%i: index) {
    %x = soac.index %xs[%i] : tensor<?xf32> -> f32
    soac.yield %x : f32
  }
  func.return %s : f32
}

// CHECK-LABEL: func.func @segred_flat(%n: index, %xs: tensor<?xf32>, %z: f32) -> f32 {
// CHECK-NEXT:    %s = soac.segred thread (%n) neutral(%z : f32) -> f32 combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    } lambda(%i: index) {
// CHECK-NEXT:      %x = soac.index %xs[%i] : tensor<?xf32> -> f32
// CHECK-NEXT:      soac.yield %x : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : f32
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "segred_flat"
// CHECK-GENERIC:         %s = "soac.segred"(%n, %z) <{level = #soac<level thread>, operandSegmentSizes = array<i32: 1, 1>}> ({
// CHECK-GENERIC:         }) : (index, f32) -> f32

// -----

func.func @segscan(%n: index, %m: index, %xss: tensor<?x?xi32>, %z: i32) -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi1>) {
  %t = soac.segscan thread (%n, %m) neutral(%z : i32) -> tensor<?x?xi32> combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
    soac.yield %x : i32
  }
  // `group`, the old spelling of a segscan's strategy, parses as `thread`.
  %g, %pos = soac.segscan group (%n, %m) neutral(%z : i32) -> (tensor<?x?xi32>, tensor<?x?xi1>) combine(%a: i32, %b: i32) {
    %c = arith.maxsi %a, %b : i32
    soac.yield %c : i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
    %p = arith.cmpi sgt, %x, %z : i32
    soac.yield %x, %p : i32, i1
  }
  func.return %t, %g, %pos : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi1>
}

// CHECK-LABEL: func.func @segscan(%n: index, %m: index, %xss: tensor<?x?xi32>, %z: i32) -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi1>) {
// CHECK-NEXT:    %t = soac.segscan thread (%n, %m) neutral(%z : i32) -> tensor<?x?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } lambda(%i: index, %j: index) {
// CHECK-NEXT:      %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
// CHECK-NEXT:      soac.yield %x : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %g, %pos = soac.segscan thread (%n, %m) neutral(%z : i32) -> (tensor<?x?xi32>, tensor<?x?xi1>) combine(%a_1: i32, %b_1: i32) {
// CHECK-NEXT:      %c_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %c_1 : i32
// CHECK-NEXT:    } lambda(%i_1: index, %j_1: index) {
// CHECK-NEXT:      %x_1 = soac.index %xss[%i_1, %j_1] : tensor<?x?xi32> -> i32
// CHECK-NEXT:      %p = arith.cmpi sgt, %x_1, %z : i32
// CHECK-NEXT:      soac.yield %x_1, %p : i32, i1
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %t, %g, %pos : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi1>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "segscan", function_type = (index, index, tensor<?x?xi32>, i32) -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi1>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %m: index, %xss: tensor<?x?xi32>, %z: i32):
// CHECK-GENERIC-NEXT:    %t = "soac.segscan"(%n, %m, %z) <{level = #soac<level thread>, operandSegmentSizes = array<i32: 2, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: i32, %b: i32):
// CHECK-GENERIC-NEXT:      %c = "arith.addi"(%a, %b) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (i32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%i: index, %j: index):
// CHECK-GENERIC-NEXT:      %x = "soac.index"(%xss, %i, %j) : (tensor<?x?xi32>, index, index) -> i32
// CHECK-GENERIC-NEXT:      "soac.yield"(%x) : (i32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, index, i32) -> tensor<?x?xi32>
// CHECK-GENERIC-NEXT:    %g, %pos = "soac.segscan"(%n, %m, %z) <{level = #soac<level thread>, operandSegmentSizes = array<i32: 2, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a_1: i32, %b_1: i32):
// CHECK-GENERIC-NEXT:      %c_1 = "arith.maxsi"(%a_1, %b_1) : (i32, i32) -> i32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c_1) : (i32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%i_1: index, %j_1: index):
// CHECK-GENERIC-NEXT:      %x_1 = "soac.index"(%xss, %i_1, %j_1) : (tensor<?x?xi32>, index, index) -> i32
// CHECK-GENERIC-NEXT:      %p = "arith.cmpi"(%x_1, %z) <{predicate = 4 : i64}> : (i32, i32) -> i1
// CHECK-GENERIC-NEXT:      "soac.yield"(%x_1, %p) : (i32, i1) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, index, i32) -> (tensor<?x?xi32>, tensor<?x?xi1>)
// CHECK-GENERIC-NEXT:    "func.return"(%t, %g, %pos) : (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi1>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @iota(%n: index) -> (tensor<?xi32>, tensor<?xindex>, tensor<?xi64>) {
  %a = soac.iota %n : tensor<?xi32>
  %b = soac.iota %n : tensor<?xindex>
  %c = soac.iota %n : tensor<?xi64>
  func.return %a, %b, %c : tensor<?xi32>, tensor<?xindex>, tensor<?xi64>
}

// CHECK-LABEL: func.func @iota(%n: index) -> (tensor<?xi32>, tensor<?xindex>, tensor<?xi64>) {
// CHECK-NEXT:    %a = soac.iota %n : tensor<?xi32>
// CHECK-NEXT:    %b = soac.iota %n : tensor<?xindex>
// CHECK-NEXT:    %c = soac.iota %n : tensor<?xi64>
// CHECK-NEXT:    func.return %a, %b, %c : tensor<?xi32>, tensor<?xindex>, tensor<?xi64>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "iota", function_type = (index) -> (tensor<?xi32>, tensor<?xindex>, tensor<?xi64>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index):
// CHECK-GENERIC-NEXT:    %a = "soac.iota"(%n) : (index) -> tensor<?xi32>
// CHECK-GENERIC-NEXT:    %b = "soac.iota"(%n) : (index) -> tensor<?xindex>
// CHECK-GENERIC-NEXT:    %c = "soac.iota"(%n) : (index) -> tensor<?xi64>
// CHECK-GENERIC-NEXT:    "func.return"(%a, %b, %c) : (tensor<?xi32>, tensor<?xindex>, tensor<?xi64>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @replicate(%n: index, %z: f32, %row: tensor<?xi32>, %fixed: tensor<3xf64>) -> (tensor<?xf32>, tensor<?x?xi32>, tensor<?x3xf64>) {
  %a = soac.replicate %n, %z : f32 -> tensor<?xf32>
  %b = soac.replicate %n, %row : tensor<?xi32> -> tensor<?x?xi32>
  %c = soac.replicate %n, %fixed : tensor<3xf64> -> tensor<?x3xf64>
  func.return %a, %b, %c : tensor<?xf32>, tensor<?x?xi32>, tensor<?x3xf64>
}

// CHECK-LABEL: func.func @replicate(%n: index, %z: f32, %row: tensor<?xi32>, %fixed: tensor<3xf64>) -> (tensor<?xf32>, tensor<?x?xi32>, tensor<?x3xf64>) {
// CHECK-NEXT:    %a = soac.replicate %n, %z : f32 -> tensor<?xf32>
// CHECK-NEXT:    %b = soac.replicate %n, %row : tensor<?xi32> -> tensor<?x?xi32>
// CHECK-NEXT:    %c = soac.replicate %n, %fixed : tensor<3xf64> -> tensor<?x3xf64>
// CHECK-NEXT:    func.return %a, %b, %c : tensor<?xf32>, tensor<?x?xi32>, tensor<?x3xf64>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "replicate", function_type = (index, f32, tensor<?xi32>, tensor<3xf64>) -> (tensor<?xf32>, tensor<?x?xi32>, tensor<?x3xf64>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %z: f32, %row: tensor<?xi32>, %fixed: tensor<3xf64>):
// CHECK-GENERIC-NEXT:    %a = "soac.replicate"(%n, %z) : (index, f32) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:    %b = "soac.replicate"(%n, %row) : (index, tensor<?xi32>) -> tensor<?x?xi32>
// CHECK-GENERIC-NEXT:    %c = "soac.replicate"(%n, %fixed) : (index, tensor<3xf64>) -> tensor<?x3xf64>
// CHECK-GENERIC-NEXT:    "func.return"(%a, %b, %c) : (tensor<?xf32>, tensor<?x?xi32>, tensor<?x3xf64>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @transpose(%m: tensor<?x4xf32>, %c: tensor<2x?x5xi8>) -> (tensor<4x?xf32>, tensor<5x2x?xi8>) {
  %t = soac.transpose %m [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  %u = soac.transpose %c [2, 0, 1] : tensor<2x?x5xi8> -> tensor<5x2x?xi8>
  func.return %t, %u : tensor<4x?xf32>, tensor<5x2x?xi8>
}

// CHECK-LABEL: func.func @transpose(%m: tensor<?x4xf32>, %c: tensor<2x?x5xi8>) -> (tensor<4x?xf32>, tensor<5x2x?xi8>) {
// CHECK-NEXT:    %t = soac.transpose %m [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
// CHECK-NEXT:    %u = soac.transpose %c [2, 0, 1] : tensor<2x?x5xi8> -> tensor<5x2x?xi8>
// CHECK-NEXT:    func.return %t, %u : tensor<4x?xf32>, tensor<5x2x?xi8>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "transpose", function_type = (tensor<?x4xf32>, tensor<2x?x5xi8>) -> (tensor<4x?xf32>, tensor<5x2x?xi8>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%m: tensor<?x4xf32>, %c: tensor<2x?x5xi8>):
// CHECK-GENERIC-NEXT:    %t = "soac.transpose"(%m) <{permutation = array<i64: 1, 0>}> : (tensor<?x4xf32>) -> tensor<4x?xf32>
// CHECK-GENERIC-NEXT:    %u = "soac.transpose"(%c) <{permutation = array<i64: 2, 0, 1>}> : (tensor<2x?x5xi8>) -> tensor<5x2x?xi8>
// CHECK-GENERIC-NEXT:    "func.return"(%t, %u) : (tensor<4x?xf32>, tensor<5x2x?xi8>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @reshape_reverse(%xs: tensor<?xf32>, %n: index, %k: index) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
  %m = soac.reshape %xs (%n, %k) : tensor<?xf32> -> tensor<?x?xf32>
  %nk = arith.muli %n, %k : index
  %f = soac.reshape %m (%nk) : tensor<?x?xf32> -> tensor<?xf32>
  %r = soac.reverse %m [0, 1] : tensor<?x?xf32>
  func.return %m, %f, %r : tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>
}

// CHECK-LABEL: func.func @reshape_reverse(%xs: tensor<?xf32>, %n: index, %k: index) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
// CHECK-NEXT:    %m = soac.reshape %xs (%n, %k) : tensor<?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:    %nk = arith.muli %n, %k : index
// CHECK-NEXT:    %f = soac.reshape %m (%nk) : tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NEXT:    %r = soac.reverse %m [0, 1] : tensor<?x?xf32>
// CHECK-NEXT:    func.return %m, %f, %r : tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "reshape_reverse", function_type = (tensor<?xf32>, index, index) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%xs: tensor<?xf32>, %n: index, %k: index):
// CHECK-GENERIC-NEXT:    %m = "soac.reshape"(%xs, %n, %k) : (tensor<?xf32>, index, index) -> tensor<?x?xf32>
// CHECK-GENERIC-NEXT:    %nk = "arith.muli"(%n, %k) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
// CHECK-GENERIC-NEXT:    %f = "soac.reshape"(%m, %nk) : (tensor<?x?xf32>, index) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:    %r = "soac.reverse"(%m) <{dimensions = array<i64: 0, 1>}> : (tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-GENERIC-NEXT:    "func.return"(%m, %f, %r) : (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @rotate(%m: tensor<?x?xf32>, %k: index) -> tensor<?x?xf32> {
  %r = soac.rotate %m by %k : tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @rotate(%m: tensor<?x?xf32>, %k: index) -> tensor<?x?xf32> {
// CHECK-NEXT:    %r = soac.rotate %m by %k : tensor<?x?xf32>
// CHECK-NEXT:    func.return %r : tensor<?x?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "rotate", function_type = (tensor<?x?xf32>, index) -> tensor<?x?xf32>}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%m: tensor<?x?xf32>, %k: index):
// CHECK-GENERIC-NEXT:    %r = "soac.rotate"(%m, %k) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
// CHECK-GENERIC-NEXT:    "func.return"(%r) : (tensor<?x?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @index(%m: tensor<?x?xf32>, %i: index, %j: index) -> (f32, tensor<?xf32>) {
  %e = soac.index %m[%i, %j] : tensor<?x?xf32> -> f32
  %row = soac.index %m[%i] : tensor<?x?xf32> -> tensor<?xf32>
  func.return %e, %row : f32, tensor<?xf32>
}

// CHECK-LABEL: func.func @index(%m: tensor<?x?xf32>, %i: index, %j: index) -> (f32, tensor<?xf32>) {
// CHECK-NEXT:    %e = soac.index %m[%i, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:    %row = soac.index %m[%i] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NEXT:    func.return %e, %row : f32, tensor<?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "index", function_type = (tensor<?x?xf32>, index, index) -> (f32, tensor<?xf32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%m: tensor<?x?xf32>, %i: index, %j: index):
// CHECK-GENERIC-NEXT:    %e = "soac.index"(%m, %i, %j) : (tensor<?x?xf32>, index, index) -> f32
// CHECK-GENERIC-NEXT:    %row = "soac.index"(%m, %i) : (tensor<?x?xf32>, index) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:    "func.return"(%e, %row) : (f32, tensor<?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @slice(%xs: tensor<?xf32>, %m: tensor<?x3xi16>, %i: index, %j: index) -> (tensor<?xf32>, tensor<?x3xi16>) {
  %s = soac.slice %xs[%i : %j] : tensor<?xf32> -> tensor<?xf32>
  %t = soac.slice %m[%i : %j] : tensor<?x3xi16> -> tensor<?x3xi16>
  func.return %s, %t : tensor<?xf32>, tensor<?x3xi16>
}

// CHECK-LABEL: func.func @slice(%xs: tensor<?xf32>, %m: tensor<?x3xi16>, %i: index, %j: index) -> (tensor<?xf32>, tensor<?x3xi16>) {
// CHECK-NEXT:    %s = soac.slice %xs[%i : %j] : tensor<?xf32> -> tensor<?xf32>
// CHECK-NEXT:    %t = soac.slice %m[%i : %j] : tensor<?x3xi16> -> tensor<?x3xi16>
// CHECK-NEXT:    func.return %s, %t : tensor<?xf32>, tensor<?x3xi16>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "slice", function_type = (tensor<?xf32>, tensor<?x3xi16>, index, index) -> (tensor<?xf32>, tensor<?x3xi16>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%xs: tensor<?xf32>, %m: tensor<?x3xi16>, %i: index, %j: index):
// CHECK-GENERIC-NEXT:    %s = "soac.slice"(%xs, %i, %j) : (tensor<?xf32>, index, index) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:    %t = "soac.slice"(%m, %i, %j) : (tensor<?x3xi16>, index, index) -> tensor<?x3xi16>
// CHECK-GENERIC-NEXT:    "func.return"(%s, %t) : (tensor<?xf32>, tensor<?x3xi16>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @update(%xs: tensor<?xf32>, %m: tensor<?x?xf32>, %row: tensor<?xf32>, %i: index, %j: index, %v: f32) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %ys = soac.update %xs[%i] = %v : tensor<?xf32>, f32
  %n = soac.update %m[%i] = %row : tensor<?x?xf32>, tensor<?xf32>
  %o = soac.update %n[%i, %j] = %v : tensor<?x?xf32>, f32
  func.return %ys, %o : tensor<?xf32>, tensor<?x?xf32>
}

// CHECK-LABEL: func.func @update(%xs: tensor<?xf32>, %m: tensor<?x?xf32>, %row: tensor<?xf32>, %i: index, %j: index, %v: f32) -> (tensor<?xf32>, tensor<?x?xf32>) {
// CHECK-NEXT:    %ys = soac.update %xs[%i] = %v : tensor<?xf32>, f32
// CHECK-NEXT:    %n = soac.update %m[%i] = %row : tensor<?x?xf32>, tensor<?xf32>
// CHECK-NEXT:    %o = soac.update %n[%i, %j] = %v : tensor<?x?xf32>, f32
// CHECK-NEXT:    func.return %ys, %o : tensor<?xf32>, tensor<?x?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "update", function_type = (tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, index, index, f32) -> (tensor<?xf32>, tensor<?x?xf32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%xs: tensor<?xf32>, %m: tensor<?x?xf32>, %row: tensor<?xf32>, %i: index, %j: index, %v: f32):
// CHECK-GENERIC-NEXT:    %ys = "soac.update"(%xs, %i, %v) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<?xf32>, index, f32) -> tensor<?xf32>
// CHECK-GENERIC-NEXT:    %n = "soac.update"(%m, %i, %row) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<?x?xf32>, index, tensor<?xf32>) -> tensor<?x?xf32>
// CHECK-GENERIC-NEXT:    %o = "soac.update"(%n, %i, %j, %v) <{operandSegmentSizes = array<i32: 1, 2, 1>}> : (tensor<?x?xf32>, index, index, f32) -> tensor<?x?xf32>
// CHECK-GENERIC-NEXT:    "func.return"(%ys, %o) : (tensor<?xf32>, tensor<?x?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @threshold(%par: index) -> (i1, i1, i1) {
  %a = soac.threshold "suff_outer_par_0" %par default 32768
  %b = soac.threshold "suff_intra_par_1" %par default 32 attributes {note = "intra-group"}
  %c = soac.threshold "suff_outer_par_2" %par default 32768 device "resident"
  func.return %a, %b, %c : i1, i1, i1
}

// CHECK-LABEL: func.func @threshold(%par: index) -> (i1, i1, i1) {
// CHECK-NEXT:    %a = soac.threshold "suff_outer_par_0" %par default 32768
// CHECK-NEXT:    %b = soac.threshold "suff_intra_par_1" %par default 32 attributes {note = "intra-group"}
// CHECK-NEXT:    %c = soac.threshold "suff_outer_par_2" %par default 32768 device "resident"
// CHECK-NEXT:    func.return %a, %b, %c : i1, i1, i1
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "threshold", function_type = (index) -> (i1, i1, i1)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%par: index):
// CHECK-GENERIC-NEXT:    %a = "soac.threshold"(%par) <{threshold = "suff_outer_par_0", default = 32768 : i64}> : (index) -> i1
// CHECK-GENERIC-NEXT:    %b = "soac.threshold"(%par) <{threshold = "suff_intra_par_1", default = 32 : i64}> {note = "intra-group"} : (index) -> i1
// CHECK-GENERIC-NEXT:    %c = "soac.threshold"(%par) <{threshold = "suff_outer_par_2", default = 32768 : i64, on_device = "resident"}> : (index) -> i1
// CHECK-GENERIC-NEXT:    "func.return"(%a, %b, %c) : (i1, i1, i1) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @assert(%n: index, %rows: index) {
  %same = arith.cmpi eq, %n, %rows : index
  soac.assert %same, "'soac.map': width {0} does not match the outer size {1} of input #0" (%n, %rows : index, index)
  soac.assert %same, "sizes differ"
  func.return
}

// CHECK-LABEL: func.func @assert(%n: index, %rows: index) {
// CHECK-NEXT:    %same = arith.cmpi eq, %n, %rows : index
// CHECK-NEXT:    soac.assert %same, "'soac.map': width {0} does not match the outer size {1} of input #0" (%n, %rows : index, index)
// CHECK-NEXT:    soac.assert %same, "sizes differ"
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "assert", function_type = (index, index) -> ()}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %rows: index):
// CHECK-GENERIC-NEXT:    %same = "arith.cmpi"(%n, %rows) <{predicate = 0 : i64}> : (index, index) -> i1
// CHECK-GENERIC-NEXT:    "soac.assert"(%same, %n, %rows) <{message = "'soac.map': width {0} does not match the outer size {1} of input #0"}> : (i1, index, index) -> ()
// CHECK-GENERIC-NEXT:    "soac.assert"(%same) <{message = "sizes differ"}> : (i1) -> ()
// CHECK-GENERIC-NEXT:    "func.return"() : () -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

// scanomap with a reduction part (Futhark's Screma with scans and reductions): the lambda yields the
// scanned values, then the reduced values, then map-outs; results: scan arrays, reduced scalars, map-outs.
func.func @scanomap_reduce(%n: index, %xs: tensor<?xf32>, %z: f32, %one: f32) -> (tensor<?xf32>, f32, tensor<?xf32>) {
  %s, %p, %sq = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) reduce(%one : f32) -> (tensor<?xf32>, f32, tensor<?xf32>) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } reduce_combine(%a: f32, %b: f32) {
    %c = arith.mulf %a, %b : f32
    soac.yield %c : f32
  } lambda(%x: f32) {
    %q = arith.mulf %x, %x : f32
    soac.yield %x, %x, %q : f32, f32, f32
  }
  func.return %s, %p, %sq : tensor<?xf32>, f32, tensor<?xf32>
}

// CHECK-LABEL: func.func @scanomap_reduce(%n: index, %xs: tensor<?xf32>, %z: f32, %one: f32) -> (tensor<?xf32>, f32, tensor<?xf32>) {
// CHECK-NEXT:    %s, %p, %sq = soac.scanomap %n (%xs : tensor<?xf32>) neutral(%z : f32) reduce(%one : f32) -> (tensor<?xf32>, f32, tensor<?xf32>) combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    } reduce_combine(%a_1: f32, %b_1: f32) {
// CHECK-NEXT:      %c_1 = arith.mulf %a_1, %b_1 : f32
// CHECK-NEXT:      soac.yield %c_1 : f32
// CHECK-NEXT:    } lambda(%x: f32) {
// CHECK-NEXT:      %q = arith.mulf %x, %x : f32
// CHECK-NEXT:      soac.yield %x, %x, %q : f32, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s, %p, %sq : tensor<?xf32>, f32, tensor<?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scanomap_reduce", function_type = (index, tensor<?xf32>, f32, f32) -> (tensor<?xf32>, f32, tensor<?xf32>)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>, %z: f32, %one: f32):
// CHECK-GENERIC-NEXT:    %s, %p, %sq = "soac.scanomap"(%n, %z, %xs, %one) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: f32, %b: f32):
// CHECK-GENERIC-NEXT:      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32):
// CHECK-GENERIC-NEXT:      %q = "arith.mulf"(%x, %x) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%x, %x, %q) : (f32, f32, f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%a_1: f32, %b_1: f32):
// CHECK-GENERIC-NEXT:      %c_1 = "arith.mulf"(%a_1, %b_1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c_1) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, f32, tensor<?xf32>, f32) -> (tensor<?xf32>, f32, tensor<?xf32>)
// CHECK-GENERIC-NEXT:    "func.return"(%s, %p, %sq) : (tensor<?xf32>, f32, tensor<?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

// With a post lambda, two commutative reductions and no map-out.
func.func @scanomap_reduce_post(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>, %z: f32, %zi: i32) -> (tensor<?xi1>, i32, f32) {
  %p, %mx, %sum = soac.scanomap %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) neutral(%z : f32) reduce commutative(%zi, %z : i32, f32) -> (tensor<?xi1>, i32, f32) combine(%a: f32, %b: f32) {
    %c = arith.addf %a, %b : f32
    soac.yield %c : f32
  } reduce_combine(%a: i32, %af: f32, %b: i32, %bf: f32) {
    %c = arith.maxsi %a, %b : i32
    %cf = arith.addf %af, %bf : f32
    soac.yield %c, %cf : i32, f32
  } lambda(%x: f32, %i: i32) {
    soac.yield %x, %i, %x : f32, i32, f32
  } post(%s: f32, %x: f32, %i: i32) {
    %gt = arith.cmpf ogt, %s, %x : f32
    soac.yield %gt : i1
  }
  func.return %p, %mx, %sum : tensor<?xi1>, i32, f32
}

// CHECK-LABEL: func.func @scanomap_reduce_post(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>, %z: f32, %zi: i32) -> (tensor<?xi1>, i32, f32) {
// CHECK-NEXT:    %p, %mx, %sum = soac.scanomap %n (%xs, %is : tensor<?xf32>, tensor<?xi32>) neutral(%z : f32) reduce commutative(%zi, %z : i32, f32) -> (tensor<?xi1>, i32, f32) combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %c : f32
// CHECK-NEXT:    } reduce_combine(%a_1: i32, %af: f32, %b_1: i32, %bf: f32) {
// CHECK-NEXT:      %c_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      %cf = arith.addf %af, %bf : f32
// CHECK-NEXT:      soac.yield %c_1, %cf : i32, f32
// CHECK-NEXT:    } lambda(%x: f32, %i: i32) {
// CHECK-NEXT:      soac.yield %x, %i, %x : f32, i32, f32
// CHECK-NEXT:    } post(%s: f32, %x_1: f32, %i_1: i32) {
// CHECK-NEXT:      %gt = arith.cmpf ogt, %s, %x_1 : f32
// CHECK-NEXT:      soac.yield %gt : i1
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %p, %mx, %sum : tensor<?xi1>, i32, f32
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scanomap_reduce_post", function_type = (index, tensor<?xf32>, tensor<?xi32>, f32, i32) -> (tensor<?xi1>, i32, f32)}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %xs: tensor<?xf32>, %is: tensor<?xi32>, %z: f32, %zi: i32):
// CHECK-GENERIC-NEXT:    %p, %mx, %sum = "soac.scanomap"(%n, %z, %xs, %is, %zi, %z) <{operandSegmentSizes = array<i32: 1, 1, 2, 2>, reduce_commutative}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: f32, %b: f32):
// CHECK-GENERIC-NEXT:      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32, %i: i32):
// CHECK-GENERIC-NEXT:      "soac.yield"(%x, %i, %x) : (f32, i32, f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%s: f32, %x_1: f32, %i_1: i32):
// CHECK-GENERIC-NEXT:      %gt = "arith.cmpf"(%s, %x_1) <{predicate = 2 : i64, fastmath = #arith.fastmath<none>}> : (f32, f32) -> i1
// CHECK-GENERIC-NEXT:      "soac.yield"(%gt) : (i1) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%a_1: i32, %af: f32, %b_1: i32, %bf: f32):
// CHECK-GENERIC-NEXT:      %c_1 = "arith.maxsi"(%a_1, %b_1) : (i32, i32) -> i32
// CHECK-GENERIC-NEXT:      %cf = "arith.addf"(%af, %bf) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%c_1, %cf) : (i32, f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, f32, tensor<?xf32>, tensor<?xi32>, i32, f32) -> (tensor<?xi1>, i32, f32)
// CHECK-GENERIC-NEXT:    "func.return"(%p, %mx, %sum) : (tensor<?xi1>, i32, f32) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

// tiled_redomap: reads by symbols, tile sizes as properties
func.func @tiled_redomap(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %zero: f32) -> tensor<?x?xf32> {
  %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [64, 32] reg [4, 2] chunk 16 reads(%a[d0, k], %b[k, d1] : tensor<?x?xf32>, tensor<?x?xf32>) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
    %u = arith.addf %s, %t : f32
    soac.yield %u : f32
  } lambda(%x: f32, %y: f32) {
    %p = arith.mulf %x, %y : f32
    soac.yield %p : f32
  }
  func.return %c : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @tiled_redomap(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %zero: f32) -> tensor<?x?xf32> {
// CHECK-NEXT:    %c = soac.tiled_redomap (%n, %m) reduce %k tile "tile_0" block [64, 32] reg [4, 2] chunk 16 reads(%a[d0, k], %b[k, d1] : tensor<?x?xf32>, tensor<?x?xf32>) neutral(%zero : f32) -> tensor<?x?xf32> combine(%s: f32, %t: f32) {
// CHECK-NEXT:      %u = arith.addf %s, %t : f32
// CHECK-NEXT:      soac.yield %u : f32
// CHECK-NEXT:    } lambda(%x: f32, %y: f32) {
// CHECK-NEXT:      %p = arith.mulf %x, %y : f32
// CHECK-NEXT:      soac.yield %p : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c : tensor<?x?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "tiled_redomap", function_type = (index, index, index, tensor<?x?xf32>, tensor<?x?xf32>, f32) -> tensor<?x?xf32>}> ({
// CHECK-GENERIC-NEXT:  ^bb0(%n: index, %m: index, %k: index, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %zero: f32):
// CHECK-GENERIC-NEXT:    %c = "soac.tiled_redomap"(%n, %m, %k, %a, %b, %zero) <{tile = "tile_0", access = [array<i64: 0, -1>, array<i64: -1, 1>], block = array<i64: 64, 32>, reg = array<i64: 4, 2>, chunk = 16 : i64, operandSegmentSizes = array<i32: 2, 1, 2, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%s: f32, %t: f32):
// CHECK-GENERIC-NEXT:      %u = "arith.addf"(%s, %t) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%u) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }, {
// CHECK-GENERIC-NEXT:    ^bb0(%x: f32, %y: f32):
// CHECK-GENERIC-NEXT:      %p = "arith.mulf"(%x, %y) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-GENERIC-NEXT:      "soac.yield"(%p) : (f32) -> ()
// CHECK-GENERIC-NEXT:    }) : (index, index, index, tensor<?x?xf32>, tensor<?x?xf32>, f32) -> tensor<?x?xf32>
// CHECK-GENERIC-NEXT:    "func.return"(%c) : (tensor<?x?xf32>) -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @hist_pair(%n: index, %is: tensor<?xi32>, %ws: tensor<?xf32>, %best: tensor<?xf32>, %arg: tensor<?xi32>, %lo: f32, %none: i32) -> (tensor<?xf32>, tensor<?xi32>) {
  %iota = soac.iota %n : tensor<?xi32>
  %h, %a = soac.hist %n (%is, %ws, %iota : tensor<?xi32>, tensor<?xf32>, tensor<?xi32>) into(%best, %arg : tensor<?xf32>, tensor<?xi32>) neutral(%lo, %none : f32, i32) -> (tensor<?xf32>, tensor<?xi32>) combine(%x: f32, %i: i32, %y: f32, %j: i32) {
    %take = arith.cmpf ogt, %y, %x : f32
    %v = arith.select %take, %y, %x : f32
    %k = arith.select %take, %j, %i : i32
    soac.yield %v, %k : f32, i32
  } lambda(%b: i32, %w: f32, %r: i32) {
    %bin = arith.index_cast %b : i32 to index
    soac.yield %bin, %w, %r : index, f32, i32
  }
  func.return %h, %a : tensor<?xf32>, tensor<?xi32>
}

// CHECK-LABEL: func.func @hist_pair(%n: index, %is: tensor<?xi32>, %ws: tensor<?xf32>, %best: tensor<?xf32>, %arg: tensor<?xi32>, %lo: f32, %none: i32) -> (tensor<?xf32>, tensor<?xi32>) {
// CHECK-NEXT:    %iota = soac.iota %n : tensor<?xi32>
// CHECK-NEXT:    %h, %a = soac.hist %n (%is, %ws, %iota : tensor<?xi32>, tensor<?xf32>, tensor<?xi32>) into(%best, %arg : tensor<?xf32>, tensor<?xi32>) neutral(%lo, %none : f32, i32) -> (tensor<?xf32>, tensor<?xi32>) combine(%x: f32, %i: i32, %y: f32, %j: i32) {
// CHECK-NEXT:      %take = arith.cmpf ogt, %y, %x : f32
// CHECK-NEXT:      %v = arith.select %take, %y, %x : f32
// CHECK-NEXT:      %k = arith.select %take, %j, %i : i32
// CHECK-NEXT:      soac.yield %v, %k : f32, i32
// CHECK-NEXT:    } lambda(%b: i32, %w: f32, %r: i32) {
// CHECK-NEXT:      %bin = arith.index_cast %b : i32 to index
// CHECK-NEXT:      soac.yield %bin, %w, %r : index, f32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %h, %a : tensor<?xf32>, tensor<?xi32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "hist_pair"
// CHECK-GENERIC:    "soac.hist"(%n, %is, %ws, %iota, %best, %arg, %lo, %none) <{operandSegmentSizes = array<i32: 1, 3, 2, 2>}> ({

// A hist whose bins are rows: rows as values, neutral element and operator parameters (the operator adds rows).
func.func @hist_rows(%n: index, %d: index, %is: tensor<?xindex>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>, %zeros: tensor<?xf32>) -> tensor<?x?xf32> {
  %h = soac.hist %n (%is, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%zeros : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %b: tensor<?xf32>) {
    %s = soac.map %d (%a, %b : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
      %t = arith.addf %x, %y : f32
      soac.yield %t : f32
    }
    soac.yield %s : tensor<?xf32>
  } lambda(%i: index, %p: tensor<?xf32>) {
    soac.yield %i, %p : index, tensor<?xf32>
  }
  func.return %h : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @hist_rows(%n: index, %d: index, %is: tensor<?xindex>, %ps: tensor<?x?xf32>, %dest: tensor<?x?xf32>, %zeros: tensor<?xf32>) -> tensor<?x?xf32> {
// CHECK-NEXT:    %h = soac.hist %n (%is, %ps : tensor<?xindex>, tensor<?x?xf32>) into(%dest : tensor<?x?xf32>) neutral(%zeros : tensor<?xf32>) -> tensor<?x?xf32> combine(%a: tensor<?xf32>, %b: tensor<?xf32>) {
// CHECK-NEXT:      %s = soac.map %d (%a, %b : tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32, %y: f32) {
// CHECK-NEXT:        %t = arith.addf %x, %y : f32
// CHECK-NEXT:        soac.yield %t : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %s : tensor<?xf32>
// CHECK-NEXT:    } lambda(%i: index, %p: tensor<?xf32>) {
// CHECK-NEXT:      soac.yield %i, %p : index, tensor<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %h : tensor<?x?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "hist_rows"
// CHECK-GENERIC:    "soac.hist"(%n, %is, %ps, %dest, %zeros) <{operandSegmentSizes = array<i32: 1, 2, 1, 1>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: tensor<?xf32>, %b: tensor<?xf32>):

func.func @seghist(%n: index, %m: index, %iss: tensor<?x?xi32>, %ws: tensor<?x?xf32>, %d: tensor<?x8xf32>, %z: f32) -> tensor<?x8xf32> {
  %h = soac.seghist thread (%n, %m) into(%d : tensor<?x8xf32>) neutral(%z : f32) -> tensor<?x8xf32> combine(%a: f32, %b: f32) {
    %s = arith.addf %a, %b : f32
    soac.yield %s : f32
  } lambda(%i: index, %j: index) {
    %bin = soac.index %iss[%i, %j] : tensor<?x?xi32> -> i32
    %w = soac.index %ws[%i, %j] : tensor<?x?xf32> -> f32
    soac.yield %bin, %w : i32, f32
  }
  func.return %h : tensor<?x8xf32>
}

// CHECK-LABEL: func.func @seghist(%n: index, %m: index, %iss: tensor<?x?xi32>, %ws: tensor<?x?xf32>, %d: tensor<?x8xf32>, %z: f32) -> tensor<?x8xf32> {
// CHECK-NEXT:    %h = soac.seghist thread (%n, %m) into(%d : tensor<?x8xf32>) neutral(%z : f32) -> tensor<?x8xf32> combine(%a: f32, %b: f32) {
// CHECK-NEXT:      %s = arith.addf %a, %b : f32
// CHECK-NEXT:      soac.yield %s : f32
// CHECK-NEXT:    } lambda(%i: index, %j: index) {
// CHECK-NEXT:      %bin = soac.index %iss[%i, %j] : tensor<?x?xi32> -> i32
// CHECK-NEXT:      %w = soac.index %ws[%i, %j] : tensor<?x?xf32> -> f32
// CHECK-NEXT:      soac.yield %bin, %w : i32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %h : tensor<?x8xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "seghist"
// CHECK-GENERIC:    "soac.seghist"(%n, %m, %d, %z) <{level = #soac<level thread>, operandSegmentSizes = array<i32: 2, 1, 1>}> ({

// -----

func.func @stencil_two(%n: index, %m: index, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %z: f32) -> tensor<?x?xf32> {
  %s = soac.stencil (%n, %m) window [1, 3] constant(%z, %z : f32, f32) tile [8, 32] (%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%a0: f32, %a1: f32, %a2: f32, %b0: f32, %b1: f32, %b2: f32) {
    %d = arith.subf %a2, %a0 : f32
    %e = arith.mulf %d, %b1 : f32
    soac.yield %e : f32
  }
  func.return %s : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @stencil_two(%n: index, %m: index, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %z: f32) -> tensor<?x?xf32> {
// CHECK-NEXT:    %s = soac.stencil (%n, %m) window [1, 3] constant(%z, %z : f32, f32) tile [8, 32] (%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> lambda(%a0: f32, %a1: f32, %a2: f32, %b0: f32, %b1: f32, %b2: f32) {
// CHECK-NEXT:      %d = arith.subf %a2, %a0 : f32
// CHECK-NEXT:      %e = arith.mulf %d, %b1 : f32
// CHECK-NEXT:      soac.yield %e : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %s : tensor<?x?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "stencil_two"
// CHECK-GENERIC:    "soac.stencil"(%n, %m, %a, %b, %z, %z) <{window = array<i64: 1, 3>, boundary = #soac<boundary constant>, tile = array<i64: 8, 32>, operandSegmentSizes = array<i32: 2, 2, 2>}> ({

// -----

// a property.

func.func @by_digit(%n: index, %ks: tensor<?xi32>, %vs: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
  %mask = arith.constant 255 : i32
  %counts, %ys, %ws = soac.partition %n buckets 256 (%ks, %vs : tensor<?xi32>, tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) lambda(%k: i32, %v: f32) {
    %d = arith.andi %k, %mask : i32
    %b = arith.index_cast %d : i32 to index
    soac.yield %b, %k, %v : index, i32, f32
  }
  func.return %counts, %ys, %ws : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @by_digit(%n: index, %ks: tensor<?xi32>, %vs: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) {
// CHECK-NEXT:    %mask = arith.constant 255 : i32
// CHECK-NEXT:    %counts, %ys, %ws = soac.partition %n buckets 256 (%ks, %vs : tensor<?xi32>, tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>) lambda(%k: i32, %v: f32) {
// CHECK-NEXT:      %d = arith.andi %k, %mask : i32
// CHECK-NEXT:      %b = arith.index_cast %d : i32 to index
// CHECK-NEXT:      soac.yield %b, %k, %v : index, i32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %counts, %ys, %ws : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "by_digit"
// CHECK-GENERIC:         %counts, %ys, %ws = "soac.partition"(%n, %ks, %vs) <{buckets = 256 : i64, operandSegmentSizes = array<i32: 1, 2, 0>}> ({
// CHECK-GENERIC-NEXT:    ^bb0(%k: i32, %v: f32):

// -----

// A filter's shape: one bucket (kept rows), the rest last; the moved value need not be an input.
func.func @keep_positive(%n: index, %xs: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) {
  %counts, %ys = soac.partition %n buckets 1 (%xs : tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) lambda(%x: f32) {
    %z = arith.constant 0.0 : f32
    %keep = arith.cmpf ogt, %x, %z : f32
    %drop = arith.extui %keep : i1 to i32
    %b = arith.xori %drop, %drop : i32
    %y = arith.mulf %x, %x : f32
    soac.yield %b, %y : i32, f32
  }
  func.return %counts, %ys : tensor<?xi32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @keep_positive
// CHECK:         %counts, %ys = soac.partition %n buckets 1 (%xs : tensor<?xf32>) -> (tensor<?xi32>, tensor<?xf32>) lambda(%x: f32) {
// CHECK:           soac.yield %b, %y : i32, f32

// -----

// Known bucket counts (Onesweep: a sort's upfront histogram) come before the inputs.
func.func @known_counts(%n: index, %ks: tensor<?xi32>, %known: tensor<?xi32>) -> tensor<?xi32> {
  %counts, %ys = soac.partition %n buckets 16 counts(%known : tensor<?xi32>) (%ks : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%k: i32) {
    %b = arith.index_cast %k : i32 to index
    soac.yield %b, %k : index, i32
  }
  func.return %ys : tensor<?xi32>
}

// CHECK-LABEL: func.func @known_counts
// CHECK-NEXT:    %counts, %ys = soac.partition %n buckets 16 counts(%known : tensor<?xi32>) (%ks : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%k: i32) {

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "known_counts"
// CHECK-GENERIC:         "soac.partition"(%n, %ks, %known) <{buckets = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1>}> ({
