// map -> reduce: sum (map (\x -> 3*x + 1) xs).  soac-fuse makes one redomap.
// numpy: np.sum(3 * xs + 1, dtype=np.int32)
func.func @main(%xs: tensor<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %ys = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %three = arith.constant 3 : i32
    %one = arith.constant 1 : i32
    %x3 = arith.muli %x, %three : i32
    %y = arith.addi %x3, %one : i32
    soac.yield %y : i32
  }
  %zero = arith.constant 0 : i32
  %s = soac.reduce commutative %n (%ys : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
    %t = arith.addi %a, %b : i32
    soac.yield %t : i32
  }
  func.return %s : i32
}
