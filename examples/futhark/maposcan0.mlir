// FU-19: tests/fusion/Vers2.0/maposcan0.fut (diku-dk/futhark), translated into soac.
//
//   def main (arr: []f64) : ([]f64, []f64) =
//     let sa = scan (+) (0.0) arr
//     let b = map (* 2.0) sa
//     in (sa, b)
//
// The consumer map becomes the post lambda of the scan. Futhark: Screma 1. Ours: one
// soac.scanomap.
// After the default pipeline: soac-flatten makes segmented ops of map nests only; a scan
// outside any map is already flat and stays a soac.scanomap (the OpenCL lowering runs it as a
// parallel scan), so there is no soac.segscan.
// ==
// input {
//   [1.0,-4.0,-2.4]
// }
// output {
//   [1.0,-3.0,-5.4]
//   [2.0,-6.0,-10.8]
// }
// structure pipeline(soac-fuse) { soac.scanomap 1 soac.map 0 soac.scan 0 }
// structure { soac.scanomap 1 soac.segscan 0 }

func.func @main(%arr: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %arr, %c0 : tensor<?xf64>
  %zero = arith.constant 0.0 : f64
  %two = arith.constant 2.0 : f64
  // sa = scan (+) 0.0 arr
  %sa = soac.scan %n (%arr : tensor<?xf64>) neutral(%zero : f64) -> tensor<?xf64> combine(%p: f64, %q: f64) {
    %s = arith.addf %p, %q : f64
    soac.yield %s : f64
  }
  // b = map (* 2.0) sa
  %b = soac.map %n (%sa : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.mulf %x, %two : f64
    soac.yield %y : f64
  }
  func.return %sa, %b : tensor<?xf64>, tensor<?xf64>
}
