// Seed 004's motivation for block tiling: every element meets every other element.
//
//   map (\x -> redomap (+) (\y -> y + x) 0 xs) xs
//
// result[i] = sum_j (xs[j] + xs[i]). Each work-item reads all of xs, so after
// soac-flatten the work-items of a group copy xs chunk by chunk into local memory
// (soac-tile) instead of each reading it from global memory.
//
//   soac-run examples/all_pairs.mlir --input '[1, 2, 3]'
//   result #0 : tensor<?xf32> = [ 9. 12. 15.]
//
// ==
// input { [1f32, 2f32, 3f32] }
// output { [9f32, 12f32, 15f32] }
// input { empty([0]f32) }
// output { empty([0]f32) }
// random input { [3000]f32 }
// structure { soac.segred 1 soac.segmap 1 soac.threshold 1 }
// structure pipeline(soac-fuse) { soac.map 1 soac.redomap 1 }

func.func @main(%xs: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %xs, %c0 : tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %sums = soac.map %n (%xs : tensor<?xf32>) -> tensor<?xf32> lambda(%x: f32) {
    %s = soac.redomap commutative %n (%xs : tensor<?xf32>) neutral(%zero : f32) -> f32 combine(%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      soac.yield %t : f32
    } lambda(%y: f32) {
      %p = arith.addf %y, %x : f32
      soac.yield %p : f32
    }
    soac.yield %s : f32
  }
  func.return %sums : tensor<?xf32>
}
