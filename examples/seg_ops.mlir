// The flat segmented operations that flattening produces (seed 004), written by
// hand over a 2-D array xss of n rows and m columns:
//
//   doubled = segmap  (i < n, j < m)  2 * xss[i, j]            -- map (map (* 2)) xss
//   sums    = segred  (i < n, j < m)  (+) 0  xss[i, j]         -- map (reduce (+) 0) xss
//   prefix  = segscan (i < n, j < m)  (+) 0  xss[i, j]         -- map (scan (+) 0) xss
//
// numpy: 2 * xss, xss.sum(axis=1), np.cumsum(xss, axis=1). The level says what
// runs a point (a work-item, or for segmap a work-group); it does not change the results.
//
//   soac-run examples/seg_ops.mlir --input '[[1,2,3],[4,5,6]]'
//   result #0 : tensor<?x?xi64> = [[ 2  4  6]
//                                  [ 8 10 12]]
//   result #1 : tensor<?xi64> = [ 6 15]
//   result #2 : tensor<?x?xi64> = [[ 1  3  6]
//                                  [ 4  9 15]]
//
// ==
// input { [[1, 2, 3], [4, 5, 6]] }
// output { [[2, 4, 6], [8, 10, 12]] [6, 15] [[1, 3, 6], [4, 9, 15]] }
// input { empty([0][4]i64) }
// output { empty([0][4]i64) empty([0]i64) empty([0][4]i64) }
// input { empty([3][0]i64) }
// output { empty([3][0]i64) [0, 0, 0] empty([3][0]i64) }
// random input { [100][1000]i64 }
// structure { soac.segmap 1 soac.segred 1 soac.segscan 1 }

func.func @main(%xss: tensor<?x?xi64>) -> (tensor<?x?xi64>, tensor<?xi64>, tensor<?x?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi64>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi64>
  %zero = arith.constant 0 : i64

  // The lambda gets the indices of one point of the index space and reads the array itself.
  %doubled = soac.segmap thread (%n, %m) -> tensor<?x?xi64> lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi64> -> i64
    %y = arith.addi %x, %x : i64
    soac.yield %y : i64
  }
  // Reduces the innermost dimension: one sum per row.
  %sums = soac.segred thread (%n, %m) neutral(%zero : i64) -> tensor<?xi64> combine(%a: i64, %b: i64) {
    %s = arith.addi %a, %b : i64
    soac.yield %s : i64
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi64> -> i64
    soac.yield %x : i64
  }
  // Scans the innermost dimension: prefix sums within every row.
  %prefix = soac.segscan thread (%n, %m) neutral(%zero : i64) -> tensor<?x?xi64> combine(%a: i64, %b: i64) {
    %s = arith.addi %a, %b : i64
    soac.yield %s : i64
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi64> -> i64
    soac.yield %x : i64
  }
  func.return %doubled, %sums, %prefix : tensor<?x?xi64>, tensor<?xi64>, tensor<?x?xi64>
}
