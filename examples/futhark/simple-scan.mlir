// FL-17: tests/flattening/simple-scan.fut (diku-dk/futhark), translated into soac.
//
//   def main [n] [m] (xss: [n][m]i64) =
//     map (\xs -> scan (+) 0 xs) xss
//
// Futhark: structure gpu { SegScan 1 }. So is ours: one inner scan makes neither an outer-parallel
// version nor an intra-group one (Futhark's worthSequentialising and worthIntrablock, both score 1;
// passes/flatten_heuristics.py), so soac-flatten emits one segscan over (n, m) and no threshold.
// ==
// input { [[1i64,2i64,3i64],[4i64,5i64,6i64]] }
// output { [[1i64,3i64,6i64],[4i64,9i64,15i64]] }
// structure pipeline(soac-fuse) { soac.map 1 soac.scan 1 }
// structure { soac.segscan 1 scf.if 0 soac.threshold 0 }

func.func @main(%xss: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi64>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi64>
  %zero = arith.constant 0 : i64
  %r = soac.map %n (%xss : tensor<?x?xi64>) -> tensor<?x?xi64> lambda(%xs: tensor<?xi64>) {
    // scan (+) 0 xs
    %s = soac.scan %m (%xs : tensor<?xi64>) neutral(%zero : i64) -> tensor<?xi64> combine(%a: i64, %b: i64) {
      %c = arith.addi %a, %b : i64
      soac.yield %c : i64
    }
    soac.yield %s : tensor<?xi64>
  }
  func.return %r : tensor<?x?xi64>
}
