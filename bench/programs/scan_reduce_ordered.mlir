// Scans with a reduction part whose operator is not commutative (for bench/check_kernels.py): the look-back kernel
// then takes contiguous tiles (a work-item's items adjoin) and combines its partials in order.
//   @main: (scan (+) 0 xs, the last non-zero element of xs, the count of non-zero elements): i32 values, which
//          NVIDIA combines with warp shuffles
//   @wide: (scan (+) 0 xs, the last non-zero element of xs, the sum of xs as f64): an f64, which NVIDIA combines
//          in local memory
// numpy: np.cumsum(xs, dtype=np.int32), (xs[xs != 0][-1] if any else 0), np.count_nonzero(xs) / np.sum(xs, dtype=np.float64)
func.func @main(%xs: tensor<?xi32>) -> (tensor<?xi32>, i32, i32) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %sums, %last, %count = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) reduce(%zero, %zero : i32, i32) -> (tensor<?xi32>, i32, i32) combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } reduce_combine(%p: i32, %c: i32, %q: i32, %d: i32) {
    %nz = arith.cmpi ne, %q, %zero : i32
    %l = arith.select %nz, %q, %p : i32
    %t = arith.addi %c, %d : i32
    soac.yield %l, %t : i32, i32
  } lambda(%x: i32) {
    %nz = arith.cmpi ne, %x, %zero : i32
    %one = arith.extui %nz : i1 to i32
    soac.yield %x, %x, %one : i32, i32, i32
  }
  func.return %sums, %last, %count : tensor<?xi32>, i32, i32
}
func.func @wide(%xs: tensor<?xi32>) -> (tensor<?xi32>, i32, f64) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %fzero = arith.constant 0.0 : f64
  %sums, %last, %total = soac.scanomap %n (%xs : tensor<?xi32>) neutral(%zero : i32) reduce(%zero, %fzero : i32, f64) -> (tensor<?xi32>, i32, f64) combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  } reduce_combine(%p: i32, %f: f64, %q: i32, %g: f64) {
    %nz = arith.cmpi ne, %q, %zero : i32
    %l = arith.select %nz, %q, %p : i32
    %t = arith.addf %f, %g : f64
    soac.yield %l, %t : i32, f64
  } lambda(%x: i32) {
    %f = arith.sitofp %x : i32 to f64
    soac.yield %x, %x, %f : i32, i32, f64
  }
  func.return %sums, %last, %total : tensor<?xi32>, i32, f64
}
