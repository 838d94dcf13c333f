// FU-01: tests/fusion/Vers2.0/mapomap0.fut (diku-dk/futhark), translated into soac.
//
//   def main (arr: []f64) : ([]f64, []f64, []f64) =
//     let x = map (+ 1.0) arr
//     let y = map2 (+) x arr
//     let r = map (+ 5.0) arr
//     in (r, x, y)
//
// x fuses into y while staying a result (a map-out), and r joins them horizontally through
// the shared input arr: one map with three results. Futhark: Screma 1. Ours: one soac.map.
// Flattening makes the map one segmap.
// ==
// input {
//   [1.0,-4.0,-2.4]
// }
// output {
//   [6.0, 1.0, 2.6]
//   [2.0, -3.0, -1.4]
//   [3.0, -7.0, -3.8]
// }
// structure pipeline(soac-fuse) { soac.map 1 }
// structure { soac.segmap 1 soac.map 0 }

func.func @main(%arr: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %arr, %c0 : tensor<?xf64>
  %one = arith.constant 1.0 : f64
  %five = arith.constant 5.0 : f64
  // x = map (+ 1.0) arr
  %x = soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64) {
    %b = arith.addf %a, %one : f64
    soac.yield %b : f64
  }
  // y = map2 (+) x arr
  %y = soac.map %n (%x, %arr : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64, %b: f64) {
    %c = arith.addf %a, %b : f64
    soac.yield %c : f64
  }
  // r = map (+ 5.0) arr
  %r = soac.map %n (%arr : tensor<?xf64>) -> tensor<?xf64> lambda(%a: f64) {
    %b = arith.addf %a, %five : f64
    soac.yield %b : f64
  }
  func.return %r, %x, %y : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
}
