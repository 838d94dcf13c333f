// FL-17: tests/flattening/simple-scan.fut (diku-dk/futhark), translated into soac.
//
//   def main [n] [m] (xss: [n][m]i64) =
//     map (\xs -> scan (+) 0 xs) xss
//
// Futhark: structure gpu { SegScan 1 }.
// Ours differs: soac-flatten (mode=incremental, the default) versions the map nest like
// Futhark's classic incremental flattening: an outer-parallel version (a segmap thread whose
// threads run the inner scan sequentially) guarded by the threshold suff_outer_par, an
// intra-group version (a segmap group holding a thread-level segscan over the row) guarded by
// suff_intra_par, and the fully flattened version, one segscan over (n, m), in the innermost
// else branch. So there are two segscans and two scf.if, and the fully flattened one is
// /scf.if/scf.if/soac.segscan. (With these small rows, the default thresholds pick the fully
// flattened version.)
// With soac-flatten{mode=full} (as in soac-flatten/futhark-cases-full.mlir) it is one segscan.
// ==
// input { [[1i64,2i64,3i64],[4i64,5i64,6i64]] }
// output { [[1i64,3i64,6i64],[4i64,9i64,15i64]] }
// structure pipeline(soac-fuse) { soac.map 1 soac.scan 1 }
// structure { soac.segscan 2 soac.segmap/soac.segscan 1 /scf.if/scf.if/soac.segscan 1 scf.if 2 soac.threshold 2 }

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
