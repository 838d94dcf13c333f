// FU-15: tests/fusion/map-scan2.fut (diku-dk/futhark), translated into soac.
//
//   def main (a: []i32) : []i32 =
//     let (_, b) = unzip (map (\(x: i32) : (i32, i32) -> (x + 2, x - 2)) a)
//     let c = scan (+) 0 b
//     in c
//
// Only the second result of the tuple map is scanned; the first is dropped and the map fuses
// into the scan. Futhark: Screma 1. Ours: one soac.scanomap.
// After the default pipeline: soac-flatten makes segmented ops of map nests only; a scan
// outside any map is already flat and stays a soac.scanomap (the OpenCL lowering runs it as a
// parallel scan), so there is no soac.segscan.
// ==
// input {
//   [1,2,3,4,5,6,7]
// }
// output {
//   [-1, -1, 0, 2, 5, 9, 14]
// }
// structure pipeline(soac-fuse) { soac.scanomap 1 soac.map 0 soac.scan 0 }
// structure { soac.scanomap 1 soac.segscan 0 }

func.func @main(%a: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %two = arith.constant 2 : i32
  // (_, b) = unzip (map (\x -> (x + 2, x - 2)) a)
  %u, %b = soac.map %n (%a : tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) lambda(%x: i32) {
    %p = arith.addi %x, %two : i32
    %q = arith.subi %x, %two : i32
    soac.yield %p, %q : i32, i32
  }
  // c = scan (+) 0 b
  %c = soac.scan %n (%b : tensor<?xi32>) neutral(%zero : i32) -> tensor<?xi32> combine(%p: i32, %q: i32) {
    %s = arith.addi %p, %q : i32
    soac.yield %s : i32
  }
  func.return %c : tensor<?xi32>
}
