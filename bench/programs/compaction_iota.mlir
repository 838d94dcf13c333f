func.func @main(%xs: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %minus = arith.constant -1 : i32
  %n32 = arith.index_cast %n : index to i32
  %final = arith.subi %n32, %one : i32
  %flags = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi1> lambda(%x: i32) {
    %keep = arith.cmpi sgt, %x, %zero : i32
    soac.yield %keep : i1
  }
  %is = soac.iota %n : tensor<?xi32>
  %fresh = tensor.empty(%n) : tensor<?xi32>
  %count = soac.replicate %c1, %zero : i32 -> tensor<?xi32>
  %at, %last, %total = soac.scanomap %n (%flags, %is : tensor<?xi1>, tensor<?xi32>) neutral(%zero : i32) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>)
      combine(%a0: i32, %b0: i32) {
    %s0 = arith.addi %a0, %b0 : i32
    soac.yield %s0 : i32
  } lambda(%keep: i1, %i: i32) {
    %f = arith.extui %keep : i1 to i32
    soac.yield %f : i32
  } post(%r0: i32, %keep: i1, %i: i32) {
    %before = arith.subi %r0, %one : i32
    %place = arith.select %keep, %before, %minus : i32
    %is_last = arith.cmpi eq, %i, %final : i32
    %slot = arith.select %is_last, %zero, %minus : i32
    soac.yield %place, %slot, %r0 : i32, i32, i32
  }
  %out, %counted = soac.scatter %n (%at, %last, %total, %xs : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) into(%fresh, %count : tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
      lambda(%q: i32, %l: i32, %t: i32, %x: i32) {
    %qi = arith.index_cast %q : i32 to index
    %li = arith.index_cast %l : i32 to index
    soac.yield %qi, %li, %x, %t : index, index, i32, i32
  }
  func.return %out, %counted : tensor<?xi32>, tensor<?xi32>
}
