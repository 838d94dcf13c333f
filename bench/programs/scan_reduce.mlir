// Two reductions and a scan over one mapped input (FU-23 of futhark-cases.md with one more reduction; a Screma with
// scans and reductions, which Futhark's GPU backend runs as one SegScan):
//   ys = map (\x -> 3*x + 1) xs; (scan (+) 0 ys, reduce (+) 0 ys, reduce max lowest ys)
// soac-fuse makes one scanomap with a reduction part of two values; on look-back targets it runs as one kernel
// (soac-split-scan-reduce before soac-to-kernel gives the two kernels of a scanomap and a redomap instead).
// numpy: ys = 3 * xs + 1; np.cumsum(ys, dtype=np.int32), np.sum(ys, dtype=np.int32), np.max(ys)
func.func @main(%xs: tensor<?xi32>) -> (tensor<?xi32>, i32, i32) {
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
  %lowest = arith.constant -2147483648 : i32
  %sums = soac.scan %n (%ys : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  %total = soac.reduce commutative %n (%ys : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%a: i32, %b: i32) {
    %s = arith.addi %a, %b : i32
    soac.yield %s : i32
  }
  %top = soac.reduce commutative %n (%ys : tensor<?xi32>) neutral(%lowest : i32) -> i32 combine(%a: i32, %b: i32) {
    %m = arith.maxsi %a, %b : i32
    soac.yield %m : i32
  }
  func.return %sums, %total, %top : tensor<?xi32>, i32, i32
}
