// RUN: soac-opt %s -p soac-recompute-forwarded | filecheck %s
// RUN: soac-opt %s -p soac-to-kernel > /dev/null

// soac-recompute-forwarded (run by soac-to-kernel): a scanomap's post lambda computes the values its lambda
// forwarded, from the input rows, with a copy of the lambda; the lambda stops yielding them.

// The post lambda recomputes the forwarded value from the input row; the lambda keeps only what the scan needs.
// CHECK-LABEL: func.func @recompute(%xs: tensor<?xi32>) -> tensor<?xi32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %n = tensor.dim %xs, %c0 : tensor<?xi32>
// CHECK-NEXT:    %z = arith.constant 0 : i32
// CHECK-NEXT:    %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %s = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %s : i32
// CHECK-NEXT:    } lambda(%x: i32) {
// CHECK-NEXT:      %three = arith.constant 3 : i32
// CHECK-NEXT:      %y = arith.muli %x, %three : i32
// CHECK-NEXT:      soac.yield %y : i32
// CHECK-NEXT:    } post(%s_1: i32, %x_1: i32) {
// CHECK-NEXT:      %three_1 = arith.constant 3 : i32
// CHECK-NEXT:      %y_1 = arith.muli %x_1, %three_1 : i32
// CHECK-NEXT:      %f = arith.addi %y_1, %x_1 : i32
// CHECK-NEXT:      %t = arith.subi %s_1, %f : i32
// CHECK-NEXT:      soac.yield %t : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<?xi32>
// CHECK-NEXT:  }
func.func @recompute(%xs: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %z = arith.constant 0 : i32
  %r = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%x: i32) {
    %three = arith.constant 3 : i32
    %y = arith.muli %x, %three : i32
    %f = arith.addi %y, %x : i32
    soac.yield %y, %f : i32, i32
  } post(%s: i32, %x: i32, %f: i32) {
    %t = arith.subi %s, %f : i32
    soac.yield %t : i32
  }
  func.return %r : tensor<?xi32>
}

// With a reduction part and a map-out: those stay; only the forwarded yields leave the lambda. A scanomap without
// forwarded values is left alone.
// CHECK-LABEL: func.func @recompute_scanred(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32, tensor<?xi32>, tensor<?xi32>) {
// CHECK-NEXT:    %r, %t, %m = soac.scanomap %n (%xs, %ys : tensor<?xi32>, tensor<?xi32>) neutral(%z : i32) reduce(%z : i32) -> (tensor<?xi32>, i32, tensor<?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %s = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %s : i32
// CHECK-NEXT:    } reduce_combine(%a_1: i32, %b_1: i32) {
// CHECK-NEXT:      %s_1 = arith.maxsi %a_1, %b_1 : i32
// CHECK-NEXT:      soac.yield %s_1 : i32
// CHECK-NEXT:    } lambda(%x: i32, %y: i32) {
// CHECK-NEXT:      %p = arith.muli %x, %y : i32
// CHECK-NEXT:      %q = arith.xori %x, %y : i32
// CHECK-NEXT:      soac.yield %p, %q, %x : i32, i32, i32
// CHECK-NEXT:    } post(%s_2: i32, %x_1: i32, %y_1: i32) {
// CHECK-NEXT:      %p_1 = arith.muli %x_1, %y_1 : i32
// CHECK-NEXT:      %q_1 = arith.xori %x_1, %y_1 : i32
// CHECK-NEXT:      %u = arith.subi %s_2, %q_1 : i32
// CHECK-NEXT:      %v = arith.addi %u, %p_1 : i32
// CHECK-NEXT:      soac.yield %v : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %w = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a_2: i32, %b_2: i32) {
// CHECK-NEXT:      %s_3 = arith.addi %a_2, %b_2 : i32
// CHECK-NEXT:      soac.yield %s_3 : i32
// CHECK-NEXT:    } lambda(%x_2: i32) {
// CHECK-NEXT:      soac.yield %x_2 : i32
// CHECK-NEXT:    } post(%s_4: i32, %x_3: i32) {
// CHECK-NEXT:      %u_1 = arith.subi %s_4, %x_3 : i32
// CHECK-NEXT:      soac.yield %u_1 : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r, %t, %m, %w : tensor<?xi32>, i32, tensor<?xi32>, tensor<?xi32>
// CHECK-NEXT:  }
func.func @recompute_scanred(%n: index, %xs: tensor<?xi32>, %ys: tensor<?xi32>, %z: i32) -> (tensor<?xi32>, i32, tensor<?xi32>, tensor<?xi32>) {
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

