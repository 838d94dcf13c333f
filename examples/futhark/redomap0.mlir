// FL-01: tests/distribution/redomap0.fut (diku-dk/futhark, v0.26.4-50), translated into soac.
//
//   -- Distribute a redomap inside of a map.
//   def main (a: [][]i32) : []i32 =
//     map (\(a_r: []i32) : i32 ->
//            reduce (+) 0 (map (+ 1) (a_r)))
//         a
//
// Fusion makes the inner map and reduce one redomap, inside the outer map.
// Futhark: structure gpu { SegRed 1 } (ExtractKernels also emits an outer-parallel version,
// a SegMap with a sequential loop, which that annotation does not constrain).
// Ours is the same: soac-flatten (mode=incremental, the default) makes the outer-parallel version (a
// segmap thread whose threads run the inner redomap sequentially) guarded by the threshold
// suff_outer_par_0, and the fully flattened version, one segred over (n, m); as in Futhark, one inner
// redomap makes no intra-group version (worthIntrablock, score 1; passes/flatten_heuristics.py).
// The Futhark test is structure-only: the input/output lines below are ours, computed by hand
// (rows sum to (1+1)+(2+1)+(3+1) = 9 and (4+1)+(5+1)+(6+1) = 18).
// ==
// input { [[1, 2, 3], [4, 5, 6]] }
// output { [9, 18] }
// input { empty([0][3]i32) }
// output { empty([0]i32) }
// structure pipeline(soac-fuse) { soac.map 1 soac.redomap 1 soac.reduce 0 }
// structure { soac.segred 1 /scf.if/soac.segred 1 soac.segmap 1 scf.if 1 soac.threshold 1 }

func.func @main(%a: tensor<?x?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xi32>
  %m = tensor.dim %a, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = soac.map %n (%a : tensor<?x?xi32>) -> tensor<?xi32> lambda(%a_r: tensor<?xi32>) {
    // map (+ 1) a_r
    %b = soac.map %m (%a_r : tensor<?xi32>) -> tensor<?xi32> lambda(%e: i32) {
      %f = arith.addi %e, %one : i32
      soac.yield %f : i32
    }
    // reduce (+) 0
    %s = soac.reduce %m (%b : tensor<?xi32>) neutral(%zero : i32) -> i32 combine(%x: i32, %y: i32) {
      %c = arith.addi %x, %y : i32
      soac.yield %c : i32
    }
    soac.yield %s : i32
  }
  func.return %r : tensor<?xi32>
}
