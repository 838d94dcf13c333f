// FU-21: tests/fusion/Vers2.0/maposcanomaposcan.fut (diku-dk/futhark), translated into soac.
//
//   def main (arr: []f64) : (f64, []f64, []f64, []f64, []f64) =
//     let sa = scan (+) (0.0) arr
//     let b = map (* 2.0) sa
//     let sb = scan (+) (0.0) b
//     let c = map (+ 5.0) sb
//     let r = reduce (*) (1.0) b
//     in (r, sa, b, sb, c)
//
// Futhark: Screma 2. Ours: 2 too, but split differently: scan arr stays alone (sb and r need
// its whole result); map b fuses into scan b and reduce b, which join in one scanomap with a
// reduction part, and c becomes its post lambda. So: one soac.scan and one soac.scanomap.
// After the default pipeline: ops outside maps are already flat and get no seg ops, and
// soac-flatten leaves the scanomap with its reduction part whole (it splits only ops in
// lambdas); soac-to-kernel then splits it into a scanomap and a redomap (f64 values are wider
// than the one-kernel look-back scan+reduce takes).
// ==
// input {
//   [1.0,-4.0,-2.4]
// }
// output {
//   129.6
//   [1.0,-3.0, -5.4]
//   [2.0,-6.0,-10.8]
//   [2.0,-4.0,-14.8]
//   [7.0, 1.0, -9.8]
// }
// structure pipeline(soac-fuse) { soac.scan 1 soac.scanomap 1 soac.map 0 soac.reduce 0 }
// structure { soac.scan 1 soac.scanomap 1 soac.redomap 0 soac.segscan 0 soac.segred 0 }

func.func @main(%arr: tensor<?xf64>) -> (f64, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %arr, %c0 : tensor<?xf64>
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %five = arith.constant 5.0 : f64
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
  // sb = scan (+) 0.0 b
  %sb = soac.scan %n (%b : tensor<?xf64>) neutral(%zero : f64) -> tensor<?xf64> combine(%p: f64, %q: f64) {
    %s = arith.addf %p, %q : f64
    soac.yield %s : f64
  }
  // c = map (+ 5.0) sb
  %c = soac.map %n (%sb : tensor<?xf64>) -> tensor<?xf64> lambda(%x: f64) {
    %y = arith.addf %x, %five : f64
    soac.yield %y : f64
  }
  // r = reduce (*) 1.0 b
  %r = soac.reduce %n (%b : tensor<?xf64>) neutral(%one : f64) -> f64 combine(%p: f64, %q: f64) {
    %s = arith.mulf %p, %q : f64
    soac.yield %s : f64
  }
  func.return %r, %sa, %b, %sb, %c : f64, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
}
