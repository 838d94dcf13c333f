// RUN: soac-opt %s -p 'soac-flatten{mode=full}' | filecheck %s

// map (scanomap with a forwarded value): the segscan stores the forwarded values as one more array over the nest
// (no result of the nest), and the segmap applying the post lambda reads them.
// CHECK-LABEL: func.func @map_of_forwarding_scanomap(%xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
// CHECK-NEXT:    %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
// CHECK-NEXT:    %z = arith.constant 0 : i32
// CHECK-NEXT:    %0, %1 = soac.segscan thread (%n, %m) neutral(%z : i32) -> (tensor<?x?xi32>, tensor<?x?xi32>) combine(%a: i32, %b: i32) {
// CHECK-NEXT:      %s = arith.addi %a, %b : i32
// CHECK-NEXT:      soac.yield %s : i32
// CHECK-NEXT:    } lambda(%i: index, %j: index) {
// CHECK-NEXT:      %three = arith.constant 3 : i32
// CHECK-NEXT:      %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
// CHECK-NEXT:      %y = arith.muli %x, %three : i32
// CHECK-NEXT:      %f = arith.addi %y, %x : i32
// CHECK-NEXT:      soac.yield %y, %f : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %out = soac.segmap thread (%n, %m) -> tensor<?x?xi32> lambda(%i_1: index, %j_1: index) {
// CHECK-NEXT:      %s_1 = soac.index %0[%i_1, %j_1] : tensor<?x?xi32> -> i32
// CHECK-NEXT:      %f_1 = soac.index %1[%i_1, %j_1] : tensor<?x?xi32> -> i32
// CHECK-NEXT:      %t = arith.subi %s_1, %f_1 : i32
// CHECK-NEXT:      soac.yield %t : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %out : tensor<?x?xi32>
// CHECK-NEXT:  }
func.func @map_of_forwarding_scanomap(%xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %out = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>) {
    %r = soac.scanomap %m (%xs : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
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
    soac.yield %r : tensor<?xi32>
  }
  func.return %out : tensor<?x?xi32>
}

