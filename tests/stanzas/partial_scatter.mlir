// Partial scatter: rows whose index falls outside a destination write nothing there (Futhark's scatter,
// Accelerate's `ignore`), with each destination checked on its own, at both ends of the index range.
// ==
// input { [0, -1, 5, 2, 2147483647, -2147483648, 4] [10, 20, 30, 40, 50, 60, 70] [0, 0, 0, 0, 0] [9, 9] }
// output { [10, 0, 40, 0, 70] [10, 9] }
// input { empty([0]i32) empty([0]i32) [1, 2] [3] }
// output { [1, 2] [3] }
// input { [-1, -1, -1] [1, 2, 3] [5, 5] [6] }
// output { [5, 5] [6] }

func.func @main(%is: tensor<?xi32>, %vs: tensor<?xi32>, %dest: tensor<?xi32>, %small: tensor<?xi32>)
    -> (tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %is, %c0 : tensor<?xi32>
  %r, %s = soac.scatter %n (%is, %vs : tensor<?xi32>, tensor<?xi32>) into(%dest, %small : tensor<?xi32>, tensor<?xi32>)
      -> (tensor<?xi32>, tensor<?xi32>) lambda(%i: i32, %v: i32) {
    %j = arith.index_cast %i : i32 to index
    soac.yield %j, %j, %v, %v : index, index, i32, i32
  }
  func.return %r, %s : tensor<?xi32>, tensor<?xi32>
}
