// FU-11: tests/fusion/red-red-fusion.fut (diku-dk/futhark), translated into soac.
//
//   -- Horizontal fusion of reductions.
//   def main (xs: []i32) = (i32.sum xs, f32.sum (map f32.i32 xs))
//
// The map fuses into the second reduce (a redomap), and the two reductions of xs join
// horizontally. Futhark: Screma 1. Ours: one soac.redomap with two results.
// The Futhark test is structure-only: the input/output lines below are ours, computed by hand
// (1+2+3+4 = 10; the empty array sums to 0).
// ==
// input { [1, 2, 3, 4] }
// output { 10 10.0f32 }
// input { empty([0]i32) }
// output { 0 0.0f32 }
// structure pipeline(soac-fuse) { soac.redomap 1 soac.reduce 0 soac.map 0 }
// structure { soac.redomap 1 soac.reduce 0 soac.map 0 soac.segred 0 }

func.func @main(%xs: tensor<?xi32>) -> (i32, f32) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xi32>
  %zi = arith.constant 0 : i32
  %zf = arith.constant 0.0 : f32
  // i32.sum xs
  %s = soac.reduce %n (%xs : tensor<?xi32>) neutral(%zi : i32) -> i32 combine(%p: i32, %q: i32) {
    %c = arith.addi %p, %q : i32
    soac.yield %c : i32
  }
  // map f32.i32 xs
  %fs = soac.map %n (%xs : tensor<?xi32>) -> tensor<?xf32> lambda(%x: i32) {
    %f = arith.sitofp %x : i32 to f32
    soac.yield %f : f32
  }
  // f32.sum
  %t = soac.reduce %n (%fs : tensor<?xf32>) neutral(%zf : f32) -> f32 combine(%p: f32, %q: f32) {
    %c = arith.addf %p, %q : f32
    soac.yield %c : f32
  }
  func.return %s, %t : i32, f32
}
