// FU-17: tests/fusion/scanomap-scanomap2.fut (diku-dk/futhark), translated into soac.
//
//   def main (inp: []i32) : ([]i32, []i32, []i32, []i32) =
//     let a = map (+ 1) inp
//     let b = scan (+) 0 a
//     let c = map (+ 1) a
//     let d = scan (*) 1 c
//     in (a, b, c, d)
//
// Futhark: Screma 1. Ours: one soac.scanomap (two scanomaps, then scanomap->scanomap
// through the map-out a).
// After the default pipeline: soac-flatten makes segmented ops of map nests only; a scan
// outside any map is already flat and stays a soac.scanomap (the OpenCL lowering runs it as a
// parallel scan), so there is no soac.segscan.
// ==
// input {
//   [1,2,3,4,5,6,7]
// }
// output {
//   [2, 3, 4, 5, 6, 7, 8]
//   [2, 5, 9, 14, 20, 27, 35]
//   [3, 4, 5, 6, 7, 8, 9]
//   [3, 12, 60, 360,2520,20160,181440]
// }
// structure pipeline(soac-fuse) { soac.scanomap 1 soac.map 0 soac.scan 0 }
// structure { soac.scanomap 1 soac.segscan 0 }

func.func @main(%inp: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %inp, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  // a = map (+ 1) inp
  %a = soac.map %n (%inp : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %one : i32
    soac.yield %y : i32
  }
  // b = scan (+) 0 a
  %b = soac.scan %n (%a : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
    %s = arith.addi %p, %q : i32
    soac.yield %s : i32
  }
  // c = map (+ 1) a
  %c = soac.map %n (%a : tensor<?xi32>) -> tensor<?xi32> lambda(%x: i32) {
    %y = arith.addi %x, %one : i32
    soac.yield %y : i32
  }
  // d = scan (*) 1 c
  %d = soac.scan %n (%c : tensor<?xi32>) neutral(%one : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
    %s = arith.muli %p, %q : i32
    soac.yield %s : i32
  }
  func.return %a, %b, %c, %d : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}
