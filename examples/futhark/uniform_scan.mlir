// FL-19: tests/flattening/uniform_scan.fut (diku-dk/futhark), translated into soac.
//
//   entry main [n] [m] (xss: [n][m]i32) =
//     map (\xs ->
//            let a = xs[0]
//            let ys = map (+ a) xs
//            let zs = scan (+) 0 ys
//            in zs)
//         xss
//
// Fusion makes the inner map and scan one scanomap. Futhark: structure gpu { SegScan 1 If 0 }. So is ours:
// one inner scan makes no extra version (Futhark's heuristics, passes/flatten_heuristics.py), so
// soac-flatten emits one segscan over (n, m) and no threshold.
// ==
// compiled random input { [1][256]i32 } auto output
// compiled random input { [100][256]i32 } auto output
// compiled random input { [100][512]i32 } auto output
// structure pipeline(soac-fuse) { soac.map 1 soac.scanomap 1 soac.scan 0 }
// structure { soac.segscan 1 scf.if 0 soac.threshold 0 }

func.func @main(%xss: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %xss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %xss, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %r = soac.map %n (%xss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%xs: tensor<?xi32>) {
    // a = xs[0]
    %a = soac.index %xs[%c0] : tensor<?xi32> -> i32
    // ys = map (+ a) xs
    %ys = soac.map %m (%xs : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
      %y = arith.addi %x, %a : i32
      soac.yield %y : i32
    }
    // zs = scan (+) 0 ys
    %zs = soac.scan %m (%ys : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
      %s = arith.addi %p, %q : i32
      soac.yield %s : i32
    }
    soac.yield %zs : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
