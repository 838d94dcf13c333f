// Segmented (regular) scan of the rows of an m x n array: prefix sums within every row.
// LEVEL is replaced by `thread` (`group`, its old spelling, reads the same); bench/run.py times the strategies
// that soac-to-kernel's `segred`/`segscan` options force.
// numpy: np.cumsum(xss, axis=1, dtype=np.int32)
func.func @main(%xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %n = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %sums = soac.segscan LEVEL (%m, %n) neutral(%zero : i32) -> tensor<?x?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } lambda(%i: index, %j: index) {
    %x = soac.index %xss[%i, %j] : tensor<?x?xi32> -> i32
    soac.yield %x : i32
  }
  func.return %sums : tensor<?x?xi32>
}
