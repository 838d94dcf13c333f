// FU-23: tests/fusion/scanreduce0.fut (diku-dk/futhark), translated into soac.
//
//   -- Horizontal fusion of scan and reduce.
//   def main (xs: []i32) =
//     (scan (+) 0 xs, reduce (*) 1 xs)
//
// Futhark: Screma 1 (one Screma holds a scan and a reduction). Ours: one soac.scanomap with a
// reduction part.
// Futhark's `structure gpu { SegScan 1 }` (one SegScan that also reduces) is ours too: a scan
// outside any map is already flat, so soac-flatten leaves the fused scanomap whole (it splits
// only scanomaps in lambdas) and it stays a soac.scanomap, not a segscan; the look-back strategy
// runs it as one kernel that scans and reduces (lowering/strategies/lookback_reduce.py).
// ==
// input { [1,2,3,4] } output { [1, 3, 6, 10] 24 }
// structure pipeline(soac-fuse) { soac.scanomap 1 soac.scan 0 soac.reduce 0 }
// structure { soac.scanomap 1 soac.redomap 0 soac.segscan 0 }

func.func @main(%xs: tensor<?xi32>) -> (tensor<?xi32>, i32) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  // scan (+) 0 xs
  %s = soac.scan %n (%xs : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
    %c = arith.addi %p, %q : i32
    soac.yield %c : i32
  }
  // reduce (*) 1 xs
  %t = soac.reduce %n (%xs : tensor<?xi32>) neutral(%one : i32) -> i32 combine(%p: i32, %q: i32) {
    %c = arith.muli %p, %q : i32
    soac.yield %c : i32
  }
  func.return %s, %t : tensor<?xi32>, i32
}
