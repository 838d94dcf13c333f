// A histogram built by in-place updates in a sequential loop:
//
//   let hist = replicate bins 0
//   in loop hist for i < n do
//        let b = xs[i]
//        in hist with [b] = hist[b] + 1
//
// soac.update consumes the array it updates (like Futhark's `with`), so no copy
// is needed; fusion must not move a producer across it (thesis, Figure 3).
// Every value of xs must lie in [0, bins) - numpy: np.bincount(xs, minlength=bins).
//
//   soac-run examples/inplace_update.mlir --input '[1,3,1,0,1]' 4
//   result #0 : tensor<?xi32> = [1 3 0 1]
//
// ==
// input { [1, 3, 1, 0, 1] 4i64 }
// output { [1, 3, 0, 1] }
// input { empty([0]i32) 3i64 }
// output { [0, 0, 0] }
// input { [1, 4] 4i64 }
// error: out of bounds
// structure { scf.for 1 soac.update 1 }

func.func @main(%xs: tensor<?xi32>, %bins: index) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32

  %empty = soac.replicate %bins, %zero : i32 -> tensor<?xi32>
  %hist = scf.for %i = %c0 to %n step %c1 iter_args(%h = %empty) -> (tensor<?xi32>) {
    %x = soac.index %xs[%i] : tensor<?xi32> -> i32
    %b = arith.index_cast %x : i32 to index
    %old = soac.index %h[%b] : tensor<?xi32> -> i32
    %new = arith.addi %old, %one : i32
    // The last use of %h: the update may overwrite it in place.
    %h2 = soac.update %h[%b] = %new : tensor<?xi32>, i32
    scf.yield %h2 : tensor<?xi32>
  }
  func.return %hist : tensor<?xi32>
}
