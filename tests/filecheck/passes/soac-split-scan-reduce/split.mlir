// RUN: soac-opt %s -p soac-split-scan-reduce | filecheck %s
// RUN: soac-opt %s -p soac-to-kernel > /dev/null

// soac-split-scan-reduce: a scanomap with a reduction part becomes a scanomap and a redomap over the same
// inputs. soac-flatten does the same to such ops in lambdas, and soac-to-kernel to those its look-back kernel
// does not scan and reduce in one pass (tests/filecheck/lowering/lookback-scan-reduce.mlir); run before
// soac-to-kernel, the pass forces the split.

// The lambda is cloned into a scanomap (scanned values and map-outs, with the post lambda) and a
// redomap (reduced values); each clone keeps only the code it needs. The redomap stays commutative.
// CHECK-LABEL: func.func @split(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %z: i32, %lo: i32) -> (tensor<?xi32>, i32, tensor<?xi32>) {
// CHECK-NEXT:    %d, %m = soac.scanomap %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %c = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %c : i32
// CHECK-NEXT:    } lambda(%x: i32, %y: i32) {
// CHECK-NEXT:      %sq = arith.muli %x, %x : i32
// CHECK-NEXT:      %diff = arith.subi %x, %y : i32
// CHECK-NEXT:      soac.yield %sq, %diff : i32, i32
// CHECK-NEXT:    } post(%s: i32, %x_1: i32, %y_1: i32) {
// CHECK-NEXT:      %e = arith.subi %s, %x_1 : i32
// CHECK-NEXT:      soac.yield %e : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %mx = soac.redomap commutative %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%lo : i32) -> i32 combine(%a_1: i32, %b_1: i32) {
// CHECK-NEXT:      %c_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %c_1 : i32
// CHECK-NEXT:    } lambda(%x_2: i32, %y_2: i32) {
// CHECK-NEXT:      %sum = arith.addi %x_2, %y_2 : i32
// CHECK-NEXT:      soac.yield %sum : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %d, %mx, %m : tensor<?xi32>, i32, tensor<?xi32>
// CHECK-NEXT:  }
func.func @split(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %z: i32, %lo: i32) -> (tensor<?xi32>, i32, tensor<?xi32>) {
  %d, %mx, %m = soac.scanomap %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%z : i32) reduce commutative(%lo : i32) -> (tensor<?xi32>, i32, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %c = arith.addi %a, %b : i32
    soac.yield %c : i32
  } reduce_combine(%a: i32, %b: i32) {
    %c = arith.maxsi %a, %b : i32
    soac.yield %c : i32
  } lambda(%x: i32, %y: i32) {
    %sq = arith.muli %x, %x : i32
    %sum = arith.addi %x, %y : i32
    %diff = arith.subi %x, %y : i32
    soac.yield %sq, %sum, %diff : i32, i32, i32
  } post(%s: i32, %x: i32, %y: i32) {
    %e = arith.subi %s, %x : i32
    soac.yield %e : i32
  }
  func.return %d, %mx, %m : tensor<?xi32>, i32, tensor<?xi32>
}

// Inside a lambda too.
// CHECK-LABEL: func.func @nested(%n: index, %m: index, %xss: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %ss, %ms = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) lambda(%row: tensor<?xi32>) {
// CHECK-NEXT:      %z = arith.constant 0 : i32
// CHECK-NEXT:      %s = soac.scanomap %m (%row : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:        %c = arith.addi %a, %b : i32
// CHECK-NEXT:        soac.yield %c : i32
// CHECK-NEXT:      } lambda(%x: i32) {
// CHECK-NEXT:        soac.yield %x : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      %mx = soac.redomap %m (%row : tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a_1: i32, %b_1: i32) {
// CHECK-NEXT:        %c_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:        soac.yield %c_1 : i32
// CHECK-NEXT:      } lambda(%x_1: i32) {
// CHECK-NEXT:        soac.yield %x_1 : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      soac.yield %s, %mx : tensor<?xi32>, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %ss, %ms : tensor<?x?xi32>, tensor<?xi32>
// CHECK-NEXT:  }
func.func @nested(%n: index, %m: index, %xss: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) {
  %ss, %ms = soac.map %n (%xss : tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?xi32>) lambda(%row: tensor<?xi32>) {
    %z = arith.constant 0 : i32
    %s, %mx = soac.scanomap %m (%row : tensor<?xi32>) neutral(%z : i32) reduce(%z : i32) -> (tensor<?xi32>, i32) combine(%a: i32, %b: i32) {
      %c = arith.addi %a, %b : i32
      soac.yield %c : i32
    } reduce_combine(%a: i32, %b: i32) {
      %c = arith.maxsi %a, %b : i32
      soac.yield %c : i32
    } lambda(%x: i32) {
      soac.yield %x, %x : i32, i32
    }
    soac.yield %s, %mx : tensor<?xi32>, i32
  }
  func.return %ss, %ms : tensor<?x?xi32>, tensor<?xi32>
}

// The scanomap part keeps the map-outs and the forwarded values (the last yields) and the post lambda.
// CHECK-LABEL: func.func @split_forwarding(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32, tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %r, %m = soac.scanomap %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%z : i32) -> (tensor<?xi32>, tensor<?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %s = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %s : i32
// CHECK-NEXT:    } lambda(%x: i32, %y: i32) {
// CHECK-NEXT:      %p = arith.muli %x, %y : i32
// CHECK-NEXT:      %q = arith.xori %x, %y : i32
// CHECK-NEXT:      soac.yield %p, %x, %q, %p : i32, i32, i32, i32
// CHECK-NEXT:    } post(%s_1: i32, %x_1: i32, %y_1: i32, %fq: i32, %fp: i32) {
// CHECK-NEXT:      %u = arith.subi %s_1, %fq : i32
// CHECK-NEXT:      %v = arith.addi %u, %fp : i32
// CHECK-NEXT:      soac.yield %v : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %t = soac.redomap %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%z : i32) -> i32 combine(%a_1: i32, %b_1: i32) {
// CHECK-NEXT:      %s_2 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %s_2 : i32
// CHECK-NEXT:    } lambda(%x_2: i32, %y_2: i32) {
// CHECK-NEXT:      %q_1 = arith.xori %x_2, %y_2 : i32
// CHECK-NEXT:      soac.yield %q_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %w = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a_2: i32, %b_2: i32) {
// CHECK-NEXT:      %s_3 = arith.addi %a_2, %b_2 : i32
// CHECK-NEXT:      soac.yield %s_3 : i32
// CHECK-NEXT:    } lambda(%x_3: i32) {
// CHECK-NEXT:      soac.yield %x_3 : i32
// CHECK-NEXT:    } post(%s_4: i32, %x_4: i32) {
// CHECK-NEXT:      %u_1 = arith.subi %s_4, %x_4 : i32
// CHECK-NEXT:      soac.yield %u_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r, %t, %m, %w : tensor<?xi32>, i32, tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:  }
func.func @split_forwarding(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32, tensor<?xi32>, tensor<?xi32>) {
  %r, %t, %m = soac.scanomap %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%z : i32) reduce(%z : i32) -> (tensor<?xi32>, i32, tensor<?xi32>) combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } reduce_combine(%a: i32, %b: i32) {
    %s = arith.maxsi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32, %y: i32) {
    %p = arith.muli %x, %y : i32
    %q = arith.xori %x, %y : i32
    soac.yield %p, %q, %x, %q, %p : i32, i32, i32, i32, i32
  } post(%s: i32, %x: i32, %y: i32, %fq: i32, %fp: i32) {
    %u = arith.subi %s, %fq : i32
    %v = arith.addi %u, %fp : i32
    soac.yield %v : i32
  }
  %w = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32) {
    soac.yield %x : i32
  } post(%s: i32, %x: i32) {
    %u = arith.subi %s, %x : i32
    soac.yield %u : i32
  }
  func.return %r, %t, %m, %w : tensor<?xi32>, i32, tensor<?xi32>, tensor<?xi32>
}

